"""What kind of answer a question asks for, and the constraints on it: the no-model answerer's contract.

    path        "which file ...", "what module ..."
    version     "what version ...", "which release ..."
    date        "when ...", "what day ..."
    duration    "how long ..."
    count       "how many ..."
    amount      "how much ...", "what price ..."
    number      another measure ("what was the p95", "what percentage ...")
    identifier  "which test ...", "what ticket ...", "which branch ..."
    command     "what command ...", "how do we run ..."
    sentence    a decision, a cause, a fix: the sentence that states it (never a way of doing something, "how do
                we deploy ...": that is told over several turns)

Guarantees: `asked` reads only the question's own interrogative form (its question word and the noun it asks
about), never a topic; a question about people, places or things of the person's life gets no type (those are
answered from facts, or by a model). Constraints: the order the question wants ("newest" for latest / current /
now, "oldest" for first / original) and the question's content words, stemmed, without the words that name the
type. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import content_words, stem
from .understand import Understanding

__all__ = ["TYPES", "Asked", "asked", "asks_past"]

TYPES = ("path", "version", "date", "duration", "count", "amount", "number", "identifier", "command", "sentence")

# The noun a "which/what ..." question asks about -> the answer type (the noun's own stems).
_HEAD_NOUNS: dict[str, tuple[str, ...]] = {
    "path": (
        "file", "path", "module", "script", "notebook", "migration", "folder", "directory", "stylesheet",
        "dockerfile", "makefile", "template",
    ),
    "version": ("version", "release", "tag"),
    "identifier": (
        "test", "ticket", "pr", "branch", "commit", "job", "table", "endpoint", "flag", "variable",
        "column", "function", "method", "class", "queue", "topic", "bucket", "key", "route", "hook", "migration id",
        "error code", "status code",
    ),
    "command": ("command", "cli command", "shell command"),
    "date": ("date", "day", "year", "month", "week", "weekday"),
    "amount": ("price", "cost", "amount", "fee", "bill", "total", "budget", "salary", "rent", "invoice amount"),
}
_HEAD = re.compile(r"\b(?:which|what)(?:'s| is| was| were)?((?: [\w-]+){1,3})")
# A verb right after the question word asks what did something, not which thing ("what made the ticket page
# crash", "what did the test assert"): no noun is asked about.
_VERB_AFTER = frozenset(
    "did do does made makes make caused causes broke breaks happened happens went got led kept stopped triggered "
    "prompted".split()
)
_ASPECTS = (
    (
        "fix",
        re.compile(
            r"\b(?:what|which \w+) (?:fixed|solved|resolved)\b"
            r"|\bhow (?:did|do|was|were) (?:we |i |you |it )?(?:fix|solve|resolve|work around|patch)"
        ),
    ),
    (
        "cause",
        re.compile(
            r"^(?:\W*\w+\W+){0,2}?why\b|\bwhat (?:caused|made|broke|went wrong|was wrong|is wrong)\b"
            r"|\b(?:root cause|the cause|the reason)\b|\bwhat was the \w+(?: \w+){0,3} (?:problem|issue)\b"
        ),
    ),
    (
        "decision",
        re.compile(
            r"\b(?:decide|decided|decision|pick|picked|choose|chose|go with|went with|settle|settled|agree|agreed|"
            r"opt|opted)\b"
        ),
    ),
)
_WAY = re.compile(r"^(?:\W*\w+\W+){0,2}?how (?:do|can|should|would) (?:i|we|you)\b")
_FIX_VERB = re.compile(r"\b(?:fix|solve|resolve|patch|work around)\b")  # "how should we fix it" asks for the fix
_FIXED = re.compile(r"\b(?:fix|fixed|fixes|patch|patched|resolved)\b")
_ORDER_NEW = re.compile(r"\b(?:latest|newest|last|most recent|current|currently|now|today|these days|anymore)\b")
# a question of what a value was, or of its history, not of what it is
_PAST = re.compile(
    r"\b(?:was|were|before|used\s+to|use\s+to|previous|previously|prior|originally|history|earlier)\b", re.I
)
_ORDER_OLD = re.compile(r"\b(?:first|original|originally|initial|initially|earliest|at first|to begin with)\b")
# Words that say what kind of answer is asked, not what it is about.
_TYPE_WORDS = frozenset(
    stem(w)
    for nouns in _HEAD_NOUNS.values()
    for n in nouns
    for w in n.split()
) | {"how", "long", "many", "much", "when", "which", "what", "name", "number", "called"}


@dataclass(frozen=True)
class Asked:
    """The answer type a question asks for, and its constraints."""

    type: str
    order: str | None  # "newest" | "oldest" | None
    terms: frozenset[str]  # the question's content words (stemmed), less the words that name the type
    question: str
    nouns: frozenset[str] = frozenset()  # the noun(s) a "which/what ..." question asks about ("test", "branch")
    aspect: str | None = None  # for a sentence: "cause", "fix" or "decision"


def _head(q: str) -> tuple[str, str] | None:
    """(answer type, noun) of the noun a "which/what ..." question asks about."""
    for m in _HEAD.finditer(q):
        head = m.group(1).strip()
        if head.split()[0] in _VERB_AFTER:
            continue
        if q.startswith("'s ", m.end(1)):
            # "what's the training job's memory limit": the job owns what is asked, it is not asked for
            head = " ".join(head.split()[:-1])
            if not head:
                continue
        for kind, nouns in _HEAD_NOUNS.items():
            for noun in nouns:
                if re.search(rf"\b{re.escape(noun)}s?\b", head):
                    return kind, noun
    return None


def _type(q: str, u: Understanding) -> str | None:
    if u.qclass in ("person", "relation", "place", "preference", "who-said"):
        return None
    if u.qclass == "thing":  # "what car do i drive": a thing of the person's life, unless it names a work noun
        return head[0] if (head := _head(q)) is not None else None
    if re.match(r"^(?:\W*\w+\W+){0,3}?how long ago\b", q):
        return "date"
    if re.search(r"\bhow long\b", q):
        return "duration"
    if re.search(r"\bhow many (?:ms|milliseconds|seconds|secs|minutes|mins|hours|hrs|days|weeks|months|years)\b", q):
        return "duration"  # "how many hours": an amount of time
    if re.search(r"\bhow many\b", q):
        return "count"
    if re.search(r"\bhow much\b", q):
        return "amount"
    head = _head(q)
    if head is not None:
        return head[0]
    if re.match(r"^(?:\W*\w+\W+){0,2}?when\b", q):
        return "date"
    if re.search(r"\bhow (?:do|did|does|can|should) (?:i|we|you) (?:run|start|invoke|launch|install|reproduce)\b", q):
        return "command"
    if u.qclass == "file":
        return "path"
    if u.qclass == "number":
        return "number"
    if u.qclass == "date":
        return "date"
    if u.qclass in ("decision", "bug", "other", "deploy", "tool"):
        # "how do we deploy the site": a way of doing something is told over turns, not in one sentence that holds
        # the question's words (a report of one deploy is no answer); "how should we fix it" asks for the fix
        return None if _WAY.match(q) and not _FIX_VERB.search(q) else "sentence"
    return None


def asks_past(question: str) -> bool:
    """Whether `question` asks what a value was, or its history ("how many slots did it have before"), not what it
    is."""
    return _PAST.search(question) is not None


def asked(question: str, u: Understanding) -> Asked | None:
    """The answer type and constraints of `question`; None when no typed extraction applies."""
    q = " ".join(question.lower().replace("’", "'").split())
    kind = _type(q, u)
    if kind is None:
        return None
    order = "newest" if (u.wants_current or _ORDER_NEW.search(q)) else "oldest" if _ORDER_OLD.search(q) else None
    if kind == "version" and order is None and _FIXED.search(q):
        order = "newest"  # a fix ships after the release that broke it
    terms = frozenset(w for t in u.terms for w in content_words(t) if w not in _TYPE_WORDS)
    head = _head(q)
    aspect = next((name for name, pattern in _ASPECTS if pattern.search(q)), None) if kind == "sentence" else None
    return Asked(kind, order, terms, question, frozenset({head[1]}) if head else frozenset(), aspect)

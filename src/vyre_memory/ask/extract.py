"""The no-model answerer: extraction from the top passages, for the classes where it is reliable.

    file      a file path the top passages name ("which file had ...")
    ticket    a ticket key or test name the question asks for (identifiers.py)
    deploy    a version ("what version shipped ...") or the day of the turn that reports it
    date      the day of the turn that reports the event ("when did we ...")
    other     the sentence that best states it (decisions, causes, fixes)

Every answer is a span of a cited passage (or that passage's own date), so it is grounded by
construction; its confidence comes from how clearly the best candidate beats the rest, and is
calibrated so that an uncertain extraction falls under the abstention threshold.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..contract import Passage
from ..ingest.text import file_paths
from .understand import Understanding

_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:[-+][\w.]+)?(?![\w.])")
_DEPLOY_CUE = re.compile(
    r"\b(?:live|deployed|deploy|released|release|shipped|ship|rolled out|went out|tagged|in production|prod)\b", re.I
)
_DEPLOY_WORDS = frozenset({"deploy", "ship", "shipp", "releas", "live", "go", "went", "production", "prod"})
SENTENCE_CAP = 0.45
# "what's the latest X release", "which version is the newest"; "what did we ship/release/deploy <when>"
_LATEST_RELEASE = re.compile(r"\b(?:latest|newest|most recent)\b.*\b(?:release|version)\b")
_SHIPPED = re.compile(r"^what (?:did|have) (?:we|i) (?:ship|release|deploy|push|put out|roll back|revert)\b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(\[])|\n+")
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*")
_STOP = frozenset(
    "a an the and or but of to in on at for with from by is are was were be been it this that these those we i you "
    "he she they my our your his her their what which who whom when where why how did do does done have has had "
    "not no yes so as if then than there here about into over after before just also can could would should will "
    "its it's i'm let's new old first last".split()
)
_CUES = {
    "decision": re.compile(
        r"\b(?:decided|decision|let'?s go with|going with|go with|we'll use|switch(?:ing)? to|keep|drop|instead|"
        r"chose|pick(?:ed)?|settled|it is|recorded)\b",
        re.I,
    ),
    "bug": re.compile(
        r"\b(?:root cause|because|caused|so the|which means|the fix|fixed|fix|race|leak|timeout|broke|failed|bug)\b",
        re.I,
    ),
}


@dataclass(frozen=True)
class Extracted:
    answer: str
    confidence: float
    cite: tuple[Passage, ...]
    quote: str
    method: str


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _terms(u: Understanding) -> set[str]:
    out = set()
    for term in u.terms:
        for w in re.split(r"[-_\s]", term.lower()):
            w = w.strip(".,;:!?")
            if w and w not in _STOP and len(w) > 1:
                out.add(_stem(w))
    return out


def _words(text: str) -> set[str]:
    """Stemmed words, with hyphenated and dotted compounds also split into their parts."""
    out = set()
    for w in _WORD.findall(text.lower()):
        out.add(_stem(w))
        if "-" in w or "_" in w or "." in w:  # refunds.py, pdf_renderer_v2, invoice-renderer
            out.update(_stem(part) for part in re.split(r"[-_.]", w) if part)
    return out


def _overlap(text: str, terms: set[str]) -> float:
    if not terms:
        return 0.0
    return len(terms & _words(text)) / len(terms)


def _day(ts: str | None) -> str | None:
    if not ts:
        return None
    try:
        when = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return f"{when:%B} {when.day}, {when.year}"


def extract(question: str, u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    """The best extractive answer, or None when no class-specific extraction applies."""
    if not passages:
        return None
    q = question.lower()
    if u.qclass == "file":
        return _file(u, passages)
    if u.qclass == "deploy" and not q.startswith(("when", "why", "how")):
        from .releases import latest_release, shipped_in_window

        if _LATEST_RELEASE.search(q):
            return latest_release(u, passages)
        if u.window is not None and _SHIPPED.search(q):
            return shipped_in_window(u, passages)
    if u.qclass == "deploy" and re.search(r"\b(?:what|which) (?:version|release)\b|\bversion\b", q):
        return _version(u, passages)
    if u.qclass == "deploy" and q.startswith("when"):
        return _when(u, passages, latest=u.wants_current or bool(re.search(r"\blast\b|\blatest\b", q)))
    if u.qclass in ("bug", "other", "file", "tool", "number"):
        from .identifiers import identifier, wants_identifier

        kind = wants_identifier(q)
        named = identifier(kind, u, passages) if kind else None
        if named is not None:
            return named
    if u.qclass == "number":
        from .figures import figure

        told = figure(u, passages)
        if told is not None and told.confidence >= 0.5:
            return told
    from .diagnosis import CAUSE_QUESTION, HAPPENED_QUESTION, diagnosis, happened

    if u.qclass in ("other", "bug", "deploy") and HAPPENED_QUESTION.search(q):
        event = happened(u, passages)
        if event is not None and event.confidence >= 0.5:
            return event

    if u.qclass in ("bug", "deploy") and CAUSE_QUESTION.search(q):
        found = _conclusion(q, u, passages) or diagnosis(u, passages)
        if found is not None:
            return found
    if u.qclass in ("decision", "bug", "other", "tool", "number"):
        return _conclusion(q, u, passages) or _sentence(u, passages)
    return None


# The assistant often states its finding with a label: "Root cause: ...", "Fix: ...", "Decision: ...".
# Such a sentence, of the kind the question asks for, is a told answer; any other sentence is not.
_CONCLUSIONS = {
    # "Root cause: ...", "The root cause is ...", never "Root cause written up in the doc"
    "cause": re.compile(
        r"^\W*(?:(?:the )?(?:root )?cause\W*(?::|is\b|was\b)|the (?:real )?(?:problem|bug|issue) (?:is|was)\b"
        r"|found it\b)",
        re.I,
    ),
    "fix": re.compile(r"^\W*(?:fix|fixed|the fix|two fixes)\b\W", re.I),
    "decision": re.compile(r"^\W*(?:decision(?: recorded)?|decided|we(?:'re| are) going with)\b\W", re.I),
}
CONCLUSION_CONFIDENCE = 0.55
_QUESTION_WORDS = frozenset(
    {"decid", "decide", "pick", "choose", "fix", "fixed", "caus", "cause", "wrong", "broke", "why"}
)


def _conclusion(q: str, u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    if u.qclass == "bug" and re.search(r"\b(?:how did we fix|what fixed|how was .* fixed)\b", q):
        label = _CONCLUSIONS["fix"]
    elif u.qclass == "bug" and re.search(r"^(?:why|what caused|what was wrong|what broke)\b", q):
        label = _CONCLUSIONS["cause"]
    elif u.qclass == "decision" and re.search(r"^what did we (?:decide|pick|choose)\b", q):
        label = _CONCLUSIONS["decision"]
    else:
        return None
    terms = _terms(u) - _QUESTION_WORDS
    for p in passages[:3]:
        # the conclusion must be about what was asked: its turn (and what was asked of it) names a
        # third of the question's words
        if p.kind != "assistant" or _overlap(p.about or p.text, terms) < 1 / 3:
            continue
        for sentence in _SENTENCE.split(p.text):
            sentence = sentence.strip(" -*>\t")
            if len(sentence) >= 40 and label.search(sentence):
                return Extracted(sentence[:400], CONCLUSION_CONFIDENCE, (p,), sentence[:400], "conclusion")
    return None


def _line_with(text: str, needle: str) -> str:
    """The sentence or line of `text` that holds `needle` (the quote an answer stands on)."""
    for part in _SENTENCE.split(text):
        if needle in part:
            return part.strip()[:400]
    return needle


def _rank_weight(rank: int) -> float:
    return 1.0 / (rank + 1)


def _file(u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    terms = _terms(u) - {"file", "bug", "fix"}
    votes = _Votes()
    for rank, p in enumerate(passages[:8]):
        # one vote per file per passage: a tool call that names a path twice (command and output) is one mention
        for short in dict.fromkeys(_relative(path, p.cwd) for path in file_paths(p.text)):
            if not re.search(r"\.\w{1,6}$", short) or short.startswith(("http", "www")):
                continue
            bonus = 1.0 + _overlap(short.replace("/", " ").replace("_", " ").replace(".", " "), terms)
            votes.add(short, _rank_weight(rank) * bonus, p)
    # calibrated on the open worlds: a winner with under ~2/3 of the top-two mass is often wrong
    return _about(votes.extracted("file", lambda share: min(0.9, max(0.0, 1.2 * share - 0.28))), terms)


def _relative(path: str, cwd: str | None) -> str:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


def _version(u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    votes = _Votes()
    for rank, p in enumerate(passages[:8]):
        if p.kind == "agent_prompt":  # a brief written for a helper restates what was known, it reports nothing
            continue
        cue = 1.5 if _DEPLOY_CUE.search(p.text) else 1.0
        for v in dict.fromkeys(_VERSION.findall(p.text)):
            # "2.41.1": the bare number reads the same whichever way it was written
            votes.add(v.lstrip("vV"), _rank_weight(rank) * cue, p)
    found = votes.extracted("version", lambda share: min(0.85, max(0.0, 1.3 * share - 0.3)))
    if found is not None and _FIX_QUESTION.search(u.question):
        # a fix ships after the release that broke it: the most named version being also the newest agrees;
        # a newer one in sight is likely the fix, and the most named one the release that broke it
        newest = found.answer == _newest(votes.scores)
        confidence = min(0.85, found.confidence + 0.1) if newest else min(found.confidence, 0.4)
        found = Extracted(found.answer, confidence, found.cite, found.quote, found.method)
    return _about(found, _terms(u) - _DEPLOY_WORDS - {"version", "fix", "fixed"})


_FIX_QUESTION = re.compile(r"\b(?:fix|fixed|fixes|resolved|patched)\b", re.I)


def _newest(versions: dict[str, float]) -> str:
    return max(versions, key=lambda v: tuple(int(n) for n in re.findall(r"\d+", v.split("-")[0].split("+")[0])[:3]))


def _about(found: Extracted | None, terms: set[str]) -> Extracted | None:
    """An answer is told only when the turn it comes from is about the question (a third of its words);
    otherwise its confidence drops under every threshold: the best file in a project that never had
    the bug is still the wrong file."""
    if found is None or not terms or any(_overlap(p.about or p.text, terms) >= 1 / 3 for p in found.cite):
        return found
    return Extracted(found.answer, min(found.confidence, 0.3), found.cite, found.quote, found.method)


class _Votes:
    """Candidate answers scored by the passages that name them; the winner's share sets its confidence."""

    def __init__(self) -> None:
        self.scores: dict[str, float] = {}
        self.where: dict[str, Passage] = {}

    def add(self, candidate: str, score: float, passage: Passage) -> None:
        self.scores[candidate] = self.scores.get(candidate, 0.0) + score
        self.where.setdefault(candidate, passage)

    def extracted(self, method: str, calibrate: Callable[[float], float]) -> Extracted | None:
        if not self.scores:
            return None
        ranked = sorted(self.scores.items(), key=lambda kv: (-kv[1], kv[0]))
        best, top = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else 0.0
        passage = self.where[best]
        confidence = round(calibrate(top / (top + second)), 3)
        return Extracted(best, confidence, (passage,), _line_with(passage.text, best), method)


def _when(u: Understanding, passages: Sequence[Passage], *, latest: bool) -> Extracted | None:
    """The day of the turn that reports the deploy (for "last"/"latest": the newest such turn)."""
    terms = _terms(u)
    best: tuple[float, Passage] | None = None
    reports = [p for p in passages[:8] if _DEPLOY_CUE.search(p.text) and p.kind in ("assistant", "tool_output")]
    if latest and reports:
        # the newest deploy among what was retrieved; older ones may be missing, so never told as fact
        newest = max(reports, key=lambda p: p.ts or "")
        return Extracted(_day(newest.ts) or "", 0.45, (newest,), newest.text[:300], "when") if newest.ts else None
    for rank, p in enumerate(passages[:5]):
        if latest:
            break
        score = _rank_weight(rank) * (0.5 + _overlap(p.text, terms)) * (1.5 if _DEPLOY_CUE.search(p.text) else 1.0)
        if best is None or score > best[0]:
            best = (score, p)
    if best is None:
        return None
    day = _day(best[1].ts)
    if day is None:
        return None
    named = _VERSION.findall(" ".join(u.terms))

    def reports_it(p: Passage) -> bool:
        # the turn names everything the question names (versions exactly) and reports a deploy
        covered = _overlap(p.text, terms - _DEPLOY_WORDS) >= 0.999
        return covered and all(v in p.text for v in named) and bool(_DEPLOY_CUE.search(p.text))

    days = {_day(p.ts) for p in passages[:5] if p.ts and reports_it(p)}
    # told only when the best turn reports it and no other top turn reports another day
    told = reports_it(best[1]) and days == {day}
    confidence = 0.7 if told else round(0.4 * _overlap(best[1].text, terms - _DEPLOY_WORDS), 3)
    return Extracted(day, confidence, (best[1],), best[1].text[:300], "when")


def _sentence(u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    terms = _terms(u)
    cue = _CUES.get(u.qclass)
    candidates: list[tuple[float, str, Passage]] = []
    for rank, p in enumerate(passages[:4]):
        if p.kind not in ("typed", "assistant", "compact_summary"):
            continue
        for sentence in _SENTENCE.split(p.text):
            sentence = sentence.strip(" -*>\t")
            if not 20 <= len(sentence) <= 400:
                continue
            cover = _overlap(sentence, terms)
            score = _rank_weight(rank) * (cover + (0.3 if cue and cue.search(sentence) else 0.0))
            candidates.append((score, sentence, p))
    if not candidates:
        return None
    candidates.sort(key=lambda c: (-c[0], c[1]))
    score, sentence, p = candidates[0]
    cover = _overlap(sentence, terms)
    # A sentence is shown as what memory found, never told as the answer: on the open worlds
    # its best score separates right from wrong no better than chance.
    confidence = round(min(SENTENCE_CAP, 0.15 + 0.35 * cover), 3)
    return Extracted(sentence, confidence, (p,), sentence, "sentence")

"""A setting asked as it is now, answered with no model: the value the newest edit gave it.

"what's the sync batch size now" is answered by the edit that set a setting whose name holds the question's words
(`SYNC_BATCH_SIZE = 200`), when that edit is one of the passages read and nothing else of the person's history
(within the asker's scope, before the question's day) may have given it another value since: no later edit, write
or command names it, and no other project sets it. The value is told with the unit its line or its name gives
("500 * time.Millisecond" is "500 ms", "TIMEOUT_S = 30" is "30 s").

Guarantees: only a question asking for a number as it is now is answered ("now", "currently", or no word of an
earlier time nor of what someone wanted: not "what was the previous ...", "what did dana recommend"); every word
of the question names the setting, its project or its file; one setting's name only (two names that fit as well
answer nothing); the edit ran and did not fail, sets one value on its line (not a call's arguments, not an
expression) and is not in a comment, a document, a file of tests, fixtures, samples or benchmarks, nor in a file of
another environment ("dev", "staging") than the question names; a count is not told from a limit ("how many users"
is not `MAX_USERS`). The answer is a span of the cited edit's line (its number, and a unit the line or the name
says), the quote is that line. Pure but for the `changed_since` lookup it is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from ..contract import TOOL_OUTPUT, Passage
from ..read.changes import changed_lines, name_words
from ..text import content_words, project_name
from .answer_types import Asked
from .vote import Extracted

__all__ = ["CONFIDENCE", "assignment", "newest_setting"]

CONFIDENCE = 0.6
MIN_WORDS = 2  # a setting's name must hold this many of the question's words
_NUMBER_TYPES = frozenset({"count", "amount", "duration", "number"})
# words a question about a setting's present value uses that no setting's name holds
_ASKING = frozenset(content_words("now current currently rn moment today default value set use these days latest"))
_ASSIGN = re.compile(r"(?<![=!<>:])=(?![=>])")
_COLON = re.compile(r":(?![:=])")
_NAME = re.compile(r"[A-Za-z_][\w.-]*")
# the value, with a unit written after it, then nothing but the line's end, a closing mark or a comment: not
# "10 * 60 * 1000", "60 if PROD else 5", "timedelta(hours=2, minutes=30)"
_VALUE = re.compile(
    r"[\"']?(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|min|mins|h|mb|gb|kb|%)?[\"']?"
    r"(?:\s*\*\s*time\.(Millisecond|Second|Minute|Hour))?\s*[,;)}\]]*\s*"
    r"(?:(?:#|//|--)\s*(?:(ms|seconds|secs?|minutes|mins?|hours|days|mb|gb|kb)\b)?.*)?$",
    re.I,
)
_CODE = re.compile(r"^\s*(?:if|elif|else|while|for|return|case|assert|when)\b")  # a condition, not a setting
_COMMENTED = re.compile(r"^\s*(?:#|//|--|;|\*|<!--|/\*)")
# a value its own comment says is passing: "= 200  # temporary, revert after the backfill"
_PASSING = re.compile(r"(?:#|//|--).*\b(?:temp|temporary|revert|todo|fixme|hack|for now|remove)\b", re.I)
# the unit a name's last word says; "s", "min" and "h" only in a name of time ("POOL_SIZE_MIN" is a minimum)
_UNIT_OF_NAME = {
    "ms": "ms", "millis": "ms", "sec": "s", "secs": "s", "seconds": "s", "mins": "min", "minutes": "min",
    "hours": "h", "mb": "MB", "gb": "GB", "kb": "KB", "pct": "%", "percent": "%",
}  # fmt: skip
_TIME_NAME = frozenset(content_words("timeout interval ttl delay duration expiry expire wait period age"))
_GO_UNITS = {"millisecond": "ms", "second": "s", "minute": "min", "hour": "h"}
# a file that sets a value for a case, a document or another environment, not the setting
_NOT_THE_SETTING = re.compile(
    r"(?:^|[/_.-])(?:tests?|spec|specs|fixtures?|examples?|samples?|templates?|mocks?|testdata|__tests__|conftest|"
    r"bench|benchmarks?|e2e|seeds?|docs?|override|playwright|cypress|jest|notebooks?)(?:[/_.-]|$)"
    r"|\.(?:md|rst|txt|adoc|ipynb|bak|orig)$|changelog"
)
_ENVIRONMENTS = frozenset("dev development local staging stage ci sandbox qa preview".split())
# a question of a value as it was, or as someone wanted it: "what was the previous ...", "what did dana recommend"
_EARLIER = re.compile(
    r"\b(?:was|were|did|had|used|before|previous(?:ly)?|old|original(?:ly)?|first|initial(?:ly)?|prior|earlier|"
    r"recommend\w*|suggest\w*|propos\w*|want\w*|ask\w*)\b",
    re.I,
)
# words of a setting's name that say no more than that it is one
_PLAIN = frozenset(
    content_words("config cfg const default defaults export pub static final let var val env app setting value")
) | frozenset(_UNIT_OF_NAME)
_LIMIT = frozenset(content_words("max maximum min minimum limit cap threshold"))
_FAILED = re.compile(r"tool_use_error|doesn't want to proceed|was rejected|string to replace not found|\berror:", re.I)


def assignment(line: str) -> tuple[str, frozenset[str], str] | None:
    """(the name set, its words, the value with its unit) of an edited line that gives one setting a number:
    `MAX_ITEMS = 12`, `pool-size: 25`, `"ttl": 900,`, `PollInterval: 500 * time.Millisecond`; None for any other line
    (a call's arguments, two settings, an expression, a comment)."""
    if _COMMENTED.match(line) or _PASSING.search(line) or _CODE.match(line):
        return None
    assigned = list(_ASSIGN.finditer(line))
    if len(assigned) > 1:
        return None  # "create_engine(url, pool_size=25, max_overflow=20)"
    at = assigned[0] if assigned else _COLON.search(line)
    if at is None or (not assigned and len(_COLON.findall(line)) > 1):
        return None
    if line.count("(", 0, at.start()) > line.count(")", 0, at.start()):
        return None  # a call's argument: "sync(rows, batch_size=200)", "@cache(ttl=900)"
    left = line[: at.start()]
    names = _NAME.findall(left.rsplit(":", 1)[0] if assigned and ":" in left else left)  # "NAME: u64 = 120"
    value = _VALUE.match(line[at.end() :].strip())
    if not names or value is None:
        return None
    name = names[-1]
    words = name_words(name)
    # a unit after the number, in Go's time, or in the line's comment (kept as the comment writes it: "48 hours")
    unit = (value.group(2) or "").lower() or _GO_UNITS.get((value.group(3) or "").lower(), "") or (value.group(4) or "")
    if not unit:
        last = words[-1].lower()
        unit = _UNIT_OF_NAME.get(last, "")
        if last in ("s", "min", "h") and _TIME_NAME & set(content_words(" ".join(words))):
            unit = last
    unit = {"sec": "s", "secs": "s", "mins": "min", "mb": "MB", "gb": "GB", "kb": "KB"}.get(unit, unit)
    said = f"{value.group(1)} {unit}" if unit and unit != "%" else f"{value.group(1)}{unit}"
    return name, frozenset(content_words(" ".join(words))), said


def _settings(p: Passage) -> Iterator[tuple[str, str, frozenset[str], str, str]]:
    """(file, name, its words, value, line) of each setting an edit passage sets."""
    if p.kind != TOOL_OUTPUT or _FAILED.search(p.text):  # an edit with what it printed: it ran, and did not fail
        return
    cwd = (p.cwd or "").rstrip("/") + "/"
    for file, line in changed_lines(p.text):
        if not file.startswith(cwd) and file.startswith("/"):
            continue  # outside the project: a scratch file
        file = file[len(cwd) :] if file.startswith(cwd) else file  # its folders in the project ("fixture-tester")
        if _NOT_THE_SETTING.search(file.lower()):
            continue
        found = assignment(line)
        if found is not None:
            yield file, found[0], found[1], found[2], line.strip()


def newest_setting(
    asked: Asked, passages: Sequence[Passage], changed_since: Callable[[str, str, Passage], bool]
) -> Extracted | None:
    """The value the newest edit read gave the setting the question names, or None. `changed_since(name, value,
    passage)` says whether anything of the history may have given it another value since (`Retriever.changed_since`)."""
    if asked.type not in _NUMBER_TYPES or asked.order == "oldest":
        return None
    if asked.order is None and _EARLIER.search(asked.question):
        return None  # asked as it was, or as someone wanted it
    terms = set(asked.terms) - _ASKING
    if len(terms) < MIN_WORDS:
        return None
    found: list[tuple[int, str, Passage, str, str, str]] = []
    for p in passages:
        for file, name, words, said, line in _settings(p):
            where = set(content_words(" ".join([project_name(p.cwd), *name_words(file)])))
            hit = len(terms & words)
            if hit < MIN_WORDS or not terms <= words | where:
                continue  # every word of the question names the setting, its project or its file
            if any(len(w) > 2 and w not in _PLAIN for w in words - terms):
                continue  # a word of the name the question lacks: "postgres pool size" for "redis pool size"
            if (_ENVIRONMENTS & set(content_words(" ".join(name_words(file))))) - terms:
                continue  # a file of another environment than asked ("config/dev.yaml")
            if asked.type == "count" and (_LIMIT & words) - terms:
                continue  # "how many users": not MAX_USERS
            found.append((hit, p.ts or "", p, name, said, line))
    if not found:
        return None
    most = max(f[0] for f in found)
    best = [f for f in found if f[0] == most]
    if len({f[3] for f in best}) > 1:
        return None  # two settings name the question's words as well: which one is asked is not known
    _, _, passage, name, said, line = max(best, key=lambda f: f[1])
    if len({f[4] for f in found if f[2] is passage and f[3] == name}) > 1:
        return None  # one edit sets it twice ("development" and "production" sections)
    if changed_since(name, said, passage):
        return None
    return Extracted(said, CONFIDENCE, (passage,), line, "setting", {passage.id: line})

"""Typed candidates: the values of one answer type that a passage's sentences hold.

Each extractor is registered by name in `EXTRACTORS` (so `vyre eval --ablation` can switch one off) and turns one
sentence of one passage into candidate values of its type, each a span of that sentence as written (so every
answer is grounded by construction), except `day`, which gives the passage's own date. No extractor reads the
question's wording: what was asked reaches them only as the answer type and, for identifiers, the noun asked
about; what an edit replaced is given them only when the question asks an earlier value (`asks_past`). Pure: no
I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..contract import TOOL_CALL, TOOL_OUTPUT, Passage
from ..errors import ConfigError
from ..ingest.text import TOOL_FIELDS, file_paths
from ..text import day, overlap, versions
from .answer_types import Asked, asks_past

__all__ = ["EXTRACTORS", "TYPE_EXTRACTORS", "Mention", "mentions", "split_ablation"]


@dataclass(frozen=True)
class Mention:
    """One candidate value where a sentence of a passage names it."""

    value: str
    passage: Passage
    rank: int
    sentence: str
    extractor: str


Extractor = Callable[[Passage, str, Asked], Iterable[str]]

_EXTENSION = re.compile(r"\.\w{1,6}$")


def _paths(p: Passage, sentence: str, asked: Asked) -> Iterable[str]:
    cwd = (p.cwd or "").rstrip("/") + "/"
    for path in file_paths(sentence):
        if _EXTENSION.search(path) and not path.startswith(("http", "www")):
            yield path[len(cwd) :] if cwd != "/" and path.startswith(cwd) else path


def _versions(p: Passage, sentence: str, asked: Asked) -> Iterable[str]:
    return versions(sentence)


_MONTHS = "january february march april may june july august september october november december".split()
_ISO_DATE = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
_NAMED_DATE = re.compile(
    r"\b(" + "|".join(m[:3] for m in _MONTHS) + r")[a-z]*\.? (\d{1,2})(?:st|nd|rd|th)?(?:,? (20\d\d))?\b", re.I
)


def _dates(p: Passage, sentence: str, asked: Asked) -> Iterable[str]:
    year = (p.ts or "")[:4]
    for y, m, d in _ISO_DATE.findall(sentence):
        if 1 <= int(m) <= 12:
            yield f"{_MONTHS[int(m) - 1].capitalize()} {int(d)}, {y}"
    for mon, d, y in _NAMED_DATE.findall(sentence):
        month = next(m for m in _MONTHS if m.startswith(mon.lower()))
        if 1 <= int(d) <= 31 and (y or year):
            yield f"{month.capitalize()} {int(d)}, {y or year}"


def _day(p: Passage, sentence: str, asked: Asked) -> Iterable[str]:
    """The day the passage was said (what "when did we ..." most often means)."""
    found = day(p.ts)
    return [found] if found else []


_CURRENCY = r"[$€£¥]|(?:usd|eur|gbp|pln|zł|dollars?|euros?|pounds?)\b"
_TIME_UNIT = (
    r"(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|nights?|"
    r"sprints?)\b"
)
_NUMBER = re.compile(
    rf"(?<![\w.#/-])(?P<pre>{_CURRENCY})?\s?(?P<n>\d{{1,3}}(?:[,\s]\d{{3}})+|\d+(?:\.\d+)?)(?![\w.]*\.\d)"
    rf"(?:\s?(?P<unit>%|k\b|x\b|{_TIME_UNIT}|gi?b?\b|mi?b\b|kb\b|{_CURRENCY}|[a-z][a-z-]{{2,}}))?",
    re.I,
)


def _numbers(p: Passage, sentence: str, asked: Asked) -> Iterable[str]:
    spans = [m.span() for pattern in (_ISO_DATE, _NAMED_DATE) for m in pattern.finditer(sentence)]
    spans += [m.span() for m in re.finditer(r"v?\d+\.\d+\.\d+\S*|[A-Z][A-Z0-9]+-\d+|#\d+", sentence)]
    for m in _NUMBER.finditer(sentence):
        if any(a <= m.start() < b for a, b in spans):
            continue  # part of a date, a version or an identifier
        pre, unit = (m.group("pre") or "").strip(), (m.group("unit") or "").strip()
        money = bool(pre or re.fullmatch(_CURRENCY, unit, re.I))
        timed = bool(unit and re.fullmatch(_TIME_UNIT, unit, re.I))
        if asked.type == "amount" and not money:
            continue
        if asked.type == "duration" and not timed:
            continue
        if asked.type == "count" and (money or timed or unit == "%" or "." in m.group("n")):
            continue
        text = sentence[m.start() : m.end()].strip()
        if asked.type == "count" and unit and not unit.startswith(("%", "k", "x")):
            text = sentence[m.start("n") : m.end("n")]  # "12 retries": the count is 12
        yield text


_TICKET = re.compile(r"(?<![\w/-])[A-Z][A-Z0-9]{1,9}-\d{1,6}(?![\w-])")
# a test's name: "test_refund_rounding", "testDeleteWhileScrubbing", "TestQuotaReset", a test class
# "ChartViewModelTests", "tests/x.py::test_y"; two words after "test" and before "Tests" at least ("TestFlight",
# "testID", "testTimeout" are a product and settings, "LoadTest", "UnitTests" kinds of test)
_TEST = re.compile(
    r"(?<![\w.])(?:test_[a-z0-9_]+|test(?:[A-Z][a-z0-9]+){2,}[A-Za-z0-9_]*|Test_?(?:[A-Z][a-z0-9]+){2,}[A-Za-z0-9_]*"
    r"|(?:[A-Z]+[a-z0-9]+){2,}Tests?)(?![\w/-]|\.\w)|\b\w+\.py::\w+"
)
_PR = re.compile(r"(?<![\w&])#\d{1,6}\b")
_BRANCH = re.compile(r"(?<![\w/.])(?:feature|feat|fix|bugfix|hotfix|release|chore)/[\w./-]+[\w]")
_SHA = re.compile(r"\b[0-9a-f]{7,40}\b")
_CODE_SPAN = re.compile(r"`([^`\n]{2,80})`")
_IDENT = re.compile(r"\b(?:[a-z][a-z0-9]*_[a-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b")
_ENDPOINT = re.compile(r"(?<![\w.])(?:GET |POST |PUT |PATCH |DELETE )?/[a-z][\w{}:./-]*")


def _identifiers(p: Passage, sentence: str, asked: Asked) -> Iterable[str]:
    noun = " ".join(sorted(asked.nouns))
    if "test" in noun:
        yield from _TEST.findall(sentence)
    elif "ticket" in noun:
        yield from _TICKET.findall(sentence)
    elif "pr" in asked.nouns:
        yield from _PR.findall(sentence)
    elif "branch" in noun:
        yield from _BRANCH.findall(sentence)
    elif "commit" in noun:
        yield from (s for s in _SHA.findall(sentence) if re.search(r"[a-f]", s) and re.search(r"\d", s))
    elif "endpoint" in noun or "route" in noun:
        yield from (e.strip() for e in _ENDPOINT.findall(sentence))
    else:
        yield from (s for s in _CODE_SPAN.findall(sentence) if " " not in s.strip())
        yield from _IDENT.findall(sentence)


_COMMAND = re.compile(r"^[a-z][\w.-]*(?: [^\s`]+)+$")
# a shell block of a reply: its lines are commands too ("```bash\nshopify theme dev --store x\n```")
_SHELL_BLOCK = re.compile(r"```(?:bash|sh|shell|console|zsh)[ \t]*\n(.*?)```", re.S)


@lru_cache(maxsize=256)
def _shell_lines(text: str) -> frozenset[str]:
    """The commands of `text`'s shell blocks: a block's lines, or where it shows prompts ("$ npm ci" and what it
    printed), its prompts' lines only; never a line continued on the next."""
    out: set[str] = set()
    for m in _SHELL_BLOCK.finditer(text):
        lines = [line.strip() for line in m.group(1).splitlines() if line.strip()]
        if any(line.startswith("$ ") for line in lines):
            lines = [line[2:].strip() for line in lines if line.startswith("$ ")]
        out.update(line for line in lines if not line.startswith("#") and not line.endswith("\\"))
    return frozenset(out)


def _commands(p: Passage, sentence: str, asked: Asked) -> Iterable[str]:
    for span in _CODE_SPAN.findall(sentence):
        if _COMMAND.match(span.strip()):
            yield span.strip()
    m = re.match(r"^\$ (.+)$", sentence)
    if m:
        yield m.group(1).strip()
    elif "```" in p.text and sentence in _shell_lines(p.text) and _COMMAND.match(sentence):
        yield sentence


# a stop and a lowercase word after it: a sentence break the splitter keeps whole in lowercase typing
_LOWER_BREAK = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[a-z])")


def _sentence(p: Passage, sentence: str, asked: Asked) -> Iterable[str]:
    if p.kind in ("typed", "assistant", "compact_summary"):
        yield from (s for s in _LOWER_BREAK.split(sentence) if 20 <= len(s) <= 300)


EXTRACTORS: dict[str, Extractor] = {
    "path": _paths,
    "version": _versions,
    "date": _dates,
    "day": _day,
    "number": _numbers,
    "identifier": _identifiers,
    "command": _commands,
    "sentence": _sentence,
}
TYPE_EXTRACTORS: dict[str, tuple[str, ...]] = {
    "path": ("path",),
    "version": ("version",),
    "date": ("date", "day"),
    "duration": ("number",),
    "count": ("number",),
    "amount": ("number",),
    "number": ("number",),
    "identifier": ("identifier",),
    "command": ("command",),
    "sentence": ("sentence",),
}
READ = 8  # passages read, in rank order
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(\[])|\n+")
# the name of a tool call's input that starts a line of its rendering ("file_path: ...", also at the head of its
# output's passage): a label, never a value
_TOOL_FIELD = re.compile(rf"^(?:{'|'.join(TOOL_FIELDS)}): ")
# what an edit replaced (rendered from "old_string: " up to "new_string: "): a value as it was, a candidate only when
# the oldest or an earlier one is asked for ("what was the first timeout", "how many slots did it have before")
_REPLACED = re.compile(r"^old_string: .*?(?=^new_string: |\Z)", re.S | re.M)


def mentions(asked: Asked, passages: Iterable[Passage], off: frozenset[str] = frozenset()) -> list[Mention]:
    """Every candidate of the asked type in the top passages' sentences (extractors named in `off` skipped)."""
    names = [n for n in TYPE_EXTRACTORS[asked.type] if n not in off]
    out: list[Mention] = []
    for rank, p in enumerate(list(passages)[:READ]):
        if p.kind == "agent_prompt":  # a brief written for a helper restates what was known; it reports nothing
            continue
        replaced = p.kind in (TOOL_CALL, TOOL_OUTPUT) and asked.order != "oldest" and not asks_past(asked.question)
        text = _REPLACED.sub("", p.text) if replaced else p.text
        said = [s.strip(" -*>\t") for s in _SPLIT.split(text) if s.strip(" -*>\t")]
        if p.kind in (TOOL_CALL, TOOL_OUTPUT):
            said = [_TOOL_FIELD.sub("", s, count=1) for s in said]
        for name in names:
            if name == "day":
                best = max(said, key=lambda s: overlap(s, set(asked.terms)), default="")
                out.extend(Mention(v, p, rank, best[:400], name) for v in _day(p, best, asked))
                continue
            for sentence in said:
                for value in dict.fromkeys(EXTRACTORS[name](p, sentence, asked)):
                    out.append(Mention(value, p, rank, sentence[:400], name))
    return out


def split_ablation(name: str | None) -> tuple[str | None, frozenset[str]]:
    """ "hybrid-no-day-no-path" -> ("hybrid", {"day", "path"}): a retrieval configuration and the extractors
    switched off for an ablation."""
    if not name or "-no-" not in name:
        return name, frozenset()
    config, *off = name.split("-no-")
    unknown = [x for x in off if x not in EXTRACTORS]
    if unknown:
        raise ConfigError(f"no extractor named {unknown[0]!r}; extractors: {', '.join(EXTRACTORS)}")
    return config or None, frozenset(off)

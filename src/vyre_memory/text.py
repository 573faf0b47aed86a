"""Words, stems, sentences, versions, project names and times: the text helpers every layer shares (read and ask alike).

One copy of each: the stop words, the stemmer, the sentence splitter, what a version looks like and how a
stored ISO time is read. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from functools import lru_cache
from pathlib import PurePosixPath

__all__ = [
    "MONTHS",
    "SENTENCE",
    "STOP",
    "VERSION",
    "content_words",
    "day",
    "identifier_words",
    "names_match",
    "overlap",
    "parse_ts",
    "project_name",
    "sentences",
    "spoken_dates",
    "spoken_units",
    "stem",
    "version_key",
    "versions",
    "words",
]

STOP = frozenset(
    """a about above after again against all also am an and any are aren aren't as at be because been before being
    below between both but by can can't cannot could couldn couldn't did didn didn't do does doesn doesn't doing don
    don't down during each few for from further get gets got gotten had hadn hasn has have haven having he her here
    hers herself him himself his how i if in into is isn it it's its itself just let me might more most mustn my
    myself no nor not now of off on once only or other ought our ours ourselves out over own same shan she should
    shouldn so some such than that that's the their theirs them themselves then there there's these they this those
    through to too under until up very was wasn we were weren what what's when where which while who who's whom whose
    why will with won would wouldn you your yours yourself yourselves ever really actually again already still
    currently these days nowadays latest recent recently lately right exactly please remind tell know remember say
    thing things stuff one ones kind sort type anything something someone somebody us yes yeah ok okay hey
    i'm i've i'd i'll we're we've we'd we'll you're you've isn't wasn't weren't won't hasn't haven't hadn't
    shouldn't wouldn't couldn't mustn't let's last per via""".split()
)
VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:[-+]\w+(?:\.\w+)*)?(?!\w|\.\w)")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(\[])|\n+")
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*")
# a word written in camel case: a lower-case letter or digit then a capital ("getUser", "OrderQueueLatency"),
# or an acronym then a word ("HTTPServer")
_CAMEL_WORD = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*\b")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def identifier_words(text: str) -> list[str]:
    """The words inside each camel-case identifier `text` writes, lower case and once each: "OrderQueueLatencyHigh"
    gives order, queue, latency, high, so a search for "latency alert" finds it (a full-text index keeps the
    identifier as one token). Parts of one letter are left out."""
    out: dict[str, None] = {}
    for m in _CAMEL_WORD.finditer(text):
        for part in _CAMEL_PART.findall(m.group(0)):
            if len(part) > 1:
                out[part.lower()] = None
    return list(out)


def stem(word: str) -> str:
    """A crude suffix stripper: "deployed", "deploying", "deploys" -> "deploy"."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            base = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2] and base[-1] not in "aeiouls":
                base = base[:-1]  # "shipped" -> "ship", "stopping" -> "stop" (but "called" -> "call")
            return base
    return word


def words(text: str) -> set[str]:
    """Stemmed words, with hyphenated, dotted and underscored compounds also split into their parts."""
    out = set()
    for w in _WORD.findall(text.lower()):
        w = w.rstrip(".")
        out.add(stem(w))
        if "-" in w or "_" in w or "." in w:  # orders.py, report_worker_v2, auth-service
            out.update(stem(part) for part in re.split(r"[-_.]", w) if part)
    return out


def content_words(text: str) -> set[str]:
    """The stemmed words of a text that say what it is about (no stop words, no single letters)."""
    return {w for w in words(text) if w not in STOP and len(w) > 1 and stem(w) not in STOP}


def overlap(text: str, terms: set[str]) -> float:
    """The share of `terms` (stemmed) that `text` holds."""
    if not terms:
        return 0.0
    return len(terms & words(text)) / len(terms)


def sentences(text: str) -> list[str]:
    """A text's sentences and lines, stripped of list markers."""
    return [s.strip(" -*>\t") for s in SENTENCE.split(text) if s.strip(" -*>\t")]


def versions(text: str) -> list[str]:
    """The versions a text names, in order, each once, without a leading "v"."""
    return list(dict.fromkeys(v.lstrip("vV") for v in VERSION.findall(text)))


@lru_cache(maxsize=4096)
def project_name(cwd: str | None) -> str:
    """A project's name: the last part of the folder it was run in ("" without one). Cached: retrieval asks it of
    every candidate passage when a question names a project, and a history has few folders."""
    if not cwd:
        return ""
    return PurePosixPath(cwd.replace("\\", "/")).name


def version_key(version: str) -> tuple[int, ...]:
    """ "2.10.1" > "2.9.3": versions compare by their numbers (a suffix such as "-rc1" is ignored)."""
    return tuple(int(n) for n in re.findall(r"\d+", version.split("-")[0].split("+")[0])[:3])


_ISO_DATE = re.compile(r"(?<![\w/.:-])(\d{4})-(\d{2})-(\d{2})(?![\w/:-]|\.\w|\s\d{1,2}:\d{2})")
MONTHS = "January February March April May June July August September October November December".split()


def spoken_dates(text: str) -> str:
    """`text` with its dates written as people say them: "2026-10-23" is "23 October 2026" (a passage's header
    writes its date the ISO way, and a model answering copies it). A date inside a path, a file's name, a version
    or a timestamp ("2026-10-23T14:05", "2026-10-23 14:05"), and one that is no day, stays."""

    def spoken(m: re.Match[str]) -> str:
        try:
            when = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:  # no such day
            return m.group(0)
        return f"{when.day} {MONTHS[when.month - 1]} {when.year}"

    return _ISO_DATE.sub(spoken, text)


# a unit written in lower case against its number ("800ms", "3.1kg", "2.5mins"); not "s" ("her 30s"), "k" ("24k"),
# "m", "d", "g", "h" ("3d", "5g", "12h"): their letter is as often a word of its own, or the glued form is how the
# value is written. Not a unit in capitals ("512Mi", "6GB"): set apart, it would read as a name of its own. Not in a
# path, a URL or a name ("fix/10ms-timeout", "cache-ttl-5min", "app:10mb", "#12mb"); after "=" it is a measure
# ("p99=1840ms"), and a flag is quoted as code.
_GLUED_UNIT = re.compile(
    r"(?<![\w.,/:#@~-])((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(ms|µs|ns|sec|secs|min|mins|hr|hrs|kg|km|cm|mm|"
    r"kb|mb|gb|tb|kbps|mbps|gbps|rps|qps|rpm|ghz|mhz|kwh|kw|mah)(?![\w/-]|\.\w)"
)
_GLUED_CLOCK = re.compile(r"(?<![\w.,/:#@~-])(\d{1,2}:\d{2})([ap]m)(?![\w/-]|\.\w)")  # "6:30am" is "6:30 am"
_CODE_SPAN = re.compile(r"((`+)[^`]*?\2|`[^`]*$)")  # "`x`", "``x``", and an unclosed one to the end


def spoken_units(text: str) -> str:
    """`text` with a space between a number and its unit, as the unit is written apart ("800ms" is "800 ms", as
    "800" is found in it; "6:30am" is "6:30 am"); what is quoted as code (in backticks) stays as written."""

    def apart(prose: str) -> str:
        return _GLUED_CLOCK.sub(r"\1 \2", _GLUED_UNIT.sub(r"\1 \2", prose))

    out, at = [], 0
    for m in _CODE_SPAN.finditer(text):
        out += [apart(text[at : m.start()]), m.group(0)]
        at = m.end()
    return "".join([*out, apart(text[at:])])


def parse_ts(ts: str | None) -> datetime | None:
    """A stored ISO time as an aware datetime (UTC when it names no zone); None when absent or unreadable."""
    if not ts:
        return None
    try:
        when = datetime.fromisoformat(str(ts).replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def day(ts: str | None) -> str | None:
    """ "May 13, 2026" from an ISO time."""
    when = parse_ts(ts)
    return f"{when:%B} {when.day}, {when.year}" if when else None


def names_match(a: str, b: str) -> bool:
    """Two names of one person: the same words, or one's words all in the other ("Dani" and "Dani Rivera")."""
    x, y = set(a.lower().split()), set(b.lower().split())
    return bool(x) and bool(y) and (x <= y or y <= x)

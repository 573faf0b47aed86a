"""Is an answer grounded? Every name, number, date, file name and identifier it states must appear in the text it cites.

Guarantees:
- Pure and deterministic: no I/O, no clock, no model. The same (answer, texts) always gives the same result.
- `claims(answer)` lists the checkable pieces of an answer in the order they appear, without duplicates: dates in
  common written forms ("August 22", "22 Aug 2026", "2026-08-22", "8/22"), capitalised names and multiword names
  ("Dagny Wenzel"; sentence-opening words such as "The", "Yes", "Switched" are not names), numbers (decimals,
  percentages, money, versions such as v2.38.2), file names and paths, and identifiers (LED-1440, snake_case,
  CamelCase, ACRONYMS). Lower-case ordinary words are never claims.
- `names(answer)` is the name claims alone (the people, places and things an answer names).
- `check(answer, texts)` is ok exactly when every claim is found in `texts`, comparing with case, punctuation,
  thousands separators and a "v" before a version ignored; a date matches the same month and day written any of the
  forms above (and the year, when the answer gives one); "second" counts as 2. `missing` lists the claims not found.
- What an answer works out is grounded only with its working shown: a length of time ("10 days") by two of the
  answer's own grounded dates it lies between, a difference ("by 30") by two of its own grounded numbers.
- This is the one grounding check: the model answerer, the no-model extractive answerer and the eval's `ungrounded`
  metric all call it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import combinations

from ..text import parse_ts
from .datelang import english_names

__all__ = [
    "Evidence",
    "GroundingResult",
    "check",
    "claims",
    "date_spans",
    "named_dates",
    "names",
    "passage_evidence",
    "quote_for",
]

_MONTH_NUM, _WEEKDAY_NUM = english_names()  # "jan", "january", "sept" -> 1..12; "monday" -> 0..6
WEEKDAYS = tuple(_WEEKDAY_NUM)
MONTHS = tuple(_MONTH_NUM)  # names and abbreviations
_CARDINALS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
)
_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(_CARDINALS.split())}
_NUMBER_WORDS |= {w: str(i + 1) for i, w in enumerate(_ORDINALS.split())}
_NUMBER_WORDS |= {"once": "1", "twice": "2", "half": "50", "dozen": "12"}

_MON = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"
_DATE = re.compile(
    rf"(?<![\w/.,:$-])(?:"
    rf"(?P<iso>(?P<iy>{_YEAR})-(?P<im>0?[1-9]|1[0-2])-(?P<id>[12]\d|3[01]|0?[1-9]))"
    rf"|(?P<md>(?P<m1>{_MON})\s+(?P<d1>{_DAY})(?![\w:]|[.,]\d)(?:,?\s+(?P<y1>{_YEAR}))?)"
    rf"|(?P<dm>(?P<d2>{_DAY})(?:\s+of)?\s+(?P<m2>{_MON})(?:,?\s+(?P<y2>{_YEAR}))?)"
    rf"|(?P<my>(?P<m3>{_MON})\s+(?P<y3>{_YEAR}))"
    rf"|(?P<us>(?P<um>0?[1-9]|1[0-2])/(?P<ud>[12]\d|3[01]|0?[1-9])(?:/(?P<uy>{_YEAR}|\d\d))?)"
    rf")(?![\w/-])",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[^\s]+")
_STRIP = "()[]{}<>\"'`“”‘’,;:!?*"

# Words that start sentences or fill answers; capitalised, they are still not names.
_COMMON_WORDS = (
    """
a an the this that these those it its it's he she they them their there here we you your yours i i'm i've me my
mine our ours his her hers him who whom whose what which when where why how yes no not none nothing nobody
maybe probably possibly perhaps likely unknown unclear sure ok okay yeah yep nope also and or but so then
because since after before until while during about around at by for from in into of on onto to with without
over under between through per via as if than is was are were be been being am do does did done has have had
can could will would shall should may might must one some any all each every both either neither most many
much more less few several first last next new old now today yesterday tomorrow tonight still just only
again already always never sometimes usually often once twice both same other another such very too quite
according mostly roughly about approximately exactly nearly almost over under mr mrs ms dr prof st
sometime somewhere someone something somebody anyone anything everyone everything everywhere anywhere
chose went set ran made built wrote took gave got put use keep kept drop switch move run add fix remove left
"""
    + "\n"
    + "well like though although however instead otherwise either per unless whether whatever"
)

_COMMON = frozenset(_COMMON_WORDS.split()) | frozenset(_CARDINALS.split()) | frozenset(_ORDINALS.split())


# "winter/ice-water", "short-term/long-term": compound words offered as alternatives, not a path ("app/billing" is
# one, and so is anything with a dot, a digit, an underscore, a capital, a leading slash or more than two parts)
_ALTERNATIVES = re.compile(r"(?=[a-z/]*-)[a-z]+(?:-[a-z]+)*/[a-z]+(?:-[a-z]+)*")
_PLAIN_COMPOUND = re.compile(r"[A-Z][a-z]+(?:-[a-z]+)+$")
# a stated length of time: "10 days", "about 7 weeks", "3 months" (a number with its unit)
_DURATION = re.compile(r"(?<![\w.,:])(\d+)\s*(days?|weeks?|months?|years?|d|wk|wks|mo)\b", re.IGNORECASE)
_UNIT_DAYS = {"d": 1, "day": 1, "days": 1, "wk": 7, "wks": 7, "week": 7, "weeks": 7, "mo": 30.44, "month": 30.44}
_UNIT_DAYS |= {"months": 30.44, "year": 365.25, "years": 365.25}

_CONNECTORS = frozenset({"of", "the", "de", "van", "von", "da", "di", "del", "la", "le"})
_ABBREVIATION = re.compile(r"[A-Z]\.|(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr)\.")
_LATIN = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m", "cf"})


@dataclass(frozen=True)
class GroundingResult:
    ok: bool
    missing: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- normalising


_WORD = re.compile(r"[^\W_]+")
_V_NUMBER = re.compile(r"v\d+")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")
_YEAR_WORD = re.compile(r"(?:19|20)\d\d")


# an identifier in camel case, and where its humps start: "minSdkVersion" is min|Sdk|Version (not a unit: "GiB")
_CAMEL = re.compile(r"\b[a-z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b")
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9]{2})(?=[A-Z])")


def _camel_heads(text: str) -> set[str]:
    """The leading humps of each camel-case identifier `text` names, lower case: "minSdkVersion" gives "minsdk" and
    "minsdkversion", so "minSdk" is said in it (as "SYNC_INTERVAL" is in "SYNC_INTERVAL_MS"); never a later hump
    alone ("Version") nor a word inside a name ("Java" in "JavaScript")."""
    out: set[str] = set()
    for m in _CAMEL.finditer(text):
        word = m.group(0)
        humps = [h.start() for h in _CAMEL_HUMP.finditer(word)]
        out |= {word[:c].lower() for c in [*humps[1:], len(word)]}
    return out


def _words(text: str) -> list[str]:
    """Lower-case alphanumeric runs; a 'v' glued to a version number ("v2") is dropped; "1st" becomes "1"."""
    out = _WORD.findall(text.lower())
    for i, w in enumerate(out):
        if w[0] == "v" and _V_NUMBER.fullmatch(w):
            out[i] = w[1:]
        elif w[-1] in "tdh" and w[0].isdigit() and _ORDINAL.fullmatch(w):
            out[i] = w[:-2]
    return out


@dataclass(frozen=True)
class _Date:
    month: int
    day: int | None
    year: int | None


def _date_of(m: re.Match[str]) -> _Date | None:
    def num(name: str) -> int | None:
        v = m.group(name)
        return int(re.sub(r"\D", "", v)) if v else None

    def mon(name: str) -> int:
        return _month(m.group(name))

    if m.group("iso"):
        return _Date(num("im") or 0, num("id"), num("iy"))
    if m.group("md"):
        return _Date(mon("m1"), num("d1"), num("y1"))
    if m.group("dm"):
        return _Date(mon("m2"), num("d2"), num("y2"))
    if m.group("my"):
        return _Date(mon("m3"), None, num("y3"))
    year = num("uy")
    if year is not None and year < 100:
        year += 2000
    return _Date(num("um") or 0, num("ud"), year)


_WEEKDAY_OF = {
    short: next(w for w in WEEKDAYS if w.startswith(short))
    for short in ("mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun")
}  # "Sun" is Sunday
_WEEKDAY_SHORT = "|".join(sorted(_WEEKDAY_OF, key=len, reverse=True))
# what may stand before a date and belongs to it: "Sunday, August 2", "Sun 2 August", "the 2nd of August"
_DATE_HEAD = re.compile(
    rf"(?:\b(?:{'|'.join(WEEKDAYS)}|{_WEEKDAY_SHORT})\.?,?\s+)?(?:\bthe\s+)?$", re.IGNORECASE
)


def date_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` writes a date, with the weekday written before it: "Sunday, August 2, 2026" is one span."""
    out = []
    for m in _DATE.finditer(text):
        head = _DATE_HEAD.search(text, 0, m.start())
        out.append((head.start() if head else m.start(), m.end()))
    return out


def named_dates(text: str) -> list[tuple[int, int]]:
    """The days `text` names unambiguously, as (month, day): "19 August", "Aug 19th", "2026-08-19"; not "11/10",
    which is a day of November or of October."""
    out = []
    for m in _DATE.finditer(text):
        d = _date_of(m)
        if d is not None and d.month and d.day is not None and not m.group("us"):
            out.append((d.month, d.day))
    return out


def _month(word: str) -> int:
    w = word.lower().rstrip(".")
    return _MONTH_NUM.get(w) or _MONTH_NUM.get(w[:3], 0)


_DAY_MONTH = re.compile(r"(?<![\w.,])(\d{1,2})\.(\d{2})(?:\.((?:19|20)\d\d))?(?![\w]|\.\d)")
# a day of the month said by its ordinal: "the 9th", "21st"
ORDINAL_DAY = re.compile(r"(?<![\w.])([12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\d.,:])\d[\d,]*(?:[.:]\d+)*")


def _number(text: str) -> str:
    n = text.replace(",", "")
    return str(int(n)) if n.isdigit() else n


class Evidence:
    """The cited texts, indexed once for many claims."""

    def __init__(self, texts: Iterable[str]) -> None:
        joined = "\n".join(texts)
        self.words = _words(joined)
        self.camel_heads = _camel_heads(joined)
        self.positions: dict[str, list[int]] = {}
        for i, w in enumerate(self.words):
            self.positions.setdefault(w, []).append(i)
        # a date's numbers are its day and year: "2026-08-22" does not say "8"
        undated = _DATE.sub(" | ", joined)
        self.numbers = {_number(m.group(0)) for m in _NUMBER.finditer(undated)}
        self.numbers |= {v for w in self.positions if (v := _NUMBER_WORDS.get(w))}
        self.dates: set[tuple[int, int | None, int | None]] = set()
        self.months: set[int] = set()
        self.years: set[int] = set()
        for m in _DATE.finditer(joined):
            d = _date_of(m)
            if d is None or not d.month:
                continue
            self.dates.add((d.month, d.day, d.year))
            if m.group("us") and d.day is not None and d.day <= 12:  # "11/10" is 10 November or 11 October
                self.dates.add((d.day, d.month, d.year))
                self.months.add(d.day)
            self.numbers |= {str(n) for n in (d.day, d.year) if n is not None}
            self.months.add(d.month)
            if d.year:
                self.years.add(d.year)
        for m in _DAY_MONTH.finditer(joined):  # "moved from 15.01 to 3.02": day.month, as much of the world writes it
            day, month = int(m.group(1)), int(m.group(2))
            if 1 <= day <= 31 and 1 <= month <= 12:
                self.dates.add((month, day, int(m.group(3)) if m.group(3) else None))
        self.months |= {n for w in self.positions if (n := _MONTH_NUM.get(w, 0))}
        # "closing is july 17, we move the 18th": a day said as an ordinal, in a text that names the month
        self.ordinal_days = {int(m.group(1)) for m in ORDINAL_DAY.finditer(joined)}
        self.years |= {int(w) for w in self.positions if w[0] in "12" and _YEAR_WORD.fullmatch(w)}
        self.text = joined.lower()

    def has_words(self, claim: str) -> bool:
        ws = _words(claim)
        if not ws:
            return True
        key = "".join(ws)
        # a plural ("Tuesdays") of what the text says will do
        return self._has_run(key) or (key.endswith("s") and len(key) > 2 and self._has_run(key[:-1]))

    def _has_run(self, key: str) -> bool:
        """Whether consecutive words of the text, joined, are exactly `key` ("cx 5" and "cx5" both give "cx5")."""
        words = self.words
        for first, starts in self.positions.items():
            if not key.startswith(first):
                continue
            for i in starts:
                acc, j = first, i + 1
                while len(acc) < len(key) and j < len(words):
                    acc += words[j]
                    j += 1
                if acc == key:
                    return True
        return False

    def has_number(self, claim: str) -> bool:
        """A number as the text writes it: "2.38" is not "2.38.2", "1,200" is "1200", "seven" is 7."""
        m = _NUMBER.search(claim)
        return m is not None and _number(m.group(0)) in self.numbers

    def has_date(self, d: _Date) -> bool:
        for month, day, year in self.dates:
            if month != d.month or (d.day is not None and day != d.day):
                continue
            if d.year is None or year == d.year or (year is None and d.year in self.years):
                return True
        year_ok = d.year is None or d.year in self.years
        if d.day is None:  # "September 2025": the month named, in a text of that year
            return d.month in self.months and year_ok
        return d.day in self.ordinal_days and d.month in self.months and year_ok

    def has_path(self, claim: str) -> bool:
        if self.has_words(claim):
            return True
        # "app/webhooks/stripe_handler.py" when the text names the folder and the file apart
        parts = [p for p in re.split(r"[/\\]", claim) if p]
        return len(parts) > 1 and all(self.has_words(p) for p in parts)


# ---------------------------------------------------------------- claims


_NUMBER_TOKEN = re.compile(r"[v$€£¥]?[-+]?\d[\d,]*(?:[.:]\d+)*(?:%|k|m|x|st|nd|rd|th|am|pm)?", re.IGNORECASE)


def _is_number(tok: str) -> bool:
    return _NUMBER_TOKEN.fullmatch(tok) is not None


def _is_path(tok: str) -> bool:
    if re.search(r"[A-Za-z]", tok) is None or _ALTERNATIVES.fullmatch(tok):
        return False
    if "/" in tok or "\\" in tok:
        return len(tok) > 1
    return re.fullmatch(r"[\w.-]*[A-Za-z_][\w-]*\.[A-Za-z][A-Za-z0-9]{0,7}", tok) is not None


def _is_identifier(tok: str) -> bool:
    if "_" in tok.strip("_") or re.search(r"[a-z][A-Z]", tok):
        return True
    if re.search(r"\d", tok) and re.search(r"[A-Za-z]", tok):
        return True
    if len(tok) >= 2 and tok.isupper() and tok.isalpha() and tok.lower() not in _COMMON:
        return True  # an acronym
    compound = "-" in tok.strip("-") and not _PLAIN_COMPOUND.match(tok)  # "Near-identical" is words, not an id
    return compound and any(c.isupper() or c.isdigit() for c in tok)


def _name_word(tok: str, sentence_start: bool) -> bool:
    word = re.sub(r"['’]s$", "", tok)
    if not word[:1].isupper() or not re.fullmatch(r"[^\W\d_][\w'’.-]*", word):
        return False
    low = word.lower().rstrip(".")
    if low in _COMMON:
        return False
    # a sentence opener that reads as a verb or adverb ("Switched to uv", "Mostly Tuesdays") or a compound of
    # ordinary words ("Near-identical", "Long-running") is not a name
    return not (
        sentence_start and ((len(low) >= 4 and re.search(r"(?:ed|ing|ly|pt)$", low)) or _PLAIN_COMPOUND.match(word))
    )


def _typed_claims(answer: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    rest = list(answer)
    for m in _DATE.finditer(answer):
        out.append(("date", m.group(0).strip()))
        rest[m.start() : m.end()] = [" | "] + [""] * (m.end() - m.start() - 1)  # a date ends a name
    text = "".join(rest)
    rest = list(text)
    for m in _DURATION.finditer(text):
        out.append(("duration", m.group(0)))
        rest[m.start() : m.end()] = [" | "] + [""] * (m.end() - m.start() - 1)
    text = "".join(rest)
    run: list[str] = []

    def flush() -> None:
        while run and not run[-1][:1].isupper():
            run.pop()  # a connector left hanging ("Bank of")
        if run:
            out.append(("name", " ".join(run)))
            run.clear()

    sentence_start = True
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        if raw[:1] in "([{\"“‘'":
            flush()  # an aside or a quote starts a new name: "Dagny Wenzel (Larkspur site lead)"
        tok = raw.strip(_STRIP)
        ends_clause = bool(re.search(r"[,;:!?)\]]$|\.$", raw)) and not _ABBREVIATION.fullmatch(tok)
        ends_clause = ends_clause or bool(re.search(r"['’]s$", tok))  # "Radek's Imogen" is two names
        tok = tok.rstrip(".")
        if not tok or tok.lower() in _LATIN:
            flush()
            sentence_start = sentence_start or ends_clause
            continue
        if _is_number(tok):
            flush()
            out.extend(("number", p) for p in tok.split("/") if p)
        elif _is_path(tok):
            flush()
            out.append(("path", tok))
        elif _is_identifier(tok):
            flush()
            out.append(("id", tok))
        elif _name_word(tok, sentence_start):
            run.append(re.sub(r"['’]s$", "", tok))
        elif run and tok.lower() in _CONNECTORS and not ends_clause:
            run.append(tok)
        else:
            flush()
        if ends_clause:
            flush()
        sentence_start = bool(re.search(r"[.!?:]$", raw))
    flush()
    seen: set[tuple[str, str]] = set()
    unique = []
    for kind, c in out:
        key = (kind, c.lower())
        if key not in seen:
            seen.add(key)
            unique.append((kind, c))
    return unique


def claims(answer: str) -> list[str]:
    """The checkable pieces of `answer`, in order, without duplicates."""
    return [c for _, c in _typed_claims(answer)]


def names(answer: str) -> list[str]:
    """The names among `answer`'s claims ("Dagny Wenzel", "Petra"), in order, without duplicates."""
    return [c for kind, c in _typed_claims(answer) if kind == "name"]


def _between(claim: str, dates: Sequence[_Date]) -> bool:
    """Whether a length of time ("10 days", "about 7 weeks") is the time between two of the answer's own grounded
    dates: worked out, with its working shown ("10 days (moved 24 Jan, surgery 3 Feb)")."""
    m = _DURATION.fullmatch(claim)
    if m is None:
        return False
    n, per = int(m.group(1)), _UNIT_DAYS[m.group(2).lower()]
    full = [d for d in dates if d.day is not None]
    for a, b in combinations(full, 2):
        for year in (2001, 2004):  # a year left unsaid, leap or not
            try:
                start = date(a.year or year, a.month, a.day or 1)
                end = date(b.year or (a.year or year), b.month, b.day or 1)
                if end < start and b.year is None:
                    end = end.replace(year=end.year + 1)  # "11 Dec to 3 Jan" runs into the next year
            except ValueError:  # a day the month does not have ("30 Feb"), or 29 Feb a year on
                continue
            days = abs((end - start).days)
            if (n in (days, days + 1)) if per == 1 else abs(days - n * per) < per:
                return True
    return False


_INFLECTED = re.compile(r"(?:-(?:ed|ing)|['’](?:d|ed|s))$")


def _grounded(
    kind: str, claim: str, ev: Evidence, dates: Sequence[_Date] = (), weekdays: frozenset[str] = frozenset()
) -> bool:
    if kind == "number" and (clock := _CLOCK.fullmatch(claim)):
        return _clock_said(clock, ev)
    if kind == "duration":
        return ev.has_number(claim) or _between(claim, dates)
    if kind == "date":
        m = _DATE.fullmatch(claim)
        d = _date_of(m) if m else None
        if d is not None and ev.has_date(d):
            return True
        # "7/20" may be a count, not a date: every number in it said in the text will do
        return ev.has_words(claim) or (bool(m and m.group("us")) and all(ev.has_number(n) for n in claim.split("/")))
    if kind == "path":
        return ev.has_path(claim)
    if kind == "number":
        return ev.has_number(claim)
    if ev.has_words(claim):
        return True
    if kind == "id" and _CAMEL.fullmatch(claim):
        return claim.lower() in ev.camel_heads  # "minSdk" where the text says "minSdkVersion"
    if kind == "id" and (stem := _INFLECTED.sub("", claim)) != claim:
        return ev.has_words(stem)  # "parseFloat-ed", "pg_dump'd": the identifier with an English ending
    if kind == "name":
        low = claim.lower().rstrip(".")
        if (day := _WEEKDAY_OF.get(low)) is not None:
            return ev.has_words(day)  # "Sun" where the text (or its date) says "Sunday"
        if low in _WEEKDAY_NUM:
            return low in weekdays  # "Saturday, July 11" where the text says "jul 11"
        if (n := _month(low)) and low in _MONTH_NUM:
            return n in ev.months
    return False


def _weekdays_of(answer: str, ev: Evidence) -> frozenset[str]:
    """The weekdays `answer` writes right before a day it names that the texts say and that falls on it ("Saturday,
    July 11"), in the day's own year or else the one year the texts name."""
    out = set()
    for start, end in date_spans(answer):
        span = answer[start:end]
        head = re.match(r"\W*([A-Za-z]+)", span)
        day = _DATE.search(span)
        if head is None or day is None or head.group(1).lower() not in _WEEKDAY_NUM or (d := _date_of(day)) is None:
            continue
        years = {d.year} if d.year else ev.years
        if len(years) != 1:
            continue  # no year, or several the texts name: which the day falls in is not known
        year = next(iter(years))
        try:
            if d.day is not None and year and ev.has_date(d) and date(year, d.month, d.day).weekday() == (
                _WEEKDAY_NUM[head.group(1).lower()]
            ):
                out.add(head.group(1).lower())
        except ValueError:
            continue
    return frozenset(out)


# a time of day: "6:30am", "6 pm"; told when the text says it with its half of the day, as a 24-hour time, or (with
# its minutes) bare but never as the other half ("6:30" grounds "6:30am", "6:30pm" does not; "6 people" grounds nothing)
_CLOCK = re.compile(r"(\d{1,2})(?:[:.](\d\d))?\s*([ap])\.?m\.?", re.I)
_HALF = r"\s*[ap]\.?m\b"


def _clock_said(clock: re.Match[str], ev: Evidence) -> bool:
    hour, minutes, half = int(clock.group(1)), clock.group(2), clock.group(3).lower()
    other = "p" if half == "a" else "a"
    hhmm = rf"{hour}[:.]{minutes}" if minutes else rf"{hour}(?:[:.]00)?"
    h24 = hour % 12 + (12 if half == "p" else 0)
    if re.search(rf"(?<![\d:.]){hhmm}\s*{half}\.?m\b", ev.text):
        return True
    if re.search(rf"(?<![\d:.])0?{h24}[:.]{minutes or '00'}(?![\d:.])(?!{_HALF})", ev.text):  # "02:00", "19:00"
        return True
    return bool(
        minutes
        and re.search(rf"(?<![\d:.]){hhmm}(?![\d:.])(?!{_HALF})", ev.text)
        and not re.search(rf"(?<![\d:.]){hhmm}\s*{other}\.?m\b", ev.text)
    )


def check(answer: str, texts: Sequence[str] | Evidence) -> GroundingResult:
    """Whether every claim of `answer` is found in `texts`; `missing` lists those that are not."""
    ev = texts if isinstance(texts, Evidence) else Evidence(texts)
    typed = _typed_claims(answer)
    dates = [
        d
        for kind, c in typed
        if kind == "date" and _grounded(kind, c, ev) and (m := _DATE.fullmatch(c)) and (d := _date_of(m))
    ]
    weekdays = _weekdays_of(answer, ev)
    missing = [c for kind, c in typed if not _grounded(kind, c, ev, dates, weekdays)]
    if missing:  # a difference worked out, its working shown: "by 30 (from 160 to 190)"
        shown = {_value(c) for kind, c in typed if kind == "number" and c not in missing} - {None}
        missing = [c for c in missing if not _difference(_value(c), shown)]
    if missing:  # a count, what it counts listed after it: "3 releases (0.4.0, 0.4.1, 0.5.0)"
        missing = [c for c in missing if not _counted(c, answer, ev)]
    return GroundingResult(ok=not missing, missing=missing)


# a count and the plural it counts ("7 versions", "3 minor releases"), then what it counts in brackets or after a colon
# or a dash
_COUNT_LIST = re.compile(
    r"(?<![\w.])(\d+)\s+(?:[a-z][\w-]*\s+)?[a-z][\w-]*s\b(?:\s+[\w-]+){0,2}?\s*"
    r"(?:\(([^()]+)\)|(?::|\s[—–-])\s*([^;]+))",
    re.I,
)
_ITEM_BREAK = re.compile(r"\s*(?:,|;|\band\b|\bthen\b)\s*")


def _counted(claim: str, answer: str, ev: Evidence) -> bool:
    """Whether a count the texts do not say is the number of things the answer lists after it, each a grounded name,
    number or date: "7 versions (2.2.0, 2.3.0, ...)", "2 times (300 to 120 on 5 Apr, then 120 to 600 on 16 Jun)"."""
    if not re.fullmatch(r"\d+", claim):
        return False
    for m in _COUNT_LIST.finditer(answer):
        if m.group(1) != claim:
            continue
        listed = m.group(2) or m.group(3) or ""
        items = [i for i in _ITEM_BREAK.split(listed) if i.strip(" .")]
        if len(items) == int(claim) and all(claims(i) for i in items) and check(listed, ev).ok:
            return True
    return False


def _value(claim: str) -> float | None:
    m = _NUMBER.search(claim)
    try:
        return float(m.group(0).replace(",", "")) if m and ":" not in m.group(0) else None
    except ValueError:
        return None  # "2.38.2"


def _difference(value: float | None, shown: set[float | None]) -> bool:
    nums = [n for n in shown if n is not None]
    return value is not None and any(abs(abs(a - b) - value) < 1e-9 for a, b in combinations(nums, 2))


_WEEKDAY_WORD = re.compile(r"\b(" + "|".join(WEEKDAYS) + r")s?\b")


def _weekday_offsets(low: str, today: int) -> set[int]:
    """The days from a passage's date to each weekday its text names: the one before and the one after, since
    "on sunday" may be either ("we move on saturday", "the party on saturday was great")."""
    out: set[int] = set()
    for m in _WEEKDAY_WORD.finditer(low):
        ahead = (_WEEKDAY_NUM[m.group(1)] - today) % 7 or 7
        out |= {ahead, ahead - 7}
    return out


# the day a passage's words name around its own date, as typed in full or in shorthand ("tmr morning", "yday")
RELATIVE_DAYS = (
    (re.compile(r"\b(?:yesterday|yday\b|last night)"), -1),
    (re.compile(r"\b(?:today|tonight|tonite\b)"), 0),
    (re.compile(r"\b(?:tomorrow|(?:tmrw?|2moro)\b)"), 1),  # not "tmr_period", "TMR1"
)


def passage_evidence(text: str, *, name: str = "", ts: str | None = None, project: str = "") -> str:
    """The text a passage grounds: its words, who said them, its project folder's name and its date, with
    "yesterday"/"tomorrow" and named weekdays resolved against that date (so "deployed yesterday" on 2026-08-05
    grounds "August 4")."""
    head = [part for part in (name, project) if part]
    if ts:
        when = parse_ts(ts)
        if when is not None:
            low = text.lower()
            days = {d for words, d in RELATIVE_DAYS if words.search(low)} | _weekday_offsets(low, when.weekday())
            head.extend(f"{when + timedelta(days=d):%Y-%m-%d %A}" for d in sorted(days | {0}))
    return " ".join(head) + "\n" + text if head else text


QUOTE_CHARS = 500
_QUOTE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(\[])|\n+")


def quote_for(answer: str, text: str, *, limit: int = QUOTE_CHARS) -> str:
    """The sentences of `text` that ground `answer`'s claims (in the text's order, joined by " … "; past `limit`
    characters each cut down to the words around what it grounds, never cutting a grounding word): the quote a
    person is shown. A claim no single sentence holds is left to the passage's opening; with no claim held by any
    sentence, the opening of the text, cut at a word."""
    sentences = [s.strip() for s in _QUOTE_SPLIT.split(text) if s.strip()]
    chosen: dict[int, None] = {}
    for kind, claim in _typed_claims(answer):
        for i, s in enumerate(sentences):
            if _grounded(kind, claim, Evidence([s])):
                chosen.setdefault(i, None)
                break
    if not chosen:
        return text if len(text) <= limit else text[: text.rfind(" ", 0, limit - 1) + 1].rstrip() + "…"
    quote = " … ".join(sentences[i] for i in sorted(chosen))
    if len(quote) > limit:  # too long: each sentence cut down to the words around what it grounds
        quote = " … ".join(_around(sentences[i], answer, limit // len(chosen)) for i in sorted(chosen))
    return quote


_CONTEXT = 60  # characters kept either side of what a cut-down sentence grounds


def _around(sentence: str, answer: str, room: int) -> str:
    """`sentence` cut to the span holding the words of `answer` it says (with a little context), when it is longer
    than `room`; whole otherwise. The span may outgrow `room`: what grounds the answer is never cut."""
    if len(sentence) <= room:
        return sentence
    low = sentence.lower()
    spots = [
        (m.start(), m.end())
        for c in claims(answer)
        for w in _words(c)
        if (len(w) > 1 or w.isdigit()) and (m := re.search(rf"(?<![^\W_]){re.escape(w)}(?![^\W_])", low))
    ]
    if not spots:
        return sentence[: sentence.rfind(" ", 0, room) + 1].rstrip() + "…"
    start = max(0, min(a for a, _ in spots) - _CONTEXT)
    end = min(len(sentence), max(b for _, b in spots) + _CONTEXT)
    start = sentence.find(" ", start) + 1 if start else 0
    end = max(sentence.rfind(" ", 0, end), max(b for _, b in spots)) if end < len(sentence) else end
    return ("…" if start else "") + sentence[start:end].strip() + ("…" if end < len(sentence) else "")

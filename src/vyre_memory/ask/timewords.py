"""Time words in a question -> a half-open UTC window [start, end), relative to the question's time.

Guarantees:
- Pure: no I/O, no clock. ``now`` is always passed in; a naive ``now`` is taken as UTC. Calendar arithmetic
  (day, week, month boundaries) happens in ``now``'s own timezone, and the window comes back in UTC
  (timezone-aware ``datetime``s, ``start < end``).
- Weeks start on Monday. A bare month, weekday, day-of-month or holiday means the most recent one not after
  ``now`` ("in december" asked in March 2026 is December 2025; "on tuesday" is the last Tuesday before today;
  "before april" is before the most recent April), except in a question about what is ahead ("where are we
  going in june", "which school will she start at in september", "what are we doing on saturday"): there a bare
  month, season, weekday, date, day of the month or holiday is the coming one (the current month or season counts,
  today counts).
- Open-ended windows use ``OPEN_START`` (1970-01-01) for "before X" and the end of ``now``'s day for "since X".
- ``strength`` is "exact" (a calendar unit the question names: yesterday, on the 14th, ISO and written dates,
  in june, last week, 3 days ago) or "fuzzy" (about two months ago, late january, over the summer, recently,
  around christmas), so retrieval can filter on the first and only boost on the second.
- When time words point at something that is not a time ("the day before the 1.3.0 release",
  "two days after the fix") there is no window: ``None`` rather than a guess, and ``blocked`` says so.
  "<span> before/after <date>" ("the week before August 3, 2023") is that span joined with the date itself,
  because what happened the week before is often told on the date.
- Several time phrases intersect; if they do not overlap, an absolute date wins over a relative one
  ("last friday on 23 January, 2022" -> 23 January 2022), then the narrowest wins.
- English phrasing is read by the grammar below, its month and weekday names taken from dateparser's data.
  A question with no English time words is tried in the other ``languages`` (``datelang``): dateparser
  translates its time phrases into English ("w zeszłym tygodniu" -> "last week"), the same grammar makes
  the window, and the spans are the phrases as the question wrote them.
- Words that only look like time words are left alone: "may" the verb, "the fall in signups", "spring boot",
  fractions ("1/2 of the runs"), version numbers, a bare year without a preposition ("the 2025 roadmap").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo

from ..text import STOP
from .datelang import DEFAULT_LANGUAGES, english_names, foreign_time_phrases

OPEN_START = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """A half-open interval [start, end) in UTC that the question's time words point at."""

    start: datetime
    end: datetime
    strength: str = "exact"  # "exact" | "fuzzy"
    text: str = ""  # the phrase(s) it came from

    def contains(self, moment: datetime) -> bool:
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return self.start <= moment < self.end


@dataclass(frozen=True, slots=True)
class TimeParse:
    window: TimeWindow | None
    spans: tuple[tuple[int, int], ...]  # character spans of the question that are time words (for stripping)
    blocked: bool  # time words relative to a non-time anchor ("the day before X"): no window on purpose
    ahead: bool = False  # the question asks what is ahead ("where are we going in june"): `_AHEAD`


# ---------------------------------------------------------------- vocabulary

_MONTHS, _WEEKDAYS = english_names()  # from dateparser's English data: "jan", "january", "sept", ...
_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
# Month words that are also ordinary English words or first names: only a window with a preposition,
# a modifier, a day number or a year next to them.
_AMBIGUOUS_MONTHS = ({n for n in _MONTHS if len(n) <= 4} - {"july"}) | {"march", "august"}  # abbreviations too
_WEEKDAY_ALT = "|".join(_WEEKDAYS)

_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple": 2,
    "couple of": 2,
    "a couple": 2,
    "a couple of": 2,
    "few": 3,
    "a few": 3,
    "several": 4,
}
_FUZZY_NUMBERS = {"couple", "couple of", "a couple", "a couple of", "few", "a few", "several"}
_NUM = (
    r"(?P<num>\d{1,3}|a couple of|a couple|couple of|couple|a few|few|several|an|a|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve)"
)
_UNIT = r"(?P<unit>minute|min|hour|hr|day|week|fortnight|month|year)s?"
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_ORD = r"(?:st|nd|rd|th)"

_DATE_PREPS = (
    "on",
    "since",
    "before",
    "after",
    "until",
    "till",
    "by",
    "from",
    "of",
    "around",
    "for",
    "between",
    "and",
    "to",
    "thru",
    "through",
    "as",
)
_RANGE_JOINS = ("and", "to", "thru")
_PREP_WORDS = (
    "in",
    "on",
    "during",
    "over",
    "at",
    "for",
    "of",
    "from",
    "since",
    "before",
    "after",
    "until",
    "till",
    "by",
    "through",
    "throughout",
    "within",
    "around",
    "about",
    "early",
    "late",
    "mid",
    "end",
    "beginning",
    "start",
    "middle",
    "last",
    "this",
    "next",
    "past",
    "the",
    "between",
    "and",
    "to",
    "thru",
)


# ---------------------------------------------------------------- calendar helpers


@dataclass(frozen=True, slots=True)
class _Ctx:
    now: datetime  # aware, in the question's timezone
    tz: tzinfo
    translated: bool = False  # English that dateparser made from another language: a month name is a month
    ahead: bool = False  # the question asks what is ahead (`_AHEAD`): a bare month, season or weekday is the coming one

    @property
    def today(self) -> date:
        return self.now.date()


def _at(ctx: _Ctx, d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=ctx.tz)


def _add_months(d: date, months: int) -> date:
    idx = d.year * 12 + d.month - 1 + months
    y, m = divmod(idx, 12)
    m += 1
    last = _month_len(y, m)
    return date(y, m, min(d.day, last))


def _month_len(y: int, m: int) -> int:
    nxt = date(y + (m == 12), m % 12 + 1, 1)
    return (nxt - date(y, m, 1)).days


def _month_span(ctx: _Ctx, y: int, m: int) -> tuple[datetime, datetime]:
    first = date(y, m, 1)
    return _at(ctx, first), _at(ctx, _add_months(first, 1))


def _day_span(ctx: _Ctx, d: date, before: int = 0, after: int = 0) -> tuple[datetime, datetime]:
    return _at(ctx, d - timedelta(days=before)), _at(ctx, d + timedelta(days=1 + after))


def _week_start(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _recent_month_year(ctx: _Ctx, m: int, which: str) -> int:
    """Year of month ``m``: the most recent not after now; "last" = strictly before this month; "next" = after."""
    t = ctx.today
    if which == "next":
        return t.year if m > t.month else t.year + 1
    if which == "this":
        return t.year
    if which in ("last", "past", "previous"):
        return t.year if m < t.month else t.year - 1
    return t.year if m <= t.month else t.year - 1


def _safe_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _recent_day_of_month(ctx: _Ctx, day: int, months_back: int = 0) -> date | None:
    """That day of the month: the most recent (today counts), the coming one in a question about what is ahead, or
    that of `months_back` months ago."""
    t = ctx.today
    base = date(t.year, t.month, 1)
    if months_back:
        base = _add_months(base, -months_back)
        return _safe_date(base.year, base.month, day)
    step = 1 if ctx.ahead else -1
    for n in range(0, 13):
        b = _add_months(base, step * n)
        d = _safe_date(b.year, b.month, day)
        if d is not None and (d >= t if ctx.ahead else d <= t):
            return d
    return None


def _recent_date(ctx: _Ctx, m: int, d: int) -> date | None:
    """That date: the most recent (today counts), or the coming one in a question about what is ahead."""
    t = ctx.today
    years = (t.year, t.year + 1) if ctx.ahead else (t.year, t.year - 1, t.year - 2, t.year - 3, t.year - 4)
    for y in years:
        x = _safe_date(y, m, d)
        if x is not None and (x >= t if ctx.ahead else x <= t):
            return x
    return None


def _num(text: str) -> int:
    text = text.strip()
    return int(text) if text.isdigit() else _NUMBERS.get(text, 1)


# ---------------------------------------------------------------- base patterns
# Each handler returns (start, end, strength, relative) in the question's timezone, or None (no window).

_Span = tuple[datetime, datetime, str, bool]
_Handler = Callable[[re.Match[str], _Ctx, str], "_Span | None"]


def _h_iso(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    d = _safe_date(int(m["y"]), int(m["m"]), int(m["d"]))
    return None if d is None else (*_day_span(ctx, d), "exact", False)


def _h_numeric(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    a, b, y = int(m["a"]), int(m["b"]), m["y"]
    if m["sep"] == ".":  # 22.08.2026: day.month.year
        a, b = b, a
    elif not y and b <= 12 and _prev_word(before) not in _DATE_PREPS:
        return None  # "1/2 of the runs", "3/4": fractions, not dates
    if not (1 <= a <= 12 and 1 <= b <= 31):
        return None
    if y:
        year = int(y) + (2000 if len(y) == 2 else 0)
        d = _safe_date(year, a, b)
    else:
        d = _recent_date(ctx, a, b)
    return None if d is None else (*_day_span(ctx, d), "exact", y is None)


def _year_of(ctx: _Ctx, m: re.Match[str], month: int) -> tuple[int, bool]:
    y = m["y"]
    if y:
        return int(y), False
    rel = m.groupdict().get("yrel")
    if rel:
        return ctx.today.year + {"last": -1, "this": 0, "next": 1}[rel], True
    return _recent_month_year(ctx, month, m.groupdict().get("which") or ""), True


def _h_written(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    month = _MONTHS[m["mon"].rstrip(".")]
    day = int(m["d"])
    if m["y"]:
        d = _safe_date(int(m["y"]), month, day)
        rel = False
    else:
        d = _recent_date(ctx, month, day)
        rel = True
    return None if d is None else (*_day_span(ctx, d), "exact", rel)


def _h_month_year(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    month = _MONTHS[m["mon"].rstrip(".")]
    year, rel = _year_of(ctx, m, month)
    return (*_month_span(ctx, year, month), "exact", rel)


_ANY_ONE = frozenset({"a", "an", "any", "every", "each", "one", "other"})
_THAT_ONE = frozenset({"that", "same"})  # "that friday": a day the asker has in mind, not the last one


def _prev_word(before: str) -> str:
    words = before.rstrip().rsplit(None, 2)
    return words[-1].rstrip("-") if words else ""


def _h_month(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    word = m["mon"].rstrip(".")
    month = _MONTHS[word]
    which = m["which"] or ""
    if not which and word in _AMBIGUOUS_MONTHS and not ctx.translated:
        prev = _prev_word(before)
        if prev not in _PREP_WORDS:
            return None
        if prev in _RANGE_JOINS and not re.search(r"\b(?:between|from)\b", before):
            return None  # "noor and may", not "between march and may"
    if not which and ctx.ahead:
        which = "this" if month == ctx.today.month else "next"
    year = _recent_month_year(ctx, month, which)
    return (*_month_span(ctx, year, month), "exact", True)


def _h_dayword(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    w = m[0]
    t = ctx.today
    if "before yesterday" in w:
        return (*_day_span(ctx, t - timedelta(days=2)), "exact", True)
    if "after tomorrow" in w:
        return (*_day_span(ctx, t + timedelta(days=2)), "exact", True)
    if w.startswith("yesterday"):
        return (*_day_span(ctx, t - timedelta(days=1)), "exact", True)
    if w.startswith("tomorrow"):
        return (*_day_span(ctx, t + timedelta(days=1)), "exact", True)
    if w == "last night":
        y = _at(ctx, t - timedelta(days=1))
        return y + timedelta(hours=12), _at(ctx, t) + timedelta(hours=12), "exact", True
    return (*_day_span(ctx, t), "exact", True)  # today, tonight, this morning, earlier today


def _season_span(ctx: _Ctx, season: str, year: int) -> tuple[datetime, datetime]:
    """Meteorological seasons; winter ``year`` is Dec(year) .. Feb(year+1)."""
    first = date(year, _SEASONS[season], 1)
    return _at(ctx, first), _at(ctx, _add_months(first, 3))


def _h_period(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    which = " ".join(m["which"].split())
    which = which.replace("the ", "").replace("this past", "last").replace("previous", "last")
    which = {"current": "this", "coming": "next", "earlier this": "this"}.get(which, which)
    unit = m["unit"]
    t = ctx.today
    rolling = which == "past" or (m["which"].startswith("the ") and which == "last")
    if unit == "week":
        if rolling:
            return _at(ctx, t - timedelta(days=7)), _at(ctx, t + timedelta(days=1)), "exact", True
        ws = _week_start(t) + timedelta(days={"last": -7, "this": 0, "next": 7}[which])
        return _at(ctx, ws), _at(ctx, ws + timedelta(days=7)), "exact", True
    if unit == "weekend":
        return (*_weekend(ctx, which), "exact", True)
    if unit == "month":
        if rolling:
            return _at(ctx, _add_months(t, -1)), _at(ctx, t + timedelta(days=1)), "exact", True
        first = _add_months(date(t.year, t.month, 1), {"last": -1, "this": 0, "next": 1}[which])
        return (*_month_span(ctx, first.year, first.month), "exact", True)
    if unit == "year":
        if rolling:
            return _at(ctx, _add_months(t, -12)), _at(ctx, t + timedelta(days=1)), "exact", True
        y = t.year + {"last": -1, "this": 0, "next": 1}[which]
        return _at(ctx, date(y, 1, 1)), _at(ctx, date(y + 1, 1, 1)), "exact", True
    if unit == "quarter":
        q = (t.month - 1) // 3 + {"last": -1, "past": -1, "this": 0, "next": 1}[which]
        y, q = t.year + q // 4, q % 4
        first = date(y, q * 3 + 1, 1)
        return _at(ctx, first), _at(ctx, _add_months(first, 3)), "exact", True
    # seasons
    return (*_season(ctx, unit, "last" if which == "past" else which), "fuzzy", True)


def _weekend(ctx: _Ctx, which: str) -> tuple[datetime, datetime]:
    t = ctx.today
    sat_this_week = _week_start(t) + timedelta(days=5)
    if which == "next":
        sat = sat_this_week + (timedelta(days=7) if t >= sat_this_week else timedelta())
    elif which == "this" or which == "":  # the current one if we are in it, else the one just passed
        sat = sat_this_week if t >= sat_this_week else sat_this_week - timedelta(days=7)
    else:  # last: the most recent weekend that is over
        sat = sat_this_week - timedelta(days=7)
    return _at(ctx, sat), _at(ctx, sat + timedelta(days=2))


def _season(ctx: _Ctx, season: str, which: str, year: int | None = None) -> tuple[datetime, datetime]:
    if year is not None:
        return _season_span(ctx, season, year - (1 if season == "winter" else 0))
    now = ctx.now
    t = ctx.today
    cands = [_season_span(ctx, season, y) for y in (t.year + 1, t.year, t.year - 1, t.year - 2)]
    if which == "next":
        return min((c for c in cands if c[0] > now), key=lambda c: c[0])
    if which == "this":
        started = [c for c in cands if c[0] <= now]
        current = max(started, key=lambda c: c[0])
        if current[1] > now:
            return current
        upcoming = [c for c in cands if c[0] > now and c[0].year == t.year]
        return upcoming[0] if upcoming else current
    if which == "last":
        return max((c for c in cands if c[1] <= now), key=lambda c: c[0])
    return max((c for c in cands if c[0] <= now), key=lambda c: c[0])


_SEASON_PREPS = (
    "in",
    "over",
    "during",
    "since",
    "before",
    "after",
    "through",
    "throughout",
    "early",
    "late",
    "mid",
    "until",
    "all",
    "this",
    "last",
    "next",
    "past",
)


# what may follow "the <season>" when it is a time, beside a stop word ("the summer in portugal", "the summer we
# moved", "the winter of 2025"): otherwise the season names an event ("the summer launch")
_SEASON_NOUNS = frozenset("holidays holiday vacation months term semester season".split())


def _h_season(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    season = m["season"]
    if m["y"]:
        return (*_season(ctx, season, "", int(m["y"])), "fuzzy", False)
    prev = _prev_word(before)
    if prev == "the":  # "over the summer", not "the fall in signups"
        prev = _prev_word(before.rstrip()[:-3])
        after = re.match(r"\s+([a-z]+)\b", m.string[m.end() :])
        if after and after[1] not in _SEASON_NOUNS and after[1] not in STOP:
            return None  # "before the summer launch": the name of an event, not a time
    if prev not in _SEASON_PREPS and not ctx.translated:
        return None
    if ctx.ahead:
        current = _season(ctx, season, "this")
        return (*(current if current[1] > ctx.now else _season(ctx, season, "next")), "fuzzy", True)
    return (*_season(ctx, season, ""), "fuzzy", True)


def _h_ago(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    n = _num(m["num"])
    unit = m["unit"]
    approx = m["num"] in _FUZZY_NUMBERS or bool(m["approx"])
    if unit == "fortnight":
        unit, n = "week", 2 * n
    if unit in ("minute", "min", "hour", "hr"):  # "3 hours ago": from a bit before that moment until now
        delta = timedelta(minutes=n) if unit in ("minute", "min") else timedelta(hours=n)
        point = ctx.now - delta
        return point - max(delta / 2, timedelta(minutes=30)), ctx.now + timedelta(minutes=1), "exact", True
    t = ctx.today
    if unit == "day":
        p = t - timedelta(days=n)
        if approx:
            w = max(2, -(-n // 3))
            return (*_day_span(ctx, p, w, w), "fuzzy", True)
        return (*_day_span(ctx, p, 1, 1), "exact", True)
    if unit == "week":
        p = t - timedelta(days=7 * n)
        if approx:
            w = 4 + (7 * n) // 3
            return (*_day_span(ctx, p, w, w), "fuzzy", True)
        ws = _week_start(p)
        return _at(ctx, ws), _at(ctx, ws + timedelta(days=7)), "exact", True
    if unit == "month":
        p = _add_months(t, -n)
        w = max(30, 10 * n) if approx else 16
        return (*_day_span(ctx, p, w, w), "fuzzy", True)
    p = _add_months(t, -12 * n)
    w = 365 if approx else 183
    return (*_day_span(ctx, p, w, w), "fuzzy", True)


def _h_before_last(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    t = ctx.today
    unit = m["unit"]
    if unit == "week":
        ws = _week_start(t) - timedelta(days=14)
        return _at(ctx, ws), _at(ctx, ws + timedelta(days=7)), "exact", True
    if unit == "month":
        first = _add_months(date(t.year, t.month, 1), -2)
        return (*_month_span(ctx, first.year, first.month), "exact", True)
    return _at(ctx, date(t.year - 2, 1, 1)), _at(ctx, date(t.year - 1, 1, 1)), "exact", True


def _holiday_date(name: str, year: int) -> date:
    if name.startswith("christmas eve"):
        return date(year, 12, 24)
    if name.startswith(("christmas", "xmas")):
        return date(year, 12, 25)
    if name.startswith("new year") and name.endswith("eve"):
        return date(year, 12, 31)
    if name.startswith("new year"):
        return date(year, 1, 1)
    if name == "halloween":
        return date(year, 10, 31)
    if name.startswith("valentine"):
        return date(year, 2, 14)
    nov1 = date(year, 11, 1)  # thanksgiving (US): the fourth Thursday of November
    return nov1 + timedelta(days=(3 - nov1.weekday()) % 7 + 21)


def _h_holiday(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    """The most recent such holiday (today counts; the coming one in a question about what is ahead), that day +-1:
    people do things around a holiday."""
    name = " ".join(m["h"].split())
    t = ctx.today
    day = _holiday_date(name, t.year)
    if day > t and not ctx.ahead:
        day = _holiday_date(name, t.year - 1)
    elif day < t and ctx.ahead:
        day = _holiday_date(name, t.year + 1)
    return (*_day_span(ctx, day, 1, 1), "fuzzy", True)


def _h_lastn(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    n = _num(m["num"])
    unit = m["unit"]
    t = ctx.today
    if unit == "day":
        start = t - timedelta(days=n)
    elif unit in ("week", "fortnight"):
        start = t - timedelta(days=7 * n * (2 if unit == "fortnight" else 1))
    elif unit == "month":
        start = _add_months(t, -n)
    else:
        start = _add_months(t, -12 * n)
    strength = "fuzzy" if m["num"] in _FUZZY_NUMBERS else "exact"
    return _at(ctx, start), _at(ctx, t + timedelta(days=1)), strength, True


def _h_weekday(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    wd = _WEEKDAYS[m["wd"]]
    which = " ".join((m["which"] or "").split())
    t = ctx.today
    week = m["wk"] or m["wk2"]
    if not which and not week and _prev_word(before) in _ANY_ONE | _THAT_ONE:
        return None  # "on a sunday morning", "every friday", "that friday": some such day, not the last one
    if week:  # "tuesday of last week", "last week's tuesday", "monday next week"
        ws = _week_start(t) + timedelta(days={"last": -7, "this": 0, "next": 7}[week])
        return (*_day_span(ctx, ws + timedelta(days=wd)), "exact", True)
    if which == "next" or (not which and ctx.ahead):
        delta = (wd - t.weekday()) % 7 or (0 if ctx.ahead and not which else 7)
        d = t + timedelta(days=delta)
    elif which == "this":
        d = _week_start(t) + timedelta(days=wd)
    else:  # plain / last / past: the most recent such day before today
        delta = (t.weekday() - wd) % 7 or 7
        d = t - timedelta(days=delta)
    return (*_day_span(ctx, d), "exact", True)


def _h_ordinal(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    day = int(m["d"])
    if not 1 <= day <= 31:
        return None
    rel = m["rel"]
    if rel:
        d = _recent_day_of_month(ctx, day, months_back=1 if rel == "last" else 0)
    else:
        preps = ("on", "since", "before", "after", "until", "till", "by", "from", "around")
        if _prev_word(before) not in preps and not ctx.translated:
            return None
        d = _recent_day_of_month(ctx, day)
    return None if d is None else (*_day_span(ctx, d), "exact", True)


def _h_quarter(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    q = (
        int(m["q"][-1])
        if m["q"]
        else {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}[m["q2"]]
    )
    if m["y"]:
        year, rel = int(m["y"]), False
    else:
        t = ctx.today
        year = t.year if (q - 1) * 3 + 1 <= t.month else t.year - 1
        rel = True
    first = date(year, (q - 1) * 3 + 1, 1)
    return _at(ctx, first), _at(ctx, _add_months(first, 3)), "exact", rel


def _h_year(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    if _prev_word(before) not in (
        "in",
        "during",
        "since",
        "before",
        "after",
        "until",
        "till",
        "of",
        "from",
        "through",
        "throughout",
        "by",
        "early",
        "late",
        "mid",
        "year",
        "for",
        "around",
    ):
        return None
    y = int(m["y"])
    return _at(ctx, date(y, 1, 1)), _at(ctx, date(y + 1, 1, 1)), "exact", False


def _h_vague(m: re.Match[str], ctx: _Ctx, before: str) -> _Span | None:
    w = m[0]
    t = ctx.today
    end = _at(ctx, t + timedelta(days=1))
    if w in ("recently", "lately", "of late", "not long ago"):
        return _at(ctx, t - timedelta(days=30)), end, "fuzzy", True
    if w == "the other day":
        return _at(ctx, t - timedelta(days=10)), _at(ctx, t), "fuzzy", True
    return _at(ctx, _add_months(t, -12)), _at(ctx, t - timedelta(days=14)), "fuzzy", True  # a while ago


_MON = rf"(?P<mon>{_MONTH_ALT})\.?"
_YEAR = r"(?P<y>(?:19|20)\d{2})"

_BASES: list[tuple[re.Pattern[str], _Handler]] = [
    (
        re.compile(
            r"(?<![\w.])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
            r"(?:z|[+-]\d{2}:?\d{2})?)?(?![\w-])"
        ),
        _h_iso,
    ),
    (re.compile(r"(?<![\w./-])(?P<a>\d{1,2})(?P<sep>/)(?P<b>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?(?![\w/%.])"), _h_numeric),
    (re.compile(r"(?<![\w./-])(?P<a>\d{1,2})(?P<sep>\.)(?P<b>\d{1,2})\.(?P<y>\d{4})(?![\w.])"), _h_numeric),
    (re.compile(rf"\b{_MON}\s+(?P<d>\d{{1,2}}){_ORD}?\b(?:,?\s*{_YEAR}\b)?"), _h_written),
    (re.compile(rf"\b(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}?\s+(?:of\s+)?{_MON}(?![\w])(?:,?\s*{_YEAR}\b)?"), _h_written),
    (
        re.compile(rf"\b{_MON}(?:,?\s+(?:of\s+)?{_YEAR}\b|\s+(?:of\s+)?(?P<yrel>last|this|next)\s+year\b)"),
        _h_month_year,
    ),
    (re.compile(rf"\b(?:(?P<which>last|this|next|past|previous)\s+)?{_MON}(?![\w-])"), _h_month),
    (
        re.compile(
            r"\b(?:(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)|yesterday|today|tonight|"
            r"tomorrow|last\s+night|this\s+(?:morning|afternoon|evening)|earlier\s+today)\b"
        ),
        _h_dayword,
    ),
    (
        re.compile(
            r"\b(?P<which>(?:the\s+)?(?:last|past|previous)|this\s+past|this|next|current|coming|"
            r"earlier\s+this)\s+(?P<unit>week|weekend|month|year|quarter|spring|summer|fall|autumn|winter)\b"
            r"(?!\s+of\b)"
        ),
        _h_period,
    ),
    (re.compile(r"\b(?:over|on|at|during)\s+the\s+(?P<unit>weekend)\b(?P<which>)"), _h_period),
    (
        re.compile(
            r"\b(?P<season>spring|summer|fall|autumn|winter)(?:\s+(?:of\s+)?(?P<y>(?:19|20)\d{2}))?\b"
            r"(?!\s+(?:boot|framework|cloud|security|data|batch|mvc|break|cleaning|roll|intern|sale|release)\b)"
        ),
        _h_season,
    ),
    (
        re.compile(
            rf"\b(?:(?P<approx>about|around|roughly|approximately|approx\.?|some|like|maybe|almost|nearly|"
            rf"over|more than|less than|just over|just under)\s+)?{_NUM}\s+{_UNIT}\s+(?:ago|back)\b"
        ),
        _h_ago,
    ),
    (re.compile(r"\bthe\s+(?P<unit>week|month|year)\s+before\s+last\b"), _h_before_last),
    (
        re.compile(
            r"\b(?:(?:last|this)\s+)?(?P<h>christmas\s+eve|christmas(?:\s+day)?|xmas|new\s+year'?s?\s+eve|"
            r"new\s+year'?s?\s+day|halloween|valentine'?s?\s+day|thanksgiving)\b"
        ),
        _h_holiday,
    ),
    (
        re.compile(
            rf"\b(?:in\s+|over\s+|during\s+|within\s+)?(?:the\s+)?(?:last|past|previous)\s+{_NUM}\s+"
            rf"(?P<unit>day|week|fortnight|month|year)s?\b"
        ),
        _h_lastn,
    ),
    (
        re.compile(
            rf"\b(?:(?P<wk2>last|this|next)\s+week'?s?\s+|(?P<which>last|this\s+past|this|next|past|previous)\s+)?"
            rf"(?P<wd>{_WEEKDAY_ALT})(?!s\b)(?:\s+(?:morning|afternoon|evening|night))?"
            r"(?:\s+(?:of\s+)?(?P<wk>last|this|next)\s+week)?\b"
        ),
        _h_weekday,
    ),
    (re.compile(rf"\bthe\s+(?P<d>\d{{1,2}}){_ORD}\b(?:\s+of\s+(?P<rel>this|last)\s+month\b)?"), _h_ordinal),
    (
        re.compile(
            rf"\b(?:(?P<q>q[1-4])|(?:the\s+)?(?P<q2>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter)"
            rf"(?:\s+(?:of\s+)?{_YEAR})?\b"
        ),
        _h_quarter,
    ),
    (re.compile(r"(?<![\w.\-/#])(?P<y>(?:19|20)\d{2})(?![\w\-/.%])"), _h_year),
    (re.compile(r"\b(?:recently|lately|of late|the other day|a while (?:ago|back)|not long ago)\b"), _h_vague),
]

# Words just before a time phrase that belong to it (stripped with it, some change it).
_PREFIX = re.compile(
    r"(?:\b(?P<rng>between|from)\s+)?"
    r"(?:\b(?P<bound>since|before|after|until|till|prior to|as of|by)\s+)?"
    r"(?:\b(?P<approx>around|roughly|approximately|circa|sometime|some time|about)\s+)?"
    r"(?:\b(?:(?:at|in|on|by|around|towards?|during)\s+)?(?:the\s+)?(?:(?P<part>early|mid|late|end\s+of|"
    r"beginning\s+of|start\s+of|middle\s+of|first\s+half\s+of|second\s+half\s+of|"
    r"(?:(?P<nth>first|second|third|fourth|last|1st|2nd|3rd|4th)\s+)?week\s+of)\s+|"
    r"(?P<part2>mid)-))?"
    r"(?:\b(?:back\s+in|in|on|during|over|at|for|throughout|through|within)\s+)?(?:\bthe\s+)?$"
)
_ABOUT_DATE = re.compile(rf"\s+(?:the\s+)?(?:\d|mid|early|late|end|beginning|start|{_MONTH_ALT})")
_SHIFT = re.compile(
    r"\b(?:(?:the|last|this)\s+)?(?:(?P<n>a|an|one|\d{1,3}|two|three|four|five|six|seven|eight|nine|ten|"
    r"a\s+couple\s+of|couple\s+of|a\s+few|few)\s+)?"
    r"(?P<unit>day|night|week|weekend|month|year|morning|evening|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)s?\s+(?P<dir>before|after|prior\s+to|following|later|earlier)\s+(?:the\s+|that\s+)?"
)
_SHIFT_UNITS = {"day": 1, "night": 1, "morning": 1, "evening": 1, "week": 7, "weekend": 7}


@dataclass(slots=True)
class _Hit:
    start: int
    end: int
    s: datetime
    e: datetime
    strength: str
    relative: bool
    text: str
    ranged: bool = False
    keep: bool = False  # a holiday name: a time phrase, but also a word worth searching for


def _apply_prefix(hit: _Hit, low: str, ctx: _Ctx) -> None:
    pm = _PREFIX.search(low, max(0, hit.start - 80), hit.start)
    if pm is None or pm.start() == hit.start:
        return
    if pm["approx"] == "about" and not _ABOUT_DATE.match(low, pm.end("approx")):
        # "talk about last week": "about" is a preposition here, not "approximately"; it stays in the question
        pm = _PREFIX.search(low, pm.end("approx"), hit.start)
        if pm is None or pm.start() == hit.start:
            return
    s, e = hit.s, hit.e
    dur = e - s
    part = pm["part"] or pm["part2"]
    if part:
        part = " ".join(part.split())
        third = dur / 3
        slack = max(dur / 10, timedelta(days=1)) if dur >= timedelta(days=3) else timedelta()
        if part.endswith("week of") and pm["nth"] and dur > timedelta(days=7):
            nth = pm["nth"]  # "the second week of november": days 8-14, give or take a day
            if nth == "last":
                s, e = e - timedelta(days=8), e + timedelta(days=1)
            else:
                k = {"first": 1, "second": 2, "third": 3, "fourth": 4}.get(nth) or int(nth[0])
                s, e = s + timedelta(days=7 * (k - 1) - 1), s + timedelta(days=7 * k + 1)
            hit.strength = "fuzzy"
        elif part.endswith("week of"):
            s = _at(ctx, _week_start(s.date()))
            e = s + timedelta(days=7)
        else:
            if part in ("early", "beginning of", "start of"):
                s, e = s - slack, s + third + slack
            elif part in ("mid", "middle of"):
                s, e = s + third - slack, s + 2 * third + slack
            elif part in ("late", "end of"):
                s, e = s + 2 * third - slack, e + slack
            elif part == "first half of":
                s, e = s - slack, s + dur / 2 + slack
            else:  # second half of
                s, e = s + dur / 2 - slack, e + slack
            s, e = _floor_day(s), _ceil_day(e)
            hit.strength = "fuzzy"
    if pm["approx"]:
        widen = max(timedelta(days=2), (e - s) / 2)
        s, e = s - widen, e + widen
        hit.strength = "fuzzy"
    bound = " ".join((pm["bound"] or "").split())
    end_today = _at(ctx, ctx.today + timedelta(days=1))
    if bound in ("before", "prior to"):
        s, e = OPEN_START, s
    elif bound in ("until", "till", "by"):
        s = OPEN_START
    elif bound == "after":
        s, e = e, max(end_today, e + timedelta(days=1))
    elif bound in ("since", "as of"):
        e = max(end_today, e)
    hit.s, hit.e = s, e
    hit.start = pm.start()
    hit.ranged = bool(pm["rng"])


def _floor_day(x: datetime) -> datetime:
    return x.replace(hour=0, minute=0, second=0, microsecond=0)


def _ceil_day(x: datetime) -> datetime:
    f = _floor_day(x)
    return f if f == x else f + timedelta(days=1)


_DIGIT = "#digit"
_TRIGGERS: dict[_Handler, frozenset[str]] = {
    _h_iso: frozenset({_DIGIT}),
    _h_numeric: frozenset({_DIGIT}),
    _h_ordinal: frozenset({_DIGIT}),
    _h_year: frozenset({_DIGIT}),
    _h_written: frozenset(_MONTHS),
    _h_month_year: frozenset(_MONTHS),
    _h_month: frozenset(_MONTHS),
    _h_dayword: frozenset({"yesterday", "today", "tonight", "tomorrow", "night", "morning", "afternoon", "evening"}),
    _h_period: frozenset({"last", "past", "previous", "this", "next", "current", "coming", "weekend"}),
    _h_season: frozenset(_SEASONS),
    _h_ago: frozenset({"ago", "back"}),
    _h_before_last: frozenset({"last"}),
    _h_holiday: frozenset(
        {"christmas", "xmas", "year", "years", "halloween", "valentine", "valentines", "thanksgiving"}
    ),
    _h_lastn: frozenset({"last", "past", "previous"}),
    _h_weekday: frozenset(_WEEKDAYS),
    _h_quarter: frozenset({"q", "quarter"}),
    _h_vague: frozenset({"recently", "lately", "late", "other", "while", "ago"}),
}
_LETTERS = re.compile(r"[^\W\d_]+")
_SHIFT_WORDS = frozenset({"before", "after", "prior", "following", "later", "earlier"})


def _words_of(low: str) -> set[str]:
    words = set(_LETTERS.findall(low))
    if any(c.isdigit() for c in low):
        words.add(_DIGIT)
    return words


def _base_hits(low: str, ctx: _Ctx, words: set[str] | None = None) -> list[_Hit]:
    """Every base time phrase of ``low`` (patterns whose trigger words are absent are not even run)."""
    words = _words_of(low) if words is None else words
    hits: list[_Hit] = []
    for pattern, handler in _BASES:
        if words.isdisjoint(_TRIGGERS[handler]):
            continue
        for m in pattern.finditer(low):
            got = handler(m, ctx, low[max(0, m.start() - 40) : m.start()])
            if got is not None:
                s, e, strength, rel = got
                end = m.end() + 2 if low.startswith("'s", m.end()) else m.end()  # "yesterday's", "tuesday's"
                hits.append(_Hit(m.start(), end, s, e, strength, rel, m[0], keep=handler is _h_holiday))
    return _longest_first(hits)


_MAX_HITS = 12  # a question has a few time phrases; a pasted blob with hundreds is not worth more time


def _longest_first(hits: list[_Hit]) -> list[_Hit]:
    """Non-overlapping hits, longer phrases first, then the first ``_MAX_HITS`` in question order."""
    hits.sort(key=lambda h: (-(h.end - h.start), h.start))
    taken = bytearray(max((h.end for h in hits), default=0))
    chosen: list[_Hit] = []
    for h in hits:
        if not any(taken[h.start : h.end]):
            taken[h.start : h.end] = b"\x01" * (h.end - h.start)
            chosen.append(h)
    chosen.sort(key=lambda h: h.start)
    return chosen[:_MAX_HITS]


def _shift(sm: re.Match[str], anchor: _Hit, ctx: _Ctx) -> tuple[datetime, datetime, str]:
    """ "the day before X", "two weeks before X", "the sunday before X", "the weekend before X"."""
    n = _num(" ".join(sm["n"].split())) if sm["n"] else 1
    unit = sm["unit"]
    back = sm["dir"] in ("before", "earlier") or sm["dir"].startswith("prior")
    fuzzy = "exact" if n == 1 else "fuzzy"
    if unit in _WEEKDAYS:
        ref = (anchor.s if back else anchor.e - timedelta(days=1)).date()
        wd = _WEEKDAYS[unit]
        delta = (ref.weekday() - wd) % 7 or 7 if back else (wd - ref.weekday()) % 7 or 7
        return (*_day_span(ctx, ref - timedelta(days=delta) if back else ref + timedelta(days=delta)), "exact")
    if unit == "weekend" and n == 1:
        return (*_weekend(_Ctx(anchor.s if back else anchor.e + timedelta(days=7), ctx.tz), "last"), "exact")
    if unit in ("month", "year"):
        months = n * (12 if unit == "year" else 1)
        if back:
            return _at(ctx, _add_months(anchor.s.date(), -months)), anchor.s, fuzzy
        return anchor.e, _at(ctx, _add_months(anchor.e.date(), months)), fuzzy
    days = n * _SHIFT_UNITS.get(unit, 1)
    if n == 1:
        if back:
            return anchor.s - timedelta(days=days), anchor.s, "exact"
        return anchor.e, anchor.e + timedelta(days=days), "exact"
    p = anchor.s - timedelta(days=days) if back else anchor.e + timedelta(days=days)
    half = timedelta(days=max(1, days // 4))
    return p - half, p + half, "fuzzy"


def parse_time(question: str, now: datetime, languages: tuple[str, ...] = DEFAULT_LANGUAGES) -> TimeParse:
    """Find the time words of ``question`` and the window they point at, relative to ``now``.

    English first; a question with no English time words is tried in ``languages`` (dateparser's codes)."""
    try:
        return _parse_time(question, now, languages)
    except (ValueError, OverflowError):  # calendar arithmetic beyond year 1 or 9999: no window
        return TimeParse(None, (), False)


def _foreign_hits(low: str, ctx: _Ctx, languages: tuple[str, ...]) -> list[_Hit]:
    """The time phrases of a question in another language: dateparser translates each into English, which
    the same grammar reads; the hit spans the phrase as the question wrote it."""
    loose = _Ctx(ctx.now, ctx.tz, translated=True)
    hits: list[_Hit] = []
    for start, end, english in foreign_time_phrases(low, languages):
        found = _base_hits(english, loose)
        if found:
            s, e, strength = _combine(found)
            if s < e:
                relative = all(h.relative for h in found)
                hits.append(_Hit(start, end, s, e, strength, relative, low[start:end]))
    return hits


# a question about what is ahead: a future ("will", "going to", "we'll"), a plan told in the present ("where are we
# going", "is she starting at"), "upcoming", "from september" (what holds from then on); not "what was X going to"
_AHEAD = re.compile(
    r"\b(?:will|shall|gonna|upcoming)\b|\bgoing\s+to\b|\b(?:i|we|you|they|he|she|it)'ll\b"
    r"|\b(?:are|is|am|\w+'s|\w+'re|i'm)\s+(?:\w+\s+)?(?:going|flying|driving|leaving|moving|heading|travell?ing"
    r"|visiting|staying|starting|coming|doing)\b"
    r"|\bfrom\s+(?:" + _MONTH_ALT + r")\s+(?:on|onwards?)\b",
)
# "from <month>": from then on when that month comes sooner than it was ("my title from july" asked in june), where
# a thing came from when it was nearer ("the invoices from january" asked in march)
_FROM_MONTH = re.compile(r"\bfrom\s+(?P<mon>" + _MONTH_ALT + r")\b(?!\s*(?:\d|to\b|until\b|till\b|through\b|-|–))")
# ... unless it is told in the past or of what has been ("what was the vendor going to charge from may", "how often
# have i been going since january", "what are we doing about yesterday's outage")
_PAST = re.compile(
    r"\b(?:was|were|did|had|didn't|wasn't|weren't|has|have|hasn't|haven't|been|since|ago|last|yesterday)\b"
)
# the English names of months, weekdays and seasons: the words a plan names its time by ("flights for june")
TIME_NAMES = frozenset(_MONTHS) | frozenset(_WEEKDAYS) | frozenset(_SEASONS)
# a time a thing is "for" ("the report for 31 may", "the invoice for the week of 2 june")
_FOR = re.compile(r"\bfor\s+(?:the\s+)?$")


def _from_coming_month(low: str, now: datetime) -> bool:
    """Whether `low` says "from <month>" of a month nearer ahead of `now` than behind it (`_FROM_MONTH`)."""
    m = _FROM_MONTH.search(low)
    return m is not None and 0 < (_MONTHS[m["mon"].rstrip(".")] - now.month) % 12 < 6


def _parse_time(question: str, now: datetime, languages: tuple[str, ...]) -> TimeParse:
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    low = question.replace("’", "'").lower()
    if len(low) != len(question):
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in question.replace("’", "'"))
    ahead = _PAST.search(low) is None and (_AHEAD.search(low) is not None or _from_coming_month(low, now))
    ctx = _Ctx(now, now.tzinfo or UTC, ahead=ahead)
    words = _words_of(low)
    hits = _base_hits(low, ctx, words) or _foreign_hits(low, ctx, languages)
    blocked = False
    spans: list[tuple[int, int]] = []
    shifts = _SHIFT.finditer(low) if not words.isdisjoint(_SHIFT_WORDS) else iter(())
    # "the day/week before <time phrase>": shift. "the day before <something that is not a time>": no window.
    for sm in shifts:
        if any(h.start <= sm.start("unit") < h.end and h.end > sm.end("dir") for h in hits):
            continue  # inside a longer phrase ("the day before yesterday")
        nxt = next((h for h in hits if h.start >= sm.end() and not low[sm.end() : h.start].strip()), None)
        if nxt is None:
            blocked = True  # its words stay in the question: they are about an event, not a date
            continue
        s, e, strength = _shift(sm, nxt, ctx)
        # joined with the anchor itself: what happened "the week before august 3" is often told on august 3
        s, e = min(s, nxt.s), max(e, nxt.e)
        hits = [h for h in hits if h is not nxt and (h.end <= sm.start() or h.start >= sm.end())]
        hits.append(_Hit(sm.start(), nxt.end, s, e, strength, nxt.relative, low[sm.start() : nxt.end]))
    hits.sort(key=lambda h: h.start)
    for h in hits:
        bare = h.start
        _apply_prefix(h, low, ctx)
        told_after = (
            _FOR.search(low, 0, bare) is not None
            or (" of " in f" {low[h.start : bare]}" and _FOR.search(low, 0, h.start) is not None)
            or low.endswith("'s", 0, h.end)
        )
        if told_after and h.s != OPEN_START:
            # what is "for may" or "yesterday's" (an invoice, a nightly report) is often told after it: the window
            # runs on as long again, at most two weeks (a month's invoice is sent in the first ones of the next)
            h.e += min(max(h.e - h.s, timedelta(days=1)), timedelta(days=14))
    # ranges: "between march and may", "from june 3 to june 9"
    merged: list[_Hit] = []
    for h in hits:
        prev = merged[-1] if merged else None
        if (
            prev is not None
            and prev.ranged
            and re.fullmatch(r"\s*(?:and|to|until|till|through|thru|-|–)\s*", low[prev.end : h.start])
        ):
            prev.e, prev.end, prev.text = max(prev.e, h.e), h.end, low[prev.start : h.end]
            prev.strength = "exact" if prev.strength == h.strength == "exact" else "fuzzy"
            prev.ranged = False
            continue
        merged.append(h)
    spans.extend((h.start, h.end) for h in merged if not h.keep)
    spans.sort()
    if blocked or not merged:
        return TimeParse(None, tuple(spans), blocked)
    s, e, strength = _combine(merged)
    if e <= s:
        return TimeParse(None, tuple(spans), False)
    text = " ".join(low[h.start : h.end] for h in merged)
    window = TimeWindow(s.astimezone(UTC), e.astimezone(UTC), strength, text)
    return TimeParse(window, tuple(spans), False, ctx.ahead)


def _combine(hits: list[_Hit]) -> tuple[datetime, datetime, str]:
    s, e = hits[0].s, hits[0].e
    exact = all(h.strength == "exact" for h in hits)
    for h in hits[1:]:
        s, e = max(s, h.s), min(e, h.e)
    if s < e:
        return s, e, "exact" if exact else "fuzzy"
    best = min(hits, key=lambda h: (h.relative, h.e - h.s))
    return best.s, best.e, best.strength


def strip_spans(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for a, b in sorted(spans):
        if a < pos:
            a = pos
        out.append(text[pos:a])
        pos = max(pos, b)
    out.append(text[pos:])
    joined = " ".join("".join(out).split())
    joined = re.sub(r"\s+([?.!,;:])", r"\1", joined)
    joined = re.sub(r"[,;:]+([?.!])", r"\1", joined)
    return re.sub(r"^[,;:\s]+|[,;:\s]+$", "", joined).strip()

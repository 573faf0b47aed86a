"""Tokens and phrases for the rule reader: names, places and short values read from lowercase text.

Guarantees: every span returned lies inside the text given; a name never starts with a common
word, kinship word, pet word or weekday; a place never starts with a determiner ("the new school"
is not a name). Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .relations import DAYS, HOLIDAYS, KIN, PETS, STOP, TECH_NOUNS, TITLES, is_name_token, is_stop, words
from .trust import quoted_spans

# ---------------------------------------------------------------------------------------------
# Tokens and phrases.

_TOK = re.compile(r"[^\W\d_][^\W_]*(?:[-'’][^\W_]+)*|\d[\w-]*")
_PLACE_OK = words(
    "little big new old grand great st st. saint san santa santo north south east west upper lower old-town "
    "lake mount mt fort port point park square hill hills bay beach heights falls springs city"
)
_DETERMINERS = words("the a an my our his her their this that these those your its some any")
_NOT_IN_LAW = r"(?![-\s]+in[-\s]+law)"  # "my father-in-law" is not "my father"
_KIN_ALT = "|".join(sorted((re.escape(k) for k in KIN), key=len, reverse=True))
_PET_ALT = "|".join(sorted((re.escape(k) for k in PETS), key=len, reverse=True))
_MODS = (
    r"(?:(?:little|big|older|younger|baby|eldest|oldest|youngest|twin|new|old|best|late|step|half|lovely|dear)[- ])*"
)
_NAME = r"[^\W\d_][^\W\d_]*(?:-[^\W\d_]+)?"
_DAY_ALT = "|".join(sorted(DAYS, key=len, reverse=True))
_HOLIDAY_ALT = "|".join(sorted((re.escape(h) for h in HOLIDAYS), key=len, reverse=True))


def _lower(s: str) -> str:
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in s)


def _mask(s: str) -> str:
    out = list(s)
    for a, b in quoted_spans(s):
        for i in range(a, b):
            out[i] = " "
    return "".join(out)


_WORD_START = re.compile(r"(?<![\w'’])[^\W\d_]")


def _at_words(pattern: str, low: str) -> Iterator[re.Match[str]]:
    """Matches of `pattern` anchored at every word start that begins a name, earliest per end."""
    rx = re.compile(pattern)
    ends: set[int] = set()
    for w in _WORD_START.finditer(low):
        m = rx.match(low, w.start())
        if m and m.end() not in ends and _name_at(low, low, w.start(), max_tokens=1) is not None:
            ends.add(m.end())
            yield m


def _tokens_from(low: str, pos: int) -> Iterator[tuple[int, int]]:
    """Spans of word tokens from `pos`, stopping at punctuation other than a single space."""
    i = pos
    while i < len(low):
        while i < len(low) and low[i] == " ":
            i += 1
        m = _TOK.match(low, i)
        if not m:
            return
        yield m.start(), m.end()
        i = m.end()
        if i >= len(low) or low[i] != " ":
            return


def _strip_possessive(low: str, a: int, b: int) -> tuple[int, int]:
    if low[a:b].endswith(("'s", "’s")):
        return a, b - 2
    return a, b


_POSSESSED = re.compile(r"\w(?:'s|’s)\s+$")


def _name_at(low: str, orig: str, pos: int, max_tokens: int = 2) -> tuple[int, int] | None:
    """A person's or pet's name starting at `pos` (first token required), as a span. A word owned by the one
    before it is a thing of theirs, never a name ("tomas's rule (he's my manager)": the manager is tomas)."""
    if _POSSESSED.search(low, max(0, pos - 8), pos):
        return None
    span: tuple[int, int] | None = None
    first = pos
    for n, (a, b) in enumerate(_tokens_from(low, pos)):
        a, b2 = _strip_possessive(low, a, b)
        tok = low[a:b2]
        written = orig[a:b2]
        if n == 0 and tok in TITLES:
            nxt = next(_tokens_from(low, b), None)
            if nxt and is_name_token(low[nxt[0] : nxt[1]].rstrip("'s’")):
                return (a, _strip_possessive(low, *nxt)[1])
            return None
        capital = written[:1].isupper() and not written.isupper()
        if n == 0:
            first = a
            if not (is_name_token(tok) or (capital and tok not in STOP and tok not in KIN)):
                return None
        else:
            if is_stop(tok) or not is_name_token(tok):
                break
            if not capital and (tok.endswith(("s", "ed", "ing", "ly")) or len(tok) < 3):
                break
        span = (first, b2)
        if b2 < b or n + 1 >= max_tokens:
            break
    if span is not None and low[span[0] : span[1]].split()[0] in TECH_NOUNS and not orig[span[0]].isupper():
        return None  # a thing of the work ("our client timeout is 800ms"), not someone
    return span


# prepositions a place name stops before: "a flat in sandvik near the hotel"
_PLACE_END = words("near beside behind opposite outside around across along above below between within inside past")


def _place_at(low: str, orig: str, pos: int, max_tokens: int = 4) -> tuple[int, int] | None:
    """A place or organisation name from `pos`: never one that starts with a determiner."""
    start: int | None = None
    end = pos
    named = False
    for n, (a, b) in enumerate(_tokens_from(low, pos)):
        tok = low[a:b].rstrip(".")
        base = tok[:-2] if tok.endswith(("'s", "’s")) else tok
        if n == 0 and tok in _DETERMINERS:
            return None
        boundary = (is_stop(base) and base not in _PLACE_OK) or base in DAYS or base in KIN or base in _PLACE_END
        if not boundary and len(base) > 4 and base.endswith(("ly", "ed", "ing")) and orig[a:b].islower():
            boundary = True
        if boundary or n >= max_tokens or tok[:1].isdigit():
            break
        if start is None:
            start = a
        end = a + len(tok)
        named = named or base not in _PLACE_OK
    if start is None or not named:
        return None
    return (start, end)


def _upto(low: str, pos: int, stops: str = ",.;:!?()[]—–", max_words: int = 7) -> tuple[int, int] | None:
    """A short phrase from `pos` to the next punctuation, at most `max_words` words."""
    i = pos
    while i < len(low) and low[i] == " ":
        i += 1
    j = i
    while j < len(low) and low[j] not in stops:
        j += 1
    while j > i and low[j - 1] == " ":
        j -= 1
    if j <= i or len(low[i:j].split()) > max_words:
        return None
    return (i, j)

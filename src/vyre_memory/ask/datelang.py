"""Time words of any language, read through dateparser's locale data; ``timewords`` makes the window.

Guarantees:
- Every word list here comes from dateparser (its month, weekday, unit, "ago" and relative words per
  language); nothing is hand-listed for one language.
- ``english_names()`` gives the English month and weekday names the window grammar reads.
- ``foreign_time_phrases(text, languages)`` returns ``[(start, end, english)]``: the spans of ``text`` that
  one language's date vocabulary covers (a run of its words holding at least one date word), each
  translated by dateparser into English ("vor drei Tagen" -> "3 day ago", "w grudniu" -> "december").
  A language is used only when it knows at least two of the text's words and more of them than English
  does (or, with no English date word, one relative word such as "gestern"), so an English question with a
  word that is a month name elsewhere ("mars") gets nothing.
- Cheap when there is nothing to find: a language's data is loaded once, its translator only the first
  time a question is in it; an English question costs a tokenisation and a few set look-ups.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_LANGUAGES", "english_names", "foreign_time_phrases"]

# Languages tried after English when a question has no English time words (dateparser has some 200;
# loading all of them would cost a second per process). A caller may pass others.
DEFAULT_LANGUAGES = ("de", "es", "fr", "it", "pt", "nl", "pl", "sv", "da", "nb", "fi", "cs", "ru", "uk", "tr")

_MONTH_KEYS = "january february march april may june july august september october november december".split()
_WEEKDAY_KEYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_UNIT_KEYS = ("year", "month", "week", "day", "fortnight", "hour", "minute")
_GLUE_KEYS = ("skip", "pertain", "in")
_PLAIN = re.compile(r"^[^\W\d_]+(?: [^\W\d_]+)*$")  # a word or phrase, not one of dateparser's regexes
_TOKEN = re.compile(r"\d+|[^\W\d_]+")
MIN_NAME = 4  # shorter month and weekday names are abbreviations ("sie", "mar"): too easily another word
MIN_WORD = 3  # shorter date words ("v" for a week, "d" for a day) are not read as date words
MIN_KNOWN = 2  # a language must know this many of the question's words


@dataclass(frozen=True)
class _Vocabulary:
    date: frozenset[str]  # words that alone point at a time: month, weekday, unit, "ago", relative words
    glue: frozenset[str]  # words that join them: prepositions and articles dateparser skips
    relative: frozenset[str]  # the words among ``date`` that alone name a day or period ("gestern", "hier")
    strong: frozenset[str]  # ``date`` but units ("time" is an hour in Danish): what a language is told by


@cache
def _info(lang: str) -> dict[str, Any]:
    """dateparser's data for ``lang`` ("de", "pt-PT"); an unknown code has none, so it matches nothing."""
    if not re.fullmatch(r"[a-z]{2,3}(?:-[A-Za-z]{2,4})?", lang):
        return {}
    # The data files are plain dicts: read one without importing dateparser itself, whose import costs
    # a few hundred milliseconds that an English question never needs.
    package = importlib.util.find_spec("dateparser")
    if package is None or package.origin is None:
        return {}
    path = Path(package.origin).parent / "data" / "date_translation_data" / f"{lang}.py"
    spec = importlib.util.spec_from_file_location(f"_vyre_dateparser_data_{lang}", path)
    if not path.is_file() or spec is None or spec.loader is None:
        return {}
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    info: dict[str, Any] = module.info
    return info


def _words(values: Iterable[str]) -> set[str]:
    return {w for v in values if _PLAIN.match(v.strip().lower()) for w in v.strip().lower().split()}


@cache
def _vocabulary(lang: str) -> _Vocabulary:
    info = _info(lang)
    names = _words(n for key in (*_MONTH_KEYS, *_WEEKDAY_KEYS) for n in info.get(key, []))
    date = {w for w in names if len(w) >= MIN_NAME}
    units = _words(n for key in _UNIT_KEYS for n in info.get(key, []))
    date |= units | _words(info.get("ago", []))
    relative = _words(p for phrases in info.get("relative-type", {}).values() for p in phrases)
    relative |= _words(k for d in info.get("simplifications", []) for k in d)
    glue = _words(n for key in _GLUE_KEYS for n in info.get(key, []))
    date |= relative
    short = {w for w in date if len(w) < MIN_WORD}  # "v", "d", "tu": abbreviations, or glue at best
    date -= short
    alone = {w for w in relative & date if len(w) >= MIN_NAME} - names - units
    return _Vocabulary(frozenset(date), frozenset((glue | short) - date), frozenset(alone), frozenset(date - units))


@lru_cache(maxsize=1)
def english_names() -> tuple[dict[str, int], dict[str, int]]:
    """English month names and abbreviations -> 1..12, and weekday names -> 0..6 (Monday first)."""
    info = _info("en")
    months = {n.lower(): i for i, key in enumerate(_MONTH_KEYS, 1) for n in info[key] if len(n) >= 3}
    weekdays = {key: i for i, key in enumerate(_WEEKDAY_KEYS)}
    return months, weekdays


@cache
def _canonical() -> dict[str, str]:
    """dateparser's English output ("1 day ago") -> the English phrase it stands for ("yesterday")."""
    return {k: v[0] for k, v in _info("en").get("relative-type", {}).items() if v}


def _known(tokens: list[str], vocab: _Vocabulary) -> int:
    return sum(1 for t in tokens if t in vocab.date or t in vocab.glue)


def _language(tokens: list[str], languages: tuple[str, ...]) -> str | None:
    """The language knowing most of ``tokens``: at least two and more than English, or, in a question
    with no English date word at all, one relative word ("gestern", "hier") that is no month or day name."""
    english = _known(tokens, _vocabulary("en"))
    best, best_known = None, max(english, MIN_KNOWN - 1)
    for lang in languages:
        vocab = _vocabulary(lang)
        dated = [t for t in tokens if t in vocab.strong]
        if not dated:
            continue
        known = _known(tokens, vocab)
        if english == 0 and best is None and any(t in vocab.relative for t in dated):
            known = max(known, MIN_KNOWN)
        if known > best_known:
            best, best_known = lang, known
    return best


@lru_cache(maxsize=1024)
def _translate(lang: str, phrase: str) -> str:
    from dateparser.conf import Settings  # imported when a question is in another language, not before
    from dateparser.languages.loader import default_loader

    english = " ".join(default_loader.get_locale(lang).translate(phrase, settings=Settings()).split())
    return _canonical().get(english, english)


def foreign_time_phrases(text: str, languages: tuple[str, ...] = DEFAULT_LANGUAGES) -> list[tuple[int, int, str]]:
    """The time phrases of ``text`` (lower case) in the one language it is written in, translated to English."""
    matches = list(_TOKEN.finditer(text))
    tokens = [m[0] for m in matches]
    lang = _language(tokens, tuple(x for x in languages if x != "en")) if tokens else None
    if lang is None:
        return []
    vocab = _vocabulary(lang)
    out: list[tuple[int, int, str]] = []
    run: list[re.Match[str]] = []
    for m in [*matches, None]:
        joined = m is not None and (not run or not text[run[-1].end() : m.start()].strip(" '’-"))
        if m is not None and (m[0] in vocab.date or m[0] in vocab.glue or m[0].isdigit()) and joined:
            run.append(m)
            continue
        while run and not (run[-1][0] in vocab.date or run[-1][0].isdigit()):
            run.pop()  # trailing glue belongs to what follows
        if any(r[0] in vocab.date for r in run):
            start, end = run[0].start(), run[-1].end()
            try:
                english = _translate(lang, text[start:end])
            except Exception:  # a phrase dateparser cannot translate is no time phrase
                english = ""
            if english:
                out.append((start, end, english))
        run = [m] if m is not None and (m[0] in vocab.date or m[0] in vocab.glue or m[0].isdigit()) else []
    return out

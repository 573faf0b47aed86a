"""A figure next to the word the question asks for: "what offline MAE did v2.1.0 get" -> "MAE 5.71".

Guarantees: the answer is a measure word and a number as they stand side by side in one sentence of a
cited passage (the quote is that sentence), so it is grounded by construction. A number is a candidate
only when a word of the question stands right next to it ("MAE 5.71", "16.2% WAPE", "1Gi limit"), when
every version the question names is the nearest version before it in its passage, and when the passage
is about the question (two thirds of its other words), and every person the question names says the
sentence or is named in it. Tool output is never read here: an edit's old
and new text stand side by side there. The confidence is the winner's share of the candidates' votes,
calibrated so that a contested figure falls under every threshold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..contract import Passage
from .extract import _SENTENCE, _VERSION, Extracted, _overlap, _rank_weight, _stem, _terms, _Votes
from .understand import Understanding

_NUMBER = re.compile(
    r"^[$€£]?\d+(?:[.,]\d+)?(?:%|ms|s|min|mins|h|hrs?|k|x|gi|gib|mi|mib|gb|mb|kb|zł|pln|usd|eur)?$", re.I
)
_PERSON = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)*")  # "John", "Marcus Tran": a name the question asks about
_IDENTIFIER = re.compile(r"^(?:#\d+|[A-Z][A-Z0-9]*-\d+(?:-\d+)*)$")
_TOKEN = re.compile(r"[^\s/|]+")
_STRIP = "*`_()[]{}:;,.!?\"'"
_QUESTION_WORDS = frozenset({"get", "got", "much", "many", "number", "run", "now", "set", "use", "us"})


def _clean(token: str) -> str:
    return token.strip(_STRIP)


def _is_number(token: str) -> bool:
    """A figure ("5.71", "16.2%", "1Gi", "$406.07") or a numbered identifier ("#812", "INV-2026-00412")."""
    token = _clean(token)
    return bool(_NUMBER.match(token) or _IDENTIFIER.match(token)) and any(c.isdigit() for c in token)


def _last_version(text: str) -> str | None:
    found = _VERSION.findall(text)
    return found[-1].lstrip("vV") if found else None


def figure(u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    """The figure the question's measure word labels, voted over the top passages; None when none is next to one."""
    versions = [v.lstrip("vV") for v in _VERSION.findall(" ".join(u.terms))]
    words = {w for w in _terms(u) - _QUESTION_WORDS if not _VERSION.fullmatch(w) and not w[:1].isdigit()}
    if not words:
        return None
    asked = {n for n in re.findall(r"\d+(?:\.\d+)?", " ".join(u.terms)) if not any(n in v for v in versions)}
    phase = _phase(u.question)
    votes = _Votes()
    quotes: dict[str, str] = {}
    people = [re.compile(rf"\b{re.escape(e.lower())}\b") for e in u.entities if _PERSON.fullmatch(e)]
    for rank, p in enumerate(passages[:8]):
        if p.kind not in ("typed", "assistant", "compact_summary"):
            continue
        for sentence in _SENTENCE.split(p.text):
            if any(not name.search(f"{p.name or ''} {sentence}".lower()) for name in people):
                continue  # the question asks about someone who neither says this sentence nor is named in it
            for answer, measure in _pairs(sentence, words, asked):
                before = p.text[: p.text.find(sentence)] + sentence[: sentence.find(answer.split()[0])]
                if versions and _last_version(before) not in versions:
                    continue
                if _overlap(p.about or p.text, words - {measure}) < (0.5 if versions else 2 / 3):
                    continue
                # "7 of 50" answers "how many of the 50 ..." more directly than a figure beside a question word
                share_of = 2.0 if measure in asked else 1.0
                votes.add(answer, _rank_weight(rank) * _phase_weight(phase, sentence) * share_of, p)
                quotes.setdefault(answer, sentence.strip()[:400])
    found = votes.extracted("figure", lambda share: min(0.8, max(0.0, 1.4 * share - 0.45)))
    if found is None:
        return None
    return Extracted(found.answer, found.confidence, found.cite, quotes[found.answer], found.method)


_PHASES = {"before": re.compile(r"\bbefore\b", re.I), "after": re.compile(r"\bafter\b", re.I)}


def _phase(question: str) -> str | None:
    """ "before" or "after" when the question asks for the figure on one side of a change."""
    said = [name for name, pattern in _PHASES.items() if pattern.search(question)]
    return said[0] if len(said) == 1 else None


def _phase_weight(phase: str | None, sentence: str) -> float:
    """A figure labelled with the side the question asks for counts double; the other side's, half."""
    if phase is None:
        return 1.0
    other = "after" if phase == "before" else "before"
    if _PHASES[phase].search(sentence) and not _PHASES[other].search(sentence):
        return 2.0
    if _PHASES[other].search(sentence) and not _PHASES[phase].search(sentence):
        return 0.5
    return 1.0


def _pairs(sentence: str, words: set[str], asked: set[str]) -> list[tuple[str, str]]:
    """("MAE 5.71", "mae") for each number with a question word right before or after it, and
    ("7 of 50", "50") for a count out of a number the question names; the question's own numbers are
    never an answer."""
    tokens = _TOKEN.findall(sentence)
    out = []
    for i, token in enumerate(tokens):
        if not _is_number(token) or _clean(token) in asked:
            continue
        if token.endswith(",") and i + 1 < len(tokens) and _is_number(tokens[i + 1]):
            continue  # one of a list of numbers ("seeds 4, 11, 17"), not a figure
        if i + 2 < len(tokens) and tokens[i + 1].lower() == "of" and _clean(tokens[i + 2]) in asked:
            out.append((f"{_clean(token)} of {_clean(tokens[i + 2])}", _clean(tokens[i + 2])))
            continue
        for j in (i + 1, i - 1):  # "40 points" over "scored 40": the counted noun first
            if 0 <= j < len(tokens) and _stem(_clean(tokens[j]).lower()) in words:
                left, right = sorted((i, j))
                out.append((f"{_clean(tokens[left])} {_clean(tokens[right])}", _stem(_clean(tokens[j]).lower())))
                break
    return out

"""Scoring, exactly as the worlds' README defines it, and the aggregate metrics.

A string matches an answer case-insensitively when no letter or digit stands right before or
right after it (a plural "s" aside): "7" does not match "17", "xact" matches
"pg_advisory_xact_lock", "Tuesday" matches "Tuesdays".
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache


@lru_cache(maxsize=4096)
def _pattern(needle: str) -> re.Pattern[str]:
    return re.compile(r"(?<![^\W_])" + re.escape(needle.strip()) + r"(?:s|es)?(?![^\W_])", re.IGNORECASE)


def matches(needle: str, answer: str | None) -> bool:
    if not answer or not needle.strip():
        return False
    return _pattern(needle).search(answer) is not None


def judge(answer: str | None, abstained: bool, answerable: bool, accept: Sequence[str], reject: Sequence[str]) -> bool:
    if not answerable:
        return abstained
    if abstained or not answer:
        return False
    return any(matches(a, answer) for a in accept) and not any(matches(r, answer) for r in reject)


def trap_hit(answer: str | None, reject: Sequence[str]) -> bool:
    return bool(answer) and any(matches(r, answer) for r in reject)


def evidence_recall(evidence: Sequence[frozenset[str]], retrieved: Sequence[Iterable[str]], k: int) -> float | None:
    """Share of evidence turns with a record uuid among the top-k passages' uuids; None without evidence."""
    if not evidence:
        return None
    top = {u for uuids in retrieved[:k] for u in uuids}
    return sum(1 for turn in evidence if turn & top) / len(evidence)


def evidence_recall_chars(
    evidence: Sequence[frozenset[str]], retrieved: Sequence[tuple[Iterable[str], int]], budget: int
) -> float | None:
    """Recall when the ranked passages are returned up to `budget` characters: a passage counts when it
    starts within the budget (its (uuids, length) in rank order). For comparing with systems whose
    passages are shorter or longer (eight ~500-character chunks: a budget of 4,000)."""
    if not evidence:
        return None
    top: set[str] = set()
    used = 0
    for uuids, length in retrieved:
        if used >= budget:
            break
        top.update(uuids)
        used += length
    return sum(1 for turn in evidence if turn & top) / len(evidence)


def _normalise_tokens(text: str) -> list[str]:
    """LoCoMo's (SQuAD-style) normalisation: lowercase, no punctuation or articles."""
    text = text.lower()
    text = "".join(c for c in text if c not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the|and)\b", " ", text)
    return text.split()


def token_f1(prediction: str | None, gold: str) -> float:
    pred, ref = _normalise_tokens(prediction or ""), _normalise_tokens(gold)
    if not pred or not ref:
        return float(pred == ref)
    common = Counter(pred) & Counter(ref)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return round(ordered[index], 2)


def mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(sum(vals) / len(vals), 4) if vals else None

"""Pseudo-relevance feedback: words the best passages share that the question did not say.

The top passages of one ranking (the feedback) lend their distinctive words to a second search:
a word scores by how often it occurs in the feedback, weighted by how rare it is in the candidate
pool (an idf over the pool, so no corpus-wide count is read). Pure and deterministic.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from .understand import is_stop_word

_WORD = re.compile(r"[a-z][a-z'-]*[a-z]")
POOL_CHARS = 600  # the start of each pool text is sample enough for an idf, and keeps this under a few ms


def words_of(text: str) -> set[str]:
    """The distinct content words of a text: lower-case, three letters or more, no stop words."""
    return {w for w in set(_WORD.findall(text.lower())) if len(w) > 2 and not is_stop_word(w)}


def feedback_terms(
    feedback: Sequence[str], pool: Iterable[str], known: Iterable[str], n: int, min_docs: int = 2
) -> list[str]:
    """Up to `n` words found in at least `min_docs` feedback texts, best first; never one of `known`."""
    pool_df: Counter[str] = Counter()
    size = 0
    for text in pool:
        pool_df.update(words_of(text[:POOL_CHARS]))
        size += 1
    known_set = {w.lower() for w in known}
    known_stems = {_stem(w) for w in known_set}
    docs: Counter[str] = Counter()
    for text in feedback:
        docs.update(words_of(text))
    scored = []
    for word, count in docs.items():
        if count < min_docs or word in known_set or _stem(word) in known_stems:
            continue
        idf = math.log((size + 1) / (pool_df.get(word, 0) + 0.5))
        scored.append((count * idf, word))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [w for _, w in scored[:n]]


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word

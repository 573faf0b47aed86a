"""The rerank step: the model orders the top 30 passages in one call and the top `keep` go on.

Guarantees:
- Never raises for anything a model does: on an error, a timeout or unreadable output the passages keep their
  original order and `error` says why. Only `ModelCallsForbidden` (a real call under tests) propagates.
- The result is a permutation of the input, cut to `keep`: ids the model invents or repeats are dropped, passages
  it leaves out follow in their original order, and passages past the first 30 come after all of those.
- No call is made without a backend ("none") or when there is nothing to cut (at most `keep` passages): the order
  cannot change what the answer step reads then. `used_model` says whether the model's order was used.
- Deterministic: the same inputs make the same request (the same request key).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from vyre_memory.contract import Passage
from vyre_memory.errors import ModelCallsForbidden, ModelError, ModelOutputError, ModelTimeout
from vyre_memory.models.base import ModelBackend

from ..models.base import complete
from .prompts import rerank as prompt

__all__ = ["RerankResult", "apply_order", "rerank"]

DEFAULT_TIMEOUT_S = 0.7
KEEP = 8


@dataclass(frozen=True)
class RerankResult:
    passages: list[Passage] = field(default_factory=list)
    used_model: bool = False
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    error: str | None = None


def apply_order(passages: Sequence[Passage], order: Sequence[int]) -> list[Passage]:
    """`passages` (ids 1..N by position) in the model's `order`; invalid or repeated ids dropped, the rest after."""
    picked = [i for i in dict.fromkeys(order) if 1 <= i <= len(passages)]
    chosen = set(picked)
    return [passages[i - 1] for i in picked] + [p for i, p in enumerate(passages, start=1) if i not in chosen]


def rerank(
    question: str,
    passages: list[Passage],
    backend: ModelBackend | None,
    *,
    now: datetime,
    keep: int = KEEP,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    model: str = "",
) -> RerankResult:
    """The best `keep` of `passages` for `question` asked on `now`'s day, in the model's order when it gives one."""
    start = time.perf_counter()

    def done(ordered: Sequence[Passage], used: bool, cost: float = 0.0, error: str | None = None) -> RerankResult:
        return RerankResult(list(ordered[:keep]), used, cost, (time.perf_counter() - start) * 1000, error)

    if backend is None or len(passages) <= keep:
        return done(passages, False)
    head, tail = passages[: prompt.MAX_PASSAGES], passages[prompt.MAX_PASSAGES :]
    req = prompt.request(question, head, now=now, timeout_s=timeout_s, model=model)
    try:
        response = complete(backend, req)
    except ModelCallsForbidden:
        raise
    except ModelTimeout:
        return done(passages, False, error="model timeout")
    except ModelError as exc:  # a backend's failure keeps retrieval's order (a bug is raised)
        return done(passages, False, error=f"model error: {type(exc).__name__}: {exc}")
    try:
        order = prompt.parse(response.text).order
    except ModelOutputError as exc:
        return done(passages, False, response.cost_usd, error=f"unparseable output: {exc}")
    return done(apply_order(head, order) + tail, True, response.cost_usd)

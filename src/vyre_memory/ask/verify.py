"""The second look: for answers about people and relations, a strict verify prompt rereads the cited turns.

Guarantees:
- `needs_second_look(qclass, answer)` is pure: true for the person, relation and who-said classes, or when the
  answer names a relation between people ("wife", "my manager", "neighbour", "sister-in-law" ...).
- `verify(...)` never raises for anything a model does: an error, a timeout, unreadable output, no backend or no
  cited passage all count as not agreeing, with the reason. Only `ModelCallsForbidden` propagates.
- `second_look(...)` applies it to an `AnswerResult`: an answer that needs one and is not agreed with becomes an
  abstention ("second look: <reason>"); the verify call's cost, time and count are added either way.
- Deterministic: the same inputs make the same request (the same request key).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from vyre_memory.contract import Passage
from vyre_memory.errors import ModelCallsForbidden, ModelOutputError, ModelTimeout
from vyre_memory.models.base import ModelBackend

from .answer import AnswerResult
from .prompts import complete
from .prompts import verify as prompt

__all__ = ["SECOND_LOOK_CLASSES", "VerifyResult", "needs_second_look", "second_look", "verify"]

DEFAULT_TIMEOUT_S = 0.7
SECOND_LOOK_CLASSES = frozenset({"person", "relation", "who-said"})

_RELATION = re.compile(
    r"\b(?:wife|husband|spouse|partner|fianc[eé]e?|boyfriend|girlfriend|ex|married|dad|father|mom|mum|mother|"
    r"parents?|sons?|daughters?|sisters?|brothers?|siblings?|twins?|kids?|child|children|baby|nephew|niece|cousin|"
    r"aunt|uncle|grand\w+|step\w+|god(?:son|daughter|father|mother)|\w+-in-law|in-laws|boss|manager|"
    r"report|teacher|doctor|dentist|therapist|landlord|neighbou?rs?|friends?|colleagues?|co-?workers?|"
    r"roommates?|flatmates?|mentor|relatives?|related|family)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class VerifyResult:
    agrees: bool
    reason: str
    cost_usd: float = 0.0
    latency_ms: float = 0.0


def needs_second_look(qclass: str, answer: str | None) -> bool:
    """Whether an answer says who someone is to the user, or a relation between people."""
    return qclass in SECOND_LOOK_CLASSES or bool(answer and _RELATION.search(answer))


def verify(
    question: str,
    answer: str,
    cited: Sequence[Passage],
    backend: ModelBackend | None,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    model: str = "",
    user_name: str = "",
) -> VerifyResult:
    """Whether a strict reread of `cited` supports `answer`; anything short of a clear yes is a disagreement."""
    start = time.perf_counter()

    def done(agrees: bool, reason: str, cost: float = 0.0) -> VerifyResult:
        return VerifyResult(agrees, reason, cost, (time.perf_counter() - start) * 1000)

    if backend is None:
        return done(False, "no model for the second look")
    if not cited:
        return done(False, "nothing cited to verify")
    req = prompt.request(question, answer, cited, timeout_s=timeout_s, model=model, user_name=user_name)
    try:
        response = complete(backend, req)
    except ModelCallsForbidden:
        raise
    except ModelTimeout:
        return done(False, "model timeout")
    except Exception as exc:  # a failed second look is a disagreement, never a crash
        return done(False, f"model error: {type(exc).__name__}: {exc}")
    try:
        out = prompt.parse(response.text)
    except ModelOutputError:
        return done(False, "unparseable output", response.cost_usd)
    reason = out.reason or ("supported" if out.supported else "not supported")
    return done(out.supported, reason, response.cost_usd)


def second_look(
    question: str,
    result: AnswerResult,
    backend: ModelBackend | None,
    *,
    qclass: str,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    model: str = "",
    user_name: str = "",
) -> AnswerResult:
    """`result`, or an abstention when it needs a second look and the verify prompt does not agree."""
    if result.abstained or result.answer is None or not needs_second_look(qclass, result.answer):
        return result
    check = verify(question, result.answer, result.cite, backend, timeout_s=timeout_s, model=model, user_name=user_name)
    spent = replace(
        result,
        cost_usd=result.cost_usd + check.cost_usd,
        latency_ms=result.latency_ms + check.latency_ms,
        calls=result.calls + (1 if backend is not None else 0),
    )
    if check.agrees:
        return spent
    return replace(spent, answer=None, confidence=0.0, abstained=True, cite=[], reason=f"second look: {check.reason}")

"""What the model path would cost and how long it would take, from the requests an eval run made.

A replayed run knows, per stage (rerank, answer, verify), how many calls were asked for and how many characters
went in and came out. From those, with published list prices and a typical speed for `claude-haiku-4-5` (the
default model), this estimates tokens, cost and model time per question against the ADR's 3 s budget. These are
estimates from assumptions stated here, not measurements of a real model: a stand-in model's replies are about as
long as a real model's, but its speed is not measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models.base import DEFAULT_ANTHROPIC_MODEL
from ..models.pricing import price_for

__all__ = ["CHARS_PER_TOKEN", "OUTPUT_TOKENS_PER_S", "TIME_TO_FIRST_TOKEN_S", "estimate"]

CHARS_PER_TOKEN = 4.0  # English prose and code, as Anthropic's docs estimate
TIME_TO_FIRST_TOKEN_S = 0.6  # typical for claude-haiku-4-5 on a prompt of a few thousand tokens (assumption)
OUTPUT_TOKENS_PER_S = 150.0  # typical claude-haiku-4-5 output speed (assumption)
BUDGET_S = 3.0


def delta(after: Mapping[str, Mapping[str, int]], before: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    return {
        stage: {k: v - before.get(stage, {}).get(k, 0) for k, v in counts.items()} for stage, counts in after.items()
    }


def estimate(
    stages: Mapping[str, Mapping[str, int]], questions: int, model: str = DEFAULT_ANTHROPIC_MODEL
) -> dict[str, Any]:
    """Per stage and in all, per question: calls, prompt characters, input and output tokens, and the estimated
    cost (USD) and model time (s, the stages one after another)."""
    price = price_for(model)
    n = max(1, questions)
    out: dict[str, Any] = {
        "model": model,
        "assumptions": {
            "chars_per_token": CHARS_PER_TOKEN,
            "time_to_first_token_s": TIME_TO_FIRST_TOKEN_S,
            "output_tokens_per_s": OUTPUT_TOKENS_PER_S,
        },
        "stages": {},
    }
    total_cost = total_time = 0.0
    for stage, c in sorted(stages.items()):
        calls = c.get("calls", 0) / n
        tokens_in = c.get("prompt_chars", 0) / CHARS_PER_TOKEN / n
        tokens_out = c.get("output_chars", 0) / CHARS_PER_TOKEN / n
        cost = (tokens_in * price.input_per_mtok + tokens_out * price.output_per_mtok) / 1e6 if price else 0.0
        seconds = calls * TIME_TO_FIRST_TOKEN_S + tokens_out / OUTPUT_TOKENS_PER_S
        total_cost, total_time = total_cost + cost, total_time + seconds
        out["stages"][stage] = {
            "calls_per_question": round(calls, 3),
            "prompt_chars_per_question": round(c.get("prompt_chars", 0) / n),
            "input_tokens_per_question": round(tokens_in),
            "output_tokens_per_question": round(tokens_out),
            "cost_usd_per_question": round(cost, 6),
            "model_seconds_per_question": round(seconds, 3),
        }
    out["cost_usd_per_question"] = round(total_cost, 6)
    out["model_seconds_per_question"] = round(total_time, 3)
    out["within_budget_s"] = BUDGET_S
    return out

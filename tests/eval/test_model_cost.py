"""The model path's estimate: tokens, cost and model time per question from the requests an eval made."""

from __future__ import annotations

import pytest

from vyre_memory.eval.model_cost import CHARS_PER_TOKEN, OUTPUT_TOKENS_PER_S, TIME_TO_FIRST_TOKEN_S, delta, estimate


def test_the_estimate_adds_the_stages_per_question() -> None:
    stages = {
        "rerank": {"calls": 10, "prompt_chars": 80_000, "output_chars": 400},
        "answer": {"calls": 10, "prompt_chars": 40_000, "output_chars": 1_200},
    }
    out = estimate(stages, questions=10)
    answer = out["stages"]["answer"]
    assert answer["calls_per_question"] == 1 and answer["input_tokens_per_question"] == round(4000 / CHARS_PER_TOKEN)
    # claude-haiku-4-5 list prices: $1 per million input tokens, $5 per million output tokens
    assert answer["cost_usd_per_question"] == pytest.approx((1000 * 1.0 + 30 * 5.0) / 1e6, abs=1e-6)
    assert answer["model_seconds_per_question"] == pytest.approx(
        TIME_TO_FIRST_TOKEN_S + 30 / OUTPUT_TOKENS_PER_S, abs=1e-3
    )
    assert out["model_seconds_per_question"] == pytest.approx(
        answer["model_seconds_per_question"] + out["stages"]["rerank"]["model_seconds_per_question"], abs=1e-3
    )


def test_delta_counts_only_what_one_run_asked() -> None:
    before = {"answer": {"calls": 3, "prompt_chars": 30, "output_chars": 3}}
    after = {
        "answer": {"calls": 5, "prompt_chars": 70, "output_chars": 9},
        "verify": {"calls": 1, "prompt_chars": 5, "output_chars": 1},
    }
    assert delta(after, before) == {
        "answer": {"calls": 2, "prompt_chars": 40, "output_chars": 6},
        "verify": {"calls": 1, "prompt_chars": 5, "output_chars": 1},
    }

"""The rerank step, against scripted fake models only: the model's order when it gives one, retrieval's otherwise."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime

import pytest
from tests.conftest import make_passage

from vyre_memory.ask.prompts import rerank as rerank_prompt
from vyre_memory.ask.rerank import apply_order, rerank
from vyre_memory.contract import Passage
from vyre_memory.errors import ModelCallsForbidden, ModelError, ModelOutputError, ModelTimeout
from vyre_memory.models.base import GRACE_S, ModelRequest, render_user_prompt, request_key
from vyre_memory.models.fake import FakeModel, FunctionModel

NOW = datetime(2026, 9, 30, 9, 0, tzinfo=UTC)
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def passage(n: int, text: str | None = None) -> Passage:
    text = text if text is not None else f"passage number {n} about the invoice renderer"
    return make_passage(n, text, kind="assistant", name="assistant")


FIVE = [passage(n) for n in range(1, 6)]


def order(*ids: object) -> str:
    return json.dumps({"order": list(ids)})


def test_model_order_is_used_and_cut_to_keep() -> None:
    model = FakeModel([order(3, 1)], cost_usd=0.0007)
    result = rerank("which renderer", FIVE, model, now=NOW, keep=3, timeout_s=0.7)
    assert [p.id for p in result.passages] == [3, 1, 2]
    assert (result.used_model, result.error, result.cost_usd) == (True, None, 0.0007)


def test_unknown_and_repeated_ids_are_dropped_and_missing_follow_in_order() -> None:
    result = rerank("q", FIVE, FakeModel([order(42, 5, "2", 5, 0, -1, True, "x", 4.0)]), now=NOW, keep=4, timeout_s=0.7)
    assert [p.id for p in result.passages] == [5, 2, 4, 1]
    assert result.used_model


@pytest.mark.parametrize(
    ("script", "error"),
    [
        (ModelError("HTTP 500 from the API"), "model error: ModelError: HTTP 500 from the API"),
        (ModelTimeout("no answer within 0.7s"), "model timeout"),
    ],
)
def test_model_failure_falls_back_to_retrieval_order(script: BaseException, error: str) -> None:
    result = rerank("q", FIVE, FakeModel([script]), now=NOW, keep=3, timeout_s=0.7)
    assert [p.id for p in result.passages] == [1, 2, 3]
    assert (result.used_model, result.error) == (False, error)


def test_a_bug_is_raised_not_taken_for_a_model_failure() -> None:
    with pytest.raises(RuntimeError, match="a backend bug"):
        rerank("q", FIVE, FakeModel([RuntimeError("a backend bug")]), now=NOW, keep=3, timeout_s=0.7)


def test_unreadable_output_falls_back_and_says_so() -> None:
    result = rerank("q", FIVE, FakeModel(["3, 1, 2 are best"], cost_usd=0.0005), now=NOW, keep=3, timeout_s=0.7)
    assert [p.id for p in result.passages] == [1, 2, 3]
    assert not result.used_model
    assert result.error is not None and result.error.startswith("unparseable output")
    assert result.cost_usd == 0.0005  # a call that was made is paid for


def test_slow_model_falls_back_within_the_budget() -> None:
    def hang(req: ModelRequest) -> str:
        time.sleep(3.0)
        return order(2)

    start = time.perf_counter()
    result = rerank("q", FIVE, FunctionModel(hang), now=NOW, keep=3, timeout_s=0.2)
    assert time.perf_counter() - start < 0.2 + GRACE_S + 0.3
    assert ([p.id for p in result.passages], result.error) == ([1, 2, 3], "model timeout")


def test_no_backend_or_nothing_to_cut_makes_no_call() -> None:
    model = FakeModel([])
    none = rerank("q", FIVE, None, now=NOW, keep=3, timeout_s=0.7)
    few = rerank("q", FIVE, model, now=NOW, keep=5, timeout_s=0.7)
    assert ([p.id for p in none.passages], none.used_model, none.error) == ([1, 2, 3], False, None)
    assert ([p.id for p in few.passages], few.used_model) == ([1, 2, 3, 4, 5], False)
    assert model.requests == []


def test_only_the_top_thirty_are_shown_and_the_rest_follow() -> None:
    many = [passage(n) for n in range(1, 41)]
    model = FakeModel([order(30, 2)])
    result = rerank("q", many, model, now=NOW, keep=39, timeout_s=0.7)
    assert [p.id for p in result.passages][:3] == [30, 2, 1]
    assert [p.id for p in result.passages][30:] == list(range(31, 40))
    prompt = model.requests[0].prompt
    assert "[30]" in prompt and "[31]" not in prompt


def test_request_shows_bounded_excerpts_short_ids_and_no_uuid() -> None:
    long = [passage(n, f"start {n} " + "very long tool output line " * 400) for n in range(1, 31)]
    model = FakeModel([order(1)])
    rerank("which renderer", long, model, now=NOW, keep=8, timeout_s=0.7)
    req = model.requests[0]
    shown = render_user_prompt(req) + req.system
    assert UUID_RE.search(shown) is None
    for p in long:
        assert p.session not in shown and p.uuids[0] not in shown
    assert [int(i) for i in re.findall(r"^\[(\d+)\]", req.prompt, re.M)] == list(range(1, 31))
    assert len(req.prompt) < 30 * (rerank_prompt.EXCERPT_CHARS + 120)
    assert (req.purpose, req.prompt_name, req.prompt_version) == ("rerank", "rerank", rerank_prompt.VERSION)
    assert (req.temperature, req.timeout_s, req.json_schema) == (0.0, 0.7, rerank_prompt.JSON_SCHEMA)
    assert 0 < req.max_tokens <= 300


def test_request_carries_the_day_the_question_is_asked() -> None:
    """'what did we ship last month' is ranked against the asking day, which the passages' dates are read by."""
    model = FakeModel([order(2), order(2)])
    rerank("what did we ship last month", FIVE, model, now=NOW, keep=3, timeout_s=0.7)
    rerank("what did we ship last month", FIVE, model, now=NOW.replace(month=10), keep=3, timeout_s=0.7)
    assert "Asked on: 2026-09-30 (Wednesday)\nQuestion: what did we ship last month" in model.requests[0].prompt
    assert "relative to the day" in model.requests[0].system
    assert request_key(model.requests[0], "fake") != request_key(model.requests[1], "fake")


def test_same_inputs_give_the_same_request_key() -> None:
    """Only the day is shown: the same question asked twice in a day is one request (one recording)."""
    a, b = FakeModel([order(2)]), FakeModel([order(2)])
    rerank("which renderer", FIVE, a, now=NOW, keep=3, timeout_s=0.7)
    rerank("which renderer", FIVE, b, now=NOW.replace(hour=17), keep=3, timeout_s=0.7)
    assert request_key(a.requests[0], "fake") == request_key(b.requests[0], "fake")


def test_a_real_model_call_under_tests_is_not_swallowed() -> None:
    with pytest.raises(ModelCallsForbidden):
        rerank("q", FIVE, FakeModel([ModelCallsForbidden("switched off")]), now=NOW, keep=3, timeout_s=0.7)


def test_apply_order_is_a_permutation() -> None:
    assert [p.id for p in apply_order(FIVE, [9, 4, 4, 1])] == [4, 1, 2, 3, 5]
    assert apply_order(FIVE, []) == FIVE


def test_parse_accepts_a_bare_list_and_rejects_prose() -> None:
    assert rerank_prompt.parse("[2, 1]").order == (2, 1)
    with pytest.raises(ModelOutputError) as info:
        rerank_prompt.parse('{"ranking": [1]}')
    assert info.value.raw == '{"ranking": [1]}'

"""FakeModel and FunctionModel: scripted outputs, errors, delays and timeouts."""

from __future__ import annotations

import time

import pytest

from vyre_memory.errors import ModelError, ModelTimeout
from vyre_memory.models.base import ModelRequest
from vyre_memory.models.fake import FakeModel, FunctionModel


def _req(prompt: str = "hello", timeout_s: float = 5.0) -> ModelRequest:
    return ModelRequest("answer", "answer", "1", "sys", prompt, timeout_s=timeout_s)


def test_fake_model_returns_outputs_in_order_and_keeps_requests() -> None:
    fake = FakeModel(["one", "two"])
    assert [fake.complete(_req("a")).text, fake.complete(_req("b")).text] == ["one", "two"]
    assert [r.prompt for r in fake.requests] == ["a", "b"]


def test_fake_model_raises_scripted_error_then_continues() -> None:
    fake = FakeModel([ModelError("boom"), "after"])
    with pytest.raises(ModelError, match="boom"):
        fake.complete(_req())
    assert fake.complete(_req()).text == "after"


def test_fake_model_exhausted_raises_unless_repeat() -> None:
    fake = FakeModel(["only"])
    fake.complete(_req())
    with pytest.raises(ModelError, match="scripted 1 outputs"):
        fake.complete(_req())
    repeat = FakeModel(["same"], when_exhausted="repeat")
    assert [repeat.complete(_req()).text for _ in range(3)] == ["same", "same", "same"]


def test_function_model_answers_from_the_request() -> None:
    model = FunctionModel(lambda r: r.prompt.upper(), name="upper")
    resp = model.complete(_req("abc"))
    assert (resp.text, resp.backend, resp.from_cache) == ("ABC", "upper", False)


def test_delay_longer_than_timeout_raises_model_timeout_within_budget() -> None:
    slow = FakeModel(["late"], delay_s=5.0)
    start = time.monotonic()
    with pytest.raises(ModelTimeout):
        slow.complete(_req(timeout_s=0.2))
    assert time.monotonic() - start < 1.0


def test_short_delay_still_answers() -> None:
    resp = FakeModel(["ok"], delay_s=0.05).complete(_req())
    assert resp.text == "ok"
    assert resp.latency_ms >= 50

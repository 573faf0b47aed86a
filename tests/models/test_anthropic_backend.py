"""The Anthropic backend over real HTTP against a fake /v1/messages on 127.0.0.1."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest

from vyre_memory.errors import ModelCallsForbidden, ModelError, ModelTimeout
from vyre_memory.models.anthropic_api import AnthropicBackend
from vyre_memory.models.base import ModelRequest, allow_model_requests

if TYPE_CHECKING:
    from conftest import FakeServer

REQ = ModelRequest("answer", "answer", "5", "Answer from sources.", "Q: port?", max_tokens=300, temperature=0.1)


def test_messages_call_sends_every_parameter_and_reads_usage(anthropic_server: FakeServer) -> None:
    backend = AnthropicBackend("sk-test", base_url=anthropic_server.url)
    with allow_model_requests():
        resp = backend.complete(REQ)
    backend.close()
    assert (resp.text, resp.model, resp.input_tokens, resp.output_tokens, resp.backend, resp.from_cache) == (
        "api says: Q: port?",
        "claude-haiku-4-5",
        12,
        5,
        "anthropic",
        False,
    )
    assert resp.cost_usd == pytest.approx((12 * 1.0 + 5 * 5.0) / 1e6)
    [request] = anthropic_server.requests
    assert request["path"] == "/v1/messages"
    headers = request["headers"]
    # SDK versions differ in how they send the key: x-api-key or a bearer token.
    assert headers.get("x-api-key") == "sk-test" or headers.get("authorization") == "Bearer sk-test"
    assert request["body"] == {
        "model": "claude-haiku-4-5",
        "max_tokens": 300,
        "system": "Answer from sources.",
        "messages": [{"role": "user", "content": "Q: port?"}],
        "thinking": {"type": "disabled"},
    }


def test_json_schema_goes_into_the_user_text(anthropic_server: FakeServer) -> None:
    backend = AnthropicBackend("sk-test", base_url=anthropic_server.url, model="claude-sonnet-4-6")
    req = ModelRequest("verify", "verify", "1", "", "Check.", json_schema={"type": "object"})
    with allow_model_requests():
        backend.complete(req)
    body = anthropic_server.requests[0]["body"]
    assert body["model"] == "claude-sonnet-4-6" and "system" not in body
    assert body["messages"][0]["content"].endswith('matching this JSON Schema:\n{"type": "object"}')


def test_slow_server_becomes_model_timeout_within_budget(anthropic_server: FakeServer) -> None:
    anthropic_server.delay_s = 3.0
    backend = AnthropicBackend("sk-test", base_url=anthropic_server.url)
    start = time.monotonic()
    with allow_model_requests(), pytest.raises(ModelTimeout, match=r"within 0\.5s"):
        backend.complete(ModelRequest("answer", "answer", "1", "", "Q", timeout_s=0.5))
    assert time.monotonic() - start < 2.0


def test_bad_key_says_to_check_the_key(anthropic_server: FakeServer) -> None:
    anthropic_server.status = 401
    anthropic_server.error_body = {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
    with allow_model_requests(), pytest.raises(ModelError, match="check ANTHROPIC_API_KEY"):
        AnthropicBackend("sk-wrong", base_url=anthropic_server.url).complete(REQ)


def test_server_error_carries_status_and_message(anthropic_server: FakeServer) -> None:
    anthropic_server.status = 400
    anthropic_server.error_body = {"type": "error", "error": {"type": "invalid_request_error", "message": "too long"}}
    with allow_model_requests(), pytest.raises(ModelError, match="HTTP 400: too long"):
        AnthropicBackend("sk-test", base_url=anthropic_server.url).complete(REQ)


def test_unreachable_server_is_a_model_error() -> None:
    with allow_model_requests(), pytest.raises(ModelError, match="cannot connect"):
        AnthropicBackend("sk-test", base_url="http://127.0.0.1:9").complete(REQ)


def test_calls_are_forbidden_when_switched_off(anthropic_server: FakeServer) -> None:
    with pytest.raises(ModelCallsForbidden):
        AnthropicBackend("sk-test", base_url=anthropic_server.url).complete(REQ)
    assert anthropic_server.requests == []

"""The OpenAI-compatible backend over real HTTP against a fake /v1/chat/completions on 127.0.0.1."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest

from vyre_memory.errors import ConfigError, ModelCallsForbidden, ModelError, ModelTimeout
from vyre_memory.models.base import ModelRequest, allow_model_requests
from vyre_memory.models.openai_compat import OpenAICompatBackend

if TYPE_CHECKING:
    from conftest import FakeServer

REQ = ModelRequest("rerank", "rerank", "2", "Rank.", "Q: port?", max_tokens=64, temperature=0.0)


def test_chat_completion_sends_system_and_user_and_costs_nothing(openai_server: FakeServer) -> None:
    backend = OpenAICompatBackend(f"{openai_server.url}/v1", "llama3.1:8b")
    with allow_model_requests():
        resp = backend.complete(REQ)
    backend.close()
    assert (resp.text, resp.model, resp.input_tokens, resp.output_tokens, resp.cost_usd, resp.backend) == (
        "local says: Q: port?",
        "llama3.1:8b",
        7,
        3,
        0.0,
        "openai",
    )
    [request] = openai_server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["body"] == {
        "model": "llama3.1:8b",
        "messages": [{"role": "system", "content": "Rank."}, {"role": "user", "content": "Q: port?"}],
        "max_tokens": 64,
        "temperature": 0.0,
    }


def test_slow_server_becomes_model_timeout_within_budget(openai_server: FakeServer) -> None:
    openai_server.delay_s = 3.0
    backend = OpenAICompatBackend(f"{openai_server.url}/v1", "qwen")
    start = time.monotonic()
    with allow_model_requests(), pytest.raises(ModelTimeout):
        backend.complete(ModelRequest("answer", "answer", "1", "", "Q", timeout_s=0.5))
    assert time.monotonic() - start < 2.0


def test_wrong_path_says_to_check_base_url(openai_server: FakeServer) -> None:
    with allow_model_requests(), pytest.raises(ModelError, match="base_url ends in /v1"):
        OpenAICompatBackend(f"{openai_server.url}/api", "qwen").complete(REQ)


def test_server_down_says_to_start_it() -> None:
    with allow_model_requests(), pytest.raises(ModelError, match="ollama serve"):
        OpenAICompatBackend("http://127.0.0.1:9/v1", "qwen").complete(REQ)


def test_missing_base_url_or_model_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="base_url"):
        OpenAICompatBackend("", "qwen")
    with pytest.raises(ConfigError, match="model"):
        OpenAICompatBackend("http://127.0.0.1:11434/v1", "")


def test_calls_are_forbidden_when_switched_off(openai_server: FakeServer) -> None:
    with pytest.raises(ModelCallsForbidden):
        OpenAICompatBackend(f"{openai_server.url}/v1", "qwen").complete(REQ)
    assert openai_server.requests == []

"""The request key covers every parameter; the switch forbids real calls; output parsing keeps the raw text."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from vyre_memory.errors import ModelCallsForbidden, ModelOutputError
from vyre_memory.models import base
from vyre_memory.models.base import (
    ModelRequest,
    allow_model_requests,
    check_model_requests_allowed,
    parse_json_output,
    render_user_prompt,
    request_key,
)

REQ = ModelRequest(
    purpose="answer",
    prompt_name="answer",
    prompt_version="3",
    system="You answer from sources.",
    prompt="Q: which port?",
    model="claude-haiku-4-5",
    max_tokens=512,
    temperature=0.0,
    json_schema={"type": "object", "properties": {"answer": {"type": "string"}}},
    timeout_s=20.0,
)

CHANGES: dict[str, Any] = {
    "purpose": "verify",
    "prompt_name": "verify",
    "prompt_version": "4",
    "system": "You check answers.",
    "prompt": "Q: which host?",
    "model": "claude-sonnet-4-5",
    "max_tokens": 513,
    "temperature": 0.2,
    "json_schema": {"type": "object"},
    "timeout_s": 21.0,
}


def test_changes_cover_every_request_field() -> None:
    assert set(CHANGES) == {f.name for f in dataclasses.fields(ModelRequest)}


@pytest.mark.parametrize("field", sorted(CHANGES))
def test_request_key_changes_when_any_field_changes(field: str) -> None:
    changed = dataclasses.replace(REQ, **{field: CHANGES[field]})
    assert request_key(changed, "anthropic") != request_key(REQ, "anthropic")


def test_request_key_changes_with_backend_and_schema_none() -> None:
    assert request_key(REQ, "anthropic") != request_key(REQ, "claude-cli")
    assert request_key(dataclasses.replace(REQ, json_schema=None), "x") != request_key(REQ, "x")


def test_request_key_is_stable_and_ignores_dict_order() -> None:
    same = dataclasses.replace(REQ, json_schema={"properties": {"answer": {"type": "string"}}, "type": "object"})
    assert request_key(same, "anthropic") == request_key(REQ, "anthropic")
    assert len(request_key(REQ, "anthropic")) == 64


def test_request_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        REQ.prompt = "other"  # type: ignore[misc]


def test_switch_is_off_under_tests_and_context_manager_restores_it() -> None:
    assert base.ALLOW_MODEL_REQUESTS is False
    with pytest.raises(ModelCallsForbidden, match="switched off"):
        check_model_requests_allowed("anthropic")
    with allow_model_requests():
        check_model_requests_allowed("anthropic")
    assert base.ALLOW_MODEL_REQUESTS is False


def test_render_user_prompt_adds_schema_instruction_only_with_schema() -> None:
    assert render_user_prompt(dataclasses.replace(REQ, json_schema=None)) == "Q: which port?"
    rendered = render_user_prompt(REQ)
    assert rendered.startswith("Q: which port?\n\nReply with one JSON value only")
    assert '"answer"' in rendered


def test_parse_json_output_accepts_fenced_json_and_keeps_raw_text_on_failure() -> None:
    assert parse_json_output('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_output(" [1, 2] ") == [1, 2]
    with pytest.raises(ModelOutputError) as info:
        parse_json_output("Sure! Here is the answer: 42")
    assert info.value.raw == "Sure! Here is the answer: 42"

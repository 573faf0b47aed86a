"""What a newcomer meets in the MCP server, through the SDK's in-memory client over a copy of the demo
history: an abstention from a one-project server says why (its scope) and how to widen it; bad
arguments are plain words; `k` out of bounds is refused, not quietly changed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.surfaces.test_mcp import call, run

from vyre_memory.memory import Memory
from vyre_memory.surfaces.mcp import create_server
from vyre_memory.surfaces.scopes import OWNER, Caller


def serve(home: Path, caller: Caller, body: Callable[[Client], Awaitable[None]]) -> None:
    run(create_server(lambda: Memory(home), caller), body)


async def error(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    return str(result.content[0].text)  # type: ignore[union-attr]


@pytest.fixture
def home(home_copy: Callable[[str | None], Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VYRE_MODEL_BACKEND", "none")
    return home_copy(None)


def test_a_server_started_outside_any_project_says_why_it_abstains(home: Path) -> None:
    async def body(client: Client) -> None:
        result = await call(client, "memory.ask", question="which file had the refund bug")
        assert result["abstained"] is True
        assert result["scope_hint"] == (
            "memory holds no session run in /home/sam/Downloads (the folder this server started in); to ask "
            "across every project, add it with --owner: claude mcp add vyre --scope user -- vyre mcp --owner "
            "(or pass project_cwds)"
        )

    serve(home, Caller("project", ("/home/sam/Downloads",)), body)


def test_a_project_server_names_its_folder_when_the_answer_is_elsewhere(home: Path, demo: Any) -> None:
    async def body(client: Client) -> None:
        result = await call(client, "memory.ask", question="which file had the refund bug")
        assert result["abstained"] is True
        assert result["scope_hint"].startswith(f"this server reads only sessions run in {demo.harlow} and below")
        answered = await call(client, "memory.ask", question="which file had the refund bug", project_cwds=[demo.shop])
        assert answered["abstained"] is False and "scope_hint" not in answered

    serve(home, Caller("project", (demo.harlow,)), body)


def test_an_owner_server_abstention_carries_no_scope_hint(home: Path) -> None:
    async def body(client: Client) -> None:
        result = await call(client, "memory.ask", question="what colour is the office kettle")
        assert result["abstained"] is True and "scope_hint" not in result

    serve(home, OWNER, body)


def test_bad_arguments_are_plain_words_without_library_links(home: Path) -> None:
    async def body(client: Client) -> None:
        text = await error(client, "memory.retrieve", question="refund", k="five")
        assert text == (
            'memory.retrieve: "k" must be a whole number (got "five"); '
            "see the tool's input schema (tools/list) for memory.retrieve"
        )
        missing = await error(client, "memory.ask")
        assert missing.startswith('memory.ask: "question" is required;')
        assert "pydantic" not in text + missing and "http" not in text + missing

    serve(home, OWNER, body)


@pytest.mark.parametrize("k", [-5, 0, 51])
def test_k_out_of_bounds_is_refused_with_the_bounds(home: Path, k: int) -> None:
    async def body(client: Client) -> None:
        text = await error(client, "memory.retrieve", question="refund webhook", k=k)
        said = f'"k" must be a whole number of passages from 1 to 50 (got {k})'
        assert text == f"Error executing tool memory.retrieve: {said}"
        ok = await call(client, "memory.retrieve", question="refund webhook", k=3)
        assert 0 < len(ok["passages"]) <= 3

    serve(home, OWNER, body)

"""The MCP server as a real `vyre mcp` subprocess, driven by the `mcp` SDK's own client (stdio and HTTP)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import MCPServer

TOOLS = {
    "memory.ask",
    "memory.retrieve",
    "memory.answer",
    "memory.facts.list",
    "memory.facts.show",
    "memory.facts.delete",
    "memory.graph.list",
    "memory.graph.show",
    "memory.graph.edit",
}


def stdio(demo: Any, home: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=demo.vyre[0],
        args=[*demo.vyre[1:], "mcp", "--home", str(home), *flags],
        env=demo.env(home),
        cwd=str(home),
    )


def run(params: StdioServerParameters | MCPServer | str, body: Callable[[Client], Awaitable[None]]) -> None:
    """Drive a server (a `vyre mcp` process, a URL, or a server object in memory) with the SDK's client."""

    async def main() -> None:
        async with Client(params, read_timeout_seconds=20) as client:
            await body(client)

    anyio.run(main)


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def test_owner_server_lists_tools_and_answers_with_sources(demo: Any, demo_home: Path) -> None:
    async def body(client: Client) -> None:
        tools = await client.list_tools()
        assert {t.name for t in tools.tools} == TOOLS
        assert all(t.description for t in tools.tools)
        result = await call(client, "memory.ask", question="which file had the refund bug")
        assert result["abstained"] is False and "app/billing/refunds.py" in result["answer"]
        assert result["sources"] and result["sources"][0]["project"] == "shop-api"
        personal = await call(client, "memory.ask", question="what's my wife's name")
        assert personal["answer"] == "Your wife is Dani."
        fast = await call(client, "memory.answer", question="what's my son's name")
        assert fast["answer"] == "Your son is Emrys." and fast["via"] == "fact"
        facts = await call(client, "memory.facts.list", relation="wife")
        assert [f["object"] for f in facts["facts"]] == ["Dani"]
        shown = await call(client, "memory.facts.show", fact_id=facts["facts"][0]["id"][:10])
        assert shown["sources"][0]["quote"]
        graph = await call(client, "memory.graph.list", kind="person")
        assert {"Dani", "Emrys", "Bram"} <= {e["name"] for e in graph["entities"]}

    run(stdio(demo, demo_home, "--owner"), body)


def test_agent_server_refuses_a_personal_question(demo: Any, demo_home: Path) -> None:
    async def body(client: Client) -> None:
        result = await call(client, "memory.ask", question="what's my wife's name")
        assert result["abstained"] is True and result["answer"] is None
        assert "dani" not in json.dumps(result).lower()
        fast = await call(client, "memory.answer", question="what's my wife's name")
        assert fast["abstained"] is True and "dani" not in json.dumps(fast).lower()
        for tool, args in (
            ("memory.facts.list", {}),
            ("memory.graph.list", {}),
            ("memory.graph.edit", {"op": "alias_add", "name": "Dani", "alias": "D"}),
        ):
            refused = await client.call_tool(tool, args)
            assert refused.is_error
            text = refused.content[0].text  # type: ignore[union-attr]
            assert "agent" in text and "owner token" in text and "dani" not in text.lower()
        work = await call(client, "memory.ask", question="which file had the refund bug")
        assert "app/billing/refunds.py" in (work["answer"] or "")
        passages = await call(
            client, "memory.retrieve", question="portal login for harlow staff", project_cwds=[demo.harlow], k=20
        )
        assert all(p["cwd"] == demo.shop for p in passages["passages"])

    run(stdio(demo, demo_home, "--agent-project", demo.shop), body)


def test_project_server_asks_within_its_folder_and_errors_say_what_to_do(demo: Any, demo_home: Path) -> None:
    async def body(client: Client) -> None:
        passages = await call(client, "memory.retrieve", question="refund bug stripe", k=20)
        assert passages["passages"] and all(p["cwd"] == demo.harlow for p in passages["passages"])
        missing = await client.call_tool("memory.facts.show", {"fact_id": "ffffffffffff"})
        assert missing.is_error and "vyre facts list" in missing.content[0].text  # type: ignore[union-attr]
        bad = await client.call_tool("memory.ask", {"question": "  "})
        assert bad.is_error and '"question" is required' in bad.content[0].text  # type: ignore[union-attr]

    run(stdio(demo, demo_home, "--project", demo.harlow), body)


def test_streamable_http_transport_lists_tools_and_asks(demo: Any, demo_home: Path) -> None:
    port = demo.port()
    proc = subprocess.Popen(
        [*demo.vyre, "mcp", "--transport", "http", "--port", str(port), "--owner", "--home", str(demo_home)],
        env=demo.env(demo_home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.05)

        async def body(client: Client) -> None:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            result = await call(client, "memory.ask", question="which file had the refund bug")
            assert "app/billing/refunds.py" in result["answer"]

        run(f"http://127.0.0.1:{port}/mcp", body)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_server_scope_flags_then_config_then_the_folder_it_starts_in() -> None:
    from vyre_memory.surfaces.scopes import OWNER, Caller, mcp_caller

    assert mcp_caller({}, project="/w/shop", owner=False, agent_projects=()) == Caller("project", ("/w/shop",))
    assert mcp_caller({}, project=None, owner=True, agent_projects=()) == OWNER
    assert mcp_caller({}, project=None, owner=False, agent_projects=("/w/a",)) == Caller("agent", ("/w/a",))
    assert mcp_caller({"mcp": {"scope": "owner"}}, project="/w/shop", owner=False, agent_projects=()) == OWNER
    configured = {"mcp": {"agent_projects": ["/w/b"]}}
    assert mcp_caller(configured, project="/w/shop", owner=False, agent_projects=()) == Caller("agent", ("/w/b",))

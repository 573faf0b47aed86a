"""The MCP server (`vyre mcp`): memory's tools for Claude Code and any MCP client, over stdio or
streamable HTTP. A thin layer over `Memory` (through surfaces/scopes.py); no SQL and no prompt text.

Guarantees:
- tools: `memory.ask`, `memory.retrieve`, `memory.answer`, `memory.facts.list`, `memory.facts.show`,
  `memory.facts.delete`, `memory.graph.list`, `memory.graph.show`, `memory.graph.edit`
  (dotted names are valid MCP tool names: the SDK accepts `[A-Za-z0-9._-]{1,128}`);
- the whole server has one scope, fixed when it starts: the project folder it was started in
  (questions default to it), the person's own (`--owner` or `[mcp] scope = "owner"`), or an agent
  granted projects (`--agent-project` or `[mcp] agent_projects`), which never sees personal facts
  or the graph;
- a failure comes back as an MCP tool error (`isError: true`) whose text says what to do;
- streamable HTTP binds loopback only: a remote client uses `vyre serve` with tokens instead.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from ..config import Config
from ..errors import ConfigError, VyreError
from ..memory import Memory
from .background import CatchUp
from .scopes import Caller, Gate, ScopedMemory, is_loopback, log, mcp_caller

T = TypeVar("T")

INSTRUCTIONS = (
    "Vyre Memory answers questions about the person's past AI-assistant sessions: decisions, files, bugs, "
    "people and projects. Call memory.ask with the question as the person would say it; it returns one cited "
    "answer, or abstained=true with what memory does know (say 'Not sure.' then). memory.retrieve gives the "
    "passages themselves; memory.answer is the instant facts-only path."
)


class _Server(MCPServer):
    """MCPServer whose argument errors are plain words: which argument, what it must be, no library links."""

    close_memory: Callable[[], None]  # closes the memory, if it was opened, once no call (or catch-up) holds it

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_errors(name, exc.__cause__)) from exc.__cause__
            raise


def argument_errors(tool: str, exc: ValidationError) -> str:
    """'memory.retrieve: "k" must be a whole number (got "five")' and the like, one per bad argument."""
    said = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"]) or "arguments"
        if err["type"] == "missing":
            said.append(f'"{where}" is required')
            continue
        want = _WANTS.get(str(err["type"]), str(err["msg"]).lower().replace("input should be", "must be"))
        got = json.dumps(err.get("input"), ensure_ascii=False, default=str)
        said.append(f'"{where}" {want} (got {got[:60]})')
    return f"{tool}: " + "; ".join(said) + f"; see the tool's input schema (tools/list) for {tool}"


_WANTS = {
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "string_type": "must be text",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "list_type": "must be a list",
    "dict_type": "must be an object",
}


def create_server(memory_factory: Callable[[], Memory], caller: Caller, *, warm: bool = False) -> _Server:
    """An MCP server over one `Memory`, scoped to `caller`. The memory opens on the first tool call, or
    with `warm` at once, its indexes loading in the background while the client starts."""
    server = _Server(name="vyre-memory", instructions=INSTRUCTIONS, version="0.1.0")
    gate: list[Gate] = []
    opening = threading.Lock()

    def scoped() -> ScopedMemory:
        with opening:
            if not gate:
                gate.append(Gate(memory_factory()))
        return ScopedMemory(gate[0], caller)

    def close_memory() -> None:
        with opening:
            if gate:
                gate[0].close()

    server.close_memory = close_memory

    def open_and_warm() -> None:
        try:
            gate = scoped().gate
            gate.warm()
            CatchUp(gate, report=lambda line: print(f"vyre memory: {line}", file=sys.stderr, flush=True)).start()
        except Exception as exc:  # the first tool call opens it again and says what is wrong
            log.warning("could not open memory ahead of the first tool call: %s", exc)

    if warm:
        threading.Thread(target=open_and_warm, name="vyre-open", daemon=True).start()

    def run(fn: Callable[[ScopedMemory], T]) -> T:
        try:
            return fn(scoped())
        except VyreError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(name="memory.ask")
    def ask(
        question: str,
        project_cwds: list[str] | None = None,
        context: dict[str, str] | None = None,
        now: str | None = None,
    ) -> dict[str, Any]:
        """Ask memory one question; get one cited answer or an abstention ("Not sure.") with what memory knows.

        project_cwds: only sessions run in these folders (default: this server's scope).
        context: {"project": folder, "thread": session id} of the asking session. now: ISO time of the question.
        """
        result = run(lambda s: s.ask(question, project_cwds=project_cwds, context=context, now=now))
        if result["abstained"] and caller.kind == "project" and not project_cwds:
            result["scope_hint"] = run(lambda s: scope_hint(s, caller))
        return result

    @server.tool(name="memory.retrieve")
    def retrieve(
        question: str, project_cwds: list[str] | None = None, k: int = 8, now: str | None = None
    ) -> dict[str, Any]:
        """The ranked passages (turns) an answer to this question would be read from, under this server's scope."""
        return run(lambda s: s.retrieve(question, project_cwds=project_cwds, k=k, now=now))

    @server.tool(name="memory.answer")
    def answer(question: str, now: str | None = None) -> dict[str, Any]:
        """The instant path: a personal question answered from the person's facts, no model; else an abstention."""
        return run(lambda s: s.answer(question, now=now))

    @server.tool(name="memory.facts.list")
    def facts_list(subject: str | None = None, relation: str | None = None) -> dict[str, Any]:
        """Personal facts memory holds (owner scope only), optionally of one subject or relation (e.g. "wife")."""
        return run(lambda s: s.facts(subject, relation))

    @server.tool(name="memory.facts.show")
    def facts_show(fact_id: str) -> dict[str, Any]:
        """One fact and every turn it stands on (an id prefix of 6+ characters is enough)."""
        return run(lambda s: s.fact(fact_id))

    @server.tool(name="memory.facts.delete")
    def facts_delete(fact_id: str) -> dict[str, Any]:
        """Delete a wrong fact; it is not read again from the same turns."""
        return run(lambda s: s.delete_fact(fact_id))

    @server.tool(name="memory.graph.list")
    def graph_list(kind: str | None = None) -> dict[str, Any]:
        """People, projects, organisations and decisions, and the edges between them (owner scope only)."""
        return run(lambda s: s.graph(kind))

    @server.tool(name="memory.graph.show")
    def graph_show(name: str) -> dict[str, Any]:
        """One entity by name, alias or id, with its edges and the turns they stand on."""
        return run(lambda s: s.entity(name))

    @server.tool(name="memory.graph.edit")
    def graph_edit(
        op: str,
        name: str,
        new_name: str | None = None,
        other: str | None = None,
        alias: str | None = None,
        pinned: bool = True,
    ) -> dict[str, Any]:
        """Edit an entity: op is rename (new_name), merge (other into name), alias_add / alias_remove (alias),
        delete, or pin (pinned). Edits survive re-derives."""
        return run(lambda s: s.edit(op, name, new_name=new_name, other=other, alias=alias, pinned=pinned))

    return server


def scope_hint(scoped: ScopedMemory, caller: Caller) -> str:
    """Why a project-scoped server may not know: it reads only the sessions of the folder it started in."""
    folder = caller.projects[0] if caller.projects else "?"
    held = scoped.gate.call(scoped.mem.sessions, project_cwds=list(caller.projects), limit=1)
    where = (
        f"memory holds no session run in {folder} (the folder this server started in)"
        if not held
        else f"this server reads only sessions run in {folder} and below (the folder it started in)"
    )
    return (
        f"{where}; to ask across every project, add it with --owner: "
        "claude mcp add vyre --scope user -- vyre mcp --owner (or pass project_cwds)"
    )


def serve(
    home: Path | None = None,
    *,
    transport: str = "stdio",
    project: str | None = None,
    owner: bool = False,
    agent_projects: tuple[str, ...] = (),
    host: str = "127.0.0.1",
    port: int = 8766,
) -> None:
    """Run the MCP server until its client goes away (stdio) or it is interrupted (HTTP)."""
    config = Config.load(home)
    caller = mcp_caller(config.raw, project=project, owner=owner, agent_projects=agent_projects)
    server = create_server(lambda: Memory(config=config), caller, warm=True)
    if transport not in ("stdio", "http"):
        raise ConfigError(f"unknown transport {transport!r}; use stdio or http")
    if transport == "http" and not is_loopback(host):
        raise ConfigError(
            f"the MCP server over HTTP binds loopback only (not {host}); for remote clients run "
            "`vyre serve --host ...` with [tokens] in config.toml"
        )
    try:
        if transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=port)
    finally:
        server.close_memory()

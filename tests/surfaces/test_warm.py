"""Servers load the indexes as they start, so the first question does not wait for them."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from vyre_memory.memory import Memory
from vyre_memory.surfaces.mcp import create_server
from vyre_memory.surfaces.scopes import OWNER, Gate


def test_gate_warm_loads_the_passage_directory_and_the_vectors(home_copy: Callable[..., Path]) -> None:
    with Memory(home_copy()) as mem:
        retriever = mem.retriever
        assert len(retriever.directory.ids) == 0 and retriever.vectors.index is None
        Gate(mem).warm().join(timeout=30)
        assert len(retriever.directory.ids) == mem.store.passage_count()
        assert retriever.vectors.index is not None and len(retriever.vectors.index) > 0


def test_warm_also_builds_the_moments_keys_and_opens_the_second_connection(home_copy: Callable[..., Path]) -> None:
    from vyre_memory.read.derive import MOMENT_KINDS, moments_of

    with Memory(home_copy()) as mem:
        retriever = mem.retriever
        kept = {kind.key: len(moments_of(mem.store, kind)) for kind in MOMENT_KINDS}
        assert any(kept.values())  # the demo history has some moments to build keys of
        assert not any(len(keys.moments) for keys in retriever.moment_keys.values())
        mem.warm()
        assert {key: len(keys.moments) for key, keys in retriever.moment_keys.items()} == kept
        assert retriever.side._store is not None  # no connection is opened at the first question


def test_the_mcp_server_opens_its_memory_once_in_the_background(home_copy: Callable[..., Path]) -> None:
    home = home_copy()
    opened: list[Memory] = []

    def factory() -> Memory:
        time.sleep(0.3)  # a first tool call comes while the background open is still under way
        opened.append(Memory(home))
        return opened[-1]

    server = create_server(factory, OWNER, warm=True)
    time.sleep(0.05)
    anyio.run(server.call_tool, "memory.facts.list", {})  # waits at the gate for the warm-up, if it runs
    assert len(opened) == 1
    mem = opened[0]
    deadline = time.monotonic() + 10  # the warm-up may come after that first call: wait for it
    while time.monotonic() < deadline and not (mem._retriever and len(mem._retriever.vectors.index or [])):
        time.sleep(0.02)
    assert mem._retriever is not None and len(mem._retriever.directory.ids) == mem.store.passage_count()
    anyio.run(server.call_tool, "memory.facts.list", {})  # returns once the warm-up has let go of the gate
    server.close_memory()  # through the gate: never under the catch-up's query
    with pytest.raises(ToolError, match="closed"):
        anyio.run(server.call_tool, "memory.facts.list", {})

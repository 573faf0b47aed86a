"""Servers load the indexes as they start, so the first question does not wait for them."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

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


def test_the_mcp_server_opens_its_memory_once_in_the_background(home_copy: Callable[..., Path]) -> None:
    home = home_copy()
    opened: list[Memory] = []

    def factory() -> Memory:
        opened.append(Memory(home))
        return opened[-1]

    create_server(factory, OWNER, warm=True)
    deadline = time.monotonic() + 30
    while not (opened and len(opened[0].retriever.vectors.index or [])) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # the warm-up's last step, then its gate is free
    assert len(opened) == 1 and len(opened[0].retriever.directory.ids) == opened[0].store.passage_count()
    opened[0].close()

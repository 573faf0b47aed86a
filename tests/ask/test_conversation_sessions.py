"""The nearest turns within the best conversations are one more hybrid list; a coding agent's sessions never."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import locomo_file
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask.configs import get_config
from vyre_memory.ask.retrieve import Retriever

NOW = datetime(2024, 1, 1, tzinfo=UTC)
QUESTION = "what did Maya plant in the garden?"


def _conversation(path: Path) -> Path:
    garden = [
        ("Maya", "Spent the whole weekend in the garden, finally."),
        ("Sam", "Nice! What went in?"),
        ("Maya", "Tomatoes along the fence, and a row of basil by the steps."),
        ("Sam", "Sounds lovely, send photos."),
    ]
    return locomo_file(path / "conv.json", ("Maya", "Sam"), [("2:00 pm on 10 June, 2023", garden)], filler=30)


def _coding(root: Path) -> Path:
    work = TranscriptWriter(root / "-home-sam-code-garden" / "a.jsonl", "/home/sam/code/garden")
    for i in range(12):
        work.user(f"the garden planner test {i} fails on the plant list")
        work.assistant(f"Fixed plant list case {i} in src/planner.py.")
    return root


@pytest.fixture()
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Memory:
    monkeypatch.setenv("VYRE_EMBEDDER", "hash")
    mem = Memory(tmp_path / "home", user_name="you")
    yield mem
    mem.close()


def _by_sessions(memory: Memory) -> dict[str, str]:
    """uuid -> session of each passage the sessions list found."""
    found = memory.retrieve(QUESTION, k=80, now=NOW, config="hybrid")
    return {p.uuids[0]: p.session for p in found if "sessions" in p.via}


def test_the_best_conversation_lends_its_nearest_turns(memory: Memory, tmp_path: Path) -> None:
    memory.ingest([_conversation(tmp_path)], format="locomo")
    assert get_config("hybrid").session_turns_conversations
    found = _by_sessions(memory)
    assert found.get("conv:D2:3") == "locomo-conv-s2"  # the answer, which says neither "plant" nor "garden"


def test_a_coding_agents_sessions_never_lend_theirs(memory: Memory, tmp_path: Path) -> None:
    memory.ingest([_coding(tmp_path / "projects")])
    assert not memory.store.has_conversations({"claude-code", "codex"})
    assert _by_sessions(memory) == {}
    assert memory.retriever.session_keys.requests == {}  # and their keys are never built for it


def test_beside_a_coding_history_only_the_conversations_are_read(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.ingest([_coding(tmp_path / "projects")])
    memory.ingest([_conversation(tmp_path)], format="locomo")
    assert memory.store.has_conversations({"claude-code", "codex"})
    read: list[list[str]] = []
    inner = Retriever._session_turns

    def spy(self: Retriever, cache: Any, query: Any, scope: Any, sessions: list[str], horizon: str) -> Any:
        read.append(list(sessions))
        return inner(self, cache, query, scope, sessions, horizon)

    monkeypatch.setattr(Retriever, "_session_turns", spy)
    _by_sessions(memory)
    # the coding session's key matches "garden" and "plant" too, and is left out
    assert read == [["locomo-conv-s2", "locomo-conv-s1"]]

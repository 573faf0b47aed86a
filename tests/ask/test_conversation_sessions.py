"""The conversations' own hybrid lists: the nearest turns within the best conversations, and the conversations'
turns nearest the question moved toward the best passage so far (pseudo-relevance feedback); a coding agent's
sessions are never in either."""

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


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[list[tuple[int, float]]]:
    """Every list `Retriever.<name>` returns, as it returns them."""
    got: list[list[tuple[int, float]]] = []
    inner = getattr(Retriever, name)

    def spy(self: Retriever, *args: Any, **kwargs: Any) -> Any:
        got.append(inner(self, *args, **kwargs))
        return got[-1]

    monkeypatch.setattr(Retriever, name, spy)
    return got


def test_feedback_finds_what_the_best_passage_speaks_of_in_other_words(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    traffic = [("Sam", f"Traffic on the bridge was awful again, day {i} of roadworks.") for i in range(1, 25)]
    planted = [("Maya", "The garden is done: we planted tomatoes and basil this weekend."), ("Sam", "Lovely!")]
    grown = [("Sam", "How is everything growing?"), ("Maya", "Tomatoes and basil sprouted already, tall and green.")]
    days = ["1:00 pm on 10 May, 2023", "2:00 pm on 10 June, 2023", "3:00 pm on 1 July, 2023"]
    sessions = list(zip(days, [traffic, planted, grown], strict=True))
    memory.ingest([locomo_file(tmp_path / "conv.json", ("Maya", "Sam"), sessions, filler=30)], format="locomo")
    feedback, dense = _spy(monkeypatch, "_conversation_feedback"), _spy(monkeypatch, "_dense")
    found = memory.retrieve("what got planted in the garden?", k=80, now=NOW, config="hybrid")
    sprouted = next(p for p in found if p.uuids == ("conv:D4:2",))  # shares no word with the question
    assert "feedback" in sprouted.via
    assert [pid for pid, _ in feedback[0]].index(sprouted.id) <= 2  # near the top of the feedback list ...
    assert sprouted.id not in [pid for pid, _ in dense[0][:20]]  # ... far down the question's own


def test_a_coding_agents_sessions_get_no_feedback_list(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.ingest([_coding(tmp_path / "projects")])
    feedback = _spy(monkeypatch, "_conversation_feedback")
    found = memory.retrieve(QUESTION, k=80, config="hybrid")  # now: after both histories
    assert found and feedback == [] and not any("feedback" in p.via for p in found)
    memory.ingest([_conversation(tmp_path)], format="locomo")  # beside a conversation: only its turns are in it
    found = memory.retrieve(QUESTION, k=80, config="hybrid")  # now: after both histories
    assert feedback and {p.session for p in found if "feedback" in p.via} <= {"locomo-conv-s1", "locomo-conv-s2"}

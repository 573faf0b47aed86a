"""Ingesting the open worlds accounts for every session and every turn of the rendered files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from tests.conftest import WORLDS, need

from vyre_memory import Memory


def _independent_counts(projects: Path) -> tuple[int, Counter[str]]:
    """Count sessions and turns straight from the JSON lines, without the project's parser."""
    files = list(projects.rglob("*.jsonl"))
    sessions = len(files)
    kinds: Counter[str] = Counter()
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r["type"] == "user":
                content = r["message"]["content"]
                if r.get("isCompactSummary"):
                    kinds["compact_summary"] += 1
                elif isinstance(content, str):
                    kinds["agent_prompt" if r.get("isSidechain") else "typed"] += 1
                else:
                    kinds["tool_output"] += sum(1 for b in content if b["type"] == "tool_result")
            elif r["type"] == "assistant":
                for b in r["message"]["content"]:
                    kinds["tool_call" if b["type"] == "tool_use" else b["type"]] += 1
            elif r["type"] == "system" and r.get("subtype") == "compact_boundary":
                kinds["meta"] += 1
    kinds["assistant"] = kinds.pop("text", 0)
    return sessions, kinds


@pytest.mark.parametrize(
    ("world", "sessions_by_kind"),
    [
        ("open", {"interactive": 44, "subagent": 5, "headless": 1, "memory": 2}),
        ("open2", {"interactive": 37, "subagent": 4, "headless": 3, "memory": 2}),
    ],
)
def test_world_ingest_accounts_for_every_session_and_turn(home: Path, world: str, sessions_by_kind: dict) -> None:
    projects = need(WORLDS / world / "home" / ".claude" / "projects")
    n_sessions, turn_kinds = _independent_counts(projects)
    with Memory(home) as mem:
        report = mem.ingest([projects])
        stats = mem.stats()
    assert report.problems == []
    assert stats["sessions"]["by_kind"] == sessions_by_kind
    assert stats["sessions"]["total"] == n_sessions
    assert stats["turns"]["by_kind"] == dict(turn_kinds)
    assert stats["turns"]["total"] == sum(turn_kinds.values())


def test_world_pinned_counts(home: Path) -> None:
    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    with Memory(home) as mem:
        mem.ingest([projects])
        stats = mem.stats()
    assert stats["turns"]["by_kind"] == {
        "agent_prompt": 5,
        "assistant": 246,
        "tool_call": 423,
        "tool_output": 423,
        "typed": 236,
    }
    assert stats["turns"]["by_role"] == {"assistant": 669, "tool": 423, "user": 241}


def test_reingesting_a_world_adds_nothing(home: Path) -> None:
    projects = need(WORLDS / "open2" / "home" / ".claude" / "projects")
    with Memory(home) as mem:
        first = mem.ingest([projects])
        version = mem.store.corpus_version()
        again = mem.ingest([projects])
        assert first.new_turns > 0
        assert (again.files_read, again.new_turns, again.new_sessions) == (0, 0, 0)
        assert mem.store.corpus_version() == version


def test_subagents_in_worlds_are_linked_to_their_spawning_call(home: Path) -> None:
    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    with Memory(home) as mem:
        mem.ingest([projects])
        subagents = mem.sessions(kind="subagent")
        for s in subagents:
            parent_turns = mem.turns(s.parent_session or "")
            call_ids = {t.uuids[0] for t in parent_turns if t.kind == "tool_call"}
            assert s.spawn_tool_use_id, s.id
            assert call_ids  # the parent session is there, with its tool calls
            assert s.cwd and s.agent_type == "general-purpose"

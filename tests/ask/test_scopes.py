"""Scopes are part of every query: nothing outside them comes back, through the API or the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.conftest import WORLDS, need

from vyre_memory import Memory
from vyre_memory.ingest.labels import is_within
from vyre_memory.surfaces.cli import main

NOW = datetime(2026, 10, 9, 16, 0, tzinfo=UTC)
QUESTIONS = [
    "which file had the webhook signature bug",
    "what's my wife's name",
    "where do i live",
    "what did we decide about the login",
    "why were emails sent twice",
    "what did we ship last week",
    "who is marcus",
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    home = tmp_path_factory.mktemp("scopes")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VYRE_EMBEDDER", "hash")
        mem = Memory(home, user_name="Joel")
        mem.ingest([projects])
    yield mem
    mem.close()


def _projects(mem: Memory) -> list[str]:
    return sorted({s.cwd for s in mem.sessions() if s.cwd and "/code/" in s.cwd})


def test_project_scope_never_returns_another_projects_passage(world: Memory) -> None:
    for project in _projects(world):
        for q in QUESTIONS:
            for p in world.retrieve(q, project_cwds=[project], k=10, now=NOW):
                assert p.cwd and is_within(p.cwd, project), (project, q, p.cwd)


def test_agent_scope_never_returns_personal_facts_or_other_projects(world: Memory) -> None:
    granted = [p for p in _projects(world) if p.endswith("ledgerline-api")]
    assert granted
    for q in QUESTIONS:
        passages = world.retrieve(q, agent_projects=granted, k=10, now=NOW)
        assert all(p.cwd and is_within(p.cwd, granted[0]) for p in passages)
        assert all("facts" not in p.via for p in passages)
        answer = world.answer(q, agent_projects=granted, now=NOW)
        assert answer.abstained and answer.known == () and answer.sources == ()
        result = world.ask(q, agent_projects=granted, now=NOW)
        assert result.via != "fact"
        allowed = {s.id for s in world.sessions(project_cwds=granted)}
        assert all(s.session in allowed for s in result.sources)


def test_memory_own_ask_threads_are_never_retrieved(world: Memory) -> None:
    own = {s.id for s in world.sessions(kind="memory")}
    assert own
    for q in QUESTIONS:
        assert not {p.session for p in world.retrieve(q, k=10, now=NOW)} & own


def test_cli_retrieve_keeps_to_the_project(world: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _projects(world)[0]
    result = CliRunner().invoke(
        main,
        [
            "retrieve",
            QUESTIONS[0],
            "--project-cwd",
            project,
            "--json",
            "--now",
            "2026-10-09T16:00:00Z",
            "--home",
            str(world.config.home),
        ],
    )
    assert result.exit_code == 0, result.output
    passages = json.loads(result.output)
    assert passages and all(is_within(p["cwd"], project) for p in passages)


def test_scope_folders_match_whole_components(tmp_path: Path, home: Path) -> None:
    """/home/u/code/api must not admit /home/u/code/api-v2."""
    from vyre_memory.contract import Scope

    assert Scope.of(["/home/u/code/api"]).folders() == ("/home/u/code/api",)
    assert is_within("/home/u/code/api/sub", "/home/u/code/api")
    assert not is_within("/home/u/code/api-v2", "/home/u/code/api")

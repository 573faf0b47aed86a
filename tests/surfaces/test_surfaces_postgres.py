"""The surfaces over a shared PostgreSQL store: `vyre serve` and `vyre mcp` (stdio, driven by the MCP SDK's
client) as real processes whose config.toml names a PostgreSQL database the test suite started. An agent
scoped to one project asks and retrieves, also naming another project, and never receives a row of it or
a personal fact; the owner, asking the same, does see the other project (so the scope is what hides it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.pg_server import PgServer
from tests.surfaces.conftest import CONFIG, DEMO, Server, start_http
from tests.surfaces.test_mcp import call, run, stdio

QUESTION = "what did we decide about the portal login for harlow staff"


@pytest.fixture(scope="module")
def pg_home(pg_server: PgServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose config.toml points at a fresh PostgreSQL database holding the demo history."""
    from vyre_memory.memory import Memory

    url = pg_server.create_database("surfaces")
    home = tmp_path_factory.mktemp("pg-surfaces") / "vyre-home"
    home.mkdir()
    (home / "config.toml").write_text(f'database = "{url}"\n' + CONFIG, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VYRE_EMBEDDER", "hash")
        mp.setenv("VYRE_MODEL_BACKEND", "none")
        with Memory(home) as mem:
            assert mem.store.location.startswith("postgresql://")
            report = mem.ingest([DEMO])
    assert report.new_turns > 0, report.problems
    assert not (home / "memory.db").exists()
    return home


@pytest.fixture(scope="module")
def pg_http(pg_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("pg-serve") / "vyre-home"
    shutil.copytree(pg_home, home)  # the config (tokens, database), not the data: that is in PostgreSQL
    server = start_http(home)
    yield server
    server.stop()


def test_http_agent_token_never_receives_another_projects_rows_postgres(pg_http: Server, demo: Any) -> None:
    with pg_http.client(demo.agent_token) as agent, pg_http.client(demo.owner_token) as owner:
        question = {"question": QUESTION, "k": 20}
        seen = owner.post("/v1/retrieve", json=question).json()["passages"]
        assert {demo.shop, demo.harlow} <= {p["cwd"] for p in seen}  # the owner's scope holds both
        for ask in (
            question,
            {**question, "project_cwds": [demo.harlow]},
            {**question, "context": {"project": demo.harlow}},
        ):
            passages = agent.post("/v1/retrieve", json=ask).json()["passages"]
            assert {p["cwd"] for p in passages} <= {demo.shop}, passages  # naming harlow narrows to nothing
            assert passages or ask is not question
            result = agent.post("/v1/ask", json=ask).json()
            assert all(s["cwd"] == demo.shop for s in result["sources"]), result
            assert "harlow" not in json.dumps(result).lower()
        work = agent.post("/v1/ask", json={"question": "which file had the refund bug"}).json()
        assert "app/billing/refunds.py" in (work["answer"] or json.dumps(work["known"]))
        personal = agent.post("/v1/ask", json={"question": "what's my wife's name"}).json()
        assert personal["abstained"] is True and "dani" not in json.dumps(personal).lower()
        assert (
            owner.post("/v1/ask", json={"question": "what's my wife's name"}).json()["answer"] == "Your wife is Dani."
        )
        assert agent.get("/v1/facts").status_code == 403
    assert not (pg_http.home / "memory.db").exists()  # every row came from PostgreSQL


def test_mcp_agent_server_never_receives_another_projects_rows_postgres(pg_home: Path, demo: Any) -> None:
    async def agent(client: Client) -> None:
        for args in ({}, {"project_cwds": [demo.harlow]}):
            passages = await call(client, "memory.retrieve", question=QUESTION, k=20, **args)
            assert {p["cwd"] for p in passages["passages"]} <= {demo.shop}  # naming harlow narrows to nothing
            assert passages["passages"] or args
            result = await call(client, "memory.ask", question=QUESTION, **args)
            assert all(s["cwd"] == demo.shop for s in result["sources"]) and "harlow" not in json.dumps(result).lower()
        personal = await call(client, "memory.ask", question="what's my wife's name")
        assert personal["abstained"] is True and "dani" not in json.dumps(personal).lower()
        refused = await client.call_tool("memory.facts.list", {})
        assert refused.is_error

    async def owner(client: Client) -> None:
        passages = await call(client, "memory.retrieve", question=QUESTION, k=20)
        assert {demo.shop, demo.harlow} <= {p["cwd"] for p in passages["passages"]}
        told = await call(client, "memory.ask", question="what's my wife's name")
        assert told["answer"] == "Your wife is Dani."

    run(stdio(demo, pg_home, "--agent-project", demo.shop), agent)
    run(stdio(demo, pg_home, "--owner"), owner)


def test_serve_keeps_answering_while_another_machine_ingests_into_the_database_postgres(
    pg_http: Server, pg_home: Path, demo: Any, tmp_path: Path
) -> None:
    """A second machine's `vyre ingest` writes into the database `vyre serve` reads: the server answers
    health, retrieve and ask all along, and afterwards finds what the other machine wrote."""
    from vyre_memory.eval.synth import write_history

    tree = tmp_path / "projects"
    list(write_history(tree, sessions=12, seed=11))
    other = tmp_path / "other-machine"
    other.mkdir()
    shutil.copy(pg_home / "config.toml", other / "config.toml")
    env = {**os.environ, "VYRE_HOME": str(other), "VYRE_EMBEDDER": "hash", "VYRE_MODEL_BACKEND": "none"}
    cli = [sys.executable, "-c", "from vyre_memory.surfaces.cli import main; main()"]
    ingest = subprocess.Popen([*cli, "ingest", "-q", str(tree)], env=env, stderr=subprocess.PIPE)
    rounds = 0
    with pg_http.client(demo.owner_token) as owner:
        while ingest.poll() is None or rounds == 0:
            assert owner.get("/v1/health").status_code == 200
            assert owner.post("/v1/retrieve", json={"question": QUESTION, "k": 5}).json()["passages"]
            assert owner.post("/v1/ask", json={"question": "which file had the refund bug"}).status_code == 200
            rounds += 1
        _, err = ingest.communicate(timeout=300)
        assert ingest.returncode == 0, err.decode()[-2000:]
        first = next(p for p in sorted(tree.rglob("*.jsonl")) if p.parent.name != "subagents")
        records = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
        said = next(r for r in records if r["type"] == "user" and isinstance(r["message"]["content"], str))
        question = {"question": said["message"]["content"][:200], "k": 10}
        found = owner.post("/v1/retrieve", json=question).json()["passages"]
    assert rounds >= 2, "the ingest ended before the server was asked twice: make the history larger"
    assert any(p["session"] == said["sessionId"] for p in found), found  # the other machine's turns are read

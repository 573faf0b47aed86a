"""An agent granted a project never learns the person's life from the asides typed in that project's sessions.

The world: a granted project whose typed turns mix generated asides (names, places, streets, pets, relatives, in
several phrasings: `asides_world.py`) into work sentences, an assistant that answers each turn, and a model that
echoes everything it is sent (in process a FunctionModel, across processes an OpenAI-compatible server on
127.0.0.1 that records every request). On every path an agent has (Python API, CLI `--agent-project`, HTTP with an
agent token, MCP `--agent-project`), no word of an aside reaches the agent or the model, while the work sentences of
the same turns still do. The person's own scope is unchanged: it still reads the asides.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from tests.models.conftest import FakeServer, _chat_reply, _serve
from tests.reliability.asides_world import Turn, mixed_turn
from tests.reliability.conftest import VYRE, TranscriptWriter, server_env, start_http

from vyre_memory import Memory
from vyre_memory.ask.pipeline import AGENT_PERSONAL
from vyre_memory.models.base import allow_model_requests
from vyre_memory.models.fake import FunctionModel
from vyre_memory.surfaces.cli import main

GRANTED = "/home/ana/code/lumen-api"
OTHER = "/home/ana/code/fern-site"
AGENT_TOKEN = "agent-token-lumen-api-0123456789"
PERSONAL_QUESTIONS = (
    "what's the user's dog called",
    "where does the user live",
    "who is visiting them this weekend",
    "what's my wife's name",
    "when is the user's birthday",
)


@dataclass
class World:
    projects: Path
    turns: list[Turn]
    session: str

    @property
    def secrets(self) -> set[str]:
        return {s for t in self.turns for s in t.secrets}

    def work_questions(self) -> list[str]:
        return [f"what is wrong with {t.work_token}" for t in self.turns]

    def aside_questions(self) -> list[str]:
        return [f"what did the user say about {s}" for s in sorted(self.secrets)]


def write_world(root: Path, seed: int, n: int = 4) -> World:
    rng = random.Random(seed)
    turns = [mixed_turn(rng) for _ in range(n)]
    tokens = {t.work_token for t in turns}
    # a secret inside a work token ("ulagan" in "ulagancor") would be found in the work sentence: it proves nothing
    turns = [t for t in turns if not any(s in token for s in t.secrets for token in tokens)]
    projects = root / "projects"
    w = TranscriptWriter(projects / GRANTED.replace("/", "-") / "s.jsonl", GRANTED)
    for t in turns:
        w.user(t.text)
        w.assistant(f"Looking at {t.work_token} now. Enjoy the time with your family!")
    other = TranscriptWriter(projects / OTHER.replace("/", "-") / "o.jsonl", OTHER)
    other.user("the sitemap generator in web/sitemap.py skips drafts")
    other.assistant("Fixed: drafts are now included.")
    return World(projects, turns, w.session_id)


def ingest(world: World, home: Path, config: str = "") -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'user_name = "Ana"\nembedder = "hash"\n{config}', encoding="utf-8")
    with Memory(home) as mem:
        report = mem.ingest([world.projects])
    assert report.new_turns >= 2 * len(world.turns), report.problems


def leaks(world: World, texts: list[str]) -> list[str]:
    return [f"{s!r} in {t[:240]!r}" for t in texts for s in world.secrets if s in t.lower()]


def echo_model() -> FunctionModel:
    return FunctionModel(lambda req: f"{req.system}\n{req.prompt}", name="echo")


def python_reads(world: World, home: Path) -> tuple[list[str], list[str]]:
    """Everything an agent gets through the Python API, and everything sent to the model on its behalf."""
    seen: list[str] = []
    model = echo_model()
    scope = {"agent_projects": [GRANTED]}
    with Memory(home) as mem:
        for purpose in ("rerank", "answer", "verify"):
            mem.set_backend(purpose, model)
        prompts: list[str] = []
        for q in questions(world):
            seen.append(json.dumps([p.to_dict() for p in mem.retrieve(q, k=20, **scope)]))
            start = len(model.requests)
            seen.append(json.dumps(mem.ask(q, **scope).to_dict()))
            prompts += asked(model.requests[start:], q)
            seen.append(json.dumps(mem.answer(q, **scope).to_dict()))
        seen.append(json.dumps([t.to_dict() for t in mem.turns(world.session, **scope)]))
    return seen, prompts


def asked(requests: list[Any], question: str) -> list[str]:
    """What was sent to the model for `question`, less the question itself (an agent may name anything)."""
    return [f"{r.system}\n{r.prompt}".replace(question, "<question>") for r in requests]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_generated_asides_never_reach_an_agent_or_its_model(seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = write_world(Path(tmp), seed)
        home = Path(tmp) / "home"
        ingest(world, home)
        seen, prompts = python_reads(world, home)
        assert leaks(world, seen + prompts) == []
        for t in world.turns:  # the work part of the same turns still reaches the agent and the model
            assert any(t.work_token in s for s in seen), (t.text, "work sentence never reached the agent")
            assert any(t.work_token in p for p in prompts), (t.text, "work sentence never reached the model")
        with Memory(home) as mem:  # the person's own scope is unchanged: the asides are theirs
            own = " ".join(x.text for x in mem.turns(world.session)).lower()
        assert world.secrets and all(s in own for s in world.secrets)


def test_a_personal_question_from_an_agent_abstains_before_any_search_or_model(tmp_path: Path) -> None:
    world = write_world(tmp_path, seed=7)
    ingest(world, tmp_path / "home")
    model = echo_model()
    with Memory(tmp_path / "home") as mem:
        for purpose in ("rerank", "answer", "verify"):
            mem.set_backend(purpose, model)
        for q in PERSONAL_QUESTIONS:
            result = mem.ask(q, agent_projects=[GRANTED])
            assert result.abstained and result.known == (AGENT_PERSONAL,) and result.sources == ()
            assert mem.retrieve(q, agent_projects=[GRANTED]) == []
        assert model.requests == []
        # the owner's own surface is unchanged: the same question is searched
        assert mem.retrieve("where does the user live", k=20) != []


def test_turns_outside_the_grant_are_refused_and_inside_are_cut(tmp_path: Path) -> None:
    world = write_world(tmp_path, seed=11)
    ingest(world, tmp_path / "home")
    with Memory(tmp_path / "home") as mem:
        other = next(s.id for s in mem.sessions() if s.cwd == OTHER)
        with pytest.raises(Exception, match="outside this caller's projects"):
            mem.turns(other, agent_projects=[GRANTED])
        cut = [t.text for t in mem.turns(world.session, agent_projects=[GRANTED])]
    assert leaks(world, cut) == []
    assert all(any(t.work_token in c for c in cut) for t in world.turns)


# -- the surfaces ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def echo_server() -> Iterator[FakeServer]:
    """An OpenAI-compatible model on 127.0.0.1 that echoes and records every request."""
    yield from _serve(_chat_reply, "/v1/chat/completions")


@pytest.fixture(scope="module")
def surface_world(tmp_path_factory: pytest.TempPathFactory, echo_server: FakeServer) -> tuple[World, Path]:
    root = tmp_path_factory.mktemp("asides")
    world = write_world(root, seed=2026, n=5)
    config = (
        f'[tokens]\n"{AGENT_TOKEN}" = ["{GRANTED}"]\n\n[models]\nbackend = "openai"\n\n'
        f'[models.openai]\nbase_url = "{echo_server.url}/v1"\nmodel = "echo"\n'
    )
    ingest(world, root / "home", config)
    return world, root / "home"


def model_env(home: Path) -> dict[str, str]:
    env = server_env(home)
    env["VYRE_MODEL_BACKEND"] = "openai"  # the echoing server in config.toml
    env["NO_PROXY"] = "127.0.0.1,localhost"
    return env


def sent(echo: FakeServer, start: int, questions: tuple[str, ...] = ()) -> list[str]:
    """What the model was sent since request `start`, less the questions asked (an agent may name anything)."""
    out = []
    for r in echo.requests[start:]:
        text = "\n".join(str(m.get("content", "")) for m in r["body"]["messages"])
        for q in sorted(questions, key=len, reverse=True):
            text = text.replace(q, "<question>")
        out.append(text)
    return out


def questions(world: World) -> tuple[str, ...]:
    return (*PERSONAL_QUESTIONS, *world.aside_questions(), *world.work_questions())


def check(world: World, seen: list[str], prompts: list[str]) -> None:
    assert leaks(world, seen + prompts) == []
    for t in world.turns:
        assert any(t.work_token in s for s in seen), (t.text, "work sentence never reached the agent")
    assert prompts, "no request reached the model: the model path was not exercised"
    assert any(t.work_token in p for t in world.turns for p in prompts)


def test_cli_agent_project(
    surface_world: tuple[World, Path], echo_server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, home = surface_world
    for k, v in model_env(home).items():
        monkeypatch.setenv(k, v)
    start = len(echo_server.requests)
    runner = CliRunner()
    seen = []
    prompts = []
    with allow_model_requests():  # the echoing server on 127.0.0.1 is the only model
        for q in questions(world):
            for cmd in (["retrieve", q, "--json", "--k", "20"], ["ask", q, "--json"], ["ask", q]):
                before = len(echo_server.requests)
                result = runner.invoke(main, [*cmd, "--agent-project", GRANTED, "--home", str(home)])
                assert result.exit_code == 0, result.output
                seen.append(result.output)
                prompts += [p.replace(q, "<question>") for p in sent(echo_server, before)]
    dog = runner.invoke(
        main, ["retrieve", "what's the user's dog called", "--json", "--agent-project", GRANTED, "--home", str(home)]
    )
    assert json.loads(dog.output) == []
    assert len(echo_server.requests) > start
    check(world, seen, prompts)


def test_http_agent_token(surface_world: tuple[World, Path], echo_server: FakeServer) -> None:
    world, home = surface_world
    start = len(echo_server.requests)
    server = start_http(home, env=model_env(home))
    seen = []
    try:
        with server.client(AGENT_TOKEN) as c:
            for q in questions(world):
                for route in ("retrieve", "ask", "answer"):
                    r = c.post(f"/v1/{route}", json={"question": q, "k": 20})
                    assert r.status_code == 200, r.text
                    seen.append(r.text)
                with c.stream("POST", "/v1/ask", json={"question": q, "stream": True}) as r:
                    seen.append(r.read().decode())
            r = c.get(f"/v1/sessions/{world.session}/turns")
            assert r.status_code == 200, r.text
            seen.append(r.text)
    finally:
        server.stop()
    check(world, seen, sent(echo_server, start, questions(world)))


def test_mcp_agent_project(surface_world: tuple[World, Path], echo_server: FakeServer) -> None:
    world, home = surface_world
    start = len(echo_server.requests)
    params = StdioServerParameters(
        command=VYRE[0],
        args=[*VYRE[1:], "mcp", "--home", str(home), "--agent-project", GRANTED],
        env=model_env(home),
        cwd=str(home),
    )
    seen: list[str] = []

    async def body() -> None:
        async with Client(params, read_timeout_seconds=30) as client:
            for q in questions(world):
                for tool, args in (("memory.retrieve", {"k": 20}), ("memory.ask", {}), ("memory.answer", {})):
                    result = await client.call_tool(tool, {"question": q, **args})
                    assert not result.is_error, result
                    seen.append(json.dumps(result.structured_content))
                    seen.extend(getattr(c, "text", "") for c in result.content)

    anyio.run(body)
    check(world, seen, sent(echo_server, start, questions(world)))

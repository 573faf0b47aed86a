"""Scope leaks: through the Python API, the CLI, HTTP and MCP, questions whose answers exist only outside the
caller's scope never bring anything from outside it back: not in answers, sources, known lists or errors.

The demo world has two projects whose texts do not overlap (shop-api: the refund bug in app/billing/refunds.py,
v1.8.2, the slow export in app/exports/csv.py; harlow-portal: Bram, Entra SSO via django-allauth,
portal/settings.py) and the person's own facts (wife Dani, son Emrys). Scopes:

- project (the person working in one folder): nothing of the other project's sessions, work facts included;
  facts about the person's own life are theirs everywhere (DESIGN "Scopes", fast_path.py), so personal
  questions are not asked in a project scope;
- agent granted one project: nothing of the other project and nothing personal, even when the request tries to
  widen its grant (project_cwds / context.project naming the other folder).

Each surface's every result is serialised to JSON and searched for strings that exist only outside the scope.
A control question per scope must answer from inside it, so a surface that returned nothing would fail too.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from tests.reliability.conftest import HARLOW, OWNER_TOKEN, SHOP, VYRE, Server, server_env, start_http

from vyre_memory import Memory
from vyre_memory.surfaces.cli import main

S1, S2, S3 = (f"d3d0a000-0000-4000-8000-00000000000{i}" for i in (1, 2, 3))  # shop, harlow, shop
HARLOW_ONLY = ("harlow", "bram", "allauth", "entra", "magic link", "microsoft", "settings.py", "sign-on", S2)
SHOP_ONLY = ("shop-api", "refunds.py", "credit_customer", "1.8.2", "csv.py", "format_row", "stripe", S1, S3)
PERSONAL = ("dani", "emrys")
# Reads of a project's own passages by the person working in it hold their own asides; an agent's reads of its
# granted sessions never do (the asides are cut out: test_agent_asides.py), so every string counts there.
SESSION_READS = ("retrieve", "turns", "search")
AGENT_SHOP_TOKEN = "agent-token-shop-only-0123456789"
AGENT_HARLOW_TOKEN = "agent-token-harlow-only-012345678"

WORK_QUESTIONS = (
    "what did we decide about the portal login",
    "who is bram",
    "what did bram want",
    "which file sets the auth setting",
    "which file had the refund bug",
    "what version did we deploy",
    "why was the nightly export slow",
    "what did we ship",
)
PERSONAL_QUESTIONS = (
    "what's my wife's name",
    "what's my son's name",
    "who is dani",
    "when does emrys start school",
    "who do i pick up at 5",
)


@dataclass(frozen=True)
class ScopeCase:
    name: str
    kind: str  # "project" | "agent"
    folder: str
    other: str
    forbidden: tuple[str, ...]
    control: tuple[str, str]  # (question, a string its answer must hold)

    @property
    def questions(self) -> tuple[str, ...]:
        return WORK_QUESTIONS + (PERSONAL_QUESTIONS if self.kind == "agent" else ())


SHOP_CONTROL = ("which file had the refund bug", "refunds.py")
HARLOW_CONTROL = ("which file sets the auth setting", "settings.py")
SCOPES = (
    ScopeCase("project-shop", "project", SHOP, HARLOW, HARLOW_ONLY, SHOP_CONTROL),
    ScopeCase("project-harlow", "project", HARLOW, SHOP, SHOP_ONLY, HARLOW_CONTROL),
    ScopeCase("agent-shop", "agent", SHOP, HARLOW, HARLOW_ONLY + PERSONAL, SHOP_CONTROL),
    ScopeCase("agent-harlow", "agent", HARLOW, SHOP, SHOP_ONLY + PERSONAL, HARLOW_CONTROL),
)
CONFIG = f"""user_name = "Sam"
embedder = "hash"

[tokens]
"{OWNER_TOKEN}" = "owner"
"{AGENT_SHOP_TOKEN}" = ["{SHOP}"]
"{AGENT_HARLOW_TOKEN}" = ["{HARLOW}"]
"""


class Seen:
    """Everything a surface returned for one scope, as (what was asked, its JSON)."""

    def __init__(self, case: ScopeCase) -> None:
        self.case = case
        self.items: list[tuple[str, str]] = []

    def add(self, label: str, value: Any) -> None:
        self.items.append((label, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)))

    def leaks(self) -> list[str]:
        out = []
        for label, text in self.items:
            low = text.lower()
            forbidden = self.case.forbidden
            if label.startswith(SESSION_READS) and self.case.kind == "project":  # the person's own sessions
                forbidden = tuple(s for s in forbidden if s not in PERSONAL)
            out += [f"{self.case.name} {label}: {s!r} in {text[:300]}" for s in forbidden if s.lower() in low]
        return out

    def control_answer(self) -> str:
        question, _ = self.case.control
        for label, text in self.items:
            if label == f"ask {question}":
                return str(json.loads(text).get("answer") or "")
        raise AssertionError(f"{self.case.name}: the control question was not asked")


@pytest.fixture(scope="module")
def leak_home(demo_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("leaks") / "vyre-home"
    shutil.copytree(demo_home, home)
    (home / "config.toml").write_text(CONFIG, encoding="utf-8")
    return home


# -- the four surfaces ------------------------------------------------------------------------------------
def via_python(home: Path, case: ScopeCase, monkeypatch: pytest.MonkeyPatch) -> Seen:
    monkeypatch.setenv("VYRE_MODEL_BACKEND", "none")
    seen = Seen(case)
    if case.kind == "project":
        tries = [{"project_cwds": [case.folder]}]
    else:  # the grant, and the grant with a request naming the other project (narrowing only)
        tries = [
            {"agent_projects": [case.folder]},
            {"agent_projects": [case.folder], "project_cwds": [case.other]},
            {"agent_projects": [case.folder], "context": {"project": case.other}},
        ]
    with Memory(home) as mem:
        for purpose in ("rerank", "answer", "verify"):
            mem.set_backend(purpose, None)
        for i, scope in enumerate(tries):
            tag = "" if i == 0 else f" (widen {i})"
            for q in case.questions:
                seen.add(f"ask {q}{tag}", mem.ask(q, **scope).to_dict())
                seen.add(f"answer {q}{tag}", mem.answer(q, **scope).to_dict())
                seen.add(f"retrieve {q}{tag}", [p.to_dict() for p in mem.retrieve(q, k=20, **scope)])
            if case.kind == "project":
                for q in ("bram", "refund", "allauth", "export"):
                    seen.add(f"search {q}", [h.turn.to_dict() for h in mem.search(q, project_cwds=[case.folder])])
    return seen


def via_cli(home: Path, case: ScopeCase, monkeypatch: pytest.MonkeyPatch) -> Seen:
    monkeypatch.setenv("VYRE_MODEL_BACKEND", "none")
    monkeypatch.setenv("VYRE_EMBEDDER", "hash")
    runner = CliRunner()
    seen = Seen(case)
    flag = ["--project-cwd", case.folder] if case.kind == "project" else ["--agent-project", case.folder]

    def run(*args: str) -> str:
        result = runner.invoke(main, [*args, "--home", str(home)], catch_exceptions=False)
        return result.output

    for q in case.questions:
        out = run("ask", q, "--json", *flag)
        seen.add(f"ask {q}", out)
        json.loads(out)  # the CLI printed the contract, not an error
        seen.add(f"answer {q}", run("answer", q, "--json", *flag))
        seen.add(f"retrieve {q}", run("retrieve", q, "--json", "--k", "20", *flag))
        seen.add(f"ask plain {q}", run("ask", q, *flag))  # the human-readable form quotes sources too
        if case.kind == "agent":  # an agent naming the other project as well: narrowing only
            seen.add(f"ask widen {q}", run("ask", q, "--json", *flag, "--project-cwd", case.other))
    if case.kind == "project":
        for q in ("bram", "refund", "allauth", "export"):
            seen.add(f"search {q}", run("search", q, "--project", case.folder, "--json"))
    return seen


def via_http(server: Server, case: ScopeCase) -> Seen:
    seen = Seen(case)
    if case.kind == "project":
        token, extra = OWNER_TOKEN, [{"project_cwds": [case.folder]}, {"context": {"project": case.folder}}]
    else:
        token = AGENT_SHOP_TOKEN if case.folder == SHOP else AGENT_HARLOW_TOKEN
        extra = [{}, {"project_cwds": [case.other]}, {"context": {"project": case.other}}]
    with server.client(token) as c:
        for i, scope in enumerate(extra):
            tag = "" if i == 0 else f" ({i})"
            for q in case.questions:
                for route in ("ask", "answer", "retrieve"):
                    r = c.post(f"/v1/{route}", json={"question": q, "k": 20, **scope})
                    assert r.status_code == 200, (route, q, r.text)
                    seen.add(f"{route} {q}{tag}", r.text)
                with c.stream("POST", "/v1/ask", json={"question": q, "stream": True, **scope}) as r:
                    seen.add(f"sse {q}{tag}", r.read().decode())
        if case.kind == "agent":
            for method, path in (
                ("GET", "/v1/facts"),
                ("GET", "/v1/graph"),
                ("GET", "/v1/graph/entities/Bram"),
                ("GET", "/v1/graph/entities/Dani"),
                ("GET", "/v1/facts/0123456789"),
                ("DELETE", "/v1/graph/entities/Bram"),
                ("POST", "/v1/graph/entities/Dani/pin"),
            ):
                r = c.request(method, path, json={} if method == "POST" else None)
                assert r.status_code == 403, (path, r.status_code, r.text)
                assert r.json()["error"]["message"], r.text
                seen.add(f"error {method} {path}", r.text)
            for sid in (S1, S2, S3):
                r = c.get(f"/v1/sessions/{sid}/turns")
                label = f"turns {sid}"
                if r.status_code == 200:
                    seen.add(label, r.text)
                else:  # the refusal may name the session id the agent sent, nothing else of it
                    assert r.status_code == 403, r.text
                    seen.add(label, r.json()["error"]["message"].replace(sid, "<sent id>"))
    return seen


def via_mcp(home: Path, case: ScopeCase) -> Seen:
    seen = Seen(case)
    flags = ["--project", case.folder] if case.kind == "project" else ["--agent-project", case.folder]
    params = StdioServerParameters(
        command=VYRE[0], args=[*VYRE[1:], "mcp", "--home", str(home), *flags], env=server_env(home), cwd=str(home)
    )

    async def body() -> None:
        async with Client(params, read_timeout_seconds=30) as client:

            async def call(label: str, tool: str, **args: Any) -> None:
                result = await client.call_tool(tool, args)
                if result.is_error:
                    seen.add(f"error {label}", [getattr(c, "text", "") for c in result.content])
                else:
                    seen.add(label, result.structured_content)

            for q in case.questions:
                await call(f"ask {q}", "memory.ask", question=q)
                await call(f"answer {q}", "memory.answer", question=q)
                await call(f"retrieve {q}", "memory.retrieve", question=q, k=20)
                if case.kind == "agent":  # a project server's folder is the person's default, not a grant
                    await call(f"ask other {q}", "memory.ask", question=q, project_cwds=[case.other])
                    await call(f"ask ctx {q}", "memory.ask", question=q, context={"project": case.other})
                    await call(f"retrieve other {q}", "memory.retrieve", question=q, project_cwds=[case.other])
            if case.kind == "agent":
                for tool, args in (
                    ("memory.facts.list", {}),
                    ("memory.graph.list", {}),
                    ("memory.graph.show", {"name": "Bram"}),
                    ("memory.graph.show", {"name": "Dani"}),
                    ("memory.facts.show", {"fact_id": "0123456789"}),
                ):
                    result = await client.call_tool(tool, args)
                    assert result.is_error, (tool, result)
                    seen.add(f"error {tool} {args}", [getattr(c, "text", "") for c in result.content])

    anyio.run(body)
    return seen


# -- the suite ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def leak_server(leak_home: Path) -> Iterator[Server]:
    server = start_http(leak_home)
    yield server
    server.stop()


SURFACES = ("python", "cli", "http", "mcp")


@pytest.mark.parametrize("surface", SURFACES)
def test_nothing_outside_the_scope_comes_back(
    surface: str, leak_home: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    leaks: list[str] = []
    for case in SCOPES:
        if surface == "python":
            seen = via_python(leak_home, case, monkeypatch)
        elif surface == "cli":
            seen = via_cli(leak_home, case, monkeypatch)
        elif surface == "http":
            seen = via_http(request.getfixturevalue("leak_server"), case)
        else:
            seen = via_mcp(leak_home, case)
        assert len(seen.items) >= len(case.questions), (surface, case.name)
        _, must_hold = case.control
        assert must_hold in seen.control_answer(), f"{surface} {case.name}: control question did not answer in scope"
        leaks += seen.leaks()
    assert leaks == [], "\n".join(leaks[:20])


def test_the_forbidden_strings_are_really_out_of_scope_only(leak_home: Path) -> None:
    """The check above could pass vacuously if its strings were in both projects: each is only in its own."""
    with Memory(leak_home) as mem:
        texts = {
            folder: " ".join(t.text for s in mem.sessions(project_cwds=[folder]) for t in mem.turns(s.id)).lower()
            for folder in (SHOP, HARLOW)
        }
        ids = {folder: {s.id for s in mem.sessions(project_cwds=[folder])} for folder in (SHOP, HARLOW)}
    for only, here, there in ((HARLOW_ONLY, HARLOW, SHOP), (SHOP_ONLY, SHOP, HARLOW)):
        for s in only:
            if s.startswith("d3d0a000"):
                assert s in ids[here] and s not in ids[there]
            elif s not in ("shop-api", "harlow"):  # folder names: in the cwd, not always in the text
                assert s.lower() in texts[here] and s.lower() not in texts[there], s
    assert all(p in texts[SHOP] for p in PERSONAL)  # the agent of shop-api could see them in its own sessions

"""The Claude Code plugin in `plugin/` and its marketplace entry: the manifests hold to the documented
schema, and the hook script, fed a recorded SessionEnd or Stop input, ingests that one session in the
background and returns at once; it never fails the hook, and Stop hooks fired while one ingest runs never
pile up. The script runs as Claude Code runs it."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from vyre_memory import Memory
from vyre_memory.eval.synth import SessionWriter, encode_cwd
from vyre_memory.surfaces.hooks import one_at_a_time

jsonschema = pytest.importorskip("jsonschema")

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "plugin"
SCRIPT = PLUGIN / "hooks" / "ingest-session"
RECORDED = Path(__file__).with_name("hook_inputs") / "session_end.json"
RECORDED_STOP = Path(__file__).with_name("hook_inputs") / "stop.json"

# The plugin manifest as the Claude Code plugins reference documents it: `name` (kebab-case) is
# required; metadata; component paths relative to the plugin root starting with "./", or inline
# hooks and MCP servers.
RELATIVE = {"type": "string", "pattern": r"^\./"}
PLUGIN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"},
        "version": {"type": "string", "pattern": r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$"},
        "description": {"type": "string"},
        "author": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        "homepage": {"type": "string"},
        "repository": {"type": "string"},
        "license": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "commands": {"anyOf": [RELATIVE, {"type": "array", "items": RELATIVE}]},
        "agents": {"anyOf": [RELATIVE, {"type": "array", "items": RELATIVE}]},
        "skills": {"anyOf": [RELATIVE, {"type": "array", "items": RELATIVE}]},
        "hooks": {"anyOf": [RELATIVE, {"type": "object"}]},
        "mcpServers": {
            "anyOf": [
                RELATIVE,
                {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "required": ["command"],
                        "properties": {
                            "command": {"type": "string"},
                            "args": {"type": "array", "items": {"type": "string"}},
                            "env": {"type": "object", "additionalProperties": {"type": "string"}},
                        },
                    },
                },
            ]
        },
    },
}
HOOK_EVENTS = [
    "PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop", "SubagentStop",
    "PreCompact", "SessionStart", "SessionEnd",
]  # fmt: skip
HOOKS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["hooks"],
    "properties": {
        "description": {"type": "string"},
        "hooks": {
            "type": "object",
            "propertyNames": {"enum": HOOK_EVENTS},
            "additionalProperties": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["hooks"],
                    "properties": {
                        "matcher": {"type": "string"},
                        "hooks": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["type", "command"],
                                "properties": {
                                    "type": {"const": "command"},
                                    "command": {"type": "string"},
                                    "timeout": {"type": "number", "exclusiveMinimum": 0},
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}
MARKETPLACE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "owner", "plugins"],
    "properties": {
        "name": {"type": "string", "pattern": r"^[A-Za-z0-9._-]+$"},
        "owner": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        "plugins": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "source"],
                "properties": {"name": {"type": "string"}, "source": RELATIVE},
            },
        },
    },
}


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_plugin_manifest_hooks_and_marketplace_entry_hold_to_the_documented_schema() -> None:
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    jsonschema.validate(manifest, PLUGIN_SCHEMA)
    hooks_file = PLUGIN / manifest["hooks"]
    hooks = load(hooks_file)
    jsonschema.validate(hooks, HOOKS_SCHEMA)
    commands = [h["command"] for groups in hooks["hooks"].values() for g in groups for h in g["hooks"]]
    assert list(hooks["hooks"]) == ["Stop", "SessionEnd"]
    assert commands == ["${CLAUDE_PLUGIN_ROOT}/hooks/ingest-session"] * 2
    script = PLUGIN / commands[0].removeprefix("${CLAUDE_PLUGIN_ROOT}/")
    assert script.is_file() and os.access(script, os.X_OK)
    assert manifest["mcpServers"] == {"vyre": {"command": "vyre", "args": ["mcp"]}}

    marketplace = load(REPO / ".claude-plugin" / "marketplace.json")
    jsonschema.validate(marketplace, MARKETPLACE_SCHEMA)
    (entry,) = marketplace["plugins"]
    assert (entry["name"], (REPO / entry["source"]).resolve()) == (manifest["name"], PLUGIN)


def transcript(root: Path, session_id: str, *texts: str) -> Path:
    """A session of the person's `texts`, each answered by the assistant."""
    cwd = "/home/sam/code/ledger"
    w = SessionWriter(cwd, session_id, datetime(2026, 10, 2, 9, 0, tzinfo=UTC))
    for i, text in enumerate(texts):
        w.user(text)
        w.assistant(random.Random(i), [{"type": "text", "text": f"Done ({i + 1}): the ledger export is fixed."}])
    path = root / ".claude" / "projects" / encode_cwd(cwd) / f"{session_id}.jsonl"
    w.write(path)
    return path


def run_hook(stdin: str, home: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "VYRE_HOME": str(home), "VYRE_EMBEDDER": "hash", "VYRE_MODEL_BACKEND": "none"}
    env["PATH"] = path if path is not None else f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run([str(SCRIPT)], input=stdin, env=env, capture_output=True, text=True, timeout=30)


def wait_for(check: Any, seconds: float = 90) -> Any:
    """Poll until `check()` is truthy (the ingest runs detached); the bound is a hang guard, not a measure."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    return check()


def test_the_session_end_hook_ingests_that_session_only(tmp_path: Path) -> None:
    recorded = load(RECORDED)
    ended = transcript(tmp_path, recorded["session_id"], "the ledger export rounds wrong, half to even please")
    other = transcript(tmp_path, "5e55e0d0-0000-4000-8000-00000000a002", "an older session, not ended now")
    home = tmp_path / "vyre-home"
    done = run_hook(json.dumps({**recorded, "transcript_path": str(ended)}), home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")

    def stored() -> list[str]:
        if not (home / "memory.db").exists():
            return []
        with Memory(home) as mem:
            return [s.id for s in mem.sessions()]

    assert wait_for(stored) == [recorded["session_id"]]
    log = wait_for(lambda: "memory holds 1 sessions" in (home / "hook.log").read_text() and home / "hook.log")
    assert log.read_text().startswith("read 1 of 1 files (claude-code 1)")
    assert other.exists()  # beside it in the same project folder, and not read


def test_stop_hooks_ingest_the_session_as_it_grows_without_piling_up(tmp_path: Path) -> None:
    """Claude Code fires Stop after every reply: each hook returns at once, the session's new turns are read
    by an ingest of that session alone, and hooks fired while one runs start none of their own."""
    recorded = load(RECORDED_STOP)
    home = tmp_path / "vyre-home"
    path = transcript(tmp_path, recorded["session_id"], "the ledger export rounds wrong, half to even please")
    stdin = json.dumps({**recorded, "transcript_path": str(path)})
    started = time.monotonic()
    done = run_hook(stdin, home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert time.monotonic() - started < 1.0  # the person's wait: the hook detaches and returns

    def turns() -> int:
        if not (home / "memory.db").exists():
            return 0
        with Memory(home) as mem:
            return int(mem.stats()["turns"]["total"])

    assert wait_for(lambda: turns() == 2)
    texts = [f"reply {i}: round the {name} column too" for i, name in enumerate(["tax", "fee", "total", "net"])]
    transcript(tmp_path, recorded["session_id"], "the ledger export rounds wrong, half to even please", *texts)
    for _ in texts:  # replies come faster than an ingest starts
        assert run_hook(stdin, home).returncode == 0
    assert wait_for(lambda: turns() == 2 + 2 * len(texts))
    log = home / "hook.log"

    def outcomes() -> tuple[int, int]:  # (ingest rounds, hooks that found one under way and asked it for more)
        text = log.read_text()
        return text.count("memory holds 1 sessions"), text.count("an ingest of this session is under way")

    # every hook either ran rounds or asked the running one; never more rounds than hooks
    assert wait_for(lambda: sum(outcomes()) >= 5)
    assert outcomes()[0] <= 5 and "nothing ingested" not in log.read_text()
    with Memory(home) as mem:
        assert [s.id for s in mem.sessions()] == [recorded["session_id"]]
        assert mem.pending()["embed"] > 0  # a Stop leaves vectors to the background (the MCP server, vyre serve)


def test_hooks_fired_while_one_runs_ask_it_for_one_more_round(tmp_path: Path) -> None:
    """One run of the session at a time: five hooks fired during it return at once and are served by one more
    round of the running one, with the last event asked."""
    rounds: list[str] = []
    running, release = threading.Event(), threading.Event()

    def work(event: str) -> None:
        rounds.append(event)
        running.set()
        release.wait(30)

    first = threading.Thread(target=one_at_a_time, args=(tmp_path, "s1", "Stop", work))
    first.start()
    assert running.wait(30)
    later = [one_at_a_time(tmp_path, "s1", event, work) for event in ["Stop"] * 4 + ["SessionEnd"]]
    assert later == [False] * 5 and rounds == ["Stop"]
    assert one_at_a_time(tmp_path, "s2", "Stop", lambda e: rounds.append(f"s2 {e}"))  # another session: its own
    release.set()
    first.join(30)
    assert rounds == ["Stop", "s2 Stop", "SessionEnd"]
    assert one_at_a_time(tmp_path, "s1", "Stop", rounds.append) and rounds[-1] == "Stop"  # free again
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".lock", ".lock"]  # no request left behind


@pytest.mark.parametrize(
    ("stdin", "why"),
    [
        ("not json at all", "the hook input is not JSON"),
        ('{"hook_event_name": "SessionEnd", "transcript_path": "/nowhere/x.jsonl"}', "is not there"),
        ('{"hook_event_name": "PreToolUse", "transcript_path": "/nowhere/x.jsonl"}', "not one memory acts on"),
    ],
)
def test_bad_hook_input_never_fails_the_hook(tmp_path: Path, stdin: str, why: str) -> None:
    home = tmp_path / "vyre-home"
    done = run_hook(stdin, home)
    assert (done.returncode, done.stderr) == (0, "")
    log = wait_for(lambda: (home / "hook.log").exists() and "nothing ingested" in (home / "hook.log").read_text())
    assert log and why in (home / "hook.log").read_text()
    assert not (home / "memory.db").exists()


def test_without_vyre_on_path_the_hook_says_so_and_exits_0(tmp_path: Path) -> None:
    done = run_hook(RECORDED.read_text(), tmp_path / "vyre-home", path="/usr/bin:/bin")
    assert done.returncode == 0
    assert done.stderr.startswith("vyre memory: 'vyre' is not on PATH, so this session was not ingested")


def test_hooks_of_sessions_ending_together_can_all_create_a_new_home(tmp_path: Path) -> None:
    """Several hook processes opening a memory that does not exist yet: each migrates it, none fails."""
    code = "import sys\nfrom vyre_memory.store.sqlite import Store\nStore(sys.argv[1]).close()"
    for round_no in range(5):
        db = tmp_path / f"home-{round_no}" / "memory.db"
        db.parent.mkdir()
        procs = [
            subprocess.Popen([sys.executable, "-c", code, str(db)], stderr=subprocess.PIPE, text=True) for _ in range(4)
        ]
        errors = [p.communicate(timeout=60)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0, 0], errors

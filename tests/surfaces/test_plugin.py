"""The Claude Code plugin in `plugin/` and its marketplace entry: the manifests hold to the documented
schema, and the SessionEnd hook script, fed a recorded hook input, ingests that one session in the
background and returns at once; it never fails the hook. The script runs as Claude Code runs it."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from vyre_memory import Memory
from vyre_memory.eval.synth import SessionWriter, encode_cwd

jsonschema = pytest.importorskip("jsonschema")

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "plugin"
SCRIPT = PLUGIN / "hooks" / "ingest-session"
RECORDED = Path(__file__).with_name("hook_inputs") / "session_end.json"

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
    assert list(hooks["hooks"]) == ["SessionEnd"]
    assert commands == ["${CLAUDE_PLUGIN_ROOT}/hooks/ingest-session"]
    script = PLUGIN / commands[0].removeprefix("${CLAUDE_PLUGIN_ROOT}/")
    assert script.is_file() and os.access(script, os.X_OK)
    assert manifest["mcpServers"] == {"vyre": {"command": "vyre", "args": ["mcp"]}}

    marketplace = load(REPO / ".claude-plugin" / "marketplace.json")
    jsonschema.validate(marketplace, MARKETPLACE_SCHEMA)
    (entry,) = marketplace["plugins"]
    assert (entry["name"], (REPO / entry["source"]).resolve()) == (manifest["name"], PLUGIN)


def transcript(root: Path, session_id: str, text: str) -> Path:
    cwd = "/home/sam/code/ledger"
    w = SessionWriter(cwd, session_id, datetime(2026, 10, 2, 9, 0, tzinfo=UTC))
    w.user(text)
    w.assistant(random.Random(3), [{"type": "text", "text": "Done: the ledger export now rounds half to even."}])
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

"""Synthetic Claude Code histories, written the way Claude Code 2.1.x writes them.

Used by the benchmarks, the crash and fuzz tests and the demo tree. Deterministic for a seed:
the same arguments always write the same bytes.
"""

from __future__ import annotations

import json
import random
import uuid as uuidlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

_NS = uuidlib.UUID("6f1c2a9e-7b7d-4a53-9d0e-5b8c7d2e1f00")

PROJECTS = ["billing-api", "pdf-service", "client-portal", "home-lab", "dotfiles", "data-pipeline", "mobile-app"]
FILES = [
    "app/webhooks/handler.py",
    "app/invoices/numbering.py",
    "internal/render/pdf.go",
    "portal/views.py",
    "src/lib/speak.ts",
    "migrations/0042_add_index.py",
    "tests/test_refunds.py",
    "README.md",
    "Makefile",
    "config/settings.toml",
    "scripts/deploy.sh",
    "src/components/Table.tsx",
]
ASKS = [
    "the {f} tests fail on ci, can you look",
    "add retries to the upload in {f}",
    "why is {f} so slow on big inputs",
    "let's go with postgres advisory locks for this, update {f}",
    "ship it. bump the version and tag a release",
    "rename the helper in {f} and fix the imports",
    "can you write a migration for the new column",
    "deploy to staging and check the logs",
]
PERSONAL = [
    "quick one before i pick up maya, my daughter, from school",
    "sorry, slow today, my son was up all night",
    "back from the vet with the dog, where were we",
    "my wife says hi. anyway, the build",
]
WORDS = [
    "request",
    "response",
    "handler",
    "retry",
    "timeout",
    "cache",
    "index",
    "query",
    "worker",
    "queue",
    "deploy",
    "release",
    "version",
    "migration",
    "schema",
    "column",
    "tenant",
    "invoice",
    "refund",
    "webhook",
    "signature",
    "token",
    "session",
    "cookie",
    "header",
    "latency",
    "memory",
    "leak",
    "pool",
    "lock",
    "transaction",
    "commit",
    "branch",
    "merge",
    "review",
    "test",
    "fixture",
    "flaky",
    "ci",
]


def _uuid(*parts: object) -> str:
    return str(uuidlib.uuid5(_NS, "/".join(str(p) for p in parts)))


def _msg_id(rng: random.Random) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "msg_01" + "".join(rng.choice(alphabet) for _ in range(22))


def _tool_id(rng: random.Random) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "toolu_01" + "".join(rng.choice(alphabet) for _ in range(22))


def encode_cwd(cwd: str) -> str:
    """Claude Code's project folder name for a cwd (formats.md §1; no hash suffix needed here)."""
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)[:200]


@dataclass
class SessionWriter:
    """Writes one session file line by line, with Claude Code's envelope and threading."""

    cwd: str
    session_id: str
    start: datetime
    entrypoint: str = "cli"
    version: str = "2.1.248"
    agent_id: str | None = None
    lines: list[dict[str, Any]] = field(default_factory=list)
    parent: str | None = None
    clock: datetime | None = None
    n: int = 0

    def _now(self, seconds: float) -> str:
        self.clock = (self.clock or self.start) + timedelta(seconds=seconds)
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def _envelope(self, rtype: str, body: dict[str, Any], seconds: float = 5.0) -> dict[str, Any]:
        self.n += 1
        uid = _uuid(self.session_id, self.agent_id or "", self.n)
        record: dict[str, Any] = {"parentUuid": self.parent, "isSidechain": self.agent_id is not None}
        if self.agent_id:
            record["agentId"] = self.agent_id
        record["type"] = rtype
        record.update(body)
        record.update(
            {
                "uuid": uid,
                "timestamp": self._now(seconds),
                "userType": "external",
                "entrypoint": self.entrypoint,
                "cwd": self.cwd,
                "sessionId": self.session_id,
                "version": self.version,
                "gitBranch": "main",
            }
        )
        self.parent = uid
        self.lines.append(record)
        return record

    def user(self, text: str, seconds: float = 30.0, **extra: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"message": {"role": "user", "content": text}}
        if self.entrypoint.startswith("sdk"):
            body["promptSource"] = "sdk"
        body.update(extra)
        return self._envelope("user", body, seconds)

    def assistant(self, rng: random.Random, blocks: list[dict[str, Any]]) -> list[str]:
        """One API message: one line per content block, all sharing message.id."""
        mid = _msg_id(rng)
        usage = {"input_tokens": rng.randint(3, 50), "output_tokens": rng.randint(20, 900)}
        ids = []
        for block in blocks:
            message = {
                "model": "claude-sonnet-4-5",
                "id": mid,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
                "usage": usage,
            }
            record = self._envelope("assistant", {"message": message, "requestId": "req_" + mid[6:]}, 2.0)
            ids.append(record["uuid"])
        return ids

    def tool(self, rng: random.Random, name: str, tool_input: dict[str, Any], output: str) -> str:
        tid = _tool_id(rng)
        self.assistant(rng, [{"type": "tool_use", "id": tid, "name": name, "input": tool_input}])
        result = {"tool_use_id": tid, "type": "tool_result", "content": output}
        self._envelope(
            "user",
            {"message": {"role": "user", "content": [result]}, "toolUseResult": {"stdout": output, "stderr": ""}},
            rng.uniform(0.5, 20),
        )
        return tid

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as f:
            for record in self.lines:
                f.write(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")
        return path


def _long_output(rng: random.Random, lines: int) -> str:
    return "\n".join(
        f"{i:5d}  " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))) for i in range(1, lines + 1)
    )


def write_history(
    root: Path,
    *,
    sessions: int,
    seed: int = 7,
    start: datetime | None = None,
    home: str = "/home/sam",
    exchanges: tuple[int, int] = (3, 9),
) -> Iterator[Path]:
    """Write `sessions` realistic sessions under `root` (a ~/.claude/projects tree).

    Mixed tools, long outputs, subagents in `<sid>/subagents/` with `.meta.json`, the odd
    headless run, system reminders, slash commands and personal asides.
    """
    rng = random.Random(seed)
    start = start or datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for i in range(sessions):
        project = PROJECTS[rng.randrange(len(PROJECTS))]
        cwd = f"{home}/code/{project}"
        sid = _uuid("session", seed, i)
        headless = rng.random() < 0.05
        w = SessionWriter(cwd, sid, start + timedelta(hours=7 * i), entrypoint="sdk-cli" if headless else "cli")
        subagents: list[SessionWriter] = []
        for x in range(rng.randint(*exchanges)):
            f = FILES[rng.randrange(len(FILES))]
            ask = ASKS[rng.randrange(len(ASKS))].format(f=f)
            if rng.random() < 0.1:
                ask = PERSONAL[rng.randrange(len(PERSONAL))] + ". " + ask
            if rng.random() < 0.08:
                w.user("<command-name>/model</command-name>\n            <command-message>model</command-message>")
                w.user("<local-command-stdout>Set model to opus</local-command-stdout>", seconds=1)
            w.user(ask + ("\n<system-reminder>The user opened a file.</system-reminder>" if rng.random() < 0.1 else ""))
            w.assistant(rng, [{"type": "text", "text": f"Looking at `{f}` first."}])
            for _ in range(rng.randint(1, 4)):
                kind = rng.random()
                if kind < 0.4:
                    w.tool(rng, "Bash", {"command": f"pytest -q {f} -x"}, _long_output(rng, rng.randint(3, 60)))
                elif kind < 0.7:
                    w.tool(rng, "Read", {"file_path": f"{cwd}/{f}"}, _long_output(rng, rng.randint(20, 300)))
                elif kind < 0.9:
                    w.tool(
                        rng,
                        "Edit",
                        {"file_path": f"{cwd}/{f}", "old_string": "retry = 1", "new_string": "retry = 3"},
                        f"The file {cwd}/{f} has been updated.",
                    )
                else:
                    agent = "a" + _uuid("agent", seed, i, x, len(subagents)).replace("-", "")[:16]
                    tid = w.tool(
                        rng,
                        "Agent",
                        {"description": "research", "prompt": f"Find callers of {f}"},
                        f"Found 3 callers of {f}.\nagentId: {agent}",
                    )
                    sub = SessionWriter(cwd, sid, w.clock or w.start, agent_id=agent, entrypoint=w.entrypoint)
                    sub.user(f"Find callers of {f}")
                    sub.tool(rng, "Grep", {"pattern": "def ", "path": cwd}, _long_output(rng, 12))
                    sub.assistant(rng, [{"type": "text", "text": f"Found 3 callers of {f}."}])
                    sub.lines[0]["_meta"] = {"agentType": "general-purpose", "toolUseId": tid, "spawnDepth": 1}
                    subagents.append(sub)
            w.assistant(rng, [{"type": "text", "text": "Done: " + " ".join(rng.choice(WORDS) for _ in range(20))}])
        folder = root / encode_cwd(cwd)
        yield w.write(folder / f"{sid}.jsonl")
        for sub in subagents:
            meta = sub.lines[0].pop("_meta")
            base = folder / sid / "subagents" / f"agent-{sub.agent_id}"
            yield sub.write(base.with_suffix(".jsonl"))
            base.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")

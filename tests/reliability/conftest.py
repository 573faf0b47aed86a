"""Fixtures for the reliability tests: the surface tests' demo home and real server processes, plus a
Claude Code transcript writer (whole JSON lines, appended and flushed as a live session would).

The demo world (tests/surfaces/conftest.py): Sam, wife Dani, son Emrys; projects shop-api (refund bug in
app/billing/refunds.py, v1.8.2, slow export in app/exports/csv.py) and harlow-portal (Bram, Entra SSO via
django-allauth, portal/settings.py).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.surfaces.conftest import (  # noqa: F401  (fixtures re-exported for this folder)
    AGENT_TOKEN,
    CONFIG,
    DEMO,
    HARLOW,
    OWNER_TOKEN,
    SHOP,
    VYRE,
    Server,
    demo,
    demo_home,
    free_port,
    home_copy,
    http_server,
    server_env,
    shared_server,
    start_http,
)

__all__ = [
    "AGENT_TOKEN",
    "CONFIG",
    "DEMO",
    "HARLOW",
    "OWNER_TOKEN",
    "SHOP",
    "VYRE",
    "Server",
    "TranscriptWriter",
    "free_port",
    "server_env",
    "start_http",
]


@dataclass
class TranscriptWriter:
    """Appends Claude Code records (user and assistant text) to one session file, one whole line per write."""

    path: Path
    cwd: str
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    start: datetime = field(default_factory=lambda: datetime(2026, 10, 1, 9, 0, tzinfo=UTC))
    parent: str | None = None
    written: list[dict[str, Any]] = field(default_factory=list)
    agent_id: str | None = None  # a subagent's: its records are a sidechain (write it under subagents/)

    def _append(self, rtype: str, message: dict[str, Any]) -> dict[str, Any]:
        uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/{len(self.written)}"))
        ts = self.start + timedelta(seconds=20 * len(self.written))
        record: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "type": rtype,
            "message": message,
            "uuid": uid,
            "timestamp": ts.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "userType": "external",
            "entrypoint": "cli",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.248",
            "gitBranch": "main",
        }
        if self.agent_id is not None:
            record["isSidechain"], record["agentId"] = True, self.agent_id
        if rtype == "assistant":
            record["requestId"] = f"req_{uid[:12]}"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()
        self.parent = uid
        self.written.append(record)
        return record

    def user(self, text: str) -> dict[str, Any]:
        return self._append("user", {"role": "user", "content": text})

    def tool_result(self, tool_use_id: str, text: str, *, is_error: bool = False) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"tool_use_id": tool_use_id, "type": "tool_result", "content": text}]
        if is_error:
            content[0]["is_error"] = True
        return self._append("user", {"role": "user", "content": content})

    def assistant(self, text: str) -> dict[str, Any]:
        mid = f"msg_{uuid.uuid5(uuid.NAMESPACE_URL, f'{self.session_id}/m{len(self.written)}').hex[:24]}"
        message = {
            "model": "claude-sonnet-4-5",
            "id": mid,
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 40},
        }
        return self._append("assistant", message)

    def tool_use(self, name: str, tool_input: dict[str, Any]) -> str:
        tid = f"toolu_{uuid.uuid5(uuid.NAMESPACE_URL, f'{self.session_id}/t{len(self.written)}').hex[:24]}"
        message = {
            "model": "claude-sonnet-4-5",
            "id": f"msg_{tid[6:]}",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tid, "name": name, "input": tool_input}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 40},
        }
        self._append("assistant", message)
        return tid


@pytest.fixture
def writer_for(tmp_path: Path) -> Any:
    """A TranscriptWriter for a new session under tmp_path/projects/<cwd as Claude Code names it>/."""

    def make(cwd: str, root: Path | None = None) -> TranscriptWriter:
        folder = (root or tmp_path / "projects") / cwd.replace("/", "-")
        sid = str(uuid.uuid4())
        return TranscriptWriter(folder / f"{sid}.jsonl", cwd, session_id=sid)

    return make

"""Fixtures for model tests: real calls switched off, a fake `claude`, fake HTTP model servers.

The switch that makes real calls fail and `replay_backend` live in tests/conftest.py, for the
whole suite.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from vyre_memory.models.select import close_shared_backends

FAKE_CLAUDE = Path(__file__).with_name("fake_claude.py")


@pytest.fixture(autouse=True)
def _close_selected_backends() -> Iterator[None]:
    yield
    close_shared_backends()


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake servers live on 127.0.0.1; a proxy in the environment must not intercept them.
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@dataclass
class FakeClaude:
    bin_dir: Path
    binary: Path
    log: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_CLAUDE_")}
        env["PATH"] = f"{self.bin_dir}{os.pathsep}{env.get('PATH', '')}"
        env["FAKE_CLAUDE_LOG"] = str(self.log)
        env.update(extra)
        return env

    def starts(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]


@pytest.fixture
def fake_claude(tmp_path: Path) -> FakeClaude:
    """A `claude` on a private bin folder that runs tests/models/fake_claude.py."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    binary = bin_dir / "claude"
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_CLAUDE}" "$@"\n')
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return FakeClaude(bin_dir=bin_dir, binary=binary, log=tmp_path / "claude-starts.jsonl")


@dataclass
class FakeServer:
    """A model server on 127.0.0.1: records requests, answers with `reply(path, body)`."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    delay_s: float = 0.0
    status: int = 200
    error_body: dict[str, Any] | None = None


def _serve(reply: Callable[[dict[str, Any]], dict[str, Any]], path: str) -> Iterator[FakeServer]:
    state = FakeServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append(
                {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
            )
            if state.delay_s:
                time.sleep(state.delay_s)
            if self.path != path:
                status, payload = 404, {"error": {"type": "not_found_error", "message": f"no route {self.path}"}}
            elif state.status != 200:
                status, payload = state.status, state.error_body or {}
            else:
                status, payload = 200, reply(body)
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _messages_reply(body: dict[str, Any]) -> dict[str, Any]:
    text = body["messages"][-1]["content"]
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [{"type": "text", "text": f"api says: {text}"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 5},
    }


def _chat_reply(body: dict[str, Any]) -> dict[str, Any]:
    text = body["messages"][-1]["content"]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": f"local says: {text}"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
    }


@pytest.fixture
def anthropic_server() -> Iterator[FakeServer]:
    """Answers POST /v1/messages in the Messages API shape."""
    yield from _serve(_messages_reply, "/v1/messages")


@pytest.fixture
def openai_server() -> Iterator[FakeServer]:
    """Answers POST /v1/chat/completions in the Chat Completions shape."""
    yield from _serve(_chat_reply, "/v1/chat/completions")

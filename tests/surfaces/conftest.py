"""Fixtures for the surface tests: the demo history ingested once, and real server processes over copies of it.

Servers run as subprocesses with `VYRE_EMBEDDER=hash` and `VYRE_MODEL_BACKEND=none`, so they are fast
and never call a model. Screenshots and measured latencies go to `test-artifacts/` (or $VYRE_TEST_ARTIFACTS).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo" / "projects"
ARTIFACTS = Path(os.environ.get("VYRE_TEST_ARTIFACTS", ROOT / "test-artifacts"))

OWNER_TOKEN = "owner-token-0123456789abcdef"
AGENT_TOKEN = "agent-token-shop-api-0123456789"
SHOP = "/home/sam/code/shop-api"
HARLOW = "/home/sam/code/harlow-portal"

CONFIG = f"""user_name = "Sam"
embedder = "hash"

[tokens]
"{OWNER_TOKEN}" = "owner"
"{AGENT_TOKEN}" = ["{SHOP}"]
"""

VYRE = [sys.executable, "-c", "from vyre_memory.surfaces.cli import main; main()"]


def server_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"VYRE_HOME": str(home), "VYRE_EMBEDDER": "hash", "VYRE_MODEL_BACKEND": "none", "PYTHONUNBUFFERED": "1"})
    return env


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo history (Sam: wife Dani, son Emrys, shop-api and harlow-portal) ingested once."""
    from vyre_memory.memory import Memory

    home = tmp_path_factory.mktemp("demo") / "vyre-home"
    home.mkdir()
    (home / "config.toml").write_text(CONFIG, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VYRE_EMBEDDER", "hash")
        mp.setenv("VYRE_MODEL_BACKEND", "none")
        with Memory(home) as mem:
            report = mem.ingest([DEMO])
    assert report.new_turns > 0, report.problems
    return home


@pytest.fixture
def home_copy(demo_home: Path, tmp_path: Path) -> Callable[[str | None], Path]:
    """A private copy of the ingested home (tests edit the graph); `config` replaces config.toml."""

    def make(config: str | None = None) -> Path:
        home = tmp_path / f"home-{len(list(tmp_path.iterdir()))}"
        shutil.copytree(demo_home, home)
        if config is not None:
            (home / "config.toml").write_text(config, encoding="utf-8")
        return home

    return make


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[bytes]
    home: Path
    log: Path
    headers: dict[str, str] = field(default_factory=dict)

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_http(
    home: Path, *, host: str = "127.0.0.1", token: str | None = None, env: dict[str, str] | None = None
) -> Server:
    """`vyre serve` as a real process (with `server_env(home)` unless `env` is given); returns once /v1/health
    answers and the indexes are loaded (health never waits for that, so a client that wants a warm server checks
    `warming` and `busy`)."""
    port = free_port()
    log = home.parent / f"serve-{port}.log"
    proc = subprocess.Popen(
        [*VYRE, "serve", "--host", host, "--port", str(port), "--home", str(home)],
        env=env or server_env(home),
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    server = Server(f"http://127.0.0.1:{port}", proc, home, log)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"vyre serve exited ({proc.returncode}): {log.read_text(errors='replace')}")
        try:
            health = httpx.get(f"{server.url}/v1/health", headers=headers, timeout=1)
            if health.status_code == 200 and not (health.json().get("busy") or health.json().get("warming")):
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    server.stop()
    raise AssertionError(f"vyre serve did not come up: {log.read_text(errors='replace')}")


@pytest.fixture
def http_server(home_copy: Callable[[str | None], Path]) -> Iterator[Callable[..., Server]]:
    """Start `vyre serve` processes over fresh copies of the demo home; all are stopped after the test."""
    started: list[Server] = []

    def start(*, host: str = "127.0.0.1", config: str | None = None, token: str | None = None) -> Server:
        server = start_http(home_copy(config), host=host, token=token)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def record(name: str, values: dict[str, Any]) -> None:
    """Keep a measured figure beside the screenshots (test-artifacts/measurements.json)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / "measurements.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[name] = values
    path.write_text(json.dumps(data, indent=2) + "\n")


@pytest.fixture(scope="module")
def shared_server(demo_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `vyre serve` for a module's tests that only read (faster than a process per test)."""
    home = tmp_path_factory.mktemp("shared") / "vyre-home"
    shutil.copytree(demo_home, home)
    server = start_http(home)
    yield server
    server.stop()


@pytest.fixture
def measure() -> Callable[[str, dict[str, Any]], None]:
    return record


@dataclass(frozen=True)
class Demo:
    """What the surface tests know about the demo world and how to start things in it."""

    owner_token: str = OWNER_TOKEN
    agent_token: str = AGENT_TOKEN
    shop: str = SHOP
    harlow: str = HARLOW
    vyre: tuple[str, ...] = tuple(VYRE)
    artifacts: Path = ARTIFACTS

    @staticmethod
    def env(home: Path) -> dict[str, str]:
        return server_env(home)

    @staticmethod
    def port() -> int:
        return free_port()


@pytest.fixture(scope="session")
def demo() -> Demo:
    return Demo()

"""Shared fixtures: real SQLite stores in tmp_path, the open worlds and samples from ../shared."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.pg_server import PgServer

from vyre_memory.contract import Passage
from vyre_memory.models.base import set_model_requests_allowed
from vyre_memory.models.replay import FixtureUsage, ReplayBackend, unused_fixtures

SHARED = Path(os.environ.get("VYRE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
WORLDS = SHARED / "worlds"
SAMPLES = SHARED / "formats" / "samples"


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is not here (CI lays ../shared beside the checkout)")
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh VYRE_HOME for one test."""
    h = tmp_path / "vyre-home"
    monkeypatch.setenv("VYRE_HOME", str(h))
    return h


# Files built from the MiniLM weights are named after a fingerprint of them, so one folder outside every test's
# VYRE_HOME serves the whole run (and the next): only the first test that embeds with MiniLM pays the build.
MODELS = Path(tempfile.gettempdir()) / "vyre-test-models"


@pytest.fixture(scope="session", autouse=True)
def _never_the_persons_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """For the whole run, before any module's or session's fixture opens a memory or builds an embedder: a
    VYRE_HOME of the run's own (a test that names no home never reads or writes the person's ~/.vyre) and the
    shared folder of built graphs (`MODELS`)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VYRE_HOME", str(tmp_path_factory.mktemp("vyre-home-of-the-run")))
        patch.setenv("VYRE_MODELS", str(MODELS))
        yield


@pytest.fixture(autouse=True)
def _fast_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests embed with the deterministic hash embedder unless they ask for MiniLM themselves."""
    monkeypatch.setenv("VYRE_EMBEDDER", "hash")


@pytest.fixture(autouse=True)
def no_model_requests() -> Iterator[None]:
    """Any real model call in a test raises ModelCallsForbidden (pydantic-ai's ALLOW_MODEL_REQUESTS)."""
    before = set_model_requests_allowed(False)
    try:
        yield
    finally:
        set_model_requests_allowed(before)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A real PostgreSQL with pgvector for the whole run (tests/pg_server.py), started on a free local port
    the first time a test asks for it, stopped at the end; `create_database()` gives a test a fresh one."""
    server = PgServer().start()
    fault = server.vector_index_fault()
    if fault is not None:
        server.stop()
        pytest.skip(fault)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def _replay_dirs() -> Iterator[tuple[FixtureUsage, set[Path]]]:
    usage, folders = FixtureUsage(), set[Path]()
    yield usage, folders
    if os.environ.get("VYRE_CHECK_UNUSED_RECORDINGS") == "1":
        unused = [p for folder in sorted(folders) for p in unused_fixtures(folder, usage.used)]
        if unused:
            pytest.fail(f"recordings no test used (delete them or the test that lost them): {unused}", pytrace=False)


@pytest.fixture
def replay_backend(_replay_dirs: tuple[FixtureUsage, set[Path]]) -> Callable[..., ReplayBackend]:
    """`replay_backend(fixtures_dir, misses_path=None)`: a ReplayBackend whose use is tracked for the run."""
    usage, folders = _replay_dirs

    def make(fixtures_dir: Path, misses_path: Path | None = None) -> ReplayBackend:
        folders.add(Path(fixtures_dir))
        return ReplayBackend(fixtures_dir, misses_path, usage=usage)

    return make


def make_passage(n: int, text: str, **fields: object) -> Passage:
    """A retrieved passage for unit tests: number `n` of a ranked list (its own session, seq and uuid),
    typed by Sam in the ledgerline project unless `fields` say otherwise."""
    base: dict[str, object] = {
        "id": n,
        "session": f"5e55{n:04d}-aaaa-4bbb-8ccc-{n:012d}",
        "seq": n,
        "uuids": (f"0000{n:04d}-1111-4222-8333-{n:012d}",),
        "kind": "typed",
        "name": "Sam",
        "ts": "2026-08-04T10:00:00Z",
        "text": text,
        "score": 1.0 / n if n else 1.0,
        "cwd": "/home/sam/code/ledgerline",
        "session_kind": "interactive",
    }
    return Passage(**{**base, **fields})  # type: ignore[arg-type]


def typed_record(
    session: str, uuid: str, text: str, ts: str, cwd: str = "/home/me/code/x", *, headless: bool = False
) -> dict[str, object]:
    """One Claude Code transcript record: words the person typed (`headless`: a prompt an SDK run sent)."""
    return {
        "parentUuid": None,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": uuid,
        "timestamp": ts,
        "promptSource": "sdk" if headless else "typed",
        "userType": "external",
        "entrypoint": "sdk-cli" if headless else "cli",
        "cwd": cwd,
        "sessionId": session,
        "version": "2.1.0",
    }


def typed_line(session: str, uuid: str, text: str, ts: str, cwd: str = "/home/me/code/x") -> str:
    """One Claude Code transcript line: words the person typed (no newline at the end)."""
    return json.dumps(typed_record(session, uuid, text, ts, cwd))


def locomo_file(
    path: Path, speakers: tuple[str, str], sessions: list[tuple[str, list[tuple[str, str]]]], filler: int = 0
) -> Path:
    """A one-conversation LoCoMo file `path`: each session a (date, [(speaker, text)]) with dia_ids D{n}:{i};
    `filler` first adds a session of that many busy-work lines by the second speaker (so words are rare)."""
    if filler:
        busy = [(speakers[1], f"Work was busy again, meeting number {i} ran long.") for i in range(1, filler + 1)]
        sessions = [("1:00 pm on 3 May, 2023", busy), *sessions]
    data: dict[str, object] = {"speaker_a": speakers[0], "speaker_b": speakers[1], "qa": []}
    for n, (date, lines) in enumerate(sessions, start=1):
        data[f"session_{n}_date_time"] = date
        data[f"session_{n}"] = [
            {"speaker": who, "dia_id": f"D{n}:{i}", "text": text} for i, (who, text) in enumerate(lines, start=1)
        ]
    path.write_text(json.dumps(data), encoding="utf-8")
    return path

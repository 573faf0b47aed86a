"""Shared fixtures: real SQLite stores in tmp_path, the open worlds and samples from ../shared."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

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

"""Shared fixtures: real SQLite stores in tmp_path, the open worlds and samples from ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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

"""Fixtures for the eval tests: a private VYRE_HOME, the demo world in tmp_path, a fresh working folder."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    from . import eval_world
except ImportError:
    import eval_world  # type: ignore[no-redef]


@pytest.fixture(autouse=True)
def _eval_home(home: Path) -> Path:
    """Every eval test has its own VYRE_HOME (record mode reads the person's config from there)."""
    return home


@pytest.fixture
def demo_world(tmp_path: Path) -> Path:
    return eval_world.make_world(tmp_path / "world")


@pytest.fixture
def read_jsonl() -> Callable[[Path], list[dict[str, Any]]]:
    def read(path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    return read


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Run in an empty folder, so the default fixtures folder (tests/fixtures/replay/<name>) is a fresh one."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    yield folder

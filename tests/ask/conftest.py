"""A memory in tmp_path for the retrieval tests that ingest their own data (the hash embedder, the person "you")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from vyre_memory import Memory


@pytest.fixture()
def memory(tmp_path: Path) -> Iterator[Memory]:
    mem = Memory(tmp_path / "home", user_name="you")
    yield mem
    mem.close()

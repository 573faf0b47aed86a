"""The store contract runs on both engines: SQLite in tmp_path, and a real PostgreSQL with pgvector
(one server for the whole run, `pg_server` in tests/conftest.py, a fresh database per test).
PostgreSQL test ids carry `postgres`, so `pytest -k postgres` selects them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from vyre_memory.store.open import open_store
from vyre_memory.store.sqlite import Store

ENGINES = ["sqlite", "postgres"]


@pytest.fixture(params=ENGINES)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a fresh store lives: a SQLite file path or a postgresql:// URL of a new database."""
    if request.param == "postgres":
        return str(request.getfixturevalue("pg_server").create_database())
    return str(tmp_path / "memory.db")


@pytest.fixture
def make_store(database: str) -> Iterator[Callable[..., Store]]:
    opened: list[Store] = []

    def make(host: str | None = "laptop", readonly: bool = False) -> Store:
        store = open_store(database, host=host, readonly=readonly)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()

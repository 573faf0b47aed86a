"""Which store a memory opens: PostgreSQL when `database` (config.toml) or VYRE_DATABASE_URL is a
postgresql:// URL, else the SQLite file (`database` may name one; default `memory.db` in VYRE_HOME).
Both keep the same interface and the same contract (tests/store)."""

from __future__ import annotations

from pathlib import Path

from .sqlite import Store


def open_store(database: str | Path, *, host: str | None = None, readonly: bool = False) -> Store:
    """The store at `database`: a postgresql:// URL or a SQLite file path."""
    from .postgres import PostgresStore, is_database_url

    if is_database_url(str(database)):
        return PostgresStore(str(database), host=host, readonly=readonly)
    return Store(Path(database).expanduser(), host=host, readonly=readonly)

"""`vyre db copy`: a whole memory from one store into another, SQLite or PostgreSQL either way.

Guarantees: every row of every table is copied with its ids (turns, passages, graph edits), so what
refers to them (record uuids, fact sources, vectors by text hash) still does; the destination must be
empty (no sessions), so nothing is merged by accident; the copy is checked before it is reported: row
counts of every table and a checksum over turns, facts with their sources and the graph with its edits
must be equal in both stores, else CopyError says which differ.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import StoreError
from .pg_schema import KEYS, TABLES
from .sqlite import Store

# what the checksums cover: the person's history, what was read from it, and the person's own edits
CHECKED = ("turns", "facts", "fact_sources", "suppressed_facts", "entities", "edges", "graph_edits")


@dataclass(frozen=True)
class CopyReport:
    rows: dict[str, int]
    checksums: dict[str, str]


def export_rows(store: Store, table: str) -> Iterator[tuple[Any, ...]]:
    """Every row of a table in key order, in the columns of `TABLES` (a vector as float32 bytes)."""
    columns = ", ".join(f'"{c}"' for c in TABLES[table])
    order = ", ".join(f'"{c}"' for c in KEYS[table])
    for row in store.conn.execute(f"SELECT {columns} FROM {table} ORDER BY {order}"):
        if table == "vectors" and not isinstance(row[2], bytes):
            yield row[0], row[1], np.asarray(row[2].to_numpy(), dtype=np.float32).tobytes()
        else:
            yield tuple(row)


def import_rows(store: Store, table: str, rows: Iterable[tuple[Any, ...]]) -> int:
    """Insert rows given in the columns of `TABLES`; returns how many."""
    rows = list(rows)
    columns = TABLES[table]
    if store.searches_in_database and table == "vectors":  # PostgreSQL: pgvector's type, with its dimension
        rows = [(h, m, len(v) // 4, np.frombuffer(v, dtype=np.float32)) for h, m, v in rows]
        columns = ("text_hash", "model", "dim", "vec")
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" * len(columns))
    with store.transaction() as c:
        if table == "meta":  # the destination keeps its own identity (files derived from it name it)
            rows = [r for r in rows if r[0] != "store_id"]
            c.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                rows,
            )
            return len(rows)
        for start in range(0, len(rows), 5000):
            c.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows[start : start + 5000])
        if store.searches_in_database and "id" in columns and table in ("turns", "passages", "graph_edits"):
            # ids were given: the next generated one follows them
            c.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
    return len(rows)


def checksums(store: Store) -> dict[str, str]:
    """Row count and sha256 of the rows (in key order) of each table; the same memory gives the same values
    in either engine."""
    out: dict[str, str] = {}
    for table in TABLES:
        h = hashlib.sha256()
        count = 0
        for row in export_rows(store, table):
            if table == "meta" and row[0] == "store_id":
                continue
            h.update(repr(tuple(_plain(v) for v in row)).encode())
            count += 1
        out[table] = f"{count}:{h.hexdigest()[:16]}"
    return out


def _plain(value: Any) -> Any:
    return float(value) if isinstance(value, float) else value


def copy_store(src: Store, dst: Store, progress: Callable[[str, int], None] | None = None) -> CopyReport:
    """Copy everything in `src` into the empty `dst`, then check both hold the same rows."""
    held = dst.stats()["sessions"]["total"]
    if held:
        raise StoreError(f"{dst.location} already holds {held} sessions; copy into a new, empty database")
    rows: dict[str, int] = {}
    for table in TABLES:
        rows[table] = import_rows(dst, table, export_rows(src, table))
        if progress:
            progress(table, rows[table])
    before, after = checksums(src), checksums(dst)
    differ = [t for t in TABLES if before[t] != after[t]]
    if differ:
        raise StoreError(f"the copy differs from {src.location} in {', '.join(differ)}; do not use {dst.location}")
    return CopyReport(rows=rows, checksums={t: after[t] for t in CHECKED})

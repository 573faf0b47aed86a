"""The graph's tables: derived entities, aliases and edges with sources, and the person's edits.

Guarantees:
- `replace_graph` swaps the whole derived graph in one transaction; `graph_version` goes up only
  when the graph really changed (its digest);
- edits are an append-only log in `graph_edits`, never touched by a derive, so they survive every
  re-ingest and re-derive (the reader re-applies them in order);
- reads return whole rows in a fixed order, so the same graph gives the same output.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..contract import Edge, EdgeSource, Entity


@dataclass(frozen=True)
class GraphEdit:
    id: int
    op: str
    args: dict[str, Any]
    at: str


def _digest(entities: Sequence[Entity], edges: Sequence[Edge]) -> str:
    h = hashlib.sha256()
    for e in sorted(entities, key=lambda e: e.id):
        h.update(
            repr(
                (e.id, e.kind, e.name, sorted(e.aliases), e.pinned, e.status, e.first_ts, e.last_ts, e.mentions)
            ).encode()
        )
    for g in sorted(edges, key=lambda g: g.id):
        h.update(
            repr(
                (
                    g.id,
                    g.src,
                    g.relation,
                    g.dst,
                    g.confidence,
                    g.status,
                    g.ts,
                    g.said_by,
                    [tuple(s.__dict__.values()) for s in g.sources],
                )
            ).encode()
        )
    return h.hexdigest()


class GraphStore:
    conn: sqlite3.Connection

    def graph_version(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'graph_version'").fetchone()
        return int(row[0]) if row else 0

    # -- edits ------------------------------------------------------------------------------------
    def graph_edits(self) -> list[GraphEdit]:
        return [
            GraphEdit(r[0], r[1], json.loads(r[2]), r[3])
            for r in self.conn.execute("SELECT id, op, args, at FROM graph_edits ORDER BY id")
        ]

    def add_graph_edit(self, op: str, args: dict[str, Any], at: str) -> int:
        with self.transaction() as c:  # type: ignore[attr-defined]
            cur = c.execute(
                "INSERT INTO graph_edits (op, args, at) VALUES (?, ?, ?)", (op, json.dumps(args, sort_keys=True), at)
            )
            return int(cur.lastrowid or 0)

    # -- the derived graph ------------------------------------------------------------------------
    def replace_graph(self, entities: Sequence[Entity], edges: Sequence[Edge]) -> bool:
        """Store the whole graph; True when it differs from what was stored."""
        digest = _digest(entities, edges)
        with self.transaction() as c:  # type: ignore[attr-defined]
            row = c.execute("SELECT value FROM meta WHERE key = 'graph_digest'").fetchone()
            if row is not None and row[0] == digest:
                return False
            for table in ("edge_sources", "edges", "entity_aliases", "entities"):
                c.execute(f"DELETE FROM {table}")
            c.executemany(
                "INSERT INTO entities (id, kind, name, pinned, status, first_ts, last_ts, mentions) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(e.id, e.kind, e.name, int(e.pinned), e.status, e.first_ts, e.last_ts, e.mentions) for e in entities],
            )
            c.executemany(
                "INSERT OR IGNORE INTO entity_aliases (entity, alias) VALUES (?, ?)",
                [(e.id, a) for e in entities for a in e.aliases],
            )
            c.executemany(
                "INSERT INTO edges (id, src, relation, dst, confidence, status, ts, said_by) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(g.id, g.src, g.relation, g.dst, g.confidence, g.status, g.ts, g.said_by) for g in edges],
            )
            c.executemany(
                "INSERT OR IGNORE INTO edge_sources (edge, session, seq, uuid, quote, ts) VALUES (?, ?, ?, ?, ?, ?)",
                [(g.id, s.session, s.seq, s.uuid, s.quote, s.ts) for g in edges for s in g.sources],
            )
            c.execute(
                "INSERT INTO meta (key, value) VALUES ('graph_digest', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (digest,),
            )
            c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'graph_version'")
        return True

    def graph_entities(self) -> list[Entity]:
        aliases: dict[str, list[str]] = {}
        for entity, alias in self.conn.execute("SELECT entity, alias FROM entity_aliases ORDER BY entity, alias"):
            aliases.setdefault(entity, []).append(alias)
        return [
            Entity(
                id=r[0],
                kind=r[1],
                name=r[2],
                aliases=tuple(aliases.get(r[0], ())),
                pinned=bool(r[3]),
                status=r[4],
                first_ts=r[5],
                last_ts=r[6],
                mentions=r[7],
            )
            for r in self.conn.execute(
                "SELECT id, kind, name, pinned, status, first_ts, last_ts, mentions FROM entities "
                "ORDER BY kind, name, id"
            )
        ]

    def graph_edges(self) -> list[Edge]:
        sources: dict[str, list[EdgeSource]] = {}
        for r in self.conn.execute(
            "SELECT edge, session, seq, uuid, quote, ts FROM edge_sources ORDER BY edge, ts, session, seq"
        ):
            sources.setdefault(r[0], []).append(EdgeSource(r[1], r[2], r[3], r[4], r[5]))
        return [
            Edge(
                id=r[0],
                src=r[1],
                relation=r[2],
                dst=r[3],
                confidence=r[4],
                status=r[5],
                ts=r[6],
                said_by=r[7],
                sources=tuple(sources.get(r[0], ())),
            )
            for r in self.conn.execute(
                "SELECT id, src, relation, dst, confidence, status, ts, said_by FROM edges ORDER BY src, relation, id"
            )
        ]

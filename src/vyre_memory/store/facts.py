"""Personal facts, their sources and the facts the person deleted: the SQL half of the fact reader.

Guarantees:
- `replace_facts` swaps the whole derived fact set in one transaction, so a reader sees either the
  old set or the new one; `facts_version` goes up only when the set really changed (its digest).
- a deleted fact is removed with its sources and remembered as suppressed for the turns it came
  from (turn id and record uuid): those same turns never yield it again, a new turn may.
- every query that serves an answer returns each source with its session's cwd, so the caller's
  scope is applied before a fact is used.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..contract import Fact, FactSource


@dataclass(frozen=True)
class NewFact:
    """A derived fact ready to store, with every mention (one per turn)."""

    id: str
    subject: str
    relation: str
    object: str
    confidence: float
    first_ts: str | None
    last_ts: str | None
    status: str
    sources: tuple[FactSource, ...]


@dataclass(frozen=True)
class FactMention:
    """One source row of a stored fact, with what the fast path needs to scope and phrase it."""

    fact: str
    subject: str
    relation: str
    object: str
    status: str
    session: str
    seq: int
    uuid: str | None
    quote: str
    ts: str | None
    confidence: float
    cwd: str | None


_FACT_COLUMNS = "id, subject, relation, object, confidence, first_ts, last_ts, status"
_SOURCE_COLUMNS = "session, seq, turn, uuid, quote, ts, confidence, via"


def _digest(facts: Sequence[NewFact]) -> str:
    h = hashlib.sha256()
    for f in sorted(facts, key=lambda f: f.id):
        h.update(repr((f.id, f.object, f.confidence, f.first_ts, f.last_ts, f.status)).encode())
        for s in f.sources:
            h.update(repr((s.turn, s.uuid, s.quote, s.ts, s.confidence, s.via)).encode())
    return h.hexdigest()


class FactStore:
    conn: sqlite3.Connection

    # -- deriving ---------------------------------------------------------------------------------
    def facts_version(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'facts_version'").fetchone()
        return int(row[0]) if row else 0

    def suppressed_facts(self) -> tuple[set[tuple[str, int]], set[tuple[str, str]]]:
        """(fact id, turn id) and (fact id, record uuid) pairs the person deleted."""
        by_turn: set[tuple[str, int]] = set()
        by_uuid: set[tuple[str, str]] = set()
        for fact, turn, uuid in self.conn.execute("SELECT fact, turn, uuid FROM suppressed_facts"):
            by_turn.add((fact, turn))
            if uuid:
                by_uuid.add((fact, uuid))
        return by_turn, by_uuid

    def replace_facts(self, facts: Sequence[NewFact], derived_turn: int) -> bool:
        """Store `facts` as the whole fact set; True when it differs from what was stored."""
        digest = _digest(facts)
        with self.transaction() as c:  # type: ignore[attr-defined]
            row = c.execute("SELECT value FROM meta WHERE key = 'facts_digest'").fetchone()
            changed = row is None or row[0] != digest
            c.execute(
                "INSERT INTO meta (key, value) VALUES ('derived_turn', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(derived_turn),),
            )
            if not changed:
                return False
            c.execute("DELETE FROM fact_sources")
            c.execute("DELETE FROM facts")
            c.executemany(
                f"INSERT INTO facts ({_FACT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(f.id, f.subject, f.relation, f.object, f.confidence, f.first_ts, f.last_ts, f.status) for f in facts],
            )
            c.executemany(
                f"INSERT OR REPLACE INTO fact_sources (fact, {_SOURCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (f.id, s.session, s.seq, s.turn, s.uuid, s.quote, s.ts, s.confidence, s.via)
                    for f in facts
                    for s in f.sources
                ],
            )
            c.execute(
                "INSERT INTO meta (key, value) VALUES ('facts_digest', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (digest,),
            )
            c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'facts_version'")
        return True

    def derived_turn(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'derived_turn'").fetchone()
        return int(row[0]) if row else 0

    def stored_mentions(self) -> list[tuple[Any, ...]]:
        """Every stored source row: (fact, subject, relation, object, turn, session, seq, uuid, quote, ts,
        confidence, via), in a fixed order."""
        return [
            tuple(r)
            for r in self.conn.execute(
                """SELECT f.id, f.subject, f.relation, f.object, fs.turn, fs.session, fs.seq, fs.uuid, fs.quote, fs.ts,
                          fs.confidence, fs.via
                   FROM fact_sources fs JOIN facts f ON f.id = fs.fact ORDER BY f.id, fs.turn"""
            )
        ]

    def turns_before(self, session: str, seq: int, kinds: Sequence[str]) -> list[tuple[int, int, str]]:
        """(turn id, seq, kind) of the turns of `kinds` in `session` before `seq`, newest first, at most 1000."""
        marks = ",".join("?" * len(kinds))
        return [
            (r[0], r[1], r[2])
            for r in self.conn.execute(
                f"""SELECT id, seq, kind FROM turns WHERE session = ? AND seq < ? AND kind IN ({marks})
                    ORDER BY seq DESC LIMIT 1000""",
                [session, seq, *kinds],
            )
        ]

    # -- reading ----------------------------------------------------------------------------------
    def facts(self, *, subject: str | None = None, relation: str | None = None) -> list[Fact]:
        sql = f"SELECT {_FACT_COLUMNS} FROM facts WHERE 1=1"
        params: list[object] = []
        if subject is not None:
            sql += " AND subject = ?"
            params.append(subject.strip().lower())
        if relation is not None:
            sql += " AND relation = ?"
            params.append(relation.strip().lower())
        sql += " ORDER BY subject, relation, last_ts DESC, id"
        rows = self.conn.execute(sql, params).fetchall()
        sources = self._sources([r[0] for r in rows])
        return [_fact(r, sources.get(r[0], ())) for r in rows]

    def fact(self, fact_id: str) -> Fact | None:
        rows = self.conn.execute(f"SELECT {_FACT_COLUMNS} FROM facts WHERE id = ?", (fact_id,)).fetchall()
        if not rows and len(fact_id) >= 6:  # a unique prefix, as the CLI prints short ids
            rows = self.conn.execute(
                f"SELECT {_FACT_COLUMNS} FROM facts WHERE id LIKE ? LIMIT 2", (fact_id.lower() + "%",)
            ).fetchall()
        if len(rows) != 1:
            return None
        return _fact(rows[0], self._sources([rows[0][0]]).get(rows[0][0], ()))

    def _sources(self, ids: Sequence[str]) -> dict[str, tuple[FactSource, ...]]:
        out: dict[str, list[FactSource]] = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for r in self.conn.execute(
                f"SELECT fact, {_SOURCE_COLUMNS} FROM fact_sources WHERE fact IN ({','.join('?' * len(chunk))}) "
                "ORDER BY fact, ts, turn",
                chunk,
            ):
                out.setdefault(r[0], []).append(FactSource(*r[1:]))
        return {k: tuple(v) for k, v in out.items()}

    def fact_mentions(self) -> list[FactMention]:
        """Every source row of every fact, with its session's cwd (for the fast path's scope)."""
        rows = self.conn.execute(
            """SELECT f.id, f.subject, f.relation, f.object, f.status, fs.session, fs.seq, fs.uuid, fs.quote, fs.ts,
                      fs.confidence, s.cwd
               FROM facts f JOIN fact_sources fs ON fs.fact = f.id JOIN sessions s ON s.id = fs.session
               ORDER BY f.id, fs.ts, fs.turn"""
        ).fetchall()
        return [FactMention(*r) for r in rows]

    # -- editing ----------------------------------------------------------------------------------
    def delete_fact(self, fact_id: str, deleted_at: str) -> bool:
        """Remove a fact and its sources; remember its source turns so they never yield it again."""
        with self.transaction() as c:  # type: ignore[attr-defined]
            row = c.execute("SELECT subject, relation, object FROM facts WHERE id = ?", (fact_id,)).fetchone()
            if row is None:
                return False
            c.execute(
                """INSERT OR IGNORE INTO suppressed_facts (fact, turn, uuid, subject, relation, object, deleted_at)
                   SELECT fact, turn, uuid, ?, ?, ?, ? FROM fact_sources WHERE fact = ?""",
                (row[0], row[1], row[2], deleted_at, fact_id),
            )
            c.execute("DELETE FROM fact_sources WHERE fact = ?", (fact_id,))
            c.execute("DELETE FROM facts WHERE id = ?", (fact_id,))
            c.execute("DELETE FROM meta WHERE key = 'facts_digest'")
            c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'facts_version'")
        return True


def _fact(r: sqlite3.Row | tuple[object, ...], sources: tuple[FactSource, ...]) -> Fact:
    return Fact(
        id=str(r[0]),
        subject=str(r[1]),
        relation=str(r[2]),
        object=str(r[3]),
        confidence=float(r[4]),  # type: ignore[arg-type]
        first_ts=r[5],  # type: ignore[arg-type]
        last_ts=r[6],  # type: ignore[arg-type]
        status=str(r[7]),
        sources=sources,
    )

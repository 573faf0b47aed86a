"""Passages, their full-text index and their vectors: the SQL half of retrieval.

Guarantees: every query takes a `Scope` and puts its filter in the SQL itself, so rows outside
the scope are never read or scored; memory's own sessions (its ask threads) are never passages
a question can be answered from; vectors are cached by (text hash, model).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..contract import AGENT_PROMPT, ASSISTANT, COMMAND, COMPACT_SUMMARY, PASTED, THINKING, TYPED, Scope


@dataclass(frozen=True)
class IndexTurn:
    """A stored turn with what passage building needs."""

    id: int
    session: str
    seq: int
    uuids: tuple[str, ...]
    role: str
    kind: str
    name: str | None
    text: str
    ts: str | None
    tool_name: str | None
    tool_use_id: str | None
    paths: tuple[str, ...]
    cwd: str | None
    session_kind: str
    title: str | None = None
    prompt: str | None = None  # the person's last typed words before this turn, in its session
    previous: str | None = None  # the line before this one by another person (what this one answers)


@dataclass(frozen=True)
class NewPassage:
    turn: int
    session: str
    seq: int
    piece: int
    uuids: tuple[str, ...]
    kind: str
    ts: str | None
    text: str
    search: str  # what full-text search indexes
    embed: str  # what the embedder reads
    text_hash: str  # of `embed`: vectors are cached by it


@dataclass(frozen=True)
class PassageRow:
    id: int
    turn: int
    session: str
    seq: int
    piece: int
    uuids: tuple[str, ...]
    kind: str
    ts: str | None
    text: str
    name: str | None
    role: str
    tool_name: str | None
    cwd: str | None
    session_kind: str
    title: str | None
    search: str = ""


@dataclass(frozen=True)
class DecisionSource:
    """One turn a graph decision was read from."""

    decision: str  # the decision entity's id
    name: str
    status: str  # "current" | "superseded"
    project: str
    session: str
    seq: int
    quote: str
    ts: str | None


# The order passages get their vectors in (a first large ingest waits hours for all of them): the person's
# typed words and the assistant's prose first, which most questions are answered from; then other words
# (summaries, a subagent's brief, reasoning, commands, pasted material); tool calls and their output
# last (the most text, the least often the answer). Each class keeps its own mark per model in `meta`
# (`embedded_key`); changing the classes needs a migration of the marks.
EMBED_CLASSES: tuple[tuple[str, ...], ...] = (
    (TYPED, ASSISTANT),
    (COMPACT_SUMMARY, AGENT_PROMPT, THINKING, COMMAND, PASTED),
    (),  # every other kind: tool calls and their output
)


def embedded_key(model: str, priority: int) -> str:
    """The `meta` key of one priority class's mark under `model`."""
    return f"embedded.{priority}:{model}"


def embed_priority(kind: str) -> int:
    """The priority class of a passage of this kind (0 is embedded first)."""
    return next((i for i, kinds in enumerate(EMBED_CLASSES) if kind in kinds), len(EMBED_CLASSES) - 1)


def embed_class_sql(priority: int) -> tuple[str, list[object]]:
    """The WHERE fragment (after another condition) choosing one priority class of passages aliased `p`."""
    kinds = EMBED_CLASSES[priority]
    if kinds:
        return f" AND p.kind IN ({','.join('?' * len(kinds))})", list(kinds)
    named = [k for c in EMBED_CLASSES for k in c]
    return f" AND p.kind NOT IN ({','.join('?' * len(named))})", list(named)


@dataclass(frozen=True)
class EmbedBatch:
    """What `passages_to_embed` found: the last passage id it covers (0: none left in the class), how many
    passages it covers, and text hash -> text of those among them still without a vector."""

    through: int
    passages: int
    texts: dict[str, str]


def rarest_within(words: Sequence[str], matches: dict[str, float], budget: float) -> tuple[list[str], float]:
    """The words a full-text search ranks when it can afford about `budget` matches: the rarest first, as many as
    fit (always one), in their own order; and how many matches those hold."""
    chosen: set[str] = set()
    spent = 0.0
    for w in sorted(words, key=lambda w: (matches[w], w)):
        if chosen and spent + matches[w] > budget:
            break
        chosen.add(w)
        spent += matches[w]
    return [w for w in words if w in chosen], spent


TURNS_PER_QUERY = 500  # (session, seq) pairs looked up in one statement
MATCH_SPANS = 20  # a sampled match count reads at least this many spans of passage ids (match_count) ...
MATCH_GAP = 50_000  # ... and so many that they start at most this many ids apart
_COUNT = "SELECT COUNT(*) FROM passages_fts WHERE passages_fts MATCH ?"
_COUNT_IN = f"{_COUNT} AND rowid > ? AND rowid <= ?"


def scope_sql(scope: Scope, session_alias: str = "s") -> tuple[str, list[object]]:
    """The WHERE fragment for a scope, over the sessions table aliased `session_alias`."""
    from .sqlite import scope_clause

    folders = scope.folders()
    where, params = scope_clause(folders, column=f"{session_alias}.cwd")
    kinds = scope.excluded_session_kinds()
    if kinds:
        where += f" AND {session_alias}.kind NOT IN ({','.join('?' * len(kinds))})"
        params += list(kinds)
    return where, params


def _window_sql(since: str | None, until: str | None, params: list[object]) -> str:
    """The time-window fragment for passages aliased `p`; appends its parameters."""
    sql = ""
    if since:
        sql += " AND p.ts >= ?"
        params.append(since)
    if until:
        # with no window, `until` is memory's "now": a passage with no time is not known to be after it
        sql += " AND p.ts < ?" if since else " AND (p.ts IS NULL OR p.ts < ?)"
        params.append(until)
    return sql


class PassageStore:
    conn: sqlite3.Connection

    # -- building --------------------------------------------------------------------------------
    def indexed_turn(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'indexed_turn'").fetchone()
        return int(row[0]) if row else 0

    def turns_to_index(self, after_id: int, limit: int = 5000) -> list[IndexTurn]:
        rows = self.conn.execute(
            """SELECT t.id, t.session, t.seq, t.uuids, t.role, t.kind, t.name, t.text, t.ts, t.tool_name,
                      t.tool_use_id, t.paths, s.cwd, s.kind AS session_kind, s.title,
                      (SELECT p.text FROM turns p WHERE p.session = t.session AND p.seq < t.seq
                         AND p.kind IN ('typed', 'agent_prompt') ORDER BY p.seq DESC LIMIT 1) AS prompt,
                      (SELECT p.text FROM turns p WHERE p.session = t.session AND p.seq < t.seq
                         AND p.kind = 'typed' AND COALESCE(p.name, '') != COALESCE(t.name, '')
                         ORDER BY p.seq DESC LIMIT 1) AS previous
               FROM turns t JOIN sessions s ON s.id = t.session WHERE t.id > ? ORDER BY t.id LIMIT ?""",
            (after_id, limit),
        ).fetchall()
        return [
            IndexTurn(
                id=r[0],
                session=r[1],
                seq=r[2],
                uuids=tuple(json.loads(r[3])),
                role=r[4],
                kind=r[5],
                name=r[6],
                text=r[7],
                ts=r[8],
                tool_name=r[9],
                tool_use_id=r[10],
                paths=tuple(json.loads(r[11])) if r[11] else (),
                cwd=r[12],
                session_kind=r[13],
                title=r[14],
                prompt=r[15],
                previous=r[16],
            )
            for r in rows
        ]

    def tool_pair(self, session: str, tool_use_id: str, kind: str) -> tuple[int, tuple[str, ...], str] | None:
        """The other half of a tool call: (turn id, uuids, text) of the `kind` turn with this id."""
        row = self.conn.execute(
            "SELECT id, uuids, text FROM turns WHERE session = ? AND tool_use_id = ? AND kind = ? ORDER BY id LIMIT 1",
            (session, tool_use_id, kind),
        ).fetchone()
        return (row[0], tuple(json.loads(row[1])), row[2]) if row else None

    def tool_output(self, session: str, seq: int) -> tuple[int, bool] | None:
        """The seq of the output of the tool call at (session, seq) (the output's passage carries the call) and
        whether the tool reported an error there (an edit refused, a command that failed), or None when it is not
        a tool call or its output is not stored."""
        row = self.conn.execute(
            """SELECT o.seq, o.is_error FROM turns c
                 JOIN turns o ON o.session = c.session AND o.tool_use_id = c.tool_use_id
               WHERE c.session = ? AND c.seq = ? AND c.kind = 'tool_call' AND o.kind = 'tool_output'
               ORDER BY o.id LIMIT 1""",
            (session, seq),
        ).fetchone()
        return (int(row[0]), bool(row[1])) if row else None

    def add_passages(self, passages: Sequence[NewPassage], indexed_turn: int) -> None:
        with self.transaction() as c:  # type: ignore[attr-defined]
            c.executemany(
                """INSERT OR IGNORE INTO passages (turn, session, seq, piece, uuids, kind, ts, text, search, embed,
                     text_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                [
                    (
                        p.turn,
                        p.session,
                        p.seq,
                        p.piece,
                        json.dumps(list(p.uuids)),
                        p.kind,
                        p.ts,
                        p.text,
                        p.search,
                        p.embed,
                        p.text_hash,
                    )
                    for p in passages
                ],
            )
            c.execute("UPDATE meta SET value = ? WHERE key = 'indexed_turn'", (str(indexed_turn),))

    # -- vectors --------------------------------------------------------------------------------
    def passages_to_embed(self, model: str, priority: int | None, after_id: int, limit: int) -> EmbedBatch:
        """The next `limit` passages of one priority class (`EMBED_CLASSES`; of every class when None) after
        `after_id`, and the texts among them with no vector under `model` yet (a text already embedded is never
        embedded again).

        Each class reads forward from its own mark, so an ingest with nothing new to embed costs nothing.
        """
        where, params = embed_class_sql(priority) if priority is not None else ("", [])
        rows = self.conn.execute(
            f"SELECT id, text_hash, embed FROM passages p WHERE id > ?{where} ORDER BY id LIMIT ?",
            [after_id, *params, limit],
        ).fetchall()
        if not rows:
            return EmbedBatch(0, 0, {})
        have = set(self.vectors_by_hash(model, list({r[1] for r in rows})))
        return EmbedBatch(rows[-1][0], len(rows), {r[1]: r[2] for r in rows if r[1] not in have})

    def vectors_by_hash(self, model: str, hashes: Sequence[str], dim: int = 0) -> dict[str, np.ndarray]:
        """The vectors under `model` of those of these text hashes that have one (with `dim` 0, only which do:
        each maps to an empty array)."""
        out: dict[str, np.ndarray] = {}
        column = "vec" if dim else "NULL"
        for start in range(0, len(hashes), 500):
            chunk = list(hashes[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT text_hash, {column} FROM vectors WHERE model = ? AND text_hash IN ({marks})", [model, *chunk]
            ).fetchall()
            if dim and rows:
                matrix = self._matrix([r[1] for r in rows], dim)
                out.update((r[0], matrix[i]) for i, r in enumerate(rows))
            else:
                out.update((r[0], np.zeros(0, dtype=np.float32)) for r in rows)
        return out

    def typed_passages(self, after_id: int, through_id: int, limit: int) -> list[tuple[int, str, str | None]]:
        """(id, text, speaker's name) of the passages of typed words in (after_id, through_id], in id order."""
        rows = self.conn.execute(
            "SELECT p.id, p.text, t.name FROM passages p JOIN turns t ON t.id = p.turn "
            "WHERE p.id > ? AND p.id <= ? AND p.kind = ? ORDER BY p.id LIMIT ?",
            [after_id, through_id, TYPED, limit],
        ).fetchall()
        return [(int(r[0]), str(r[1]), r[2]) for r in rows]

    def conversation_passages(
        self, after_id: int, through_id: int, limit: int, agent_formats: Collection[str]
    ) -> list[tuple[int, str, int, int]]:
        """(id, session, seq, piece) of the passages in (after_id, through_id] of conversations (sessions of a format
        other than these), in id order."""
        if not self.has_conversations(agent_formats):
            return []  # a coding agent's history: no passage read (the range may be a million of them)
        marks = ",".join("?" * len(agent_formats))
        rows = self.conn.execute(  # forward from after_id: a mark moving on reads each passage once
            "SELECT p.id, p.session, p.seq, p.piece FROM passages p JOIN sessions s ON s.id = p.session "
            f"WHERE p.id > ? AND p.id <= ? AND s.format NOT IN ({marks}) ORDER BY p.id LIMIT ?",
            [after_id, through_id, *sorted(agent_formats), limit],
        ).fetchall()
        return [(int(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]

    def conversation_passage_count(self, after_id: int, agent_formats: Collection[str]) -> int:
        """How many passages of conversations come after `after_id`."""
        if not self.has_conversations(agent_formats):
            return 0
        marks = ",".join("?" * len(agent_formats))
        row = self.conn.execute(
            "SELECT COUNT(*) FROM passages p JOIN sessions s ON s.id = p.session "
            f"WHERE p.id > ? AND s.format NOT IN ({marks})",
            [after_id, *sorted(agent_formats)],
        )
        return int(row.fetchone()[0])

    def passages_between(
        self, session: str, first: tuple[int, int], last: tuple[int, int], before: int
    ) -> list[tuple[int, str]]:
        """(id, text) of the passages of `session` in the order said (seq, then piece): from the `before`-th passage
        before (seq, piece) `first` (or the session's first) through `last`."""
        seq, piece = first
        if before:
            start = self.conn.execute(
                "SELECT seq, piece FROM passages WHERE session = ? AND (seq < ? OR (seq = ? AND piece < ?)) "
                "ORDER BY seq DESC, piece DESC LIMIT 1 OFFSET ?",
                [session, seq, seq, piece, before - 1],
            ).fetchone()
            seq, piece = (int(start[0]), int(start[1])) if start else (-1, 0)  # fewer before it: the session's first
        rows = self.conn.execute(
            "SELECT id, text FROM passages WHERE session = ? AND (seq > ? OR (seq = ? AND piece >= ?)) "
            "AND (seq < ? OR (seq = ? AND piece <= ?)) ORDER BY seq, piece",
            [session, seq, seq, piece, last[0], last[0], last[1]],
        )
        return [(int(r[0]), str(r[1])) for r in rows]

    def typed_passage_count(self, after_id: int) -> int:
        """How many passages of typed words come after `after_id`."""
        row = self.conn.execute("SELECT COUNT(*) FROM passages WHERE id > ? AND kind = ?", [after_id, TYPED])
        return int(row.fetchone()[0])

    def passages_to_embed_count(self, model: str) -> list[int]:
        """How many passages of each priority class are past that class's mark under `model` (wait for a
        vector, or for the mark to pass a text already embedded)."""
        marks = self.embedded_through(model)
        counts = []
        for priority, mark in enumerate(marks):
            where, params = embed_class_sql(priority)
            row = self.conn.execute(f"SELECT COUNT(*) FROM passages p WHERE id > ?{where}", [mark, *params])
            counts.append(int(row.fetchone()[0]))
        return counts

    def put_vectors(
        self,
        model: str,
        items: Sequence[tuple[str, np.ndarray]],
        *,
        through_id: int = 0,
        priority: int | None = None,
        mark: str | None = None,
    ) -> None:
        """Store vectors and move the model's mark of one priority class (of every class when `priority` is
        None; the meta key `mark` instead when given) to `through_id`, in one transaction: a kill between two
        batches loses nothing."""
        with self.transaction() as c:  # type: ignore[attr-defined]
            self._insert_vectors(c, model, items)
            if through_id:
                classes = range(len(EMBED_CLASSES)) if priority is None else [priority]
                keys = [mark] if mark else [embedded_key(model, p) for p in classes]
                c.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = "
                    f"CAST({self._greatest}(CAST(meta.value AS BIGINT), CAST(excluded.value AS BIGINT)) AS TEXT)",
                    [(key, str(through_id)) for key in keys],
                )
            c.execute(
                "INSERT INTO meta (key, value) VALUES ('vectors_version', '1') "
                "ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(meta.value AS BIGINT) + 1 AS TEXT)"
            )

    _greatest = "MAX"  # SQLite's name for the larger of two values

    def _insert_vectors(self, c: Any, model: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        c.executemany(
            "INSERT OR REPLACE INTO vectors (text_hash, model, vec) VALUES (?, ?, ?)",
            [(h, model, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items],
        )

    def embedded_through(self, model: str) -> list[int]:
        """Each priority class's mark under `model`: every passage of the class up to it has its vector."""
        keys = [embedded_key(model, p) for p in range(len(EMBED_CLASSES))]
        rows = dict(self.conn.execute(f"SELECT key, value FROM meta WHERE key IN ({','.join('?' * len(keys))})", keys))
        return [int(rows.get(k, 0)) for k in keys]

    def vectors_version(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'vectors_version'").fetchone()
        return int(row[0]) if row else 0

    def load_vectors(
        self,
        model: str,
        dim: int,
        after_id: int = 0,
        limit: int = -1,
        through_id: int | None = None,
        classes: Sequence[tuple[int, int]] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(passage ids, vectors) in id order for the passages after `after_id` (and up to `through_id`; at most
        `limit`) with a vector under `model`; with `classes`, only those of priority class c whose id is in
        (after, through] of `classes[c]`."""
        where, params = "", []
        if classes is not None:
            parts = []
            for priority, (after, through) in enumerate(classes):
                kinds, kind_params = embed_class_sql(priority)
                parts.append(f"(p.id > ? AND p.id <= ?{kinds})")
                params += [after, through, *kind_params]
            where = f" AND ({' OR '.join(parts)})"
        rows = self.conn.execute(
            "SELECT p.id, v.vec FROM passages p JOIN vectors v ON v.text_hash = p.text_hash AND v.model = ? "
            f"WHERE p.id > ? AND p.id <= ?{where} ORDER BY p.id LIMIT ?",
            [model, after_id, through_id if through_id is not None else 1 << 62, *params, self._limit(limit)],
        ).fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return ids, self._matrix([r[1] for r in rows], dim)

    @staticmethod
    def _limit(limit: int) -> int | None:
        return limit

    @staticmethod
    def _matrix(vectors: list[Any], dim: int) -> np.ndarray:
        return np.frombuffer(b"".join(vectors), dtype=np.float32).reshape(len(vectors), dim)

    def passage_hashes(self, ids: Sequence[int]) -> dict[int, str]:
        """The text hash of each of these passages that exists."""
        marks = ",".join("?" * len(ids))
        rows = self.conn.execute(f"SELECT id, text_hash FROM passages WHERE id IN ({marks})", list(ids))
        return {r[0]: r[1] for r in rows}

    def project_folders(self) -> list[str]:
        """The folders sessions ran in (each session's project), each once."""
        rows = self.conn.execute("SELECT DISTINCT project FROM sessions WHERE project IS NOT NULL").fetchall()
        return [str(r[0]) for r in rows]

    def passage_count(self) -> int:
        """An upper bound on the passages (ids are never reused): instant, unlike COUNT(*)."""
        return int(self.conn.execute("SELECT COALESCE(MAX(id), 0) FROM passages").fetchone()[0])

    # -- querying -------------------------------------------------------------------------------
    def bm25(
        self,
        match: str,
        scope: Scope,
        *,
        limit: int = 100,
        since: str | None = None,
        until: str | None = None,
        ids: tuple[int, int] | None = None,
        ranked: bool = True,
    ) -> list[tuple[int, float]]:
        """(passage id, score) best first; higher is better. `ids` (first, last) bounds the passage ids
        FTS5 visits, so a search can rank only part of a huge index. Unranked, the latest matches come
        first (by passage id): FTS5's bm25() counts every match of each word in the whole index, ids
        bounds or not, which a word in a tenth of a million passages makes cost a tenth of a second."""
        if not match:
            return []
        first, last = ids or (0, 1 << 62)
        where, params = scope_sql(scope)
        time_sql = _window_sql(since, until, params)
        if not ranked:
            sql = f"""SELECT p.id, passages_fts.rowid FROM passages_fts
                      JOIN passages p ON p.id = passages_fts.rowid JOIN sessions s ON s.id = p.session
                      WHERE passages_fts MATCH ? AND passages_fts.rowid BETWEEN ? AND ? AND {where}{time_sql}
                      ORDER BY passages_fts.rowid DESC LIMIT ?"""
            args = [match, first, last, *params, limit]
        elif scope.folders() is None and since is None:
            # The person's own scope sees every project: FTS5 finds its top matches first (ORDER BY rank
            # LIMIT is its fast path), and only memory's own threads and later turns are dropped after.
            sql = f"""SELECT p.id, f.rank FROM
                        (SELECT rowid, rank FROM passages_fts WHERE passages_fts MATCH ? AND rowid BETWEEN ? AND ?
                         ORDER BY rank LIMIT ?) f
                      JOIN passages p ON p.id = f.rowid JOIN sessions s ON s.id = p.session
                      WHERE {where}{time_sql} ORDER BY f.rank LIMIT ?"""
            args = [match, first, last, limit * 4, *params, limit]
        else:
            sql = f"""SELECT p.id, bm25(passages_fts) AS score FROM passages_fts
                      JOIN passages p ON p.id = passages_fts.rowid JOIN sessions s ON s.id = p.session
                      WHERE passages_fts MATCH ? AND passages_fts.rowid BETWEEN ? AND ? AND {where}{time_sql}
                      ORDER BY score LIMIT ?"""
            args = [match, first, last, *params, limit]
        try:
            rows = self.conn.execute(sql, args).fetchall()
        except sqlite3.OperationalError:
            return []
        return [(r[0], float(r[1]) if not ranked else -float(r[1])) for r in rows]

    def passage_places(self, after_id: int, limit: int) -> list[tuple[int, str, bytes | None]]:
        """(id, session, ts as UTF-8 bytes) of the passages after `after_id`, in id order (for the in-memory
        directory; bytes compare as SQLite compares the text, and cost less to read)."""
        return self.conn.execute(
            "SELECT id, session, CAST(ts AS BLOB) FROM passages WHERE id > ? ORDER BY id LIMIT ?", (after_id, limit)
        ).fetchall()

    def passage_places_from_indexes(self, after_id: int, through_id: int) -> list[tuple[int, str, bytes | None]]:
        """The same as `passage_places` for the ids in (after_id, through_id], read from the (session, seq)
        and (ts) indexes alone: a small share of the table's pages, for the first load of a large store
        whose pages are not in the cache."""
        sessions = sorted(
            (r[0], r[1])
            for r in self.conn.execute(
                "SELECT id, session FROM passages INDEXED BY passages_session WHERE id > ? AND id <= ?",
                (after_id, through_id),
            )
        )
        times = {
            r[0]: r[1]
            for r in self.conn.execute(
                "SELECT id, CAST(ts AS BLOB) FROM passages INDEXED BY passages_ts WHERE id > ? AND id <= ?",
                (after_id, through_id),
            )
        }
        return [(pid, session, times.get(pid)) for pid, session in sessions]

    def has_conversations(self, agent_formats: Collection[str]) -> bool:
        """Whether any session is of a format other than these (a conversation, not a coding agent's session)."""
        marks = ",".join("?" * len(agent_formats))
        row = self.conn.execute(
            f"SELECT EXISTS (SELECT 1 FROM sessions WHERE format NOT IN ({marks}))", sorted(agent_formats)
        ).fetchone()
        return bool(row[0])

    def sessions_in_scope(self, scope: Scope) -> list[str]:
        """The ids of the sessions a scope may read (memory's own threads never among them)."""
        where, params = scope_sql(scope)
        return [r[0] for r in self.conn.execute(f"SELECT s.id FROM sessions s WHERE {where}", params)]

    def match_count(self, term: str, sample: int = 0) -> int:
        """How many passages a full-text term matches (for dropping terms that match nearly everything). With
        `sample`, a word with more than a fifth of that many matches is estimated from about `sample` passages in
        spans spread evenly over the ids, at least MATCH_SPANS and at most MATCH_GAP ids apart (counting a common
        word in a million passages costs ~0.1 s). A word said only between two spans has at most a gap's worth of
        matches, and the estimate is never below the fifth counted."""
        match = f'"{term}"'
        try:
            if not sample:
                return int(self.conn.execute(_COUNT, (match,)).fetchone()[0])
            floor = max(1, sample // 5)
            counted = int(
                self.conn.execute(
                    "SELECT COUNT(*) FROM (SELECT 1 FROM passages_fts WHERE passages_fts MATCH ? LIMIT ?)",
                    (match, floor),
                ).fetchone()[0]
            )
            if counted < floor:
                return counted
            total = self.passage_count()
            spans = max(MATCH_SPANS, -(-total // MATCH_GAP) + 1)  # spans - 1 steps of at most MATCH_GAP ids
            width = max(1, sample // spans)
            if width * spans >= total:
                return int(self.conn.execute(_COUNT, (match,)).fetchone()[0])
            in_spans = 0
            for i in range(spans):
                low = (total - width) * i // (spans - 1)  # spans - 1 steps of at least `width`: none overlap
                in_spans += int(self.conn.execute(_COUNT_IN, (match, low, low + width)).fetchone()[0])
        except sqlite3.OperationalError:
            return 0
        return max(floor, in_spans * total // (width * spans))

    def passage_ids_for_turns(self, turns: Sequence[tuple[str, int]], scope: Scope) -> list[int]:
        """Passage ids of the given (session, seq) turns, in that order (a turn's pieces in order), within the
        scope: one query per session and TURNS_PER_QUERY of its turns."""
        where, params = scope_sql(scope)
        by_session: dict[str, set[int]] = {}
        for session, seq in turns:
            by_session.setdefault(session, set()).add(seq)
        found: dict[tuple[str, int], list[int]] = {}
        for session, seqs in sorted(by_session.items()):
            ordered = sorted(seqs)
            for at in range(0, len(ordered), TURNS_PER_QUERY):
                chunk = ordered[at : at + TURNS_PER_QUERY]
                rows = self.conn.execute(
                    f"""SELECT p.seq, p.id FROM passages p JOIN sessions s ON s.id = p.session
                        WHERE p.session = ? AND p.seq IN ({", ".join("?" * len(chunk))}) AND {where}
                        ORDER BY p.seq, p.piece""",
                    [session, *chunk, *params],
                ).fetchall()
                for seq, pid in rows:
                    found.setdefault((session, int(seq)), []).append(int(pid))
        return list(dict.fromkeys(pid for turn in turns for pid in found.get(turn, ())))

    # -- keys (ask/keys.py) ------------------------------------------------------------------------
    def session_key_parts(self, after_turn: int, limit: int) -> list[tuple[Any, ...]]:
        """What session keys are made of, for the turns after `after_turn` in id order (at most `limit`):
        (turn id, session, seq, parent session if a subagent, the first 300 characters of a typed request or
        agent prompt, tool name, paths as JSON, session title, session cwd, session format), for typed,
        agent_prompt and tool_call turns."""
        return self.conn.execute(
            """SELECT t.id, t.session, t.seq, CASE WHEN s.kind = 'subagent' THEN s.parent_session END,
                      CASE WHEN t.kind IN ('typed', 'agent_prompt') THEN substr(t.text, 1, 300) END,
                      t.tool_name, t.paths, s.title, s.cwd, s.format
               FROM turns t JOIN sessions s ON s.id = t.session
               WHERE t.id > ? AND t.kind IN ('typed', 'agent_prompt', 'tool_call') ORDER BY t.id LIMIT ?""",
            (after_turn, limit),
        ).fetchall()

    def decision_sources(self) -> list[DecisionSource]:
        """Every source turn of every decision in the graph, with its project's name."""
        rows = self.conn.execute(
            """SELECT d.id, d.name, d.status, p.name, es.session, es.seq, es.quote, es.ts
               FROM entities d JOIN edges e ON e.src = d.id AND e.relation = 'about'
               JOIN entities p ON p.id = e.dst JOIN edge_sources es ON es.edge = e.id
               WHERE d.kind = 'decision' ORDER BY d.id, es.session, es.seq"""
        ).fetchall()
        return [DecisionSource(*r) for r in rows]

    def passages_by_id(self, ids: Sequence[int]) -> dict[int, PassageRow]:
        out: dict[int, PassageRow] = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = self.conn.execute(
                f"""SELECT p.id, p.turn, p.session, p.seq, p.piece, p.uuids, p.kind, p.ts, p.text, t.name, t.role,
                           t.tool_name, s.cwd, s.kind, s.title, p.search
                    FROM passages p JOIN turns t ON t.id = p.turn JOIN sessions s ON s.id = p.session
                    WHERE p.id IN ({",".join("?" * len(chunk))})""",
                chunk,
            ).fetchall()
            for r in rows:
                out[r[0]] = PassageRow(
                    id=r[0],
                    turn=r[1],
                    session=r[2],
                    seq=r[3],
                    piece=r[4],
                    uuids=tuple(json.loads(r[5])),
                    kind=r[6],
                    ts=r[7],
                    text=r[8],
                    name=r[9],
                    role=r[10],
                    tool_name=r[11],
                    cwd=r[12],
                    session_kind=r[13],
                    title=r[14],
                    search=r[15],
                )
        return out

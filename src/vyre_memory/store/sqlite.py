"""The embedded store: one SQLite file in WAL mode, and the only place that speaks SQL.

Guarantees:
- one transaction per written batch (a file's new records and its new read position), so a
  crash at any moment leaves the store as it was before that batch;
- a transcript record (its uuid) is stored once, whichever file or run it comes from;
- `corpus_version` goes up with every batch that adds or changes a turn or changes a session's kind or
  folder (what scopes filter on), so caches can key on it;
- the scope filter (`project_cwds`) is part of each query, never applied afterwards.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..contract import (
    ASSISTANT,
    META,
    THINKING,
    TOOL_CALL,
    TOOL_OUTPUT,
    ParseBatch,
    ParsedSession,
    ParsedTurn,
    Scope,
    SearchHit,
    SessionInfo,
    Turn,
)
from ..errors import StoreError
from .facts import FactStore
from .graph import GraphStore
from .passages import PassageStore
from .pg_schema import TABLES
from .reads import ReadStore
from .schema import migrate

_JOINABLE = (ASSISTANT, THINKING, META)
_TEXT_LIMIT = 200_000


@dataclass(frozen=True)
class SourceState:
    path: str
    format: str
    offset: int
    line: int
    size: int
    mtime: float
    head: str | None
    session: str | None


@dataclass(frozen=True)
class SourceBatch:
    """One file's parsed new records, its session labels and where reading stopped."""

    source: str
    format: str
    batch: ParseBatch
    kinds: dict[str, str]
    size: int
    mtime: float
    head: str | None
    updated_at: str


@dataclass
class BatchResult:
    new_sessions: int = 0
    new_turns: int = 0
    updated_turns: int = 0
    moved_sessions: int = 0  # sessions whose kind or folder changed (what scopes filter on)
    duplicates: int = 0
    by_kind: dict[str, int] | None = None


def _translate(exc: sqlite3.Error, path: Path) -> StoreError:
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return StoreError(f"the database {path} is read-only; nothing was written. Make it writable or set VYRE_HOME")
    if "disk is full" in text or "disk I/O" in text:
        return StoreError(
            f"could not write {path}: {text}; nothing from this batch was stored. Free disk space and re-run"
        )
    if "unable to open" in text:
        return StoreError(
            f"cannot open the database {path} ({text}); its folder may be read-only or missing. "
            "Make it writable or set VYRE_HOME to a writable folder"
        )
    if "locked" in text or "busy" in text:
        return StoreError(f"the database {path} is busy ({text}); another vyre process holds it. Try again")
    return StoreError(f"database error in {path}: {text}")


def scope_clause(project_cwds: Sequence[str] | None, column: str = "s.cwd") -> tuple[str, list[Any]]:
    """SQL that keeps sessions whose cwd is one of the folders or below (by whole components)."""
    if project_cwds is None:
        return "1=1", []
    if not project_cwds:
        return "1=0", []
    parts, params = [], []
    for folder in project_cwds:
        folder = folder.rstrip("/\\") or "/"
        parts.append(f"({column} = ? OR substr({column}, 1, ?) = ? OR substr({column}, 1, ?) = ?)")
        params += [folder, len(folder) + 1, folder + "/", len(folder) + 1, folder + "\\"]
    return "(" + " OR ".join(parts) + ")", params


# the statements of an ingest (Store.write_batches), shared by both engines' writers
UPSERT_SOURCE = """INSERT INTO sources (host, path, format, "offset", line, size, mtime, head, session, records,
     updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT(host, path) DO UPDATE SET format = excluded.format, "offset" = excluded."offset",
     line = excluded.line, size = excluded.size, mtime = excluded.mtime, head = excluded.head,
     session = COALESCE(excluded.session, sources.session),
     records = sources.records + excluded.records, updated_at = excluded.updated_at"""
INSERT_SESSION = """INSERT INTO sessions (id, kind, format, source_file, cwd, project, entrypoint, version, git_branch,
     title, title_rank, parent_session, agent_id, agent_type, spawn_tool_use_id, headless_hint, host)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
UPDATE_SESSION = """UPDATE sessions SET kind = ?, cwd = COALESCE(?, cwd), project = COALESCE(?, project),
     entrypoint = COALESCE(?, entrypoint), version = COALESCE(?, version),
     git_branch = COALESCE(?, git_branch),
     title = CASE WHEN ? >= title_rank AND ? IS NOT NULL THEN ? ELSE title END,
     title_rank = CASE WHEN ? >= title_rank AND ? IS NOT NULL THEN ? ELSE title_rank END,
     agent_type = COALESCE(agent_type, ?), spawn_tool_use_id = COALESCE(spawn_tool_use_id, ?),
     headless_hint = MAX(headless_hint, ?)
   WHERE id = ?"""
NEW_TURN_COLUMNS = tuple(c for c in TABLES["turns"] if c != "id")  # what an ingest writes of a new turn
INSERT_TURN = f"INSERT INTO turns ({', '.join(NEW_TURN_COLUMNS)}) VALUES ({', '.join('?' * len(NEW_TURN_COLUMNS))})"
UPDATE_TURN = "UPDATE turns SET text = ?, uuids = ? WHERE id = ?"
COUNT_TURNS = """UPDATE sessions SET turn_count = (SELECT COUNT(*) FROM turns WHERE session = ?),
     first_ts = (SELECT MIN(ts) FROM turns WHERE session = ?),
     last_ts = (SELECT MAX(ts) FROM turns WHERE session = ?) WHERE id = ?"""
STORED_RECORDS = (
    "SELECT t.kind, t.text, t.message_id, t.session FROM record_uuids r JOIN turns t ON t.id = r.turn WHERE r.uuid = ?"
)


class IngestWriter:
    """The reads and writes of one ingest transaction (`Store.write_batches`), each one statement run at
    once: a local SQLite file answers every one in microseconds. The PostgreSQL store's writer
    (postgres.BulkIngestWriter) answers the same reads from rows it fetched for the whole batch up front
    and sends the writes in bulk at the end, so a batch costs the server a few round trips, not a few per
    turn. What the writes decide (dedupe, joins, order) is `Store._write_session`'s, written once."""

    def __init__(self, c: Any) -> None:
        self.c = c

    def session_row(self, session: str) -> tuple[str, str | None] | None:
        """(kind, cwd) of a stored session."""
        row = self.c.execute("SELECT kind, cwd FROM sessions WHERE id = ?", (session,)).fetchone()
        return (row[0], row[1]) if row else None

    def put_session(self, session: str, kind: str, cwd: str | None, sql: str, params: Sequence[Any]) -> None:
        """Insert or update a session (`sql`), which then has this kind and, if given, this cwd."""
        self.c.execute(sql, params)

    def write(self, sql: str, params: Sequence[Any]) -> None:
        """A write nothing in this transaction reads back."""
        self.c.execute(sql, params)

    def next_seq(self, session: str) -> int:
        return int(
            self.c.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM turns WHERE session = ?", (session,)).fetchone()[0]
        )

    def stored(self, uuid: str) -> Sequence[tuple[str, str, str | None, str]]:
        """(kind, text, message id, session) of every turn that holds the record `uuid`."""
        return [tuple(r) for r in self.c.execute(STORED_RECORDS, (uuid,)).fetchall()]

    def call_name(self, session: str, tool_use_id: str) -> str | None:
        """The tool name of a session's tool call."""
        row = self.c.execute(
            "SELECT tool_name FROM turns WHERE session = ? AND tool_use_id = ? AND kind = ?",
            (session, tool_use_id, TOOL_CALL),
        ).fetchone()
        return row[0] if row else None

    def joinable(self, session: str, message_id: str, kind: str) -> tuple[int, str, str] | None:
        """(id, text, uuids) of the turn of this kind a later block of the message continues."""
        row = self.c.execute(
            "SELECT id, text, uuids FROM turns WHERE session = ? AND message_id = ? AND kind = ?",
            (session, message_id, kind),
        ).fetchone()
        return (int(row[0]), row[1], row[2]) if row else None

    def insert_turn(self, values: Sequence[Any]) -> int:
        """A new turn (values of NEW_TURN_COLUMNS); its id."""
        return int(self.c.execute(INSERT_TURN, values).lastrowid)

    def update_turn(self, turn_id: int, text: str, uuids: str) -> None:
        self.c.execute(UPDATE_TURN, (text, uuids, turn_id))

    def add_uuids(self, turn_id: int, uuids: Sequence[str]) -> None:
        self.c.executemany("INSERT INTO record_uuids (uuid, turn) VALUES (?, ?)", [(u, turn_id) for u in uuids])

    def count_turns(self, session: str) -> None:
        """Bring a session's turn count and time span up to date with its turns."""
        self.c.execute(COUNT_TURNS, (session, session, session, session))

    def finish(self) -> None:
        """Send whatever is still held back (nothing here: every write was sent at once)."""


class Store(PassageStore, FactStore, GraphStore, ReadStore):
    """SQLite store. Open one per thread; every method is a short transaction."""

    searches_in_database = False  # ranking vectors is left to the caller's in-memory index (ask/retrieve.py)

    def __init__(self, path: Path | str, *, readonly: bool = False, host: str | None = None) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.host = host or default_host()
        try:
            if readonly:
                self.conn = self._open_readonly()
            else:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self.conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
                    self.conn.execute("PRAGMA journal_mode=WAL")
                except (sqlite3.OperationalError, OSError):
                    if not self.path.exists():
                        raise
                    # a read-only disk: questions can still be answered; writes say what to do
                    self.conn, self.readonly = self._open_readonly(), True
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA busy_timeout=30000")
            self.conn.row_factory = sqlite3.Row
            if not self.readonly:
                migrate(self.conn)
                self._claim_sources()
        except sqlite3.Error as exc:
            raise _translate(exc, self.path) from exc
        except OSError as exc:
            raise StoreError(f"cannot open {self.path}: {exc}; check VYRE_HOME is a writable folder") from exc

    def _claim_sources(self) -> None:
        """Read positions from before hosts were kept are this machine's (written only when there are some,
        so opening a database on a read-only disk writes nothing)."""
        if self.conn.execute("SELECT 1 FROM sources WHERE host = '' LIMIT 1").fetchone():
            self.conn.execute("UPDATE sources SET host = ? WHERE host = ''", (self.host,))

    def _open_readonly(self) -> sqlite3.Connection:
        # immutable: a WAL database on read-only media has no -shm file to coordinate through
        return sqlite3.connect(
            f"file:{self.path}?mode=ro&immutable=1", uri=True, timeout=30, isolation_level=None, check_same_thread=False
        )

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _translate(exc, self.path) from exc
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise _translate(exc, self.path) from exc
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        # a COMMIT that failed on a full disk was already rolled back by SQLite itself
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    # -- meta ---------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def corpus_version(self) -> int:
        return int(self.get_meta("corpus_version", "0") or 0)

    # -- ingest ---------------------------------------------------------------------------------
    def source_state(self, path: str) -> SourceState | None:
        return self.source_states(path).get(path)

    def source_states(self, path: str | None = None) -> dict[str, SourceState]:
        """This machine's read positions by file (of one file when `path` is given)."""
        sql = 'SELECT path, format, "offset", line, size, mtime, head, session FROM sources WHERE host = ?'
        args: tuple[str, ...] = (self.host,) if path is None else (self.host, path)
        rows = self.conn.execute(sql + (" AND path = ?" if path is not None else ""), args).fetchall()
        return {r[0]: SourceState(*r) for r in rows}

    def session_flags(self, session_id: str) -> tuple[str | None, str | None, bool] | None:
        """What a stored session already knows of who ran it: (cwd, entrypoint, headless hint)."""
        row = self.conn.execute(
            "SELECT cwd, entrypoint, headless_hint FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        return (row[0], row[1], bool(row[2])) if row else None

    def write_batches(self, batches: Sequence[SourceBatch]) -> BatchResult:
        """Store parsed batches and each file's new position, all in one transaction."""
        result = BatchResult(by_kind={})
        with self.transaction() as c:
            w = self._ingest_writer(c, batches)
            for b in batches:
                for session in b.batch.sessions:
                    self._write_session(w, session, b.kinds[session.id], result)
                w.write(
                    UPSERT_SOURCE,
                    (
                        self.host,
                        b.source,
                        b.format,
                        b.batch.end.offset,
                        b.batch.end.line,
                        b.size,
                        b.mtime,
                        b.head,
                        b.batch.end.session,
                        b.batch.records,
                        b.updated_at,
                    ),
                )
            w.finish()
            if result.new_turns or result.updated_turns or result.moved_sessions:
                c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'corpus_version'")
        return result

    def _ingest_writer(self, c: Any, batches: Sequence[SourceBatch]) -> IngestWriter:
        """What `write_batches` reads and writes through, inside its transaction `c`."""
        return IngestWriter(c)

    def _write_session(self, w: IngestWriter, s: ParsedSession, kind: str, result: BatchResult) -> None:
        row = w.session_row(s.id)
        if row is not None and (row[0] != kind or (s.cwd is not None and row[1] != s.cwd)):
            result.moved_sessions += 1
        if row is None:
            w.put_session(
                s.id,
                kind,
                s.cwd,
                INSERT_SESSION,
                (
                    s.id,
                    kind,
                    s.format,
                    s.source_file,
                    s.cwd,
                    s.cwd,
                    s.entrypoint,
                    s.version,
                    s.git_branch,
                    s.title,
                    s.title_rank,
                    s.parent_session,
                    s.agent_id,
                    s.agent_type,
                    s.spawn_tool_use_id,
                    int(s.headless_hint),
                    self.host,
                ),
            )
            result.new_sessions += 1
        else:
            w.put_session(
                s.id,
                kind,
                s.cwd,
                UPDATE_SESSION,
                (
                    kind,
                    s.cwd,
                    s.cwd,
                    s.entrypoint,
                    s.version,
                    s.git_branch,
                    s.title_rank,
                    s.title,
                    s.title,
                    s.title_rank,
                    s.title,
                    s.title_rank,
                    s.agent_type,
                    s.spawn_tool_use_id,
                    int(s.headless_hint),
                    s.id,
                ),
            )
        for agent, tool_use in s.spawned.items():
            w.write(
                "INSERT OR IGNORE INTO agent_links (parent_session, agent_id, tool_use_id) VALUES (?, ?, ?)",
                (s.id, agent, tool_use),
            )
        if not s.turns:
            return
        next_seq = w.next_seq(s.id)
        for turn in s.turns:
            fresh = [u for u in turn.uuids if not _stored(w, u, turn, s.id)]
            if not fresh:
                result.duplicates += 1
                continue
            if turn.kind == TOOL_OUTPUT and turn.tool_use_id and not turn.tool_name:
                # the call was read in an earlier run: name the output after its tool
                name = w.call_name(s.id, turn.tool_use_id)
                if name:
                    turn.tool_name = turn.name = name
            if self._join_existing(w, s.id, turn, fresh):
                result.updated_turns += 1
                continue
            turn_id = w.insert_turn(
                (
                    s.id,
                    next_seq,
                    json.dumps(fresh),
                    turn.role,
                    turn.kind,
                    turn.name,
                    turn.text[:_TEXT_LIMIT],
                    turn.ts,
                    turn.tool_name,
                    turn.tool_input,
                    turn.tool_use_id,
                    turn.message_id,
                    turn.parent_uuid,
                    json.dumps(turn.paths) if turn.paths else None,
                    int(turn.is_error),
                )
            )
            next_seq += 1
            w.add_uuids(turn_id, fresh)
            result.new_turns += 1
            assert result.by_kind is not None
            result.by_kind[turn.kind] = result.by_kind.get(turn.kind, 0) + 1
        w.count_turns(s.id)

    def _join_existing(self, w: IngestWriter, session: str, turn: ParsedTurn, fresh: list[str]) -> bool:
        """A message whose blocks were split across two runs continues its stored turn."""
        if not turn.message_id or turn.kind not in _JOINABLE:
            return False
        row = w.joinable(session, turn.message_id, turn.kind)
        if row is None:
            return False
        turn_id, text, uuids = row
        w.update_turn(turn_id, (text + "\n" + turn.text)[:_TEXT_LIMIT], json.dumps(json.loads(uuids) + fresh))
        w.add_uuids(turn_id, fresh)
        return True

    # -- reading ----------------------------------------------------------------------------------
    def sessions(
        self,
        *,
        project_cwds: Sequence[str] | None = None,
        kind: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
    ) -> list[SessionInfo]:
        where, params = scope_clause(project_cwds)
        sql = f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE {where}"
        if kind:
            sql += " AND s.kind = ?"
            params.append(kind)
        if since:
            sql += " AND s.last_ts >= ?"
            params.append(since)
        if until:
            sql += " AND s.first_ts < ?"
            params.append(until)
        sql += " ORDER BY s.first_ts IS NULL, s.first_ts, s.id"
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [_session(r) for r in self.conn.execute(sql, params)]

    def session(self, session_id: str) -> SessionInfo | None:
        row = self.conn.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE s.id = ?", (session_id,)).fetchone()
        return _session(row) if row else None

    def search(self, query: str, *, project_cwds: Sequence[str] | None = None, limit: int = 20) -> list[SearchHit]:
        match = fts_query(fts_words([query]))
        if not match:
            return []
        where, params = scope_clause(project_cwds)
        rows = self.conn.execute(
            f"""SELECT {_TURN_COLUMNS}, bm25(turns_fts) AS score,
                       snippet(turns_fts, 0, '[', ']', ' … ', 16) AS snip
                FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN sessions s ON s.id = t.session
                WHERE turns_fts MATCH ? AND {where}
                ORDER BY score LIMIT ?""",
            [match, *params, limit],
        ).fetchall()
        return [SearchHit(turn=_turn(r), score=-float(r["score"]), snippet=r["snip"]) for r in rows]

    def turns(self, session_id: str, *, start: int = 0, end: int | None = None) -> list[Turn]:
        rows = self.conn.execute(
            f"""SELECT {_TURN_COLUMNS} FROM turns t JOIN sessions s ON s.id = t.session
                WHERE t.session = ? AND t.seq >= ? AND t.seq < ? ORDER BY t.seq""",
            (session_id, start, end if end is not None else 1 << 62),
        ).fetchall()
        return [_turn(r) for r in rows]

    def iter_turns(self, *, kinds: Sequence[str] | None = None, after_id: int = 0, batch: int = 2000) -> Iterator[Turn]:
        """Every turn in id order (optionally of some kinds), read in bounded batches."""
        kind_sql = f" AND t.kind IN ({','.join('?' * len(kinds))})" if kinds else ""
        last = after_id
        while True:
            rows = self.conn.execute(
                f"""SELECT {_TURN_COLUMNS} FROM turns t JOIN sessions s ON s.id = t.session
                    WHERE t.id > ?{kind_sql} ORDER BY t.id LIMIT ?""",
                [last, *(kinds or []), batch],
            ).fetchall()
            if not rows:
                return
            for r in rows:
                yield _turn(r)
            last = rows[-1]["id"]

    def stats(self) -> dict[str, Any]:
        sessions = dict(self.conn.execute("SELECT kind, COUNT(*) FROM sessions GROUP BY kind").fetchall())
        roles = dict(self.conn.execute("SELECT role, COUNT(*) FROM turns GROUP BY role").fetchall())
        kinds = dict(self.conn.execute("SELECT kind, COUNT(*) FROM turns GROUP BY kind").fetchall())
        projects = self.conn.execute("SELECT COUNT(DISTINCT project) FROM sessions").fetchone()[0]
        span = self.conn.execute("SELECT MIN(first_ts), MAX(last_ts) FROM sessions").fetchone()
        return {
            "sessions": {"total": sum(sessions.values()), "by_kind": sessions},
            "turns": {"total": sum(kinds.values()), "by_role": roles, "by_kind": kinds},
            "projects": projects,
            "first_ts": span[0],
            "last_ts": span[1],
            "corpus_version": self.corpus_version(),
            "database_bytes": self.database_bytes(),
        }

    def full_text(
        self,
        words: Sequence[str],
        scope: Scope,
        *,
        limit: int = 100,
        since: str | None = None,
        until: str | None = None,
    ) -> list[tuple[int, float]]:
        """(passage id, score) best first for any of the words, under the scope and in [since, until)."""
        return self.bm25(fts_query(words), scope, limit=limit, since=since, until=until)

    def nearest(
        self,
        model: str,
        query: Any,
        scope: Scope,
        k: int,
        *,
        since: str | None = None,
        until: str | None = None,
        ids: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """SQLite keeps no vector index: the retriever ranks vectors in memory (ask/retrieve.py VectorCache)."""
        raise StoreError("the SQLite store does not rank vectors; the retriever's in-memory index does")

    @property
    def location(self) -> str:
        """Where the data is, for people to read (a PostgreSQL URL without its password)."""
        return str(self.path)

    def database_bytes(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    def derive_lock(self) -> AbstractContextManager[None]:
        """Held while facts and the graph are derived; one SQLite file has one writer at a time anyway."""
        return nullcontext()


def default_host() -> str:
    """The machine a session came from: VYRE_HOST, else the host name."""
    return os.environ.get("VYRE_HOST") or socket.gethostname() or "localhost"


def _stored(w: IngestWriter, uuid: str, turn: ParsedTurn, session: str) -> bool:
    """A record is already stored when its uuid holds the same kind of turn with the same text.

    Resumed sessions replay earlier records with the same uuid (stored once); two different
    records that merely share a uuid (a generator's collision) are both kept.
    """
    for kind, text, message_id, stored_session in w.stored(uuid):
        if kind != turn.kind:
            continue
        if text == turn.text[:_TEXT_LIMIT] or turn.text[:_TEXT_LIMIT] in text:
            return True
        if turn.message_id is not None and message_id == turn.message_id and stored_session == session:
            return True  # a block of a message already joined into this session's turn
    return False


_SESSION_COLUMNS = (
    "s.*, COALESCE(s.spawn_tool_use_id, (SELECT l.tool_use_id FROM agent_links l "
    "WHERE l.parent_session = s.parent_session AND l.agent_id = s.agent_id)) AS spawn"
)
_TURN_COLUMNS = (
    "t.id, t.session, t.seq, t.uuids, t.role, t.kind, t.name, t.text, t.ts, t.tool_name, t.paths, "
    "s.kind AS session_kind, s.cwd"
)


def _turn(r: sqlite3.Row) -> Turn:
    return Turn(
        id=r["id"],
        session=r["session"],
        seq=r["seq"],
        uuids=tuple(json.loads(r["uuids"])),
        role=r["role"],
        kind=r["kind"],
        name=r["name"] or "",
        text=r["text"],
        ts=r["ts"],
        session_kind=r["session_kind"],
        cwd=r["cwd"],
        tool_name=r["tool_name"],
        paths=tuple(json.loads(r["paths"])) if r["paths"] else (),
    )


def _session(r: sqlite3.Row) -> SessionInfo:
    return SessionInfo(
        id=r["id"],
        kind=r["kind"],
        format=r["format"],
        cwd=r["cwd"],
        project=r["project"],
        title=r["title"],
        first_ts=r["first_ts"],
        last_ts=r["last_ts"],
        turn_count=r["turn_count"],
        entrypoint=r["entrypoint"],
        version=r["version"],
        git_branch=r["git_branch"],
        source_file=r["source_file"],
        parent_session=r["parent_session"],
        agent_id=r["agent_id"],
        agent_type=r["agent_type"],
        spawn_tool_use_id=r["spawn"],
        host=r["host"],
    )


def fts_words(texts: Sequence[str]) -> list[str]:
    """The search words of some texts: lowercase, punctuation trimmed, one-letter words dropped, in order."""
    words = []
    for text in texts:
        for w in text.lower().replace('"', " ").split():
            w = w.strip(".,;:!?()[]{}'`")
            if w and (len(w) > 1 or w.isdigit()):
                words.append(w)
    return list(dict.fromkeys(words))


def fts_query(words: Sequence[str]) -> str:
    """A safe FTS5 query: each word quoted, joined with OR (BM25 ranks the overlap)."""
    return " OR ".join(f'"{w}"' for w in words)

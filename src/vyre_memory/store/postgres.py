"""The shared store: PostgreSQL with pgvector, for one person's several machines or a small team.

It keeps every guarantee of the SQLite store (`sqlite.py`), and adds:
- several writers at once: every write transaction takes one advisory lock first, so concurrent
  ingests (from several machines) commit one at a time and leave exactly the rows of the same runs
  one after the other; row ids grow in commit order, so the passage and vector marks never skip a
  row another writer was still writing; a writer killed mid-batch is rolled back by the server;
- searches inside the database: full-text ranking over a `tsvector` GIN index (`full_text`), nearest
  passages over a pgvector HNSW index (`nearest`), each with the scope and time window in its SQL, so
  rows outside a caller's scope never leave the database;
- each session keeps the machine it was ingested on (`host`), and read positions are kept per machine;
- an ingest batch is a few round trips, not a few per turn (`BulkIngestWriter`: the rows its decisions
  read are fetched up front, the new turns and record uuids are sent with COPY).

The SQL the two engines share is written once, in the mixins of the SQLite store; `_Connection` runs
it here (placeholders and SQLite's INSERT OR IGNORE/REPLACE spelled as PostgreSQL wants). What only
one engine can say is overridden below.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..contract import TOOL_CALL, TOOL_OUTPUT, Scope, SearchHit
from ..errors import StoreError
from .passages import IndexTurn, rarest_within, scope_sql
from .pg_schema import KEYS, hnsw_index_sql, migrate
from .sqlite import (
    _JOINABLE,
    _TURN_COLUMNS,
    COUNT_TURNS,
    NEW_TURN_COLUMNS,
    UPDATE_TURN,
    IngestWriter,
    SourceBatch,
    Store,
    _turn,
    default_host,
)

WRITE_LOCK = 0x7679_7265_0002  # pg_advisory_xact_lock key taken by every write transaction
DERIVE_LOCK = 0x7679_7265_0003  # pg_advisory_lock key held while facts and the graph are derived
TEXT_CONFIG = "english"
EXACT_COUNT = 2_000  # a word the planner expects in more passages than this is not counted exactly
POSTINGS_BUDGET = 5_000  # full-text matches ranked at most per search (ts_rank costs more per match than FTS5)


def is_database_url(value: str | None) -> bool:
    return bool(value) and str(value).startswith(("postgresql://", "postgres://"))


def describe_url(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


class _Row(tuple[Any, ...]):
    """A row readable by position and by column name, as sqlite3.Row is."""

    names: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self.names)


def _row_factory(cursor: Any) -> Any:
    names = {d.name: i for i, d in enumerate(cursor.description or ())}

    def make(values: Sequence[Any]) -> _Row:
        row = _Row(values)
        row.names = names
        return row

    return make


_INSERT = re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.I | re.S)


@lru_cache(maxsize=512)
def _translate_sql(sql: str, has_params: bool) -> tuple[str, bool]:
    """SQLite's spelling of a statement in PostgreSQL's, and whether it returns the new row's id."""
    m = _INSERT.match(sql)
    if m:
        verb, table, columns = m.group(1).upper(), m.group(2), [c.strip() for c in m.group(3).split(",")]
        sql = "INSERT INTO" + sql[m.start(2) - 1 :].rstrip().rstrip(";")
        keys = KEYS[table]
        if verb == "IGNORE":
            sql += " ON CONFLICT DO NOTHING"
        else:
            updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns if c not in keys)
            sql += f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}"
    sql = sql.replace("MAX(headless_hint, ?)", "GREATEST(headless_hint, ?)")
    returning = bool(re.match(r"^\s*INSERT INTO (turns|graph_edits) ", sql))
    if returning:
        sql = sql.rstrip() + " RETURNING id"
    if has_params:
        sql = sql.replace("%", "%%").replace("?", "%s")
    return sql, returning


class _Cursor:
    """What the shared SQL reads from a cursor: rows, and the id of a row just inserted."""

    def __init__(self, cursor: Any, returning: bool = False) -> None:
        self._cursor = cursor
        self.lastrowid: int | None = None
        if returning:
            row = cursor.fetchone()
            self.lastrowid = int(row[0]) if row else None

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor)


class _Connection:
    """A psycopg connection that runs the SQL written for SQLite (see `_translate_sql`)."""

    def __init__(self, pg: Any) -> None:
        self.pg = pg

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> _Cursor:
        text, returning = _translate_sql(sql, params is not None)
        try:
            return _Cursor(self.pg.execute(text, params), returning)
        except _psycopg().Error as exc:
            raise StoreError(f"database error: {str(exc).strip()}; check the database is reachable and retry") from exc

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        text, _ = _translate_sql(sql, True)
        if len(rows) == 1:
            self.pg.execute(text, rows[0])
        elif rows:
            with self.pg.cursor() as cur:
                cur.executemany(text, rows)

    @property
    def in_transaction(self) -> bool:
        return bool(self.pg.info.transaction_status != 0)

    def close(self) -> None:
        self.pg.close()


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise StoreError(
            "a postgresql:// database needs the PostgreSQL driver: pip install 'vyre-memory[postgres]'"
        ) from exc
    return psycopg


class PostgresStore(Store):
    """PostgreSQL store. Open one per thread; every method is a short transaction."""

    searches_in_database = True

    def __init__(self, url: str, *, readonly: bool = False, host: str | None = None) -> None:
        psycopg = _psycopg()
        self.url = url
        self.path = Path(describe_url(url))  # what messages name; never a file
        self.readonly = readonly
        self.host = host or default_host()
        self._df: dict[str, int] = {}
        self._df_version = -1
        self._indexed: set[int] = set()
        self._pairs: dict[tuple[str, str], dict[str, tuple[int, tuple[str, ...], str]]] = {}
        self._lock = threading.RLock()
        try:
            pg = psycopg.connect(url, autocommit=True, cursor_factory=psycopg.ClientCursor, connect_timeout=15)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot reach the database {describe_url(url)} ({str(exc).strip()}); check that PostgreSQL is "
                "running and the URL in config.toml `database` (or VYRE_DATABASE_URL) is right"
            ) from exc
        try:
            if not readonly:
                migrate(pg)
            from pgvector.psycopg import register_vector

            register_vector(pg)
        except psycopg.Error as exc:
            pg.close()
            raise self._error(exc) from exc
        except Exception:
            pg.close()
            raise
        pg.row_factory = _row_factory
        self.conn: _Connection = _Connection(pg)  # type: ignore[assignment]

    def _error(self, exc: Exception) -> StoreError:
        return StoreError(f"database error in {describe_url(self.url)}: {str(exc).strip()}")

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One write transaction, after every other writer's: the advisory lock is held to its end."""
        if self.readonly:
            raise StoreError(f"the database {describe_url(self.url)} was opened read-only; nothing was written")
        psycopg = _psycopg()
        pg = self.conn.pg
        with self._lock:
            try:
                with pg.transaction():
                    pg.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                    yield self.conn
            except psycopg.Error as exc:
                raise self._error(exc) from exc

    @contextmanager
    def _reading(self) -> Iterator[Any]:
        """A read-only transaction (for settings that last one query)."""
        pg = self.conn.pg
        with self._lock, pg.transaction():
            yield pg

    def derive_lock(self) -> AbstractContextManager[None]:
        """Held while facts and the graph are derived, so two machines' derives run one after the other
        (each reads what the other wrote, and no derive overwrites a newer one)."""
        return self._session_lock(DERIVE_LOCK)

    @contextmanager
    def _session_lock(self, key: int) -> Iterator[None]:
        pg = self.conn.pg
        pg.execute("SELECT pg_advisory_lock(%s)", (key,))
        try:
            yield
        finally:
            pg.execute("SELECT pg_advisory_unlock(%s)", (key,))

    @property
    def location(self) -> str:
        return describe_url(self.url)

    def database_bytes(self) -> int:
        return int(self.conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])

    def _ingest_writer(self, c: Any, batches: Sequence[SourceBatch]) -> IngestWriter:
        return BulkIngestWriter(c, batches)

    # -- reading ----------------------------------------------------------------------------------
    def search(self, query: str, *, project_cwds: Sequence[str] | None = None, limit: int = 20) -> list[SearchHit]:
        from .sqlite import fts_words, scope_clause

        words = fts_words([query])
        if not words:
            return []
        where, params = scope_clause(project_cwds)
        rows = self.conn.execute(
            f"""WITH q AS (SELECT websearch_to_tsquery('{TEXT_CONFIG}', ?) AS q)
                SELECT {_TURN_COLUMNS}, ts_rank(t.tsv, q.q, 1) AS score,
                       ts_headline('{TEXT_CONFIG}', t.text, q.q,
                                   'StartSel=[, StopSel=], MaxFragments=1, MaxWords=16, MinWords=8') AS snip
                FROM q, turns t JOIN sessions s ON s.id = t.session
                WHERE t.tsv @@ q.q AND {where}
                ORDER BY score DESC, t.id LIMIT ?""",
            [_or_query(words), *params, limit],
        ).fetchall()
        return [SearchHit(turn=_turn(r), score=float(r["score"]), snippet=r["snip"]) for r in rows]

    # -- passages: what SQLite spells its own way -------------------------------------------------
    _greatest = "GREATEST"

    def turns_to_index(self, after_id: int, limit: int = 5000) -> list[IndexTurn]:
        """As SQLite's; the other halves of their tool calls, which passage building asks for one at a time
        (`tool_pair`), are fetched with them in one query rather than a round trip each."""
        turns = super().turns_to_index(after_id, limit)
        keys = list(dict.fromkeys((t.session, t.tool_use_id) for t in turns if t.tool_use_id))
        self._pairs = {}
        if keys:
            rows = self.conn.pg.execute(
                "SELECT DISTINCT ON (t.session, t.tool_use_id, t.kind) t.session, t.tool_use_id, t.kind, t.id, "
                "t.uuids, t.text FROM turns t JOIN unnest(%s::text[], %s::text[]) AS k (session, tool_use_id) "
                "ON t.session = k.session AND t.tool_use_id = k.tool_use_id "
                "ORDER BY t.session, t.tool_use_id, t.kind, t.id",
                ([k[0] for k in keys], [k[1] for k in keys]),
            ).fetchall()
            self._pairs = {key: {} for key in keys}
            for r in rows:
                self._pairs[(r[0], r[1])][r[2]] = (int(r[3]), tuple(json.loads(r[4])), r[5])
        return turns

    def tool_pair(self, session: str, tool_use_id: str, kind: str) -> tuple[int, tuple[str, ...], str] | None:
        fetched = self._pairs.get((session, tool_use_id))
        if fetched is None:
            return super().tool_pair(session, tool_use_id, kind)
        return fetched.get(kind)

    def _insert_vectors(self, c: Any, model: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        """Vectors copied in, then upserted in one statement. The HNSW index of a dimension is built by the
        first search that needs it: built once over many rows, it costs a fraction of growing it row by row
        through a first large ingest."""
        c.pg.execute(
            "CREATE TEMP TABLE IF NOT EXISTS vectors_in (text_hash text, model text, dim int, vec vector) "
            "ON COMMIT DELETE ROWS"
        )
        sql = "COPY vectors_in (text_hash, model, dim, vec) FROM STDIN (FORMAT BINARY)"
        with c.pg.cursor() as cur, cur.copy(sql) as copy:
            copy.set_types(["text", "text", "int4", "vector"])  # binary: no float printed or parsed
            for h, v in items:
                copy.write_row((h, model, len(v), np.asarray(v, dtype=np.float32)))
        c.pg.execute(
            """INSERT INTO vectors (text_hash, model, dim, vec) SELECT DISTINCT ON (text_hash, model) *
               FROM vectors_in ORDER BY text_hash, model
               ON CONFLICT (text_hash, model) DO UPDATE SET dim = EXCLUDED.dim, vec = EXCLUDED.vec"""
        )

    @staticmethod
    def _limit(limit: int) -> int | None:
        return limit if limit >= 0 else None  # LIMIT NULL: no limit

    @staticmethod
    def _matrix(vectors: list[Any], dim: int) -> np.ndarray:
        return np.vstack([np.asarray(v.to_numpy(), dtype=np.float32) for v in vectors])

    def passage_places(self, after_id: int, limit: int) -> list[tuple[int, str, bytes | None]]:
        rows = self.conn.execute(
            "SELECT id, session, convert_to(ts, 'UTF8') FROM passages WHERE id > ? ORDER BY id LIMIT ?",
            (after_id, limit),
        ).fetchall()
        return [(r[0], r[1], bytes(r[2]) if r[2] is not None else None) for r in rows]

    def passage_places_from_indexes(self, after_id: int, through_id: int) -> list[tuple[int, str, bytes | None]]:
        return self.passage_places(after_id, through_id - after_id)

    def match_count(self, term: str, sample: int = 0) -> int:
        """How many passages a word matches: counted when the planner's estimate (from the tsvector statistics
        ANALYZE keeps, over the whole table) is under EXACT_COUNT, else that estimate (counting a common word's
        matches reads most of the table); so `sample` is not needed here."""
        query = _or_query([term])
        plan = self.conn.execute(
            f"EXPLAIN (FORMAT JSON) SELECT 1 FROM passages WHERE tsv @@ websearch_to_tsquery('{TEXT_CONFIG}', ?)",
            (query,),
        ).fetchone()[0]
        estimate = int((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]["Plan Rows"])
        if estimate >= EXACT_COUNT:
            return estimate
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM passages WHERE tsv @@ websearch_to_tsquery('{TEXT_CONFIG}', ?)",
            (_or_query([term]),),
        ).fetchone()
        return int(row[0])

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
        """The same ranking as `full_text`, for a query in FTS5's quoted-words form. Always ranked: the cost
        `ranked=False` spares SQLite (counting each word in the whole index) is not one PostgreSQL pays."""
        words = re.findall(r'"([^"]*)"', match)
        return self.full_text(words, scope, limit=limit, since=since, until=until, ids=ids)

    def full_text(
        self,
        words: Sequence[str],
        scope: Scope,
        *,
        limit: int = 100,
        since: str | None = None,
        until: str | None = None,
        ids: tuple[int, int] | None = None,
    ) -> list[tuple[int, float]]:
        """(passage id, score) best first, ranked inside the database: each word's `ts_rank` (its frequency
        in the passage, over the log of the passage's length) weighted by the word's BM25 idf, summed.
        The scope and the time window are in the query itself.

        ts_rank reads each match's tsvector, so about POSTINGS_BUDGET matches are ranked at most: the
        commonest words are left out first (their idf weighs least), and when even the rarest is that
        common, the latest passages of the scope and the window (ids follow ingest order), as many as
        would hold about POSTINGS_BUDGET of its matches, are searched and ranked: a scope with fewer
        passages than that has every match ranked."""
        words = [w for w in dict.fromkeys(words) if w]
        if not words:
            return []
        total = max(1, self.passage_count())
        version = self.corpus_version()
        counts = {w: self._word_count(w, version) for w in words}
        words, spent = rarest_within(words, {w: float(n) for w, n in counts.items()}, POSTINGS_BUDGET)
        idf = {w: _idf(counts[w], total) for w in words}
        first, last = ids or (0, 1 << 62)
        where, params = scope_sql(scope)
        time_sql = _window(since, until, params)
        rank = " + ".join(f"{idf[w]:.6f} * ts_rank(p.tsv, websearch_to_tsquery('{TEXT_CONFIG}', ?), 1)" for w in words)
        query = f"websearch_to_tsquery('{TEXT_CONFIG}', ?)"
        ranks = [_or_query([w]) for w in words]
        if spent <= POSTINGS_BUDGET:
            sql = f"""SELECT p.id, {rank} AS score FROM passages p JOIN sessions s ON s.id = p.session
                      WHERE p.tsv @@ {query} AND p.id BETWEEN ? AND ? AND {where}{time_sql}
                      ORDER BY score DESC, p.id LIMIT ?"""
            args = [*ranks, _or_query(words), first, last, *params, limit]
        else:
            # More matches than ranking affords: the scope's latest passages, as many as hold about
            # POSTINGS_BUDGET of them (the words' share of all passages says how many), are searched and
            # ranked. They are found without reading a tsvector: a project scope's from the (session, id)
            # index of its sessions' passages, the person's own by walking ids down.
            reach = max(POSTINGS_BUDGET, math.ceil(POSTINGS_BUDGET * total / spent))
            if scope.folders() is None:
                latest = f"""SELECT p.id FROM passages p JOIN sessions s ON s.id = p.session
                             WHERE p.id BETWEEN ? AND ? AND {where}{time_sql}"""
            else:
                latest = f"""SELECT p.id FROM passages p WHERE p.id BETWEEN ? AND ?
                             AND p.session = ANY(ARRAY(SELECT s.id FROM sessions s WHERE {where})){time_sql}"""
            sql = f"""SELECT p.id, {rank} AS score FROM passages p
                      JOIN ({latest} ORDER BY p.id DESC LIMIT {reach}) m ON m.id = p.id
                      WHERE p.tsv @@ {query} ORDER BY score DESC, p.id LIMIT ?"""
            args = [*ranks, first, last, *params, _or_query(words), limit]
        return [(int(r[0]), float(r[1])) for r in self.conn.execute(sql, args).fetchall()]

    def _word_count(self, word: str, version: int) -> int:
        if version != self._df_version:
            self._df, self._df_version = {}, version
        if word not in self._df:
            self._df[word] = self.match_count(word)
        return self._df[word]

    def nearest(
        self,
        model: str,
        query: np.ndarray,
        scope: Scope,
        k: int,
        *,
        since: str | None = None,
        until: str | None = None,
        ids: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """(passage id, cosine) of the `k` nearest passages in the scope and the window [since, until) (and
        among `ids` when given), best first. The person's own scope walks the HNSW index (iteratively, until `k`
        rows pass the filters); a project or agent scope, a window, or given ids are scored exactly over their
        own rows."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        dim = len(q)
        self.vector_index(dim)
        where, params = scope_sql(scope)
        time_sql = _window(since, until, params)
        if ids is not None:
            time_sql += " AND p.id = ANY(?)"
            params.append(list(ids))
        exact = scope.folders() is not None or since is not None or ids is not None
        distance = f"(v.vec::vector({dim}) <=> ?::vector({dim}))"
        order = f"{distance} + 0" if exact else distance  # `+ 0`: no index can order it, so the scan is exact
        sql = f"""SELECT id, 1 - d FROM (
                    SELECT p.id, round(({distance})::numeric, 6) AS d FROM vectors v
                      JOIN passages p ON p.text_hash = v.text_hash JOIN sessions s ON s.id = p.session
                    WHERE v.model = ? AND v.dim = ? AND {where}{time_sql}
                    ORDER BY {order} LIMIT ?) n ORDER BY d, id"""
        args = [q, model, dim, *params, q, k]
        with self._reading() as pg:
            pg.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(40, min(1000, 2 * k))),))
            pg.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
            rows = self.conn.execute(sql, args).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    def vector_index(self, dim: int) -> None:
        """Build the HNSW index over vectors of `dim` if it is not there (once per process and dimension)."""
        if dim in self._indexed:
            return
        with self.transaction() as c:
            c.pg.execute(hnsw_index_sql(dim))
        self.conn.pg.execute("ANALYZE vectors")  # so the planner walks the index, not the rows, after a big load
        self._indexed.add(dim)

    def id_range(self, since: str | None, until: str | None) -> tuple[int, int]:
        """(first, last) id of the passages with a time in [since, until); (1, 0) if none."""
        params: list[object] = []
        row = self.conn.execute(
            f"SELECT MIN(p.id), MAX(p.id) FROM passages p WHERE p.ts IS NOT NULL{_window(since, until, params)}",
            params,
        ).fetchone()
        return (int(row[0]), int(row[1])) if row and row[0] is not None else (1, 0)


@dataclass(slots=True)
class _Held:
    """A turn an ingest transaction reads back: one it stores, or a stored one its records touch."""

    id: int
    session: str
    kind: str
    text: str
    message_id: str | None
    uuids: str
    values: list[Any] | None = None  # a new turn's row (NEW_TURN_COLUMNS), until it is sent


class BulkIngestWriter(IngestWriter):
    """`Store.write_batches` over a network: a batch in a few round trips instead of a few per turn.

    Up front, in four queries: the batch's sessions, their last seq, and every stored turn its records
    could meet (the turns holding its record uuids, the turns its message blocks could continue, the
    tool calls its outputs are named after). The shared decisions (`Store._write_session`) read those and
    what the batch itself wrote. At `finish`, in order: sessions, agent links and read positions in one
    pipeline; the new turns, under ids taken from the table's sequence at that moment, with COPY; the
    stored turns a block continued; the record uuids with COPY; each session's count and span. All of it
    is inside the caller's transaction, which holds the write lock: a writer killed at any point leaves
    nothing, and ids still grow in commit order."""

    def __init__(self, c: _Connection, batches: Sequence[SourceBatch]) -> None:
        super().__init__(c)
        self.pg = c.pg
        sessions = [s for b in batches for s in b.batch.sessions]
        ids = list(dict.fromkeys(s.id for s in sessions))
        turns = [(s.id, t) for s in sessions for t in s.turns]
        self._ops: list[tuple[str, Sequence[Any]]] = []  # writes before the turns, in order
        self._new: list[_Held] = []
        self._updated: dict[int, _Held] = {}  # stored turns a message block continued
        self._uuids: list[tuple[str, _Held]] = []
        self._counted: list[str] = []
        self._held: dict[int, _Held] = {}
        self._by_uuid: dict[str, list[_Held]] = {}
        self._joinable: dict[tuple[str, str, str], _Held] = {}
        self._calls: dict[tuple[str, str], str | None] = {}
        pg = self.pg
        self._sessions: dict[str, tuple[str, str | None]] = {
            r[0]: (r[1], r[2]) for r in pg.execute("SELECT id, kind, cwd FROM sessions WHERE id = ANY(%s)", (ids,))
        }
        self._next: dict[str, int] = dict(
            pg.execute("SELECT session, MAX(seq) + 1 FROM turns WHERE session = ANY(%s) GROUP BY session", (ids,))
        )
        uuids = list(dict.fromkeys(u for _, t in turns for u in t.uuids))
        if uuids:
            for r in pg.execute(
                "SELECT r.uuid, t.id, t.session, t.kind, t.text, t.message_id, t.uuids FROM record_uuids r "
                "JOIN turns t ON t.id = r.turn WHERE r.uuid = ANY(%s) ORDER BY t.id",
                (uuids,),
            ):
                self._by_uuid.setdefault(r[0], []).append(self._hold(*r[1:]))
        blocks = list(dict.fromkeys((sid, t.message_id) for sid, t in turns if t.message_id and t.kind in _JOINABLE))
        if blocks:
            for r in pg.execute(
                "SELECT t.id, t.session, t.kind, t.text, t.message_id, t.uuids FROM turns t "
                "JOIN unnest(%s::text[], %s::text[]) AS m (session, message_id) "
                "ON t.session = m.session AND t.message_id = m.message_id WHERE t.kind = ANY(%s) ORDER BY t.id",
                ([b[0] for b in blocks], [b[1] for b in blocks], list(_JOINABLE)),
            ):
                held = self._hold(*r)
                self._joinable.setdefault((held.session, held.message_id or "", held.kind), held)
        outputs = list(
            dict.fromkeys(
                (sid, t.tool_use_id) for sid, t in turns if t.kind == TOOL_OUTPUT and t.tool_use_id and not t.tool_name
            )
        )
        if outputs:
            for r in pg.execute(
                "SELECT t.session, t.tool_use_id, t.tool_name FROM turns t "
                "JOIN unnest(%s::text[], %s::text[]) AS o (session, tool_use_id) "
                "ON t.session = o.session AND t.tool_use_id = o.tool_use_id WHERE t.kind = %s ORDER BY t.id",
                ([o[0] for o in outputs], [o[1] for o in outputs], TOOL_CALL),
            ):
                self._calls.setdefault((r[0], r[1]), r[2])

    def _hold(self, id: int, session: str, kind: str, text: str, message_id: str | None, uuids: str) -> _Held:
        if id not in self._held:
            self._held[id] = _Held(id, session, kind, text, message_id, uuids)
        return self._held[id]

    # -- reads, answered from what was fetched and what this batch wrote ------------------------------
    def session_row(self, session: str) -> tuple[str, str | None] | None:
        return self._sessions.get(session)

    def next_seq(self, session: str) -> int:
        return int(self._next.get(session) or 0)

    def stored(self, uuid: str) -> Sequence[tuple[str, str, str | None, str]]:
        return [(h.kind, h.text, h.message_id, h.session) for h in self._by_uuid.get(uuid, ())]

    def call_name(self, session: str, tool_use_id: str) -> str | None:
        return self._calls.get((session, tool_use_id))

    def joinable(self, session: str, message_id: str, kind: str) -> tuple[int, str, str] | None:
        held = self._joinable.get((session, message_id, kind))
        return (held.id, held.text, held.uuids) if held else None

    # -- writes, held until finish --------------------------------------------------------------------
    def put_session(self, session: str, kind: str, cwd: str | None, sql: str, params: Sequence[Any]) -> None:
        before = self._sessions.get(session)
        self._sessions[session] = (kind, cwd if cwd is not None or before is None else before[1])
        self._ops.append((sql, params))

    def write(self, sql: str, params: Sequence[Any]) -> None:
        self._ops.append((sql, params))

    def insert_turn(self, values: Sequence[Any]) -> int:
        row = dict(zip(NEW_TURN_COLUMNS, values))
        held = _Held(-1 - len(self._new), row["session"], row["kind"], row["text"], row["message_id"], row["uuids"])
        held.values = list(values)
        self._held[held.id] = held
        self._new.append(held)
        self._next[held.session] = int(row["seq"]) + 1
        if held.message_id and held.kind in _JOINABLE:
            self._joinable.setdefault((held.session, held.message_id, held.kind), held)
        if held.kind == TOOL_CALL and row["tool_use_id"]:
            self._calls.setdefault((held.session, row["tool_use_id"]), row["tool_name"])
        return held.id  # a stand-in until finish takes the real ids

    def update_turn(self, turn_id: int, text: str, uuids: str) -> None:
        held = self._held[turn_id]
        held.text, held.uuids = text, uuids
        if held.values is None:
            self._updated[turn_id] = held

    def add_uuids(self, turn_id: int, uuids: Sequence[str]) -> None:
        held = self._held[turn_id]
        for u in uuids:
            self._by_uuid.setdefault(u, []).append(held)
            self._uuids.append((u, held))

    def count_turns(self, session: str) -> None:
        self._counted.append(session)

    def finish(self) -> None:
        pg = self.pg
        if self._ops:
            with pg.pipeline():
                for sql, params in self._ops:
                    pg.execute(_translate_sql(sql, True)[0], params)
        if self._new:
            rows = pg.execute(
                "SELECT nextval(pg_get_serial_sequence('turns', 'id')) FROM generate_series(1, %s)", (len(self._new),)
            ).fetchall()
            text, uuids = NEW_TURN_COLUMNS.index("text"), NEW_TURN_COLUMNS.index("uuids")
            with pg.cursor() as cur, cur.copy(f"COPY turns (id, {', '.join(NEW_TURN_COLUMNS)}) FROM STDIN") as copy:
                for held, new_id in zip(self._new, sorted(int(r[0]) for r in rows)):
                    values = held.values
                    assert values is not None
                    values[text], values[uuids] = held.text, held.uuids  # as blocks joined later left them
                    copy.write_row((new_id, *values))
                    held.id, held.values = new_id, None
        if self._updated:
            with pg.cursor() as cur:
                cur.executemany(
                    _translate_sql(UPDATE_TURN, True)[0], [(h.text, h.uuids, h.id) for h in self._updated.values()]
                )
        if self._uuids:
            with pg.cursor() as cur, cur.copy("COPY record_uuids (uuid, turn) FROM STDIN") as copy:
                for u, held in self._uuids:
                    copy.write_row((u, held.id))
        if self._counted:
            with pg.pipeline():
                for s in dict.fromkeys(self._counted):
                    pg.execute(_translate_sql(COUNT_TURNS, True)[0], (s, s, s, s))


def _or_query(words: Sequence[str]) -> str:
    """A web-search query that matches any of the words (each quoted: punctuation inside a word stays)."""
    return " or ".join('"' + w.replace('"', " ") + '"' for w in words)


def _idf(matches: int, total: int) -> float:
    return math.log(1 + (total - matches + 0.5) / (matches + 0.5))


def _window(since: str | None, until: str | None, params: list[object]) -> str:
    from .passages import _window_sql

    return _window_sql(since, until, params)

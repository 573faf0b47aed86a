"""The shared store: PostgreSQL with pgvector, for one person's several machines or a small team.

It keeps every guarantee of the SQLite store (`sqlite.py`), and adds:
- several writers at once: every write transaction takes one advisory lock first, so concurrent
  ingests (from several machines) commit one at a time and leave exactly the rows of the same runs
  one after the other; row ids grow in commit order, so the passage and vector marks never skip a
  row another writer was still writing; a writer killed mid-batch is rolled back by the server;
- searches inside the database: full-text ranking over a `tsvector` GIN index (`full_text`), nearest
  passages over a pgvector HNSW index (`nearest`), each with the scope and time window in its SQL, so
  rows outside a caller's scope never leave the database;
- each session keeps the machine it was ingested on (`host`), and read positions are kept per machine.

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
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..contract import Scope, SearchHit
from ..errors import StoreError
from .passages import scope_sql
from .pg_schema import KEYS, hnsw_index_sql, migrate
from .sqlite import _TURN_COLUMNS, BatchResult, SourceBatch, Store, _turn, default_host

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
        return self._cursor.fetchone() if self._cursor is not None else None

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall()) if self._cursor is not None else []

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor) if self._cursor is not None else iter(())


# the shared ingest SQL asks, per record uuid, whether it is stored (sqlite._stored), and writes each
# turn's uuids apart: over a network each is a round trip, so within one write transaction the uuids of
# the whole batch are looked up at once and the new ones sent in one statement at its end
_STORED_QUERY = "SELECT t.kind, t.text, t.message_id, t.session FROM record_uuids r"
_UUID_INSERT = "INSERT INTO record_uuids (uuid, turn) VALUES (?, ?)"


class _Connection:
    """A psycopg connection that runs the SQL written for SQLite (see `_translate_sql`)."""

    def __init__(self, pg: Any) -> None:
        self.pg = pg
        self.batch_uuids: list[str] = []  # the record uuids a write_batches call is about to store
        self._present: set[str] | None = None  # which of them the database holds (this transaction)
        self._pending: list[tuple[str, int]] = []  # record uuids written, not yet sent
        self._asked: set[str] = set()

    def begin(self) -> None:
        self._present, self._pending = None, []

    def flush(self) -> None:
        if self._pending:
            uuids, turns = zip(*self._pending)
            self._pending = []
            self.pg.execute(
                "INSERT INTO record_uuids (uuid, turn) SELECT * FROM unnest(%s::text[], %s::bigint[])",
                (list(uuids), list(turns)),
            )

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> _Cursor:
        if sql.startswith(_STORED_QUERY) and params and self.batch_uuids:
            if self._present is None:
                rows = self.pg.execute(
                    "SELECT DISTINCT uuid FROM record_uuids WHERE uuid = ANY(%s)", (self.batch_uuids,)
                ).fetchall()
                self._present, self._asked = {r[0] for r in rows}, set(self.batch_uuids)
            if params[0] not in self._present and params[0] in self._asked:
                return _Cursor(None)
        if "record_uuids" in sql:
            self.flush()
        text, returning = _translate_sql(sql, params is not None)
        try:
            return _Cursor(self.pg.execute(text, params), returning)
        except _psycopg().Error as exc:
            raise StoreError(f"database error: {str(exc).strip()}; check the database is reachable and retry") from exc

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        if sql == _UUID_INSERT:
            self._pending.extend((str(u), int(t)) for u, t in rows)
            if self._present is not None:
                self._present.update(str(u) for u, _ in rows)
            return
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
                    self.conn.begin()
                    yield self.conn
                    self.conn.flush()
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

    def write_batches(self, batches: Sequence[SourceBatch]) -> BatchResult:
        self.conn.batch_uuids = [u for b in batches for s in b.batch.sessions for t in s.turns for u in t.uuids]
        try:
            return super().write_batches(batches)
        finally:
            self.conn.batch_uuids = []

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

    def _insert_vectors(self, c: Any, model: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        """Vectors copied in, then upserted in one statement. The HNSW index of a dimension is built by the
        first search that needs it: built once over many rows, it costs a fraction of growing it row by row
        through a first large ingest."""
        c.pg.execute(
            "CREATE TEMP TABLE IF NOT EXISTS vectors_in (text_hash text, model text, dim int, vec vector) "
            "ON COMMIT DELETE ROWS"
        )
        with c.pg.cursor() as cur, cur.copy("COPY vectors_in (text_hash, model, dim, vec) FROM STDIN") as copy:
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

    def match_count(self, term: str, after_id: int = 0) -> int:
        """How many passages after `after_id` a word matches: counted when the planner's estimate (from the
        tsvector statistics ANALYZE keeps) is under EXACT_COUNT, else that estimate (counting a common word's
        matches reads most of the table)."""
        query = _or_query([term])
        plan = self.conn.execute(
            f"EXPLAIN (FORMAT JSON) SELECT 1 FROM passages WHERE tsv @@ websearch_to_tsquery('{TEXT_CONFIG}', ?) "
            "AND id > ?",
            (query, after_id),
        ).fetchone()[0]
        estimate = int((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]["Plan Rows"])
        if estimate >= EXACT_COUNT:
            return estimate
        row = self.conn.execute(
            f"SELECT COUNT(*) FROM passages WHERE tsv @@ websearch_to_tsquery('{TEXT_CONFIG}', ?) AND id > ?",
            (_or_query([term]), after_id),
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
    ) -> list[tuple[int, float]]:
        """The same ranking as `full_text`, for a query in FTS5's quoted-words form."""
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
        The scope and the time window are in the query itself."""
        words = [w for w in dict.fromkeys(words) if w]
        if not words:
            return []
        total = max(1, self.passage_count())
        version = self.corpus_version()
        counts = {w: self._word_count(w, version) for w in words}
        # ts_rank reads every match's tsvector: rank about POSTINGS_BUDGET matches at most, leaving the
        # commonest words out first and, when even the rarest is that common, ranking its latest matches
        chosen: list[str] = []
        spent = 0
        for w in sorted(words, key=lambda w: (counts[w], w)):
            if chosen and spent + counts[w] > POSTINGS_BUDGET:
                break
            chosen.append(w)
            spent += counts[w]
        words = [w for w in words if w in chosen]
        idf = {w: _idf(counts[w], total) for w in words}
        first, last = ids or (0, 1 << 62)
        if spent > POSTINGS_BUDGET:
            first = max(first, int(total - total * POSTINGS_BUDGET / spent))  # ids follow ingest order
        where, params = scope_sql(scope)
        time_sql = _window(since, until, params)
        rank = " + ".join(f"{idf[w]:.6f} * ts_rank(p.tsv, websearch_to_tsquery('{TEXT_CONFIG}', ?), 1)" for w in words)
        sql = f"""SELECT p.id, {rank} AS score FROM passages p JOIN sessions s ON s.id = p.session
                  WHERE p.tsv @@ websearch_to_tsquery('{TEXT_CONFIG}', ?) AND p.id BETWEEN ? AND ?
                    AND {where}{time_sql}
                  ORDER BY score DESC, p.id LIMIT ?"""
        args = [*(_or_query([w]) for w in words), _or_query(words), first, last, *params, limit]
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
    ) -> list[tuple[int, float]]:
        """(passage id, cosine) of the `k` nearest passages in the scope and the window [since, until),
        best first. The person's own scope walks the HNSW index (iteratively, until `k` rows pass the
        filters); a project or agent scope, or a window, is scored exactly over its own rows."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        dim = len(q)
        self.vector_index(dim)
        where, params = scope_sql(scope)
        time_sql = _window(since, until, params)
        exact = scope.folders() is not None or since is not None
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


def _or_query(words: Sequence[str]) -> str:
    """A web-search query that matches any of the words (each quoted: punctuation inside a word stays)."""
    return " or ".join('"' + w.replace('"', " ") + '"' for w in words)


def _idf(matches: int, total: int) -> float:
    return math.log(1 + (total - matches + 0.5) / (matches + 0.5))


def _window(since: str | None, until: str | None, params: list[object]) -> str:
    from .passages import _window_sql

    return _window_sql(since, until, params)

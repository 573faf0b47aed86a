"""Where every passage sits, held in memory: its session and its time, so that scope and time
filters over a million passages are array operations rather than SQL joins.

Guarantees:
- grown forward from the last passage id seen (passages are append-only: never deleted or moved);
- `ids_in(scope, since, until)` is exactly the passages the scope SQL and the time window keep, as a
  sorted array: the sessions a scope keeps come from the store's own scope SQL (`sessions_in_scope`),
  re-read whenever the corpus changes, so a session whose folder or kind changed is filtered as it is
  now; times compare as the SQL does (byte order of the stored text; a passage with no time is
  outside every window, and inside a bound that is only an end: memory's "now");
- `keep(ids, ...)` answers the same question for given ids, in their order;
- `id_range(since, until)` bounds the ids of every passage in the window, and `span(scope)` those of a
  scope's passages (for full-text searches);
- `sessions_in(scope)` is the set of sessions with passages the scope keeps (for the key lists), and
  `ids_of_sessions` the passages of given sessions.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

import numpy as np

from ..contract import Scope
from ..store.sqlite import Store

CHUNK = 200_000
WINDOWS = 8  # time windows whose mask over every passage is kept
FROM_INDEXES = 100_000  # passages to read at once past which they are read from the indexes


class PassageDirectory:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._codes: dict[str, int] = {}  # session id -> small int
        self.ids = np.zeros(0, dtype=np.int64)
        self._session = np.zeros(0, dtype=np.int32)
        self._ts = np.zeros(0, dtype="S1")
        self._has_ts = np.zeros(0, dtype=bool)
        self._latest = b""  # the latest time of any passage: a window ending after it cuts nothing off
        self._scopes: dict[tuple[object, ...], np.ndarray] = {}
        self._spans: dict[tuple[object, ...], tuple[int, int, int]] = {}
        self._named: dict[tuple[object, ...], tuple[int, frozenset[str]]] = {}
        self._inside: dict[tuple[object, ...], tuple[int, np.ndarray]] = {}
        self._windows: dict[tuple[str | None, str | None, int], np.ndarray] = {}  # the last WINDOWS whole masks
        self._version = -1

    def refresh(self, store: Store) -> PassageDirectory:
        """Read the passages added since the last call; forget cached scopes when the corpus moved."""
        with self._lock:
            version = store.corpus_version()
            if version != self._version:
                self._scopes, self._spans, self._named, self._inside, self._version = {}, {}, {}, {}, version
            last = int(self.ids[-1]) if len(self.ids) else 0
            newest = store.passage_count()
            if newest - last > FROM_INDEXES:  # many to read: the indexes alone, not the table's text pages
                rows = store.passage_places_from_indexes(last, newest)
                if rows:
                    self._append(rows)
                    last = rows[-1][0]
            while True:
                rows = store.passage_places(last, CHUNK)
                if not rows:
                    break
                self._append(rows)
                last = rows[-1][0]
        return self

    def _append(self, rows: list[tuple[int, str, bytes | None]]) -> None:
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        codes = np.fromiter((self._codes.setdefault(r[1], len(self._codes)) for r in rows), np.int32, len(rows))
        ts = np.array([r[2] or b"" for r in rows], dtype=bytes)
        width = max(ts.dtype.itemsize, self._ts.dtype.itemsize)
        self.ids = np.concatenate([self.ids, ids])
        self._session = np.concatenate([self._session, codes])
        self._ts = np.concatenate([self._ts.astype(f"S{width}"), ts.astype(f"S{width}")])
        self._has_ts = np.concatenate([self._has_ts, np.array([r[2] is not None for r in rows], dtype=bool)])
        self._latest = max([self._latest, *(r[2] for r in rows if r[2] is not None)])

    def _session_mask(self, store: Store, scope: Scope) -> np.ndarray:
        """One flag per session code: may this scope read it."""
        key = (scope.project_cwds, scope.agent_projects)
        mask = self._scopes.get(key)
        if mask is None or len(mask) < len(self._codes):
            mask = np.zeros(len(self._codes), dtype=bool)
            for session in store.sessions_in_scope(scope):
                code = self._codes.get(session)
                if code is not None:
                    mask[code] = True
            self._scopes[key] = mask
        return mask

    def _in_window(self, rows: np.ndarray | slice, since: str | None, until: str | None) -> np.ndarray:
        """Which of `rows` have a time in the window. Over every row (one question asks for its window several
        times: its full-text bounds, its dense scope) the mask is kept for the last WINDOWS windows."""
        if isinstance(rows, slice) and rows == slice(None):
            key = (since, until, len(self.ids))
            mask = self._windows.get(key)
            if mask is None:
                mask = self._window_mask(rows, since, until)
                mask.flags.writeable = False
                self._windows = {**dict(list(self._windows.items())[-(WINDOWS - 1) :]), key: mask}
            return mask
        return self._window_mask(rows, since, until)

    def _window_mask(self, rows: np.ndarray | slice, since: str | None, until: str | None) -> np.ndarray:
        if since is None and (until is None or until.encode() > self._latest):  # memory's "now", after everything
            return np.ones(len(self.ids[rows]), dtype=bool)
        ts = self._ts[rows]
        keep = np.ones(len(ts), dtype=bool)
        if since is not None:
            keep &= self._has_ts[rows] & (ts >= since.encode())
            if until is not None:
                keep &= ts < until.encode()
        elif until is not None:  # memory's "now": a passage with no time is not known to be after it
            keep &= ~self._has_ts[rows] | (ts < until.encode())
        return keep

    def _rows_kept(
        self, store: Store, scope: Scope, rows: np.ndarray | slice, since: str | None, until: str | None
    ) -> np.ndarray:
        return self._session_mask(store, scope)[self._session[rows]] & self._in_window(rows, since, until)

    def span(self, store: Store, scope: Scope) -> tuple[int, int]:
        """(first, last) id of the scope's passages at any time; (1, 0) if none. Kept until the corpus moves."""
        with self._lock:
            key = ("span", scope.project_cwds, scope.agent_projects)
            cached = self._spans.get(key)
            if cached is None or cached[2] != len(self.ids):
                inside = self.ids[self._rows_kept(store, scope, slice(None), None, None)]
                first, last = (int(inside[0]), int(inside[-1])) if len(inside) else (1, 0)
                cached = self._spans[key] = (first, last, len(self.ids))
            return cached[0], cached[1]

    def id_range(self, since: str | None, until: str | None) -> tuple[int, int]:
        """(first, last) id of the passages, in any scope, with a time in [since, until); (1, 0) if none."""
        with self._lock:
            hits = self.ids[self._in_window(slice(None), since, until)]
            return (int(hits[0]), int(hits[-1])) if len(hits) else (1, 0)

    def ids_in(self, store: Store, scope: Scope, *, since: str | None = None, until: str | None = None) -> np.ndarray:
        """Sorted ids of the passages inside the scope and the window [since, until). With no window, kept
        until the corpus moves (a project's dense search asks for them with every question)."""
        with self._lock:
            if since is not None or until is not None:
                return self.ids[self._rows_kept(store, scope, slice(None), since, until)]
            key = ("ids", scope.project_cwds, scope.agent_projects)
            cached = self._inside.get(key)
            if cached is None or cached[0] != len(self.ids):
                inside = self.ids[self._rows_kept(store, scope, slice(None), None, None)]
                inside.flags.writeable = False  # shared by every caller
                cached = self._inside[key] = (len(self.ids), inside)
            return cached[1]

    def sessions_in(self, store: Store, scope: Scope) -> frozenset[str]:
        """The sessions with passages that the scope may read (from the same scope SQL as `ids_in`)."""
        with self._lock:
            mask = self._session_mask(store, scope)
            key = ("sessions", scope.project_cwds, scope.agent_projects)
            cached = self._named.get(key)
            if cached is None or cached[0] != len(self._codes):
                names = [s for s, code in self._codes.items() if mask[code]]
                cached = self._named[key] = (len(self._codes), frozenset(names))
            return cached[1]

    def ids_of_sessions(self, sessions: Collection[str]) -> np.ndarray:
        """Sorted ids of every passage of these sessions (any scope: callers pass sessions from `sessions_in`)."""
        with self._lock:
            codes = [self._codes[s] for s in sessions if s in self._codes]
            if not codes:
                return np.zeros(0, dtype=np.int64)
            return self.ids[np.isin(self._session, np.asarray(codes, dtype=np.int32))]

    def keep(
        self, store: Store, scope: Scope, ids: list[int], *, since: str | None = None, until: str | None = None
    ) -> list[int]:
        """Those of `ids` inside the scope and the window, in their order (unknown ids are dropped)."""
        if not ids:
            return []
        with self._lock:
            wanted = np.asarray(ids, dtype=np.int64)
            rows = np.searchsorted(self.ids, wanted)
            rows = np.minimum(rows, max(len(self.ids) - 1, 0))
            known = (self.ids[rows] == wanted) if len(self.ids) else np.zeros(len(wanted), dtype=bool)
            kept = known & self._rows_kept(store, scope, rows, since, until) if len(self.ids) else known
            return [i for i, k in zip(ids, kept.tolist()) if k]

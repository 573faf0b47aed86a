"""The vector index: row ids + unit vectors, top-k cosine search, optionally restricted to a scope.

Guarantees:

* ``search(query, k, allowed)`` returns at most ``k`` ``(row_id, cosine)`` pairs, best first, never
  an id that was not added and, when ``allowed`` is given, never an id outside ``allowed``.
* A scoped search (``allowed`` given) scores only the rows in ``allowed``, never decoding another
  row's vector. It is exact over them (up to float16 storage rounding, ~1e-3 on a cosine) while the
  index is flat or the scope holds at most ``exact_scope_rows`` rows (50k); a larger scope in an
  inverted file visits the same share of cells as an unscoped search, and is as approximate.
* An unscoped search is exact (flat scan) while the index holds fewer than ``ivf_threshold`` rows
  (200k); above it the index becomes an inverted file (k-means cells, ~sqrt(n); a quarter of them
  visited per query), which is approximate: bench/vectors.py prints recall@50 against brute force
  (0.97 at 1M on its deliberately diffuse synthetic data). The cells are trained inside the ``add``
  that crosses the threshold and retrained whenever the index has grown 4x (tens of seconds at 1M).
* In an inverted file, a scope of at most ``EXACT_BY_ROWS`` rows (2,000) is scored from its own rows,
  read by id, whatever ``exact`` says: exact, and faster than any pass over the cells. A larger
  scoped search costs about one pass over the index's ids whatever the scope's size (~35 ns a
  row: ~10 ms per 300k rows, ~45 ms per 1M, on this 2-core machine).
* Vectors are stored as float16 (768 MB per million 384-dim rows), inputs are L2-normalised on
  ``add`` and on ``search``, so scores are cosines.
* The index is a derived cache: ``save``/``load`` write and read one file; the database stays the
  source of truth and the index can always be rebuilt from it.

Engine: faiss-cpu (``IndexScalarQuantizer``/``IndexIVFScalarQuantizer``, fp16) when installed; else
an exact numpy float32 matmul (correct, but ~4x the memory and not within the 1M-row latency budget).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from vyre_memory.errors import StoreError

__all__ = ["VectorIndex"]

_FORMAT = 2
_MAGIC = b"VYRE-VECTORS\n"


EXACT_BY_ROWS = 2_000  # a scope this small in an inverted file is scored from its rows, exactly


def _have_faiss() -> bool:
    return importlib.util.find_spec("faiss") is not None


def _faiss() -> Any:
    """The faiss module, untyped (its bundled stubs miss the keyword arguments used here)."""
    return importlib.import_module("faiss")


def _unit(x: np.ndarray, dim: int) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2 or x.shape[1] != dim:
        raise ValueError(f"expected vectors of dimension {dim}, got shape {x.shape}")
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.ascontiguousarray(x / np.maximum(norms, 1e-12), dtype=np.float32)


def _sorted_unique(ids: np.ndarray) -> np.ndarray:
    """The distinct ids in ascending order, as np.unique gives them, but without its cost when they are so
    already (a scope's ids come sorted): numpy 2's hashing unique takes ~0.5 s for 300k ids, a sort a tenth."""
    if len(ids) < 2 or bool(np.all(ids[1:] > ids[:-1])):
        return ids
    ordered = np.sort(ids)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


class VectorIndex:
    """Top-k cosine search over (row id, vector) pairs; see the module docstring for guarantees."""

    def __init__(
        self,
        dim: int = 384,
        *,
        ivf_threshold: int = 200_000,
        nprobe_fraction: float = 0.25,
        exact_scope_rows: int = 50_000,
        engine: str | None = None,
    ) -> None:
        self.dim = dim
        self.ivf_threshold = ivf_threshold
        self.nprobe_fraction = nprobe_fraction
        self.exact_scope_rows = exact_scope_rows
        self.engine = engine or ("faiss" if _have_faiss() else "numpy")
        if self.engine not in ("faiss", "numpy"):
            raise ValueError(f"unknown vector engine {engine!r}")
        self._index: Any = None  # faiss index (engine "faiss")
        self._trained_at = 0  # rows when the IVF cells were trained (0 = flat)
        self._np_ids = np.zeros(0, dtype=np.int64)  # engine "numpy"
        self._np_vecs = np.zeros((0, dim), dtype=np.float32)
        self._count = 0
        self._max_id = -1
        self.note = ""  # what `save` was told to keep beside the rows (read back by `load`)

    # ------------------------------------------------------------------ building

    def __len__(self) -> int:
        return self._count

    @property
    def nbytes(self) -> int:
        """Approximate memory held: vector codes + ids (+ the IVF's id->slot map and centroids)."""
        if self.engine == "numpy":
            return int(self._np_vecs.nbytes + self._np_ids.nbytes)
        if self._index is None:
            return 0
        n = self._index.ntotal
        per_row = 2 * self.dim + 8  # float16 code + int64 id
        if self._trained_at:
            per_row += 16  # direct-map hashtable entry (approx.)
            return n * per_row + self._index.nlist * self.dim * 4
        return n * per_row

    @property
    def max_id(self) -> int:
        """The largest row id added (-1 while empty)."""
        return self._max_id

    @property
    def is_exact(self) -> bool:
        """True while unscoped searches are exact (flat scan)."""
        return self._trained_at == 0

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add rows. Ids must be non-negative, unique within the call and not already in the index."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        vecs = _unit(vectors, self.dim) if len(ids) else np.zeros((0, self.dim), np.float32)
        if len(ids) != len(vecs):
            raise ValueError(f"{len(ids)} ids for {len(vecs)} vectors")
        if len(ids) == 0:
            return
        if ids.min() < 0:
            raise ValueError("row ids must be non-negative")
        if len(_sorted_unique(ids)) != len(ids):
            raise ValueError("duplicate row ids in one add()")
        if self._count and np.isin(ids, self.ids(), assume_unique=True).any():
            raise ValueError("row id already in the index")
        if self.engine == "numpy":
            self._np_ids = np.concatenate([self._np_ids, ids])
            self._np_vecs = np.concatenate([self._np_vecs, vecs])
        else:
            self._faiss_add(ids, vecs)
        self._count += len(ids)
        self._max_id = max(self._max_id, int(ids.max()))

    def _faiss_add(self, ids: np.ndarray, vecs: np.ndarray) -> None:
        faiss = _faiss()

        if self._index is None:
            flat = faiss.IndexScalarQuantizer(self.dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
            self._index = faiss.IndexIDMap2(flat)
        total = self._count + len(ids)
        # Flat while small; an IVF once past the threshold; retrained (more cells) each time it grows 4x.
        if (self._trained_at == 0 and total >= self.ivf_threshold) or (
            self._trained_at and total >= 4 * self._trained_at
        ):
            old_ids, old_vecs = self._all_rows()
            self._train_ivf(np.concatenate([old_ids, ids]), np.concatenate([old_vecs, vecs]))
            return
        self._index.add_with_ids(vecs, ids)

    def _all_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, decoded float32 vectors) of everything in the faiss index."""
        faiss = _faiss()

        if self._index is None or self._index.ntotal == 0:
            return np.zeros(0, np.int64), np.zeros((0, self.dim), np.float32)
        if self._trained_at == 0:
            inner = faiss.downcast_index(self._index.index)
            return faiss.vector_to_array(self._index.id_map).astype(np.int64), inner.reconstruct_n(0, inner.ntotal)
        ids = self._all_ids_faiss()
        return ids, self._index.reconstruct_batch(ids)

    def _train_ivf(self, ids: np.ndarray, vecs: np.ndarray) -> None:
        faiss = _faiss()

        n = len(ids)
        nlist = max(64, 1 << round(math.log2(math.sqrt(n))))  # 1024 cells for 1M rows
        quantizer = faiss.IndexFlatIP(self.dim)
        ivf = faiss.IndexIVFScalarQuantizer(
            quantizer, self.dim, nlist, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT
        )
        ivf.own_fields = True
        quantizer.this.disown()
        ivf.cp.niter = 10
        ivf.cp.max_points_per_centroid = 40
        rng = np.random.default_rng(0)
        sample = vecs[rng.choice(n, min(n, 40 * nlist), replace=False)]
        ivf.train(sample)
        ivf.add_with_ids(vecs, ids)
        ivf.nprobe = max(1, int(nlist * self.nprobe_fraction))
        ivf.set_direct_map_type(faiss.DirectMap.Hashtable)  # reconstruct by id, for retraining
        self._index = ivf
        self._trained_at = n

    # ------------------------------------------------------------------ reading

    def ids(self) -> np.ndarray:
        """All row ids in the index (unordered)."""
        if self.engine == "numpy":
            return self._np_ids.copy()
        return self._all_ids_faiss()

    def _all_ids_faiss(self) -> np.ndarray:
        faiss = _faiss()

        if self._index is None:
            return np.zeros(0, np.int64)
        if self._trained_at == 0:
            return faiss.vector_to_array(self._index.id_map).astype(np.int64)
        inv = self._index.invlists
        parts = [
            faiss.rev_swig_ptr(inv.get_ids(li), inv.list_size(li)).copy()
            for li in range(self._index.nlist)
            if inv.list_size(li)
        ]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None = None, *, exact: bool = True
    ) -> list[tuple[int, float]]:
        """Top-``k`` (row id, cosine), best first; restricted to ``allowed`` ids when given. Once cells are
        trained, a small ``allowed`` set is scored exactly (every cell visited) unless ``exact`` is False:
        then the usual share of cells, as for a search of everything."""
        if k <= 0 or self._count == 0:
            return []
        q = _unit(query, self.dim)
        if allowed is not None:
            allowed = _sorted_unique(np.asarray(allowed, dtype=np.int64).reshape(-1))
            allowed = allowed[(allowed >= 0) & (allowed <= self._max_id)]
            if len(allowed) == 0:
                return []
        if self.engine == "numpy":
            return self._search_numpy(q[0], k, allowed)
        return self._search_faiss(q, k, allowed, exact)

    def _search_numpy(self, q: np.ndarray, k: int, allowed: np.ndarray | None) -> list[tuple[int, float]]:
        ids, vecs = self._np_ids, self._np_vecs
        if allowed is not None:
            rows = np.flatnonzero(np.isin(ids, allowed, assume_unique=True))
            ids, vecs = ids[rows], vecs[rows]
        if len(ids) == 0:
            return []
        scores = vecs @ q
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((ids[top], -scores[top]))]
        return [(int(ids[i]), float(scores[i])) for i in top]

    def _search_faiss(self, q: np.ndarray, k: int, allowed: np.ndarray | None, exact: bool) -> list[tuple[int, float]]:
        faiss = _faiss()

        k = min(k, self._count)
        # One query is scanned by one thread in faiss anyway; a 1-thread OpenMP team also avoids
        # spin-waiting workers when the machine is busy (measured 2-3x slower wall time otherwise).
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            return self._search_faiss_1t(faiss, q, k, allowed, exact)
        finally:
            faiss.omp_set_num_threads(threads)

    def _search_faiss_1t(
        self, faiss: Any, q: np.ndarray, k: int, allowed: np.ndarray | None, exact: bool
    ) -> list[tuple[int, float]]:
        if allowed is None:
            scores, labels = self._index.search(q, k)
            return [(int(i), float(s)) for i, s in zip(labels[0], scores[0]) if i >= 0]
        k = min(k, len(allowed))
        if self._trained_at and len(allowed) <= EXACT_BY_ROWS:
            found = self._search_rows(q, k, allowed)
            if found is not None:
                return found
        bitmap: np.ndarray | None = None
        if self._max_id < 1 << 31:
            # One bit per possible id: O(1) membership, 128 KB per million ids.
            mask = np.zeros(self._max_id + 1, dtype=bool)
            mask[allowed] = True
            bitmap = np.packbits(mask, bitorder="little")
            sel = faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bitmap))
        else:
            sel = faiss.IDSelectorBatch(allowed)
        if self._trained_at == 0:
            params: Any = faiss.SearchParameters(sel=sel)
        else:  # a small scope visits every cell (exact over it); a large one the usual share of cells
            nprobe = self._index.nlist if exact and len(allowed) <= self.exact_scope_rows else self._index.nprobe
            params = faiss.SearchParametersIVF(sel=sel, nprobe=nprobe)
        scores, labels = self._index.search(q, k, params=params)
        del bitmap  # kept alive until faiss is done with the pointer
        return [(int(i), float(s)) for i, s in zip(labels[0], scores[0]) if i >= 0]

    def _search_rows(self, q: np.ndarray, k: int, allowed: np.ndarray) -> list[tuple[int, float]] | None:
        """A small set in an inverted file, scored exactly from its own rows (read by id): faster than visiting
        every cell and exact whatever share of cells a search visits; None when an id has no row (a passage not
        embedded yet), for the cells' search to skip it."""
        try:
            vecs = self._index.reconstruct_batch(allowed)
        except RuntimeError:
            return None
        scores = np.einsum("ij,j->i", vecs, q[0])  # one thread: a BLAS product spreads this small one over all cores
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((allowed[top], -scores[top]))]
        return [(int(allowed[i]), float(scores[i])) for i in top]

    # ------------------------------------------------------------------ persistence

    def save(self, path: str | os.PathLike[str], note: str = "") -> None:
        """Write the index to one file (atomically: a temp file renamed over ``path``), streamed: a header
        line of JSON, then the faiss index (or the numpy ids and vectors), never a second copy in memory."""
        path = Path(path)
        meta = {
            "format": _FORMAT,
            "dim": self.dim,
            "engine": self.engine,
            "count": self._count,
            "max_id": self._max_id,
            "trained_at": self._trained_at,
            "ivf_threshold": self.ivf_threshold,
            "nprobe_fraction": self.nprobe_fraction,
            "exact_scope_rows": self.exact_scope_rows,
            "has_faiss": self._index is not None,
            "note": note,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        try:
            with tmp.open("wb") as f:
                f.write(_MAGIC + json.dumps(meta).encode() + b"\n")
                if self.engine == "numpy":
                    np.save(f, self._np_ids, allow_pickle=False)
                    np.save(f, self._np_vecs, allow_pickle=False)
                elif self._index is not None:
                    faiss = _faiss()
                    faiss.write_index(self._index, faiss.PyCallbackIOWriter(f.write))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> VectorIndex:
        """Read a file written by ``save``, streamed. Raises StoreError when it is missing, corrupt or from
        another format."""
        try:
            with Path(path).open("rb") as f:
                if f.read(len(_MAGIC)) != _MAGIC:
                    raise StoreError(f"{path} is not a vector index file (or an older format); delete it to rebuild")
                meta = json.loads(f.readline().decode())
                if meta.get("format") != _FORMAT:
                    raise StoreError(f"vector index {path} has format {meta.get('format')}; rebuild it")
                idx = cls(
                    meta["dim"],
                    ivf_threshold=meta["ivf_threshold"],
                    nprobe_fraction=meta["nprobe_fraction"],
                    exact_scope_rows=meta.get("exact_scope_rows", 50_000),
                    engine=meta["engine"],
                )
                idx._count, idx._max_id, idx._trained_at = meta["count"], meta["max_id"], meta["trained_at"]
                idx.note = str(meta.get("note", ""))
                if idx.engine == "numpy":
                    idx._np_ids = np.load(f, allow_pickle=False).astype(np.int64)
                    idx._np_vecs = np.load(f, allow_pickle=False).astype(np.float32)
                elif meta["has_faiss"]:
                    faiss = _faiss()
                    idx._index = faiss.read_index(faiss.PyCallbackIOReader(f.read))
        except StoreError:
            raise
        except (OSError, ValueError, KeyError, EOFError, RuntimeError, UnicodeDecodeError) as e:
            raise StoreError(f"cannot read vector index {path}: {e}; delete it to rebuild") from e
        return idx

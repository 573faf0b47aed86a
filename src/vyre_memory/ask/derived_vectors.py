"""Vectors of texts derived from the passages, each pointing back at one: the sentences of typed words
(ask/sentences.py) and the exchanges of conversations (ask/exchanges.py).

A kind of derived text (`DerivedKind`) says how its texts are read from a range of passages and which passage a
text's row stands for. Its vectors are stored with the passages' under the embedder's name plus the kind's suffix and
found again by their texts' hashes, so no table holds them and `db copy` copies them with the rest. They are embedded
after the passages (`embed_derived`), forward from a mark of their own, and searched as one more list
(`DerivedIndex`): a passage scores by its nearest derived text.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import StoreError
from ..store.sqlite import Store
from ..store.vectors import VectorIndex
from .vector_files import fingerprint, index_file, worth_writing

PASSAGES_PER_READ = 500

# Of at most `limit` passages of a kind's in (after_id, through_id]: (row id, text hash, text) of each of their
# derived texts, the last passage id the read covers (through_id when fewer were left), and how many it read
Reader = Callable[[Store, int, int, int], tuple[list[tuple[int, str, str]], int, int]]


@dataclass(frozen=True)
class DerivedKind:
    name: str  # "sentences", "exchanges": the suffix of the model their vectors are stored under, and their file's
    read: Reader
    backlog: Callable[[Store, int], int]  # how many passages after a mark may have texts of this kind
    owner: Callable[[int], int] = lambda row: row  # the passage a text's row id stands for

    def model(self, model: str) -> str:
        """The name this kind's vectors are stored under."""
        return f"{model}/{self.name}"

    def mark(self, model: str) -> str:
        """The meta key of the last passage id whose texts of this kind have vectors under `model`."""
        return f"embedded.{self.name}:{model}"

    def waiting(self, store: Store, model: str) -> int:
        """How many passages wait for their texts' vectors of this kind under `model`."""
        return self.backlog(store, int(store.get_meta(self.mark(model)) or 0))


def embed_derived(
    kind: DerivedKind,
    store: Store,
    embedder: Any,
    run: Callable[..., Any],
    *,
    batch: int,
    stop: Callable[[], bool] | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Embed the texts of `kind` of the passages after its mark that have no vector yet, a batch of passages at a
    time, each batch's vectors and the mark stored in one transaction; returns how many were embedded.
    `progress(passages)` after each batch."""
    model, mark = kind.model(embedder.name), kind.mark(embedder.name)
    embedded = 0
    while not (stop and stop()):
        last = int(run(store.get_meta, mark) or 0)
        end = run(store.passage_count)
        if last >= end:
            break
        said, through, passages = run(kind.read, store, last, end, max(1, batch // 4))
        have = run(store.vectors_by_hash, model, list({h for _, h, _ in said}))
        todo = {h: text for _, h, text in said if h not in have}
        hashes = list(todo)
        vectors = embedder.embed([todo[h] for h in hashes]) if hashes else []
        run(store.put_vectors, model, list(zip(hashes, vectors)), through_id=through, mark=mark)
        embedded += len(hashes)
        if progress and passages:
            progress(passages)
    return embedded


class DerivedIndex:
    """The vectors of one kind of derived text of one embedder in a vector index, read forward up to its mark.

    With a folder, a large index is kept in a file there (as the passages' vectors are, `VectorCache`), so a new
    process reads only the texts embedded since: reading them by hash from the database takes tens of seconds
    per few hundred thousand (README, "Sentences as keys of their own"). The file is read only while the
    database still holds the passages it was built from (`vector_files.fingerprint`)."""

    def __init__(self, kind: DerivedKind, folder: Path | None = None) -> None:
        self.kind = kind
        self._lock = threading.Lock()
        self.folder = folder
        self._model: str | None = None
        self._through = 0
        self._saved_rows = 0
        self._index: VectorIndex | None = None

    def refresh(self, store: Store, model: str, dim: int) -> DerivedIndex:
        """Brought up to date with the texts embedded since it last read."""
        with self._lock:
            if self._model != model or self._index is None:
                self._model = model
                self._index, self._through, self._saved_rows = self._load(store, model, dim)
            mark = int(store.get_meta(self.kind.mark(model)) or 0)
            rows: list[int] = []
            vectors: list[np.ndarray] = []
            while self._through < mark:
                said, self._through, _ = self.kind.read(store, self._through, mark, PASSAGES_PER_READ)
                found = store.vectors_by_hash(self.kind.model(model), list({h for _, h, _ in said}), dim)
                for row, h, _ in said:
                    if h in found:
                        rows.append(row)
                        vectors.append(found[h])
            if rows:  # one add: an index grown row batch by row batch checks every batch against all it holds
                self._index.add(np.asarray(rows, dtype=np.int64), np.stack(vectors))
                path = index_file(self.folder, store, model, self.kind.name)
                if path is not None and worth_writing(len(self._index), self._saved_rows):
                    note = json.dumps({"fingerprint": fingerprint(store, self._through), "through": self._through})
                    try:
                        self._index.save(path, note=note)
                        self._saved_rows = len(self._index)
                    except OSError:
                        pass  # a read-only or full disk: the next process reads the database again
        return self

    def _load(self, store: Store, model: str, dim: int) -> tuple[VectorIndex, int, int]:
        """(index, the last passage id it read, rows in its file): the kept file's when the database still matches
        it, else an empty one."""
        path = index_file(self.folder, store, model, self.kind.name)
        if path is not None and path.exists():
            try:
                index = VectorIndex.load(path)
                note = json.loads(index.note)
                through = int(note["through"])
                if index.dim == dim and note["fingerprint"] == fingerprint(store, through):
                    return index, through, len(index)
            except (StoreError, ValueError, TypeError, KeyError):
                pass  # unreadable: built again from the database and written again
        return VectorIndex(dim), 0, 0

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The `k` passages whose nearest derived text is nearest `query`, best first, each at that text's
        cosine."""
        with self._lock:
            if self._index is None or not len(self._index):
                return []
            best: dict[int, float] = {}
            for row, score in self._index.search(query, 4 * k):
                best.setdefault(self.kind.owner(row), score)
        return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]

"""The typed words' sentences as vectors of their own: what is said in passing inside a long message.

A passage's vector is of all it says; a question about one thing said in passing ("which sport did she take
up", of "Long week. She joined an archery club on Sunday. The rain never stopped.") is nearer that one sentence. Each
passage of typed words with more than one sentence has a vector per sentence (`passages.sentences`), stored
with the passages' vectors under the embedder's name plus `SUFFIX` and found again by their texts' hashes,
so no table holds them and `db copy` copies them with the rest. They are embedded after the passages
(`embed_sentences`), forward from a mark of their own, and searched as one more list (`SentenceIndex`): a
passage scores by its nearest sentence.

Measured (hybrid recall@8, without -> with the list at weight 0.6): open 0.870 -> 0.895, open2 0.851 -> 0.865,
the five LoCoMo conversations 0.786 -> 0.801 (every one up), two worlds written for checking before it was
tried 0.901 = and 0.821 -> 0.851 (README, "Sentences as keys of their own").
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import StoreError
from ..store.sqlite import Store
from ..store.vectors import VectorIndex
from .passages import SENTENCES_MAX, sentences, text_hash
from .vector_files import fingerprint, index_file, worth_writing

SUFFIX = "/sentences"
PASSAGES_PER_READ = 500


def sentence_model(model: str) -> str:
    """The name the sentences' vectors are stored under."""
    return model + SUFFIX


def sentences_mark(model: str) -> str:
    """The meta key of the last passage id whose sentences have vectors under `model`."""
    return f"embedded.sentences:{model}"


def sentence_backlog(store: Store, model: str) -> int:
    """How many passages of typed words wait for their sentences' vectors under `model`."""
    return store.typed_passage_count(int(store.get_meta(sentences_mark(model)) or 0))


def sentence_texts(rows: list[tuple[int, str, str | None]]) -> list[tuple[int, str, str]]:
    """(row id, text hash, text) of each sentence of these typed passages (id, text, speaker): the n-th sentence
    of passage p is row p * SENTENCES_MAX + n, so a row names its passage (`owner`)."""
    return [
        (pid * SENTENCES_MAX + n, text_hash(said), said)
        for pid, text, name in rows
        for n, said in enumerate(sentences(text, name))
    ]


def owner(row: int) -> int:
    """The passage of a sentence's row id."""
    return row // SENTENCES_MAX


def embed_sentences(
    store: Store,
    embedder: Any,
    run: Callable[..., Any],
    *,
    batch: int,
    stop: Callable[[], bool] | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Embed the sentences of the typed passages after the sentences' mark that have no vector yet, a batch of
    passages at a time, each batch's vectors and the mark stored in one transaction; returns how many were
    embedded. `progress(passages)` after each batch."""
    model, mark = sentence_model(embedder.name), sentences_mark(embedder.name)
    embedded = 0
    while not (stop and stop()):
        last = int(run(store.get_meta, mark) or 0)
        end = run(store.passage_count)
        if last >= end:
            break
        rows = run(store.typed_passages, last, end, max(1, batch // 4))
        through = rows[-1][0] if len(rows) == max(1, batch // 4) else end
        said = sentence_texts(rows)
        have = run(store.vectors_by_hash, model, list({h for _, h, _ in said}))
        todo = {h: text for _, h, text in said if h not in have}
        hashes = list(todo)
        vectors = embedder.embed([todo[h] for h in hashes]) if hashes else []
        run(store.put_vectors, model, list(zip(hashes, vectors)), through_id=through, mark=mark)
        embedded += len(hashes)
        if progress and rows:
            progress(len(rows))
    return embedded


class SentenceIndex:
    """The sentences' vectors of one embedder in a vector index, read forward up to the sentences' mark.

    With a folder, a large index is kept in a file there (as the passages' vectors are, `VectorCache`), so a new
    process reads only the sentences embedded since: reading them by hash from the database takes tens of seconds
    per few hundred thousand (README, "Sentences as keys of their own"). The file is read only while the
    database still holds the passages it was built from (`vector_files.fingerprint`)."""

    def __init__(self, folder: Path | None = None) -> None:
        self._lock = threading.Lock()
        self.folder = folder
        self._model: str | None = None
        self._through = 0
        self._saved_rows = 0
        self._index: VectorIndex | None = None

    def refresh(self, store: Store, model: str, dim: int) -> SentenceIndex:
        """Brought up to date with the sentences embedded since it last read."""
        with self._lock:
            if self._model != model or self._index is None:
                self._model = model
                self._index, self._through, self._saved_rows = self._load(store, model, dim)
            mark = int(store.get_meta(sentences_mark(model)) or 0)
            rows: list[int] = []
            vectors: list[np.ndarray] = []
            while self._through < mark:
                passages = store.typed_passages(self._through, mark, PASSAGES_PER_READ)
                said = sentence_texts(passages)
                found = store.vectors_by_hash(sentence_model(model), list({h for _, h, _ in said}), dim)
                for row, h, _ in said:
                    if h in found:
                        rows.append(row)
                        vectors.append(found[h])
                self._through = passages[-1][0] if len(passages) == PASSAGES_PER_READ else mark
            if rows:  # one add: an index grown row batch by row batch checks every batch against all it holds
                self._index.add(np.asarray(rows, dtype=np.int64), np.stack(vectors))
                path = index_file(self.folder, store, model, "sentences")
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
        path = index_file(self.folder, store, model, "sentences")
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
        """The `k` passages whose nearest sentence is nearest `query`, best first, each at that sentence's
        cosine."""
        with self._lock:
            if self._index is None or not len(self._index):
                return []
            best: dict[int, float] = {}
            for row, score in self._index.search(query, 4 * k):
                best.setdefault(owner(row), score)
        return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]

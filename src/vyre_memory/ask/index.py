"""Keeping the retrieval index up to date: passages for new turns, then their vectors.

Incremental: passages are built for turns after the last indexed one, and vectors only for
passage texts that have none under the current embedder (cached by text hash, so an
unchanged text is never embedded twice).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..store.sqlite import Store
from .passages import build

Progress = Callable[[int, int, str], None]
EMBED_BATCH = 256


def index_passages(store: Store, user_name: str) -> int:
    """Build passages for every turn not yet indexed; returns how many were added."""
    added = 0
    last = store.indexed_turn()
    while True:
        turns = store.turns_to_index(last, limit=5000)
        if not turns:
            return added
        new = [p for t in turns for p in build(t, store.tool_pair, user_name)]
        last = turns[-1].id
        store.add_passages(new, last)
        added += len(new)


def embed_passages(store: Store, embedder: Any, progress: Progress | None = None) -> int:
    """Embed passage texts that have no vector under this embedder yet, reading forward from the last one done."""
    done = 0
    last = store.embedded_through(embedder.name)
    total = store.passages_after(last)
    while True:
        todo = store.passages_to_embed(embedder.name, last, EMBED_BATCH * 4)
        if not todo:
            return done
        last = max(pid for pid, _, _ in todo)
        texts = {h: text for _, h, text in todo if h}
        hashes = list(texts)
        vectors = embedder.embed([texts[h] for h in hashes]) if hashes else []
        store.put_vectors(embedder.name, list(zip(hashes, vectors)), through_id=last)
        done += len(hashes)
        if progress:
            progress(min(done, total), max(total, done), "embedding")

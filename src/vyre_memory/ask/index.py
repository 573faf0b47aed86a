"""Keeping the retrieval index up to date: passages for new turns, then their vectors.

Incremental: passages are built for turns after the last indexed one, and vectors only for
passage texts that have none under the current embedder (cached by text hash, so an
unchanged text is never embedded twice), in priority order: the person's and the assistant's
words first, tool output last (`EMBED_CLASSES`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..store.passages import NewPassage
from ..store.sqlite import Store
from .derived_vectors import DerivedKind, embed_derived
from .exchanges import EXCHANGES
from .passages import build
from .sentences import SENTENCES

Progress = Callable[[int, int, str], None]
EMBED_BATCH = 256
DERIVED: tuple[DerivedKind, ...] = (SENTENCES, EXCHANGES)  # embedded after the passages, in this order


def derived_backlog(store: Store, model: str) -> int:
    """How many passages wait for the vectors of their derived texts (a typed one's sentences, a conversation's
    exchange) under `model`, once per kind."""
    return sum(kind.waiting(store, model) for kind in DERIVED)


TURNS_PER_READ = 500
FLUSH_BYTES = 32 << 20  # passages are written once their text reaches this, so one huge session stays bounded


def index_passages(store: Store, user_name: str) -> int:
    """Build passages for every turn not yet indexed; returns how many were added.

    Turns are read a few hundred at a time and passages written whenever their text passes
    FLUSH_BYTES, each write moving the indexed-turn mark to the last turn it completes.
    """
    added = 0
    last = store.indexed_turn()
    while True:
        turns = store.turns_to_index(last, limit=TURNS_PER_READ)
        if not turns:
            return added
        pending: list[NewPassage] = []
        size = 0
        for turn in turns:
            for passage in build(turn, store.tool_pair, user_name):
                pending.append(passage)
                size += len(passage.text) + len(passage.search) + len(passage.embed)
            if size >= FLUSH_BYTES:
                store.add_passages(pending, turn.id)
                added, pending, size = added + len(pending), [], 0
        last = turns[-1].id
        store.add_passages(pending, last)
        added += len(pending)


def embed_passages(
    store: Store,
    embedder: Any,
    progress: Progress | None = None,
    *,
    call: Callable[..., Any] | None = None,
    batch: int = EMBED_BATCH * 4,
    stop: Callable[[], bool] | None = None,
    in_order: bool = False,
) -> int:
    """Embed passage texts that have no vector under this embedder yet, in priority order (`EMBED_CLASSES`:
    the person's and the assistant's words first, tool output last), each class reading forward from its
    own mark, then the derived texts (`DERIVED`: the sentences of the typed words, the exchanges of conversations);
    returns how many texts were embedded.

    `in_order`: in passage order instead, moving every mark together, when every class is marked alike (a
    backlog embedded while the person waits for all of it; else a run in priority order is resumed). The
    int8 MiniLM's vectors depend slightly on their batch mates (models/embed.py), and this keeps them those
    of one pass in passage order.

    A passage without a vector is still found by full-text search. Each batch's vectors and its class's
    mark are stored in one transaction, so a kill loses nothing and the next run goes on from the marks.
    `progress(done, total, "embedding")` counts passages, after every batch. `call(fn, *args)` runs each
    store access (a server passes its lock, so the model runs outside it and questions are answered between
    batches); `stop()` true ends the work after the batch in hand."""
    run = call or (lambda fn, *args, **kw: fn(*args, **kw))
    embedded = passed = 0
    marks = run(store.embedded_through, embedder.name)
    total = sum(run(store.passages_to_embed_count, embedder.name)) + run(derived_backlog, store, embedder.name)
    if progress and total:
        progress(0, total, "embedding")
    passes: list[tuple[int | None, int]] = list(enumerate(marks))
    if in_order and len(set(marks)) == 1:
        passes = [(None, marks[0])]
    for priority, last in passes:
        while not (stop and stop()):
            todo = run(store.passages_to_embed, embedder.name, priority, last, batch)
            if not todo.through:
                break
            hashes = list(todo.texts)
            vectors = embedder.embed([todo.texts[h] for h in hashes]) if hashes else []
            items = list(zip(hashes, vectors))
            run(store.put_vectors, embedder.name, items, through_id=todo.through, priority=priority)
            last, embedded, passed = todo.through, embedded + len(hashes), passed + todo.passages
            if progress:
                progress(min(passed, total), max(total, passed), "embedding")

    def derived_done(passages: int) -> None:
        nonlocal passed
        passed += passages
        if progress:
            progress(min(passed, total), max(total, passed), "embedding")

    for kind in DERIVED:
        embedded += embed_derived(kind, store, embedder, run, batch=batch, stop=stop, progress=derived_done)
    return embedded

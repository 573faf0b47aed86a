"""Vectors in priority order, on SQLite and on PostgreSQL: the person's and the assistant's words get their
vectors first and tool output last, each class up to its own mark; until a passage has its vector it is still
found by full-text search; a resumed run embeds exactly the rest (no text twice, none skipped); and a mark
from before the classes becomes each class's mark."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vyre_memory import Memory
from vyre_memory.ask.index import embed_passages
from vyre_memory.ask.sentences import SENTENCES, sentence_texts
from vyre_memory.store.passages import EMBED_CLASSES, embed_priority, embedded_key
from vyre_memory.store.sqlite import Store

DEMO = Path(__file__).resolve().parents[2] / "demo" / "projects"
LAST = len(EMBED_CLASSES) - 1  # tool calls and their output


class Recording:
    """An embedder that notes every text it is given."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return np.asarray(self.inner.embed(texts))


def by_class(store: Store) -> dict[int, list[tuple[int, str, str]]]:
    """(id, text hash, embedded text) of every passage, by priority class."""
    out: dict[int, list[tuple[int, str, str]]] = {p: [] for p in range(len(EMBED_CLASSES))}
    for pid, kind, text_hash, embed in store.conn.execute("SELECT id, kind, text_hash, embed FROM passages"):
        out[embed_priority(kind)].append((pid, text_hash, embed))
    return out


def said_apart(store: Store) -> list[str]:
    """The sentences of the typed words, each once, in passage order: embedded after every passage."""
    return list(dict.fromkeys(t for _, _, t in sentence_texts(store.typed_passages(0, store.passage_count(), 10**6))))


def embed_first_class(mem: Memory, recording: Recording) -> int:
    """Embed until the first class is complete (two passages a batch), as a run killed right after it."""
    first_done = max(pid for pid, _, _ in by_class(mem.store)[0])
    return embed_passages(
        mem.store, recording, batch=2, stop=lambda: mem.store.embedded_through(recording.name)[0] >= first_done
    )


@pytest.fixture
def memory(database: str, tmp_path: Path) -> Memory:
    mem = Memory(tmp_path / "home", database=database, embedder="hash", user_name="Sam")
    mem.ingest([DEMO], embed_now_max=0)  # passages and facts, no vectors yet
    yield mem
    mem.close()


def test_the_first_class_is_embedded_first_and_a_resumed_run_embeds_exactly_the_rest(memory: Memory) -> None:
    store, classes = memory.store, by_class(memory.store)
    assert classes[0] and classes[LAST] and store.embedded_through(memory.embedder.name) == [0, 0, 0]
    first = Recording(memory.embedder)
    embed_first_class(memory, first)
    assert set(first.texts) == {embed for _, _, embed in classes[0]} and len(first.texts) == len(set(first.texts))
    marks = store.embedded_through(first.name)
    assert marks[0] == max(pid for pid, _, _ in classes[0]) and marks[1:] == [0] * LAST
    waiting = sum(len(classes[p]) for p in range(1, len(EMBED_CLASSES)))
    assert memory.pending()["embed"] == waiting + SENTENCES.waiting(store, first.name) and said_apart(store)

    # dense search finds the person's own words already; a tool output without a vector is not in the dense
    # list, but full-text search still finds it in the hybrid one
    dense = memory.retrieve("pick up my wife dani", config="dense")
    said = next(p for p in dense if p.text.startswith("nice. have to pick up dani, my wife"))
    assert said.via == ("dense",) and "tool_output" not in {p.kind for p in dense}
    hybrid = memory.retrieve("make deploy production", config="hybrid")
    deployed = next(p for p in hybrid if "deployed shop-api v1.8.2" in p.text)
    assert "bm25" in deployed.via and "dense" not in deployed.via

    rest = Recording(memory.embedder)
    embed_passages(store, rest, batch=3)
    later = {embed for p in range(1, len(EMBED_CLASSES)) for _, _, embed in classes[p]}
    # each text once, none from the first run, then the sentences
    assert sorted(rest.texts) == sorted([*(later - set(first.texts)), *said_apart(store)])
    assert store.embedded_through(rest.name) == [max((pid for pid, _, _ in classes[p]), default=0) for p in classes]
    assert memory.pending()["embed"] == 0
    all_hashes = {h for rows in classes.values() for _, h, _ in rows}
    ids, _ = store.load_vectors(rest.name, rest.dim)
    assert sorted(ids.tolist()) == sorted(pid for rows in classes.values() for pid, _, _ in rows)
    stored = store.conn.execute("SELECT COUNT(*) FROM vectors WHERE model = ?", (rest.name,)).fetchone()[0]
    assert stored == len(all_hashes)  # one vector per text
    hybrid = memory.retrieve("make deploy production", config="hybrid")
    assert "dense" in next(p for p in hybrid if "deployed shop-api v1.8.2" in p.text).via
    assert embed_passages(store, Recording(memory.embedder)) == 0  # nothing left: nothing read again


def test_the_vector_cache_takes_each_class_as_it_comes(tmp_path: Path) -> None:
    """SQLite's in-process index: the rest's vectors have smaller ids than the first class's last one, and
    are still read (each once) when they come; a new process reads the kept file and goes on from it."""
    mem = Memory(tmp_path / "home", embedder="hash", user_name="Sam")
    mem.ingest([DEMO], embed_now_max=0)
    name, dim = mem.embedder.name, mem.embedder.dim
    embed_first_class(mem, Recording(mem.embedder))
    cache = mem.retriever.vectors.get(mem.store, name, dim, mem.store.vectors_version())
    assert cache.index is not None
    first = {pid for pid, _, _ in by_class(mem.store)[0]}
    assert set(cache.index.ids().tolist()) == first
    embed_passages(mem.store, mem.embedder, batch=3)
    cache.get(mem.store, name, dim, mem.store.vectors_version())
    every = {pid for rows in by_class(mem.store).values() for pid, _, _ in rows}
    assert set(cache.index.ids().tolist()) == every and len(cache.index) == len(every) > max(first) - 1
    mem.close()


def test_a_mark_from_before_the_classes_becomes_each_class_mark(database: str, tmp_path: Path) -> None:
    """A memory embedded in passage order up to passage 11: after the migration every class is marked there,
    and only the passages after it are embedded."""
    mem = Memory(tmp_path / "home", database=database, embedder="hash", user_name="Sam")
    mem.ingest([DEMO], embed_now_max=0)
    name = mem.embedder.name
    upto = [(h, t) for pid, h, t in sorted(r for rows in by_class(mem.store).values() for r in rows) if pid <= 11]
    mem.store.put_vectors(name, list(zip([h for h, _ in upto], mem.embedder.embed([t for _, t in upto]))))
    mem.close()
    keys = [embedded_key(name, p) for p in range(len(EMBED_CLASSES))]
    if database.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES (%s, '11')", (f"embedded:{name}",))
            conn.execute("UPDATE vyre_schema SET version = 2")  # before migration 3, the marks' split
    else:
        with sqlite3.connect(database) as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES (?, '11')", (f"embedded:{name}",))
            conn.execute("PRAGMA user_version = 7")
    mem = Memory(tmp_path / "home", database=database, embedder="hash", user_name="Sam")
    try:
        assert mem.store.embedded_through(name) == [11, 11, 11]
        assert mem.store.get_meta(f"embedded:{name}") is None and all(mem.store.get_meta(k) == "11" for k in keys)
        rest = Recording(mem.embedder)
        embed_passages(mem.store, rest)
        after = {t for rows in by_class(mem.store).values() for pid, _, t in rows if pid > 11}
        assert sorted(rest.texts) == sorted([*(after - {t for _, t in upto}), *said_apart(mem.store)])
    finally:
        mem.close()


def test_progress_is_told_at_the_start_and_after_every_batch(memory: Memory) -> None:
    told: list[tuple[int, int]] = []
    passages = memory.pending()["embed"]
    embed_passages(memory.store, memory.embedder, lambda done, total, _: told.append((done, total)), batch=2)
    done = [d for d, _ in told]
    assert told[0] == (0, passages) and told[-1] == (passages, passages) and {t for _, t in told} == {passages}
    assert done == sorted(set(done)) and len(told) >= passages // 2  # moving all the way, never only at 100%


def test_a_backlog_embedded_while_the_person_waits_goes_in_passage_order(memory: Memory) -> None:
    """`Memory.index` (the person waits for all of it) embeds in passage order, every mark together; after a
    run in priority order was cut short, it resumes that run instead, with exactly the rest."""
    every = [embed for _, _, embed in sorted(r for rows in by_class(memory.store).values() for r in rows)]
    recording = Recording(memory.embedder)
    embed_passages(memory.store, recording, batch=4, in_order=True)
    # in passage order, each text once, then the sentences
    assert recording.texts == list(dict.fromkeys(every)) + said_apart(memory.store)
    last = [max((pid for pid, _, _ in rows), default=0) for rows in by_class(memory.store).values()]
    assert memory.store.embedded_through(recording.name) == [max(last)] * len(EMBED_CLASSES)


def test_a_cut_short_priority_run_is_resumed_in_priority_order(database: str, tmp_path: Path) -> None:
    mem = Memory(tmp_path / "home", database=database, embedder="hash", user_name="Sam")
    mem.ingest([DEMO], embed_now_max=0)
    try:
        first = Recording(mem.embedder)
        embed_first_class(mem, first)
        rest = Recording(mem.embedder)
        embed_passages(mem.store, rest, in_order=True)  # as Memory.index would, after a kill
        later = {embed for p in range(1, len(EMBED_CLASSES)) for _, _, embed in by_class(mem.store)[p]}
        expected = sorted([*(later - set(first.texts)), *said_apart(mem.store)])
        assert sorted(rest.texts) == expected and mem.pending()["embed"] == 0
    finally:
        mem.close()

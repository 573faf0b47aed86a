"""A large vector index is kept in a file beside the database, so a new process does not rebuild it; the
file is only ever read against the database and embedder it came from."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask import retrieve, vector_files
from vyre_memory.ask.vector_files import index_file
from vyre_memory.store.passages import embedded_key
from vyre_memory.store.vectors import VectorIndex

NOW = datetime(2026, 10, 9, 16, 0, tzinfo=UTC)


def _write(root: Path, name: str, lines: list[str]) -> None:
    w = TranscriptWriter(root / f"-home-sam-code-{name}" / f"{name}.jsonl", f"/home/sam/code/{name}")
    for line in lines:
        w.user(line)


@pytest.fixture
def small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_files, "SAVE_FROM_ROWS", 2)  # "large" for a test history


def _index_files(home: Path) -> list[Path]:
    return sorted(home.glob("vectors-*.idx"))


def test_ingest_writes_the_file_and_a_new_process_reads_it(tmp_path: Path, small_files: None) -> None:
    root, home = tmp_path / "projects", tmp_path / "home"
    _write(root, "shop", ["the refund job retries three times", "stripe webhooks are verified in hooks.py"])
    with Memory(home) as mem:
        mem.ingest([root])
        before = [p.id for p in mem.retrieve("webhook verification", now=NOW, config="dense")]
    files = _index_files(home)
    assert len(files) == 1
    with Memory(home) as mem:
        loads: list[int] = []
        real = mem.store.load_vectors

        def spy(model: str, dim: int, **kw: Any):  # type: ignore[no-untyped-def]
            ids, matrix = real(model, dim, **kw)
            loads.append(len(ids))
            return ids, matrix

        mem.store.load_vectors = spy  # type: ignore[method-assign]
        assert [p.id for p in mem.retrieve("webhook verification", now=NOW, config="dense")] == before
        # the file holds every class up to its mark: no row comes from the database again
        assert sum(loads) == 0 and len(mem.retriever.vectors.index or []) == 2, loads


def test_new_vectors_after_the_file_are_read_from_the_database(
    tmp_path: Path, small_files: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, home = tmp_path / "projects", tmp_path / "home"
    _write(root, "shop", ["the refund job retries three times", "deploys go out on fridays"])
    with Memory(home) as mem:
        mem.ingest([root])
    monkeypatch.setattr(vector_files, "SAVE_FROM_ROWS", 10**9)  # the file now stays as it is
    _write(root, "infra", ["the kubernetes ingress timeout is ninety seconds"])
    with Memory(home) as mem:
        mem.ingest([root])
        mem.retriever.vectors.index = None  # as a new process: the file, then the database
        hits = mem.retrieve("kubernetes ingress timeout", now=NOW, config="dense", k=3)
        assert any("ingress" in p.text for p in hits)
        assert len(mem.retriever.vectors.index or []) == mem.store.passage_count()


def test_a_file_from_another_database_or_ahead_of_it_is_ignored(tmp_path: Path, small_files: None) -> None:
    root, home = tmp_path / "projects", tmp_path / "home"
    _write(root, "shop", ["the refund job retries three times", "deploys go out on fridays", "ci runs on push"])
    with Memory(home) as mem:
        mem.ingest([root])
        model = mem.embedder.name  # type: ignore[union-attr]
        path = index_file(home, mem.store, model)
        assert path is not None and path.exists()
        with mem.store.transaction() as c:  # another database now lives here
            c.execute("UPDATE meta SET value = 'another' WHERE key = 'store_id'")
        fresh = retrieve.VectorCache(home)
        assert index_file(home, mem.store, model) != path
        cache = fresh.get(mem.store, model, mem.embedder.dim, mem.store.vectors_version())  # type: ignore[union-attr]
        assert cache.index is not None and len(cache.index) == mem.store.passage_count()
        with mem.store.transaction() as c:
            c.execute("DELETE FROM passages WHERE id = (SELECT MAX(id) FROM passages)")
        moved = retrieve.VectorCache(home)
        index, _ = moved._load(mem.store, model, mem.embedder.dim)  # type: ignore[union-attr]
        assert len(index) == 0, "a file holding ids the database does not have is not trusted"


def test_a_passage_past_the_embedding_mark_waits_for_it(tmp_path: Path) -> None:
    """Another process is mid-way through embedding: a later passage repeating an embedded text already has a
    vector, the ones before it do not. The index reads up to the mark, so none of them is skipped for good."""
    root = tmp_path / "projects"
    lines = [f"note {i}: the {w} job runs nightly" for i, w in enumerate("abcdefghij")]
    _write(root, "shop", lines)
    with Memory(tmp_path / "home") as mem:
        mem.ingest([root])
        model = mem.embedder.name  # type: ignore[union-attr]
        dim = mem.embedder.dim  # type: ignore[union-attr]
        first = mem.store.passage_count()
        _write(root, "infra", [f"infra {i}: rotate the {w} keys" for i, w in enumerate("klmno")] + [lines[2]])
        mem.ingest([root])
        later = [r[0] for r in mem.store.conn.execute("SELECT text_hash FROM passages WHERE id > ?", (first,))]
        with mem.store.transaction() as c:  # as the other process left it: only the repeated text has a vector
            c.executemany("DELETE FROM vectors WHERE text_hash = ? AND model = ?", [(h, model) for h in later[:-1]])
            c.execute("UPDATE meta SET value = ? WHERE key = ?", (str(first), embedded_key(model, 0)))  # typed lines
        cache = retrieve.VectorCache()
        assert len(cache.get(mem.store, model, dim, mem.store.vectors_version()).index or []) == first
        with mem.store.transaction() as c:
            c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vectors_version'")
        mem.index()  # the embedding finishes
        done = cache.get(mem.store, model, dim, mem.store.vectors_version())
        assert len(done.index or []) == mem.store.passage_count()


def test_a_file_from_before_a_restore_is_not_read(tmp_path: Path, small_files: None) -> None:
    root, home = tmp_path / "projects", tmp_path / "home"
    _write(root, "shop", [f"giraffe zebra {i}" for i in range(10)])
    with Memory(home) as mem:
        mem.ingest([root])
        model, dim = mem.embedder.name, mem.embedder.dim  # type: ignore[union-attr]
        assert index_file(home, mem.store, model).exists()  # type: ignore[union-attr]
        half = mem.store.passage_count() // 2
        with mem.store.transaction() as c:  # a backup from before the second half, then other passages
            c.execute("DELETE FROM passages WHERE id > ?", (half,))
            c.execute(
                "INSERT INTO passages (turn, session, seq, piece, uuids, kind, ts, text, search, embed, text_hash) "
                "SELECT turn, session, seq, piece + 1000, uuids, kind, ts, 'kitchen soup', 'kitchen soup', "
                "'kitchen soup', 'soup-' || id FROM passages WHERE id <= ?",
                (half,),
            )
        assert mem.store.passage_count() >= half * 2
        index, _ = retrieve.VectorCache(home)._load(mem.store, model, dim)
        assert len(index) == 0, "the saved vectors belong to texts the database no longer holds"


def test_a_file_from_before_the_priority_classes_is_read_as_holding_every_class_up_to_its_last_row(
    tmp_path: Path, small_files: None
) -> None:
    """Vectors were once built in passage order: such a file holds every vector up to its largest id, so each
    class is read on from there."""
    root, home = tmp_path / "projects", tmp_path / "home"
    _write(root, "shop", ["the refund job retries three times", "deploys go out on fridays", "ci runs on push"])
    with Memory(home) as mem:
        mem.ingest([root])
        model, dim = mem.embedder.name, mem.embedder.dim  # type: ignore[union-attr]
        path = index_file(home, mem.store, model)
        assert path is not None
        kept = VectorIndex.load(path)
        kept.save(path, note=vector_files.fingerprint(mem.store, kept.max_id))  # the note as it was written then
        index, read_through = retrieve.VectorCache(home)._load(mem.store, model, dim)
        assert len(index) == len(kept) > 0 and read_through == [kept.max_id] * 3

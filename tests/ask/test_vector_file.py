"""A large vector index is kept in a file beside the database, so a new process does not rebuild it; the
file is only ever read against the database and embedder it came from."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask import retrieve

NOW = datetime(2026, 10, 9, 16, 0, tzinfo=UTC)


def _write(root: Path, name: str, lines: list[str]) -> None:
    w = TranscriptWriter(root / f"-home-sam-code-{name}" / f"{name}.jsonl", f"/home/sam/code/{name}")
    for line in lines:
        w.user(line)


@pytest.fixture
def small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retrieve, "SAVE_FROM_ROWS", 2)  # "large" for a test history


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

        def spy(model: str, dim: int, after_id: int = 0, limit: int = -1):  # type: ignore[no-untyped-def]
            loads.append(after_id)
            return real(model, dim, after_id=after_id, limit=limit)

        mem.store.load_vectors = spy  # type: ignore[method-assign]
        assert [p.id for p in mem.retrieve("webhook verification", now=NOW, config="dense")] == before
        assert loads and min(loads) > 0, "the new process read the file, then only rows after it"


def test_new_vectors_after_the_file_are_read_from_the_database(
    tmp_path: Path, small_files: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, home = tmp_path / "projects", tmp_path / "home"
    _write(root, "shop", ["the refund job retries three times", "deploys go out on fridays"])
    with Memory(home) as mem:
        mem.ingest([root])
    monkeypatch.setattr(retrieve, "SAVE_FROM_ROWS", 10**9)  # the file now stays as it is
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
        path = mem.retriever.vectors._file(mem.store, model)
        assert path is not None and path.exists()
        with mem.store.transaction() as c:  # another database now lives here
            c.execute("UPDATE meta SET value = 'another' WHERE key = 'store_id'")
        fresh = retrieve.VectorCache(home)
        assert fresh._file(mem.store, model) != path
        cache = fresh.get(mem.store, model, mem.embedder.dim, mem.store.vectors_version())  # type: ignore[union-attr]
        assert cache.index is not None and len(cache.index) == mem.store.passage_count()
        with mem.store.transaction() as c:
            c.execute("DELETE FROM passages WHERE id = (SELECT MAX(id) FROM passages)")
        moved = retrieve.VectorCache(home)
        index = moved._load(mem.store, model, mem.embedder.dim)  # type: ignore[union-attr]
        assert len(index) == 0, "a file holding ids the database does not have is not trusted"

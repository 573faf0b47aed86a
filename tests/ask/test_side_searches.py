"""The full-text lists run on a second connection, in a thread of their own, while the asking thread ranks
vectors: the same passages come back as when one connection runs everything, and a second connection that
cannot be opened leaves the asking thread's to serve."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import WORLDS, need

from vyre_memory import Memory
from vyre_memory.ask import retrieve
from vyre_memory.ask.retrieve import SideSearches
from vyre_memory.errors import StoreError

QUESTIONS = [
    "what did we decide about the login flow?",
    "which file had the refund bug last week?",
    "who is my wife?",
    "what is my daughter's school?",
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VYRE_EMBEDDER", "hash")
        mem = Memory(tmp_path_factory.mktemp("side"), user_name="Joel")
        mem.ingest([projects])
        yield mem
        mem.close()


def _ranked(mem: Memory) -> list[list[tuple[str, ...]]]:
    return [[p.uuids for p in mem.retrieve(q, k=20)] for q in QUESTIONS]


def _threads_of_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """(thread name, id of the store's connection) of each full-text search run from now on."""
    runs: list[tuple[str, int]] = []
    run = retrieve.TextSearch.run

    def recorded(search: retrieve.TextSearch, store: retrieve.Store) -> list[tuple[int, float]]:
        runs.append((threading.current_thread().name, id(store.conn)))
        return run(search, store)

    monkeypatch.setattr(retrieve.TextSearch, "run", recorded)
    return runs


def test_full_text_runs_beside_the_vectors_and_ranks_as_one_connection_does(
    world: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _threads_of_runs(monkeypatch)
    beside = _ranked(world)
    own = id(world.store.conn)
    side = [conn for name, conn in runs if name.startswith("vyre-search")]
    assert side and all(conn != own for conn in side)  # a second connection, in the search thread
    world.retriever.side.close()
    world.retriever.side = SideSearches(None)  # everything on the asking thread's connection
    runs.clear()
    assert _ranked(world) == beside
    assert runs and all(name == threading.current_thread().name and conn == own for name, conn in runs)


def test_a_second_connection_that_cannot_be_opened_leaves_the_first_to_serve(
    world: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _ranked(world)

    def refused() -> retrieve.Store:
        raise StoreError("no second connection here")

    world.retriever.side.close()
    world.retriever.side = SideSearches(refused)
    runs = _threads_of_runs(monkeypatch)
    assert _ranked(world) == expected
    assert runs and set(runs) == {(threading.current_thread().name, id(world.store.conn))}


def test_with_no_vectors_to_rank_the_full_text_runs_on_the_asking_thread(
    world: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _threads_of_runs(monkeypatch)
    assert world.retrieve(QUESTIONS[0], config="bm25")
    assert runs and {name for name, _ in runs} == {threading.current_thread().name}


def test_the_second_connection_is_to_the_same_store_after_a_change_of_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    projects = need(WORLDS / "open2" / "home" / ".claude" / "projects")
    monkeypatch.setenv("VYRE_EMBEDDER", "hash")
    monkeypatch.chdir(tmp_path)
    with Memory("home", user_name="Sam") as mem:  # a relative home
        mem.ingest([projects])
        (tmp_path / "elsewhere").mkdir()
        monkeypatch.chdir(tmp_path / "elsewhere")
        runs = _threads_of_runs(monkeypatch)
        beside = _ranked(mem)
        assert any(name.startswith("vyre-search") for name, _ in runs)
        mem.retriever.side.close()
        mem.retriever.side = SideSearches(None)
        assert _ranked(mem) == beside
    assert not (tmp_path / "elsewhere" / "home").exists()


def test_closing_the_memory_stops_the_search_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    projects = need(WORLDS / "open2" / "home" / ".claude" / "projects")
    monkeypatch.setenv("VYRE_EMBEDDER", "hash")

    def searching() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if t.name.startswith("vyre-search")}

    before = searching()  # other memories' (this module's fixture)
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        mem.ingest([projects])
        assert mem.retrieve("what did we deploy last week?")
        assert searching() - before
    assert not searching() - before

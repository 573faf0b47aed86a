"""The in-memory passage directory filters by scope and time exactly as the rows say, and keeps up as
passages are added and sessions change."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.conftest import WORLDS, need
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask.directory import PassageDirectory
from vyre_memory.contract import Scope
from vyre_memory.ingest.labels import is_within

WINDOWS = [(None, None), ("2026-01-01", None), (None, "2026-06-01T00:00:00.000Z"), ("2026-03-01", "2026-04-01")]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VYRE_EMBEDDER", "hash")
        mem = Memory(tmp_path_factory.mktemp("directory"), user_name="Joel")
        mem.ingest([projects])
    yield mem
    mem.close()


def _expected(mem: Memory, folders: list[str] | None, since: str | None, until: str | None) -> list[int]:
    """The brute-force answer, from every passage row and its session."""
    rows = mem.store.conn.execute(
        "SELECT p.id, p.ts, s.cwd, s.kind FROM passages p JOIN sessions s ON s.id = p.session ORDER BY p.id"
    ).fetchall()
    out = []
    for pid, ts, cwd, kind in rows:
        if kind == "memory" or (folders is not None and not any(cwd and is_within(cwd, f) for f in folders)):
            continue
        if ts is None:
            if since:  # no time: outside every window, inside a bound that is only "now"
                continue
        elif (since and ts < since) or (until and ts >= until):
            continue
        out.append(pid)
    return out


def test_ids_in_matches_the_rows_for_every_scope_and_window(world: Memory) -> None:
    cwds = sorted({s.cwd for s in world.sessions() if s.cwd})
    assert len(cwds) >= 2
    directory = PassageDirectory().refresh(world.store)
    for folders in [None, [cwds[0]], cwds[:2], ["/nowhere"]]:
        for since, until in WINDOWS:
            scope = Scope(project_cwds=tuple(folders) if folders else None)
            got = directory.ids_in(world.store, scope, since=since, until=until).tolist()
            assert got == _expected(world, folders, since, until), (folders, since, until)


def test_a_scope_asked_again_gets_the_same_ids_and_cannot_change_them(world: Memory) -> None:
    cwd = sorted({s.cwd for s in world.sessions() if s.cwd})[0]
    directory = PassageDirectory().refresh(world.store)
    scope = Scope(project_cwds=(cwd,))
    first = directory.ids_in(world.store, scope)
    again = directory.ids_in(world.store, scope)
    assert again.tolist() == first.tolist() == _expected(world, [cwd], None, None)
    with pytest.raises(ValueError):
        again[0] = -1  # a caller that wrote into the kept ids would change every later search


def test_keep_filters_given_ids_in_their_order(world: Memory) -> None:
    cwd = sorted({s.cwd for s in world.sessions() if s.cwd})[0]
    directory = PassageDirectory().refresh(world.store)
    allowed = set(_expected(world, [cwd], None, "2026-06-01"))
    every = [*reversed(directory.ids.tolist()), 10**9]  # an unknown id is dropped
    kept = directory.keep(world.store, Scope(project_cwds=(cwd,)), every, until="2026-06-01")
    assert kept == [i for i in every if i in allowed]
    assert directory.keep(world.store, Scope(), []) == []


def test_a_new_passage_and_a_moved_session_are_seen_after_refresh(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    a = TranscriptWriter(root / "-home-sam-code-a" / "a.jsonl", "/home/sam/code/a")
    a.user("the refund job runs nightly")
    mem = Memory(tmp_path / "home", user_name="Sam")
    mem.ingest([root])
    directory = PassageDirectory().refresh(mem.store)
    first = directory.ids.tolist()
    autumn = ("2026-09-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z")
    assert directory.ids_in(mem.store, Scope(), since=autumn[0], until=autumn[1]).tolist() == first
    b = TranscriptWriter(root / "-home-sam-code-b" / "b.jsonl", "/home/sam/code/b")
    b.user("the invoice job runs hourly")
    mem.ingest([root])
    in_b = directory.refresh(mem.store).ids_in(mem.store, Scope(project_cwds=("/home/sam/code/b",))).tolist()
    assert in_b and not set(in_b) & set(first) and directory.ids.tolist() == first + in_b
    # a window asked again after new passages came sees them (its kept mask was of fewer passages)
    assert directory.ids_in(mem.store, Scope(), since=autumn[0], until=autumn[1]).tolist() == first + in_b
    # a batch that only relabels a session (no new turn) as memory's own thread: it is read no more
    from vyre_memory.contract import Cursor, ParseBatch, ParsedSession
    from vyre_memory.store.sqlite import SourceBatch

    moved = ParsedSession(id=b.session_id, source_file=str(b.path), format="claude-code", cwd="/home/sam/code/b")
    batch = ParseBatch(sessions=[moved], problems=[], end=Cursor(b.path.stat().st_size, 1, b.session_id))
    version = mem.store.corpus_version()
    mem.store.write_batches(
        [SourceBatch(str(b.path), "claude-code", batch, {b.session_id: "memory"}, 0, 0.0, None, "now")]
    )
    assert mem.store.corpus_version() > version
    assert directory.refresh(mem.store).ids_in(mem.store, Scope()).tolist() == first
    mem.close()


def test_a_first_load_from_the_indexes_reads_the_same_places(world: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    from vyre_memory.ask import directory as module

    by_table = PassageDirectory().refresh(world.store)
    monkeypatch.setattr(module, "FROM_INDEXES", 0)
    by_indexes = PassageDirectory().refresh(world.store)
    assert by_indexes.ids.tolist() == by_table.ids.tolist()
    for since, until in WINDOWS:
        for scope in (Scope(), Scope(project_cwds=(sorted({s.cwd for s in world.sessions() if s.cwd})[0],))):
            a = by_table.ids_in(world.store, scope, since=since, until=until).tolist()
            assert by_indexes.ids_in(world.store, scope, since=since, until=until).tolist() == a


def test_a_passage_with_no_time_is_outside_windows_but_inside_now(world: Memory) -> None:
    with world.store.transaction() as c:
        pid, ts = c.execute("SELECT id, ts FROM passages ORDER BY id LIMIT 1").fetchone()
        c.execute("UPDATE passages SET ts = NULL WHERE id = ?", (pid,))
    try:
        directory = PassageDirectory().refresh(world.store)
        assert pid in directory.ids_in(world.store, Scope(), until="2030-01-01").tolist()
        assert pid not in directory.ids_in(world.store, Scope(), since="2000-01-01", until="2030-01-01").tolist()
        assert directory.keep(world.store, Scope(), [pid], until="2030-01-01") == [pid]
    finally:
        with world.store.transaction() as c:
            c.execute("UPDATE passages SET ts = ? WHERE id = ?", (ts, pid))


def test_a_capped_full_text_search_in_an_old_project_still_finds_its_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a large index a common word's matches are ranked only over the latest ids; for a project scope the
    latest within that project's own ids, so an old project is not left with nothing."""
    from vyre_memory.ask import retrieve

    root = tmp_path / "projects"
    old = TranscriptWriter(root / "-home-sam-code-old" / "o.jsonl", "/home/sam/code/old")
    for i in range(20):
        old.user(f"deploy step {i} of the old billing service")
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        mem.ingest([root])
        new = TranscriptWriter(root / "-home-sam-code-new" / "n.jsonl", "/home/sam/code/new")
        for i in range(40):
            new.user(f"deploy step {i} of the new search service")
        mem.ingest([root])
        monkeypatch.setattr(retrieve, "POSTINGS_BUDGET", 5)
        monkeypatch.setattr(retrieve, "LARGE_INDEX", 10)
        hits = mem.retrieve("deploy", project_cwds=["/home/sam/code/old"], config="bm25", k=5)
        assert hits and all(p.cwd == "/home/sam/code/old" for p in hits)
        everyone = mem.retrieve("deploy", config="bm25", k=5)
        assert everyone and all(p.cwd == "/home/sam/code/new" for p in everyone)  # the latest, across projects


def _note(text: str) -> str:
    found = re.search(r"note (\d+)", text)
    assert found, text
    return found.group(1)


def test_words_too_common_to_count_give_their_latest_matches_unranked_and_in_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FTS5's ranking counts a word's matches in the whole index: past COUNTED_BUDGET only the words it can
    count are ranked, and when none can be, the latest matches come first (still only the scope's)."""
    from vyre_memory.ask import retrieve

    root = tmp_path / "projects"
    a = TranscriptWriter(root / "-home-sam-code-a" / "a.jsonl", "/home/sam/code/a")
    b = TranscriptWriter(root / "-home-sam-code-b" / "b.jsonl", "/home/sam/code/b")
    for i in range(12):
        # the early turns say the word most often: a ranked search puts them first
        a.user(" ".join(["deploy"] * (12 - i)) + f" note {i} of the ledger sync")
        b.user(f"deploy note {i} elsewhere")
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        mem.ingest([root])
        ranked = mem.retrieve("deploy", project_cwds=["/home/sam/code/a"], config="bm25", k=4)
        assert [_note(p.text) for p in ranked] == ["0", "1", "2", "3"]
        monkeypatch.setattr(retrieve, "COUNTED_BUDGET", 20)  # "deploy" is in 24 passages, "ledger" in 12
        both = mem.retrieve("deploy ledger", project_cwds=["/home/sam/code/a"], config="bm25", k=12)
        # ranked by "ledger" alone, said once in each: the shortest passages first, not the most "deploy"s
        assert [_note(p.text) for p in both] == [str(i) for i in range(11, -1, -1)]
        monkeypatch.setattr(retrieve, "COUNTED_BUDGET", 10)
        latest = mem.retrieve("deploy", project_cwds=["/home/sam/code/a"], config="bm25", k=4)
        assert [_note(p.text) for p in latest] == ["11", "10", "9", "8"]
        assert all(p.cwd == "/home/sam/code/a" for p in latest)


def test_a_word_read_as_a_phrase_costs_the_matches_of_each_of_its_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FTS5 reads "ledger-sync" as the phrase "ledger sync": to rank it over the whole index it counts the
    matches of both words, however rare the phrase, so a phrase of common words is not ranked when they
    are too common to count."""
    from vyre_memory.ask import retrieve

    root = tmp_path / "projects"
    a = TranscriptWriter(root / "-home-sam-code-a" / "a.jsonl", "/home/sam/code/a")
    for i in range(12):
        a.user(" ".join(["ledger-sync"] * (12 - i)) + f" note {i}")
    for i in range(30):
        a.user(f"the ledger and the sync job, apart, in step {i}")
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        mem.ingest([root])
        ranked = mem.retrieve("ledger-sync", config="bm25", k=4)
        assert [_note(p.text) for p in ranked] == ["0", "1", "2", "3"]
        monkeypatch.setattr(retrieve, "COUNTED_BUDGET", 30)  # the phrase is in 12 passages, each word in 42
        latest = mem.retrieve("ledger-sync", config="bm25", k=4)
        assert [_note(p.text) for p in latest] == ["11", "10", "9", "8"]

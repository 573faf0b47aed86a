"""Deriving personal facts: only trusted sources, stable ids, deletions that stick, history where values change."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import WORLDS, need, typed_line

from vyre_memory import Memory
from vyre_memory.errors import NotFoundError
from vyre_memory.read.derive import DECISIONS, READERS_KEY, READERS_VERSION, RELEASES, fact_id, moments_of


@pytest.fixture(scope="module", params=["open", "open2"])
def world_home(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    projects = need(WORLDS / request.param / "home" / ".claude" / "projects")
    home = tmp_path_factory.mktemp(f"home-{request.param}")
    with Memory(home, embedder="none", user_name="me") as mem:
        mem.ingest([projects])
    return home


def test_every_fact_source_is_a_typed_turn_in_an_interactive_session(world_home: Path) -> None:
    with Memory(world_home, embedder="none") as mem:
        facts = mem.facts()
        assert len(facts) >= 15
        for f in facts:
            assert f.sources, f
            for s in f.sources:
                turns = mem.store.turns(s.session, start=s.seq, end=s.seq + 1)
                assert len(turns) == 1
                turn = turns[0]
                assert turn.id == s.turn
                assert turn.kind == "typed", (f, turn.kind)
                assert turn.session_kind == "interactive", (f, turn.session_kind)
                assert s.uuid in turn.uuids
                assert 0.0 < f.confidence < 1.0


def test_ids_are_the_fact_and_stable_across_a_re_derive(world_home: Path) -> None:
    with Memory(world_home, embedder="none") as mem:
        before = {f.id: f for f in mem.facts()}
        version = mem.store.facts_version()
        report = mem.derive()
        after = {f.id: f for f in mem.facts()}
        assert before == after
        assert not report.changed and mem.store.facts_version() == version
        for f in after.values():
            assert f.id == fact_id(f.subject, f.relation, f.object)


_claude_line = typed_line


def _write_session(folder: Path, session: str, lines: list[tuple[str, str, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    path.write_text("".join(_claude_line(session, u, t, ts) + "\n" for u, t, ts in lines), encoding="utf-8")
    return path


def test_delete_sticks_across_re_derive_until_a_new_turn_says_it_again(tmp_path: Path) -> None:
    projects = tmp_path / "projects" / "-home-me-code-x"
    _write_session(
        projects,
        "00000000-0000-4000-8000-000000000001",
        [("u-1", "quick one before standup: my wife ines says hi, anyway the build is red", "2026-05-01T10:00:00Z")],
    )
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([tmp_path / "projects"])
        wife = mem.facts(relation="wife")
        assert [f.object for f in wife] == ["Ines"]
        mem.delete_fact(wife[0].id)
        assert mem.facts(relation="wife") == []
        with pytest.raises(NotFoundError, match="vyre facts list"):
            mem.fact(wife[0].id)
        mem.derive()
        assert mem.facts(relation="wife") == []
        mem.ingest([tmp_path / "projects"])  # a re-ingest of the same turns brings nothing back
        assert mem.facts(relation="wife") == []
        assert mem.answer("what's my wife's name").abstained
        _write_session(
            projects,
            "00000000-0000-4000-8000-000000000002",
            [("u-2", "my wife ines is on nights this week so i'm on school runs", "2026-06-01T10:00:00Z")],
        )
        mem.ingest([tmp_path / "projects"])
        again = mem.facts(relation="wife")
        assert [f.object for f in again] == ["Ines"]
        assert again[0].id == wife[0].id
        assert [s.uuid for s in again[0].sources] == ["u-2"]


def test_changing_value_keeps_history_and_the_newest_wins(tmp_path: Path) -> None:
    projects = tmp_path / "projects" / "-home-me-code-x"
    _write_session(
        projects,
        "00000000-0000-4000-8000-000000000003",
        [
            ("u-1", "we live in Leeds, the commute is fine", "2026-01-10T10:00:00Z"),
            ("u-2", "we just moved to York, boxes everywhere in the new house", "2026-04-10T10:00:00Z"),
            ("u-3", "i now live in York and the wifi is awful", "2026-04-20T10:00:00Z"),
        ],
    )
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([tmp_path / "projects"])
        places = {(f.relation, f.object): f for f in mem.facts(subject="user")}
        assert places[("lives_in", "Leeds")].status == "past"
        assert places[("lives_in", "York")].status == "current"
        now = mem.answer("where do i live", now="2026-10-01T00:00:00Z")
        assert now.answer and "York" in now.answer and "Leeds" not in now.answer
        assert now.via == "fact" and now.confidence >= 0.5
        assert {s.uuid for s in now.sources} <= {"u-2", "u-3"}
        then = mem.answer("where do i live", now="2026-02-01T00:00:00Z")
        assert then.answer and "Leeds" in then.answer


def test_repeated_mentions_raise_confidence(tmp_path: Path) -> None:
    projects = tmp_path / "projects" / "-home-me-code-x"
    _write_session(
        projects,
        "00000000-0000-4000-8000-000000000004",
        [
            ("u-1", "my sister anna is visiting", "2026-01-10T10:00:00Z"),
            ("u-2", "taking my sister anna to the airport later", "2026-01-11T10:00:00Z"),
        ],
    )
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([tmp_path / "projects"])
        (sister,) = mem.facts(relation="sister")
        assert len(sister.sources) == 2
        assert sister.confidence > max(s.confidence for s in sister.sources)
        assert sister.first_ts and sister.last_ts and sister.first_ts < sister.last_ts


@pytest.mark.parametrize("world", ["open", "open2"])
def test_incremental_derive_equals_a_full_derive(tmp_path: Path, world: str) -> None:
    """Sessions grow over three ingests (each derives incrementally); the facts equal a full derive's."""
    source = need(WORLDS / world / "home" / ".claude" / "projects")
    files = sorted(source.rglob("*.jsonl"))
    projects = tmp_path / "projects"
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        for step in (1, 2, 3):
            for f in files[: len(files) * step // 3 + 1]:
                lines = f.read_text(encoding="utf-8").splitlines(keepends=True)
                target = projects / f.parent.name / f.name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text("".join(lines[: len(lines) * step // 3]), encoding="utf-8")
            mem.ingest([projects])
            if step == 2:
                assert mem.store.derived_turn() > 0
        incremental = [f.to_dict() for f in mem.facts()]
        report = mem.derive()
        full = [f.to_dict() for f in mem.facts()]
    assert incremental == full
    assert not report.changed
    assert len(full) >= 15


def test_incremental_derive_keeps_the_previous_turns_paste_announcement(tmp_path: Path) -> None:
    """A paste announced at the end of one ingest and pasted in the next is still refused."""
    session = "00000000-0000-4000-8000-000000000005"
    projects = tmp_path / "projects" / "-home-me-code-x"
    path = _write_session(projects, session, [("u-1", "ok pasting his email:", "2026-01-10T10:00:00Z")])
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([tmp_path / "projects"])
        pasted = "my wife carol and i are hosting the street party this year\nbring chairs, see you then"
        with path.open("a", encoding="utf-8") as f:
            f.write(_claude_line(session, "u-2", pasted, "2026-01-10T10:01:00Z") + "\n")
        mem.ingest([tmp_path / "projects"])
        assert mem.facts(relation="wife") == []
        mem.derive()
        assert mem.facts(relation="wife") == []


def test_a_store_derived_by_older_readers_is_derived_whole_once(tmp_path: Path) -> None:
    """After an upgrade to newer readers, the next ingest reads every turn again, not only new ones; the same readers,
    or older ones than the store's, with nothing new read nothing."""
    projects = tmp_path / "projects" / "-home-me-code-x"
    _write_session(
        projects,
        "00000000-0000-4000-8000-000000000006",
        [
            ("u-1", "my wife ines says hi. we decided to go with postgres for the queue", "2026-05-01T10:00:00Z"),
            ("u-2", "ok ship it, deploy v2.3.0 to production", "2026-05-02T10:00:00Z"),
        ],
    )
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([tmp_path / "projects"])
        assert mem.facts(relation="wife") and moments_of(mem.store, DECISIONS) and moments_of(mem.store, RELEASES)
        assert not mem.pending()["derive"]
        # what older readers left: no wife, no decision (as if they could not read them)
        mem.store.replace_facts([], mem.store.derived_turn())
        mem.store.set_meta(DECISIONS.key, "[]")
        mem.ingest([tmp_path / "projects"])  # the same readers, nothing new: nothing is read again
        assert mem.facts(relation="wife") == [] and moments_of(mem.store, DECISIONS) == []
        mem.store.set_meta(READERS_KEY, str(READERS_VERSION + 1))  # a newer release's readers derived it: not again
        mem.ingest([tmp_path / "projects"])
        assert mem.facts(relation="wife") == [] and not mem.pending()["derive"]
        mem.store.set_meta(READERS_KEY, str(READERS_VERSION - 1))  # an older release's
        assert mem.pending()["derive"]
        mem.ingest([tmp_path / "projects"])
        assert mem.facts(relation="wife") and moments_of(mem.store, DECISIONS)
        assert mem.store.get_meta(READERS_KEY) == str(READERS_VERSION) and not mem.pending()["derive"]

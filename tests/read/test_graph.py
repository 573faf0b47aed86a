"""The graph: derived from trusted facts and turns; the person's edits survive every re-ingest and re-derive."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.conftest import WORLDS, need, typed_line

from vyre_memory import Memory
from vyre_memory.errors import NotFoundError, VyreError


def _names(mem: Memory) -> dict[str, str]:
    return {e.id: e.name for e in mem.graph()}


def _typed(session: str, uuid: str, text: str, ts: str, cwd: str) -> str:
    return typed_line(session, uuid, text, ts, cwd) + "\n"


def test_graph_is_derived_from_facts_projects_and_decisions(tmp_path: Path) -> None:
    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    with Memory(tmp_path / "home", embedder="none", user_name="Joel") as mem:
        mem.ingest([projects])
        me = mem.entity("Joel")
        wife = mem.entity("Ines")
        assert any(e.relation == "wife" and e.src == me.id and e.dst == wife.id and e.sources for e in me.edges)
        portal = mem.entity("tidewater-portal")
        assert portal.kind == "project" and "/home/joel/code/tidewater-portal" in portal.aliases
        decisions = [e for e in mem.graph() if e.kind == "decision"]
        assert decisions and all(any(x.relation == "about" and x.sources for x in d.edges) for d in decisions)
        assert any(d.status == "superseded" for d in decisions)
        assert "Ines" in mem.expand("what's my wife's name")
        assert "/home/joel/code/tidewater-portal" in mem.expand("what did we decide about the tidewater staff login")
        assert "Owen Pratt" in mem.expand("who is owen")
        # nothing from a memory ask thread or a subagent: every person edge from the user stands on typed turns
        for edge in me.edges:
            for s in edge.sources:
                (turn,) = mem.store.turns(s.session, start=s.seq, end=s.seq + 1)
                assert turn.kind == "typed" and turn.session_kind == "interactive"


def test_edits_survive_re_ingest_and_re_derive(tmp_path: Path) -> None:
    world = need(WORLDS / "open" / "home" / ".claude" / "projects")
    projects = tmp_path / "projects"
    shutil.copytree(world, projects)
    with Memory(tmp_path / "home", embedder="none", user_name="Joel") as mem:
        mem.ingest([projects])
        owen = mem.entity("Owen Pratt")
        renamed = mem.rename_entity("Owen Pratt", "Owen P.")
        assert renamed.id == owen.id and "Owen Pratt" in renamed.aliases
        mem.add_alias("Owen P.", "the reviewer")
        mem.remove_alias("Owen P.", "Owen")
        mem.pin_entity("Tamsin")
        merged = mem.merge_entities("ledgerline-api", "levain-monitor")
        assert "levain-monitor" in merged.aliases
        mem.delete_entity("Gus")
        with pytest.raises(NotFoundError, match="vyre graph show"):
            mem.entity("Gus")
        with pytest.raises(VyreError):
            mem.delete_entity("Joel")
        before = {e.id: (e.name, e.aliases, e.pinned, len(e.edges)) for e in mem.graph()}

        def check() -> None:
            after = {e.id: (e.name, e.aliases, e.pinned, len(e.edges)) for e in mem.graph()}
            assert after == before
            assert mem.entity("the reviewer").id == owen.id
            assert "Owen" not in mem.entity("Owen P.").aliases
            assert mem.entity("Tamsin").pinned
            assert mem.entity("levain-monitor").name == "ledgerline-api"
            with pytest.raises(NotFoundError):
                mem.entity("Gus")

        mem.ingest([projects])  # the same files again
        check()
        mem.derive()
        check()
        # new turns arrive: the graph is rebuilt and the edits are re-applied on top
        extra = projects / "-home-joel-code-extra"
        extra.mkdir()
        (extra / "00000000-0000-4000-8000-00000000000a.jsonl").write_text(
            _typed(
                "00000000-0000-4000-8000-00000000000a",
                "x-1",
                "ok let's go with sqlite for the cache",
                "2026-10-08T10:00:00Z",
                "/home/joel/code/extra",
            ),
            encoding="utf-8",
        )
        mem.ingest([projects])
        assert mem.entity("the reviewer").name == "Owen P."
        assert mem.entity("Tamsin").pinned
        with pytest.raises(NotFoundError):
            mem.entity("Gus")
        assert any(e.kind == "decision" and "sqlite" in e.name for e in mem.graph())
    # and a brand-new process over the same database sees the same
    with Memory(tmp_path / "home", embedder="none", user_name="Joel") as mem:
        mem.derive()
        assert mem.entity("Owen P.").id == owen.id


def test_deleting_a_fact_removes_its_edge(tmp_path: Path) -> None:
    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    with Memory(tmp_path / "home", embedder="none", user_name="Joel") as mem:
        mem.ingest([projects])
        (wife,) = mem.facts(relation="wife")
        mem.delete_fact(wife.id)
        assert not any(e.relation == "wife" for e in mem.entity("Joel").edges)
        mem.derive()
        assert not any(e.relation == "wife" for e in mem.entity("Joel").edges)


def test_cli_graph_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from vyre_memory.surfaces.cli import main

    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('embedder = "none"\nuser_name = "Joel"\n', encoding="utf-8")
    monkeypatch.setenv("VYRE_HOME", str(home))
    run = CliRunner().invoke
    assert run(main, ["ingest", "--quiet", str(projects)]).exit_code == 0
    people = run(main, ["graph", "show", "--kind", "person"])
    assert people.exit_code == 0 and "Owen Pratt" in people.output
    for args in (
        ["graph", "rename", "Owen Pratt", "Owen P."],
        ["graph", "alias", "add", "Owen P.", "reviewer"],
        ["graph", "alias", "remove", "Owen P.", "Owen"],
        ["graph", "pin", "Tamsin"],
        ["graph", "merge", "ledgerline-api", "levain-monitor"],
        ["graph", "delete", "Gus"],
    ):
        res = run(main, args)
        assert res.exit_code == 0, (args, res.output)
    one = json.loads(run(main, ["graph", "show", "reviewer", "--json"]).output)
    assert one["name"] == "Owen P." and "Owen" not in one["aliases"]
    assert run(main, ["graph", "show", "Gus"]).exit_code == 1


def test_an_alias_two_people_share_is_never_resolved_and_a_said_full_name_is_kept() -> None:
    from vyre_memory.contract import Entity
    from vyre_memory.read.graph import resolve_aliases

    def person(i: str, name: str, *aliases: str) -> Entity:
        return Entity(i, "person", name, tuple(aliases), False, "current", None, None, 1, ())

    people = [
        person("a", "Marcus Tran", "Marcus"),
        person("b", "Marcus Oyelaran", "Marcus"),
        person("c", "Owen Pratt", "Owen"),
    ]
    assert resolve_aliases(people, "who is marcus tran") is None
    assert resolve_aliases(people, "who is marcus") is None
    assert resolve_aliases(people, "what did owen ask") == "what did Owen Pratt ask"


def test_a_common_word_of_the_work_is_never_a_name() -> None:
    from vyre_memory.contract import Turn
    from vyre_memory.read.graph import _name_candidates
    from vyre_memory.read.relations import is_name_token

    assert not any(is_name_token(w) for w in ("app", "web", "api", "site", "server", "repo"))
    said = "App Store asked for account deletion; Vale Okafor asked for the screenshots."
    turn = Turn(1, "s", 1, ("u",), "assistant", "assistant", "assistant", said, None, "interactive", "/w")
    assert {name for name, _ in _name_candidates(turn)} == {"vale okafor"}  # no "App Store", so no alias "App"


QUILLPAD = "/home/ana/code/quillpad"


def _decisions(tmp_path: Path, lines: list[str]) -> dict[str, str]:
    """Each decision the graph holds after ingesting these transcript lines, with its status."""
    folder = tmp_path / "projects" / QUILLPAD.replace("/", "-")
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_text("".join(lines), encoding="utf-8")
    with Memory(tmp_path / "home", embedder="none", user_name="Ana") as mem:
        mem.ingest([tmp_path / "projects"])
        return {e.name: e.status for e in mem.graph() if e.kind == "decision"}


def test_a_reversed_decision_is_history_and_the_reversal_is_current(tmp_path: Path) -> None:
    cwd = QUILLPAD
    lines = [
        _typed("s-1", "u-1", "we decided to use half-even rounding for the totals", "2026-05-02T10:00:00Z", cwd),
        _typed("s-2", "u-2", "ok, let's revert to half-up rounding for the totals", "2026-06-20T10:00:00Z", cwd),
    ]
    assert _decisions(tmp_path, lines) == {
        "use half-even rounding for the totals": "superseded",
        "half-up rounding for the totals": "current",
    }


def test_a_change_of_mind_in_other_words_supersedes_the_older_decision(tmp_path: Path) -> None:
    cwd = QUILLPAD
    lines = [
        _typed("s-1", "u-1", "let's go with REDIS_STREAMS for the job queue", "2026-03-02T10:00:00Z", cwd),
        _typed("s-1", "u-2", "let's do a grafana board per team for the alerts", "2026-03-03T10:00:00Z", cwd),
        _typed("s-1", "u-3", "after all the migrations ran the tests are green", "2026-03-04T10:00:00Z", cwd),
        _typed(
            "s-2",
            "u-4",
            "we're moving the job queues into postgres after all, the redis box costs too much",
            "2026-04-20T10:00:00Z",
            cwd,
        ),
        _typed(
            "s-2",
            "u-5",
            "nobody on call ever looks at the grafana thing. so: we drop the charts and mail the numbers daily",
            "2026-04-21T10:00:00Z",
            cwd,
        ),
    ]
    assert _decisions(tmp_path, lines) == {
        "REDIS_STREAMS for the job queue": "superseded",
        "a grafana board per team for the alerts": "superseded",
        "we're moving the job queues into postgres": "current",
        "drop the charts and mail the numbers daily": "current",
    }

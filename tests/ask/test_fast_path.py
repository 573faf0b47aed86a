"""The fast path over the open worlds: answers most personal questions, never wrongly, never to an agent."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import WORLDS, need
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask.fast_path import STALE_DAYS
from vyre_memory.eval.metrics import judge, percentile

PERSONAL = {"person", "relation", "place", "thing", "preference"}


def _ask(mem: Memory, q: dict[str, Any]) -> Any:
    scope = q.get("scope") or {}
    return mem.answer(
        q["question"],
        now=q["asked_at"],
        project_cwds=scope.get("project_cwds"),
        agent_projects=scope.get("agent_projects"),
    )


@pytest.mark.parametrize("world", ["open", "open2"])
def test_fast_path_answers_most_personal_questions_and_is_right_on_each(tmp_path: Path, world: str) -> None:
    projects = need(WORLDS / world / "home" / ".claude" / "projects")
    questions = json.loads((WORLDS / world / "questions.json").read_text())["questions"]
    personal = [q for q in questions if q["class"] in PERSONAL]
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([projects])
        answerable = answered = 0
        latencies: list[float] = []
        for q in personal:
            agent = bool((q.get("scope") or {}).get("agent_projects"))
            res = _ask(mem, q)
            latencies.append(res.latency_ms)
            expected = q.get("answerable", True) and not agent
            answerable += int(expected)
            if res.abstained:
                assert res.answer is None and res.sources == () and res.via is None
                continue
            answered += 1
            assert judge(res.answer, False, expected, q.get("accept", []), q.get("reject") or []), (q, res)
            assert res.via == "fact" and res.confidence >= 0.5 and res.sources and res.cost_usd == 0.0
            for s in res.sources:
                assert s.name == "me" and s.quote and s.uuid
        print(
            f"{world}: answered {answered}/{answerable}, p50 {percentile(latencies, 50)} ms, "
            f"p95 {percentile(latencies, 95)} ms"
        )
        assert answered >= 0.7 * answerable


@pytest.mark.parametrize("world", ["open", "open2"])
def test_agent_scope_never_gets_a_personal_fact(tmp_path: Path, world: str) -> None:
    projects = need(WORLDS / world / "home" / ".claude" / "projects")
    questions = json.loads((WORLDS / world / "questions.json").read_text())["questions"]
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([projects])
        agent = ["/"]  # even an agent granted everything
        for q in questions:
            if q["class"] not in PERSONAL:
                continue
            res = mem.answer(q["question"], agent_projects=agent, now=q["asked_at"])
            assert res.abstained and res.answer is None and res.known == () and res.sources == ()
        mine = mem.answer("what's my wife's name" if world == "open" else "where does my brother live?")
        assert not mine.abstained


def test_abstention_says_what_memory_knows(tmp_path: Path) -> None:
    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([projects])
        res = mem.answer("what's my sister's husband's name")
        assert res.abstained and res.answer is None
        assert any("Hanna" in k for k in res.known)
        d = res.to_dict()
        assert set(d) >= {"answer", "confidence", "abstained", "known", "sources", "via", "latency_ms", "cost_usd"}
        assert mem.answer("which file had the stripe refund bug").abstained
        first = mem.answer("what's my wife's name").to_dict()
        second = mem.answer("what's my wife's name").to_dict()
        first.pop("latency_ms"), second.pop("latency_ms"), first.pop("timings"), second.pop("timings")
        assert first == second


def test_cli_facts_and_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from vyre_memory.surfaces.cli import main

    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('embedder = "none"\nuser_name = "Joel"\n', encoding="utf-8")
    monkeypatch.setenv("VYRE_HOME", str(home))
    run = CliRunner().invoke
    assert run(main, ["ingest", "--quiet", str(projects)]).exit_code == 0
    listed = run(main, ["facts", "list", "--relation", "wife", "--json"])
    assert listed.exit_code == 0, listed.output
    (wife,) = json.loads(listed.output)
    shown = run(main, ["facts", "show", wife["id"][:10]])
    assert shown.exit_code == 0 and "Ines" in shown.output and "my wife ines" in shown.output
    said = run(main, ["answer", "what's my wife's name", "--json", "--now", "2026-10-09T16:00:00Z"])
    assert said.exit_code == 0
    contract = json.loads(said.output)
    assert contract["answer"] == "Your wife is Ines." and contract["via"] == "fact" and contract["sources"]
    agent = run(main, ["answer", "what's my wife's name", "--agent-project", "/home/joel/code/ledgerline-api"])
    assert agent.exit_code == 0 and agent.output.startswith("Not sure.")
    assert run(main, ["facts", "delete", wife["id"]]).exit_code == 0
    assert run(main, ["answer", "what's my wife's name"]).output.startswith("Not sure.")
    missing = run(main, ["facts", "show", "ffffffffff"])
    assert missing.exit_code == 1 and "vyre facts list" in missing.output


def test_who_asked_names_everyone_the_one_report_names() -> None:
    from vyre_memory.ask.attribution_questions import Said, answer_who, parse_who_question
    from vyre_memory.ask.personal_questions import KnownFact

    quote = "kim park and ravi both asked for page numbers on invoices"
    said = [
        Said(KnownFact(who, "said", "asked for page numbers on invoices", 0.6, "2026-01-01", str(i)), quote, "billing")
        for i, who in enumerate(["ravi", "kim park"])
    ]
    query = parse_who_question("who asked for page numbers on invoices?")
    assert query is not None
    got = answer_who(query, said)
    assert got is not None and got.text == "Kim Park and Ravi." and got.confidence >= 0.6
    other = parse_who_question("who asked for dark mode on invoices?")
    assert other is not None and answer_who(other, said) is None


def test_who_suggested_is_told_by_what_someone_said_we_should_do() -> None:
    from vyre_memory.ask.attribution_questions import Said, answer_who, parse_who_question
    from vyre_memory.ask.personal_questions import KnownFact

    obj = "said in standup we should put a unique index on the event id"
    said = [Said(KnownFact("bea", "said", obj, 0.6, "2026-01-01", "0"), f"bea {obj}", "billing")]
    query = parse_who_question("who suggested the unique index on the event id")
    assert query is not None
    got = answer_who(query, said)
    assert got is not None and got.text.startswith("Bea")
    other = parse_who_question("who suggested the retry queue")
    assert other is not None and answer_who(other, said) is None


def test_a_changing_value_asked_as_it_is_now_is_not_told_from_months_ago(tmp_path: Path) -> None:
    """A car, a laptop, a job title: asked "these days", a statement older than STALE_DAYS is what was known then,
    not today's answer; asked without "now", or soon after it was said, it is told. A home is kept."""
    said = datetime(2026, 1, 10, 9, 0, tzinfo=UTC)
    work = TranscriptWriter(tmp_path / "projects" / "-home-sam-code-api" / "a.jsonl", "/home/sam/code/api", start=said)
    work.user("i drive a subaru forester, the roof box fits. anyway run the tests")
    work.assistant("Tests pass.")
    work.user("i'm a senior engineer here so apparently i own the alerts okr this quarter. list the noisy alerts")
    work.assistant("The five noisiest alerts are listed in alerts.md.")
    work.user("we live in tarnow now, the flat is tiny. next: the flaky cron")
    work.assistant("Looking at the cron.")
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([tmp_path / "projects"])
        months = said + timedelta(days=150)
        assert STALE_DAYS < 150
        stale = mem.answer("what do i drive these days", now=months)
        assert stale.abstained and stale.answer is None
        assert stale.known == ("As of 2026-01-10: You drive a Subaru Forester.",)
        assert mem.answer("what do i drive", now=months).answer == "You drive a Subaru Forester."
        soon = mem.answer("what do i drive these days", now=said + timedelta(days=20))
        assert soon.answer == "You drive a Subaru Forester."
        title = mem.answer("what's my job title now", now=months)
        assert title.abstained and title.known and title.known[0].startswith("As of 2026-01-10:")
        home = mem.answer("where do we live these days", now=months)
        assert home.answer is not None and "Tarnow" in home.answer


def test_the_newest_car_is_told_with_its_article_and_a_test_drive_is_none(tmp_path: Path) -> None:
    """A car bought by its model alone replaces the one driven before; one test-driven in between is no car of the
    person's; "an" before a vowel."""
    said = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    work = TranscriptWriter(tmp_path / "projects" / "-home-sam-code-api" / "a.jsonl", "/home/sam/code/api", start=said)
    work.user("had to drive the honda to the garage again. anyway run the tests")
    work.assistant("Tests pass.")
    work.user("test drove a kia sportage saturday, meh. next: the flaky cron")
    work.assistant("Looking at the cron.")
    work.user("bought the octavia yesterday!! 2021, white. ok the lint job please")
    work.assistant("Lint is clean.")
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([tmp_path / "projects"])
        car = mem.answer("what car do i drive now", now=said + timedelta(days=5))
        assert car.answer == "You drive an Octavia."

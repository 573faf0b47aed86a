"""Retrieval keys (sessions, facts, decisions) keep to the caller's scope, roll subagents into their parents,
and never give an agent a personal fact; a model reads passages up to a character budget."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.conftest import WORLDS, make_passage, need
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask.configs import CONFIGS
from vyre_memory.ask.keys import COMMON_MOMENT_WORD, MomentKeys, RecordKeys, SessionKeys, stem, tokens
from vyre_memory.ask.retrieve import within_chars
from vyre_memory.contract import Scope
from vyre_memory.eval.datasets import EvalQuestion
from vyre_memory.eval.runner import QuestionResult
from vyre_memory.ingest.labels import is_within
from vyre_memory.read.moments import Moment

NOW = datetime(2026, 10, 9, 16, 0, tzinfo=UTC)
HORIZON = "2026-10-09T16:00:00.000Z"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    projects = need(WORLDS / "open" / "home" / ".claude" / "projects")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VYRE_EMBEDDER", "hash")
        mem = Memory(tmp_path_factory.mktemp("keys"), user_name="Joel")
        mem.ingest([projects])
    yield mem
    mem.close()


def test_stems_match_across_word_forms() -> None:
    assert {stem("deploys"), stem("deployed"), stem("deploying"), stem("deploy")} == {"deploy"}
    assert tokens("app/billing_service.py") == ["app", "billing_service", "bill", "service", "py"]


def test_a_subagent_session_is_keyed_under_its_parent(world: Memory) -> None:
    keys = SessionKeys().refresh(world.store)
    subagents = [s for s in world.sessions(kind="subagent") if s.parent_session]
    assert subagents
    for s in subagents:
        assert keys.owner(s.id) == s.parent_session
    searched = {name for name, _ in keys.search(tokens("investigate report files"), None, 100)}
    assert not searched & {s.id for s in subagents}  # only parents have keys


def test_session_keys_score_only_the_sessions_a_scope_reads(world: Memory) -> None:
    keys = SessionKeys().refresh(world.store)
    project = next(s.cwd for s in world.sessions() if s.cwd and s.cwd.endswith("ledgerline-api"))
    allowed = world.retriever.directory.refresh(world.store).sessions_in(world.store, Scope(project_cwds=(project,)))
    assert allowed and all(is_within(world.session(s).cwd or "", project) for s in allowed)
    found = keys.search(tokens("invoice refund webhook test deploy"), allowed, 50)
    assert found and {s for s, _ in found} <= allowed
    everywhere = keys.search(tokens("invoice refund webhook test deploy"), None, 50)
    assert len(everywhere) > len(found)


def test_personal_fact_keys_are_never_searched_without_personal_access(world: Memory) -> None:
    keys = RecordKeys().refresh(world.store, "Joel")
    assert {k.kind for k in keys.keys} >= {"fact", "decision"}
    words = tokens("my wife dog kids house birthday decided")
    mine = keys.search(words, None, HORIZON, personal=True, newest_first=False, limit=50)
    assert any(k.kind == "fact" for k in mine)
    agent = keys.search(words, None, HORIZON, personal=False, newest_first=False, limit=50)
    assert all(k.kind == "decision" for k in agent)


def test_keys_said_after_the_question_are_not_read(world: Memory) -> None:
    keys = RecordKeys().refresh(world.store, "Joel")
    early = min(k.ts for k in keys.keys if k.ts)
    words = tokens(" ".join(k.text for k in keys.keys))
    assert all(
        (k.ts or "") <= early for k in keys.search(words, None, early, personal=True, newest_first=False, limit=500)
    )


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_every_configuration_keeps_to_an_agents_projects(world: Memory, config: str) -> None:
    granted = sorted({s.cwd for s in world.sessions() if s.cwd and s.cwd.endswith("ledgerline-api")})
    for q in ("what's my wife's name", "what did we decide about the login", "which file had the refund bug"):
        passages = world.retrieve(q, agent_projects=granted, k=10, now=NOW, config=config)
        assert all(p.cwd and is_within(p.cwd, granted[0]) for p in passages), (config, q)
        assert all("facts" not in p.via for p in passages)


def test_a_reading_budget_keeps_the_leading_passages_that_fit() -> None:
    ranked = [make_passage(i, "x" * n) for i, n in enumerate([3000, 2500, 4000, 100], start=1)]
    assert [p.id for p in within_chars(ranked, 6000)] == [1, 2]  # the third would pass the budget
    assert [p.id for p in within_chars(ranked, 1000)] == [1]  # the first is always read
    assert [p.id for p in within_chars(ranked, 20_000)] == [1, 2, 3, 4]


def test_the_retriever_stops_at_a_character_budget(world: Memory) -> None:
    scope = Scope()
    ranked = world.retriever.retrieve("which file had the refund bug", scope, k=30, now=NOW)
    budgeted = world.retriever.retrieve("which file had the refund bug", scope, k=30, now=NOW, chars=3000)
    assert budgeted == within_chars(ranked, 3000)
    assert 1 <= len(budgeted) < len(ranked)


def test_answer_recall_is_the_evidence_among_what_the_answer_step_read() -> None:
    q = EvalQuestion(
        id="q1",
        question="which file",
        qclass="file",
        answerable=True,
        accept=("x",),
        reject=(),
        evidence=(frozenset({"a"}), frozenset({"b", "c"})),
        asked_at=NOW,
    )
    result = QuestionResult(q=q, passages=[], read=[("z",), ("c",), ("y",)])
    assert result.answer_recall() == 0.5
    assert QuestionResult(q=q, passages=[]).answer_recall() is None  # the fast path read no passages


def test_a_session_key_hit_retrieves_the_requests_it_was_made_from(world: Memory) -> None:
    keys = SessionKeys().refresh(world.store)
    session = next(s for s in world.sessions(kind="interactive") if s.turn_count > 5)
    first = next(t for t in world.turns(session.id) if t.kind == "typed")
    words = tokens(first.text[:300])
    assert (session.id, first.seq) in keys.request_turns([session.id], words, 2)
    assert keys.request_turns([session.id], ["zzzz-no-such-word"], 2) == []


def _releases(n_common: int) -> list[Moment]:
    common = [
        Moment(f"s{i % 7}", (i,), f"2026-01-{1 + i % 28:02d}T{i % 24:02d}:00:00.000Z", "deploy to staging")
        for i in range(n_common)
    ]
    refund = Moment("s-refund", (5, 6), "2026-01-03T09:00:00.000Z", "1.4.0 shop-api make release fix the refund")
    newest = Moment("s-late", (9,), "2026-02-10T09:00:00.000Z", "deploy shop-api")
    settings = Moment("s-settings", (7,), "2026-01-04T09:00:00.000Z", "2.0.1 shop-api make release access settings")
    return [*common, refund, newest, settings]


@pytest.mark.parametrize("n_common", [5, COMMON_MOMENT_WORD + 10])
def test_release_keys_rank_by_words_then_newest_however_common_a_word(n_common: int) -> None:
    keys = MomentKeys().refresh("v1", lambda: _releases(n_common))

    def search(
        words: list[str],
        allowed: frozenset[str] | None = None,
        horizon: str = "2026-03-01T00:00:00.000Z",
        window: tuple[str, str] | None = None,
        newest_first: bool = False,
    ) -> list[tuple[str, int]]:
        since, until = window or (None, None)
        return keys.search(
            words, allowed, horizon, since=since, until=until, newest_first=newest_first, limit=3, fill=False
        )

    assert search(["deploy", "refund"])[:2] == [("s-refund", 5), ("s-refund", 6)]  # a rare word outweighs
    assert search(["1.4.0"])[:1] == [("s-refund", 5)]  # a version is one word
    assert search(tokens("access settings"))[:1] == [("s-settings", 7)]  # a question's tokens, stemmed once
    assert search(["deploy"], newest_first=True)[0] == ("s-late", 9)
    assert search(["refund"], allowed=frozenset({"s-refund"})) == [("s-refund", 5), ("s-refund", 6)]
    assert search(["refund"], allowed=frozenset({"s-late"})) == []  # nothing scores, and nothing fills
    # a window holding a release keeps to it; one holding none leaves the whole history
    assert search(["deploy"], window=("2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z")) == [("s-late", 9)]
    assert len(search(["deploy"], window=("2025-06-01T00:00:00.000Z", "2025-07-01T00:00:00.000Z"))) == 3
    # said after the question's time: not read
    assert ("s-late", 9) not in search(["deploy"], horizon="2026-02-01T00:00:00.000Z", newest_first=True)
    assert keys.refresh("v1", lambda: []) is keys and keys.moments  # the same version is not read again


def test_session_keys_match_a_questions_tokens_as_they_are(tmp_path: Path) -> None:
    # "access" is "acces" in both the key and the question's tokens; stemmed again it was "acce", found nowhere
    for name, said in (("a", "the access settings page is blank"), ("b", "the invoice totals are off")):
        TranscriptWriter(tmp_path / "p" / "-home-sam-code-shop" / f"{name}.jsonl", "/home/sam/code/shop").user(said)
    with Memory(tmp_path / "home", embedder="none") as mem:
        mem.ingest([tmp_path / "p"])
        keys = SessionKeys().refresh(mem.store)
        [(best, _)] = keys.search(tokens("access settings"), None, 1)
        assert keys.request_turns([best], tokens("access settings"), 1) == [(best, 0)]
        assert mem.store.turns(best)[0].text == "the access settings page is blank"

"""memory.ask end to end on the demo history: no model, and every failure path of a scripted model."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from vyre_memory import Memory
from vyre_memory.contract import Scope
from vyre_memory.models.base import ModelRequest
from vyre_memory.models.fake import FakeModel, FunctionModel
from vyre_memory.models.pricing import BudgetedBackend, DailyBudget

DEMO = Path(__file__).resolve().parents[2] / "demo" / "projects"
NOW = datetime(2026, 10, 9, 16, 0, tzinfo=UTC)


@pytest.fixture
def mem(home: Path) -> Memory:
    m = Memory(home, user_name="Sam")
    m.ingest([DEMO])
    for purpose in ("rerank", "answer", "verify"):
        m.set_backend(purpose, None)
    yield m
    m.close()


def _cite_containing(needle: str, answer: str, confidence: float = 0.9) -> FunctionModel:
    """A model that answers `answer` citing the passage whose excerpt contains `needle`."""

    def fn(req: ModelRequest) -> str:
        blocks = re.split(r"\n(?=\[\d+\] )", req.prompt)
        for block in blocks:
            m = re.match(r"\[(\d+)\] ", block)
            if m and needle.lower() in block.lower():
                return json.dumps(
                    {
                        "answer": answer,
                        "cite": [int(m.group(1))],
                        "confidence": confidence,
                        "abstain": False,
                        "known": [],
                    }
                )
        return json.dumps({"answer": None, "cite": [], "confidence": 0.0, "abstain": True, "known": []})

    return FunctionModel(fn)


def test_no_model_answers_which_file_from_the_passages(mem: Memory) -> None:
    result = mem.ask("which file had the refund credited twice bug", now=NOW)
    assert not result.abstained and result.via == "retrieval"
    assert "app/billing/refunds.py" in (result.answer or "")
    assert result.confidence >= 0.5
    assert any("refunds.py" in s.quote for s in result.sources)
    assert set(result.timings) >= {"fast_path", "understanding", "retrieval", "rerank", "answer", "abstention"}


def test_unanswerable_question_abstains_with_known(mem: Memory) -> None:
    result = mem.ask("what did we decide about rate limiting on the kubernetes cluster", now=NOW)
    assert result.abstained and result.answer is None
    assert result.confidence < 0.5


def test_grounded_model_answer_is_told(mem: Memory) -> None:
    mem.set_backend("answer", _cite_containing("refunds.py", "app/billing/refunds.py"))
    result = mem.ask("which file had the refund credited twice bug", now=NOW)
    assert result.answer == "app/billing/refunds.py" and not result.abstained


@pytest.mark.parametrize(
    ("output", "why"),
    [
        (
            {"answer": "app/billing/refunds.py", "cite": [99], "confidence": 0.9, "abstain": False, "known": []},
            "bad citation",
        ),
        (
            {"answer": "Jordan fixed it", "cite": [1], "confidence": 0.9, "abstain": False, "known": []},
            "a name not in the cited text",
        ),
        (
            {"answer": "v9.9.9", "cite": [1], "confidence": 0.9, "abstain": False, "known": []},
            "a number not in the cited text",
        ),
    ],
)
def test_model_answers_that_fail_the_code_checks_abstain(mem: Memory, output: dict, why: str) -> None:
    mem.set_backend("answer", FakeModel([json.dumps(output)], when_exhausted="repeat"))
    result = mem.ask("which file had the refund credited twice bug", now=NOW)
    assert result.abstained and result.answer is None, why
    assert result.known, "an abstention lists what memory does know"


def test_malformed_json_twice_abstains_after_one_retry(mem: Memory) -> None:
    model = FakeModel(["not json", "{still not json"], when_exhausted="error")
    mem.set_backend("answer", model)
    result = mem.ask("which file had the refund credited twice bug", now=NOW)
    assert result.abstained and result.known
    assert model._next == 2  # asked twice, then gave up


def test_a_model_timeout_abstains_within_the_budget(mem: Memory) -> None:
    mem.set_backend("answer", FakeModel(["{}"], delay_s=5.0, when_exhausted="repeat"))
    started = time.perf_counter()
    result = mem.ask("which file had the refund credited twice bug", now=NOW)
    assert result.abstained and result.known
    assert time.perf_counter() - started < 3.0


def test_second_look_disagreeing_abstains(mem: Memory) -> None:
    question = "who asked for microsoft logins on the harlow portal"
    mem.set_backend("answer", _cite_containing("bram", "Bram"))
    mem.set_backend(
        "verify", FakeModel([json.dumps({"supported": True, "reason": "the turn says so"})], when_exhausted="repeat")
    )
    assert mem.ask(question, now=NOW).answer == "Bram"  # agreed: told
    mem.set_backend(
        "verify",
        FakeModel([json.dumps({"supported": False, "reason": "not what the turn says"})], when_exhausted="repeat"),
    )
    result = mem.ask(question, now=NOW)
    assert result.abstained and result.answer is None


def test_the_daily_cap_skips_model_steps_and_says_so(mem: Memory, tmp_path: Path) -> None:
    budget = DailyBudget.from_file(0.0, tmp_path / "spend.json")
    model = _cite_containing("refunds.py", "app/billing/refunds.py")
    mem.set_backend("answer", BudgetedBackend(model, budget))
    result = mem.ask("which file had the refund credited twice bug", now=NOW)
    assert result.abstained
    assert any("budget" in k for k in result.known)


def test_streaming_gives_the_first_event_within_100_ms(mem: Memory) -> None:
    started = time.perf_counter()
    events = mem.ask("which file had the refund credited twice bug", now=NOW, stream=True)
    first = next(events)
    assert (time.perf_counter() - started) * 1000 < 100
    assert first.event == "memory.thinking" and first.stage == "understanding"
    rest = list(events)
    stages = [e.stage for e in rest if e.event == "memory.thinking"]
    assert stages == ["searching", "reading", "checking"]
    assert [e.event for e in rest[-2:]] == ["memory.answered", "result"]
    assert rest[-1].result is not None and not rest[-1].result.abstained


def test_three_asks_give_the_same_answer_and_a_new_turn_invalidates(mem: Memory, tmp_path: Path) -> None:
    q = "which file had the refund credited twice bug"
    results = [mem.ask(q, now=NOW) for _ in range(3)]
    assert len({(r.answer, r.confidence, r.sources) for r in results}) == 1
    version = mem.store.corpus_version()
    extra = tmp_path / "more" / "-home-sam-code-shop-api"
    extra.mkdir(parents=True)
    (extra / "e0000000-0000-4000-8000-000000000009.jsonl").write_text(
        json.dumps(
            {
                "type": "user",
                "uuid": "x1",
                "parentUuid": None,
                "sessionId": "e0000000-0000-4000-8000-000000000009",
                "cwd": "/home/sam/code/shop-api",
                "timestamp": "2026-10-08T10:00:00.000Z",
                "message": {"role": "user", "content": "the refund bug is back in app/billing/credits.py"},
            }
        )
        + "\n"
    )
    mem.ingest([tmp_path / "more"])
    assert mem.store.corpus_version() > version


def test_an_agent_scope_never_gets_a_personal_answer(mem: Memory) -> None:
    result = mem.ask("what's my wife's name", agent_projects=["/home/sam/code/harlow-portal"], now=NOW)
    assert result.abstained and result.answer is None
    assert not any("dani" in k.lower() for k in result.known)
    assert not any("dani" in s.quote.lower() for s in result.sources)


def _billing(tmp_path: Path, says_it: str, line: str) -> Memory:
    from tests.reliability.conftest import TranscriptWriter

    root = tmp_path / "projects"
    w = TranscriptWriter(root / "-home-sam-code-books" / "s.jsonl", "/home/sam/code/books")
    w.user("can you draft the march invoice for acme")
    if says_it == "person":
        w.user(line)
        w.assistant("Done: the invoice draft is in invoices/acme-march.md.")
    else:
        w.assistant(line)
    m = Memory(tmp_path / "home", user_name="Sam")
    m.ingest([root])
    for purpose in ("rerank", "answer", "verify"):
        m.set_backend(purpose, None)
    return m


def test_a_figure_about_the_person_is_told_from_their_own_words(tmp_path: Path) -> None:
    with _billing(tmp_path, "person", "I billed acme 12.5 hours for march, same rate as before.") as m:
        result = m.ask("how many hours did i bill acme for march", now=NOW)
    assert not result.abstained and "12.5" in (result.answer or ""), result.to_dict()
    assert [s.name for s in result.sources] == ["Sam"]


@pytest.mark.parametrize(
    "line",
    [
        "Should I bill acme 12.5 hours for march, or is that too much?",
        "My friend said: I billed acme 12.5 hours for march.",
        "If I billed acme 12.5 hours for march they would drop us.",
    ],
)
def test_a_figure_about_the_person_is_not_told_from_a_question_quote_or_hypothetical(tmp_path: Path, line: str) -> None:
    with _billing(tmp_path, "person", line) as m:
        result = m.ask("how many hours did i bill acme for march", now=NOW)
    assert "12.5" not in (result.answer or ""), result.to_dict()


def test_a_figure_about_the_person_is_not_told_from_the_assistants_words(tmp_path: Path) -> None:
    with _billing(tmp_path, "assistant", "You billed acme 14 hours for march, same rate as before.") as m:
        result = m.ask("how many hours did i bill acme for march", now=NOW)
    assert result.abstained and result.answer is None, result.to_dict()


def test_known_bullets_are_whole_relevant_sentences_never_cut_mid_word() -> None:
    from tests.conftest import make_passage

    from vyre_memory.ask.pipeline import KNOWN_CHARS, _known_from
    from vyre_memory.contract import Scope

    long_tail = " ".join(["the exporter also rewrites every header row"] * 12)
    passages = [
        make_passage(1, "Lunch at noon. The nightly export failed because the disk filled up. Retrying now."),
        make_passage(2, f"Export notes: {long_tail}."),
        make_passage(3, "Nothing here about it at all."),
    ]
    known = _known_from("why did the nightly export fail", passages, Scope())
    assert known[0].endswith("The nightly export failed because the disk filled up.")
    assert len(known) == 2 and known[1].endswith("…")  # two bullets at most
    body = known[1].split(": ", 1)[1]
    assert len(body) <= KNOWN_CHARS and long_tail.startswith(body[:-1].removeprefix("Export notes: ")[:40])
    assert body[:-1].split()[-1] in long_tail.split()  # the cut falls between words


def test_a_model_reads_every_passage_the_character_budget_holds_not_a_count(tmp_path: Path) -> None:
    """Sixty short turns about one topic: the answer request shows as many as fill answer_chars (more than the
    eight an extractor reads and the thirty a reranker sees), and AskResult.read is exactly what it showed."""
    from tests.conftest import typed_line

    from vyre_memory.ask.configs import get_config
    from vyre_memory.ask.retrieve import within_chars

    root = tmp_path / "projects" / "-home-me-code-x"
    root.mkdir(parents=True)
    lines = [
        typed_line(
            "s1",
            f"00000000-0000-4000-8000-{i:012d}",
            f"note {i}: the harbour sensor read {i} units at dawn",
            f"2026-09-{1 + i // 3:02d}T0{i % 3}:00:00Z",
        )
        for i in range(60)
    ]
    (root / "s1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shown: list[int] = []

    def fn(req: ModelRequest) -> str:
        if req.purpose == "answer":
            shown.append(len(re.findall(r"^\[\d+\] ", req.prompt, flags=re.M)))
        return json.dumps({"answer": None, "cite": [], "confidence": 0.0, "abstain": True, "known": []})

    m = Memory(tmp_path / "home", user_name="Sam")
    try:
        m.ingest([tmp_path / "projects"])
        for purpose in ("rerank", "verify"):
            m.set_backend(purpose, None)
        m.set_backend("answer", FunctionModel(fn))
        result = m.ask("what did the harbour sensor read", now=NOW)
        ranked = m.retriever.retrieve("what did the harbour sensor read", Scope(), k=200, now=NOW)
    finally:
        m.close()
    budget = get_config(None).answer_chars
    expected = within_chars(ranked, budget)
    assert len(ranked) == 60 and sum(len(p.text) for p in ranked) < budget  # all sixty fit the budget
    assert shown == [len(expected)] == [60]
    assert list(result.read) == [p.uuids for p in expected]


def test_a_told_answer_says_its_dates_as_people_do(tmp_path: Path) -> None:
    """A model copies a passage header's ISO date; the answer told says "23 October 2026" (and a version's number
    without its "v")."""
    from tests.conftest import typed_line

    root = tmp_path / "projects" / "-home-me-code-x"
    root.mkdir(parents=True)
    said = "shipped v1.0.0 of the booking api to production today"
    (root / "s1.jsonl").write_text(
        typed_line("s1", "00000000-0000-4000-8000-000000000001", said, "2026-10-23T09:00:00Z") + "\n", encoding="utf-8"
    )
    reply = {"answer": "2026-10-23, with v1.0.0", "cite": [1], "confidence": 0.9, "abstain": False, "known": []}
    m = Memory(tmp_path / "home", user_name="Sam")
    try:
        m.ingest([tmp_path / "projects"])
        for purpose in ("rerank", "verify"):
            m.set_backend(purpose, None)
        supported = {"supported": True, "reason": "said"}  # the second look, by the answer model
        m.set_backend("answer", FunctionModel(lambda req: json.dumps(reply if req.purpose == "answer" else supported)))
        result = m.ask("when did the booking api first go to production", now=datetime(2026, 12, 1, tzinfo=UTC))
    finally:
        m.close()
    assert result.answer == "23 October 2026, with 1.0.0"

"""The model reader: trusted turns only, each text read once per prompt version, output checked, replayable."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import typed_record

from vyre_memory import Memory
from vyre_memory.errors import ModelTimeout
from vyre_memory.models.base import ModelRequest
from vyre_memory.models.fake import FakeModel, FunctionModel
from vyre_memory.models.replay import RecordingBackend, ReplayBackend
from vyre_memory.read import reader_prompt
from vyre_memory.read.derive import MODEL_CONFIDENCE_CAP, PEOPLE_BAR, reader_text
from vyre_memory.read.model_reader import ModelReader, text_hash
from vyre_memory.store.sqlite import Store

CWD = "/home/me/code/x"
PORTO = "these days home for us is a flat in porto"
HALF = "the love of my life, ines, says hi"
EMAIL = "From: Bob Stone <bob@example.com>\nSubject: dinner\n\nHi,\nmy wife clara is from lisbon.\nBest,\nBob"
ASSISTANT = "Noted! Your wife Marta lives in Madrid, right?"
HEADLESS = "You are running unattended for Nora. Her husband Pieter lives in Rotterdam."


def _user(session: str, uuid: str, text: str, ts: str, *, headless: bool = False) -> dict[str, Any]:
    return typed_record(session, uuid, text, ts, CWD, headless=headless)


def _assistant(session: str, uuid: str, text: str, ts: str) -> dict[str, Any]:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "type": "assistant",
        "uuid": uuid,
        "timestamp": ts,
        "cwd": CWD,
        "sessionId": session,
        "version": "2.1.0",
        "message": {"id": f"m-{uuid}", "role": "assistant", "content": [{"type": "text", "text": text}]},
    }


def _write(root: Path, session: str, records: list[dict[str, Any]]) -> None:
    folder = root / "-home-me-code-x"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


S1 = "00000000-0000-4000-8000-0000000000a1"
S2 = "00000000-0000-4000-8000-0000000000a2"
S3 = "00000000-0000-4000-8000-0000000000a3"


def _facts_for(prompt: str) -> list[dict[str, Any]]:
    """A scripted reader: what a good model would read in the person's sentences (and a few bad reads)."""
    out: list[dict[str, Any]] = []
    low = prompt.lower()
    if "flat in porto" in low:
        out.append({"subject": "user", "relation": "lives_in", "object": "Porto", "quote": PORTO, "confidence": 0.9})
    if "love of my life" in low:
        out.append({"subject": "user", "relation": "partner", "object": "Ines", "quote": HALF, "confidence": 0.9})
    if "clara" in low or "marta" in low or "pieter" in low:  # never reached: those turns are never shown
        out.append({"subject": "user", "relation": "wife", "object": "Clara", "quote": "", "confidence": 0.9})
    return out


def _model(name: str = "function") -> FunctionModel:
    return FunctionModel(lambda req: json.dumps({"facts": _facts_for(req.prompt)}), name=name)


def _shown(requests: list[ModelRequest]) -> list[str]:
    return [r.prompt.split("\n", 1)[1] for r in requests]


def _mem(home: Path, backend: Any) -> Memory:
    mem = Memory(home, embedder="none", user_name="me")
    mem.set_backend("reader", backend)
    return mem


def test_a_turn_is_read_once_and_a_new_prompt_version_reads_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    projects = tmp_path / "projects"
    _write(
        projects, S1, [_user(S1, "u-1", PORTO, "2026-05-01T10:00:00Z"), _user(S1, "u-2", HALF, "2026-05-01T10:05:00Z")]
    )
    model = _model()
    with _mem(tmp_path / "home", model) as mem:
        mem.ingest([projects])
        assert sorted(_shown(model.requests)) == sorted([HALF, PORTO])
        assert {r.purpose for r in model.requests} == {"reader"}
        assert {r.prompt_version for r in model.requests} == {reader_prompt.VERSION}
        assert mem.store.get_read(text_hash(reader_text(PORTO)), reader_prompt.VERSION) is not None
        first = {f.id: f for f in mem.facts()}
        report = mem.derive()  # a full re-derive: every turn is read again, from the cache
        assert len(model.requests) == 2 and report.model_mentions == 2
        assert {f.id: f for f in mem.facts()} == first and not report.changed
        monkeypatch.setattr(reader_prompt, "VERSION", "test-2")
        mem.derive()
        assert len(model.requests) == 4
        assert {r.prompt_version for r in model.requests[2:]} == {"test-2"}
        mem.derive()
        assert len(model.requests) == 4


def test_the_same_text_in_another_turn_is_a_cache_hit_and_a_second_mention(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    _write(projects, S1, [_user(S1, "u-1", HALF, "2026-05-01T10:00:00Z")])
    model = _model()
    with _mem(tmp_path / "home", model) as mem:
        mem.ingest([projects])
        (partner,) = mem.facts(relation="partner")
        assert partner.object == "Ines" and partner.confidence == MODEL_CONFIDENCE_CAP < PEOPLE_BAR
        assert [s.via for s in partner.sources] == ["model"]
        assert mem.answer("what's my partner's name").abstained  # one model-only mention says nobody's name
        _write(projects, S2, [_user(S2, "u-9", HALF, "2026-06-01T10:00:00Z")])
        report = mem.ingest([projects])
        assert report.new_turns == 1
        assert len(model.requests) == 1  # same text hash: no second call
        (partner,) = mem.facts(relation="partner")
        assert len(partner.sources) == 2 and partner.confidence >= PEOPLE_BAR
        res = mem.answer("what's my partner's name")
        assert not res.abstained and res.answer and "Ines" in res.answer
        assert {s.uuid for s in res.sources} <= {"u-1", "u-9"} and res.sources


def test_a_model_fact_answers_with_its_source_turn(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    _write(projects, S1, [_user(S1, "u-1", "morning! " + PORTO + ".", "2026-05-01T10:00:00Z")])
    with _mem(tmp_path / "home", _model()) as mem:
        mem.ingest([projects])
        (home,) = mem.facts(relation="lives_in")
        assert home.object == "Porto" and home.sources[0].via == "model"
        res = mem.answer("where do i live", now="2026-06-01T00:00:00Z")
        assert res.answer and "Porto" in res.answer and res.via == "fact"
        (source,) = res.sources
        assert source.uuid == "u-1" and source.session == S1 and "porto" in source.quote


def test_a_fact_the_rules_read_is_not_doubled_by_the_model(tmp_path: Path) -> None:
    text = "my wife ines says hi"
    said = {"subject": "user", "relation": "wife", "object": "ines", "quote": text, "confidence": 0.9}
    model = FunctionModel(lambda req: json.dumps({"facts": [said]}))
    projects = tmp_path / "projects"
    _write(projects, S1, [_user(S1, "u-1", text, "2026-05-01T10:00:00Z")])
    with _mem(tmp_path / "home", model) as mem:
        mem.ingest([projects])
        (wife,) = mem.facts(relation="wife")
        assert [s.via for s in wife.sources] == ["typed"] and len(model.requests) == 1


@pytest.mark.parametrize(
    "fact",
    [
        {
            "subject": "user",
            "relation": "lives_in",
            "object": "Lisbon",
            "quote": PORTO,
            "confidence": 0.9,
        },  # not in text
        {
            "subject": "user",
            "relation": "lives_in",
            "object": "port",
            "quote": PORTO,
            "confidence": 0.9,
        },  # part of a word
        {"subject": "user", "relation": "favourite_city", "object": "porto", "quote": PORTO, "confidence": 0.9},
        {"subject": "maria", "relation": "lives_in", "object": "porto", "quote": PORTO, "confidence": 0.9},
        {"subject": "user:boss", "relation": "lives_in", "object": "porto", "quote": PORTO, "confidence": 0.0},
    ],
)
def test_output_the_text_does_not_hold_is_dropped(tmp_path: Path, fact: dict[str, Any]) -> None:
    model = FunctionModel(lambda req: json.dumps({"facts": [fact]}))
    with closing(Store(tmp_path / "db.sqlite")) as store:
        reader = ModelReader(model, store)
        assert reader(PORTO) == []
        assert reader.stats.dropped == 1 and reader.stats.calls == 1
        assert reader(PORTO) == [] and len(model.requests) == 1  # the checked (empty) read is cached


def test_a_good_read_keeps_the_persons_spelling_and_is_capped(tmp_path: Path) -> None:
    fact = {"subject": "USER", "relation": "lives_in", "object": "PORTO.", "quote": PORTO, "confidence": 1.0}
    model = FunctionModel(lambda req: json.dumps({"facts": [fact, fact]}))
    with closing(Store(tmp_path / "db.sqlite")) as store:
        reader = ModelReader(model, store)
        (cand,) = reader(PORTO)
        assert (cand.subject, cand.relation, cand.object, cand.quote) == ("user", "lives_in", "Porto", PORTO)
        assert cand.confidence == MODEL_CONFIDENCE_CAP
        assert reader(PORTO) == [cand] and reader.stats.cache_hits == 1


@pytest.mark.parametrize(
    "output",
    [
        "I think the person lives in Porto.",
        '{"facts": "Porto"}',
        '{"facts": [{"subject": "user", "relation": "lives_in", "object": 7, "quote": "", "confidence": 1}]}',
        '{"facts": [{"subject": "user", "relation": "lives_in", "object": "porto", "confidence": "high"}]}',
        '["porto"]',
        "",
    ],
)
def test_malformed_output_is_dropped_counted_and_read_once(
    tmp_path: Path, output: str, caplog: pytest.LogCaptureFixture
) -> None:
    model = FakeModel([output])
    with closing(Store(tmp_path / "db.sqlite")) as store:
        reader = ModelReader(model, store)
        assert reader(PORTO) == []
        assert reader.stats.malformed == 1 and reader.stats.facts == 0
        assert "malformed" in caplog.text
        assert reader(PORTO) == [] and len(model.requests) == 1


def test_malformed_output_never_breaks_a_derive(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    _write(projects, S1, [_user(S1, "u-1", "my wife ines says hi. " + PORTO, "2026-05-01T10:00:00Z")])
    with _mem(tmp_path / "home", FakeModel(["{not json"])) as mem:
        mem.ingest([projects])
        assert [f.object for f in mem.facts(relation="wife")] == ["Ines"]  # the rules' facts stand
        assert mem.facts(relation="lives_in") == []


def test_failed_calls_are_not_cached_and_stop_after_a_few(tmp_path: Path) -> None:
    model = FakeModel([ModelTimeout("slow")] * 3 + ['{"facts": []}'])
    with closing(Store(tmp_path / "db.sqlite")) as store:
        reader = ModelReader(model, store, max_errors=3)
        for i in range(5):
            assert reader(f"{PORTO} {i}") == []
        assert reader.stats.errors == 3 and reader.stats.skipped == 2 and len(model.requests) == 3
        again = ModelReader(model, store)  # nothing was cached: a later derive tries again
        assert again(f"{PORTO} 0") == [] and len(model.requests) == 4


def test_untrusted_turns_are_never_sent_to_the_model(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    _write(
        projects,
        S1,
        [
            _user(S1, "u-1", HALF, "2026-05-01T10:00:00Z"),
            _assistant(S1, "a-1", ASSISTANT, "2026-05-01T10:00:05Z"),
            _user(S1, "u-2", "ok thanks, pasting bob's email below for context:\n" + EMAIL, "2026-05-01T10:01:00Z"),
            _user(S1, "u-3", EMAIL, "2026-05-01T10:02:00Z"),
        ],
    )
    _write(projects, S3, [_user(S3, "h-1", HEADLESS, "2026-05-01T11:00:00Z", headless=True)])
    model = _model()
    with _mem(tmp_path / "home", model) as mem:
        mem.ingest([projects])
        assert {s.id: s.kind for s in mem.sessions()}[S3] == "headless"
        shown = _shown(model.requests)
        assert sorted(shown) == sorted([HALF, "ok thanks, pasting bob's email below for context:"])
        for text in shown:
            for never in ("Marta", "Madrid", "clara", "lisbon", "Bob", "Pieter", "Rotterdam", "Nora"):
                assert never not in text, (never, text)
        assert all(f.object not in {"Clara", "Marta", "Pieter"} for f in mem.facts())
        for f in mem.facts():
            for s in f.sources:
                assert s.uuid in {"u-1", "u-2"}


def test_an_incremental_derive_sends_only_new_turns(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    _write(projects, S1, [_user(S1, "u-1", HALF, "2026-05-01T10:00:00Z")])
    model = _model()
    with _mem(tmp_path / "home", model) as mem:
        mem.ingest([projects])
        _write(
            projects,
            S1,
            [_user(S1, "u-1", HALF, "2026-05-01T10:00:00Z"), _user(S1, "u-2", PORTO, "2026-05-01T10:05:00Z")],
        )
        mem.ingest([projects])
        assert _shown(model.requests) == [HALF, PORTO]
        assert {f.relation for f in mem.facts()} == {"partner", "lives_in"}


def test_no_reader_backend_means_no_model_facts(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    _write(projects, S1, [_user(S1, "u-1", PORTO, "2026-05-01T10:00:00Z")])
    with _mem(tmp_path / "home", None) as mem:
        report = mem.ingest([projects])
        assert report.new_turns == 1 and mem.facts() == []


def _derived(home: Path, projects: Path, backend: Any) -> list[tuple[Any, ...]]:
    with _mem(home, backend) as mem:
        mem.ingest([projects])
        return [
            (
                f.id,
                f.subject,
                f.relation,
                f.object,
                f.confidence,
                f.status,
                tuple((s.uuid, s.quote, s.via) for s in f.sources),
            )
            for f in mem.facts()
        ]


def test_recorded_reads_replay_to_the_same_facts(tmp_path: Path, replay_backend: Callable[..., ReplayBackend]) -> None:
    projects = tmp_path / "projects"
    _write(
        projects, S1, [_user(S1, "u-1", PORTO, "2026-05-01T10:00:00Z"), _user(S1, "u-2", HALF, "2026-05-01T10:05:00Z")]
    )
    _write(projects, S2, [_user(S2, "u-3", HALF, "2026-06-01T10:00:00Z")])
    recordings = tmp_path / "recordings"
    model = _model()
    recorded = _derived(tmp_path / "home-1", projects, RecordingBackend(model, recordings))
    assert len(model.requests) == 2 and len(list(recordings.glob("*.json"))) == 2
    replayed = _derived(tmp_path / "home-2", projects, replay_backend(recordings))
    assert replayed == recorded
    assert {r[2] for r in recorded} == {"lives_in", "partner"}
    assert len(model.requests) == 2  # the replay never reached the model


def test_replay_misses_do_not_stop_the_reader_and_are_all_written(tmp_path: Path) -> None:
    misses = tmp_path / "misses.jsonl"
    with closing(Store(tmp_path / "db.sqlite")) as store:
        reader = ModelReader(ReplayBackend(tmp_path / "none", misses), store, max_errors=1)
        for i in range(4):
            assert reader(f"{PORTO} {i}") == []
        assert reader.stats.errors == 4 and reader.stats.skipped == 0
    lines = [json.loads(line) for line in misses.read_text().splitlines()]
    assert [m["prompt_name"] for m in lines] == ["reader"] * 4


def test_a_deleted_model_fact_stays_deleted_though_its_read_is_cached(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    _write(projects, S1, [_user(S1, "u-1", PORTO, "2026-05-01T10:00:00Z")])
    model = _model()
    with _mem(tmp_path / "home", model) as mem:
        mem.ingest([projects])
        (home,) = mem.facts(relation="lives_in")
        mem.delete_fact(home.id)
        report = mem.derive()
        assert mem.facts(relation="lives_in") == [] and report.suppressed == 1 and len(model.requests) == 1

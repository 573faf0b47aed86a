"""Pseudo-relevance feedback: the hybrid search is widened by the words its best full-text passages share."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from vyre_memory import Memory
from vyre_memory.ask.configs import get_config
from vyre_memory.ask.feedback import feedback_terms

NOW = datetime(2024, 1, 1, tzinfo=UTC)


def test_feedback_terms_are_words_the_top_passages_share_and_the_pool_rarely_has() -> None:
    top = [
        "The potluck is on Saturday, I'm bringing my lentil curry.",
        "Your lentil curry at the potluck last year was great!",
        "Saturday works for me.",
    ]
    pool = [*top, *(f"Saturday plans number {i}, nothing special" for i in range(20))]
    assert feedback_terms(top, pool, ["potluck", "bringing"], 3) == ["curry", "lentil", "saturday"]


def test_feedback_terms_never_repeat_a_question_word_or_a_stop_word() -> None:
    top = ["We really deployed the payments service", "we really deployed payments again"]
    assert feedback_terms(top, top, ["deploy", "payments"], 5) == []


def _conversation(path: Path) -> Path:
    filler = [
        {"speaker": "Sam", "dia_id": f"D1:{i}", "text": f"Work was busy again, meeting number {i} ran long."}
        for i in range(1, 31)
    ]
    data = {
        "speaker_a": "Maya",
        "speaker_b": "Sam",
        "session_1_date_time": "1:00 pm on 3 May, 2023",
        "session_1": filler,
        "session_2_date_time": "2:00 pm on 10 June, 2023",
        "session_2": [
            {"speaker": "Maya", "dia_id": "D2:1", "text": "The potluck is on Saturday, I'm bringing my lentil curry."},
            {"speaker": "Sam", "dia_id": "D2:2", "text": "Your lentil curry at the potluck last year was great!"},
        ],
        "session_3_date_time": "3:00 pm on 1 July, 2023",
        "session_3": [
            {
                "speaker": "Maya",
                "dia_id": "D3:1",
                "text": "I finally perfected that lentil curry recipe, coconut milk.",
            },
        ],
        "qa": [],
    }
    file = path / "conv.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    return file


@pytest.fixture()
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Memory:
    monkeypatch.setenv("VYRE_EMBEDDER", "hash")
    mem = Memory(tmp_path / "home", user_name="you")
    mem.ingest([_conversation(tmp_path)], format="locomo")
    yield mem
    mem.close()


def test_hybrid_finds_a_turn_by_the_words_its_best_matches_share(memory: Memory) -> None:
    question = "what's on the menu for the potluck?"
    hybrid = get_config("hybrid")
    without = replace(hybrid, feedback_terms=0)
    found = [p.uuids[0] for p in memory.retrieve(question, k=5, now=NOW, config=hybrid)]
    assert "conv:D3:1" in found  # "lentil curry", shared by both potluck turns (ids carry the file name)
    assert "conv:D3:1" not in [p.uuids[0] for p in memory.retrieve(question, k=5, now=NOW, config=without)]

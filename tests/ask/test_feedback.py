"""Pseudo-relevance feedback: the hybrid search is widened by the words its best full-text passages share."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.conftest import locomo_file

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
    return locomo_file(
        path / "conv.json",
        ("Maya", "Sam"),
        [
            (
                "2:00 pm on 10 June, 2023",
                [
                    ("Maya", "The potluck is on Saturday, I'm bringing my lentil curry."),
                    ("Sam", "Your lentil curry at the potluck last year was great!"),
                ],
            ),
            ("3:00 pm on 1 July, 2023", [("Maya", "I finally perfected that lentil curry recipe, coconut milk.")]),
        ],
        filler=30,
    )


@pytest.fixture()
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Memory:
    monkeypatch.setenv("VYRE_EMBEDDER", "hash")
    mem = Memory(tmp_path / "home", user_name="you")
    mem.ingest([_conversation(tmp_path)], format="locomo")
    yield mem
    mem.close()


def test_hybrid_finds_a_turn_by_the_words_its_best_matches_share(memory: Memory) -> None:
    question = "what's on the menu for the potluck?"
    hybrid = replace(get_config("hybrid"), conversation_feedback=0)  # the words' feedback alone, not the vectors'
    without = replace(hybrid, feedback_terms=0)
    found = [p.uuids[0] for p in memory.retrieve(question, k=5, now=NOW, config=hybrid)]
    assert "conv:D3:1" in found  # "lentil curry", shared by both potluck turns (ids carry the file name)
    assert "conv:D3:1" not in [p.uuids[0] for p in memory.retrieve(question, k=5, now=NOW, config=without)]

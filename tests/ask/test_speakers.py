"""The speaker prior: a question that names a speaker favours that speaker's own turns, in every
retrieval configuration, and never takes a tool, "you" or a lowercase name for a person."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.conftest import locomo_file

from vyre_memory import Memory
from vyre_memory.ask.configs import CONFIGS, get_config
from vyre_memory.ask.retrieve import _spoken_by_named
from vyre_memory.store.passages import PassageRow

NOW = datetime(2024, 1, 1, tzinfo=UTC)


def _conversation(path: Path) -> Path:
    return locomo_file(
        path / "conv.json",
        ("Maya", "Sam"),
        [
            (
                "2:00 pm on 10 June, 2023",
                [("Sam", "How was your weekend?"), ("Maya", "I went hiking at Pine Ridge with my sister.")],
            ),
            # Sam's turn says the question's words more often: full text alone ranks it first
            (
                "2:00 pm on 17 June, 2023",
                [
                    ("Sam", "Back at work today."),
                    ("Sam", "Maya said the hiking trip was great, hiking all day, hiking!"),
                ],
            ),
        ],
        filler=20,
    )


@pytest.fixture()
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Memory]:
    monkeypatch.setenv("VYRE_EMBEDDER", "hash")
    mem = Memory(tmp_path / "home", user_name="you")
    mem.ingest([_conversation(tmp_path)], format="locomo")
    yield mem
    mem.close()


def _first(memory: Memory, question: str, config: object) -> str:
    return memory.retrieve(question, k=3, now=NOW, config=config)[0].uuids[0]  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["bm25", "hybrid"])
def test_a_named_speakers_own_turn_comes_first(memory: Memory, name: str) -> None:
    config = get_config(name)
    assert _first(memory, "Where did Maya go hiking?", replace(config, speaker_weight=0.0)) == "conv:D3:2"
    assert _first(memory, "Where did Maya go hiking?", config) == "conv:D2:2"
    assert _first(memory, "where did maya go hiking", config) == "conv:D2:2"  # typed in lowercase
    assert _first(memory, "Where was Maya's hiking trip?", config) == "conv:D2:2"
    assert _first(memory, "Where did maya go hiking?", config) == "conv:D2:2"  # a capital opens it, no name has one


def test_every_configuration_has_the_prior() -> None:
    assert all(c.speaker_weight > 0 for c in CONFIGS.values())  # the ablations compare fusion, not priors


def _row(kind: str, name: str | None) -> PassageRow:
    return PassageRow(
        id=1, turn=1, session="s", seq=1, piece=0, uuids=("u",), kind=kind, ts=None, text="", name=name,
        role="user", tool_name=None, cwd=None, session_kind="interactive", title=None,
    )  # fmt: skip


def test_only_a_persons_proper_name_counts() -> None:
    assert _spoken_by_named(_row("typed", "Tim"), "What did Tim say?")
    assert _spoken_by_named(_row("typed", "Tim"), "was it tim's idea")  # lowercase, possessive
    assert _spoken_by_named(_row("typed", "Mary Ann"), "What did Mary Ann bake?")
    assert not _spoken_by_named(_row("tool_output", "Read"), "Read what?")  # a tool is no speaker
    assert not _spoken_by_named(_row("typed", "you"), "what did you say")  # "you" in a question is not the person
    assert not _spoken_by_named(_row("typed", None), "what did you say")
    assert not _spoken_by_named(_row("typed", "Tim"), "What did Timothy say?")  # whole words only
    assert _spoken_by_named(_row("typed", "Tim"), "What did tim say when I asked?")  # names written in lowercase
    assert not _spoken_by_named(_row("typed", "Will"), "What will Caroline do?")  # names capitalised, not this
    assert _spoken_by_named(_row("typed", "Will"), "what did will say")
    assert not _spoken_by_named(_row("typed", "May"), "May I see the ADR?")  # a verb opening the question
    assert _spoken_by_named(_row("typed", "Tim"), "Tim said what?")

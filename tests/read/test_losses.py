"""A thing the person had that is gone: said in one clause with its name or its kind, as done, in their own words."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.read.test_departures import _history

from vyre_memory import Memory
from vyre_memory.read.losses import lost


@pytest.mark.parametrize(
    ("text", "thing", "kind"),
    [
        ("friday a taxi went thru the red and hit us, corolla's written off. everyone fine", "Corolla Cross", "car"),
        ("we sold the honda last week, bus life now", "Honda Civic", "car"),
        ("car got totaled lol, nobody hurt", "Corolla", "car"),
        ("my laptop got stolen at the airport", "MacBook Pro", "laptop"),
        ("traded in the prius for something bigger", "Prius", "car"),
        ("the corolla’s been written off", "Corolla", ""),  # a curly apostrophe; by its name, the kind not given
        ("someone stole the car last night", "Corolla", "car"),
    ],
)
def test_a_loss_in_a_clause_with_the_thing_is_one(text: str, thing: str, kind: str) -> None:
    assert lost(text, thing, kind)


@pytest.mark.parametrize(
    ("text", "thing", "kind"),
    [
        ("thinking we might sell the car next year", "Corolla", "car"),  # a plan
        ("if the car is written off we get a new one", "Corolla", "car"),  # a case
        ("the car is not written off yet, insurance is still looking", "Corolla", "car"),  # not so
        ("her car was stolen from the station", "Corolla", "car"),  # someone else's
        ("sold 300 tickets to the meetup", "Corolla", "car"),  # not the thing
        ("insurance is still sorting the corolla", "Corolla", "car"),  # no loss said
        ("the car is fine, the bike got stolen", "Corolla", "car"),  # a loss in another clause
        ("car got totaled lol", "Corolla", ""),  # the kind counts only when given
        # someone else's, another sense of the words, not so, a question, a wish; a word of no kin in the name
        ("mum's car got stolen from the station", "Corolla", "car"),
        ("a car got stolen on our street", "Corolla", "car"),
        ("the dealer sold us on the warranty for the car", "Corolla", "car"),
        ("the car loan got written off", "Corolla", "car"),
        ("the car wasnt stolen, just towed", "Corolla", "car"),
        ("will the car get written off?", "Corolla", "car"),
        ("wish the corolla got stolen lol", "Corolla", "car"),
        ("new pro models sold out everywhere", "MacBook Pro", "laptop"),
    ],
)
def test_other_sentences_are_no_loss(text: str, thing: str, kind: str) -> None:
    assert not lost(text, thing, kind)


def test_a_car_said_gone_is_not_told_as_the_one_driven_now(tmp_path: Path) -> None:
    said = [
        ("we bought a toyota corolla today", "2026-02-20T10:00:00Z"),
        ("ok the report is sent", "2026-03-06T10:00:00Z"),
        ("a taxi hit us on friday, corolla's written off. everyone fine", "2026-04-17T10:00:00Z"),
        ("insurance is still sorting the corolla so we're borrowing a bakkie", "2026-04-21T10:00:00Z"),
    ]
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([_history(tmp_path, said)])
        before = mem.answer("what car do i drive", now="2026-03-10T10:00:00Z")
        assert before.answer is not None and "Corolla" in before.answer and before.via == "fact"
        after = mem.answer("what car do i drive now", now="2026-06-01T10:00:00Z")
        # the corolla named after its loss (while the insurance sorts it out) is still the one written off
        assert after.abstained and after.answer is None and after.sources == ()
        assert len(after.known) == 1 and after.known[0].endswith("Said: the car is gone.")

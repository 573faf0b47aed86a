"""A question asking which of a kind of tool ("which editor do i use", "what do we load test with") searches the
kind's known members too: the turn that names one in passing ("i edit this in helix") shares no word with it."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from tests.ask.moments import SHOP, found_by, memory_of, session

from vyre_memory.read.relations import category_members

NAMED = "also i write this repo in helix, add a languages.toml so the yaml schema loads"


LOAD_RUN = "A 2-minute locust run at 50 users gives p50 9 ms and p99 38 ms, no failures."


def _history(filler: str, said: tuple[str, str], root: Path) -> None:
    """Turns that share the question's words and name no tool (`filler`, numbered), then `said`: asked, answered."""
    work = session(root, SHOP, "work", 3)
    for i in range(15):
        work.user(filler.format(i))
        work.assistant(f"Done: {filler.format(i)}.")
    work.user(said[0])
    work.assistant(said[1])


EDITOR = partial(
    _history,
    "the product editor page {} should use the rich text field for descriptions",
    (NAMED, "Added the languages file with the schema mapping."),
)
LOAD = partial(
    _history,
    "the checkout test {} should load the saved cart before the payment step",
    ("how fast is the scoring endpoint now that the model loads once?", LOAD_RUN),
)


@pytest.mark.parametrize(
    ("history", "question", "named"),
    [(EDITOR, "which editor do i use", NAMED), (LOAD, "what do we load test with", LOAD_RUN)],
)
def test_asking_for_a_kind_finds_the_turn_naming_one(
    tmp_path: Path, history: Callable[[Path], None], question: str, named: str
) -> None:
    for memory in memory_of(tmp_path, history):
        assert named in found_by(memory, question, "hybrid")
        assert named not in found_by(memory, question, "hybrid-toolkinds")


def test_only_a_question_asking_for_a_kind_names_members() -> None:
    assert "helix" in category_members("what text editor am i on these days")
    assert "zsh" in category_members("which shell do i use")
    assert "colemak" in category_members("what keyboard layout am i typing on")
    assert category_members("which layout did the dashboard get") == []
    assert category_members("what did we change in the editor page") == []
    assert category_members("what's my wife's name") == []


def test_a_work_tool_kind_is_asked_for_by_its_use() -> None:
    assert "locust" in category_members("what did we load test the drill with")
    assert "gatling" in category_members("what did i use to load test the search endpoint")
    assert "zerolog" in category_members("what does the gateway log with")
    assert "opsgenie" in category_members("what do we page through now")
    assert "twilio" in category_members("which sms provider do we use")
    assert "fcm" in category_members("what do we use for push notifications now")
    assert "maplibre" in category_members("what map do we use on the claim screen")
    assert category_members("what does one sms reminder cost us") == []
    assert category_members("what did we set the page size to") == []
    assert category_members("what did we change in the logging config yesterday") == []

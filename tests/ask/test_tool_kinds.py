"""A question asking which of a kind of tool ("which editor do i use") searches the kind's known members too: the turn
that names one in passing ("i edit this in helix") shares no word with the question."""

from __future__ import annotations

from pathlib import Path

from tests.ask.moments import SHOP, found_by, memory_of, session

from vyre_memory.read.relations import category_members

NAMED = "also i write this repo in helix, add a languages.toml so the yaml schema loads"


def _history(root: Path) -> None:
    work = session(root, SHOP, "editor", 3)
    for i in range(15):  # turns that share the question's words and name no editor
        work.user(f"the product editor page {i} should use the rich text field for descriptions")
        work.assistant(f"The product editor page {i} now uses the rich text field.")
    work.user(NAMED)
    work.assistant("Added the languages file with the schema mapping.")



def test_which_editor_finds_the_turn_naming_one(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        question = "which editor do i use"
        assert NAMED in found_by(memory, question, "hybrid")
        assert NAMED not in found_by(memory, question, "hybrid-toolkinds")


def test_only_a_question_asking_for_a_kind_names_members() -> None:
    assert "helix" in category_members("what text editor am i on these days")
    assert "zsh" in category_members("which shell do i use")
    assert category_members("what did we change in the editor page") == []
    assert category_members("what's my wife's name") == []

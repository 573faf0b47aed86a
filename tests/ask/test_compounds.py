"""A question about a value, a tool, a file, a bug or a release names an identifier in words ("max replicas",
"roll back"): its adjacent words joined are searched too, for the turn that writes the identifier ("maxReplicas")
and shares no word with the question."""

from __future__ import annotations

from pathlib import Path

from tests.ask.moments import SHOP, found_by, memory_of, session

SET = "Done: maxReplicas is 16 in the prod values (0f2b6d1)."


def _history(root: Path) -> None:
    work = session(root, SHOP, "scaling", 3)
    for i in range(15):  # turns with the question's words apart, none of them the value
        work.user(f"the max size of report {i} should list the replicas of each service")
        work.assistant(f"Report {i} lists the replicas of each service, at most the max size.")
    work.user("raise the ceiling of the autoscaler for the season, 16 pods")
    work.assistant(SET)


def test_an_identifier_asked_in_words_finds_the_turn_that_writes_it(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        question = "what's the hpa max replicas now?"
        assert SET in found_by(memory, question, "hybrid")
        assert SET not in found_by(memory, question, "hybrid-compounds")

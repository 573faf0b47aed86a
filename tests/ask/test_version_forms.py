"""A version is written with a "v" as often as without ("v4.12.1", "4.12.1"), and the full-text index tells the
two apart ("v4" is not "4"): a question naming one form searches the other too."""

from __future__ import annotations

from pathlib import Path

from tests.ask.moments import SHOP, found_by, memory_of, session

TAGGED = "`v4.12.1` tagged. It goes out in thursday's change window at 21:00."


def _history(root: Path) -> None:
    work = session(root, SHOP, "hotfix", 3)
    for i in range(15):  # the question's other words, in turns that are not the answer
        work.user(f"the hotfix for report {i} should reach production with the next window")
        work.assistant(f"Report {i}'s hotfix is queued for production in the next window.")
    work.user("tag the idempotency fix")
    work.assistant(TAGGED)


def test_a_version_asked_without_its_v_finds_the_turn_that_writes_it_with_one(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        found = found_by(memory, "when did the 4.12.1 hotfix reach production?", "bm25")
        assert TAGGED in found, found

"""A question about a bug reads the assistant's reply to the best typed turns: the diagnosis that follows a report,
past the tool calls between, gains a share of the report's score."""

from __future__ import annotations

from pathlib import Path

from tests.ask.moments import NOW, SHOP, memory_of, session

from vyre_memory import Memory

DIAGNOSIS = "Capped at 256 MB; a batch of big PDFs peaks near 400 MB, and the OOM reaper ends it."


def _history(root: Path) -> None:
    work = session(root, SHOP, "export", 3)
    for i in range(12):  # turns on the export that share the question's words and diagnose nothing
        work.user(f"the invoice export should also write column {i}; stopping halfway through the list is fine")
        work.assistant(f"The invoice export now writes column {i} after the totals and stops at the list's end.")
    work.user("the nightly invoice export stops halfway through since monday, no error in the export log")
    call = work.tool_use("Bash", {"command": "journalctl -u export --since monday | tail -5"})
    work.tool_result(call, "Main process exited, status=9")
    work.assistant(DIAGNOSIS)
    work.user("raise it to 1 GB")
    work.assistant("Raised to 1 GB in deploy/export.yaml.")


def _score(memory: Memory, question: str, config: str, text: str) -> float:
    return next(p.score for p in memory.retrieve(question, k=30, now=NOW, config=config) if p.text == text)


def test_the_reply_to_a_bug_report_gains_for_a_question_about_the_bug(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        bug = "why did the nightly invoice export fail halfway?"
        assert _score(memory, bug, "hybrid", DIAGNOSIS) > 1.2 * _score(memory, bug, "hybrid-bugreplies", DIAGNOSIS)
        # a question of no bug reads no replies: the same passages, scored the same
        plain = "what does the nightly invoice export write?"
        assert memory.retrieve(plain, k=30, now=NOW) == memory.retrieve(
            plain, k=30, now=NOW, config="hybrid-bugreplies"
        )

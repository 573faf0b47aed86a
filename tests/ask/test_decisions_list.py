"""A question about a decision of the work searches the turns that took, settled or wrote one down
(`read.decisions`), kept by derive, as one more hybrid list: in scope, never for a question about the person's
life."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.ask.moments import ADMIN, SHOP, brought_by, derives_the_same, memory_of, session

from vyre_memory import Memory
from vyre_memory.read.derive import DECISIONS, moments_of

REVERSAL = "ADR-0009 is written: peak lag of 40 minutes, so ADR-0004 is marked superseded."


def _history(root: Path) -> None:
    queue = session(root, SHOP, "queue", 3)
    queue.user("the order emails need a queue. options: redis streams, sqs, or a postgres table")
    queue.assistant(
        "Redis needs one more service to run; SQS ties us to AWS; a Postgres table is enough at our volume."
    )
    queue.user("postgres table it is. write it down")
    call = queue.tool_use(
        "Write", {"file_path": f"{SHOP}/docs/adr/0004-email-queue.md", "content": "# ADR 0004: email queue"}
    )
    queue.tool_result(call, "File created")
    for i in range(12):  # sessions that work on the queue with nothing decided
        talk = session(root, SHOP, f"queue-work{i}", 4 + i)
        talk.user(f"add retry field {i} to the email queue table and the queue docs")
        talk.assistant(f"Added retry field {i} to the email queue table and documented it.")
    mail = session(root, SHOP, "mail", 17)
    mail.user("standup notes: ingrid pushed for a separate mail service so billing can reuse it later")
    mail.assistant("Noted. A separate service means its own deploy and its own queue consumer.")
    admin = session(root, ADMIN, "admin", 18)
    admin.user("let's go with server-side sorting for the admin tables")
    admin.assistant("Sorting now happens in the query.")
    later = session(root, SHOP, "queue-again", 19)
    later.user("the order emails are lagging behind at peak, write up the move to sqs")
    call = later.tool_use("Write", {"file_path": f"{SHOP}/docs/adr/0009-sqs.md", "content": "# ADR 0009: sqs"})
    later.tool_result(call, "File created")
    later.assistant(REVERSAL)
    home = session(root, SHOP, "home", 20)
    home.user("we decided to move to the coast next year, my wife found a house. anyway, bump the queue timeout")


@pytest.fixture()
def memory(tmp_path: Path) -> Iterator[Memory]:
    yield from memory_of(tmp_path, _history)


def _decisions(memory: Memory, question: str, config: str = "hybrid", **scope: object) -> list[str]:
    return brought_by(memory, "decisions", question, config, **scope)


def test_derive_keeps_the_choice_and_its_record(memory: Memory) -> None:
    texts = [m.text for m in moments_of(memory.store, DECISIONS)]
    assert any("postgres table it is" in t for t in texts) and any("0004-email-queue.md" in t for t in texts)
    assert not any("retry field" in t for t in texts)  # working on the queue decides nothing


def test_what_was_picked_is_found_through_the_decisions_list(memory: Memory) -> None:
    found = "\n".join(_decisions(memory, "what did we pick for the email queue?"))
    assert "postgres table it is" in found and "0004-email-queue.md" in found
    assert _decisions(memory, "what did we pick for the email queue?", config="hybrid-decisions") == []


def test_the_record_that_replaced_a_choice_is_found_through_the_decisions_list(memory: Memory) -> None:
    """The assistant's report that a record now supersedes another is a decision: "why did we drop X" finds it."""
    assert REVERSAL in _decisions(memory, "why did we drop the postgres email queue?")


def test_an_agent_gets_only_its_projects_decisions(memory: Memory) -> None:
    admin = _decisions(memory, "what did we decide about sorting?", agent_projects=[ADMIN])
    assert admin and not any("queue" in t for t in admin)


def test_a_question_about_the_persons_life_never_reads_the_list(memory: Memory) -> None:
    assert _decisions(memory, "where did we decide to move with my wife?") == []


def test_what_a_thing_uses_now_is_found_through_the_decision_that_chose_it(memory: Memory) -> None:
    """No decision word in the question: the list is read at a share of its weight (`decisions_state_share`)."""
    found = "\n".join(_decisions(memory, "what does the email queue run on now?"))
    assert "postgres table it is" in found
    assert _decisions(memory, "what does the email queue run on now?", config="hybrid-decisionstate") == []


def test_who_proposed_a_choice_is_found_through_the_proposal(memory: Memory) -> None:
    """A colleague's proposal the person reports starts a decision: "who pushed for X" reads the list."""
    assert any("ingrid pushed for" in t for t in _decisions(memory, "who pushed for a separate mail service?"))
    assert any("ingrid pushed for" in t for t in _decisions(memory, "what did ingrid want for the mail?"))


def test_a_question_about_anything_else_never_reads_the_list(memory: Memory) -> None:
    assert _decisions(memory, "which fields does the email queue table have?") == []


def test_an_incremental_derive_keeps_what_a_full_one_finds_and_an_old_store_is_derived_whole_once(
    memory: Memory, tmp_path: Path
) -> None:
    kept = len(moments_of(memory.store, DECISIONS))
    more = session(tmp_path / "projects", SHOP, "more", 20)
    more.user("ok, decision: the queue keeps 30 days of sent emails")
    assert derives_the_same(memory, DECISIONS, tmp_path / "projects") == kept + 1


def test_the_last_decision_about_a_topic_is_found_by_its_words_not_by_being_newest(
    memory: Memory, tmp_path: Path
) -> None:
    for i in range(10):  # newer decisions about other things
        other = session(tmp_path / "projects", SHOP, f"colours{i}", 20)
        other.user(f"let's go with palette {i} for the report charts")
    memory.ingest([tmp_path / "projects"])
    found = "\n".join(_decisions(memory, "what did we last decide for the email queue?"))
    assert "postgres table it is" in found

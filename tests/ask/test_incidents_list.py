"""A question about a bug, an error or a failure searches the turns that reported a problem or said what caused it
(`read.incidents`), kept by derive, as one more hybrid list: in the question's time window, in scope."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.ask.moments import ADMIN, SHOP, brought_by, derives_the_same, memory_of, session, subagent

from vyre_memory import Memory
from vyre_memory.read.derive import INCIDENTS, moments_of


def _history(root: Path) -> None:
    refund = session(root, SHOP, "refund", 3)
    refund.user("customers are getting 500 errors on refunds since the payments upgrade")
    call = refund.tool_use("Bash", {"command": "grep -rn idempotency src/"})
    refund.tool_result(call, "src/refunds.py:12: # no idempotency key yet")
    refund.assistant("Found it: the retry wrapper re-sends the refund without its idempotency key, so the retry fails.")
    refund.user("fix it")
    refund.assistant("Refunds now carry the key on every retry; a test covers the retried call.")
    for i in range(12):  # sessions that work on refunds with nothing broken
        talk = session(root, SHOP, f"refund-work{i}", 4 + i)
        talk.user(f"add field {i} to the refund payload and the refund export, and update the refund docs")
        talk.assistant(f"Added field {i} to the refund payload, the export and the docs; the refund tests pass.")
    admin = session(root, ADMIN, "admin", 18)
    admin.user("the admin login is failing for everyone since this morning")
    admin.assistant("Root cause: the session cookie is set for the old domain.")


@pytest.fixture()
def memory(tmp_path: Path) -> Iterator[Memory]:
    yield from memory_of(tmp_path, _history)


def _incidents(memory: Memory, question: str, config: str = "hybrid", **scope: object) -> list[str]:
    return brought_by(memory, "incidents", question, config, **scope)


def test_derive_keeps_the_reports_and_the_diagnoses(memory: Memory) -> None:
    texts = [m.text for m in moments_of(memory.store, INCIDENTS)]
    assert len(texts) == 4  # the report and the diagnosis, in each project
    assert sum("Found it" in t for t in texts) == 1 and sum("Root cause" in t for t in texts) == 1
    assert not any("refund payload" in t for t in texts)  # working on the code is not an incident


def test_what_caused_a_problem_is_found_through_the_incidents_list(memory: Memory) -> None:
    found = _incidents(memory, "what caused the refund errors?")
    assert found and "Found it" in found[0]
    assert _incidents(memory, "what caused the refund errors?", config="hybrid-incidents") == []


def test_a_time_window_keeps_the_incidents_inside_it(memory: Memory) -> None:
    found = "\n".join(_incidents(memory, "what broke last week?"))
    assert "Root cause" in found and "Found it" not in found


def test_an_agent_gets_only_its_projects_incidents(memory: Memory) -> None:
    admin = _incidents(memory, "what caused the login bug?", agent_projects=[ADMIN])
    assert admin and not any("refund" in t for t in admin)


def test_a_question_about_anything_else_never_reads_the_list(memory: Memory) -> None:
    assert _incidents(memory, "what fields does the refund export have?") == []


def test_an_incremental_derive_keeps_what_a_full_one_finds_and_an_old_store_is_derived_whole_once(
    memory: Memory, tmp_path: Path
) -> None:
    more = session(tmp_path / "projects", SHOP, "more", 20)
    more.user("the nightly report job throws an exception on empty days")
    more.assistant("There it is: the job divides by the day's order count.")
    assert derives_the_same(memory, INCIDENTS, tmp_path / "projects") == 6


def test_a_subagents_incident_is_keyed_by_its_brief(memory: Memory, tmp_path: Path) -> None:
    parent = session(tmp_path / "projects", SHOP, "nightly", 20)
    parent.user("look into the nightly job, send a helper")
    helper = subagent(parent, "a1b2c3d4e5f6a7b8c")
    helper.user("Find why the nightly stock sync stops halfway through the catalogue.")
    helper.assistant("Found it: the sync stops at the first product without a supplier code.")
    memory.ingest([tmp_path / "projects"])
    found = [m.text for m in moments_of(memory.store, INCIDENTS) if "Found it: the sync" in m.text]
    assert found and "nightly stock sync stops halfway" in found[0]  # the brief is what its session was asked

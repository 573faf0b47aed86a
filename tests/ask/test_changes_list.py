"""A question that asks for a value (or for no kind of thing understand names) searches the tool calls that changed a
value in a file (`read.changes`), kept by derive, as one more hybrid list: best by the question's words, the newest
among equals, in scope."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.ask.moments import ADMIN, SHOP, brought_by, derives_the_same, memory_of, session
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.read.derive import CHANGES, moments_of


def _edit(writer: TranscriptWriter, path: str, old: str, new: str) -> None:
    call = writer.tool_use("Edit", {"file_path": path, "old_string": old, "new_string": new})
    writer.tool_result(call, f"The file {path} has been updated.")


def _history(root: Path) -> None:
    first = session(root, SHOP, "mailer", 3)
    first.user("change the mailer chunks")
    _edit(first, f"{SHOP}/config/app.yml", "mailer:\n  chunk-size: 50", "mailer:\n  chunk-size: 100")
    first.assistant("Done.")
    for i in range(12):  # sessions that talk about the mailer and its chunks without changing them
        talk = session(root, SHOP, f"mailer-talk{i}", 4 + i)
        talk.user(f"why did mailer chunk {i} take so long? check the mailer logs for chunk size and timing")
        talk.assistant(f"Chunk {i} waited on a slow partner API; the mailer and its chunk size were fine.")
    later = session(root, SHOP, "mailer-again", 18)
    later.user("change the mailer chunks")  # the same words: the newer change comes first
    _edit(later, f"{SHOP}/config/app.yml", "mailer:\n  chunk-size: 100", "mailer:\n  chunk-size: 40")
    later.assistant("Done.")
    admin = session(root, ADMIN, "admin", 19)
    admin.user("sessions expire too soon in the admin")
    _edit(admin, f"{ADMIN}/settings.py", "SESSION_TTL_MINUTES = 30", "SESSION_TTL_MINUTES = 120")
    admin.assistant("Done.")


@pytest.fixture()
def memory(tmp_path: Path) -> Iterator[Memory]:
    yield from memory_of(tmp_path, _history)


def _changes(memory: Memory, question: str, config: str = "hybrid", **scope: object) -> list[str]:
    return brought_by(memory, "changes", question, config, **scope)


def test_derive_keeps_the_edits_that_change_a_value(memory: Memory) -> None:
    texts = [m.text for m in moments_of(memory.store, CHANGES)]
    assert len(texts) == 3 and sum("chunk-size" in t for t in texts) == 2
    assert any("SESSION_TTL_MINUTES = 120" in t for t in texts)


def test_a_value_is_found_through_the_changes_list_the_newest_first(memory: Memory) -> None:
    found = _changes(memory, "what's the mailer chunk size now?")
    assert len(found) == 2 and "chunk-size: 40" in found[0] and "chunk-size: 100" in found[1]
    assert _changes(memory, "what's the mailer chunk size now?", config="hybrid-changes") == []


def test_an_agent_gets_only_its_projects_changes(memory: Memory) -> None:
    admin = _changes(memory, "what is the session ttl in minutes?", agent_projects=[ADMIN])
    assert admin and all("SESSION_TTL" in t for t in admin)
    assert _changes(memory, "what's the mailer chunk size now?", agent_projects=[ADMIN]) == []


def test_a_question_of_no_kind_understand_names_reads_it_and_one_about_a_bug_or_a_life_never_does(
    memory: Memory,
) -> None:
    assert any("chunk-size: 40" in t for t in _changes(memory, "what does the mailer send in each chunk now?"))
    assert _changes(memory, "why was the mailer slow?") == []
    assert _changes(memory, "what size are my son's mailer chunks?") == []


def test_an_incremental_derive_keeps_what_a_full_one_finds_and_an_old_store_is_derived_whole_once(
    memory: Memory, tmp_path: Path
) -> None:
    more = session(tmp_path / "projects", SHOP, "more", 20)
    more.user("give the mailer more time")
    _edit(more, f"{SHOP}/config/app.yml", "  send-delay-ms: 5000", "  send-delay-ms: 2000")
    assert derives_the_same(memory, CHANGES, tmp_path / "projects") == 4


@pytest.mark.parametrize("passed", [False, True])
def test_an_edit_the_tool_refused_is_no_change_even_when_its_error_is_read_later(
    memory: Memory, tmp_path: Path, passed: bool
) -> None:
    """Also when another session's turns, read in the same ingest, came after the call (`passed`): a call is read
    again only while it is after the last typed or assistant turn."""
    root = tmp_path / "projects"
    refused = session(root, SHOP, "refused", 21)
    refused.user("raise the mailer retries")
    call = refused.tool_use(
        "Edit", {"file_path": f"{SHOP}/config/app.yml", "old_string": "  retries: 3", "new_string": "  retries: 9"}
    )
    if passed:
        other = session(root, SHOP, "talk-after", 22)  # its file is read after the call's
        other.user("what's in the mailer logs today?")
        other.assistant("Nothing new in the mailer logs.")
    memory.ingest([root])  # the call alone: kept until its output says otherwise
    assert any("retries: 9" in m.text for m in moments_of(memory.store, CHANGES))
    refused.tool_result(call, "<tool_use_error>String to replace not found in file.</tool_use_error>", is_error=True)
    refused.assistant("The file has no retries line; nothing changed.")
    memory.ingest([root])
    assert not any("retries: 9" in m.text for m in moments_of(memory.store, CHANGES))
    memory.derive()
    assert not any("retries: 9" in m.text for m in moments_of(memory.store, CHANGES))
    assert len(moments_of(memory.store, CHANGES)) == 3

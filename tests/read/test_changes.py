"""Which tool calls change a value in a file (`read.changes`), and their keys."""

from __future__ import annotations

import pytest

from vyre_memory.contract import ASSISTANT, TOOL_CALL, Turn
from vyre_memory.ingest.text import render_tool_input
from vyre_memory.read.changes import change_in, edited_lines

CWD = "/home/sam/code/shop-api"


def _call(name: str, tool_input: dict[str, object]) -> Turn:
    text = render_tool_input(name, tool_input)
    return Turn(1, "s1", 4, ("u1",), "assistant", TOOL_CALL, "", text, "2026-10-02T09:00:00.000Z", "interactive", CWD)


def _edit(old: str, new: str, path: str = f"{CWD}/config/app.yml") -> Turn:
    return _call("Edit", {"file_path": path, "old_string": old, "new_string": new, "replace_all": False})


@pytest.mark.parametrize(
    ("old", "new", "put_in"),
    [
        ("mailer:\n  chunk-size: 50", "mailer:\n  chunk-size: 100\n  workers: 4", ["chunk-size: 100"]),
        (
            "export const MAX_ITEMS = 12;",
            "export const MAX_ITEMS = 8; // was 12",
            ["export const MAX_ITEMS = 8; // was 12"],
        ),
        ("    for: 5m\n    severity: page", "    for: 10m\n    severity: page", ["for: 10m"]),
        ('deploymentTarget: "16.0"', 'deploymentTarget: "17.0"', ['deploymentTarget: "17.0"']),
        (
            "req.set_timeout(Duration::from_secs(5));",
            "req.set_timeout(Duration::from_secs(20));",
            ["req.set_timeout(Duration::from_secs(20));"],
        ),
    ],
)
def test_a_line_put_in_with_another_number_is_a_change(old: str, new: str, put_in: list[str]) -> None:
    assert edited_lines(_edit(old, new).text) == put_in


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('version = "1.3.1"', 'version = "1.4.0"'),  # a version bump is a release's
        ("# Changelog", "# Changelog\n\n## 1.4.0 (2026-02-12)\n- retries: 3"),  # lines added, none changed
        ("sleep(5)\nfoo()", "sleep(5)\nbar()"),  # the number stays
        ("total = 5 * price", "total = price * 5"),  # moved, not changed
        ("retries: 3", "attempts: 4"),  # another name: a rename, not a new value of the same thing
    ],
)
def test_anything_else_is_no_change(old: str, new: str) -> None:
    assert edited_lines(_edit(old, new).text) == []


def test_each_edit_of_a_multiedit_and_a_patch_are_read() -> None:
    multi = _call(
        "MultiEdit",
        {
            "file_path": f"{CWD}/a.py",
            "edits": [{"old_string": "a = 1", "new_string": "a = 2"}, {"old_string": "b()", "new_string": "c()"}],
        },
    )
    assert edited_lines(multi.text) == ["a = 2"]
    # a Codex apply_patch, as ingest/codex.py renders it: its patch is the call's "input"
    patch = "*** Begin Patch\n*** Update File: cfg/app.yml\n@@\n-  chunkSize: 50\n+  chunkSize: 100\n*** End Patch"
    codex = _call("apply_patch", {"input": patch})
    assert edited_lines(codex.text) == ["chunkSize: 100"]
    found = change_in(codex)
    assert found is not None and found.text == "app.yml chunk Size: 100"
    assert edited_lines(render_tool_input("Bash", {"command": "sed -i 's/50/100/' app.yml"})) == []


def test_the_key_names_the_file_the_line_in_words_and_the_sessions_request() -> None:
    found = change_in(_edit("mailer:\n  pollDelayMs: 5000", "mailer:\n  pollDelayMs: 2000"), lambda s: "poll faster")
    assert found is not None and found.seqs == (4,) and found.ts == "2026-10-02T09:00:00.000Z"
    assert found.text == "app.yml poll Delay Ms: 2000 poll faster"  # no project name: questions name it of many
    said = Turn(1, "s1", 5, ("u2",), "assistant", ASSISTANT, "", "chunk-size: 50 -> 100", None, "interactive", CWD)
    assert change_in(said) is None  # only a tool call changes a file

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
        ("server_type: cx21", "server_type: cx31", ["server_type: cx31"]),  # a number ending a name is a value too
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
        ("replicas: 1", "replicas: 1  # one scheduler, ever"),  # the same number, a comment added
        ('text.encode("utf-8-sig")', 'text.encode("utf-8")'),  # the number in the name stays
        ("ports:\n  - port: 80", "ports:\n  - port: 80\n  - port: 443"),  # a line added beside a kept one
    ],
)
def test_anything_else_is_no_change(old: str, new: str) -> None:
    assert edited_lines(_edit(old, new).text) == []


def test_a_changed_line_is_paired_with_the_line_it_replaces() -> None:
    old = "requests:\n  memory: 256Mi\nlimits:\n  memory: 512Mi"
    new = "requests:\n  memory: 512Mi\nlimits:\n  memory: 512Mi"
    assert edited_lines(_edit(old, new).text) == ["memory: 512Mi"]  # the same text as a line kept elsewhere


def test_a_field_the_rendering_cut_short_loses_its_last_line_only() -> None:
    # a comment above a kept setting shortened: the old string is cut inside the setting's number ("pool_size: 25 …")
    text = _edit("# " + "x" * 1484 + "\npool_size: 250", "# " + "x" * 1480 + "\npool_size: 250").text
    assert "pool_size: 25 …" in text and edited_lines(text) == []
    many = [{"old_string": f"limit_{i} = {i}", "new_string": f"limit_{i} = {i + 1}"} for i in range(60)]
    found = edited_lines(_call("MultiEdit", {"file_path": f"{CWD}/a.py", "edits": many}).text)
    assert 10 < len(found) < 60 and found[0] == "limit_0 = 1"  # the edits before the cut are read


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
    two = "*** Begin Patch\n*** Update File: a.yml\n-port: 8080\n*** Update File: b.yml\n+port: 9090\n*** End Patch"
    assert edited_lines(_call("apply_patch", {"input": two}).text) == []  # lines of two files are no pair
    written = _call("Write", {"file_path": f"{CWD}/docs/patching.md", "content": patch})
    assert edited_lines(written.text) == []  # a patch quoted in a document edits nothing
    assert edited_lines(render_tool_input("Bash", {"command": "sed -i 's/50/100/' app.yml"})) == []


def test_the_key_names_the_file_the_line_in_words_and_the_sessions_request() -> None:
    found = change_in(_edit("mailer:\n  pollDelayMs: 5000", "mailer:\n  pollDelayMs: 2000"), lambda s: "poll faster")
    assert found is not None and found.seqs == (4,) and found.ts == "2026-10-02T09:00:00.000Z"
    assert found.text == "app.yml poll Delay Ms: 2000 poll faster"  # no project name: questions name it of many
    said = Turn(1, "s1", 5, ("u2",), "assistant", ASSISTANT, "", "chunk-size: 50 -> 100", None, "interactive", CWD)
    assert change_in(said) is None  # only a tool call changes a file

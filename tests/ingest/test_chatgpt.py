"""ChatGPT exports: live branch first, other branches kept, trust labels, zip, malformed input."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from vyre_memory.contract import (
    ASSISTANT,
    META,
    THINKING,
    TOOL_CALL,
    TOOL_OUTPUT,
    TYPED,
    Cursor,
    ParseBatch,
)
from vyre_memory.ingest import claude_ai
from vyre_memory.ingest.chatgpt import FORMAT

try:
    from . import gen_sources as gen
except ImportError:
    import gen_sources as gen  # type: ignore[no-redef]

LIMIT = 1 << 20


def parse(path: Path) -> ParseBatch:
    return FORMAT.parse(path, Cursor(), max_line_bytes=LIMIT)


def test_registered_as_entry_point() -> None:
    names = {e.name: e for e in entry_points(group="vyre_memory.formats")}
    assert names["chatgpt"].load() is FORMAT
    assert FORMAT.incremental is False


@pytest.mark.parametrize("as_zip", [False, True])
def test_conversations_and_labels(tmp_path: Path, as_zip: bool) -> None:
    data = gen.chatgpt_export(3, seed=1)
    path = (
        gen.write_zip(tmp_path / "export.zip", data)
        if as_zip
        else gen.write_json(tmp_path / "conversations.json", data)
    )
    batch = parse(path)
    assert batch.whole_file is True
    assert batch.problems == []
    assert batch.skipped["empty conversation"] == 1
    assert [s.id for s in batch.sessions] == ["conv-1-0", "conv-1-1", "conv-1-2"]
    s = batch.sessions[0]
    assert s.title == "Chat 0" and s.cwd is None and s.format == "chatgpt"
    by_id = {t.uuids[0]: t for t in s.turns}
    p = "conv-1-0-"
    assert by_id[p + "ctx"].kind == META  # custom instructions, hidden
    assert by_id[p + "u1"].kind == TYPED and by_id[p + "u1"].role == "user"
    assert by_id[p + "think"].kind == THINKING
    assert by_id[p + "call"].kind == TOOL_CALL and by_id[p + "call"].tool_name == "python"
    assert by_id[p + "out"].kind == TOOL_OUTPUT and by_id[p + "out"].role == "tool"
    assert by_id[p + "a1"].kind == ASSISTANT
    assert by_id[p + "u2"].text == "[image]\nWhat is in this screenshot?"
    assert p + "sys" not in by_id  # the empty hidden system message
    assert by_id[p + "u1"].ts is not None and by_id[p + "u1"].ts.endswith("Z")
    assert by_id[p + "u1"].ts.startswith("2026-01-02T03:")
    assert all(t.line == 1 for t in s.turns)


def test_live_branch_first_then_other_branches(tmp_path: Path) -> None:
    path = gen.write_json(tmp_path / "conversations.json", [gen.chatgpt_conversation("c", branch=True)])
    [s] = parse(path).sessions
    ids = [t.uuids[0] for t in s.turns]
    assert ids == ["c-ctx", "c-u1", "c-think", "c-call", "c-out", "c-a1", "c-u2", "c-a2", "c-u2-edit", "c-a2-edit"]
    edit = s.turns[ids.index("c-u2-edit")]
    assert edit.kind == TYPED and edit.parent_uuid == "c-a1"  # the fork point is kept
    assert s.turns[ids.index("c-a2-edit")].parent_uuid == "c-u2-edit"


def test_current_node_on_the_other_branch(tmp_path: Path) -> None:
    conv = gen.chatgpt_conversation("c", branch=True)
    conv["current_node"] = "c-a2-edit"
    path = gen.write_json(tmp_path / "conversations.json", [conv])
    ids = [t.uuids[0] for t in parse(path).sessions[0].turns]
    assert ids == ["c-ctx", "c-u1", "c-think", "c-call", "c-out", "c-a1", "c-u2-edit", "c-a2-edit", "c-u2", "c-a2"]


def test_missing_current_node_and_cycles_are_survived(tmp_path: Path) -> None:
    conv = gen.chatgpt_conversation("c", branch=False)
    del conv["current_node"]
    cyc = gen.chatgpt_conversation("d", branch=False)
    cyc["mapping"]["d-root"]["parent"] = "d-a2"  # a loop through the root
    path = gen.write_json(tmp_path / "conversations.json", [conv, cyc])
    batch = parse(path)
    assert [s.id for s in batch.sessions] == ["c", "d"]
    assert len(batch.sessions[0].turns) == 8
    assert len({t.uuids[0] for t in batch.sessions[1].turns}) == 8


def test_reparse_is_stable(tmp_path: Path) -> None:
    path = gen.write_json(tmp_path / "conversations.json", gen.chatgpt_export(4, seed=3))
    a = [(s.id, [(t.uuids, t.kind, t.text, t.ts) for t in s.turns]) for s in parse(path).sessions]
    b = [(s.id, [(t.uuids, t.kind, t.text, t.ts) for t in s.turns]) for s in parse(path).sessions]
    assert a == b
    flat = [u for _, turns in a for us, *_ in turns for u in us]
    assert len(flat) == len(set(flat))


def test_the_saved_shape_with_a_branch(tmp_path: Path) -> None:
    conv = {
        "id": "conv-123",
        "title": "T",
        "create_time": 1704067200,
        "current_node": "m4",
        "mapping": {
            "m1": {
                "id": "m1",
                "parent": None,
                "children": ["m2"],
                "message": {
                    "id": "m1",
                    "author": {"role": "system"},
                    "create_time": 1704067200,
                    "content": {"content_type": "text", "parts": [""]},
                },
            },
            "m2": {
                "id": "m2",
                "parent": "m1",
                "children": ["m3", "m5"],
                "message": {
                    "id": "m2",
                    "author": {"role": "user"},
                    "create_time": 1704067300,
                    "content": {"content_type": "text", "parts": ["Hello"]},
                },
            },
            "m3": {
                "id": "m3",
                "parent": "m2",
                "children": ["m4"],
                "message": {
                    "id": "m3",
                    "author": {"role": "assistant"},
                    "create_time": 1704067350.5,
                    "content": {"content_type": "text", "parts": ["Hi"]},
                },
            },
            "m4": {
                "id": "m4",
                "parent": "m3",
                "children": [],
                "message": {
                    "id": "m4",
                    "author": {"role": "user"},
                    "create_time": None,
                    "content": {"content_type": "text", "parts": ["JS?"]},
                },
            },
            "m5": {
                "id": "m5",
                "parent": "m2",
                "children": [],
                "message": {
                    "id": "m5",
                    "author": {"role": "user"},
                    "create_time": 1704067450,
                    "content": {"content_type": "text", "parts": ["Python?"]},
                },
            },
        },
    }
    path = gen.write_json(tmp_path / "one.json", [conv])
    [s] = parse(path).sessions
    assert [t.uuids[0] for t in s.turns] == ["m2", "m3", "m4", "m5"]
    assert s.turns[0].ts == "2024-01-01T00:01:40.000Z"
    assert s.turns[1].ts == "2024-01-01T00:02:30.500Z"
    assert s.turns[2].ts is None


def test_malformed_conversations_are_problems(tmp_path: Path) -> None:
    good = gen.chatgpt_conversation("ok", branch=False)
    bad_msg = gen.chatgpt_conversation("bad", branch=False)
    bad_msg["mapping"]["bad-u1"]["message"]["author"] = "user"  # wrong type
    bad_msg["mapping"]["bad-a1"]["message"]["content"] = None
    bad_msg["mapping"]["bad-u2"] = ["not", "a", "node"]
    data = [good, 42, {"title": "no id", "mapping": {}}, {"id": "nomap"}, {"id": "strmap", "mapping": "x"}, bad_msg]
    path = gen.write_json(tmp_path / "conversations.json", data)
    batch = parse(path)
    assert [s.id for s in batch.sessions] == ["ok", "bad"]
    lines = sorted(p.line for p in batch.problems)
    assert lines == [2, 3, 4, 5, 6, 6, 6]
    assert "bad-u1" not in {t.uuids[0] for t in batch.sessions[1].turns}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b'{"a": 1', "not valid JSON"),
        (b'"just a string"', "not a JSON array"),
        (b"[{}, {", "not valid JSON"),
        (b'[{"id": "x", "mapping": {}}] trailing', None),
    ],
)
def test_broken_files_never_raise(tmp_path: Path, content: bytes, message: str | None) -> None:
    path = tmp_path / "conversations.json"
    path.write_bytes(content)
    batch = parse(path)
    assert isinstance(batch, ParseBatch)
    if message:
        assert any(message in p.message for p in batch.problems), batch.problems


def test_truncated_export_keeps_what_came_before(tmp_path: Path) -> None:
    text = json.dumps(gen.chatgpt_export(3, empty=False))
    second = text.index('"conv-0-1-root"')
    path = tmp_path / "conversations.json"
    path.write_text(text[: second + 500])
    batch = parse(path)
    assert [s.id for s in batch.sessions] == ["conv-0-0"]
    assert batch.problems and batch.problems[-1].line == 2


def test_zip_without_conversations(tmp_path: Path) -> None:
    path = gen.write_zip(tmp_path / "export.zip", [], member="")
    batch = parse(path)
    assert batch.sessions == []
    assert "no conversations.json" in batch.problems[0].message
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
    assert parse(tmp_path / "broken.zip").problems
    assert not FORMAT.sniff(tmp_path / "broken.zip")


def test_sniff_tells_the_exports_apart(tmp_path: Path) -> None:
    gpt = gen.write_json(tmp_path / "a" / "conversations.json", gen.chatgpt_export(1))
    gptzip = gen.write_zip(tmp_path / "a" / "chatgpt-export.zip", gen.chatgpt_export(1))
    cla = gen.write_json(tmp_path / "b" / "conversations.json", gen.claude_ai_export(1))
    clazip = gen.write_zip(tmp_path / "b" / "claude.zip", gen.claude_ai_export(1))
    assert FORMAT.sniff(gpt) and FORMAT.sniff(gptzip)
    assert not FORMAT.sniff(cla) and not FORMAT.sniff(clazip)
    assert claude_ai.FORMAT.sniff(cla) and claude_ai.FORMAT.sniff(clazip)
    assert not claude_ai.FORMAT.sniff(gpt)
    assert sorted(FORMAT.files(tmp_path)) == sorted([gpt, gptzip])
    assert sorted(claude_ai.FORMAT.files(tmp_path)) == sorted([cla, clazip])
    assert FORMAT.sniff(tmp_path / "a") and not FORMAT.sniff(tmp_path / "b")

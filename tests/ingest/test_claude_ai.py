"""Claude.ai exports: branches kept in order, attachments as PASTED, tools, uuids, malformed input."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

from vyre_memory.contract import (
    ASSISTANT,
    PASTED,
    THINKING,
    TOOL_CALL,
    TOOL_OUTPUT,
    TYPED,
    Cursor,
    ParseBatch,
)
from vyre_memory.ingest.claude_ai import FORMAT, ROOT_SENTINEL

try:
    from . import gen_sources as gen
except ImportError:
    import gen_sources as gen  # type: ignore[no-redef]

LIMIT = 1 << 20


def parse(path: Path) -> ParseBatch:
    return FORMAT.parse(path, Cursor(), max_line_bytes=LIMIT)


def test_registered_as_entry_point() -> None:
    names = {e.name: e for e in entry_points(group="vyre_memory.formats")}
    assert names["claude-ai"].load() is FORMAT
    assert FORMAT.incremental is False


@pytest.mark.parametrize("as_zip", [False, True])
def test_conversations_and_labels(tmp_path: Path, as_zip: bool) -> None:
    data = gen.claude_ai_export(3, seed=2)
    path = (
        gen.write_zip(tmp_path / "data.zip", data) if as_zip else gen.write_json(tmp_path / "conversations.json", data)
    )
    batch = parse(path)
    assert batch.whole_file is True
    assert batch.problems == []
    assert batch.skipped["empty conversation"] == 1
    assert [s.id for s in batch.sessions] == [c["uuid"] for c in data[:3]]
    s = batch.sessions[0]
    assert s.title == "Chat 0" and s.cwd is None and s.format == "claude-ai"
    conv = data[0]
    h1, a1 = conv["chat_messages"][0], conv["chat_messages"][1]
    kinds = [(t.kind, t.uuids[0]) for t in s.turns[:7]]
    assert kinds == [
        (TYPED, h1["uuid"]),
        (PASTED, f"{h1['uuid']}:attachment:0"),
        (THINKING, f"{a1['uuid']}:thinking:0"),
        (ASSISTANT, a1["uuid"]),
        (TOOL_CALL, f"{a1['uuid']}:tool_use:2"),
        (TOOL_OUTPUT, f"{a1['uuid']}:tool_result:3"),
        (ASSISTANT, f"{a1['uuid']}:text:1"),
    ]
    typed, pasted = s.turns[0], s.turns[1]
    assert typed.text == gen._PROMPTS[2] + "\n[screenshot.png]"
    assert "def load" not in typed.text  # the attachment is never the person's words
    assert pasted.role == "user" and pasted.text.startswith("[loader.py]\ndef load(rows):")
    call, out = s.turns[4], s.turns[5]
    assert call.tool_name == "web_search" and out.tool_use_id == call.tool_use_id
    assert out.text == "range(n) stops at n-1"
    assert typed.ts == h1["created_at"]
    assert typed.parent_uuid is None  # the root sentinel
    assert batch.skipped["content block token_budget"] == 2


def test_branches_kept_in_order(tmp_path: Path) -> None:
    conv = gen.claude_ai_conversation("c1", branch=True, extras=False)
    path = gen.write_json(tmp_path / "conversations.json", [conv])
    [s] = parse(path).sessions
    msgs = conv["chat_messages"]
    assert [t.uuids[0] for t in s.turns] == [m["uuid"] for m in msgs]
    assert [t.text for t in s.turns if t.kind == TYPED][1:] == [
        "Thanks! Also add a test.",
        "Thanks! Now make it faster.",
    ]
    # both edits answer the same assistant message
    a1 = msgs[1]["uuid"]
    assert [t.parent_uuid for t in s.turns if t.kind == TYPED][1:] == [a1, a1]


def test_text_field_used_when_content_is_missing(tmp_path: Path) -> None:
    conv = gen.claude_ai_conversation("c1", branch=False, extras=False)
    for m in conv["chat_messages"]:
        del m["content"]
    conv["chat_messages"][0]["files"] = [{"file_name": "plan.pdf"}]
    conv["chat_messages"][0]["attachments"] = [{"file_name": "empty.txt", "extracted_content": ""}]
    path = gen.write_json(tmp_path / "conversations.json", [conv])
    [s] = parse(path).sessions
    assert s.turns[0].text == gen._PROMPTS[0] + "\n[plan.pdf] [empty.txt]"
    assert [t.kind for t in s.turns] == [TYPED, ASSISTANT, TYPED, ASSISTANT]


def test_files_only_message_and_tool_results_without_ids(tmp_path: Path) -> None:
    conv = gen.claude_ai_conversation("c1", branch=False, extras=False)
    conv["chat_messages"][0].update(text="", content=[], files=[{"file_name": "photo.jpg"}])
    conv["chat_messages"][1]["content"] = [
        {"type": "tool_use", "name": "a", "input": {"q": 1}},
        {"type": "tool_use", "name": "b", "input": {"q": 2}},
        {"type": "tool_result", "name": "b", "content": "B"},
        {"type": "tool_result", "name": "a", "content": [{"type": "text", "text": "A"}], "is_error": True},
    ]
    path = gen.write_json(tmp_path / "conversations.json", [conv])
    [s] = parse(path).sessions
    assert s.turns[0].kind == TYPED and s.turns[0].text == "[photo.jpg]"
    calls = {t.tool_name: t.tool_use_id for t in s.turns if t.kind == TOOL_CALL}
    outs = {t.text: t for t in s.turns if t.kind == TOOL_OUTPUT}
    assert outs["A"].tool_use_id == calls["a"] and outs["A"].is_error
    assert outs["B"].tool_use_id == calls["b"]


def test_reparse_is_stable(tmp_path: Path) -> None:
    path = gen.write_json(tmp_path / "conversations.json", gen.claude_ai_export(4, seed=5))
    a = [(s.id, [(t.uuids, t.kind, t.text) for t in s.turns]) for s in parse(path).sessions]
    b = [(s.id, [(t.uuids, t.kind, t.text) for t in s.turns]) for s in parse(path).sessions]
    assert a == b
    flat = [u for _, turns in a for us, *_ in turns for u in us]
    assert len(flat) == len(set(flat))


def test_malformed_messages_are_problems(tmp_path: Path) -> None:
    good = gen.claude_ai_conversation("good", branch=False, extras=False)
    bad = gen.claude_ai_conversation("bad", branch=False, extras=True)
    msgs = bad["chat_messages"]
    del msgs[0]["uuid"]
    msgs[1]["sender"] = "robot"
    msgs[2]["content"] = "not a list"
    msgs[2]["text"] = 7
    msgs.append("not an object")
    msgs.append(dict(msgs[3]))  # a duplicate uuid
    data = [good, None, {"name": "no uuid", "chat_messages": []}, {"uuid": "x", "chat_messages": {}}, bad]
    path = gen.write_json(tmp_path / "conversations.json", data)
    batch = parse(path)
    assert [s.id for s in batch.sessions] == ["good", "bad"]
    assert sorted(p.line for p in batch.problems) == [2, 3, 4, 5, 5, 5, 5]
    assert batch.skipped["duplicate message uuid"] == 1
    assert [t.uuids[0] for t in batch.sessions[1].turns] == [msgs[3]["uuid"]]


def test_root_sentinel_constant() -> None:
    assert ROOT_SENTINEL == gen.ROOT_SENTINEL


def test_empty_export_and_empty_conversations(tmp_path: Path) -> None:
    path = gen.write_json(tmp_path / "conversations.json", [])
    batch = parse(path)
    assert batch.sessions == [] and batch.problems == []
    path = gen.write_json(tmp_path / "conversations.json", gen.claude_ai_export(0))
    batch = parse(path)
    assert batch.sessions == [] and batch.skipped == {"empty conversation": 1}

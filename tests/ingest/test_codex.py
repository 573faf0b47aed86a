"""Codex CLI rollouts: both layouts, de-duplication, trust labels, tool pairing, session kinds, cursors."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

from vyre_memory.contract import (
    AGENT_PROMPT,
    ASSISTANT,
    HEADLESS,
    INTERACTIVE,
    META,
    SUBAGENT,
    THINKING,
    TOOL_CALL,
    TOOL_OUTPUT,
    TYPED,
    Cursor,
    ParseBatch,
)
from vyre_memory.ingest.codex import FORMAT
from vyre_memory.ingest.labels import session_kind

try:
    from . import gen_sources as gen
except ImportError:
    import gen_sources as gen  # type: ignore[no-redef]

SID = "11111111-1111-4111-8111-111111111111"
LIMIT = 1 << 20


def parse(path: Path, cursor: Cursor | None = None) -> ParseBatch:
    return FORMAT.parse(path, cursor or Cursor(), max_line_bytes=LIMIT)


def write(tmp_path: Path, records: list[dict], sid: str = SID, **kw: object) -> Path:
    return gen.write_jsonl(gen.rollout_path(tmp_path, sid, **kw), records)  # type: ignore[arg-type]


def test_registered_as_entry_point() -> None:
    names = {e.name: e for e in entry_points(group="vyre_memory.formats")}
    assert names["codex"].load() is FORMAT
    assert FORMAT.incremental is True


def test_session_header_and_trust_labels(tmp_path: Path) -> None:
    path = write(tmp_path, gen.codex_records(SID, cwd="/home/dev/project", exchanges=2))
    batch = parse(path)
    assert batch.problems == []
    [session] = batch.sessions
    assert session.id == SID
    assert session.cwd == "/home/dev/project"
    assert session.git_branch == "main"
    assert session.version == "0.63.0"
    assert session.format == "codex"
    assert session_kind(session) == INTERACTIVE
    typed = [t for t in session.turns if t.kind == TYPED]
    assert [t.text for t in typed] == [gen._PROMPTS[0], gen._PROMPTS[1]]
    # injected context is META and never TYPED
    meta = [t.text for t in session.turns if t.kind == META]
    assert any(m.startswith("<permissions instructions>") for m in meta)
    assert any(m.startswith("# AGENTS.md instructions") for m in meta)
    assert any(m.startswith("<environment_context>") for m in meta)
    assert not any("<environment_context>" in t.text or "AGENTS.md" in t.text for t in typed)
    assert [t.text for t in session.turns if t.kind == ASSISTANT] == [gen._ANSWERS[0], gen._ANSWERS[1]]
    thinking = [t for t in session.turns if t.kind == THINKING]
    assert [t.text for t in thinking] == ["**Planning step 0**", "**Planning step 1**"]
    assert all("SECRET" not in t.text for t in session.turns)
    assert batch.skipped["unknown type future_record_kind"] == 1


def test_event_copies_are_stored_once(tmp_path: Path) -> None:
    path = write(tmp_path, gen.codex_records(SID, exchanges=3))
    batch = parse(path)
    texts = [t.text for t in batch.sessions[0].turns]
    for prompt in gen._PROMPTS[:3]:
        assert texts.count(prompt) == 1
    for answer in gen._ANSWERS[:3]:
        assert texts.count(answer) == 1
    # the kept copy is the response_item's: its line holds a response_item message
    lines = path.read_text().splitlines()
    for turn in batch.sessions[0].turns:
        if turn.kind in (TYPED, ASSISTANT):
            record = json.loads(lines[turn.line - 1])
            assert record["type"] == "response_item"
    assert batch.skipped["event_msg user_message (copy of a response_item)"] == 3
    assert batch.skipped["event_msg agent_message (copy of a response_item)"] == 3


def test_tool_calls_pair_with_outputs(tmp_path: Path) -> None:
    path = write(tmp_path, gen.codex_records(SID, exchanges=1))
    turns = parse(path).sessions[0].turns
    calls = {t.tool_use_id: t for t in turns if t.kind == TOOL_CALL}
    outputs = {t.tool_use_id: t for t in turns if t.kind == TOOL_OUTPUT}
    assert set(calls) == set(outputs) == {"call_0_shell", "call_0_patch", "call_0_local"}
    assert calls["call_0_shell"].tool_name == "shell"
    assert json.loads(calls["call_0_shell"].tool_input or "{}")["command"][-1] == "cat src/app/loader.py"
    assert "src/app/loader.py" in calls["call_0_shell"].paths
    assert calls["call_0_patch"].tool_name == "apply_patch"
    assert calls["call_0_patch"].paths[0] == "src/app/loader.py"
    assert calls["call_0_local"].tool_name == "local_shell"
    assert outputs["call_0_shell"].text.startswith("def load(rows)")
    assert outputs["call_0_shell"].tool_name == "shell"
    assert outputs["call_0_local"].is_error is True  # exit code 1
    assert outputs["call_0_shell"].is_error is False
    for call_id, out in outputs.items():
        assert turns.index(calls[call_id]) < turns.index(out)
        assert out.role == "tool" and calls[call_id].role == "assistant"


def test_a_patch_run_through_the_shell_is_the_patch_tools_call(tmp_path: Path) -> None:
    from vyre_memory.read.changes import edited_lines

    patch = "*** Begin Patch\n*** Update File: conf/pool.yaml\n@@\n-pool_size: 10\n+pool_size: 25\n*** End Patch"
    records = gen.codex_records(SID, exchanges=1)
    stamp = records[-1]["timestamp"]
    heredoc = f"apply_patch <<'EOF'\n{patch}\nEOF\n"
    for call_id, command in (
        ("call_argv", ["apply_patch", patch]),  # the patch as the command's one argument
        ("call_heredoc", ["bash", "-lc", heredoc]),  # the patch in a heredoc
        ("call_alias", ["applypatch", patch]),  # the other name Codex runs the patch tool by
        ("call_cat", ["bash", "-lc", "cat conf/pool.yaml"]),  # no patch: a shell call as before
    ):
        arguments = json.dumps({"command": command, "workdir": "/home/dev/project"})
        payload = {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call_id}
        records.append({"timestamp": stamp, "type": "response_item", "payload": payload})
    calls = {t.tool_use_id: t for t in parse(write(tmp_path, records)).sessions[0].turns if t.kind == TOOL_CALL}
    for call_id in ("call_argv", "call_heredoc", "call_alias"):
        call = calls[call_id]
        assert (call.tool_name, json.loads(call.tool_input or "{}")["input"]) == ("apply_patch", patch)
        assert call.paths[0] == "conf/pool.yaml"
        assert edited_lines(call.text) == ["pool_size: 25"]  # read as a change of a value, as the patch tool's is
    assert calls["call_cat"].tool_name == "shell" and edited_lines(calls["call_cat"].text) == []


def test_headless_exec_session(tmp_path: Path) -> None:
    path = write(tmp_path, gen.codex_records(SID, source="exec", originator="codex_exec", exchanges=1))
    [session] = parse(path).sessions
    assert session.headless_hint is True
    assert session_kind(session) == HEADLESS


def test_subagent_session(tmp_path: Path) -> None:
    parent = "33333333-3333-4333-8333-333333333333"
    source = {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1, "agent_nickname": "scout"}}}
    path = write(tmp_path, gen.codex_records(SID, source=source, exchanges=1))
    [session] = parse(path).sessions
    assert session.is_subagent is True
    assert session.parent_session == parent
    assert session.agent_id == "scout"
    assert session_kind(session) == SUBAGENT
    # a program wrote the subagent's prompt: never TYPED
    assert not [t for t in session.turns if t.kind == TYPED]
    assert [t.text for t in session.turns if t.kind == AGENT_PROMPT] == [gen._PROMPTS[0]]


def test_legacy_flat_layout(tmp_path: Path) -> None:
    sid = "22222222-2222-4222-8222-222222222222"
    path = gen.write_jsonl(
        tmp_path / "sessions" / f"rollout-2025-08-11T10-00-00-{sid}.jsonl", gen.codex_legacy_records(sid)
    )
    batch = parse(path)
    assert batch.problems == []
    [session] = batch.sessions
    assert session.id == sid
    assert session.git_branch == "legacy"
    kinds = [t.kind for t in session.turns]
    assert kinds == [META, TYPED, THINKING, TOOL_CALL, TOOL_OUTPUT, ASSISTANT]
    assert session.turns[3].tool_use_id == session.turns[4].tool_use_id == "call_legacy"
    assert all(t.ts is None for t in session.turns)
    assert batch.skipped["legacy state"] == 2


def test_uuids_stable_and_unique(tmp_path: Path) -> None:
    path = write(tmp_path, gen.codex_records(SID, exchanges=3))
    first = [t.uuids for t in parse(path).sessions[0].turns]
    second = [t.uuids for t in parse(path).sessions[0].turns]
    assert first == second
    flat = [u for us in first for u in us]
    assert len(flat) == len(set(flat))
    assert all(u.startswith(SID + ":") for u in flat)


def test_incremental_reads_match_one_full_read(tmp_path: Path) -> None:
    records = gen.codex_records(SID, exchanges=3)
    path = gen.rollout_path(tmp_path, SID)
    full = [(t.uuids, t.kind, t.text) for t in parse(write(tmp_path / "full", records)).sessions[0].turns]
    # append in three pieces, with a torn last line each time
    cursor = Cursor()
    got: list[tuple[list[str], str, str]] = []
    text = "".join(json.dumps(r) + "\n" for r in records)
    cuts = [len(text) // 3 + 7, 2 * len(text) // 3 + 3, len(text)]
    path.parent.mkdir(parents=True)
    for cut in cuts:
        path.write_text(text[:cut])
        batch = parse(path, cursor)
        assert batch.problems == []
        for session in batch.sessions:
            assert session.id == SID  # known from the header even when line 1 is not in this batch
            assert session.cwd == "/home/dev/project"
            got.extend((t.uuids, t.kind, t.text) for t in session.turns)
        cursor = batch.end
    assert got == full
    assert cursor.offset == len(text.encode())
    # nothing new: an empty batch
    again = parse(path, cursor)
    assert all(not s.turns for s in again.sessions)


def test_malformed_lines_are_problems(tmp_path: Path) -> None:
    records = gen.codex_records(SID, exchanges=1)
    lines = [json.dumps(r) for r in records]
    lines.insert(5, "{not json")
    lines.insert(6, json.dumps([1, 2, 3]))
    lines.insert(7, json.dumps({"timestamp": "x", "type": "response_item", "payload": "oops"}))
    lines.insert(
        8, json.dumps({"timestamp": "x", "type": "response_item", "payload": {"type": "message", "role": "user"}})
    )
    lines.insert(9, json.dumps({"no_type": True}))
    path = tmp_path / "rollout-x.jsonl"
    path.write_text("\n".join(lines) + "\n")
    batch = parse(path)
    assert {p.line for p in batch.problems} == {6, 7, 8, 9, 10}
    assert batch.sessions[0].id == SID
    assert any(t.kind == TYPED for t in batch.sessions[0].turns)


def test_sniff_and_files(tmp_path: Path) -> None:
    a = write(tmp_path / ".codex", gen.codex_records(SID, exchanges=1))
    b = write(tmp_path / ".codex", gen.codex_records("44444444-4444-4444-8444-444444444444"), archived=True)
    (tmp_path / ".codex" / "history.jsonl").write_text('{"session_id":"x","ts":1,"text":"hi"}\n')
    assert FORMAT.sniff(tmp_path / ".codex")
    assert FORMAT.sniff(a)
    assert sorted(FORMAT.files(tmp_path / ".codex")) == sorted([a, b])
    other = tmp_path / "claude.jsonl"
    other.write_text('{"type":"user","sessionId":"s","parentUuid":null}\n')
    assert not FORMAT.sniff(other)
    assert not FORMAT.sniff(tmp_path / "missing.jsonl")


def test_compaction_search_images_and_raw_reasoning(tmp_path: Path) -> None:
    def item(payload: dict) -> dict:
        return {"timestamp": "2026-01-02T04:00:00.000Z", "type": "response_item", "payload": payload}

    records = gen.codex_records(SID, exchanges=1, unknown=False)
    records += [
        item({"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "ruff E501"}}),
        item({"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "raw thought"}]}),
        item({"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"}),
        item(
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
                    {"type": "input_text", "text": "see"},
                ],
            }
        ),
        {
            "timestamp": "2026-01-02T04:01:00.000Z",
            "type": "compacted",
            "payload": {"message": "Summary: fixed the loader."},
        },
        {
            "timestamp": "2026-01-02T04:02:00.000Z",
            "type": "compacted",
            "payload": {"message": "", "replacement_history": []},
        },
    ]
    batch = parse(write(tmp_path, records))
    turns = batch.sessions[0].turns[-5:]
    assert [t.kind for t in turns] == [TOOL_CALL, THINKING, TYPED, "compact_summary", META]
    assert turns[0].tool_name == "web_search" and "ruff E501" in turns[0].text
    assert turns[1].text == "raw thought"
    assert turns[2].text == "see [image]"
    assert turns[3].text == "Summary: fixed the loader."
    assert batch.skipped["reasoning without a summary"] == 1

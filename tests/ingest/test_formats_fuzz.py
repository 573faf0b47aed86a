"""Fuzzing the Codex, ChatGPT and Claude.ai parsers: mutated files never raise.

Each example takes a generated file of one format and mutates it (deleted keys, wrong types,
huge strings, truncation, flipped bytes, inserted garbage, for exports also inside a zip), then
checks that `sniff` answers, that `parse` returns a well-formed `ParseBatch`, and that parsing
the same bytes twice gives the same result. `VYRE_FUZZ_EXAMPLES` sets the examples per format
(300 by default; 10,000 in benchmark runs).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vyre_memory.contract import TURN_KINDS, Cursor, ParseBatch, ParsedSession, ParsedTurn
from vyre_memory.ingest import chatgpt, claude_ai, codex, exports

try:
    from . import gen_sources as gen
except ImportError:
    import gen_sources as gen  # type: ignore[no-redef]

EXAMPLES = int(os.environ.get("VYRE_FUZZ_EXAMPLES", "300"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FORMATS = (codex.FORMAT, chatgpt.FORMAT, claude_ai.FORMAT)
ROLES = {"user", "assistant", "tool", "system"}

CODEX_BASES = [
    gen.codex_records("11111111-1111-4111-8111-111111111111", exchanges=2, seed=0),
    gen.codex_records(
        "55555555-5555-4555-8555-555555555555",
        exchanges=1,
        seed=1,
        source={"subagent": {"thread_spawn": {"parent_thread_id": "p", "depth": 1, "agent_nickname": "n"}}},
    ),
    gen.codex_legacy_records(seed=2),
]
CHATGPT_BASES = [gen.chatgpt_export(2, seed=0), [gen.chatgpt_conversation("solo", branch=True)]]
CLAUDE_AI_BASES = [gen.claude_ai_export(2, seed=0), [gen.claude_ai_conversation("solo", branch=True)]]

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=30),
    st.sampled_from(["x" * 300_000, "\u0000\ud800", "00000000-0000-4000-8000-000000000000", "user", "assistant"]),
    st.lists(st.one_of(st.integers(), st.text(max_size=5)), max_size=4),
    st.dictionaries(st.sampled_from(["type", "text", "id", "role", "parent", "message"]), st.integers(), max_size=3),
)


def mutate_tree(data: st.DataObject, root: Any) -> Any:
    """Walk a random path down the JSON tree, then delete or replace what is there."""
    node, parent, key = root, None, None
    for _ in range(data.draw(st.integers(0, 9))):
        if isinstance(node, dict) and node:
            key = data.draw(st.sampled_from(sorted(node)))
        elif isinstance(node, list) and node:
            key = data.draw(st.integers(0, len(node) - 1))
        else:
            break
        parent, node = node, node[key]
    op = data.draw(st.sampled_from(["delete", "replace", "duplicate"]))
    if parent is None:
        return data.draw(VALUES) if op == "replace" else root
    if op == "delete":
        del parent[key]
    elif op == "replace":
        parent[key] = data.draw(VALUES)
    elif isinstance(parent, list):
        parent.append(json.loads(json.dumps(node)))
    return root


def mutate_bytes(data: st.DataObject, raw: bytes) -> bytes:
    buf = bytearray(raw)
    for _ in range(data.draw(st.integers(0, 3))):
        op = data.draw(st.sampled_from(["truncate", "flip", "insert", "none"]))
        if not buf:
            break
        at = data.draw(st.integers(0, len(buf) - 1))
        if op == "truncate":
            del buf[at:]
        elif op == "flip":
            buf[at] = data.draw(st.integers(0, 255))
        elif op == "insert":
            buf[at:at] = data.draw(st.sampled_from([b"\n", b"\x00", b"\xff\xfe", b"{", b'"', b"]", b",", b"\n{}\n"]))
    return bytes(buf)


def check(batch: Any) -> None:
    assert isinstance(batch, ParseBatch)
    assert isinstance(batch.end, Cursor)
    for session in batch.sessions:
        assert isinstance(session, ParsedSession)
        assert isinstance(session.id, str) and session.id
        seen: set[str] = set()
        for turn in session.turns:
            assert isinstance(turn, ParsedTurn)
            assert turn.kind in TURN_KINDS
            assert turn.role in ROLES
            assert isinstance(turn.text, str)
            assert turn.uuids and all(isinstance(u, str) and u for u in turn.uuids)
            assert not seen.intersection(turn.uuids), "a uuid twice in one session"
            seen.update(turn.uuids)
    for problem in batch.problems:
        assert isinstance(problem.line, int) and isinstance(problem.message, str)


def snapshot(batch: ParseBatch) -> str:
    return repr((batch.sessions, batch.problems, batch.skipped, batch.end))


def run_all(path: Path, fmt: Any, max_line_bytes: int, cursor: Cursor | None = None) -> None:
    for other in FORMATS:
        assert isinstance(other.sniff(path), bool)
        list(other.files(path))
    first = fmt.parse(path, cursor or Cursor(), max_line_bytes=max_line_bytes)
    check(first)
    second = fmt.parse(path, cursor or Cursor(), max_line_bytes=max_line_bytes)
    assert snapshot(first) == snapshot(second)


@FUZZ
@given(st.data())
def test_codex_never_raises(data: st.DataObject) -> None:
    records = json.loads(json.dumps(data.draw(st.sampled_from(CODEX_BASES))))
    for _ in range(data.draw(st.integers(0, 4))):
        records = mutate_tree(data, records)
    if isinstance(records, list):
        lines = [json.dumps(r, ensure_ascii=data.draw(st.booleans())) for r in records]
    else:
        lines = [json.dumps(records)]
    raw = mutate_bytes(data, ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass"))
    max_line_bytes = data.draw(st.sampled_from([64, 4096, 1 << 20]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
        path.write_bytes(raw)
        run_all(path, codex.FORMAT, max_line_bytes)
        # a later run starting mid-file (the cursor a previous run left, or a stale one)
        offset = data.draw(st.integers(0, len(raw) + 10))
        cursor = Cursor(offset, data.draw(st.integers(0, 50)), data.draw(st.sampled_from([None, "sid"])))
        run_all(path, codex.FORMAT, max_line_bytes, cursor)


def fuzz_export(data: st.DataObject, bases: list[Any], fmt: Any) -> None:
    convs = json.loads(json.dumps(data.draw(st.sampled_from(bases))))
    for _ in range(data.draw(st.integers(0, 5))):
        convs = mutate_tree(data, convs)
    text = json.dumps(convs, ensure_ascii=data.draw(st.booleans()), indent=data.draw(st.sampled_from([None, 1])))
    raw = text.encode("utf-8", "surrogatepass")
    as_zip = data.draw(st.booleans())
    with tempfile.TemporaryDirectory() as tmp:
        if as_zip:
            if data.draw(st.booleans()):
                raw = mutate_bytes(data, raw)
            member = data.draw(st.sampled_from(["conversations.json", "export/conversations.json", "other.json"]))
            blob = gen.zip_bytes(None, member="", others={member: raw})
            blob = mutate_bytes(data, blob) if data.draw(st.booleans()) else blob
            path = Path(tmp) / "export.zip"
            path.write_bytes(blob)
        else:
            path = Path(tmp) / "conversations.json"
            path.write_bytes(mutate_bytes(data, raw))
        run_all(path, fmt, 1 << 20)


@FUZZ
@given(st.data())
def test_chatgpt_never_raises(data: st.DataObject) -> None:
    fuzz_export(data, CHATGPT_BASES, chatgpt.FORMAT)


@FUZZ
@given(st.data())
def test_claude_ai_never_raises(data: st.DataObject) -> None:
    fuzz_export(data, CLAUDE_AI_BASES, claude_ai.FORMAT)


def test_export_record_over_the_limit_is_a_problem(tmp_path: Path) -> None:
    path = gen.write_json(tmp_path / "conversations.json", [{"id": "a"}, {"id": "b" * 5000}, {"id": "c"}])
    got = list(exports.read_export(path, 1000))
    assert got[0][1] == {"id": "a"}
    assert got[1][1] is exports.NO_VALUE and "limit" in (got[1][2] or "")
    assert len(got) == 2


def test_export_streams_big_records(tmp_path: Path) -> None:
    # records bigger than the read chunk are assembled across reads
    big = [{"id": str(i), "mapping": {}, "pad": "é" * 700_000} for i in range(3)]
    path = gen.write_json(tmp_path / "conversations.json", big)
    reader = exports.read_export(path, 1 << 24)
    ids = [value["id"] for _, value, _ in reader]
    assert ids == ["0", "1", "2"]
    assert reader.records == 3

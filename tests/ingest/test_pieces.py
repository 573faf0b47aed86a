"""Bounded memory: a JSON Lines file read in many small pieces stores exactly what one piece stores.

The runner reads a big file in pieces of about `piece_bytes` of input, writes each piece (its
turns and the position where it ends) in one transaction, and only then reads the next. These
tests shrink the piece to one byte (every record its own piece, but for the lines of one
streamed assistant message, which are never cut apart) and compare everything the store holds
with a one-piece read, for Claude Code and Codex; then they stop a run after every piece (as a
kill would) and check that resuming from the saved position still ends with the same turns.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from vyre_memory.contract import Cursor, ParsedTurn
from vyre_memory.eval.synth import SessionWriter, write_history
from vyre_memory.ingest import claude_code, codex
from vyre_memory.ingest.runner import IngestSettings
from vyre_memory.ingest.runner import ingest as run_ingest
from vyre_memory.store.sqlite import BatchResult, Store

try:
    from . import gen_sources as gen
except ImportError:
    import gen_sources as gen  # type: ignore[no-redef]

SAMPLES = Path("/work/shared/formats/samples")
LIMIT = 1 << 20
SID = "22222222-2222-4222-8222-222222222222"


# -- helpers -----------------------------------------------------------------------------------------
def streamed_session(root: Path, seed: int = 3) -> Path:
    """A session with streamed multi-line assistant messages (thinking, text, text, tool_use in one
    message), tool pairs, a compaction with its summary, a title, a slash command and reminders."""
    rng = random.Random(seed)
    cwd = "/home/sam/code/streamed"
    w = SessionWriter(cwd, SID, datetime(2026, 4, 1, 9, 0, tzinfo=UTC))
    w.lines.append({"type": "ai-title", "aiTitle": "Fix the flaky retry", "sessionId": SID})
    for n in range(12):
        w.user(f"round {n}: the retry in src/app/retry.py fails\n<system-reminder>r {n}</system-reminder>")
        tid = f"toolu_{seed}_{n:04d}"
        w.assistant(
            rng,
            [
                {"type": "thinking", "thinking": f"Round {n}: look at the retry loop first."},
                {"type": "text", "text": f"Looking at `src/app/retry.py` (round {n})."},
                {"type": "text", "text": "Then the tests in tests/test_retry.py."},
                {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": f"{cwd}/src/app/retry.py"}},
            ],
        )
        result = {"tool_use_id": tid, "type": "tool_result", "content": f"def retry():\n    pass  # {n}\n" * 20}
        w._envelope("user", {"message": {"role": "user", "content": [result]}, "toolUseResult": {"stdout": "x"}})
        w.tool(rng, "Bash", {"command": "pytest -q tests/test_retry.py"}, f"{n} passed\n" * 30)
        w.assistant(rng, [{"type": "text", "text": f"Done with round {n}."}, {"type": "text", "text": "All green."}])
        if n == 5:
            w._envelope("system", {"subtype": "compact_boundary", "content": "Conversation compacted"})
            w.user(
                "This session is being continued from a previous conversation. Summary: retries.", isCompactSummary=True
            )
            w.user("<command-name>/model</command-name>")
    return w.write(root / "-home-sam-code-streamed" / f"{SID}.jsonl")


def samples(root: Path) -> list[Path]:
    """The shared Claude Code samples (one project folder each) and a generated history."""
    out = []
    for src in sorted(SAMPLES.glob("*.jsonl")):
        if "rollout-" in src.name:
            continue
        dest = root / src.stem / src.name
        dest.parent.mkdir(parents=True)
        shutil.copy(src, dest)
        meta = src.with_suffix(".meta.json")
        if meta.exists():
            shutil.copy(meta, dest.with_suffix(".meta.json"))
        out.append(dest)
    return out


def codex_files(root: Path) -> list[Path]:
    files = [
        gen.write_jsonl(gen.rollout_path(root, SID), gen.codex_records(SID, exchanges=8)),
        gen.write_jsonl(
            gen.rollout_path(root, "33333333-3333-4333-8333-333333333333", day="2026/01/03"),
            gen.codex_legacy_records("33333333-3333-4333-8333-333333333333"),
        ),
    ]
    sample = next(SAMPLES.glob("*rollout-*.jsonl"), None)
    if sample is not None:
        dest = gen.rollout_path(root, "11111111-1111-4111-8111-111111111111", day="2026/01/04")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(sample, dest)
        files.append(dest)
    return files


class CountingStore(Store):
    """A store that counts its transactions and can stop the run after `stop_after` of them."""

    stop_after: int | None = None

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.writes = 0

    def write_batches(self, batches: Any) -> BatchResult:
        if self.stop_after is not None and self.writes >= self.stop_after:
            raise Stopped
        self.writes += 1
        return super().write_batches(batches)


class Stopped(Exception):
    """Stands for a kill between two pieces."""


def ingest_into(home: Path, paths: list[Path], piece_bytes: int | None, fmt: str | None = None) -> tuple[Any, int]:
    home.mkdir(parents=True, exist_ok=True)
    store = CountingStore(home / "memory.db")
    try:
        settings = IngestSettings(vyre_home=str(home), piece_bytes=piece_bytes)
        report = run_ingest(store, paths, settings, format_name=fmt)
        return report, store.writes
    finally:
        store.close()


def dump(db: Path) -> dict[str, Any]:
    """Everything the ingest step stores but row ids and write times, in a comparable form."""
    conn = sqlite3.connect(db)
    try:
        turns = conn.execute(
            "SELECT session, seq, uuids, role, kind, name, text, ts, tool_name, tool_input, tool_use_id, message_id,"
            " parent_uuid, paths, is_error FROM turns ORDER BY session, seq"
        ).fetchall()
        sessions = conn.execute("SELECT * FROM sessions ORDER BY id").fetchall()
        links = conn.execute("SELECT * FROM agent_links ORDER BY parent_session, agent_id").fetchall()
        uuids = conn.execute(
            "SELECT r.uuid, t.session, t.seq FROM record_uuids r JOIN turns t ON t.id = r.turn ORDER BY 1, 2, 3"
        ).fetchall()
        sources = conn.execute("SELECT path, format, offset, line, size, session, records FROM sources").fetchall()
        return {"turns": turns, "sessions": sessions, "links": links, "uuids": uuids, "sources": sorted(sources)}
    finally:
        conn.close()


def summary(report: Any) -> tuple:
    return (report.records, report.new_turns, report.new_sessions, sorted(report.problems), report.skipped)


# -- the parsers: pieces concatenate to the one-piece read --------------------------------------------
def _by_session(batches: list[Any]) -> dict[str, list[ParsedTurn]]:
    out: dict[str, list[ParsedTurn]] = {}
    for batch in batches:
        for s in batch.sessions:
            out.setdefault(s.id, []).extend(s.turns)
    return out


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
def test_parser_pieces_concatenate_to_one_piece(tmp_path: Path, fmt: str) -> None:
    if fmt == "claude-code":
        files = [streamed_session(tmp_path), *samples(tmp_path / "samples")]
        parser: Any = claude_code.FORMAT
    else:
        files = codex_files(tmp_path)
        parser = codex.FORMAT
    for path in files:
        whole = parser.parse(path, Cursor(), max_line_bytes=LIMIT)
        for budget in (1, 700, 5000):
            pieces = list(parser.pieces(path, Cursor(), max_line_bytes=LIMIT, max_bytes=budget))
            if budget == 1:
                assert len(pieces) > 1, path
            assert _by_session(pieces) == _by_session([whole]), (path, budget)
            assert sum(p.records for p in pieces) == whole.records
            assert [p for b in pieces for p in b.problems] == whole.problems
            assert pieces[-1].end == whole.end
            ends = [p.end.offset for p in pieces]
            assert ends == sorted(ends) and len(set(ends)) == len(ends), "every piece moves the cursor on"
            with path.open("rb") as f:
                data = f.read()
            assert all(data[e - 1 : e] == b"\n" for e in ends[:-1]), "pieces are cut at line ends"
            skipped: dict[str, int] = {}
            for p in pieces:
                for reason, n in p.skipped.items():
                    skipped[reason] = skipped.get(reason, 0) + n
            assert skipped == whole.skipped


def test_streamed_message_is_never_cut(tmp_path: Path) -> None:
    path = streamed_session(tmp_path)
    pieces = list(claude_code.FORMAT.pieces(path, Cursor(), max_line_bytes=LIMIT, max_bytes=1))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(pieces) > 50
    for batch in pieces[:-1]:
        last = json.loads(lines[batch.end.line - 1])
        following = json.loads(lines[batch.end.line])
        if last.get("type") == "assistant" and following.get("type") == "assistant":
            assert last["message"]["id"] != following["message"]["id"], f"cut inside a message at {batch.end}"
    joined = [t for t in _by_session(pieces)[SID] if t.kind == "assistant" and "\n" in t.text]
    assert len(joined) == 24  # "Looking at..." + "Then the tests..." and "Done..." + "All green." in every round


# -- the runner: many pieces store what one piece stores -----------------------------------------------
def test_claude_code_pieces_store_the_same_as_one_piece(tmp_path: Path) -> None:
    tree = tmp_path / "projects"
    streamed_session(tree)
    samples(tree / "samples")
    list(write_history(tree / "history", sessions=6, seed=11))
    one, one_writes = ingest_into(tmp_path / "one", [tree], piece_bytes=0)
    many, many_writes = ingest_into(tmp_path / "many", [tree], piece_bytes=1)
    assert many_writes > 10 * one_writes
    assert summary(many) == summary(one)
    assert dump(tmp_path / "many" / "memory.db") == dump(tmp_path / "one" / "memory.db")
    again, _ = ingest_into(tmp_path / "many", [tree], piece_bytes=1)
    assert again.new_turns == 0 and again.files_read == 0


def test_codex_pieces_store_the_same_as_one_piece(tmp_path: Path) -> None:
    tree = tmp_path / "sessions"
    codex_files(tree)
    one, one_writes = ingest_into(tmp_path / "one", [tree], piece_bytes=0, fmt="codex")
    many, many_writes = ingest_into(tmp_path / "many", [tree], piece_bytes=1, fmt="codex")
    assert many_writes > 10 * one_writes
    assert summary(many) == summary(one)
    assert dump(tmp_path / "many" / "memory.db") == dump(tmp_path / "one" / "memory.db")


def test_default_piece_keeps_small_files_in_one_transaction(tmp_path: Path) -> None:
    tree = tmp_path / "projects"
    list(write_history(tree, sessions=8, seed=5))
    report, writes = ingest_into(tmp_path / "h", [tree], piece_bytes=None)
    assert writes == 1 and report.problems == []


# -- a stop after every piece: each run resumes from the saved position ---------------------------------
def _resume_after_every_piece(home: Path, paths: list[Path], piece_bytes: int, fmt: str | None) -> int:
    home.mkdir(parents=True, exist_ok=True)
    runs = 0
    while True:
        runs += 1
        assert runs < 5000
        store = CountingStore(home / "memory.db")
        store.stop_after = 1
        try:
            run_ingest(store, paths, IngestSettings(vyre_home=str(home), piece_bytes=piece_bytes), format_name=fmt)
            return runs
        except Stopped:
            pass
        finally:
            store.close()


def _turns(db: Path) -> dict[str, list[tuple]]:
    """Turns per session; a resumed read may differ only in file paths found in joined text."""
    conn = sqlite3.connect(db)
    try:
        out: dict[str, list[tuple]] = {}
        for row in conn.execute(
            "SELECT session, seq, uuids, role, kind, name, text, ts, tool_name, tool_use_id, message_id, is_error"
            " FROM turns ORDER BY session, seq"
        ):
            out.setdefault(row[0], []).append(tuple(row[1:]))
        return out
    finally:
        conn.close()


def _sessions(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT id, kind, cwd, entrypoint, version, title, parent_session, agent_id, turn_count FROM sessions"
            " ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
def test_resume_at_any_line_gives_the_same_turns(tmp_path: Path, fmt: str) -> None:
    """Stopped after every piece (a piece per record), resumed with only the saved cursor: the
    session id, its cwd and kind, streamed messages (joined by the store), tool pairs (the output
    named from the stored call) and compaction come out as from one uninterrupted read."""
    tree = tmp_path / "src"
    path = streamed_session(tree) if fmt == "claude-code" else codex_files(tree)[0]
    ingest_into(tmp_path / "one", [path], piece_bytes=0, fmt=fmt)
    runs = _resume_after_every_piece(tmp_path / "resumed", [path], piece_bytes=1, fmt=fmt)
    assert runs > 20
    one, resumed = tmp_path / "one" / "memory.db", tmp_path / "resumed" / "memory.db"
    assert _turns(resumed) == _turns(one)
    assert _sessions(resumed) == _sessions(one)

"""Bad input to ingest: huge lines, non-UTF-8 and binary files, empty files, directories named
like files, torn last lines, --strict, and paths that do not exist. Real files, a real store."""

from __future__ import annotations

import json
import os
import random
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from vyre_memory import Memory
from vyre_memory.ingest.runner import IngestSettings
from vyre_memory.ingest.runner import ingest as run_ingest
from vyre_memory.store.sqlite import Store
from vyre_memory.surfaces.cli import main

SID = "22222222-2222-4222-8222-222222222222"


def line(n: int, content: object, rtype: str = "user", **extra: object) -> str:
    record = {
        "parentUuid": None,
        "isSidechain": False,
        "type": rtype,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-05-01T10:00:{n % 60:02d}.000Z",
        "cwd": "/home/sam/code/api",
        "sessionId": SID,
        "version": "2.1.248",
        "message": {"role": rtype, "content": content},
        **extra,
    }
    return json.dumps(record, separators=(",", ":"))


def make_home(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.toml").write_text('embedder = "none"\n', encoding="utf-8")
    return path


def session_file(tmp_path: Path, name: str = f"{SID}.jsonl") -> Path:
    f = tmp_path / "projects" / "-home-sam-code-api" / name
    f.parent.mkdir(parents=True, exist_ok=True)
    return f


def texts(home: Path) -> list[str]:
    with Memory(home) as mem:
        return [t.text for t in mem.turns(SID)]


def integrity_ok(home: Path) -> bool:
    conn = sqlite3.connect(home / "memory.db")
    try:
        return conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()


# -- huge lines -----------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_50_mb_record_is_stored_truncated_and_ingest_goes_on(tmp_path: Path) -> None:
    """A 50 MB line is under the 64 MB line limit: it is parsed and stored, its text cut to 200,000 chars."""
    f = session_file(tmp_path)
    big = [{"type": "tool_result", "tool_use_id": "toolu_big", "content": "x" * (50 << 20)}]
    with f.open("w", encoding="utf-8") as out:
        out.write(line(1, "read the big log") + "\n")
        out.write(line(2, big) + "\n")
        out.write(line(3, "after the big one") + "\n")
    assert f.stat().st_size > 50 << 20
    home = make_home(tmp_path / "home")
    store = Store(home / "memory.db")
    try:
        report = run_ingest(store, [f.parent], IngestSettings(vyre_home=str(home)))
    finally:
        store.close()
    assert report.problems == []
    stored = texts(home)
    assert stored[0] == "read the big log" and stored[-1] == "after the big one"
    assert len(stored[1]) == 200_000
    assert integrity_ok(home)


@pytest.mark.slow
def test_a_50_mb_junk_line_is_reported_and_later_lines_are_stored(tmp_path: Path) -> None:
    f = session_file(tmp_path)
    with f.open("wb") as out:
        out.write(line(1, "before").encode() + b"\n")
        out.write(b"{" + b"junk " * (10 << 20) + b"\n")  # 50 MB, not JSON
        out.write(line(3, "after").encode() + b"\n")
    home = make_home(tmp_path / "home")
    store = Store(home / "memory.db")
    try:
        report = run_ingest(store, [f.parent], IngestSettings(vyre_home=str(home)))
    finally:
        store.close()
    assert [p.split(": ", 1)[0] for p in report.problems] == [f"{f}:2"]
    assert "not valid JSON" in report.problems[0]
    assert texts(home) == ["before", "after"]


def test_a_line_over_the_limit_is_skipped_in_chunks_and_reported(tmp_path: Path) -> None:
    """Over `max_line_bytes` (64 MB by default; 1 MB here) a line is skipped unread and reported."""
    f = session_file(tmp_path)
    with f.open("w", encoding="utf-8") as out:
        out.write(line(1, "before") + "\n")
        out.write(line(2, "y" * (3 << 20)) + "\n")
        out.write(line(3, "after") + "\n")
    home = make_home(tmp_path / "home")
    store = Store(home / "memory.db")
    try:
        report = run_ingest(store, [f.parent], IngestSettings(vyre_home=str(home), max_line_bytes=1 << 20))
    finally:
        store.close()
    assert len(report.problems) == 1
    assert report.problems[0].startswith(f"{f}:2: line of ") and "over the 1,048,576-byte limit" in report.problems[0]
    assert texts(home) == ["before", "after"]


# -- files that are not transcripts ---------------------------------------------------------------------
def test_a_file_of_non_utf8_bytes(tmp_path: Path) -> None:
    f = session_file(tmp_path)
    rng = random.Random(5)
    junk = [bytes(rng.randrange(0x80, 0x100) for _ in range(rng.randint(1, 80))) for _ in range(20)]
    f.write_bytes(line(1, "good").encode() + b"\n" + b"\n".join(junk) + b"\n" + line(22, "also good").encode() + b"\n")
    with Memory(make_home(tmp_path / "home")) as mem:
        report = mem.ingest([f.parent])
    assert sorted(int(p.split(":")[1]) for p in report.problems) == list(range(2, 22))
    assert texts(tmp_path / "home") == ["good", "also good"]


def test_a_binary_file_named_jsonl(tmp_path: Path) -> None:
    """Random bytes with NULs and newlines: in a folder it is skipped by name (no known format),
    nothing stored, no crash; read as Claude Code by force, every non-blank line is reported."""
    good = session_file(tmp_path)
    good.write_text(line(1, "the only real prompt") + "\n", encoding="utf-8")
    binary = session_file(tmp_path, "33333333-3333-4333-8333-333333333333.jsonl")
    binary.write_bytes(random.Random(9).randbytes(200_000) + b"\n")
    with Memory(make_home(tmp_path / "home")) as mem:
        report = mem.ingest([good.parent])
        assert report.problems == [] and list(report.files_skipped) == [str(binary)]
        assert report.files_skipped[str(binary)].startswith("no known transcript format")
        forced = mem.ingest([binary], format="claude-code")
        stats = mem.stats()
    lines = [chunk for chunk in binary.read_bytes().split(b"\n") if chunk.strip()]
    bad = [p for p in forced.problems if p.startswith(str(binary))]
    assert len(bad) == len(lines) > 100
    assert stats["turns"]["total"] == 1
    assert integrity_ok(tmp_path / "home")


def test_an_empty_file(tmp_path: Path) -> None:
    f = session_file(tmp_path)
    f.write_bytes(b"")
    other = session_file(tmp_path, "44444444-4444-4444-8444-444444444444.jsonl")
    other.write_text(line(1, "another session") + "\n", encoding="utf-8")
    with Memory(make_home(tmp_path / "home")) as mem:
        report = mem.ingest([f.parent])
        assert (report.files_seen, report.records, report.new_turns, report.problems) == (2, 1, 1, [])
        assert mem.stats()["sessions"]["total"] == 1
        f.write_text(line(2, "now it has a line") + "\n", encoding="utf-8")
        assert mem.ingest([f.parent]).new_turns == 1


def test_an_empty_file_alone_is_skipped_as_empty(tmp_path: Path) -> None:
    """Pinned: a folder whose only transcript is empty reads nothing and says why; --format claude-code reads it."""
    f = session_file(tmp_path)
    f.write_bytes(b"")
    home = make_home(tmp_path / "home")
    result = CliRunner().invoke(main, ["ingest", str(f.parent), "--home", str(home), "--quiet"])
    assert result.exit_code == 0 and f"{f}: empty (nothing to read yet)" in result.output
    with Memory(home) as mem:
        report = mem.ingest([f.parent], format="claude-code")
    assert (report.files_seen, report.problems) == (1, [])


def test_a_tree_whose_first_files_are_empty_is_still_detected(tmp_path: Path) -> None:
    """Five just-created (empty) sessions sorting first make a whole projects tree undetectable."""
    tree = tmp_path / "projects"
    for i in range(5):
        empty = tree / "-home-sam-a" / f"0000000{i}-0000-4000-8000-000000000000.jsonl"
        empty.parent.mkdir(parents=True, exist_ok=True)
        empty.write_bytes(b"")
    f = session_file(tmp_path)
    f.write_text(line(1, "a real session") + "\n", encoding="utf-8")
    with Memory(make_home(tmp_path / "home")) as mem:
        report = mem.ingest([tree])
    assert report.new_turns == 1


def test_a_directory_named_x_jsonl(tmp_path: Path) -> None:
    """Inside a tree it is skipped; passed by itself it holds no transcripts (one line saying so)."""
    f = session_file(tmp_path)
    f.write_text(line(1, "real") + "\n", encoding="utf-8")
    folder = f.parent / "x.jsonl"
    folder.mkdir()
    (folder / "inner.txt").write_text("not a transcript", encoding="utf-8")
    home = make_home(tmp_path / "home")
    with Memory(home) as mem:
        report = mem.ingest([f.parent])
        assert report.problems == [] and report.files_seen == 1 and report.new_turns == 1
    result = CliRunner().invoke(main, ["ingest", str(folder), "--home", str(home), "--quiet"])
    assert result.exit_code == 0
    assert result.output.startswith(f"no transcripts under {folder} yet")
    assert "Traceback" not in result.output


# -- torn last line ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", ["small", "large"])  # under / over the 4 KB head that detects rewrites
def test_a_torn_last_line_completed_on_the_next_run_is_stored_once(tmp_path: Path, size: str) -> None:
    f = session_file(tmp_path)
    pad = "p" * (8000 if size == "large" else 10)
    full = line(2, "the torn prompt, finished later")
    f.write_text(line(1, "first " + pad) + "\n" + full[:40], encoding="utf-8")
    home = make_home(tmp_path / "home")
    with Memory(home) as mem:
        first = mem.ingest([f.parent])
        assert first.problems == [] and first.new_turns == 1  # the torn line is left for the next run
        with f.open("a", encoding="utf-8") as out:
            out.write(full[40:] + "\n" + line(3, "third") + "\n")
        second = mem.ingest([f.parent])
        assert second.problems == [] and second.new_turns == 2
        assert mem.ingest([f.parent]).new_turns == 0
    assert texts(home) == ["first " + pad, "the torn prompt, finished later", "third"]


def test_a_torn_last_line_that_never_completes_is_never_reported(tmp_path: Path) -> None:
    """Pinned behaviour: a last line without newline that does not parse is read on no run, reported on none."""
    f = session_file(tmp_path)
    f.write_text(line(1, "ok") + "\n" + '{"type":"user","mess', encoding="utf-8")
    with Memory(make_home(tmp_path / "home")) as mem:
        assert mem.ingest([f.parent]).problems == []
        os.utime(f, (1, 1))  # looks changed: read again from the stored position
        again = mem.ingest([f.parent])
    assert again.problems == [] and again.new_turns == 0


# -- the CLI ------------------------------------------------------------------------------------------------
def test_strict_exits_1_with_a_message_and_keeps_the_good_records(tmp_path: Path) -> None:
    f = session_file(tmp_path)
    f.write_text(line(1, "good one") + "\n" + "{not json\n" + line(3, "good two") + "\n", encoding="utf-8")
    home = make_home(tmp_path / "home")
    result = CliRunner().invoke(main, ["ingest", "--strict", str(f.parent), "--home", str(home), "--quiet"])
    assert result.exit_code == 1
    assert "1 bad record(s)" in result.output and f"{f}:2" in result.output and "without --strict" in result.output
    assert "Traceback" not in result.output
    assert texts(home) == ["good one", "good two"]


def test_strict_with_clean_input_exits_0(tmp_path: Path) -> None:
    f = session_file(tmp_path)
    f.write_text(line(1, "good") + "\n", encoding="utf-8")
    home = make_home(tmp_path / "home")
    result = CliRunner().invoke(main, ["ingest", "--strict", str(f.parent), "--home", str(home), "--quiet"])
    assert result.exit_code == 0, result.output


def test_a_path_that_does_not_exist_is_one_line_that_says_what_to_do(tmp_path: Path) -> None:
    home = make_home(tmp_path / "home")
    missing = tmp_path / "nope" / "projects"
    result = CliRunner().invoke(main, ["ingest", str(missing), "--home", str(home)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert str(missing) in lines[0] and "does not exist" in lines[0] and "vyre ingest PATH" in lines[0]
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)

"""A folder that mixes formats, and files or folders that cannot be read: each file is detected by
its own content, the report says how many files of each format were read and which were skipped
and why, and nothing is lost or misread in silence. Real files, a real store."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.ingest.test_sources_end_to_end import chatgpt, claude_ai, claude_code, codex

from vyre_memory import Memory
from vyre_memory.surfaces.cli import main

root_reads_everything = pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads files whatever their mode"
)


WRITE_ONLY = Path("/proc/sys/vm/compact_memory")  # mode 0200: not even root may read it


def unreadable_file(path: Path) -> Path:
    """A file at `path` this user cannot read: mode 0, or for root a link to a write-only kernel file."""
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):
        path.write_text("{}", encoding="utf-8")
        path.chmod(0)
        return path
    try:
        WRITE_ONLY.open("rb").close()
    except PermissionError:
        path.symlink_to(WRITE_ONLY)
        return path
    except OSError:
        pass
    pytest.skip(f"root reads files whatever their mode, and {WRITE_ONLY} is not here to stand in")


def make_home(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.toml").write_text('embedder = "none"\nuser_name = "Sam"\n', encoding="utf-8")
    return path


def mixed_folder(tmp_path: Path) -> Path:
    """Four formats side by side in one flat folder, under names that hint at none of them."""
    made = tmp_path / "made"
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(next((claude_code(made)).rglob("*.jsonl")), folder / "one-session.jsonl")
    shutil.copy(codex(made), folder / "copied-rollout-from-laptop.jsonl")
    shutil.copy(chatgpt(made), folder / "gpt-export-march.json")
    shutil.copy(claude_ai(made), folder / "web-chats.json")
    (folder / "agent-x.meta.json").write_text('{"agentType": "Explore"}', encoding="utf-8")
    (folder / "notes.jsonl").write_text('{"hello": "not a transcript"}\n', encoding="utf-8")
    (folder / "fresh.jsonl").write_bytes(b"")
    return folder


FILES = {
    "one-session.jsonl": "claude-code",
    "copied-rollout-from-laptop.jsonl": "codex",
    "gpt-export-march.json": "chatgpt",
    "web-chats.json": "claude-ai",
}


def test_a_mixed_folder_reads_every_file_with_its_own_format(tmp_path: Path) -> None:
    folder = mixed_folder(tmp_path)
    with Memory(make_home(tmp_path / "home")) as mem:
        report = mem.ingest([folder])
        sessions = mem.sessions()
        stored = {name: mem.store.source_state(str(folder / name)) for name in FILES}
    assert report.files_by_format == {"claude-code": 1, "codex": 1, "chatgpt": 1, "claude-ai": 1}
    assert report.files_read == 4 and report.files_seen == 6
    assert report.files_skipped == {
        str(folder / "fresh.jsonl"): "empty (nothing to read yet)",
        str(folder / "notes.jsonl"): "no known transcript format (vyre ingest --format NAME FILE reads it as one)",
    }
    assert {name: state.format if state else None for name, state in stored.items()} == FILES
    assert len(sessions) == 4 and not any(reason.startswith("unknown type") for reason in report.skipped)


def test_the_ingest_summary_lists_files_per_format_and_each_skipped_file(tmp_path: Path) -> None:
    folder = mixed_folder(tmp_path)
    result = CliRunner().invoke(main, ["ingest", str(folder), "--home", str(make_home(tmp_path / "home")), "-q"])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("read 4 of 6 files (chatgpt 1, claude-ai 1, claude-code 1, codex 1)")
    assert f"  {folder / 'notes.jsonl'}: no known transcript format" in result.output
    assert f"  {folder / 'fresh.jsonl'}: empty (nothing to read yet)" in result.output


def test_an_unreadable_file_in_a_folder_is_skipped_by_name_with_what_to_do(tmp_path: Path) -> None:
    folder = mixed_folder(tmp_path)
    locked = unreadable_file(folder / "locked.jsonl")
    with Memory(make_home(tmp_path / "home")) as mem:
        report = mem.ingest([folder])
    assert report.files_skipped[str(locked)] == (
        f"cannot read (Permission denied); give yourself access (chmod u+r '{locked}') and ingest again"
    )
    assert report.files_read == 4


def test_an_unreadable_file_given_by_name_is_an_error_naming_it(tmp_path: Path) -> None:
    locked = unreadable_file(tmp_path / "locked.jsonl")
    result = CliRunner().invoke(main, ["ingest", str(locked), "--home", str(make_home(tmp_path / "home")), "-q"])
    assert result.exit_code == 1
    assert f"cannot read {locked}: cannot read (Permission denied); give yourself access" in result.output


def test_an_empty_transcripts_folder_is_not_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "projects"
    empty.mkdir()
    result = CliRunner().invoke(main, ["ingest", str(empty), "--home", str(make_home(tmp_path / "home")), "-q"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == (
        f"no transcripts under {empty} yet: Claude Code writes one per session; "
        "after your first session run vyre ingest again"
    )


@root_reads_everything
def test_an_unreadable_folder_inside_is_named_and_one_given_by_name_is_an_error(tmp_path: Path) -> None:
    folder = mixed_folder(tmp_path)
    inner = folder / "-home-sam-code-locked"
    inner.mkdir()
    inner.chmod(0)
    try:
        with Memory(make_home(tmp_path / "home")) as mem:
            report = mem.ingest([folder])
        assert report.files_skipped[str(inner)].startswith("folder cannot be read (Permission denied)")
        result = CliRunner().invoke(main, ["ingest", str(inner), "--home", str(tmp_path / "home"), "-q"])
        assert result.exit_code == 1 and "chmod u+rx" in result.output
    finally:
        inner.chmod(0o755)

"""Fuzzing the Claude Code reader: thousands of mutated transcripts, one real store.

Bases are small generated sessions (subagents included) and the saved real samples in
../shared/formats/samples. Each file gets a few seeded mutations: torn, flipped and inserted
bytes, invalid UTF-8, NUL bytes, binary junk, values of the wrong type, deleted keys,
duplicated and swapped lines, JSON that is not an object, deep nesting, very long strings.

Ingest must never raise; every line that is not a UTF-8 JSON object must be reported with its
file and 1-based line number; the database must pass its integrity checks; ingesting the same
files again (also through another path, so every byte is read again) must add nothing.

VYRE_FUZZ_FILES raises the count (default 2,000); VYRE_FUZZ_SEED changes the seed.
The same campaign runs from bench/fuzz_ingest.py with a count argument.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLES

from vyre_memory import Memory
from vyre_memory.eval.synth import write_history
from vyre_memory.ingest.runner import IngestSettings
from vyre_memory.ingest.runner import ingest as run_ingest

FILES = int(os.environ.get("VYRE_FUZZ_FILES", "2000"))
SEED = int(os.environ.get("VYRE_FUZZ_SEED", "4242"))

_TYPES = [
    "user",
    "assistant",
    "system",
    "attachment",
    "queue-operation",
    "summary",
    "ai-title",
    "custom-title",
    "progress",
    "file-history-snapshot",
    "no-such-type",
]
_KEYS = [
    "message",
    "content",
    "timestamp",
    "type",
    "uuid",
    "parentUuid",
    "sessionId",
    "cwd",
    "isSidechain",
    "agentId",
    "toolUseResult",
    "isMeta",
    "isCompactSummary",
    "subtype",
    "attachment",
    "operation",
    "entrypoint",
]
_INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xf0\x28\x8c\xbc", b"\xc0\xaf"]


@dataclass
class Campaign:
    files: int = 0
    lines: int = 0
    mutated_lines: int = 0
    bad_lines: int = 0  # lines that are not UTF-8 JSON objects, each must be reported
    torn_files: int = 0
    problems: int = 0
    records: int = 0
    new_turns: int = 0
    seconds: float = 0.0
    crashes: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # bad lines not reported, "path:line"
    stray: list[str] = field(default_factory=list)  # problems naming no file or a line out of range


# -- bases -------------------------------------------------------------------------------------------
def bases(workdir: Path, seed: int) -> list[tuple[str, list[bytes]]]:
    """(relative path, lines) of every base transcript: small generated sessions and the real samples."""
    tree = workdir / "bases"
    out = []
    for path in write_history(tree, sessions=40, seed=seed, exchanges=(1, 3)):
        out.append((str(path.relative_to(tree)), path.read_bytes().splitlines()))
    if SAMPLES.is_dir():
        for path in sorted(SAMPLES.glob("*.jsonl")):
            name = path.name.split("__")[-1]
            if name.startswith("rollout-"):
                continue  # a Codex rollout, not a Claude Code transcript
            if name.startswith("subagent-"):
                name = "agent-" + name[len("subagent-") :]
            out.append((f"-samples/{name}", path.read_bytes().splitlines()))
    return out


# -- mutations ---------------------------------------------------------------------------------------
def _wrong_value(rng: random.Random) -> Any:
    choices: list[Any] = [
        "error",
        42,
        -1,
        1.5e308,
        None,
        True,
        False,
        [],
        {},
        [1, "x", None, 2.5],
        {"type": 7},
        {"text": 9},
        [{"type": "text"}, {"type": "tool_result", "content": 5}, "plain", 3, None],
        "x" * rng.randint(0, 300),
        {"type": "tool_use", "id": 1, "name": [], "input": "notadict"},
        "\u2028\u0000\ufeff",
    ]
    return rng.choice(choices)


def _containers(value: Any, depth: int = 0) -> list[Any]:
    found = [value] if isinstance(value, dict | list) and value else []
    if depth < 6:
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
        for child in children:
            found += _containers(child, depth + 1)
    return found


def _mutate_value(record: Any, rng: random.Random) -> Any:
    """Replace, delete or retype something inside a parsed record."""
    if not isinstance(record, dict):
        return _wrong_value(rng)
    roll = rng.random()
    containers = _containers(record)
    if roll < 0.25 or not containers:
        key = rng.choice(_KEYS)
        record[key] = _wrong_value(rng)
        return record
    if roll < 0.35:
        record["type"] = rng.choice(_TYPES)
        return record
    target = rng.choice(containers)
    if isinstance(target, dict):
        key = rng.choice(list(target))
        if rng.random() < 0.4:
            del target[key]
        else:
            target[key] = _wrong_value(rng)
    else:
        index = rng.randrange(len(target))
        if rng.random() < 0.3:
            del target[index]
        else:
            target[index] = _wrong_value(rng)
    return record


def _deep(rng: random.Random) -> bytes:
    depth = rng.choice([500, 2000, 20000])
    if rng.random() < 0.5:
        return b"[" * depth + b"]" * depth
    inner = b'{"a":' * depth + b"1" + b"}" * depth
    return b'{"type":"user","message":{"role":"user","content":' + inner + b"}}"


def mutate_line(line: bytes, rng: random.Random) -> list[bytes]:
    """One mutation of one line; returns the lines that replace it (zero, one or more)."""
    roll = rng.randrange(16)
    if roll == 0 and line:  # truncate
        return [line[: rng.randrange(len(line))]]
    if roll == 1 and line:  # flip bytes
        data = bytearray(line)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
            if data[i] in (10, 13):
                data[i] = 0x21
        return [bytes(data)]
    if roll == 2:  # insert random bytes
        i = rng.randrange(len(line) + 1)
        junk = bytes(b for b in rng.randbytes(rng.randint(1, 12)) if b not in (10, 13))
        return [line[:i] + junk + line[i:]]
    if roll == 3:  # invalid UTF-8 inside a string or anywhere
        i = rng.randrange(len(line) + 1)
        return [line[:i] + rng.choice(_INVALID_UTF8) + line[i:]]
    if roll == 4:  # NUL bytes
        i = rng.randrange(len(line) + 1)
        return [line[:i] + b"\x00" * rng.randint(1, 3) + line[i:]]
    if roll == 5:  # a binary junk line before this one
        junk = bytes(b for b in rng.randbytes(rng.randint(1, 200)) if b not in (10, 13))
        return [junk, line]
    if roll in (6, 7, 8, 9):  # wrong types, deleted keys, retyped records
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            return [line]
        for _ in range(rng.randint(1, 3)):
            record = _mutate_value(record, rng)
        return [json.dumps(record, ensure_ascii=rng.random() < 0.5, separators=(",", ":")).encode()]
    if roll == 10:  # duplicate
        return [line, line]
    if roll == 11:  # not an object
        return [rng.choice([b"[1,2,3]", b"42", b'"a string"', b"null", b"true", b"[]", b'[{"type":"user"}]', b"1e999"])]
    if roll == 12:  # deeply nested
        return [_deep(rng)]
    if roll == 13:  # very long string value
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            return [line]
        if isinstance(record, dict) and isinstance(record.get("message"), dict):
            record["message"]["content"] = "long " * rng.choice([2000, 50_000, 400_000])
        return [json.dumps(record).encode()]
    if roll == 14:  # blank, whitespace, CRLF
        return [rng.choice([b"", b"   ", b"\t", line + b"\r"]), line]
    return []  # drop the line


def mutate_file(lines: list[bytes], rng: random.Random) -> tuple[list[bytes], bool]:
    """A mutated copy of a file's lines, and whether its last line is left without a newline."""
    out = list(lines)
    for _ in range(rng.randint(1, 4)):
        if out and rng.random() < 0.12:  # swap two lines
            i, j = rng.randrange(len(out)), rng.randrange(len(out))
            out[i], out[j] = out[j], out[i]
            continue
        i = rng.randrange(len(out)) if out else 0
        replacement = mutate_line(out[i] if out else b"", rng)
        out[i : i + 1] = replacement
    torn = bool(out) and rng.random() < 0.08
    if torn:
        out[-1] = out[-1][: max(1, len(out[-1]) // 2)]
    return out, torn


def is_json_object(line: bytes) -> bool | None:
    """The oracle: True for a UTF-8 JSON object, None for a blank line, False for anything else."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if not text.strip():
        return None
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


# -- the campaign ------------------------------------------------------------------------------------
_PROBLEM = re.compile(r"^(.*\.jsonl):(\d+): ")
_UUID_HEAD = re.compile(rb"[0-9a-f]{8}(?=-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")


_ID_KEYS = ("uuid", "parentUuid", "sessionId", "session_id", "leafUuid", "logicalParentUuid")


def own_ids(data: bytes, n: int) -> bytes:
    """Give a copy its own session and record ids (the first 8 hex digits of a uuid become the
    file's number; ids of other shapes, as in some saved samples, get a suffix)."""
    data = _UUID_HEAD.sub(f"{n:08x}".encode(), data)
    if not data.startswith(b"{"):
        return data
    try:
        record = json.loads(data)
    except (ValueError, RecursionError):
        return data
    if not isinstance(record, dict):
        return data
    changed = False
    holders = [record, record.get("message")]
    for holder in holders:
        if not isinstance(holder, dict):
            continue
        for key in (*_ID_KEYS, "id"):
            value = holder.get(key)
            if isinstance(value, str) and not _UUID_HEAD.match(value.encode()):
                holder[key] = f"{value}.{n}"
                changed = True
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() if changed else data


def write_campaign(
    workdir: Path, count: int, seed: int, shared: float = 0.0
) -> tuple[Path, dict[str, set[int]], dict[str, int], Campaign]:
    """Write `count` mutated files; returns the tree, each file's bad line numbers and line counts.

    Each copy gets its own uuids, except a `shared` fraction that keeps the base's (the same
    session and records met again in another file, as after a resume). Shared copies are off
    by default while the duplicate-line bug (test_duplicate_assistant_line_in_a_later_run) is open.
    """
    rng = random.Random(seed)
    sources = bases(workdir, seed)
    tree = workdir / "fuzz"
    bad: dict[str, set[int]] = {}
    sizes: dict[str, int] = {}
    stats = Campaign()
    for n in range(count):
        rel, lines = sources[rng.randrange(len(sources))]
        base_rel = rel
        if rng.random() >= shared:
            rel = own_ids(rel.encode(), n + 1).decode()
            lines = [own_ids(line, n + 1) for line in lines]
        mutated, torn = mutate_file(lines, rng)
        original = set(lines)
        stats.mutated_lines += sum(1 for line in mutated if line not in original)
        # each file in its own project folder (a subagent keeps its subagents/ layout)
        path = tree / f"p{n:05d}" / rel.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        body = b"\n".join(mutated) + (b"" if torn or not mutated else b"\n")
        path.write_bytes(body)
        meta = workdir / "bases" / Path(base_rel).with_suffix(".meta.json")
        if meta.exists() and rng.random() < 0.8:
            target = path.with_suffix(".meta.json")
            if rng.random() < 0.3:
                target.write_bytes(rng.choice([b"[]", b"{", b'{"agentType": 5, "toolUseId": []}', b"\xff\xfe"]))
            else:
                shutil.copy(meta, target)
        checked = mutated[:-1] if torn else mutated  # a torn last line is left for the next run
        bad[str(path)] = {i for i, line in enumerate(checked, 1) if is_json_object(line) is False}
        sizes[str(path)] = len(mutated)
        stats.files += 1
        stats.lines += len(mutated)
        stats.bad_lines += len(bad[str(path)])
        stats.torn_files += torn
    return tree, bad, sizes, stats


def integrity(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("INSERT INTO turns_fts (turns_fts) VALUES ('integrity-check')")
        orphans = conn.execute("SELECT COUNT(*) FROM turns WHERE session NOT IN (SELECT id FROM sessions)")
        assert orphans.fetchone()[0] == 0
        dangling = conn.execute("SELECT COUNT(*) FROM record_uuids WHERE turn NOT IN (SELECT id FROM turns)")
        assert dangling.fetchone()[0] == 0
    finally:
        conn.close()


def run_campaign(workdir: Path, count: int, seed: int, shared: float = 0.0) -> Campaign:
    """Write, ingest, re-ingest; collects what went wrong instead of raising (the bench prints it)."""
    tree, bad, sizes, stats = write_campaign(workdir, count, seed, shared)
    home = workdir / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('embedder = "none"\n', encoding="utf-8")
    started = time.perf_counter()
    with Memory(home) as mem:
        # the ingest step itself (Memory.ingest also indexes passages and derives facts afterwards)
        settings = IngestSettings(vyre_home=str(home))
        try:
            report = run_ingest(mem.store, [tree], settings, format_name="claude-code")
        except Exception as exc:  # the campaign is here to find these
            stats.crashes.append(f"first ingest: {type(exc).__name__}: {exc}")
            return stats
        stats.seconds = time.perf_counter() - started
        stats.problems = len(report.problems)
        stats.records = report.records
        stats.new_turns = report.new_turns
        reported: dict[str, set[int]] = {}
        for problem in report.problems:
            match = _PROBLEM.match(problem)
            if not match or match.group(1) not in sizes or not 0 <= int(match.group(2)) <= sizes[match.group(1)]:
                stats.stray.append(problem)
                continue
            reported.setdefault(match.group(1), set()).add(int(match.group(2)))
        for path, lines in bad.items():
            stats.missing += [f"{path}:{n}" for n in sorted(lines - reported.get(path, set()))]
        for label, again_paths in (("re-ingest", [tree]), ("re-read through another path", [workdir / "alias"])):
            if label.startswith("re-read"):
                (workdir / "alias").symlink_to(tree)
            try:
                again = run_ingest(mem.store, again_paths, settings, format_name="claude-code")
            except Exception as exc:
                stats.crashes.append(f"{label}: {type(exc).__name__}: {exc}")
                continue
            if again.new_turns or again.new_sessions:
                stats.crashes.append(f"{label} added {again.new_turns} turns, {again.new_sessions} sessions")
    integrity(home / "memory.db")
    return stats


# -- tests -------------------------------------------------------------------------------------------
def test_oracle_knows_bad_lines() -> None:
    assert is_json_object(b'{"a": 1}') is True
    assert is_json_object(b"   ") is None
    for line in (b"[1]", b"42", b'{"a": "\xff"}', b"{", b"\x00", b"[" * 5000 + b"]" * 5000):
        assert is_json_object(line) is False


@pytest.mark.slow
def test_fuzzed_transcripts_never_crash_and_bad_lines_are_reported(tmp_path: Path) -> None:
    stats = run_campaign(tmp_path, FILES, SEED)
    assert stats.crashes == []
    assert stats.files >= 2000 or FILES < 2000
    assert stats.bad_lines > FILES // 2, "the mutations broke too few lines to mean anything"
    assert stats.missing == [], f"{len(stats.missing)} bad lines not reported, e.g. {stats.missing[:5]}"
    assert stats.stray == [], stats.stray[:5]
    assert stats.problems >= stats.bad_lines
    assert stats.new_turns > 0


def test_lone_surrogate_is_stored_or_reported(tmp_path: Path) -> None:
    f = tmp_path / "p" / "11111111-1111-4111-8111-111111111111.jsonl"
    f.parent.mkdir()
    f.write_text(
        '{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"cut emoji \\ud83d"}}\n'
        '{"type":"user","uuid":"u2","sessionId":"s","message":{"role":"user","content":"fine"}}\n',
        encoding="utf-8",
    )
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text('embedder = "none"\n', encoding="utf-8")
    with Memory(home) as mem:
        report = mem.ingest([f])
    assert report.new_turns >= 1


def test_duplicate_assistant_line_in_a_later_run(tmp_path: Path) -> None:
    """The same assistant record written twice, the first copy stored by an earlier run.

    The parser joins the two copies into one turn ("hello\nhello", uuids [a1]); the store finds
    a1 not stored with that text, joins it into the stored turn by message id and inserts
    (a1, turn) into record_uuids again: UNIQUE constraint failed, StoreError, the whole group of
    files rolled back, and every later run fails the same way.
    """
    f = tmp_path / "p" / "11111111-1111-4111-8111-111111111111.jsonl"
    f.parent.mkdir()
    line = json.dumps(
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "s",
            "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        }
    )
    f.write_text(line + "\n", encoding="utf-8")
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text('embedder = "none"\n', encoding="utf-8")
    with Memory(home) as mem:
        mem.ingest([f])
        with f.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
        mem.ingest([f])

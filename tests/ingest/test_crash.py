"""Crash safety of ingest: SIGKILL at random moments, real subprocesses, a real SQLite file.

The store promises one transaction per written batch, so a kill at any moment must leave a
database that opens, passes `PRAGMA integrity_check`, holds whole files or nothing of them,
and that a later run completes to exactly what an uninterrupted run stores.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vyre_memory import Memory
from vyre_memory.eval.synth import write_history
from vyre_memory.ingest.runner import IngestSettings, plan
from vyre_memory.ingest.runner import ingest as run_ingest
from vyre_memory.store.sqlite import Store

pytestmark = pytest.mark.slow

SESSIONS = int(os.environ.get("VYRE_CRASH_SESSIONS", "100"))
CYCLES = int(os.environ.get("VYRE_CRASH_CYCLES", "12"))  # more for a longer campaign
SEED = 20261130
CLI = [sys.executable, "-c", "from vyre_memory.surfaces.cli import main; main()"]
# the same CLI committing every 10 files instead of every 200 (many more moments between two commits)
CLI_SMALL_GROUPS = [
    sys.executable,
    "-c",
    "import vyre_memory.ingest.runner as r; r._GROUP_FILES = 10\nfrom vyre_memory.surfaces.cli import main; main()",
]


# -- helpers ---------------------------------------------------------------------------------------
def make_home(home: Path) -> Path:
    """A VYRE_HOME with no embedder: these tests are about ingest, not vectors."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('embedder = "none"\n', encoding="utf-8")
    return home


def _start(
    tree: Path, home: Path, *args: str, stdout: int = subprocess.DEVNULL, small_groups: bool = False
) -> subprocess.Popen:
    make_home(home)
    env = dict(os.environ, VYRE_HOME=str(home))
    command = [*(CLI_SMALL_GROUPS if small_groups else CLI), "ingest", str(tree), "--quiet", *args]
    return subprocess.Popen(command, env=env, stdout=stdout, stderr=subprocess.PIPE)


def _run_cli(tree: Path, home: Path) -> tuple[float, dict]:
    """A whole `vyre ingest --json` run in a subprocess: (seconds, its report)."""
    started = time.perf_counter()
    proc = _start(tree, home, "--json", stdout=subprocess.PIPE)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    assert proc.returncode == 0, err.decode(errors="replace")
    return time.perf_counter() - started, json.loads(out)["report"]


def _kill_after(tree: Path, home: Path, delay: float, small_groups: bool = False) -> bool:
    """Start an ingest, SIGKILL it after `delay` seconds; True if it was still running."""
    proc = _start(tree, home, small_groups=small_groups)
    try:
        proc.wait(timeout=delay)
        finished = True
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        finished = proc.returncode == 0  # it can end on its own between the timeout and the signal
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if finished:
        assert proc.returncode == 0, err
    else:
        assert proc.returncode == -signal.SIGKILL
    return not finished


def _complete(tree: Path, home: Path) -> int:
    """Finish an interrupted ingest in this process (the ingest step only); returns new turns."""
    store = Store(make_home(home) / "memory.db")
    try:
        return run_ingest(store, [tree], IngestSettings(vyre_home=str(home))).new_turns
    finally:
        store.close()


def _counts(home: Path) -> dict:
    """Sessions per kind and turns per role and kind, read with plain SQL (no migration, no writes)."""
    conn = sqlite3.connect(home / "memory.db")
    try:
        return {
            "sessions": dict(conn.execute("SELECT kind, COUNT(*) FROM sessions GROUP BY kind").fetchall()),
            "turns_by_role": dict(conn.execute("SELECT role, COUNT(*) FROM turns GROUP BY role").fetchall()),
            "turns_by_kind": dict(conn.execute("SELECT kind, COUNT(*) FROM turns GROUP BY kind").fetchall()),
            "turns": conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0],
        }
    finally:
        conn.close()


def _dump(db: Path, *, exact: bool = True) -> dict[str, list[tuple]]:
    """Every session's turns, in order, as comparable tuples.

    `exact=False` leaves out what depends on how the reads were split into runs: record uuids
    (synthetic ones hash the line number) and a tool output's tool name (see the pinned tests below).
    """
    columns = "seq, role, kind, text, ts, tool_use_id, is_error" + (", name, tool_name, uuids" if exact else "")
    conn = sqlite3.connect(db)
    try:
        if conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'sessions'").fetchone()[0] == 0:
            return {}  # killed before the schema's first transaction committed
        out: dict[str, list[tuple]] = {sid: [] for (sid,) in conn.execute("SELECT id FROM sessions")}
        for row in conn.execute(f"SELECT session, {columns} FROM turns ORDER BY session, seq"):
            out[row[0]].append(tuple(row[1:]))
        return out
    finally:
        conn.close()


def check_consistent(db: Path) -> None:
    """The database opens, passes integrity checks, and turns, sessions and uuids agree."""
    assert db.exists()
    conn = sqlite3.connect(db, timeout=30)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:  # killed before the schema's first transaction committed: an empty database
            assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'turns'").fetchone()[0] == 0
            return
        conn.execute("INSERT INTO turns_fts (turns_fts) VALUES ('integrity-check')")
        orphans = conn.execute("SELECT COUNT(*) FROM turns WHERE session NOT IN (SELECT id FROM sessions)")
        assert orphans.fetchone()[0] == 0, "a turn without a session"
        dup_seq = conn.execute("SELECT session, seq FROM turns GROUP BY session, seq HAVING COUNT(*) > 1").fetchall()
        assert dup_seq == [], f"duplicate (session, seq): {dup_seq[:5]}"
        gaps = conn.execute(
            "SELECT session FROM turns GROUP BY session HAVING MIN(seq) != 0 OR MAX(seq) != COUNT(*) - 1"
        ).fetchall()
        assert gaps == [], f"seq not 0..n-1 in {gaps[:5]}"
        multi = conn.execute("SELECT uuid FROM record_uuids GROUP BY uuid HAVING COUNT(*) > 1").fetchall()
        assert multi == [], f"record uuids mapped to more than one turn: {multi[:5]}"
        dangling = conn.execute("SELECT COUNT(*) FROM record_uuids WHERE turn NOT IN (SELECT id FROM turns)")
        assert dangling.fetchone()[0] == 0, "a record uuid pointing at no turn"
        mapped: dict[int, set[str]] = {}
        for uuid, turn in conn.execute("SELECT uuid, turn FROM record_uuids"):
            mapped.setdefault(turn, set()).add(uuid)
        for turn_id, uuids in conn.execute("SELECT id, uuids FROM turns"):
            assert set(json.loads(uuids)) == mapped.get(turn_id, set()), f"turn {turn_id}: uuids disagree"
        wrong_count = conn.execute(
            "SELECT s.id FROM sessions s WHERE s.turn_count != (SELECT COUNT(*) FROM turns t WHERE t.session = s.id)"
        ).fetchall()
        assert wrong_count == [], f"sessions.turn_count wrong for {wrong_count[:5]}"
        fts = conn.execute("SELECT COUNT(*) FROM turns_fts").fetchone()[0]
        assert fts == conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    finally:
        conn.close()


def _sources(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        if conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'sources'").fetchone()[0] == 0:
            return set()
        return {p for (p,) in conn.execute("SELECT path FROM sources")}
    finally:
        conn.close()


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A generated tree, the uninterrupted run's counts and turns, and how long a CLI run takes."""
    root = tmp_path_factory.mktemp("crash")
    tree = root / "projects"
    list(write_history(tree, sessions=SESSIONS, seed=SEED))
    home = root / "reference"
    seconds, _ = _run_cli(tree, home)
    started = time.perf_counter()
    subprocess.run([*CLI, "--version"], check=True, capture_output=True)
    startup = time.perf_counter() - started
    started = time.perf_counter()
    _complete(tree, root / "scratch")
    ingest_step = time.perf_counter() - started
    order = [str(f) for _, f in plan([tree])]
    return {
        "root": root,
        "tree": tree,
        "seconds": seconds,  # a whole `vyre ingest`: start, ingest, passages, facts
        "startup": startup,  # the CLI's start-up, before its first write
        "ingest_window": startup + ingest_step,  # about when the ingest step's last commit happens
        "counts": _counts(home),
        "dump": _dump(home / "memory.db"),
        "order": order,
    }


# -- tests -----------------------------------------------------------------------------------------
def test_reference_run_is_consistent_and_idempotent(history: dict) -> None:
    home = history["root"] / "reference"
    check_consistent(home / "memory.db")
    counts = history["counts"]
    assert sum(counts["sessions"].values()) > SESSIONS  # main sessions plus subagents
    assert counts["turns"] > 20 * SESSIONS
    _, again = _run_cli(history["tree"], home)
    assert again["new_turns"] == 0 and again["new_sessions"] == 0 and again["problems"] == []
    assert _counts(home) == counts


def test_sigkill_fresh_home_each_time(history: dict) -> None:
    """Kill a first ingest at a random moment, CYCLES times, each into its own fresh VYRE_HOME."""
    rng = random.Random(SEED)
    full = history["seconds"]
    # stratified: half over the ingest step (from the end of start-up to about its last commit), half
    # over the whole run (start-up included; passages and facts are written after the ingest step)
    half = CYCLES // 2
    start, end = history["startup"] * 0.9, history["ingest_window"]
    delays = [start + (end - start) * (i + rng.random()) / half for i in range(half)]
    delays += [full * (i + rng.random()) / (CYCLES - half) for i in range(CYCLES - half)]
    rng.shuffle(delays)
    killed = 0
    partial = 0
    reference = history["dump"]
    order = history["order"]
    for i, delay in enumerate(delays):
        home = history["root"] / f"fresh-{i}"
        killed += _kill_after(history["tree"], home, delay, small_groups=i % 2 == 1)
        db = home / "memory.db"
        if db.exists():
            check_consistent(db)
            # a kill leaves the store as it was before the batch in flight: whole files or nothing,
            # and the files written are a prefix of the run's order
            done = _sources(db)
            assert done == set(order[: len(done)]), f"cycle {i}: written sources are not a prefix of the run"
            dump = _dump(db)
            for sid, turns in dump.items():
                assert turns == reference[sid], f"cycle {i} (killed at {delay:.3f}s): session {sid} is partial"
            if 0 < len(done) < len(order):
                partial += 1
        _complete(history["tree"], home)
        check_consistent(db)
        assert _counts(home) == history["counts"], f"cycle {i}: killed at {delay:.3f}s of {full:.3f}s"
        assert _dump(db) == reference
        shutil.rmtree(home)
    print(f"fresh homes: {killed} of {CYCLES} runs killed, {partial} between two commits of the ingest step")
    assert killed >= CYCLES // 2, f"only {killed} of {CYCLES} runs were still running when killed"
    assert partial >= 1, "no kill landed between two committed batches"


def test_sigkill_persistent_home_growing_files(history: dict) -> None:
    """One VYRE_HOME across CYCLES kills while the files grow (cut at arbitrary bytes: torn last lines)."""
    rng = random.Random(SEED + 1)
    staged = history["tree"]
    live = history["root"] / "growing"
    home = history["root"] / "persistent"
    files = sorted(p for p in staged.rglob("*") if p.is_file())
    blobs = {p: p.read_bytes() for p in files}
    written = dict.fromkeys(files, 0)
    for p in files:
        (live / p.relative_to(staged)).parent.mkdir(parents=True, exist_ok=True)
        if p.suffix == ".json":  # subagent .meta.json sidecars are written whole, first
            (live / p.relative_to(staged)).write_bytes(blobs[p])
            written[p] = len(blobs[p])
    step_seconds = history["ingest_window"]
    killed = 0
    for i in range(CYCLES):
        for p in files:
            target = len(blobs[p]) if i == CYCLES - 1 else int(len(blobs[p]) * (i + rng.random()) / CYCLES)
            if target > written[p]:
                with (live / p.relative_to(staged)).open("ab") as f:
                    f.write(blobs[p][written[p] : target])
                written[p] = target
        started = time.monotonic()
        if _kill_after(live, home, rng.uniform(0.0, step_seconds), small_groups=i % 2 == 1):
            killed += 1
        else:  # an incremental run can end sooner than a whole ingest: kill the next ones around its time
            step_seconds = min(step_seconds, 1.5 * (time.monotonic() - started))
        if (home / "memory.db").exists():
            check_consistent(home / "memory.db")
    print(f"persistent home: {killed} of {CYCLES} runs killed")
    assert killed >= CYCLES // 3
    assert all(written[p] == len(blobs[p]) for p in files)
    _complete(live, home)
    assert _complete(live, home) == 0
    check_consistent(home / "memory.db")
    assert _counts(home) == history["counts"]
    # same turns, in the same order, as the uninterrupted one-shot run (paths differ: compare per session)
    assert _dump(home / "memory.db", exact=False) == {
        sid: [t[:7] for t in turns] for sid, turns in history["dump"].items()
    }


def test_appends_between_runs_equal_one_shot(tmp_path: Path) -> None:
    """A growing session (cut mid-line, torn last line without newline) read over many runs."""
    tree = tmp_path / "projects"
    files = list(write_history(tree, sessions=12, seed=SEED + 2, exchanges=(6, 12)))
    blobs = {p: p.read_bytes() for p in files}
    live = tmp_path / "live"
    for p in tree.rglob("*.json"):
        (live / p.relative_to(tree)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(p, live / p.relative_to(tree))
    rng = random.Random(SEED + 3)
    cuts = {p: [*sorted(rng.sample(range(1, len(b)), 12)), len(b)] for p, b in blobs.items()}
    # also cut a few files exactly before a newline, and exactly after one
    for p, b in list(blobs.items())[:4]:
        newline = b.index(b"\n", len(b) // 3)
        cuts[p] = sorted({*cuts[p], newline, newline + 1})
    home = make_home(tmp_path / "incremental")
    written = dict.fromkeys(files, 0)
    with Memory(home) as mem:
        for step in range(max(len(c) for c in cuts.values())):
            for p in files:
                cut = cuts[p][min(step, len(cuts[p]) - 1)]
                if cut > written[p]:
                    dest = live / p.relative_to(tree)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    with dest.open("ab") as f:
                        f.write(blobs[p][written[p] : cut])
                    written[p] = cut
            report = mem.ingest([live])
            assert report.problems == [], report.problems[:3]
        assert mem.ingest([live]).new_turns == 0
    check_consistent(home / "memory.db")
    one_shot = make_home(tmp_path / "one-shot")
    with Memory(one_shot) as mem:
        mem.ingest([live])
    assert _counts(home) == _counts(one_shot)
    assert _dump(home / "memory.db", exact=False) == _dump(one_shot / "memory.db", exact=False)


# -- bugs the tests above found, now fixed: each pinned ----------------------------------------------
def _record(i: int, content: object, rtype: str = "user", **extra: object) -> str:
    record = {
        "type": rtype,
        "uuid": f"00000000-0000-4000-8000-{i:012d}",
        "sessionId": "s",
        "cwd": "/x",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": rtype, "content": content},
        **extra,
    }
    return json.dumps(record)


def test_tool_output_named_when_call_was_read_in_an_earlier_run(tmp_path: Path) -> None:
    f = tmp_path / "p" / "11111111-1111-4111-8111-111111111111.jsonl"
    f.parent.mkdir()
    call = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/x/a.py"}}
    f.write_text(_record(1, "pad " * 2000) + "\n" + _record(2, [call], "assistant") + "\n")
    result = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "print(1)"}]
    with Memory(make_home(tmp_path / "h")) as mem:
        mem.ingest([f])
        with f.open("a") as fh:
            fh.write(_record(3, result) + "\n")
        mem.ingest([f])
        (out,) = [t for t in mem.turns(f.stem) if t.kind == "tool_output"]
    assert (out.name, out.tool_name) == ("Read", "Read")  # a one-shot ingest of the same file gives this


def test_line_numbers_after_a_torn_line_is_completed(tmp_path: Path) -> None:
    """The last line parsed without its newline; the next run reads the newline as a blank line 3.

    Line numbers then run one too high for the rest of the file: problems name the wrong line,
    and synthetic uuids (they hash the line) differ from a one-shot read, so reading the same
    file again (another path to it, a lost read position) stores the system reminder twice.
    """
    f = tmp_path / "p" / "11111111-1111-4111-8111-111111111111.jsonl"
    f.parent.mkdir()
    f.write_text(_record(1, "one " * 2000) + "\n" + _record(2, "two"))  # no newline yet
    with Memory(make_home(tmp_path / "h")) as mem:
        mem.ingest([f])
        with f.open("a") as fh:
            fh.write("\n" + _record(3, "three\n<system-reminder>r</system-reminder>") + "\nnot json\n")
        report = mem.ingest([f])
        other = tmp_path / "q"
        other.symlink_to(f.parent)
        again = mem.ingest([other / f.name])
    assert report.problems == [f"{f}:4: not valid JSON (Expecting value at column 1)"]
    assert again.new_turns == 0


# -- a kill while one big file is read in many pieces --------------------------------------------------
BIG_MB = int(os.environ.get("VYRE_CRASH_BIG_MB", "16"))
PIECE = 128 << 10  # the CLI below reads the big file in pieces of 128 KB (the default is 32 MB)
CLI_SMALL_PIECES = [
    sys.executable,
    "-c",
    f"import vyre_memory.ingest.runner as r; r.PIECE_BYTES = {PIECE}\n"
    "from vyre_memory.surfaces.cli import main; main()",
]


def _big_session(root: Path, megabytes: int, seed: int = SEED) -> Path:
    """One long session: streamed multi-line assistant messages, Read/Bash tool pairs with ~20 KB outputs."""
    from datetime import UTC, datetime

    from vyre_memory.eval.synth import SessionWriter, _long_output

    rng = random.Random(seed)
    pool = [_long_output(rng, 300) for _ in range(8)]
    sid = "44444444-4444-4444-8444-444444444444"
    w = SessionWriter("/home/sam/code/big", sid, datetime(2026, 5, 1, 9, 0, tzinfo=UTC))
    path = root / "-home-sam-code-big" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        n = 0
        while f.tell() < megabytes * 1_000_000:
            w.user(f"round {n}: the loader in src/app/loader.py drops rows")
            w.assistant(rng, [{"type": "thinking", "thinking": f"Round {n}."}, {"type": "text", "text": "Looking."}])
            for j in range(3):
                out = f"==> call {n}.{j}\n" + pool[(n * 3 + j) % len(pool)]
                w.tool(rng, "Read" if j % 2 else "Bash", {"command": f"cat src/app/loader.py # {n}.{j}"}, out)
            w.assistant(rng, [{"type": "text", "text": f"Round {n} done."}, {"type": "text", "text": "Fixed."}])
            for record in w.lines:
                f.write(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")
            w.lines.clear()
            n += 1
    return path


def _source_row(db: Path, path: Path) -> tuple[int, int] | None:
    conn = sqlite3.connect(db)
    try:
        if conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'sources'").fetchone()[0] == 0:
            return None
        row = conn.execute("SELECT offset, line FROM sources WHERE path = ?", (str(path),)).fetchone()
        return (row[0], row[1]) if row else None
    finally:
        conn.close()


def test_sigkill_while_one_big_file_is_read_in_pieces(tmp_path: Path) -> None:
    """Kill `vyre ingest` while it writes one big session piece by piece: the store holds exactly a
    one-shot read of the file cut at its saved position (a line end), and a re-run completes it to
    the same turns as an uninterrupted run."""
    tree = tmp_path / "projects"
    big = _big_session(tree, BIG_MB)
    data = big.read_bytes()
    reference = make_home(tmp_path / "reference")
    started = time.perf_counter()
    store = Store(reference / "memory.db")
    try:
        run_ingest(store, [tree], IngestSettings(vyre_home=str(reference), piece_bytes=PIECE))
    finally:
        store.close()
    ingest_step = time.perf_counter() - started
    started = time.perf_counter()
    subprocess.run([*CLI, "--version"], check=True, capture_output=True)
    startup = time.perf_counter() - started
    ref_counts, ref_dump = _counts(reference), _dump(reference / "memory.db")
    one_piece = make_home(tmp_path / "one-piece")
    _complete(tree, one_piece)
    assert _dump(one_piece / "memory.db") == ref_dump, "pieces store what one piece stores"

    rng = random.Random(SEED + 7)
    cycles = 8
    partial = 0
    for i in range(cycles):
        home = make_home(tmp_path / f"big-{i}")
        delay = startup + ingest_step * 1.2 * (i + rng.random()) / cycles
        proc = subprocess.Popen(
            [*CLI_SMALL_PIECES, "ingest", str(tree), "--quiet"],
            env=dict(os.environ, VYRE_HOME=str(home)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        db = home / "memory.db"
        position = _source_row(db, big) if db.exists() else None
        if position is not None:
            check_consistent(db)
            offset, line = position
            assert offset == len(data) or data[offset - 1 : offset] == b"\n", f"cycle {i}: not at a line end"
            assert data[:offset].count(b"\n") == line
            if offset < len(data):
                partial += 1
                # the store holds what a one-shot read of the file as far as the saved position stores
                cut_tree = tmp_path / f"cut-{i}"
                cut = cut_tree / big.relative_to(tree)
                cut.parent.mkdir(parents=True)
                cut.write_bytes(data[:offset])
                cut_home = make_home(tmp_path / f"cut-home-{i}")
                _complete(cut_tree, cut_home)
                assert _dump(db) == _dump(cut_home / "memory.db"), f"cycle {i}: the store is not the pieces written"
                shutil.rmtree(cut_tree)
                shutil.rmtree(cut_home)
        _complete(tree, home)
        check_consistent(db)
        assert _counts(home) == ref_counts, f"cycle {i}: killed at {delay:.3f}s"
        assert _dump(db) == ref_dump, f"cycle {i}: resumed turns differ"
        assert _complete(tree, home) == 0
        shutil.rmtree(home)
    print(f"big file: {partial} of {cycles} kills between two pieces ({len(data) / 1e6:.0f} MB, {PIECE >> 10} KB)")
    assert partial >= 2, "too few kills landed between two pieces"

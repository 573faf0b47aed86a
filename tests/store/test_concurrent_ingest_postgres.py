"""Several writers into one PostgreSQL database: two machines (two homes, two transcript trees, two
host names, and a third tree both have a copy of, as a synced folder) run `vyre ingest` at the same
time, again and again, some runs SIGKILLed at random moments, while this process keeps asking the same
database. The database must end with exactly the rows of two clean runs one after the other: the same
sessions (each with its own host), turns, passages, vectors and facts, nothing lost and nothing twice.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import psycopg
import pytest
from tests.pg_server import PgServer

from vyre_memory import Memory
from vyre_memory.eval.synth import write_history

pytestmark = pytest.mark.slow

SESSIONS = int(os.environ.get("VYRE_CONCURRENT_SESSIONS", "10"))
ROUNDS = int(os.environ.get("VYRE_CONCURRENT_ROUNDS", "3"))
SEED = 20261201
# the CLI committing every 5 files instead of every 200: many moments between two commits to kill at
CLI = [
    sys.executable,
    "-c",
    "import vyre_memory.ingest.runner as r; r._GROUP_FILES = 5\nfrom vyre_memory.surfaces.cli import main; main()",
]


def _start(machine: dict[str, Any], url: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, VYRE_HOME=str(machine["home"]), VYRE_DATABASE_URL=url, VYRE_HOST=machine["host"])
    return subprocess.Popen(
        # --embed: every run embeds whatever waits, as each clean run does; without it, a run that also finds the
        # other machine's passages waiting (more than the CLI's EMBED_NOW_MAX together) leaves all of them to a server,
        # so when both runs of the last round did, the database ended with no vectors (seen once in CI)
        [*CLI, "ingest", str(machine["tree"]), str(machine["synced"]), "--quiet", "--embed"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _finish(proc: subprocess.Popen[bytes], kill_after: float | None) -> bool:
    """Wait for an ingest, or SIGKILL it after `kill_after` seconds; True when it was killed."""
    try:
        proc.wait(timeout=kill_after if kill_after is not None else 300)
        killed = False
    except subprocess.TimeoutExpired:
        if kill_after is None:
            raise
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        killed = proc.returncode == -signal.SIGKILL
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    assert killed or proc.returncode == 0, err
    return killed


def _dump(url: str, synced: set[str]) -> dict[str, Any]:
    """Everything a run writes, keyed by what does not depend on which writer went first: no row ids, and
    no host for a session both machines have (the first to store it names it)."""
    with psycopg.connect(url) as conn:

        def rows(sql: str) -> list[tuple[Any, ...]]:
            return [tuple(r) for r in conn.execute(sql).fetchall()]

        sessions = rows(
            "SELECT id, host, kind, cwd, title, turn_count, first_ts, last_ts, parent_session FROM sessions ORDER BY id"
        )
        return {
            "sessions": [(s[0], "either" if s[0] in synced else s[1], *s[2:]) for s in sessions],
            "turns": rows(
                "SELECT session, seq, uuids, role, kind, name, text, ts, tool_name, tool_use_id, is_error FROM turns "
                "ORDER BY session, seq"
            ),
            "record_uuids": rows(
                "SELECT r.uuid, t.session, t.seq FROM record_uuids r JOIN turns t ON t.id = r.turn ORDER BY 1, 2, 3"
            ),
            "passages": rows(
                "SELECT session, seq, piece, kind, text, search, embed, text_hash FROM passages ORDER BY 1, 2, 3"
            ),
            "vectors": rows("SELECT text_hash, model, vec::text FROM vectors ORDER BY 1, 2"),
            "facts": rows(
                "SELECT f.id, f.subject, f.relation, f.object, f.status, s.session, s.seq, s.quote FROM facts f "
                "JOIN fact_sources s ON s.fact = f.id ORDER BY 1, 6, 7"
            ),
            "sources": rows('SELECT host, path, "offset", line, records FROM sources ORDER BY 1, 2'),
        }


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    root = tmp_path_factory.mktemp("machines")
    synced = root / "synced"
    list(write_history(synced, sessions=SESSIONS // 2, seed=SEED + 2))
    out = []
    for name, seed in (("laptop", SEED), ("desktop", SEED + 1)):
        tree = root / name / "projects"
        list(write_history(tree, sessions=SESSIONS, seed=seed))
        copy = root / name / "synced"
        shutil.copytree(synced, copy)
        out.append({"host": name, "tree": tree, "synced": copy, "home": root / name / "home"})
    return out


def _synced_sessions(pg_server: PgServer, machine: dict[str, Any]) -> set[str]:
    """The sessions of the tree both machines have (stored alone into a database of their own)."""
    url = pg_server.create_database("synced")
    _finish(_start({**machine, "tree": machine["synced"]}, url), None)
    with psycopg.connect(url) as conn:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}


def test_two_machines_ingesting_at_once_with_kills_end_with_the_rows_of_clean_runs(
    pg_server: PgServer, machines: list[dict[str, Any]]
) -> None:
    reference = pg_server.create_database("clean")
    started = time.monotonic()
    for machine in machines:  # one clean run each, one after the other
        _finish(_start(machine, reference), None)
    clean_seconds = (time.monotonic() - started) / 2
    synced = _synced_sessions(pg_server, machines[0])
    expected = _dump(reference, synced)
    assert synced and {s[1] for s in expected["sessions"]} == {"laptop", "desktop", "either"}
    assert len(expected["turns"]) > 20 * SESSIONS and expected["vectors"] and expected["facts"]

    shared = pg_server.create_database("shared")
    stop = threading.Event()
    read_errors: list[BaseException] = []
    answers = [0]

    def ask_meanwhile() -> None:  # a reader (as vyre serve is) on the same database while both ingest
        try:
            with Memory(machines[0]["home"].parent / "reader", database=shared) as mem:
                while not stop.wait(0.2):
                    mem.retrieve("why was the nightly export slow")
                    mem.ask("which file had the bug")
                    answers[0] += 1
        except BaseException as exc:  # any failure of a reader fails the test
            read_errors.append(exc)

    reader = threading.Thread(target=ask_meanwhile, daemon=True)
    reader.start()
    rng = random.Random(SEED)
    kills = 0
    try:
        for round_ in range(ROUNDS):
            procs = [_start(m, shared) for m in machines]
            last = round_ == ROUNDS - 1  # the last round runs to the end
            delays = [None if last else rng.uniform(0.3, 1.5) * clean_seconds for _ in machines]
            kills += sum(_finish(p, d) for p, d in zip(procs, delays))
    finally:
        stop.set()
        reader.join(timeout=120)
    assert read_errors == []
    assert answers[0] >= 1
    assert kills >= 1, "no run was killed while it was still writing"
    assert _dump(shared, synced) == expected
    # and again: a further concurrent round adds nothing
    for proc in [_start(m, shared) for m in machines]:
        _finish(proc, None)
    assert _dump(shared, synced) == expected
    print(f"{ROUNDS} concurrent rounds, {kills} runs killed, {answers[0]} reads meanwhile")

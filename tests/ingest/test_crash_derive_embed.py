"""Crash safety of the steps after ingest: SIGKILL during embedding and during fact derivation.

Each step writes in transactions (vectors with their high-water mark; facts and the graph in one
swap), so after a kill at any moment the database passes its integrity check, and finishing the
step gives exactly what an uninterrupted run gives. 12 kills each (VYRE_CRASH_CYCLES for more), real
subprocesses.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vyre_memory import Memory
from vyre_memory.ask.index import index_passages
from vyre_memory.eval.synth import write_history
from vyre_memory.ingest.runner import IngestSettings
from vyre_memory.ingest.runner import ingest as run_ingest
from vyre_memory.store.sqlite import Store

pytestmark = pytest.mark.slow

CYCLES = int(os.environ.get("VYRE_CRASH_CYCLES", "12"))  # more for a longer campaign
SEED = 20261130
# Each script says "go" once its imports are done, so kill times count from the work, not from
# an interpreter start whose length varies with the machine's load.
EMBED = (
    "import sys, vyre_memory.ask.index as ix; ix.EMBED_BATCH = 4\n"
    "from vyre_memory import Memory\n"
    "mem = Memory(sys.argv[1], embedder='hash'); print('go', flush=True); mem.index()"
)
DERIVE = (
    "import sys\nfrom vyre_memory import Memory\n"
    "mem = Memory(sys.argv[1], embedder='none'); print('go', flush=True); mem.derive()"
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with turns and passages, and neither vectors nor facts yet."""
    root = tmp_path_factory.mktemp("crash-after-ingest")
    list(write_history(root / "projects", sessions=40, seed=SEED))
    home = root / "base"
    home.mkdir()
    store = Store(home / "memory.db")
    run_ingest(store, [root / "projects"], IngestSettings())
    index_passages(store, "sam")
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return home


def _copy(base: Path, to: Path) -> Path:
    shutil.copytree(base, to)
    return to


def _integrity(home: Path) -> None:
    conn = sqlite3.connect(home / "memory.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def _run(script: str, home: Path) -> subprocess.Popen[bytes]:
    """Start ``script`` on ``home`` and return once it has said it begins its work."""
    env = dict(os.environ, VYRE_HOME=str(home))
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(home)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"go\n", proc.communicate(timeout=300)[1].decode(errors="replace")[-2000:]
    return proc


def _timed(script: str, home: Path) -> float:
    proc = _run(script, home)
    started = time.monotonic()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
    return time.monotonic() - started


def _vectors(home: Path) -> tuple[set[str], int]:
    with Memory(home, embedder="hash") as mem:
        hashes = {r[0] for r in mem.store.conn.execute("SELECT text_hash FROM vectors")}
        return hashes, mem.store.embedded_through(mem.embedder.name)


def _facts(home: Path) -> tuple[list[tuple[str, str, str, str, float]], int]:
    with Memory(home, embedder="none") as mem:
        facts = sorted((f.id, f.subject, f.relation, f.object, round(f.confidence, 6)) for f in mem.facts())
        return facts, len(mem.graph())


def _kill_cycles(base: Path, tmp: Path, script: str, full: float, span: float = 1.0) -> list[Path]:
    """Kill a run of ``script`` at a random moment within ``span`` times the uninterrupted run's length."""
    rng = random.Random(SEED)
    homes = []
    for i in range(CYCLES):
        home = _copy(base, tmp / f"cycle-{i}")
        proc = _run(script, home)
        time.sleep(rng.uniform(0.0, full * span))
        proc.kill()
        proc.wait()
        _integrity(home)
        homes.append(home)
    return homes


def test_sigkill_during_embedding_then_finishing_gives_the_uninterrupted_vectors(base: Path, tmp_path: Path) -> None:
    reference = _copy(base, tmp_path / "reference")
    full = _timed(EMBED, reference)
    expected = _vectors(reference)
    assert expected[0], "the reference run embedded nothing"
    partial = 0
    for home in _kill_cycles(base, tmp_path, EMBED, full):
        conn = sqlite3.connect(home / "memory.db")
        stored = conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        conn.close()
        partial += 0 < stored < len(expected[0])  # killed mid-embedding, between two committed batches
        with Memory(home, embedder="hash") as mem:
            mem.index()
        assert _vectors(home) == expected, home.name
    print(f"embedding: {partial} of {CYCLES} kills between two committed batches ({full:.2f} s run)")
    assert partial >= 3, f"only {partial} of {CYCLES} kills landed mid-embedding"


def test_sigkill_during_derivation_then_finishing_gives_the_uninterrupted_facts(base: Path, tmp_path: Path) -> None:
    reference = _copy(base, tmp_path / "reference")
    full = _timed(DERIVE, reference)
    expected = _facts(reference)
    assert expected[0] and expected[1] > 0, "the reference run derived no facts or no graph"
    states: list[bool] = []
    # The graph is written in the last moments of a run, and a killed run under load can be slower
    # than the reference: the kills span a little past its length so that some land after the write.
    for home in _kill_cycles(base, tmp_path, DERIVE, full, span=1.4):
        conn = sqlite3.connect(home / "memory.db")
        states.append(conn.execute("SELECT COUNT(*) FROM entities").fetchone()[0] > 0)  # the graph is written last
        conn.close()
        with Memory(home, embedder="none") as mem:
            mem.derive()
        assert _facts(home) == expected, home.name
    print(f"derivation: {states.count(False)} of {CYCLES} kills before the graph was written ({full:.2f} s run)")
    assert set(states) == {False, True}, "the kills never landed both before and after derivation was written"

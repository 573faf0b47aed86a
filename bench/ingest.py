"""Ingest throughput on a generated history: files, records, turns, seconds, rates, size per turn.

    python bench/ingest.py --sessions 600
    python bench/ingest.py --sessions 600 --full     # Memory.ingest: also passages and facts
    python bench/ingest.py --tree DIR --database postgresql://me@host/empty_db   # a kept history, PostgreSQL

Writes N realistic sessions (mixed tools, subagents, long outputs: eval.synth.write_history)
into a temp dir and ingests them into a fresh VYRE_HOME with no embedder. By default it times
the ingest step alone (transcripts to the store); --full times Memory.ingest, which also
indexes passages and derives facts. Then it ingests again (must add 0 turns). Prints, never asserts.
--tree reads a history written before (e.g. bench/retrieve.py --keep's) instead of generating one;
--database writes into that empty PostgreSQL database instead of a SQLite file.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from vyre_memory import Memory  # noqa: E402
from vyre_memory.eval.synth import write_history  # noqa: E402
from vyre_memory.ingest.runner import IngestSettings  # noqa: E402
from vyre_memory.ingest.runner import ingest as run_ingest  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=600, help="sessions to generate (default 600)")
    parser.add_argument("--exchanges", type=int, nargs=2, default=(4, 12), metavar=("MIN", "MAX"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--full", action="store_true", help="time Memory.ingest (passages and facts too)")
    parser.add_argument("--tree", default=None, help="an existing history to read instead of generating one")
    parser.add_argument(
        "--database", default=None, metavar="URL", help="an empty PostgreSQL database (postgresql://...)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="vyre-bench-ingest-") as tmp:
        tmp_path = Path(tmp)
        tree = Path(args.tree) if args.tree else tmp_path / "projects"
        started = time.perf_counter()
        if args.tree:
            files = [f for f in tree.rglob("*") if f.is_file()]
        else:
            files = list(
                dict.fromkeys(
                    write_history(tree, sessions=args.sessions, seed=args.seed, exchanges=tuple(args.exchanges))
                )
            )
        generated = time.perf_counter() - started
        source_bytes = sum(f.stat().st_size for f in files)
        home = tmp_path / "home"
        home.mkdir()
        (home / "config.toml").write_text('embedder = "none"\n', encoding="utf-8")
        with Memory(home, database=args.database) as mem:
            settings = IngestSettings(vyre_home=str(home))

            def ingest() -> object:
                return mem.ingest([tree]) if args.full else run_ingest(mem.store, [tree], settings)

            started = time.perf_counter()
            report = ingest()
            seconds = time.perf_counter() - started
            started = time.perf_counter()
            again = ingest()
            again_seconds = time.perf_counter() - started
            stats = mem.stats()
            db_bytes = mem.store.database_bytes()
            if not args.database:
                wal = home / "memory.db-wal"
                db_bytes += wal.stat().st_size if wal.exists() else 0
        turns = stats["turns"]["total"]
        print(f"mode              {'Memory.ingest (ingest + passages + facts)' if args.full else 'ingest step'}")
        print(f"store             {'PostgreSQL' if args.database else 'SQLite'}; load average {os.getloadavg()[0]:.1f}")
        made = f"listed from {tree}" if args.tree else f"{args.sessions} generated"
        print(f"sessions          {made} in {generated:.2f}s; {stats['sessions']['total']} stored (subagents included)")
        print(f"files             {report.files_seen} ({source_bytes / 1e6:.1f} MB)")
        print(f"records           {report.records:,}")
        print(f"turns             {report.new_turns:,} (store holds {turns:,})")
        print(f"problems          {len(report.problems)}")
        print(f"seconds           {seconds:.2f}")
        print(f"records/s         {report.records / seconds:,.0f}")
        print(f"turns/s           {report.new_turns / seconds:,.0f}")
        print(f"MB/s              {source_bytes / 1e6 / seconds:.1f}")
        print(f"database          {db_bytes / 1e6:.1f} MB, {db_bytes / max(turns, 1):,.0f} bytes per turn")
        print(f"re-ingest         {again_seconds:.2f}s, {again.new_turns} new turns, {again.files_read} files read")


if __name__ == "__main__":
    main()

"""Deriving facts, asides and moments (releases, incidents, decisions) on a generated history, with and without
placing the likely asides (read.life).

    python bench/derive.py --sessions 2000

Writes N sessions (eval.synth.write_history), ingests them with no embedder, then times a full derive
without an embedder and one with the default (MiniLM), which also embeds the person's clauses that speak of
neither the work nor a life by word. Prints the clauses placed and the seconds of each; never asserts.
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
from vyre_memory.models.embed import MiniLMEmbedder  # noqa: E402
from vyre_memory.read.derive import ASIDES_KEY, LIKELY_ASIDES_KEY, asides_of, derive_facts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=2000, help="sessions to generate (default 2000)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vyre-bench-derive-") as tmp:
        tree = Path(tmp) / "projects"
        list(write_history(tree, sessions=args.sessions, seed=args.seed))
        home = Path(tmp) / "home"
        home.mkdir()
        (home / "config.toml").write_text('embedder = "none"\n', encoding="utf-8")
        with Memory(home) as mem:
            mem.ingest([tree])
            typed = sum(1 for _ in mem.store.iter_turns(kinds=["typed"]))
            started = time.perf_counter()
            derive_facts(mem.store)
            plain = time.perf_counter() - started
            embedder = MiniLMEmbedder()
            embedder.embed(["warm"])  # the model's load is not the derive's
            started = time.perf_counter()
            report = derive_facts(mem.store, embed=embedder.embed)
            placed = time.perf_counter() - started
            asides, likely = len(asides_of(mem.store, ASIDES_KEY)), len(asides_of(mem.store, LIKELY_ASIDES_KEY))
        trusted = report.turns_trusted
        print(f"history           {args.sessions} sessions, {typed:,} typed turns ({trusted:,} trusted)")
        print(f"load average      {os.getloadavg()[0]:.1f}")
        print(f"clauses placed    {report.clauses_placed:,} (the person's own, withheld, no life word, 4+ words)")
        print(f"derive            {plain:.2f} s without an embedder")
        print(f"derive + placing  {placed:.2f} s with MiniLM (+{placed - plain:.2f} s)")
        print(f"asides            {asides:,} by word, {likely:,} likely")
        print(f"releases          {report.releases:,} turns that did, reported or asked for one")
        print(f"incidents         {report.incidents:,} turns that reported a problem or said what caused it")
        print(f"decisions         {report.decisions:,} turns that took, settled or wrote down one")


if __name__ == "__main__":
    main()

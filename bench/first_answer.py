"""Time to the first answer and to full vectors on a generated history (ready fast, then better).

    python bench/first_answer.py --sessions 1800          # about 100k turns
    python bench/first_answer.py --sessions 1800 --sample 1000

Writes a history (eval.synth.write_history), then in a fresh VYRE_HOME with MiniLM configured:
1. `Memory.ingest(embed_now_max=0)`: turns, search index and facts, no vectors (what `vyre ingest`
   does with a backlog over its limit), then the first question: time to the first answer;
2. embeds `--sample` of the waiting passages in the background way (`embed_backlog` in short batches)
   and extrapolates the rate to all of them: time to full vectors on this machine.
Prints figures, never asserts.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from vyre_memory import Memory  # noqa: E402
from vyre_memory.eval.synth import write_history  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1800)
    parser.add_argument("--sample", type=int, default=2000, help="passages to embed for the rate")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vyre-bench-first-") as tmp:
        tree, home = Path(tmp) / "projects", Path(tmp) / "home"
        home.mkdir()
        (home / "config.toml").write_text('user_name = "Sam"\nembedder = "minilm"\n', encoding="utf-8")
        started = time.perf_counter()
        files = len(list(write_history(tree, sessions=args.sessions, seed=args.seed)))
        print(f"history           {files} files written in {time.perf_counter() - started:.1f}s")
        with Memory(home) as mem:
            started, cpu = time.perf_counter(), time.process_time()
            report = mem.ingest([tree], embed_now_max=0)
            ingested, ingest_cpu = time.perf_counter() - started, time.process_time() - cpu
            turns = mem.stats()["turns"]["total"]
            asked = time.perf_counter()
            result = mem.ask("which file had the webhook retry bug")
            first = time.perf_counter() - asked
            waiting = mem.pending()["embed"]
            print(f"turns             {turns:,} ({report.new_sessions:,} sessions)")
            print(f"ingest, no vectors {ingested:.1f}s wall, {ingest_cpu:.1f}s CPU (turns, search index, facts)")
            print(f"first question    {first:.2f}s (abstained={result.abstained}, via={result.via})")
            print(f"first answer      {ingested + first:.1f}s after ingest began")
            print(f"passages waiting  {waiting:,}")
            done = [0]

            def progress(n: int, total: int, _: str) -> None:
                done[0] = n

            started = time.perf_counter()
            cpu = time.process_time()
            mem.embed_backlog(progress, stop=lambda: done[0] >= args.sample)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            rate = done[0] / wall if wall else 0.0
            print(f"embedded sample   {done[0]:,} passages in {wall:.1f}s wall, {cpu:.1f}s CPU ({rate:.1f}/s)")
            if rate:
                print(f"full vectors      about {waiting / rate / 60:.0f} min after ingest (at the sample's rate)")


if __name__ == "__main__":
    main()

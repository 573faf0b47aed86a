"""The fuzz campaign of tests/ingest/test_fuzz_claude_code.py at a larger count.

    python bench/fuzz_ingest.py                 # 10,000 mutated files
    python bench/fuzz_ingest.py 50000 --seed 9
    python bench/fuzz_ingest.py 2000 --shared 0.3   # 30 % of copies keep the base's session and uuids

Prints files, lines, mutated lines, bad lines, problems reported, bad lines not reported,
crashes (there must be none) and seconds. Prints, never asserts; exit code 1 on a crash or a
bad line not reported.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.ingest.test_fuzz_claude_code import run_campaign  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", type=int, nargs="?", default=10_000, help="mutated files (default 10,000)")
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument(
        "--shared",
        type=float,
        default=0.0,
        help="fraction of copies that keep the base's ids (meets the duplicate-record paths)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="vyre-bench-fuzz-") as tmp:
        try:
            stats = run_campaign(Path(tmp), args.count, args.seed, args.shared)
        except Exception as exc:  # the integrity check raises; anything else is a crash too
            print(f"crash outside ingest: {type(exc).__name__}: {exc}")
            return 1
    total = time.perf_counter() - started
    print(f"files             {stats.files:,} ({stats.torn_files:,} with a torn last line)")
    print(f"lines             {stats.lines:,}")
    print(f"mutated lines     {stats.mutated_lines:,}")
    print(f"bad lines         {stats.bad_lines:,} (not UTF-8 JSON objects)")
    print(f"problems reported {stats.problems:,}")
    print(f"records read      {stats.records:,}; turns stored {stats.new_turns:,}")
    print(f"not reported      {len(stats.missing)}" + (f"  e.g. {stats.missing[:3]}" if stats.missing else ""))
    print(f"stray problems    {len(stats.stray)}" + (f"  e.g. {stats.stray[:3]}" if stats.stray else ""))
    print(f"crashes           {len(stats.crashes)}" + "".join(f"\n  {c}" for c in stats.crashes))
    print(f"seconds           {total:.1f} in all, {stats.seconds:.1f} in the first ingest")
    return 1 if stats.crashes or stats.missing else 0


if __name__ == "__main__":
    sys.exit(main())

"""The changes list at scale (read/changes.py, ask/keys.py MomentKeys): how long derive takes to read N edits that
change a value, how large the moments kept for them are, how long the keys' index takes to build (once per derive,
on the first question after it) and p50/p95 of one search of it.

    .venv/bin/python bench/changes.py [--edits 55000] [--questions 200]

The edits are generated (each a rendered `Edit` tool call giving a setting of one of the synthetic files a new
number), the keys are searched with bench/retrieve.py's questions that read the list ("number" and "other" classes).
No store and no model: these figures are the list's own cost. Prints, never asserts.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from model_latency import p50_p95  # noqa: E402
from retrieve import NOW, questions  # noqa: E402
from vyre_memory.ask.keys import MomentKeys, moment_words  # noqa: E402
from vyre_memory.ask.understand import understand  # noqa: E402
from vyre_memory.contract import TOOL_CALL, Turn  # noqa: E402
from vyre_memory.eval.synth import FILES, WORDS  # noqa: E402
from vyre_memory.ingest.text import render_tool_input  # noqa: E402
from vyre_memory.read.changes import change_in  # noqa: E402

SETTINGS = ("timeout", "retries", "pool_size", "batch_limit", "max_items", "ttl_seconds", "workers", "port")


def edits(n: int, seed: int = 5) -> list[Turn]:
    """`n` tool calls, oldest first, each giving one setting of a synthetic file a new number."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        f, key = FILES[rng.randrange(len(FILES))], SETTINGS[rng.randrange(len(SETTINGS))]
        old, new = rng.randrange(1, 500), rng.randrange(1, 500)
        call = {"file_path": f"/home/sam/code/app/{f}", "old_string": f"{key} = {old}", "new_string": f"{key} = {new}"}
        ts = f"2026-{1 + i * 10 // n:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00.000Z"
        text = render_tool_input("Edit", call)
        turn = Turn(i, f"s{i // 20}", i % 20, (f"u{i}",), "assistant", TOOL_CALL, "", text, ts, "interactive", None)
        out.append(turn)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edits", type=int, default=55_000, help="edits that change a value (the 1M bench has 55,877)")
    ap.add_argument("--questions", type=int, default=200, help="bench/retrieve.py questions to draw from")
    args = ap.parse_args()
    calls = edits(args.edits)
    asked = [WORDS[i % len(WORDS)] for i in range(50)]
    t = time.perf_counter()
    moments = [m for c in calls if (m := change_in(c, lambda s: f"fix the {asked[int(s[1:]) % 50]} settings"))]
    read_s = time.perf_counter() - t
    kept = json.dumps([[m.session, list(m.seqs), m.ts, m.text] for m in moments], ensure_ascii=False)
    keys = MomentKeys()
    t = time.perf_counter()
    keys.refresh("v1", lambda: moments)
    build_s = time.perf_counter() - t
    reading = [q for q, _ in questions(args.questions) if understand(q, NOW).qclass in ("number", "other")]
    took = []
    for q in reading * 3:
        t = time.perf_counter()
        keys.search(moment_words(q), None, "9999", since=None, until=None, newest_first=False, limit=10, fill=False)
        took.append((time.perf_counter() - t) * 1000)
    print(f"{len(moments):,} changes of {len(calls):,} edits read in {read_s:.1f} s; kept as {len(kept) / 1e6:.1f} MB")
    print(f"keys' index built in {build_s:.2f} s")
    print(f"{len(reading)} questions that read the list, 3 times each, one search: {p50_p95(took)}")


if __name__ == "__main__":
    main()

"""Scale figures: ingest throughput, passage build, database size, peak memory and query latencies at
100k and 1M turns; and bounded memory while ingesting one very large transcript.

    .venv/bin/python bench/scale.py --turns 100000 [--turns 1000000] [--questions 200]
    .venv/bin/python bench/scale.py --bounded-mb 500 --no-history     # only the one-big-transcript check

The history, its ingest, the pseudo-embeddings and the query timings are bench/retrieve.py's (imported:
one piece of code for one job); vectors are PSEUDO-EMBEDDINGS, no model runs (embedding throughput:
bench/embed.py). Bounded memory: writes one session file of about --bounded-mb MB (a long session whose
tool outputs are ~100 KB each, written line by line so the generator never holds it), then ingests it
step by step in this process (the ingest step reads it in pieces of ingest.runner.PIECE_BYTES, each written
before the next is read) and reports the peak RSS above the baseline, per step. A step's peak starts from the
RSS the step before left (freed memory is not handed back at once). Prints, never asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

import retrieve as rb  # noqa: E402
from vyre_memory import Memory  # noqa: E402
from vyre_memory.eval.synth import FILES, SessionWriter, _long_output, _uuid, encode_cwd  # noqa: E402
from vyre_memory.ingest.runner import PIECE_BYTES  # noqa: E402


def write_big_session(root: Path, megabytes: int, seed: int = 5) -> Path:
    """One session file of about `megabytes` MB: exchanges of Read/Bash calls with ~100 KB outputs."""
    rng = random.Random(seed)
    pool = [_long_output(rng, 1500) for _ in range(24)]  # ~90 KB each; a header line makes each use unique
    cwd = f"{rb.HOME}/code/big-project"
    sid = _uuid("big-session", seed)
    w = SessionWriter(cwd, sid, rb.NOW - timedelta(days=30))
    path = root / encode_cwd(cwd) / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    limit = megabytes * 1_000_000
    written, n = 0, 0
    with path.open("w", encoding="utf-8") as f:
        while written < limit:
            fname = FILES[n % len(FILES)]
            w.user(f"the {fname} tests fail on ci, can you look (round {n})")
            w.assistant(rng, [{"type": "text", "text": f"Looking at `{fname}` first."}])
            for j in range(4):
                out = f"==> {fname} call {n}.{j}\n" + pool[(n * 4 + j) % len(pool)]
                if j % 2:
                    w.tool(rng, "Read", {"file_path": f"{cwd}/{fname}"}, out)
                else:
                    w.tool(rng, "Bash", {"command": f"pytest -q {fname} -x"}, out)
            w.assistant(rng, [{"type": "text", "text": f"Done with round {n}: the retry in {fname} is fixed."}])
            for record in w.lines:
                line = json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"
                f.write(line)
                written += len(line)
            w.lines.clear()
            n += 1
    return path


def bounded(work: Path, megabytes: int) -> dict[str, Any]:
    tree, home = work / "projects", work / "home"
    home.mkdir(parents=True)
    results: dict[str, Any] = {}
    path = rb.phase(results, "write", lambda: write_big_session(tree, megabytes))
    results["file_bytes"] = path.stat().st_size
    os.environ["VYRE_EMBEDDER"] = "none"
    with Memory(home) as mem:
        mem.stats()
        results["baseline_mb"] = rb.rss_mb()
        rb.ingest_all(mem, tree, results)
        results["turns"] = mem.stats()["turns"]["total"]
    results["db_bytes"] = rb.db_bytes(home)
    return results


def print_bounded(r: dict[str, Any]) -> None:
    base = r["baseline_mb"]
    rep = r["report"]
    print(f"\n== bounded memory: one {r['file_bytes'] / 1e6:,.0f} MB transcript "
          f"({rep.records:,} records, {r['turns']:,} turns); load average {os.getloadavg()[0]:.1f} ==")
    print(f"  written in {r['write']['seconds']:.1f} s; baseline RSS before ingest {base:,.0f} MB; "
          f"ingest reads it in pieces of {PIECE_BYTES >> 20} MB, one transaction each")
    for name, label in (("ingest", "ingest step"), ("passages", "passages"), ("derive", "derive")):
        p = r[name]
        print(f"  {label:12s} {p['seconds']:7.1f} s   peak RSS {p['peak_mb']:,.0f} MB = "
              f"{p['peak_mb'] - base:+,.0f} MB above the baseline")
    worst = max(r[n]["peak_mb"] for n in ("ingest", "passages", "derive")) - base
    print(f"  worst          {worst:+,.0f} MB above the baseline for a {r['file_bytes'] / 1e6:,.0f} MB file "
          f"(should stay far below the file size)")
    print(f"  database       {r['db_bytes'] / 1e6:,.0f} MB")


def print_scale(r: dict[str, Any]) -> None:
    rep = r["report"]
    ing = r["ingest"]["seconds"]
    turns = max(1, r["turns"])
    print(f"  ingest            {rep.records / ing:,.0f} records/s, {rep.new_turns / ing:,.0f} turns/s "
          f"({rep.records:,} records in {ing:.1f} s, {rep.records / r['ingest']['cpu']:,.0f} records per CPU-second "
          f"(other work on the machine slows the wall rate); target {rb.TARGETS['ingest records/s']} records/s)")
    print(f"  passage build     {r['passages']['seconds']:.1f} s ({r['passage_count']:,} passages, "
          f"{r['passage_count'] / r['passages']['seconds']:,.0f}/s); derive {r['derive']['seconds']:.1f} s")
    print(f"  index build       {r['index_build']['seconds']:.1f} s ({r['index_rows']:,} rows, {r['index_kind']})")
    print(f"  database          {r['db_bytes'] / 1e6:,.0f} MB, {r['db_bytes'] / turns:,.0f} bytes per turn")
    print("  peak RSS          " + ", ".join(
        f"{n} {r[n]['peak_mb']:,.0f} MB" for n in ("ingest", "passages", "derive", "pseudo_vectors", "index_build")
    ) + f", queries {r['query_peak_mb']:,.0f} MB")
    for name in ("answer (fast path)", "retrieve bm25", "retrieve dense", "retrieve hybrid", "ask (no model)"):
        print(f"  {name:19s} {rb.fmt_lat(r[name])}")
    print(f"  targets: {'; '.join(f'{k} {v}' for k, v in rb.TARGETS.items())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, action="append", help="stored turns to aim for (repeatable; default 100000)")
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bounded-mb", type=int, default=500, help="size of the one big transcript (0: skip)")
    ap.add_argument("--no-history", action="store_true", help="only the bounded-memory check")
    ap.add_argument("--keep", default=None, help="keep the work directories under this folder")
    args = ap.parse_args()
    print("Vectors are PSEUDO-EMBEDDINGS (no model runs); embedding throughput is measured by bench/embed.py.")
    if args.bounded_mb:
        for work in rb.workdir(args.keep, f"bounded-{args.bounded_mb}"):
            print_bounded(bounded(work, args.bounded_mb))
            sys.stdout.flush()
    if args.no_history:
        return
    for turns in args.turns or [100_000]:
        for work in rb.workdir(args.keep, f"scale-{turns}"):
            started = time.perf_counter()
            r = rb.run(turns, args.questions, work, args.seed)
            rb.header(r, args.questions)
            print_scale(r)
            print(f"  (whole run {time.perf_counter() - started:,.0f} s)")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

"""Project-scoped full text for the commonest words, on a PostgreSQL store a bench/retrieve.py run left:
how many passages each search returns and how long it takes, beside the cut PostgreSQL made before
(ranking the newest passages of everyone's past the budget, so an older project could find nothing).

    .venv/bin/python bench/full_text_scope.py postgresql://me@host/bench_db

Uses the generated history's projects and vocabulary (eval.synth). Prints, never asserts.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from vyre_memory.contract import Scope  # noqa: E402
from vyre_memory.eval.synth import FILES, PROJECTS, WORDS  # noqa: E402
from vyre_memory.store import postgres  # noqa: E402
from vyre_memory.store.open import open_store  # noqa: E402

HOME = "/home/sam"


def main() -> None:
    store = open_store(sys.argv[1])  # not read-only: brings the schema up to date (its indexes)
    if not isinstance(store, postgres.PostgresStore):
        raise SystemExit("give a postgresql:// URL: this measures the PostgreSQL store's full text")
    total = store.passage_count()
    counts = {w: store.match_count(w) for w in {*WORDS, *FILES[:10]}}
    words = sorted(counts, key=lambda w: -counts[w])[:8]
    print(f"{total:,} passages; the commonest words: " + ", ".join(f"{w} ({counts[w]:,})" for w in words))

    def newest_cut(word: str, scope: Scope) -> list[tuple[int, float]]:
        first = int(total - total * postgres.POSTINGS_BUDGET / counts[word])
        budget, postgres.POSTINGS_BUDGET = postgres.POSTINGS_BUDGET, 1 << 40  # the old query: ids, no other cap
        try:
            return store.full_text([word], scope, ids=(max(0, first), 1 << 62))
        finally:
            postgres.POSTINGS_BUDGET = budget

    rows = []
    for word in words:
        for project in PROJECTS:
            scope = Scope.of([f"{HOME}/code/{project}"])
            t = time.perf_counter()
            found = store.full_text([word], scope)
            found_ms = (time.perf_counter() - t) * 1000
            t = time.perf_counter()
            cut = newest_cut(word, scope)
            cut_ms = (time.perf_counter() - t) * 1000
            rows.append((found_ms, cut_ms, len(found), len(cut)))
            print(f"  {word:>12} {project:>14}   {len(found):3d} passages {found_ms:7.1f} ms   "
                  f"newest cut {len(cut):3d} passages {cut_ms:7.1f} ms", flush=True)

    def p95(values: list[float]) -> float:
        return sorted(values)[int(0.95 * (len(values) - 1))]

    now, before = [r[0] for r in rows], [r[1] for r in rows]
    print(f"scoped searches: {len(rows)}; p50 / p95 {statistics.median(now):.0f} / {p95(now):.0f} ms, "
          f"none empty: {all(r[2] for r in rows)}; newest cut p50 / p95 {statistics.median(before):.0f} / "
          f"{p95(before):.0f} ms, empty in {sum(not r[3] for r in rows)}")


if __name__ == "__main__":
    main()

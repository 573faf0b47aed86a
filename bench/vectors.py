"""VectorIndex figures at 100k and 1M random-but-clustered unit vectors (dim 384).

    .venv/bin/python bench/vectors.py [--sizes 100000,1000000] [--queries 60] [--engine faiss|numpy]

Prints, per size: build time, resident memory added by the index, p50/p95 latency of a top-50
query unscoped and scoped to 50k allowed ids, and recall@50 of each against brute force. Queries
run one at a time (as a user's would). Prints figures only: never asserts a timing.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from vyre_memory.store.vectors import VectorIndex

DIM = 384


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def clustered(n: int, seed: int = 0, clusters: int = 2000, noise: float = 0.7) -> np.ndarray:
    """Unit vectors around random cluster centres (cosine to own centre ~0.8), float32."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, DIM), dtype=np.float32)
    out = np.empty((n, DIM), dtype=np.float32)
    for s in range(0, n, 100_000):
        e = min(n, s + 100_000)
        x = centres[rng.integers(0, clusters, e - s)] + noise * rng.standard_normal((e - s, DIM), dtype=np.float32)
        out[s:e] = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def percentiles(wall: list[float], cpu: list[float]) -> str:
    w, c = np.array(wall) * 1000, np.array(cpu) * 1000
    return (
        f"wall p50 {np.percentile(w, 50):6.2f} p95 {np.percentile(w, 95):6.2f} ms | "
        f"cpu p50 {np.percentile(c, 50):6.2f} p95 {np.percentile(c, 95):6.2f} ms"
    )


def measure(
    idx: VectorIndex, q: np.ndarray, x: np.ndarray, ids: np.ndarray, scope_rows: np.ndarray | None
) -> tuple[str, float]:
    allowed = ids[scope_rows] if scope_rows is not None else None
    idx.search(q[0], 50, allowed=allowed)  # warm-up
    wall, cpu, hits = [], [], []
    for qi in q:
        t, c = time.perf_counter(), time.process_time()
        got = idx.search(qi, 50, allowed=allowed)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - t)
        rows = scope_rows if scope_rows is not None else slice(None)
        s = x[rows] @ qi
        want = set((ids[rows])[np.argpartition(-s, 50)[:50]].tolist())
        hits.append(len({i for i, _ in got} & want) / 50)
    return percentiles(wall, cpu), float(np.mean(hits))


def run(n: int, queries: int, engine: str | None) -> None:
    rng = np.random.default_rng(n)
    x = clustered(n)
    ids = rng.permutation(n).astype(np.int64) + 1  # row ids as a database would hand them out
    before = rss_mb()
    t0 = time.perf_counter()
    idx = VectorIndex(DIM, engine=engine)
    for s in range(0, n, 50_000):  # ingest-sized batches
        idx.add(ids[s : s + 50_000], x[s : s + 50_000])
    build = time.perf_counter() - t0
    mem = rss_mb() - before
    q = x[rng.integers(0, n, queries)] + 0.3 * rng.standard_normal((queries, DIM), dtype=np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    scope_rows = np.sort(rng.choice(n, min(50_000, n), replace=False))
    ivf = not idx.is_exact
    mode = f"IVF ({idx._index.nlist} cells, nprobe {idx._index.nprobe})" if ivf else "exact flat"
    print(f"\n{n:,} vectors, engine {idx.engine}, {mode}; load average {os.getloadavg()[0]:.1f}")
    print(
        f"  build {build:6.1f} s   index holds ~{idx.nbytes / 2**20:,.0f} MB (RSS grew {mem:,.0f} MB during the build; "
        f"the float32 input alone is {x.nbytes / 2**20:,.0f} MB)"
    )
    for name, rows in (("unscoped", None), (f"scoped {len(scope_rows) // 1000}k", scope_rows)):
        line, recall = measure(idx, q, x, ids, rows)
        print(f"  top-50 {name:12s} {line}   recall@50 {recall:.4f}")
    if ivf:
        default = idx._index.nprobe
        for frac in (16, 8, 4, 2, 1):
            idx._index.nprobe = max(1, idx._index.nlist // frac)
            line, recall = measure(idx, q[: max(20, queries // 2)], x, ids, None)
            print(f"    nprobe {idx._index.nprobe:5d} (1/{frac:<2d}) {line}   recall@50 {recall:.4f}")
        idx._index.nprobe = default
    t = time.perf_counter()
    for qi in q[:10]:
        np.argpartition(-(x @ qi), 50)[:50]
    print(f"  (reference: numpy float32 brute force, mean wall {(time.perf_counter() - t) * 100:.1f} ms/query)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--engine", default=None)
    args = ap.parse_args()
    print(f"cores={os.cpu_count()}  load average={os.getloadavg()[0]:.1f} (other work on the machine skews timings)")
    for n in (int(s) for s in args.sizes.split(",")):
        run(n, args.queries, args.engine)


if __name__ == "__main__":
    main()

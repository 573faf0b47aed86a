"""Retrieval latency at scale: index build, p50/p95 of Memory.retrieve (bm25, dense, hybrid), the no-model
Memory.ask and the fast path Memory.answer, database size and peak memory, on a generated history.

    .venv/bin/python bench/retrieve.py --turns 100000 [--turns 1000000] [--questions 200] [--keep DIR]
    .venv/bin/python bench/retrieve.py --queries-only DIR/retrieve-1000000/home   (the queries again, on a kept store)
    .venv/bin/python bench/retrieve.py --resume DIR/retrieve-1000000   (finish a kept run that stopped after ingest)
    .venv/bin/python bench/retrieve.py --turns 100000 --database postgresql://me@host/empty_db   (the PostgreSQL store)
    .venv/bin/python bench/retrieve.py --turns 1000000 --history KEPT/retrieve-1000000 --keep OTHER   (a kept history,
        read in place and never changed; the store goes to OTHER/retrieve-1000000/home)

Per size: writes a history of about N stored turns (eval.synth.write_history, sessions spread over ~5
years), ingests it with no embedder (ingest step, passage build and fact derivation timed apart, as
Memory.ingest runs them), then gives every passage text a PSEUDO-EMBEDDING: a deterministic unit vector
drawn from the text hash (clustered, dim 384), stored with store.put_vectors under the hash embedder's
model name, so queries (embedded by HashEmbedder) and passages share one name and dimension. No model
runs: these figures are the index and query side only; embedding throughput is bench/embed.py's.
Latencies are wall-clock on a shared 2-core machine (the load average is printed). Prints, never asserts.
With --database, the store is that PostgreSQL database (empty; one size per database): full-text and
vector search run inside it (tsvector + GIN, pgvector HNSW), so there is no index build or passage
directory in this process.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from vyre_memory import Memory  # noqa: E402
from vyre_memory.ask.derived_vectors import embed_derived  # noqa: E402
from vyre_memory.ask.index import DERIVED  # noqa: E402
from vyre_memory.ask.passages import text_hash  # noqa: E402
from vyre_memory.eval.synth import FILES, PROJECTS, WORDS, write_history  # noqa: E402
from vyre_memory.ingest.runner import IngestSettings  # noqa: E402
from vyre_memory.ingest.runner import ingest as run_ingest  # noqa: E402
from vyre_memory.models.embed import HashEmbedder  # noqa: E402

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)  # the questions' "now": after the last generated session
YEARS = 5
TURNS_PER_SESSION = 54  # stored turns per write_history session (subagents included), measured at seed 7
SESSION_HOURS = 7  # write_history starts session i at start + 7h * i
DATABASE: str | None = None  # --database: a postgresql:// URL instead of VYRE_HOME's SQLite file
STREAMS = 10  # write_history runs, staggered over the years (each one a burst of activity)
HOME = "/home/sam"
DIM = 384
TARGETS = {
    "ingest records/s": ">= 5,000",
    "hybrid p95": "<= 150 ms at 1M",
    "fast path p95": "<= 10 ms",
    "no-model ask p95": "<= 150 ms at 1M",
}


# -- memory ------------------------------------------------------------------------------------
def peak_rss_mb() -> float:
    """Peak RSS of this process since start or the last reset_peak (VmHWM; getrusage if unavailable)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux clear_refs 5), so a phase's own peak can be read."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def phase(results: dict[str, Any], name: str, fn: Callable[[], Any]) -> Any:
    """Run fn, storing its seconds and the peak RSS during it under results[name]."""
    reset_peak()
    before = rss_mb()
    t, cpu = time.perf_counter(), time.process_time()
    out = fn()
    results[name] = {"seconds": time.perf_counter() - t, "cpu": time.process_time() - cpu, "peak_mb": peak_rss_mb(),
                     "rss_before_mb": before}
    print(f"  [{time.strftime('%H:%M:%S')}] {name}: {results[name]['seconds']:.1f} s "
          f"({results[name]['cpu']:.1f} s CPU), peak RSS {results[name]['peak_mb']:,.0f} MB, "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    return out


# -- the history ---------------------------------------------------------------------------------
def generate(tree: Path, turns: int, seed: int = 7) -> tuple[list[Path], int]:
    """Write about `turns` stored turns as STREAMS staggered write_history runs over YEARS years before NOW."""
    sessions = max(1, math.ceil(turns / TURNS_PER_SESSION))
    per = math.ceil(sessions / STREAMS)
    span = timedelta(days=365 * YEARS)
    stream_len = timedelta(hours=SESSION_HOURS * per)
    step = max(timedelta(0), (span - stream_len) / max(1, STREAMS - 1))
    files: dict[Path, None] = {}
    left = sessions
    for s in range(STREAMS):
        n = min(per, left)
        if n <= 0:
            break
        start = NOW - span + step * s
        for f in write_history(tree, sessions=n, seed=seed * 1000 + s, start=start, home=HOME):
            files[f] = None
        left -= n
    return list(files), sessions


def db_bytes(home: Path) -> int:
    if DATABASE:
        with Memory(home, database=DATABASE) as mem:
            return mem.store.database_bytes()
    db = home / "memory.db"
    parts = (db, db.with_name("memory.db-wal"), db.with_name("memory.db-shm"))
    return sum(p.stat().st_size for p in parts if p.exists())


def ingest_all(mem: Memory, tree: Path, results: dict[str, Any]) -> None:
    """What Memory.ingest does, one step at a time: ingest step, passages (no embedder), facts and graph."""
    settings = IngestSettings(vyre_home=str(mem.config.home), builds_memory_folders=mem.config.builds_memory_folders)
    report = phase(results, "ingest", lambda: run_ingest(mem.store, [tree], settings))
    results["report"] = report
    phase(results, "passages", mem.index)
    phase(results, "derive", lambda: mem.derive(incremental=True))


def pseudo_vector(text_hash: str, centres: np.ndarray) -> np.ndarray:
    """A deterministic unit vector for a text hash: a cluster centre plus noise (cosine to it ~0.8)."""
    seed = int.from_bytes(hashlib.blake2b(text_hash.encode(), digest_size=8).digest(), "little")
    rng = np.random.default_rng(seed)
    x = centres[seed % len(centres)] + 0.7 * rng.standard_normal(DIM, dtype=np.float32)
    return x / np.linalg.norm(x)


CENTRES = np.random.default_rng(0).standard_normal((2000, DIM), dtype=np.float32)


class PseudoEmbedder:
    """Pseudo-embeddings by text hash under `model`: what the sentences' pass (ask/sentences.py) is given here."""

    def __init__(self, model: str) -> None:
        self.name, self.dim = model, DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([pseudo_vector(text_hash(t), CENTRES) for t in texts])


def put_pseudo_vectors(mem: Memory, model: str, batch: int = 20_000) -> int:
    """Give every distinct passage text hash a pseudo-embedding under `model`, then every derived text one (the
    sentences of the typed words, the exchanges of conversations: through `embed_derived`, as an ingest would);
    returns how many vectors."""
    hashes = [r[0] for r in mem.store.conn.execute("SELECT DISTINCT text_hash FROM passages")]
    last = mem.store.passage_count()
    for s in range(0, len(hashes), batch):
        done = s + batch >= len(hashes)  # the last batch moves the high-water mark, as index() would
        items = [(h, pseudo_vector(h, CENTRES)) for h in hashes[s : s + batch]]
        mem.store.put_vectors(model, items, through_id=last if done else 0)
    run = lambda fn, *a, **kw: fn(*a, **kw)  # noqa: E731
    said = sum(embed_derived(kind, mem.store, PseudoEmbedder(model), run, batch=batch) for kind in DERIVED)
    print(f"  {len(hashes):,} passage vectors, {said:,} derived vectors (sentences, exchanges)", flush=True)
    return len(hashes) + said


# -- the questions -------------------------------------------------------------------------------
TIME_WORDS = ["last week", "yesterday", "in june", "last month", "in march", "three days ago", "last year",
              "about two months ago", "this week", "in august 2024", "recently", "over the summer"]
TEMPLATES = [
    "why did {f} fail on ci",
    "what did we change in {f}",
    "when did we add retries to {f}",
    "{w1} {w2} problem",
    "what was the {w1} {w2} fix",
    "did we decide on advisory locks",
    "which migration added the index",
    "when did we last deploy to staging",
    "what version did we ship",
    "{w1} in {f}",
    "how did we fix the flaky {w1} test",
    "where is the {w1} handled",
    "what is my daughter's school",
    "who is my wife",
    "what is my dog called",
    "what did the subagent find about callers of {f}",
]


def questions(n: int, seed: int = 11) -> list[tuple[str, list[str] | None]]:
    """(question, project_cwds or None): words, file names and time words from the synthetic vocabulary;
    a third of them scoped to one project."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        q = rng.choice(TEMPLATES).format(f=rng.choice(FILES), w1=rng.choice(WORDS), w2=rng.choice(WORDS))
        if rng.random() < 0.35:
            q += " " + rng.choice(TIME_WORDS)
        scope = [f"{HOME}/code/{rng.choice(PROJECTS)}"] if i % 3 == 0 else None
        out.append((q + "?", scope))
    return out


def latencies(
    name: str, fn: Callable[[str, list[str] | None], Any], qs: list[tuple[str, list[str] | None]]
) -> dict[str, Any]:
    """p50/p95/max wall ms of fn over the questions (after one warm-up call), and the p50/p95 of this process's
    CPU ms (what a busy shared machine does not inflate as it does the wall time); an error is recorded, not raised."""
    wall, cpu = [], []
    try:
        fn(*qs[0])  # warm-up
        for q, scope in qs:
            t, c = time.perf_counter(), time.process_time()
            fn(q, scope)
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
    except Exception as e:  # a bench reports what broke and goes on
        out: dict[str, Any] = {"error": f"{type(e).__name__}: {e}"}
        print(f"  [{time.strftime('%H:%M:%S')}] {name}: FAILED {out['error']}", flush=True)
        return out
    ms, cpu_ms = np.array(wall) * 1000, np.array(cpu) * 1000
    res = {"p50": float(np.percentile(ms, 50)), "p95": float(np.percentile(ms, 95)), "max": float(ms.max()),
           "n": len(ms), "cpu_p50": float(np.percentile(cpu_ms, 50)), "cpu_p95": float(np.percentile(cpu_ms, 95))}
    print(f"  [{time.strftime('%H:%M:%S')}] {name}: {fmt_lat(res)}", flush=True)
    return res


def query_phase(home: Path, qs: list[tuple[str, list[str] | None]], results: dict[str, Any]) -> None:
    """A fresh Memory (as a new process would open one) with the hash embedder for queries. Each question is
    asked a second after the one before it, as a person asks them: nothing one kept for its own time (a time
    window's mask, an answer cached by its "now") serves the next."""
    tick = itertools.count()

    def now() -> datetime:
        return NOW + timedelta(seconds=next(tick))

    os.environ["VYRE_EMBEDDER"] = "hash"
    os.environ["VYRE_MODEL_BACKEND"] = "none"
    with Memory(home, database=DATABASE) as mem:
        emb = mem.embedder
        assert emb is not None and emb.name == HashEmbedder().name
        count = mem.store.passage_count()
        version = mem.store.vectors_version()
        in_database = mem.store.searches_in_database  # PostgreSQL: no index or directory in this process
        phase(results, "index_build", lambda: mem.store.vector_index(emb.dim) if in_database  # type: ignore
              else mem.retriever.vectors.get(mem.store, emb.name, emb.dim, version))
        # the other per-process load: where every passage sits (scope and time filters)
        phase(results, "directory", lambda: in_database or mem.retriever.directory.refresh(mem.store))
        index = mem.retriever.vectors.index
        results["index_kind"] = "exact" if index is None or index.is_exact else "IVF"
        results["index_rows"] = 0 if index is None else len(index)
        t = time.perf_counter()
        mem.index()  # what every ingest pays for the index when there is nothing new to embed
        results["texts_without_vectors_s"] = time.perf_counter() - t
        reset_peak()
        results["answer (fast path)"] = latencies(
            "answer (fast path)", lambda q, s: mem.answer(q, project_cwds=s, now=now()), qs
        )
        for config in ("bm25", "dense", "hybrid"):
            results[f"retrieve {config}"] = latencies(
                f"retrieve {config}", lambda q, s, c=config: mem.retrieve(q, project_cwds=s, now=now(), config=c), qs
            )
        results["ask (no model)"] = latencies("ask (no model)", lambda q, s: mem.ask(q, project_cwds=s, now=now()), qs)
        results["query_peak_mb"] = peak_rss_mb()
        results["passage_count"] = count
        results["stats"] = mem.stats()


def build(turns: int, work: Path, seed: int = 7, keep_tree: bool = False,
          history: Path | None = None) -> dict[str, Any]:
    """Generate (or read `history`, a folder an earlier --keep run left), ingest (no embedder), pseudo-embed;
    returns the figures so far. Leaves VYRE_HOME in work/home."""
    results: dict[str, Any] = {"turns_asked": turns}
    tree, home = (history or work) / "projects", work / "home"
    home.mkdir(parents=True, exist_ok=True)
    marker = (history or work) / "generated.json"
    if history is not None and not (marker.exists() and tree.exists()):
        raise SystemExit(f"--history {history}: no projects/ and generated.json there (what --keep leaves)")
    if marker.exists() and tree.exists():  # --reuse or --history: the same arguments write the same bytes
        results.update(json.loads(marker.read_text(encoding="utf-8")))
        print(f"  reusing the generated tree in {tree}", flush=True)
    else:
        files, sessions = phase(results, "generate", lambda: generate(tree, turns, seed))
        results["files"] = len(files)
        results["sessions_generated"] = sessions
        results["source_bytes"] = sum(f.stat().st_size for f in files)
        keys = ("generate", "files", "sessions_generated", "source_bytes")
        marker.write_text(json.dumps({k: results[k] for k in keys}), encoding="utf-8")
    os.environ["VYRE_EMBEDDER"] = "none"
    with Memory(home, database=DATABASE) as mem:
        ingest_all(mem, tree, results)
        results["vectors"] = phase(results, "pseudo_vectors", lambda: put_pseudo_vectors(mem, HashEmbedder().name))
        results["turns"] = mem.stats()["turns"]["total"]
    results["db_bytes"] = db_bytes(home)
    if not keep_tree and history is None:
        shutil.rmtree(tree)  # the transcripts are not needed for querying
    return results


def resume(work: Path, n_questions: int) -> dict[str, Any]:
    """Finish a kept run that stopped part way: the steps after the ingest step (passages from the last indexed
    turn, facts if the turns changed since the last derive, pseudo-vectors for every passage text), each timed
    as in a full run, then the queries. The ingest step's figures are in the stopped run's log."""
    home = work / "home"
    asked = work.name.removeprefix("retrieve-")
    results: dict[str, Any] = {"turns_asked": int(asked) if asked.isdigit() else 0}
    os.environ["VYRE_EMBEDDER"] = "none"
    with Memory(home, database=DATABASE) as mem:
        store = mem.store
        print(f"  resuming {home}: {store.stats()['turns']['total']:,} turns, {store.passage_count():,} passages "
              f"(indexed through turn {store.indexed_turn():,}), derived: "
              f"{store.get_meta('derived_corpus') == str(store.corpus_version())}", flush=True)
        phase(results, "passages", mem.index)
        if store.get_meta("derived_corpus") != str(store.corpus_version()):
            phase(results, "derive", lambda: mem.derive(incremental=True))
        results["vectors"] = phase(results, "pseudo_vectors", lambda: put_pseudo_vectors(mem, HashEmbedder().name))
        results["turns"] = mem.stats()["turns"]["total"]
    query_phase(home, questions(n_questions), results)
    return totals(results, home)


def run(turns: int, n_questions: int, work: Path, seed: int = 7, keep_tree: bool = False,
        history: Path | None = None) -> dict[str, Any]:
    results = build(turns, work, seed, keep_tree, history)
    query_phase(work / "home", questions(n_questions), results)
    return totals(results, work / "home")


def totals(results: dict[str, Any], home: Path) -> dict[str, Any]:
    """The database size and the largest phase's peak RSS, added to the figures."""
    results["db_bytes"] = db_bytes(home)
    phases = [v for v in results.values() if isinstance(v, dict) and "peak_mb" in v]
    peaks = [v["peak_mb"] for v in phases if math.isfinite(v["peak_mb"])]
    results["peak_rss_mb"] = max([*peaks, results["query_peak_mb"]])
    return results


# -- printing --------------------------------------------------------------------------------------
def fmt_lat(d: dict[str, Any]) -> str:
    if "error" in d:
        return f"FAILED: {d['error']}"
    return (f"p50 {d['p50']:8.1f} ms   p95 {d['p95']:8.1f} ms   max {d['max']:8.1f} ms   "
            f"(CPU p50 {d['cpu_p50']:6.1f} ms, p95 {d['cpu_p95']:6.1f} ms)")


def print_ingest(r: dict[str, Any]) -> None:
    rep = r["report"]
    ing = r["ingest"]["seconds"]
    gen = r.get("generate", {}).get("seconds", float("nan"))
    print(f"  generate          {gen:8.1f} s   {r['sessions_generated']:,} sessions, "
          f"{r['files']:,} files, {r['source_bytes'] / 1e6:,.0f} MB of JSONL")
    print(f"  ingest step       {ing:8.1f} s   {rep.records:,} records, {rep.new_turns:,} turns   "
          f"{rep.records / ing:,.0f} records/s, {rep.new_turns / ing:,.0f} turns/s   "
          f"(target {TARGETS['ingest records/s']}; {rep.records / r['ingest']['cpu']:,.0f} records per CPU-second)   "
          f"peak RSS {r['ingest']['peak_mb']:,.0f} MB")
    for name in ("passages", "derive", "pseudo_vectors"):
        print(f"  {name:17s} {r[name]['seconds']:8.1f} s   peak RSS {r[name]['peak_mb']:,.0f} MB")
    all_in = ing + r["passages"]["seconds"] + r["derive"]["seconds"]
    print(f"  Memory.ingest     {all_in:8.1f} s   {rep.records / all_in:,.0f} records/s end to end (no embedder)")


def print_queries(r: dict[str, Any]) -> None:
    ib = r["index_build"]
    print(f"  index build       {ib['seconds']:8.1f} s   {r['index_rows']:,} rows, {r['index_kind']}; "
          f"peak RSS {ib['peak_mb']:,.0f} MB (from {ib['rss_before_mb']:,.0f} MB)")
    print(f"  passage directory {r['directory']['seconds']:8.1f} s   loaded once per process; "
          f"peak RSS {r['directory']['peak_mb']:,.0f} MB")
    print(f"  index() with nothing to do {r['texts_without_vectors_s'] * 1000:,.0f} ms")
    target = {"retrieve hybrid": TARGETS["hybrid p95"], "ask (no model)": TARGETS["no-model ask p95"],
              "answer (fast path)": TARGETS["fast path p95"]}
    for name in ("retrieve bm25", "retrieve dense", "retrieve hybrid", "ask (no model)", "answer (fast path)"):
        t = f"   target p95 {target[name]}" if name in target else ""
        print(f"  {name:19s} {fmt_lat(r[name])}{t}")


def print_summary(r: dict[str, Any]) -> None:
    turns = max(1, r["turns"])
    print(f"  database          {r['db_bytes'] / 1e6:,.0f} MB, {r['db_bytes'] / turns:,.0f} bytes per turn, "
          f"{r['passage_count']:,} passages, {r['vectors']:,} vectors")
    print(f"  peak RSS          {r['peak_rss_mb']:,.0f} MB (largest phase peak; during the queries "
          f"{r['query_peak_mb']:,.0f} MB)")


def header(r: dict[str, Any], n_questions: int) -> None:
    print(f"\n== {r['turns']:,} stored turns (asked ~{r['turns_asked']:,}); {n_questions} questions; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores ==")


def workdir(keep: str | None, label: str, reuse: bool = False) -> Iterator[Path]:
    """A fresh work directory (removed afterwards unless --keep names a parent to keep it in; with reuse,
    a kept generated tree is used again)."""
    if keep:
        path = Path(keep) / label
        if reuse and (path / "generated.json").exists():
            shutil.rmtree(path / "home", ignore_errors=True)  # a fresh store over the kept transcripts
        elif path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix=f"vyre-bench-{label}-") as tmp:
        yield Path(tmp)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, action="append", help="stored turns to aim for (repeatable; default 100000)")
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", default=None, help="keep the work directory (and the transcripts) under this folder")
    ap.add_argument("--reuse", action="store_true", help="with --keep: reuse a tree generated by an earlier run")
    ap.add_argument("--history", default=None, metavar="DIR",
                    help="read the history an earlier --keep run left in DIR (DIR/projects, DIR/generated.json) "
                         "in place, never changing it; the store goes to --keep's folder (or a temporary one)")
    ap.add_argument("--queries-only", metavar="HOME", default=None,
                    help="time only the queries, over the store an earlier --keep run left (KEEP/retrieve-N/home)")
    ap.add_argument("--database", default=None, metavar="URL",
                    help="measure the PostgreSQL store in this empty database (postgresql://...; one --turns per URL)")
    ap.add_argument("--resume", metavar="WORK", default=None,
                    help="finish a kept run (KEEP/retrieve-N) that stopped after the ingest step, then the queries")
    args = ap.parse_args()
    global DATABASE
    DATABASE = args.database
    if args.resume:
        done = resume(Path(args.resume), args.questions)
        header(done, args.questions)
        for name in ("passages", "derive", "pseudo_vectors"):
            if name in done:
                print(f"  {name:17s} {done[name]['seconds']:8.1f} s   peak RSS {done[name]['peak_mb']:,.0f} MB")
        print_queries(done)
        print_summary(done)
        return
    if args.queries_only:
        r: dict[str, Any] = {}
        query_phase(Path(args.queries_only), questions(args.questions), r)
        print(f"\n== {r['stats']['turns']['total']:,} stored turns in {args.queries_only}; {args.questions} questions; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores ==")
        print_queries(r)
        return
    print("Vectors are PSEUDO-EMBEDDINGS (deterministic random unit vectors per text hash, dim 384): no model runs.")
    print("Embedding throughput is measured by bench/embed.py; queries are embedded by HashEmbedder.")
    history = Path(args.history).resolve() if args.history else None
    for turns in args.turns or [100_000]:  # --keep's work folder is replaced: never the history's, nor around it
        work = (Path(args.keep or tempfile.gettempdir()) / f"retrieve-{turns}").resolve()
        if history is not None and (work == history or history in work.parents or work in history.parents):
            raise SystemExit(f"--keep {args.keep} would replace {work}, inside or around --history: name another")
    for turns in args.turns or [100_000]:
        for work in workdir(args.keep, f"retrieve-{turns}", args.reuse):
            r = run(turns, args.questions, work, args.seed, keep_tree=bool(args.keep), history=history)
            header(r, args.questions)
            print_ingest(r)
            print_queries(r)
            print_summary(r)
            sys.stdout.flush()


if __name__ == "__main__":
    main()

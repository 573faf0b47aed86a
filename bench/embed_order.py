"""When each priority class of passages has its vectors, on a first ingest of a generated history.

    nice -n 10 .venv/bin/python bench/embed_order.py [--sessions 20] [--embedder minilm] [--tree PATH]

Writes a history (eval.synth.write_history), or reads the transcripts under --tree, ingests it
without vectors, then embeds the backlog the way `vyre serve` does in the background
(`Memory.embed_backlog`, short batches in priority order: the person's and the assistant's words,
then other words, then tool calls and output). Prints, per class, its passages, distinct texts and
characters, and the wall and CPU time at which its last vector was stored, as a share of the whole.
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
from vyre_memory.store.passages import EMBED_CLASSES, embed_priority  # noqa: E402

NAMES = ["typed + assistant", "other words", "tool calls + output"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--tree", type=Path, help="a transcripts folder to read instead of a generated history")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vyre-bench-order-") as tmp:
        tree, home = Path(tmp) / "projects", Path(tmp) / "home"
        home.mkdir()
        (home / "config.toml").write_text(f'user_name = "Sam"\nembedder = "{args.embedder}"\n', encoding="utf-8")
        if args.tree:
            tree = args.tree
            files = sum(1 for _ in tree.rglob("*.jsonl"))
        else:
            files = len(list(write_history(tree, sessions=args.sessions, seed=args.seed)))
        with Memory(home) as mem:
            mem.ingest([tree], embed_now_max=0)
            store = mem.store
            classes = len(EMBED_CLASSES)
            passages, texts, chars, last = [0] * classes, [set() for _ in range(classes)], [0] * classes, [0] * classes
            for pid, kind, text_hash, embed in store.conn.execute("SELECT id, kind, text_hash, embed FROM passages"):
                c = embed_priority(kind)
                passages[c] += 1
                last[c] = max(last[c], pid)
                if text_hash not in texts[c]:
                    texts[c].add(text_hash)
                    chars[c] += len(embed)
            assert mem.embedder is not None
            mem.embedder.embed(["warm"])  # the model's load is not the embedding's time
            name = mem.embedder.name
            done_at: list[tuple[float, float] | None] = [None] * classes
            started, cpu = time.perf_counter(), time.process_time()

            def progress(_done: int, _total: int, _: str) -> None:
                marks = store.embedded_through(name)
                for c in range(classes):
                    if done_at[c] is None and marks[c] >= last[c]:
                        done_at[c] = (time.perf_counter() - started, time.process_time() - cpu)

            embedded = mem.embed_backlog(progress)
            wall, cpu_all = time.perf_counter() - started, time.process_time() - cpu
            turns = mem.stats()["turns"]["total"]
        print(f"history   {files} files, {turns:,} turns, {sum(passages):,} passages, {embedded:,} texts embedded")
        print(f"embedder  {name}")
        print(f"all       {wall:.1f}s wall, {cpu_all:.1f}s CPU")
        for c in range(classes):
            at = done_at[c] or (wall, cpu_all)
            print(
                f"class {c} ({NAMES[c] if c < len(NAMES) else c}): {passages[c]:,} passages, {len(texts[c]):,} texts, "
                f"{chars[c]:,} chars; done at {at[0]:.1f}s wall ({at[0] / wall:.0%}), {at[1]:.1f}s CPU "
                f"({at[1] / max(cpu_all, 1e-9):.0%})"
            )


if __name__ == "__main__":
    main()

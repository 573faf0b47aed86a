"""Bench: the fast path's latency (p50/p95/max) and coverage over the open worlds' questions.

Usage: .venv/bin/python bench/fast_path.py [WORLD_DIR ...] [--rounds N]
Each world is ingested into a fresh temporary store (no embedder); then every question of the
world (all classes, each with its scope and `asked_at`) goes through `Memory.answer` N times.
Prints, per world: personal questions answered / answerable and right / answered, and latency.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from vyre_memory import Memory
from vyre_memory.eval.metrics import judge, percentile

PERSONAL = {"person", "relation", "place", "thing", "preference"}
DEFAULT_WORLDS = [Path("/work/shared/worlds/open"), Path("/work/shared/worlds/open2")]


def main(argv: list[str]) -> int:
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 20
    skip = {argv.index("--rounds") + 1} if "--rounds" in argv else set()
    worlds = [Path(a) for i, a in enumerate(argv) if not a.startswith("--") and i not in skip] or DEFAULT_WORLDS
    everything: list[float] = []
    for world in worlds:
        questions = json.loads((world / "questions.json").read_text())["questions"]
        with tempfile.TemporaryDirectory() as tmp, Memory(tmp, embedder="none", user_name="me") as mem:
            mem.ingest([world / "home" / ".claude" / "projects"])
            latencies: list[float] = []
            answerable = answered = right = 0
            for q in questions:
                scope = q.get("scope") or {}
                for _ in range(rounds):
                    res = mem.answer(
                        q["question"],
                        now=q["asked_at"],
                        project_cwds=scope.get("project_cwds"),
                        agent_projects=scope.get("agent_projects"),
                    )
                    latencies.append(res.latency_ms)
                if q["class"] not in PERSONAL:
                    continue
                expected = q.get("answerable", True) and not scope.get("agent_projects")
                answerable += int(expected)
                if not res.abstained:
                    answered += 1
                    right += int(judge(res.answer, False, expected, q.get("accept", []), q.get("reject") or []))
            everything += latencies
            print(
                f"{world.name}: personal answered {answered}/{answerable} ({answered / max(1, answerable):.0%}), "
                f"right {right}/{answered}; latency over {len(latencies)} asks: p50 {percentile(latencies, 50)} ms, "
                f"p95 {percentile(latencies, 95)} ms, max {max(latencies):.2f} ms"
            )
    print(f"all: p50 {percentile(everything, 50)} ms, p95 {percentile(everything, 95)} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

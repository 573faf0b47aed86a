"""Latency of the `claude` CLI backend: warm stream-json process vs one process per call.

Prints p50/p95 in ms; asserts nothing. By default it runs the fake `claude` from tests/models
(so the figure is process and protocol overhead, no model); pass --binary to time a real CLI
(that makes real, billed model calls).

    .venv/bin/python bench/model_latency.py --calls 20
    .venv/bin/python bench/model_latency.py --binary "$(which claude)" --calls 5
"""

from __future__ import annotations

import argparse
import stat
import statistics
import sys
import tempfile
import time
from pathlib import Path

from vyre_memory.models.base import ModelRequest
from vyre_memory.models.claude_cli import ClaudeCliBackend

FAKE = Path(__file__).resolve().parent.parent / "tests" / "models" / "fake_claude.py"


def _fake_binary(folder: Path) -> str:
    binary = folder / "claude"
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return str(binary)


def p50_p95(samples: list[float]) -> str:
    """p50 and p95 of samples in ms (bench/web_paint.py prints its figures with it too)."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):8.1f} ms   p95 {p95:8.1f} ms   n={len(ordered)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", help="a claude executable (default: the fake one from tests/models)")
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        binary = args.binary or _fake_binary(folder)
        backend = ClaudeCliBackend(folder / "cli", binary=binary)
        req = ModelRequest("answer", "bench", "1", "Reply with the word ok.", "ok?", timeout_s=120)
        warm: list[float] = []
        for _ in range(args.calls):
            start = time.perf_counter()
            backend.complete(req)
            warm.append((time.perf_counter() - start) * 1000)
        backend.close()
        cold: list[float] = []
        for _ in range(args.calls):
            start = time.perf_counter()
            backend.complete_once(req)
            cold.append((time.perf_counter() - start) * 1000)
    print(f"binary: {binary}")
    print(f"warm process, first call (spawn): {warm[0]:.1f} ms")
    print(f"warm process, later calls:        {p50_p95(warm[1:] or warm)}")
    print(f"one process per call:             {p50_p95(cold)}")


if __name__ == "__main__":
    main()

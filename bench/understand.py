"""Latency and class agreement of ``vyre_memory.ask.understand`` over the shared evaluation questions.

Usage: .venv/bin/python bench/understand.py [--shared /work/shared] [--misses] [--locomo-classes]
Prints p50/p95/max microseconds per ``understand()`` call over every world and LoCoMo question, and, per world,
how often ``qclass`` agrees with the gold ``class``; the first call of the process (dateparser's English data
loads); and the same figures over questions in other languages (dateparser translates their time words), with
how many English questions took a window from another language (there should be none).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from vyre_memory.ask.datelang import foreign_time_phrases
from vyre_memory.ask.understand import understand

# Invented questions in other languages, for the cost of dateparser's path (not scored).
FOREIGN = [
    "Was haben wir letzte Woche am Importer geändert?",
    "Welche Datei hatte gestern den Fehler?",
    "Was ist vor drei Tagen beim Deploy kaputtgegangen?",
    "¿Qué arreglamos la semana pasada en el cargador?",
    "¿Qué desplegamos en diciembre?",
    "¿Qué rompimos hace 3 días?",
    "Co wdrożyliśmy w zeszłym tygodniu?",
    "Co się zepsuło 3 dni temu w kolejce?",
    "Qu'avons-nous livré la semaine dernière ?",
    "Qu'est-ce qui a cassé en août ?",
    "Cosa abbiamo rilasciato ieri?",
    "O que corrigimos na semana passada?",
]


def _figures(name: str, times: list[float]) -> None:
    times.sort()
    p95 = times[int(len(times) * 0.95)]
    p99 = times[int(len(times) * 0.99)]
    print(
        f"understand() {name}: {len(times)} calls, p50 {statistics.median(times):.0f} us, "
        f"p95 {p95:.0f} us, p99 {p99:.0f} us, max {times[-1]:.0f} us"
    )


def _load(shared: Path) -> tuple[dict[str, list[dict[str, str]]], list[str]]:
    worlds: dict[str, list[dict[str, str]]] = {}
    for qfile in sorted((shared / "worlds").glob("*/questions.json")):
        data = json.loads(qfile.read_text())
        worlds[qfile.parent.name] = data["questions"] if isinstance(data, dict) else data
    locomo: list[str] = []
    for f in sorted((shared / "locomo").glob("*.json")):
        data = json.loads(f.read_text())
        convs = data if isinstance(data, list) else [data]
        for conv in convs:
            locomo.extend(str(q["question"]) for q in conv.get("qa", []))
    return worlds, locomo


def _when(q: dict[str, str]) -> datetime:
    raw = q.get("asked_at") or "2026-01-01T00:00:00Z"
    return datetime.fromisoformat(raw.replace("Z", "+00:00"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="/work/shared")
    ap.add_argument("--misses", action="store_true", help="print the questions whose class disagrees")
    ap.add_argument("--locomo-classes", action="store_true", help="print LoCoMo questions with their classes")
    args = ap.parse_args()
    worlds, locomo = _load(Path(args.shared))
    calls: list[tuple[str, datetime]] = [(q["question"], _when(q)) for qs in worlds.values() for q in qs]
    calls += [(q, datetime(2024, 1, 1, tzinfo=UTC)) for q in locomo]
    t0 = time.perf_counter_ns()
    understand(calls[0][0], calls[0][1])
    print(f"understand() first call of the process: {(time.perf_counter_ns() - t0) / 1e6:.0f} ms")
    t0 = time.perf_counter_ns()
    understand("what did we change", calls[0][1])
    print(f"understand() first call with no English time words: {(time.perf_counter_ns() - t0) / 1e6:.0f} ms")
    for text, now in calls[:200]:  # warm up
        understand(text, now)
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(3):
        for text, now in calls:
            t0, c0 = time.perf_counter_ns(), time.thread_time_ns()
            understand(text, now)
            cpu.append((time.thread_time_ns() - c0) / 1000)
            wall.append((time.perf_counter_ns() - t0) / 1000)
    # wall time includes waiting for a CPU on a busy machine; CPU time is what the code costs
    _figures(f"wall, {len(calls)} questions x3", wall)
    _figures(f"cpu, {len(calls)} questions x3", cpu)
    foreign = [text for text, _ in calls if foreign_time_phrases(text.lower())]
    print(f"English questions with a time phrase read as another language: {len(foreign)}", *foreign[:5], sep="\n  ")
    now = datetime(2026, 3, 13, tzinfo=UTC)
    t0 = time.perf_counter_ns()
    for text in FOREIGN:  # the first question in each language loads its translator
        understand(text, now)
    print(f"understand() {len(FOREIGN)} other-language questions, cold: {(time.perf_counter_ns() - t0) / 1e6:.0f} ms")
    found = sum(1 for text in FOREIGN if understand(text, now).window is not None)
    times = []
    for _ in range(20):
        for text in FOREIGN:
            t0 = time.perf_counter_ns()
            understand(text + " ", now)  # a new string each round: no cache hit on the whole question
            times.append((time.perf_counter_ns() - t0) / 1000)
    _figures(f"wall, other languages ({found}/{len(FOREIGN)} with a window)", times)
    for name, qs in worlds.items():
        ok = 0
        for q in qs:
            got = understand(q["question"], _when(q)).qclass
            if got == q["class"]:
                ok += 1
            elif args.misses:
                print(f"  miss {name} {q['id']}: gold={q['class']:<10} got={got:<10} {q['question']}")
        print(f"class agreement {name}: {ok}/{len(qs)} = {100 * ok / len(qs):.1f} %")
    dist = Counter(understand(q, datetime(2024, 1, 1, tzinfo=UTC)).qclass for q in locomo)
    print("locomo classes:", ", ".join(f"{k} {v}" for k, v in dist.most_common()))
    if args.locomo_classes:
        for text in locomo:
            print(f"  {understand(text, datetime(2024, 1, 1, tzinfo=UTC)).qclass:<10} {text}")


if __name__ == "__main__":
    main()

"""Fit the no-model answerer's confidence on one world and check it on another.

    python -m vyre_memory.eval.calibrate FIT_WORLD CHECK_WORLD [--write]

For every question of a world that asks for a typed answer (`ask.answer_types`), the passages the pipeline would
read are retrieved under the question's scope and time, every candidate value is scored by the vote's features
(`ask.vote`), and each is labelled by the world's own scoring rule (right: an `accept` string and no `reject`
string; every candidate of an unanswerable question is wrong). A logistic model with an L2 penalty is fitted on
FIT_WORLD. The threshold per answer type is just above the most probable wrong answer FIT_WORLD would be told,
plus a margin, and never under a floor (0.65: what kept the check world free of wrong answers both ways). Both
worlds are then scored as the pipeline would answer: told, right, wrong. `--write` keeps the coefficients in
`ask/calibration.json` (data, not code). Nothing of a world enters the code: only the fitted numbers, one per
feature.
"""

from __future__ import annotations

import argparse
import json
import pickle
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..ask.answer_types import asked as asked_for
from ..ask.injection import carries_injection
from ..ask.understand import understand
from ..ask.vote import CALIBRATION_FILE, FEATURES, Calibration, candidates
from ..contract import Passage
from ..memory import Memory
from .datasets import EvalQuestion, load
from .metrics import judge


@dataclass
class Row:
    question: str
    qid: str
    kind: str
    value: str
    features: list[float]
    right: bool


def read_world(world: Path, cache: Path | None = None) -> list[tuple[EvalQuestion, list[Passage]]]:
    """Each question the vote would answer (the fast path does not), with the passages it would read. With
    `cache`, the retrieval of an earlier run is reused (a pickle of this same code's output)."""
    if cache is not None and cache.exists():
        return list(pickle.loads(cache.read_bytes()))
    dataset = load(world)
    out: list[tuple[EvalQuestion, list[Passage]]] = []
    with (
        tempfile.TemporaryDirectory(prefix="vyre-calibrate-") as tmp,
        Memory(Path(tmp), user_name=dataset.user_name) as mem,
    ):
        for purpose in ("rerank", "answer", "verify", "reader"):
            mem.set_backend(purpose, None)
        mem.ingest(dataset.transcripts, format=dataset.format)
        for q in dataset.questions:
            if not mem.answer(q.question, project_cwds=q.project_cwds, agent_projects=q.agent_projects).abstained:
                continue  # the fast path answers it from facts: the vote never runs
            passages = mem.retrieve(
                q.question, project_cwds=q.project_cwds, agent_projects=q.agent_projects, k=8, now=q.asked_at
            )
            out.append((q, [p for p in passages if not carries_injection(p.text)]))
    if cache is not None:
        cache.write_bytes(pickle.dumps(out))
    return out


def rows_for(world: Path, cache: Path | None = None) -> list[Row]:
    """Every candidate of every typed question of `world`, with its features and its label."""
    out: list[Row] = []
    for q, passages in read_world(world, cache):
        a = asked_for(q.question, understand(q.question, q.asked_at))
        if a is None:
            continue
        for c in candidates(a, passages):
            right = judge(c.value, False, q.answerable, q.accept, q.reject)
            out.append(Row(q.question, q.id, a.type, c.value, [c.features[f] for f in FEATURES], right))
    return out


def fit(rows: Sequence[Row], l2: float = 1.0, steps: int = 400) -> Calibration:
    """Logistic regression by Newton's method; each question weighs the same whatever its candidate count."""
    x = np.array([r.features for r in rows], dtype=float)
    y = np.array([1.0 if r.right else 0.0 for r in rows])
    per_q: dict[str, int] = {}
    for r in rows:
        per_q[r.qid] = per_q.get(r.qid, 0) + 1
    w_sample = np.array([1.0 / per_q[r.qid] for r in rows])
    x1 = np.hstack([x, np.ones((len(rows), 1))])
    beta = np.zeros(x1.shape[1])
    penalty = np.eye(x1.shape[1]) * l2
    penalty[-1, -1] = 0.0  # the intercept is not shrunk
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x1 @ beta, -30, 30)))
        grad = x1.T @ (w_sample * (p - y)) + penalty @ beta
        hess = (x1 * (w_sample * p * (1 - p))[:, None]).T @ x1 + penalty
        step = np.linalg.solve(hess + 1e-9 * np.eye(len(beta)), grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = {f: round(float(b), 4) for f, b in zip(FEATURES, beta[:-1], strict=True)}
    return Calibration(weights, round(float(beta[-1]), 4), {})


def told(rows: Sequence[Row], cal: Calibration) -> dict[str, tuple[str, float, bool]]:
    """Per question: the value the vote picks, its probability and whether it is right."""
    best: dict[str, tuple[str, float, bool, str]] = {}
    for r in rows:
        p = cal.probability(dict(zip(FEATURES, r.features, strict=True)))
        if r.qid not in best or p > best[r.qid][1]:
            best[r.qid] = (r.value, p, r.right, r.kind)
    return {q: (v, p, ok) for q, (v, p, ok, _) in best.items()}


def thresholds(rows: Sequence[Row], cal: Calibration, floor: float = 0.5) -> dict[str, float]:
    """Per answer type: just above the most probable wrong answer of the fit world (never under `floor`)."""
    kinds = {r.qid: r.kind for r in rows}
    out: dict[str, float] = {}
    for qid, (_, p, ok) in told(rows, cal).items():
        if not ok:
            out[kinds[qid]] = max(out.get(kinds[qid], floor), round(p + 0.005, 3))
    for kind in set(kinds.values()):
        out.setdefault(kind, floor)
    return out


def score(rows: Sequence[Row], cal: Calibration) -> dict[str, int]:
    kinds = {r.qid: r.kind for r in rows}
    out = {"questions": len(kinds), "told": 0, "right": 0, "wrong": 0}
    for qid, (_, p, ok) in told(rows, cal).items():
        if p >= cal.threshold(kinds[qid]):
            out["told"] += 1
            out["right" if ok else "wrong"] += 1
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fit_world", type=Path)
    parser.add_argument("check_world", type=Path)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--margin", type=float, default=0.05, help="added to every fitted threshold")
    parser.add_argument("--floor", type=float, default=0.65, help="no answer type's threshold is lower")
    parser.add_argument("--cache", type=Path, help="a folder to keep each world's retrieval in, reused next time")
    parser.add_argument("--write", action="store_true", help=f"write the coefficients to {CALIBRATION_FILE.name}")
    args = parser.parse_args(argv)
    caches = [args.cache / f"{w.name}.pkl" if args.cache else None for w in (args.fit_world, args.check_world)]
    fit_rows, check_rows = rows_for(args.fit_world, caches[0]), rows_for(args.check_world, caches[1])
    cal = fit(fit_rows, l2=args.l2)
    fitted = thresholds(fit_rows, cal)
    cal = Calibration(
        cal.weights,
        cal.bias,
        {"default": args.floor, **{k: round(max(args.floor, v + args.margin), 3) for k, v in fitted.items()}},
    )
    print(json.dumps(cal.to_dict(), indent=2))
    for name, rows in ((args.fit_world.name, fit_rows), (args.check_world.name, check_rows)):
        print(f"{name}: {len(rows)} candidates; {score(rows, cal)}")
    if args.write:
        data = {**cal.to_dict(), "fitted_on": args.fit_world.name, "checked_on": args.check_world.name}
        CALIBRATION_FILE.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {CALIBRATION_FILE}")


if __name__ == "__main__":
    main()

"""`vyre eval`: build a fresh store for a dataset, ask every question with its scope and time,
and report the metrics DESIGN.md names, per dataset, per class and (LoCoMo) per category.

The store lives in a temporary VYRE_HOME, so an eval never touches the person's memory.
Until the answer step runs (`retrieval_only`), the answer metrics are null.

Models: `models` (eval/models.py) sets every purpose's backend before ingesting: no model by default,
or replayed / recorded calls. `rerank` adds the rerank ablation: each retrieval configuration scored
without the rerank step ("hybrid") and/or with it ("hybrid+rerank"). With `repeat` > 1 the answer cache
is cleared before every ask, so `inconsistent` measures whether the whole pipeline is deterministic.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..ask.candidates import split_ablation
from ..ask.configs import READ_PASSAGES
from ..contract import Passage
from ..errors import ConfigError
from ..memory import Memory
from .datasets import Dataset, EvalQuestion, load
from .metrics import evidence_recall, evidence_recall_chars, judge, mean, percentile, token_f1, trap_hit
from .model_cost import delta, estimate
from .models import ModelChoice

RECALL_KS = (1, 5, 8, 10)
# recall at equal characters returned: 4,000 is eight ~500-character chunks; the larger ones are what a model
# answering may read (configs.answer_chars), to see where more reading stops finding more evidence
RECALL_CHARS = (4000, 8000, 12000, 16000)
RETRIEVE_K = READ_PASSAGES  # passages read for the recall figures (enough to fill RECALL_CHARS, as a model reads)
RERANK_SUFFIX = "+rerank"
RERANK_MODES = ("auto", "on", "off", "both")


@dataclass
class QuestionResult:
    q: EvalQuestion
    passages: list[Passage]
    answer: str | None = None
    confidence: float | None = None
    abstained: bool | None = None
    right: bool | None = None
    trap: bool | None = None
    answers_seen: set[str] = field(default_factory=set)
    ungrounded: bool | None = None
    via: str | None = None
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)
    read: list[tuple[str, ...]] | None = None  # the record uuids of each passage the answer step read

    def recall(self, k: int) -> float | None:
        if not self.q.answerable:
            return None
        return evidence_recall(self.q.evidence, [p.uuids for p in self.passages], k)

    def recall_chars(self, budget: int) -> float | None:
        if not self.q.answerable:
            return None
        return evidence_recall_chars(self.q.evidence, [(p.uuids, len(p.text)) for p in self.passages], budget)

    def answer_recall(self) -> float | None:
        """Share of the evidence turns among the passages the answer step read (None: it read none, as when
        the fast path answered from facts, or the question has no evidence)."""
        if not self.q.answerable or not self.read:
            return None
        return evidence_recall(self.q.evidence, self.read, len(self.read))

    def to_json(self) -> dict[str, Any]:
        scope = {}
        if self.q.project_cwds is not None:
            scope["project_cwds"] = list(self.q.project_cwds)
        if self.q.agent_projects is not None:
            scope["agent_projects"] = list(self.q.agent_projects)
        return {
            "id": self.q.id,
            "question": self.q.question,
            "class": self.q.qclass,
            "category": self.q.category,
            "scope": scope,
            "answerable": self.q.answerable,
            "answer": self.answer,
            "confidence": self.confidence,
            "abstained": self.abstained,
            "right": self.right,
            "trap_hit": self.trap,
            "ungrounded": self.ungrounded,
            "via": self.via,
            "recall_at_8": self.recall(8),
            "answer_recall": self.answer_recall(),
            "read": len(self.read) if self.read is not None else None,
            "top_k": [list(p.uuids) for p in self.passages[: max(RECALL_KS)]],
            "timings": self.stages,
            "latency_ms": round(self.latency_ms, 2),
        }


Asker = Callable[[Memory, EvalQuestion, str], dict[str, Any]]


def ask_with_memory(mem: Memory, q: EvalQuestion, ablation: str) -> dict[str, Any]:
    """Ask through the public API, and note whether the answer is grounded in what it cites."""
    from ..ask.grounding import check, passage_evidence
    from ..ask.prompts import project_of

    result = mem.ask(
        q.question, project_cwds=q.project_cwds, agent_projects=q.agent_projects, now=q.asked_at, config=ablation
    )
    out = result.to_dict()
    out["read"] = [list(uuids) for uuids in result.read]
    if result.answer:  # every name, number and date told must stand in what it cites (quote, speaker, day, project)
        texts = [
            passage_evidence(s.quote, name=s.name, ts=s.ts, project=project_of(mem.session(s.session).cwd))
            for s in result.sources
        ]
        out["ungrounded"] = not check(result.answer, texts).ok
    return out


def expand_ablations(names: Sequence[str], rerank: str, have_rerank: bool) -> list[tuple[str, str, bool]]:
    """(ablation name, retrieval configuration, rerank on) for each run; a name ending in "+rerank" asks for rerank.

    rerank "auto": on when a model serves rerank; "on" / "off": every configuration with / without it;
    "both": each configuration without, then with. Raises ConfigError when rerank is asked for with no model.
    """
    if rerank not in RERANK_MODES:
        raise ConfigError(f"--rerank {rerank!r} is not one of {', '.join(RERANK_MODES)}")
    out: list[tuple[str, str, bool]] = []
    for name in names:
        base = name[: -len(RERANK_SUFFIX)] if name.endswith(RERANK_SUFFIX) else name
        forced = base != name
        if rerank == "both" and not forced:
            flags = [False, True]
        elif rerank == "on" or forced:
            flags = [True]
        elif rerank == "auto":
            flags = [have_rerank]
        else:
            flags = [False]
        for flag in flags:
            item = (base + RERANK_SUFFIX if flag else base, base, flag)
            if item not in out:
                out.append(item)
    if any(flag for _, _, flag in out) and not have_rerank:
        raise ConfigError("a rerank ablation needs a model for rerank: use --model replay or --model record")
    return out


def run(
    path: Path,
    *,
    ablations: Sequence[str] = ("hybrid",),
    retrieval_only: bool = True,
    repeat: int = 1,
    per_question: TextIO | None = None,
    asker: Asker | None = ask_with_memory,
    progress: Callable[[int, int], None] | None = None,
    models: ModelChoice | None = None,
    rerank: str = "auto",
) -> list[dict[str, Any]]:
    """Score `path` once per retrieval configuration (and rerank setting); one report dict each.

    `models` chooses the backends (default: no model for any purpose)."""
    dataset = load(path)
    reports = []
    with (
        (models or ModelChoice()).open(dataset.name) as backends,
        tempfile.TemporaryDirectory(prefix="vyre-eval-") as tmp,
        Memory(Path(tmp), user_name=dataset.user_name) as mem,
    ):
        if mem.store.corpus_version():
            raise ConfigError(
                "vyre eval builds a fresh store for each data set, but the database it was given (VYRE_DATABASE_URL "
                "or the config's database) already holds a history, which would be searched with the data set's: "
                "point it at an empty database, one per data set, or unset it"
            )
        runs = expand_ablations(ablations, rerank, backends.has("rerank"))
        backends.apply(mem)  # before ingesting, so no step ever falls back to the automatic choice
        mem.ingest(dataset.transcripts, format=dataset.format)
        for ablation, config, use_rerank in runs:
            backends.apply(mem, rerank=use_rerank)
            before = backends.stages()
            results = []
            for i, q in enumerate(dataset.questions):
                results.append(_one(mem, q, config, retrieval_only, repeat, asker))
                if progress:
                    progress(i + 1, len(dataset.questions))
                if per_question is not None:
                    per_question.write(json.dumps({"ablation": ablation, **results[-1].to_json()}) + "\n")
            out = report(dataset, ablation, results, retrieval_only)
            out["retrieval_config"], out["rerank"], out["repeat"] = config, use_rerank, max(1, repeat)
            out["models"] = {**backends.describe(mem.backend_reasons), **backends.counters()}
            if backends.usage is not None and not retrieval_only:  # what a real model would have been sent
                asked = len(dataset.questions) * max(1, repeat)
                out["model_path"] = estimate(delta(backends.stages(), before), asked)
            reports.append(out)
    return reports


def _one(
    mem: Memory, q: EvalQuestion, ablation: str, retrieval_only: bool, repeat: int, asker: Asker | None
) -> QuestionResult:
    started = time.perf_counter()
    passages = mem.retrieve(
        q.question,
        project_cwds=q.project_cwds,
        agent_projects=q.agent_projects,
        k=RETRIEVE_K,
        now=q.asked_at,
        config=split_ablation(ablation)[0],
    )
    result = QuestionResult(q=q, passages=passages)
    result.latency_ms = (time.perf_counter() - started) * 1000
    result.stages = {"retrieval": result.latency_ms}
    if retrieval_only or asker is None:
        return result
    for attempt in range(max(1, repeat)):
        mem.clear_answer_cache()  # a cached answer would make every repeat agree by construction
        out = asker(mem, q, ablation)
        result.answers_seen.add(
            json.dumps([out.get("answer"), out.get("confidence"), out.get("sources")], sort_keys=True)
        )
        if attempt == 0:
            result.answer, result.confidence = out.get("answer"), out.get("confidence")
            result.abstained = bool(out.get("abstained"))
            result.via = out.get("via")
            result.cost_usd = float(out.get("cost_usd") or 0.0)
            result.latency_ms = float(out.get("latency_ms") or 0.0)
            result.stages = dict(out.get("timings") or {})
            result.ungrounded = out.get("ungrounded")
            result.read = [tuple(uuids) for uuids in out.get("read") or []]
    result.right = judge(result.answer, bool(result.abstained), q.answerable, q.accept, q.reject)
    result.trap = trap_hit(result.answer, q.reject)
    return result


def _metrics(results: list[QuestionResult], retrieval_only: bool, kind: str) -> dict[str, Any]:
    answerable = [r for r in results if r.q.answerable]
    with_evidence = [r for r in answerable if r.q.evidence]
    recall = {str(k): mean(r.recall(k) for r in with_evidence) for k in RECALL_KS}
    recall_chars = {str(n): mean(r.recall_chars(n) for r in with_evidence) for n in RECALL_CHARS}
    hit = mean(1.0 if (r.recall(8) or 0) > 0 else 0.0 for r in with_evidence)
    stage_names = sorted({s for r in results for s in r.stages})
    out: dict[str, Any] = {
        "questions": len(results),
        "answerable": len(answerable),
        "recall_at": recall,
        "recall_at_chars": recall_chars,
        "hit_at_8": hit,
        "latency_ms": {
            "p50": percentile([r.latency_ms for r in results], 50),
            "p95": percentile([r.latency_ms for r in results], 95),
            "stages": {
                s: {
                    "p50": percentile([r.stages[s] for r in results if s in r.stages], 50),
                    "p95": percentile([r.stages[s] for r in results if s in r.stages], 95),
                }
                for s in stage_names
            },
        },
    }
    if retrieval_only:
        out.update(
            {
                k: None
                for k in (
                    "accuracy",
                    "confident_wrong",
                    "abstain_rate",
                    "trap_hits",
                    "inconsistent",
                    "ungrounded",
                    "cost_per_question_usd",
                    "answer_recall",
                    "answer_read",
                )
            }
        )
        if kind == "locomo":
            out["f1"] = None
        return out
    n = len(results) or 1
    out["accuracy"] = round(sum(1 for r in results if r.right) / n, 4)
    out["confident_wrong"] = sum(1 for r in results if not r.right and not r.abstained and (r.confidence or 0) >= 0.5)
    out["abstain_rate"] = round(sum(1 for r in results if r.abstained) / n, 4)
    out["trap_hits"] = sum(1 for r in results if r.trap)
    out["inconsistent"] = sum(1 for r in results if len(r.answers_seen) > 1)
    out["ungrounded"] = sum(1 for r in results if r.ungrounded)
    out["cost_per_question_usd"] = round(sum(r.cost_usd for r in results) / n, 6)
    # what the answer step read: the share of evidence turns in it, and how many passages (retrieval answers)
    out["answer_recall"] = mean(r.answer_recall() for r in with_evidence)
    out["answer_read"] = mean(float(len(r.read)) for r in results if r.read)
    if kind == "locomo":
        out["f1"] = mean(token_f1(None if r.abstained else r.answer, r.q.gold) for r in answerable)
    return out


def report(dataset: Dataset, ablation: str, results: list[QuestionResult], retrieval_only: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"dataset": dataset.name, "kind": dataset.kind, "ablation": ablation}
    out.update(_metrics(results, retrieval_only, dataset.kind))
    by_class: dict[str, list[QuestionResult]] = {}
    for r in results:
        by_class.setdefault(r.q.qclass, []).append(r)
    out["by_class"] = {c: _metrics(rs, retrieval_only, dataset.kind) for c, rs in sorted(by_class.items())}
    if dataset.kind == "locomo":
        by_cat: dict[str, list[QuestionResult]] = {}
        for r in results:
            by_cat.setdefault(r.q.category or "?", []).append(r)
        out["by_category"] = {c: _metrics(rs, retrieval_only, dataset.kind) for c, rs in sorted(by_cat.items())}
    return out

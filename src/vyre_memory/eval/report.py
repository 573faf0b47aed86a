"""A readable table of eval reports (one row per configuration, the metrics that matter)."""

from __future__ import annotations

from typing import Any


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def table(reports: list[dict[str, Any]]) -> str:
    if not reports:
        return "no results"
    head = reports[0]
    lines = [f"{head['dataset']} ({head['kind']}): {head['questions']} questions, {head['answerable']} answerable"]
    cols = ["ablation", "acc", "conf_wrong", "abstain", "traps", "R@1", "R@5", "R@8", "R@10", "hit@8", "p50ms", "p95ms"]
    if head["kind"] == "locomo":
        cols.insert(2, "f1")
    rows = []
    for r in reports:
        row = {
            "ablation": r["ablation"],
            "acc": r["accuracy"],
            "f1": r.get("f1"),
            "conf_wrong": r["confident_wrong"],
            "abstain": r["abstain_rate"],
            "traps": r["trap_hits"],
            "R@1": r["recall_at"]["1"],
            "R@5": r["recall_at"]["5"],
            "R@8": r["recall_at"]["8"],
            "R@10": r["recall_at"]["10"],
            "hit@8": r["hit_at_8"],
            "p50ms": r["latency_ms"]["p50"],
            "p95ms": r["latency_ms"]["p95"],
        }
        rows.append([_fmt(row[c]) for c in cols])
    widths = [max(len(c), *(len(row[i]) for row in rows)) for i, c in enumerate(cols)]
    lines.append("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in rows]
    for r in reports:
        if r.get("answer_recall") is not None:
            lines.append(
                f"answer recall ({r['ablation']}): {_fmt(r['answer_recall'])} of evidence turns among the "
                f"{_fmt(r.get('answer_read'))} passages the answer step read on average"
            )
        chars = r.get("recall_at_chars") or {}
        if any(v is not None for v in chars.values()):
            lines.append(
                f"recall at equal characters returned ({r['ablation']}): "
                + ", ".join(f"{int(n):,} chars {_fmt(v)}" for n, v in chars.items())
            )
    by = head.get("by_category") or head.get("by_class") or {}
    if by:
        label = "category" if "by_category" in head else "class"
        lines.append(
            f"recall@8 by {label} ({head['ablation']}): "
            + ", ".join(f"{k} {_fmt(v['recall_at']['8'])} (n={v['questions']})" for k, v in by.items())
        )
    return "\n".join(lines)

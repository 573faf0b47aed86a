"""A tiny eval world built from the demo history (demo/projects, user Sam), and a scripted oracle model.

The oracle is deterministic and knows a few questions: it answers grounded JSON citing the passage that
holds the answer, reranks that passage first, and abstains on anything else. Recording it through
`vyre eval --model record` produces fixtures offline, without a real model.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from vyre_memory.models.base import DEFAULT_ANTHROPIC_MODEL, ModelBackend, ModelRequest
from vyre_memory.models.fake import FunctionModel

DEMO = Path(__file__).resolve().parents[2] / "demo" / "projects"

QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "q1",
        "question": "which file had the refund credited twice bug",
        "class": "file",
        "answer": "app/billing/refunds.py",
        "accept": ["app/billing/refunds.py"],
        "answerable": True,
        "evidence": [{"uuids": ["8988fd40-8539-594d-ab86-15ec3f4a2a30"]}],
    },
    {
        "id": "q2",
        "question": "what did we decide for staff logins on the harlow portal",
        "class": "decision",
        "answer": "Microsoft Entra ID through django-allauth",
        "accept": ["Entra"],
        "reject": ["magic links"],
        "answerable": True,
        "evidence": [{"uuids": ["676d9c34-3296-57b7-8106-ee98e0a86cb4", "44f679ca-2248-56f4-bac8-0f8c270fb4ea"]}],
    },
    {
        "id": "q3",
        "question": "what did we decide about rate limiting on the kubernetes cluster",
        "class": "decision",
        "answerable": False,
    },
    {
        "id": "q4",
        "question": "which file made the nightly export slow",
        "class": "file",
        "answer": "app/exports/csv.py",
        "accept": ["app/exports/csv.py"],
        "answerable": True,
        "evidence": [{"uuids": ["538ec5dc-7264-534a-9ab7-4998bbf7e2b8"]}],
    },
]

# words of a question -> (text the cited passage must hold, the answer); words, because the pipeline may
# rewrite a question a little before the model sees it (an alias: "harlow portal" -> "harlow-portal")
ORACLE: dict[str, tuple[str, str]] = {
    "refund credited twice": ("found it: in app/billing/refunds.py", "app/billing/refunds.py"),
    "staff logins": ("Decision recorded", "Microsoft Entra ID through django-allauth"),
    "nightly export": ("format_row in app/exports/csv.py", "app/exports/csv.py"),
}


def make_world(root: Path, questions: list[dict[str, Any]] | None = None) -> Path:
    """A world folder: world.json, questions.json and a copy of the demo history under home/.claude/projects."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(DEMO, root / "home" / ".claude" / "projects")
    world = {"name": "demo", "user": {"name": "Sam"}, "now": "2026-10-09T16:00:00Z"}
    (root / "world.json").write_text(json.dumps(world), encoding="utf-8")
    (root / "questions.json").write_text(json.dumps({"questions": questions or QUESTIONS}), encoding="utf-8")
    return root


def _blocks(prompt: str) -> list[tuple[int, str]]:
    out = []
    for block in re.split(r"\n(?=\[\d+\] )", prompt):
        m = re.match(r"\[(\d+)\] ", block)
        if m:
            out.append((int(m.group(1)), block))
    return out


def _question(prompt: str) -> str:
    m = re.search(r"^Question: (.*)$", prompt, re.MULTILINE)
    return m.group(1).strip() if m else ""


def oracle_reply(req: ModelRequest) -> str:
    """What the scripted oracle says to `req` (rerank, answer or verify)."""
    question = _question(req.prompt)
    known = next((v for words, v in ORACLE.items() if words in question), None)
    blocks = _blocks(req.prompt)
    hit = next((i for i, text in blocks if known and known[0].lower() in text.lower()), None)
    if req.purpose == "rerank":
        ids = [i for i, _ in blocks]
        return json.dumps({"order": ([hit] if hit else []) + [i for i in ids if i != hit]})
    if req.purpose == "verify":
        return json.dumps({"supported": True, "reason": "the cited turn says so"})
    if known is None or hit is None:
        return json.dumps({"answer": None, "cite": [], "confidence": 0.0, "abstain": True, "known": []})
    return json.dumps({"answer": known[1], "cite": [hit], "confidence": 0.9, "abstain": False, "known": []})


class Oracle(FunctionModel):
    """The oracle as a backend that, like a real one, fills in its model (so recordings key like real ones)."""

    default_model = DEFAULT_ANTHROPIC_MODEL

    def __init__(self, fn: Callable[[ModelRequest], str] = oracle_reply, name: str = "oracle") -> None:
        super().__init__(fn, name=name)


Selector = Callable[[str, Mapping[str, Any], Mapping[str, str]], tuple[ModelBackend | None, str]]


def selector_for(model: ModelBackend) -> Selector:
    """A stand-in for select_backend that serves every purpose with `model`."""

    def select(purpose: str, config: Mapping[str, Any], env: Mapping[str, str]) -> tuple[ModelBackend | None, str]:
        return model, f"{purpose}: {model.name} (scripted)"

    return select


def no_select(purpose: str, config: Mapping[str, Any], env: Mapping[str, str]) -> tuple[ModelBackend | None, str]:
    raise AssertionError(f"the eval selected a configured backend for {purpose}; it must not")

"""The turns next to the best candidates join them: a command's output beside the line that names it."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask.configs import get_config
from vyre_memory.contract import Passage, Scope

QUESTION = "when did the billing service v3 go live?"


def _history(root: Path) -> TranscriptWriter:
    work = TranscriptWriter(root / "-home-sam-code-ledger" / "a.jsonl", "/home/sam/code/ledger")
    work.user("please roll the new release out to prod")
    tid = work.tool_use("Bash", {"command": "kubectl argo rollouts promote checkout -n prod --full"})
    work.tool_result(tid, "rollout 'checkout' fully promoted\nHealthy\nThu Oct  1 09:01:20 UTC 2026")
    work.assistant("Done: the billing service v3 is live in production.")
    work.user("ok thanks, now the flaky cron in the mailer")
    other = TranscriptWriter(root / "-home-sam-code-mailer" / "b.jsonl", "/home/sam/code/mailer")
    for i in range(30):
        other.user(f"mailer template {i} renders the footer twice")
    return work


def _uuid(record: dict[str, object]) -> str:
    return str(record["uuid"])


def _find(passages: list[Passage], uuid: str) -> Passage | None:
    return next((p for p in passages if uuid in p.uuids), None)


def test_a_commands_output_joins_the_reply_that_names_what_it_did(tmp_path: Path) -> None:
    work = _history(tmp_path / "projects")
    output, follow_up = _uuid(work.written[2]), _uuid(work.written[4])
    # the releases list finds the rollout too (tests/ask/test_releases_list.py): here the neighbours alone
    hybrid = replace(get_config("hybrid"), releases_weight=0.0)
    assert hybrid.neighbor_expand > 0
    with Memory(tmp_path / "home", embedder="none") as mem:
        mem.ingest([tmp_path / "projects"])
        retriever = mem.retriever
        found = retriever.retrieve(QUESTION, Scope(), k=8, config=hybrid)
        joined = _find(found, output)
        assert joined is not None and "neighbour" in joined.via  # no word of the question in it
        alone = retriever.retrieve(QUESTION, Scope(), k=50, config=replace(hybrid, neighbor_expand=0))
        assert _find(alone, output) is None
        # memory as of a moment: a neighbour said after it never joins
        end = datetime.fromisoformat(str(work.written[3]["timestamp"]).replace("Z", "+00:00")) + timedelta(seconds=1)
        before = retriever.retrieve(QUESTION, Scope(), k=50, config=hybrid, now=end)
        assert _find(before, output) is not None and _find(before, follow_up) is None

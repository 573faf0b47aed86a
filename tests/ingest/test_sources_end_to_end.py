"""One person's history in each of the four formats; `vyre ask` answers from each, citing it.

Each source says, in the person's own words, who their wife is, and holds a work exchange that
names the file with the refund bug. Ingested alone, each must answer both questions with
sources inside that source's own sessions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from vyre_memory.eval.synth import SessionWriter, encode_cwd
from vyre_memory.surfaces.cli import main

PERSONAL = "quick one, have to pick up dani, my wife, at 5. the refund webhook credits customers twice, can you look"
ANSWER = (
    "Found it: in app/billing/refunds.py the event id is stored only after the credit is applied, "
    "so a retried webhook credits twice. I moved the claim before the credit."
)
NOW = "2026-10-09T16:00:00Z"
T0 = datetime(2026, 9, 14, 9, 0, tzinfo=UTC)


def claude_code(root: Path) -> Path:
    import random

    w = SessionWriter("/home/sam/code/shop-api", "c0de0000-0000-4000-8000-000000000001", T0)
    w.user(PERSONAL)
    w.assistant(random.Random(1), [{"type": "text", "text": ANSWER}])
    w.write(root / "projects" / encode_cwd("/home/sam/code/shop-api") / f"{w.session_id}.jsonl")
    return root / "projects"


def codex(root: Path) -> Path:
    sid = "0199c0de-0000-7000-8000-000000000002"
    lines = [
        {
            "timestamp": "2026-09-14T09:00:00.000Z",
            "type": "session_meta",
            "payload": {
                "id": sid,
                "timestamp": "2026-09-14T09:00:00.000Z",
                "cwd": "/home/sam/code/shop-api",
                "originator": "codex_cli_rs",
                "cli_version": "0.40.0",
                "source": "cli",
            },
        },
        {
            "timestamp": "2026-09-14T09:00:05.000Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": PERSONAL}]},
        },
        {
            "timestamp": "2026-09-14T09:00:05.000Z",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": PERSONAL},
        },
        {
            "timestamp": "2026-09-14T09:01:00.000Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": ANSWER}]},
        },
    ]
    path = root / ".codex" / "sessions" / "2026" / "09" / "14" / f"rollout-2026-09-14T09-00-00-{sid}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def chatgpt(root: Path) -> Path:
    t = T0.timestamp()
    mapping = {
        "root": {"id": "root", "message": None, "parent": None, "children": ["m1"]},
        "m1": {
            "id": "m1",
            "parent": "root",
            "children": ["m2"],
            "message": {
                "id": "m1",
                "author": {"role": "user"},
                "create_time": t,
                "content": {"content_type": "text", "parts": [PERSONAL]},
            },
        },
        "m2": {
            "id": "m2",
            "parent": "m1",
            "children": [],
            "message": {
                "id": "m2",
                "author": {"role": "assistant"},
                "create_time": t + 60,
                "content": {"content_type": "text", "parts": [ANSWER]},
            },
        },
    }
    conv = [
        {
            "id": "conv-gpt-1",
            "title": "Refund webhook",
            "create_time": t,
            "update_time": t + 60,
            "current_node": "m2",
            "mapping": mapping,
        }
    ]
    path = root / "chatgpt" / "conversations.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(conv), encoding="utf-8")
    return path


def claude_ai(root: Path) -> Path:
    sentinel = "00000000-0000-4000-8000-000000000000"
    messages = [
        {
            "uuid": "cai-m1",
            "sender": "human",
            "text": PERSONAL,
            "created_at": "2026-09-14T09:00:00.000000Z",
            "parent_message_uuid": sentinel,
            "attachments": [],
            "files": [],
        },
        {
            "uuid": "cai-m2",
            "sender": "assistant",
            "text": ANSWER,
            "created_at": "2026-09-14T09:01:00.000000Z",
            "parent_message_uuid": "cai-m1",
            "attachments": [],
            "files": [],
        },
    ]
    conv = [
        {
            "uuid": "conv-claude-1",
            "name": "Refund webhook",
            "created_at": "2026-09-14T09:00:00.000000Z",
            "updated_at": "2026-09-14T09:01:00.000000Z",
            "chat_messages": messages,
        }
    ]
    path = root / "claude-ai" / "conversations.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(conv), encoding="utf-8")
    return path


SOURCES: dict[str, Callable[[Path], Path]] = {
    "claude-code": claude_code,
    "codex": codex,
    "chatgpt": chatgpt,
    "claude-ai": claude_ai,
}


def _ask(home: Path, question: str) -> dict:
    result = CliRunner().invoke(main, ["ask", question, "--json", "--now", NOW, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("fmt", list(SOURCES))
def test_each_source_answers_a_personal_and_a_work_question_citing_itself(tmp_path: Path, fmt: str) -> None:
    path = SOURCES[fmt](tmp_path / "src")
    home = tmp_path / "home"
    ingested = CliRunner().invoke(main, ["ingest", str(path), "--json", "--home", str(home)])
    assert ingested.exit_code == 0, ingested.output
    sessions = json.loads(CliRunner().invoke(main, ["sessions", "--json", "--home", str(home)]).output)
    assert [s["format"] for s in sessions] == [fmt]
    own = {s["id"] for s in sessions}

    personal = _ask(home, "what's my wife's name")
    assert not personal["abstained"] and "Dani" in personal["answer"], personal
    assert personal["sources"] and {s["session"] for s in personal["sources"]} <= own
    assert any("dani, my wife" in s["quote"] for s in personal["sources"])

    work = _ask(home, "which file had the refund webhook bug")
    assert not work["abstained"] and "app/billing/refunds.py" in work["answer"], work
    assert work["sources"] and {s["session"] for s in work["sources"]} <= own
    assert any("app/billing/refunds.py" in s["quote"] for s in work["sources"])


def test_malformed_files_of_each_format_are_reported_never_fatal(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    (bad / "projects" / "-x").mkdir(parents=True)
    (bad / "projects" / "-x" / "11111111-1111-4111-8111-111111111111.jsonl").write_text('{"type":"user",\n[1,2\n')
    rollout = bad / ".codex" / "sessions" / "rollout-2026-01-01T00-00-00-x.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_text('{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}\nnot json\n')
    (bad / "gpt").mkdir()
    (bad / "gpt" / "conversations.json").write_text('[{"id":"c","mapping":{"a":{"message":42}}}, 7, {"id":')
    (bad / "cai").mkdir()
    (bad / "cai" / "conversations.json").write_text('[{"uuid":"c","chat_messages":[{"sender":"human","text":5}]}')
    runner = CliRunner()
    for path, fmt in [
        (bad / "projects", "claude-code"),
        (rollout, "codex"),
        (bad / "gpt" / "conversations.json", "chatgpt"),
        (bad / "cai" / "conversations.json", "claude-ai"),
    ]:
        result = runner.invoke(main, ["ingest", str(path), "--format", fmt, "--json", "--home", str(tmp_path / fmt)])
        assert result.exit_code == 0, (fmt, result.output)
        assert json.loads(result.output)["report"]["problems"], fmt

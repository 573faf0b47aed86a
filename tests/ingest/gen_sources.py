"""Generates realistic source files of each non-Claude-Code format for the ingest tests.

Everything is synthetic and deterministic for a given seed: Codex CLI rollouts (current envelope
layout and the older flat one, interactive, `exec` and subagent threads), ChatGPT
`conversations.json` (mapping trees with branches, hidden system messages, tool calls, images,
thoughts) and Claude.ai `conversations.json` (branches, attachments, files, thinking, tools).
Nothing is copied from real exports.
"""

from __future__ import annotations

import io
import json
import random
import uuid as uuid_mod
import zipfile
from pathlib import Path
from typing import Any

EPOCH = 1_767_323_045.0  # 2026-01-02T03:04:05Z
ROOT_SENTINEL = "00000000-0000-4000-8000-000000000000"

_PROMPTS = [
    "Why does the importer in src/app/loader.py skip the last row?",
    "Add a --dry-run flag to the deploy script",
    "I prefer tabs over spaces in Makefiles, please keep that.",
    "Can you explain what the cache invalidation in cache.go does?",
    "Rename the column user_name to username everywhere",
    "Ünïcödé prompt with emoji 🚀 and a path ~/notes/todo.md",
]
_ANSWERS = [
    "The loop stops at len(rows) - 1, so the last row never gets read. I fixed the bound.",
    "Done: deploy.sh now accepts --dry-run and prints the commands instead of running them.",
    "Noted. The Makefile keeps tabs.",
    "It evicts entries older than the TTL on every write, not on read.",
]


def make_uuid(rng: random.Random) -> str:
    return str(uuid_mod.UUID(int=rng.getrandbits(128), version=4))


def iso(t: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- Codex --------------------------------------------------------------------------------------
def codex_records(
    session_id: str = "11111111-1111-4111-8111-111111111111",
    *,
    cwd: str = "/home/dev/project",
    source: Any = "cli",
    originator: str = "codex_cli_rs",
    exchanges: int = 2,
    seed: int = 0,
    unknown: bool = True,
) -> list[dict[str, Any]]:
    """Records of a current-layout rollout, `{timestamp, type, payload}` per line."""
    rng = random.Random(seed)
    t = EPOCH
    out: list[dict[str, Any]] = []

    def rec(rtype: str, payload: dict[str, Any]) -> None:
        nonlocal t
        t += rng.uniform(0.001, 2.0)
        out.append({"timestamp": iso(t), "type": rtype, "payload": payload})

    rec(
        "session_meta",
        {
            "id": session_id,
            "timestamp": iso(t),
            "cwd": cwd,
            "originator": originator,
            "cli_version": "0.63.0",
            "source": source,
            "model_provider": "openai",
            "base_instructions": {"text": "You are Codex, a coding agent."},
            "git": {"commit_hash": "abc123", "branch": "main", "repository_url": "git@example.com:dev/project.git"},
        },
    )
    rec(
        "response_item",
        {
            "type": "message",
            "role": "developer",
            "content": [
                {
                    "type": "input_text",
                    "text": "<permissions instructions>\nFilesystem sandboxing: workspace-write\n"
                    "</permissions instructions>",
                }
            ],
        },
    )
    rec(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "# AGENTS.md instructions for /home/dev/project\n\n<INSTRUCTIONS>\nRun tests.\n"
                    "</INSTRUCTIONS>",
                }
            ],
        },
    )
    rec(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>zsh</shell>\n</environment_context>",
                }
            ],
        },
    )
    for i in range(exchanges):
        prompt = _PROMPTS[(seed + i) % len(_PROMPTS)]
        answer = _ANSWERS[(seed + i) % len(_ANSWERS)]
        rec(
            "turn_context",
            {
                "cwd": cwd,
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write"},
                "model": "gpt-5-codex",
                "effort": "medium",
                "summary": "auto",
            },
        )
        rec("event_msg", {"type": "task_started", "model_context_window": 272000})
        # the prompt twice: the event copy, then the response item (the one that is kept)
        rec("event_msg", {"type": "user_message", "message": prompt, "images": []})
        rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
        rec("event_msg", {"type": "agent_reasoning", "text": f"**Planning step {i}**"})
        rec(
            "response_item",
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": f"**Planning step {i}**"}],
                "content": None,
                "encrypted_content": "gAAAAB-SECRET-MUST-NOT-BE-STORED",
            },
        )
        call = f"call_{i}_shell"
        rec(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps({"command": ["bash", "-lc", "cat src/app/loader.py"], "workdir": cwd}),
                "call_id": call,
            },
        )
        rec(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": call,
                "output": json.dumps(
                    {"output": "def load(rows):\n    ...\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}
                ),
            },
        )
        patch = f"call_{i}_patch"
        rec(
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": patch,
                "name": "apply_patch",
                "input": "*** Begin Patch\n*** Update File: src/app/loader.py\n@@\n-    for i in range(n - 1):\n"
                "+    for i in range(n):\n*** End Patch\n",
            },
        )
        rec(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": patch,
                "output": json.dumps(
                    {
                        "output": "Success. Updated the following files:\nM src/app/loader.py\n",
                        "metadata": {"exit_code": 0},
                    }
                ),
            },
        )
        shell = f"call_{i}_local"
        rec(
            "response_item",
            {
                "type": "local_shell_call",
                "call_id": shell,
                "status": "completed",
                "action": {
                    "type": "exec",
                    "command": ["pytest", "-q", "tests/test_loader.py"],
                    "workdir": cwd,
                    "timeout_ms": 60000,
                },
            },
        )
        rec(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": shell,
                "output": json.dumps({"output": "1 failed", "metadata": {"exit_code": 1}}),
            },
        )
        rec("event_msg", {"type": "agent_message", "message": answer})
        rec(
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]},
        )
        rec(
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": {
                        "input_tokens": 1000 + i,
                        "cached_input_tokens": 0,
                        "output_tokens": 50,
                        "reasoning_output_tokens": 10,
                        "total_tokens": 1060,
                    },
                    "model_context_window": 272000,
                },
                "rate_limits": None,
            },
        )
        rec("event_msg", {"type": "task_complete", "last_agent_message": answer})
    if unknown:
        rec("future_record_kind", {"anything": True})
    return out


def codex_legacy_records(
    session_id: str = "22222222-2222-4222-8222-222222222222", *, seed: int = 0
) -> list[dict[str, Any]]:
    """Records of an older flat rollout: a bare header, bare response items, `record_type` lines."""
    prompt = _PROMPTS[seed % len(_PROMPTS)]
    return [
        {
            "id": session_id,
            "timestamp": "2025-08-11T10:00:00.000Z",
            "instructions": None,
            "git": {"commit_hash": "def456", "branch": "legacy", "repository_url": None},
        },
        {"record_type": "state"},
        {
            "type": "message",
            "id": None,
            "role": "user",
            "content": [{"type": "input_text", "text": "<user_instructions>\nBe brief.\n</user_instructions>"}],
        },
        {"type": "message", "id": None, "role": "user", "content": [{"type": "input_text", "text": prompt}]},
        {"record_type": "state"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Looking at the file"}],
            "encrypted_content": "gAAAA-legacy",
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "name": "shell",
            "arguments": '{"command":["bash","-lc","ls"]}',
            "call_id": "call_legacy",
        },
        {
            "type": "function_call_output",
            "call_id": "call_legacy",
            "output": '{"output":"README.md\\n","metadata":{"exit_code":0}}',
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Only README.md."}],
        },
    ]


def rollout_path(root: Path, session_id: str, *, day: str = "2026/01/02", archived: bool = False) -> Path:
    folder = root / "archived_sessions" if archived else root / "sessions" / day
    stamp = day.replace("/", "-") + "T03-04-05"
    return folder / f"rollout-{stamp}-{session_id}.jsonl"


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


# -- ChatGPT ------------------------------------------------------------------------------------
def chatgpt_conversation(
    conv_id: str = "conv-1", *, title: str = "Loader bug", seed: int = 0, branch: bool = True, extras: bool = True
) -> dict[str, Any]:
    """A conversation whose `mapping` tree has a root, a hidden system message, a live branch
    (prompt, code tool call, tool output, thoughts, answer with an image prompt) and, with
    `branch`, an edited prompt with its own answer off the live branch."""
    rng = random.Random(seed)
    t = EPOCH
    mapping: dict[str, Any] = {}

    def node(node_id: str, parent: str | None, role: str | None, content: dict[str, Any], **extra: Any) -> str:
        nonlocal t
        t += rng.uniform(1, 30)
        message = None
        if role is not None:
            message = {
                "id": node_id,
                "author": {"role": role, "name": extra.pop("author_name", None), "metadata": {}},
                "create_time": t,
                "update_time": None,
                "content": content,
                "status": "finished_successfully",
                "end_turn": True,
                "weight": 1.0,
                "metadata": extra.pop("metadata", {}),
                "recipient": extra.pop("recipient", "all"),
            }
        mapping[node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
        if parent is not None:
            mapping[parent]["children"].append(node_id)
        return node_id

    p = f"{conv_id}-"
    root = node(p + "root", None, None, {})
    sys_ = node(
        p + "sys",
        root,
        "system",
        {"content_type": "text", "parts": [""]},
        metadata={"is_visually_hidden_from_conversation": True},
    )
    ctx = node(
        p + "ctx",
        sys_,
        "user",
        {
            "content_type": "user_editable_context",
            "user_profile": "I am a dev.",
            "user_instructions": "Answer briefly.",
        },
        metadata={"is_visually_hidden_from_conversation": True, "is_user_system_message": True},
    )
    u1 = node(p + "u1", ctx, "user", {"content_type": "text", "parts": [_PROMPTS[seed % len(_PROMPTS)]]})
    last = u1
    if extras:
        th = node(
            p + "think",
            u1,
            "assistant",
            {
                "content_type": "thoughts",
                "thoughts": [{"summary": "Reading the loop", "content": "The bound is off by one."}],
                "source_analysis_msg_id": "x",
            },
        )
        call = node(
            p + "call",
            th,
            "assistant",
            {"content_type": "code", "language": "python", "text": "print(open('src/app/loader.py').read())"},
            recipient="python",
        )
        out = node(
            p + "out",
            call,
            "tool",
            {"content_type": "execution_output", "text": "def load(rows): ..."},
            author_name="python",
        )
        last = out
    a1 = node(
        p + "a1",
        last,
        "assistant",
        {"content_type": "text", "parts": [_ANSWERS[seed % len(_ANSWERS)]]},
        metadata={"model_slug": "gpt-4o"},
    )
    u2 = node(
        p + "u2",
        a1,
        "user",
        {
            "content_type": "multimodal_text",
            "parts": [
                {
                    "content_type": "image_asset_pointer",
                    "asset_pointer": "file-service://file-abc",
                    "width": 10,
                    "height": 10,
                },
                "What is in this screenshot?",
            ],
        },
    )
    a2 = node(p + "a2", u2, "assistant", {"content_type": "text", "parts": ["A stack trace from loader.py."]})
    current = a2
    if branch:
        b1 = node(p + "u2-edit", a1, "user", {"content_type": "text", "parts": ["Actually, show me the test instead."]})
        node(p + "a2-edit", b1, "assistant", {"content_type": "text", "parts": ["Here is tests/test_loader.py."]})
    return {
        "title": title,
        "create_time": EPOCH,
        "update_time": t,
        "mapping": mapping,
        "moderation_results": [],
        "current_node": current,
        "plugin_ids": None,
        "conversation_id": conv_id,
        "conversation_template_id": None,
        "gizmo_id": None,
        "is_archived": False,
        "safe_urls": [],
        "default_model_slug": "gpt-4o",
        "id": conv_id,
    }


def chatgpt_export(n: int = 3, *, seed: int = 0, empty: bool = True) -> list[dict[str, Any]]:
    convs = [
        chatgpt_conversation(f"conv-{seed}-{i}", title=f"Chat {i}", seed=seed + i, branch=i % 2 == 0, extras=i != 1)
        for i in range(n)
    ]
    if empty:
        convs.append(
            {
                "id": f"conv-{seed}-empty",
                "title": "New chat",
                "create_time": EPOCH,
                "update_time": EPOCH,
                "mapping": {"r": {"id": "r", "message": None, "parent": None, "children": []}},
                "current_node": "r",
            }
        )
    return convs


# -- Claude.ai ----------------------------------------------------------------------------------
def claude_ai_conversation(
    conv_uuid: str | None = None, *, name: str = "Loader bug", seed: int = 0, branch: bool = True, extras: bool = True
) -> dict[str, Any]:
    rng = random.Random(seed)
    conv_uuid = conv_uuid or make_uuid(rng)
    t = EPOCH
    messages: list[dict[str, Any]] = []

    def msg(sender: str, text: str, parent: str, content: list[dict[str, Any]] | None = None, **extra: Any) -> str:
        nonlocal t
        t += rng.uniform(1, 60)
        mid = make_uuid(rng)
        stamp = iso(t)
        blocks = (
            content
            if content is not None
            else [{"type": "text", "text": text, "start_timestamp": stamp, "stop_timestamp": stamp, "citations": []}]
        )
        messages.append(
            {
                "uuid": mid,
                "text": text,
                "content": blocks,
                "sender": sender,
                "created_at": stamp,
                "updated_at": stamp,
                "attachments": extra.get("attachments", []),
                "files": extra.get("files", []),
                "parent_message_uuid": parent,
            }
        )
        return mid

    h1 = msg(
        "human",
        _PROMPTS[seed % len(_PROMPTS)],
        ROOT_SENTINEL,
        attachments=[
            {
                "file_name": "loader.py",
                "file_size": 120,
                "file_type": "text/x-python",
                "extracted_content": "def load(rows):\n    for i in range(len(rows) - 1):\n        ...\n",
            }
        ]
        if extras
        else [],
        files=[{"file_name": "screenshot.png"}] if extras else [],
    )
    answer = _ANSWERS[seed % len(_ANSWERS)]
    if extras:
        blocks: list[dict[str, Any]] = [
            {
                "type": "thinking",
                "thinking": "The range stops one short.",
                "summaries": [{"summary": "Checking range"}],
            },
            {"type": "text", "text": "Let me search first."},
            {"type": "tool_use", "name": "web_search", "input": {"query": "python range off by one"}},
            {
                "type": "tool_result",
                "name": "web_search",
                "content": [{"type": "text", "text": "range(n) stops at n-1"}],
                "is_error": False,
            },
            {"type": "text", "text": answer},
            {"type": "token_budget"},
        ]
        a1 = msg("assistant", answer, h1, content=blocks)
    else:
        a1 = msg("assistant", answer, h1)
    h2 = msg("human", "Thanks! Also add a test.", a1)
    msg("assistant", "Added tests/test_loader.py.", h2)
    if branch:  # the person edited their second prompt: a sibling of h2
        h2b = msg("human", "Thanks! Now make it faster.", a1)
        msg("assistant", "Use a generator instead of a list.", h2b)
    return {
        "uuid": conv_uuid,
        "name": name,
        "summary": "",
        "created_at": iso(EPOCH),
        "updated_at": iso(t),
        "account": {"uuid": make_uuid(rng)},
        "chat_messages": messages,
    }


def claude_ai_export(n: int = 3, *, seed: int = 0, empty: bool = True) -> list[dict[str, Any]]:
    convs = [
        claude_ai_conversation(name=f"Chat {i}", seed=seed * 100 + i, branch=i % 2 == 0, extras=i != 1)
        for i in range(n)
    ]
    if empty:
        convs.append(
            {
                "uuid": make_uuid(random.Random(seed + 999)),
                "name": "",
                "summary": "",
                "created_at": iso(EPOCH),
                "updated_at": iso(EPOCH),
                "chat_messages": [],
            }
        )
    return convs


# -- files --------------------------------------------------------------------------------------
def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def zip_bytes(data: Any, *, member: str = "conversations.json", others: dict[str, str | bytes] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, text in (others or {"user.json": "{}"}).items():
            zf.writestr(name, text)
        if member:
            zf.writestr(member, json.dumps(data, ensure_ascii=False))
    return buf.getvalue()


def write_zip(
    path: Path, data: Any, *, member: str = "conversations.json", others: dict[str, str | bytes] | None = None
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(zip_bytes(data, member=member, others=others))
    return path

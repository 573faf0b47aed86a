"""Claude.ai data exports: `conversations.json`, alone or inside the export `.zip`.

Guarantees:
- each conversation is one `ParsedSession` (id = conversation `uuid`, title = `name`, else its
  `summary`; cwd None);
- every message is kept, branches included (edits and retries share a `parent_message_uuid`),
  in the export's order; `parent_uuid` names the message a turn answers (None at the root
  sentinel `00000000-0000-4000-8000-000000000000`);
- trust labels: `human` text -> TYPED, `assistant` text -> ASSISTANT, `thinking` blocks ->
  THINKING, `tool_use` / `tool_result` blocks -> TOOL_CALL / TOOL_OUTPUT (paired by id, or by
  order and name when the export drops the ids); `attachments[].extracted_content` -> a separate
  PASTED turn, never the person's words; `files[]` -> "[file name]" placeholders in the text;
- the first text turn of a message has the message uuid; every other turn of that message has a
  synthetic uuid derived from it (`<uuid>:<what>:<n>`), so re-parsing the whole file (exports are
  not appendable: `whole_file=True`) yields the same uuids and adds nothing;
- nothing raises: a broken file, a conversation that is not an object, a message missing its
  uuid or sender, or wrong types, is a `Problem` with its 1-based conversation number; empty
  conversations are skipped and counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..contract import (
    ASSISTANT,
    PASTED,
    THINKING,
    TOOL_CALL,
    TOOL_OUTPUT,
    TYPED,
    ParseBatch,
    ParsedSession,
    ParsedTurn,
    Problem,
)
from . import exports
from .text import file_paths, plain_text, render_tool_input, tool_input_paths

NAME = "claude-ai"
ROOT_SENTINEL = "00000000-0000-4000-8000-000000000000"
_MAX_TEXT = 2_000_000
_SENDERS = {"human": ("user", TYPED), "assistant": ("assistant", ASSISTANT)}


class ClaudeAIFormat(exports.ExportFormat):
    """A Claude.ai export: `conversations.json` (an array with `chat_messages`) or the zip holding it."""

    name = NAME
    summary = "Claude.ai data export: conversations.json or the export .zip (branches and attachments kept)"
    kind = exports.CLAUDE_AI

    def conversation(self, path: Path, no: int, value: Any, batch: ParseBatch) -> ParsedSession | None:
        return _Conversation(path, no, batch).parse(value)


FORMAT = ClaudeAIFormat()


class _Conversation:
    def __init__(self, path: Path, no: int, batch: ParseBatch) -> None:
        self.where = str(path)
        self.no = no
        self.batch = batch
        self.seen: set[str] = set()
        self.open_calls: list[tuple[str, str]] = []  # (tool name, tool_use_id) not yet answered
        self.session: ParsedSession | None = None

    def problem(self, message: str) -> None:
        self.batch.problems.append(Problem(self.where, self.no, message))

    def parse(self, conv: Any) -> ParsedSession | None:
        if not isinstance(conv, dict):
            self.problem(f"conversation is a JSON {type(conv).__name__}, not an object")
            return None
        conv_id = exports.text_of(conv.get("uuid")) or exports.text_of(conv.get("id"))
        if conv_id is None:
            self.problem("conversation has no 'uuid'")
            return None
        messages = conv.get("chat_messages")
        if not isinstance(messages, list):
            self.problem(f"conversation {conv_id[:80]}: 'chat_messages' is not a list")
            return None
        session = ParsedSession(id=conv_id[:200], source_file=self.where, format=NAME)
        self.session = session
        for key, rank in (("name", 2), ("summary", 1)):
            title = exports.text_of(conv.get(key))
            if title and title.strip():
                session.title, session.title_rank = title.strip()[:300], rank
                break
        for index, message in enumerate(messages):
            self.message(session, index, message)
        if not session.turns:
            self.batch.skip("empty conversation")
            return None
        return session

    def message(self, session: ParsedSession, index: int, m: Any) -> None:
        if not isinstance(m, dict):
            self.problem(f"message {index}: a JSON {type(m).__name__}, not an object")
            return
        uuid = exports.text_of(m.get("uuid"))
        sender = m.get("sender")
        if uuid is None:
            self.problem(f"message {index}: no 'uuid'")
            return
        uuid = uuid[:200]
        if sender not in _SENDERS:
            self.problem(f"message {uuid[:80]}: unknown sender {str(sender)[:40]!r}")
            return
        if uuid in self.seen:
            self.batch.skip("duplicate message uuid")
            return
        self.seen.add(uuid)
        role, text_kind = _SENDERS[str(sender)]
        parent = exports.text_of(m.get("parent_message_uuid"))
        base: dict[str, Any] = {
            "ts": exports.iso_text(m.get("created_at")),
            "line": self.no,
            "message_id": uuid,
            "parent_uuid": None if parent in (None, ROOT_SENTINEL) else parent[:200] if parent else None,
        }
        turns: list[ParsedTurn] = []
        used_message_uuid = False

        def add(kind: str, text: str, what: str, n: int, **fields: Any) -> ParsedTurn:
            nonlocal used_message_uuid
            if kind == text_kind and not used_message_uuid:
                turn_uuid = uuid
                used_message_uuid = True
            else:
                turn_uuid = f"{uuid}:{what}:{n}"
            turn = ParsedTurn(uuids=[turn_uuid], kind=kind, text=text[:_MAX_TEXT], **base, **fields)
            turns.append(turn)
            return turn

        placeholders = _file_placeholders(m.get("files")) + _file_placeholders(m.get("files_v2"))
        attachments: list[Any] = m["attachments"] if isinstance(m.get("attachments"), list) else []
        pasted: list[tuple[int, str, str]] = []
        for n, a in enumerate(attachments):
            if not isinstance(a, dict):
                continue
            name = exports.text_of(a.get("file_name")) or "attachment"
            extracted = a.get("extracted_content")
            if isinstance(extracted, str) and extracted.strip():
                pasted.append((n, name[:200], extracted))
            else:
                placeholders.append(f"[{name[:200]}]")

        content = m.get("content")
        blocks = content if isinstance(content, list) and content else None
        pending: list[str] = []
        text_no = 0

        def flush() -> None:
            nonlocal text_no
            body = "\n".join(pending).strip()
            pending.clear()
            if body:
                name = "assistant" if role == "assistant" else None
                add(text_kind, body, "text", text_no, role=role, name=name, paths=file_paths(body))
                text_no += 1

        if blocks is None:
            text = m.get("text")
            if isinstance(text, str):
                pending.append(text)
            elif text is not None:
                self.problem(f"message {uuid[:80]}: 'text' is a {type(text).__name__}")
        else:
            for n, block in enumerate(blocks):
                if not isinstance(block, dict):
                    if isinstance(block, str):
                        pending.append(block)
                    continue
                btype = block.get("type")
                if btype == "text":
                    if isinstance(block.get("text"), str):
                        pending.append(block["text"])
                elif btype == "thinking":
                    flush()
                    thought = _thinking_text(block)
                    if thought:
                        add(THINKING, thought, "thinking", n, role="assistant", name="assistant")
                elif btype == "tool_use":
                    flush()
                    self.tool_use(uuid, n, block, add)
                elif btype == "tool_result":
                    flush()
                    self.tool_result(uuid, n, block, add)
                else:
                    self.batch.skip(f"content block {str(btype)[:40]}")
        if placeholders:
            pending.append(" ".join(placeholders))
        flush()
        for n, name, extracted in pasted:
            text = f"[{name}]\n{extracted.strip()}"
            add(PASTED, text, "attachment", n, role="user", name="attachment", paths=file_paths(text))
        if not turns:
            self.batch.skip("empty message")
        session.turns.extend(turns)

    def tool_use(self, uuid: str, n: int, block: dict[str, Any], add: Callable[..., ParsedTurn]) -> None:
        name = (exports.text_of(block.get("name")) or "tool")[:200]
        tool_input: dict[str, Any] = block["input"] if isinstance(block.get("input"), dict) else {}
        call_id = (exports.text_of(block.get("id")) or f"{uuid}:tool_use:{n}")[:200]
        self.open_calls.append((name, call_id))
        add(
            TOOL_CALL,
            render_tool_input(name, tool_input),
            "tool_use",
            n,
            role="assistant",
            name=name,
            tool_name=name,
            tool_input=json.dumps(tool_input, ensure_ascii=False)[:100_000],
            tool_use_id=call_id,
            paths=tool_input_paths(tool_input),
        )

    def tool_result(self, uuid: str, n: int, block: dict[str, Any], add: Callable[..., ParsedTurn]) -> None:
        name = exports.text_of(block.get("name"))
        call_id = exports.text_of(block.get("tool_use_id"))
        if call_id is None:  # the export dropped the ids: answer the oldest open call of that name
            for i, (open_name, open_id) in enumerate(self.open_calls):
                if name is None or open_name == name:
                    call_id = open_id
                    del self.open_calls[i]
                    break
        else:
            self.open_calls = [c for c in self.open_calls if c[1] != call_id]
        text = plain_text(block.get("content"))
        add(
            TOOL_OUTPUT,
            text,
            "tool_result",
            n,
            role="tool",
            name=name[:200] if name else None,
            tool_name=name[:200] if name else None,
            tool_use_id=call_id[:200] if call_id else None,
            paths=file_paths(text[:20000]),
            is_error=block.get("is_error") is True,
        )


def _file_placeholders(files: Any) -> list[str]:
    if not isinstance(files, list):
        return []
    out = []
    for f in files:
        if isinstance(f, dict):
            name = exports.text_of(f.get("file_name")) or exports.text_of(f.get("file_uuid")) or "file"
            out.append(f"[{name[:200]}]")
    return out


def _thinking_text(block: dict[str, Any]) -> str:
    thought = block.get("thinking")
    if isinstance(thought, str) and thought.strip():
        return thought.strip()
    summaries = block.get("summaries")
    if isinstance(summaries, list):
        parts = [s["summary"] for s in summaries if isinstance(s, dict) and isinstance(s.get("summary"), str)]
        return "\n".join(parts).strip()
    return ""

"""OpenAI Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, `archived_sessions/`).

Guarantees:
- both layouts are read: the current `{timestamp, type, payload}` envelope and the older flat
  one (a bare `{id, timestamp, instructions, git}` first line, then bare response items and
  `{"record_type": ...}` lines, with no per-line timestamps: those turns have `ts=None`);
- incremental like Claude Code: only the bytes after the cursor are parsed, a torn last line is
  left for the next run; a big file is read in pieces of about `max_bytes` (`pieces`), cut
  between any two lines (no turn spans lines), with the session and tool names by call id
  carried from piece to piece; the session header (first line) is re-read, bounded, on every run, so
  a later batch still knows the session's cwd and kind, and the id is carried in the cursor
  (`Cursor.session`) so it never changes once turns were stored under it;
- every turn's uuid is `"<session id>:<line>"` (`"<session id>:<line>:<n>"` for the n-th extra
  turn of a line): stable across re-runs, so re-ingesting a file adds nothing;
- each message is stored once: the `response_item` message is kept and its `event_msg` copy
  (`user_message`, `agent_message`, `agent_reasoning`) is counted as skipped. Codex persists
  every response_item message, so the copy never holds words found nowhere else;
- injected user/developer/system messages (`<environment_context>`, `# AGENTS.md instructions`,
  `<permissions instructions>`, `<user_instructions>`, any developer or system role) are META,
  never TYPED; in a subagent thread the prompts are AGENT_PROMPT;
- tool calls (`function_call`, `custom_tool_call`, `local_shell_call`, `web_search_call`) are
  TOOL_CALL turns, their outputs TOOL_OUTPUT turns, paired by `call_id` (a patch run through the shell,
  `["apply_patch", patch]` or a heredoc to `apply_patch`, is stored as the patch tool's call); `reasoning` summaries
  are THINKING (encrypted reasoning is never stored); `compacted` is a COMPACT_SUMMARY;
- `session_meta.source == "exec"` marks the session headless (`headless_hint`); a
  `source.subagent` marks it a subagent of `parent_thread_id`;
- unknown record types are counted with `batch.skip`; a bad record is a `Problem`, never an
  exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..contract import (
    AGENT_PROMPT,
    ASSISTANT,
    COMPACT_SUMMARY,
    META,
    THINKING,
    TOOL_CALL,
    TOOL_OUTPUT,
    TYPED,
    Cursor,
    ParseBatch,
    ParsedSession,
    ParsedTurn,
    Problem,
)
from .formats import LineFormat
from .lines import read_json_lines
from .text import file_paths, render_tool_input, tool_input_paths

NAME = "codex"

_ROLLOUT_NAME = re.compile(r"^rollout-.*?([0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})$")
_ENVELOPE_TYPES = {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
_ITEM_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
}
_EVENT_COPIES = {"user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content"}
_INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<permissions_instructions>",
    "<developer_instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<turn_aborted>",
    "<subagent_notification>",
    "<user_shell_command>",
    "<collaboration_mode>",
    "<skill>",
)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
_PATCH = re.compile(r"^\*\*\* Begin Patch$.*?^\*\*\* End Patch$", re.M | re.S)
_PATCH_TOOL = "apply_patch"
_PATCH_COMMANDS = (_PATCH_TOOL, "applypatch")  # the names Codex runs the patch tool by from a shell
_MAX_TOOL_INPUT = 100_000


class CodexFormat(LineFormat):
    """Codex CLI rollouts: a `.codex` folder, a sessions tree, or one rollout file."""

    name = NAME
    summary = "OpenAI Codex CLI sessions: ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl and archived_sessions/"
    incremental = True

    def sniff(self, path: Path) -> bool:
        if path.is_dir():
            return any(True for _ in self.files(path))
        if path.suffix != ".jsonl":
            return False
        if path.name.startswith("rollout-"):
            return True
        try:
            with path.open("rb") as f:
                head = f.read(65536)
        except OSError:
            return False
        first = head.split(b"\n", 1)[0]
        return b'"session_meta"' in first or (b'"instructions"' in first and b'"sessionId"' not in first)

    def files(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
            return
        if not root.is_dir():
            return
        try:
            found = sorted(p for p in root.rglob("rollout-*.jsonl") if p.is_file())
        except OSError:
            return
        yield from found

    @staticmethod
    def parser(path: Path) -> _Parser:
        return _Parser(path)


FORMAT = CodexFormat()


class _Parser:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[Problem] = []
        self.batch = ParseBatch(sessions=[], problems=self.problems, end=Cursor())
        match = _ROLLOUT_NAME.match(path.stem)
        self.session = ParsedSession(id=match.group(1) if match else path.stem, source_file=str(path), format=NAME)
        self.tool_names: dict[str, str] = {}
        self.meta_seen = False
        self.fixed_id: str | None = None

    # -- driving ---------------------------------------------------------------------------
    def pieces(self, cursor: Cursor, max_line_bytes: int, max_bytes: int) -> Iterator[ParseBatch]:
        """The new records from `cursor` in batches of about `max_bytes` of input (0: one batch)."""
        self.fixed_id = cursor.session if cursor.offset > 0 else None
        if self.fixed_id:
            self.session.id = self.fixed_id
        if cursor.offset > 0:
            self._read_header(max_line_bytes)
        lines = read_json_lines(self.path, cursor, max_line_bytes)
        start = done = cursor.offset
        done_cursor = Cursor(cursor.offset, cursor.line)
        for line_no, record, problem in lines:
            if max_bytes and done - start >= max_bytes:
                yield self._piece(done_cursor)
                start = done
            if problem is not None:
                self.problems.append(Problem(str(self.path), line_no, problem))
            if record is not None:
                self.batch.records += 1
                try:
                    self._record(line_no, record)
                except (TypeError, AttributeError, ValueError, KeyError, RecursionError) as exc:
                    message = f"unusable {record.get('type')!r} record: {exc}"
                    self.problems.append(Problem(str(self.path), line_no, message))
            done_cursor = lines.end
            done = done_cursor.offset
        yield self._piece(lines.end)

    def _piece(self, end: Cursor) -> ParseBatch:
        """Close the batch read so far (it ends at `end`) and start the next one."""
        batch = self.batch
        batch.end = Cursor(end.offset, end.line, self.session.id)
        if batch.records:
            batch.sessions = [self.session]
            self.session = replace(self.session, turns=[])
        self.problems = []
        self.batch = ParseBatch(sessions=[], problems=self.problems, end=Cursor())
        return batch

    def _read_header(self, max_line_bytes: int) -> None:
        """The first line names the session; a later batch needs it too (never a Problem twice)."""
        try:
            for line_no, record, _problem in read_json_lines(self.path, Cursor(), max_line_bytes):
                if (record is not None and self._header(line_no, record)) or line_no >= 5:
                    return
        except OSError:
            return

    def _header(self, line_no: int, r: dict[str, Any]) -> bool:
        """Take the first session header; a later one (a fork's copied history) is only counted."""
        if r.get("type") == "session_meta" and isinstance(r.get("payload"), dict):
            payload = r["payload"]
        elif line_no == 1 and "type" not in r and "record_type" not in r and ("instructions" in r or "id" in r):
            payload = r  # the older flat layout
        else:
            return False
        if self.meta_seen:
            self.batch.skip("session_meta after the first")
        else:
            self.meta_seen = True
            self._meta(payload)
        return True

    def _meta(self, p: dict[str, Any]) -> None:
        s = self.session
        sid = _str(p.get("id"))
        if sid and not self.fixed_id:
            s.id = sid[:200]
        if _str(p.get("cwd")):
            s.cwd = p["cwd"]
        if _str(p.get("cli_version")):
            s.version = p["cli_version"]
        git = p.get("git")
        if isinstance(git, dict) and _str(git.get("branch")):
            s.git_branch = git["branch"]
        source = p.get("source")
        if isinstance(source, str):
            s.entrypoint = source
            if source == "exec":
                s.headless_hint = True
        elif isinstance(source, dict) and "subagent" in source:
            s.entrypoint = "subagent"
            s.is_subagent = True
            sub = source["subagent"]
            spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
            if isinstance(spawn, dict):
                s.parent_session = _str(spawn.get("parent_thread_id"))
                s.agent_id = _str(spawn.get("agent_nickname"))
                s.agent_type = _str(spawn.get("agent_role")) or "thread_spawn"
            elif isinstance(sub, str):
                s.agent_type = sub
        originator = _str(p.get("originator"))
        if originator == "codex_exec" and not s.is_subagent:
            s.headless_hint = True
        if s.entrypoint is None and originator:
            s.entrypoint = originator

    # -- one record ------------------------------------------------------------------------
    def _record(self, line: int, r: dict[str, Any]) -> None:
        if self._header(line, r):
            return
        rtype = r.get("type")
        if "record_type" in r and rtype is None:
            self.batch.skip(f"legacy {r.get('record_type')!s:.40}")
            return
        if not isinstance(rtype, str):
            self.problems.append(Problem(str(self.path), line, "record has no 'type'"))
            return
        if rtype in _ENVELOPE_TYPES and "payload" in r:
            payload = r["payload"]
            if not isinstance(payload, dict):
                self.problems.append(Problem(str(self.path), line, f"{rtype} payload is not an object"))
                return
            ts = _str(r.get("timestamp"))
            if rtype == "response_item":
                self._item(line, ts, payload)
            elif rtype == "event_msg":
                self._event(payload)
            elif rtype == "turn_context":
                if _str(payload.get("cwd")):
                    self.session.cwd = payload["cwd"]
                self.batch.skip("turn_context")
            elif rtype == "compacted":
                self._compacted(line, ts, payload)
            else:
                self.batch.skip(rtype)
        elif rtype in _ITEM_TYPES:  # the older flat layout: a bare response item
            self._item(line, _str(r.get("timestamp")), r)
        else:
            self.batch.skip(f"unknown type {rtype[:60]}")

    def _turn(self, line: int, ts: str | None, **fields: Any) -> ParsedTurn:
        base = f"{self.session.id}:{line}"
        same_line = sum(1 for t in self.session.turns[-8:] if t.line == line)
        turn = ParsedTurn(uuids=[base if not same_line else f"{base}:{same_line}"], ts=ts, line=line, **fields)
        self.session.turns.append(turn)
        return turn

    def _event(self, p: dict[str, Any]) -> None:
        etype = p.get("type")
        if etype in _EVENT_COPIES:
            self.batch.skip(f"event_msg {etype} (copy of a response_item)")
        else:
            self.batch.skip(f"event_msg {str(etype)[:60]}")

    def _compacted(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        text = _str(p.get("message"))
        if text and text.strip():
            self._turn(line, ts, role="user", kind=COMPACT_SUMMARY, text=text.strip(), name="system")
        else:
            self._turn(line, ts, role="system", kind=META, text="Conversation compacted", name="system")

    def _item(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        itype = p.get("type")
        if itype == "message":
            self._message(line, ts, p)
        elif itype == "reasoning":
            self._reasoning(line, ts, p)
        elif itype == "function_call":
            self._function_call(line, ts, p)
        elif itype == "custom_tool_call":
            self._custom_call(line, ts, p)
        elif itype == "local_shell_call":
            self._shell_call(line, ts, p)
        elif itype == "web_search_call":
            self._web_search(line, ts, p)
        elif itype in ("function_call_output", "custom_tool_call_output"):
            self._output(line, ts, p)
        else:
            self.batch.skip(f"response_item {str(itype)[:60]}")

    def _message(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        role = p.get("role")
        content = p.get("content")
        if isinstance(content, str):
            content = [{"type": "input_text", "text": content}]
        if not isinstance(content, list):
            self.problems.append(Problem(str(self.path), line, "message without a content list"))
            return
        texts: list[str] = []
        images = 0
        for block in content:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    texts.append(block["text"])
                elif block.get("type") in ("input_image", "image", "output_image"):
                    images += 1
        if role == "assistant":
            text = "\n".join(texts).strip()
            if text:
                paths = file_paths(text)
                self._turn(line, ts, role="assistant", kind=ASSISTANT, text=text, name="assistant", paths=paths)
            else:
                self.batch.skip("empty assistant message")
            return
        if role != "user":  # developer, system, or anything else: injected
            text = "\n".join(texts).strip()
            if text:
                self._turn(line, ts, role="system", kind=META, text=text, name=str(role or "system")[:40])
            else:
                self.batch.skip(f"empty {str(role)[:40]} message")
            return
        typed = [t for t in texts if not t.lstrip().startswith(_INJECTED_PREFIXES)]
        injected = [t for t in texts if t.lstrip().startswith(_INJECTED_PREFIXES)]
        body = "\n".join(typed).strip()
        if images:
            body = (body + " " + " ".join("[image]" for _ in range(images))).strip()
        if body:
            if self.session.is_subagent:
                self._turn(line, ts, role="user", kind=AGENT_PROMPT, text=body, name="agent")
            else:
                self._turn(line, ts, role="user", kind=TYPED, text=body, paths=file_paths(body))
        meta = "\n".join(injected).strip()
        if meta:
            self._turn(line, ts, role="system", kind=META, text=meta, name="system")
        if not body and not meta:
            self.batch.skip("empty user message")

    def _reasoning(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        parts: list[str] = []
        for key in ("summary", "content"):
            blocks = p.get(key)
            if isinstance(blocks, list):
                parts.extend(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str))
            if parts:
                break  # the summary when there is one, else the raw reasoning text
        text = "\n".join(parts).strip()
        if text:
            self._turn(line, ts, role="assistant", kind=THINKING, text=text, name="assistant")
        else:
            self.batch.skip("reasoning without a summary")

    def _call(self, line: int, ts: str | None, name: str, tool_input: dict[str, Any], call_id: str | None) -> None:
        patch = _shell_patch(tool_input)
        if patch is not None:  # the patch tool run through the shell: stored as its own call, so it reads alike
            workdir = tool_input.get("workdir")
            name, tool_input = _PATCH_TOOL, {"input": patch, **({"workdir": workdir} if workdir else {})}
        if call_id:
            self.tool_names[call_id] = name
        self._turn(
            line,
            ts,
            role="assistant",
            kind=TOOL_CALL,
            text=render_tool_input(name, tool_input),
            name=name,
            tool_name=name,
            tool_input=json.dumps(tool_input, ensure_ascii=False)[:_MAX_TOOL_INPUT],
            tool_use_id=call_id,
            paths=_call_paths(name, tool_input),
        )

    def _function_call(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        name = _str(p.get("name")) or "tool"
        arguments = p.get("arguments")
        tool_input: dict[str, Any]
        if isinstance(arguments, dict):
            tool_input = arguments
        elif isinstance(arguments, str):
            try:
                parsed = json.loads(arguments) if len(arguments) <= _MAX_TOOL_INPUT * 10 else None
            except (ValueError, RecursionError):
                parsed = None
            tool_input = parsed if isinstance(parsed, dict) else {"arguments": arguments}
        else:
            tool_input = {}
        self._call(line, ts, name[:200], tool_input, _call_id(p))

    def _custom_call(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        name = _str(p.get("name")) or "tool"
        raw = p.get("input")
        tool_input = {"input": raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)}
        self._call(line, ts, name[:200], tool_input, _call_id(p))

    def _shell_call(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        action = p.get("action")
        tool_input: dict[str, Any] = dict(action) if isinstance(action, dict) else {}
        tool_input.pop("type", None)
        self._call(line, ts, "local_shell", tool_input, _call_id(p))

    def _web_search(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        action = p.get("action")
        tool_input: dict[str, Any] = dict(action) if isinstance(action, dict) else {}
        tool_input.pop("type", None)
        self._call(line, ts, "web_search", tool_input, _call_id(p))

    def _output(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        call_id = _call_id(p)
        text, is_error = _output_text(p.get("output"))
        name = self.tool_names.get(call_id) if call_id else None
        self._turn(
            line,
            ts,
            role="tool",
            kind=TOOL_OUTPUT,
            text=text,
            name=name,  # the tool's name, as the store names an output whose call an earlier run read
            tool_use_id=call_id,
            tool_name=name,
            paths=file_paths(text[:20000]),
            is_error=is_error,
        )


# -- helpers ---------------------------------------------------------------------------------
def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _call_id(p: dict[str, Any]) -> str | None:
    value = _str(p.get("call_id")) or _str(p.get("id"))
    return value[:200] if value else None


def _command_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    return None


def _shell_patch(tool_input: dict[str, Any]) -> str | None:
    """The patch a shell command applies with the patch tool (`["apply_patch", patch]`, or `apply_patch <<'EOF'` with
    the patch in a heredoc; `applypatch` too), or None."""
    command = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(command, list) and len(command) == 2 and command[0] in _PATCH_COMMANDS:
        return command[1] if isinstance(command[1], str) else None
    text = _command_text(command)
    if text is None or not any(name in text for name in _PATCH_COMMANDS):
        return None
    found = _PATCH.search(text)
    return found.group() if found else None


def _call_paths(name: str, tool_input: dict[str, Any]) -> list[str]:
    """Paths a call touches: its path fields, its shell command, or the files an apply_patch names."""
    view: dict[str, Any] = dict(tool_input)
    command = _command_text(tool_input.get("command")) or _command_text(tool_input.get("cmd"))
    if command is not None:
        view["command"] = command
    if isinstance(tool_input.get("workdir"), str):
        view.setdefault("cwd", tool_input["workdir"])
    paths = tool_input_paths(view)
    patch = tool_input.get("input") if isinstance(tool_input.get("input"), str) else None
    if patch and "*** " in patch:
        paths = [m.strip() for m in _PATCH_FILE.findall(patch[:200_000])] + paths
    elif patch and name != _PATCH_TOOL:
        paths += file_paths(patch)
    return list(dict.fromkeys(p for p in paths if p))[:20]


def _output_text(output: Any) -> tuple[str, bool]:
    """The text of a tool output and whether it failed (exit code, `success: false`)."""
    if isinstance(output, str):
        if output.startswith("{") and '"output"' in output[:200]:
            try:
                data = json.loads(output)
            except (ValueError, RecursionError):
                return output, False
            if isinstance(data, dict) and isinstance(data.get("output"), str):
                return data["output"], _failed(data)
        return output, False
    if isinstance(output, list):
        parts = [b["text"] for b in output if isinstance(b, dict) and isinstance(b.get("text"), str)]
        parts += [b for b in output if isinstance(b, str)]
        return "\n".join(parts), False
    if isinstance(output, dict):
        content = output.get("content")
        if isinstance(content, str):
            return content, _failed(output)
        if isinstance(content, list):
            text, _ = _output_text(content)
            return text, _failed(output)
        if isinstance(output.get("output"), str):
            return output["output"], _failed(output)
    if output is None:
        return "", False
    return json.dumps(output, ensure_ascii=False)[:_MAX_TOOL_INPUT], False


def _failed(data: dict[str, Any]) -> bool:
    if data.get("success") is False:
        return True
    meta = data.get("metadata")
    code = meta.get("exit_code") if isinstance(meta, dict) else data.get("exit_code")
    return isinstance(code, int) and not isinstance(code, bool) and code != 0

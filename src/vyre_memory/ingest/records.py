"""What a transcript parser hands to the store: sessions and turns, in file order.

A parser never touches the database. It reads new bytes of one source file and returns a
`ParseBatch` (or, for a big file, several: one per piece of input, see `formats.parse_pieces`);
the ingest runner labels trust, de-duplicates by record uuid and writes each batch in one
transaction together with the read position where that batch ends (`ParseBatch.end`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Role = Literal["user", "assistant", "tool", "system"]

# What a turn's text is (its trust label). Only TYPED can ever yield a personal fact.
TYPED = "typed"  # the person's own typed words
ASSISTANT = "assistant"  # the assistant's text
THINKING = "thinking"  # the assistant's visible reasoning
TOOL_CALL = "tool_call"  # a tool call: name and input
TOOL_OUTPUT = "tool_output"  # what a tool returned
COMMAND = "command"  # a slash or bash command, or its local output
META = "meta"  # injected or meta text: caveats, reminders, interrupts, notifications
COMPACT_SUMMARY = "compact_summary"  # the summary written when a conversation is compacted
AGENT_PROMPT = "agent_prompt"  # a prompt a program wrote: a subagent's brief
PASTED = "pasted"  # material the person attached (export attachments), never their words

TURN_KINDS = (
    TYPED,
    ASSISTANT,
    THINKING,
    TOOL_CALL,
    TOOL_OUTPUT,
    COMMAND,
    META,
    COMPACT_SUMMARY,
    AGENT_PROMPT,
    PASTED,
)

# Who ran a session.
INTERACTIVE = "interactive"
HEADLESS = "headless"
SUBAGENT = "subagent"
MEMORY = "memory"  # memory's own ask thread, or any session in a Vyre folder
BUILDS_MEMORY = "builds_memory"  # a project that builds memory (config: builds_memory_folders)

SESSION_KINDS = (INTERACTIVE, HEADLESS, SUBAGENT, MEMORY, BUILDS_MEMORY)


@dataclass
class ParsedTurn:
    """One turn: a typed prompt, an assistant message, a tool call, a tool's output..."""

    uuids: list[str]
    role: Role
    kind: str
    text: str
    ts: str | None = None
    line: int = 0  # 1-based line (or record) number where the turn starts
    name: str | None = None  # tool name for tool turns; None means "the person" / "assistant"
    tool_name: str | None = None
    tool_input: str | None = None  # JSON text of the call's input
    tool_use_id: str | None = None  # pairs a tool call with its output
    message_id: str | None = None  # joins the blocks of one assistant message
    parent_uuid: str | None = None
    paths: list[str] = field(default_factory=list)
    is_error: bool = False


@dataclass
class ParsedSession:
    """A session's header as far as this batch knows it, and its new turns."""

    id: str
    source_file: str
    format: str
    cwd: str | None = None
    entrypoint: str | None = None
    version: str | None = None
    git_branch: str | None = None
    title: str | None = None
    title_rank: int = 0  # higher wins: custom title 3, ai title 2, summary 1
    parent_session: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    spawn_tool_use_id: str | None = None
    is_subagent: bool = False
    headless_hint: bool = False  # a prompt line said promptSource "sdk"
    spawned: dict[str, str] = field(default_factory=dict)  # agent id -> the tool_use id that spawned it
    turns: list[ParsedTurn] = field(default_factory=list)


@dataclass
class Problem:
    """A record that could not be used; ingest goes on."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass
class Cursor:
    """Where the previous run (or the previous piece) stopped reading a file: always between two records."""

    offset: int = 0
    line: int = 0
    session: str | None = None  # the file's main session id, once known


@dataclass
class ParseBatch:
    sessions: list[ParsedSession]
    problems: list[Problem]
    end: Cursor
    records: int = 0  # records read (lines that parsed as JSON objects)
    skipped: dict[str, int] = field(default_factory=dict)  # counts of records not stored, by reason
    whole_file: bool = False  # the parser re-reads the whole file each time (exports)

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

"""The typed shapes that cross a boundary: what the store returns, what `Memory` returns,
and what every surface (CLI, HTTP, MCP, web page) serialises. Frozen dataclasses with a
`to_dict()` that gives the JSON form of the contract in DESIGN.md.

At the bottom: the turn and session kinds every layer labels by, and what a transcript parser
hands to the store (`ParseBatch`): a parser never touches the database. It reads new bytes of one
source file and returns a batch (or, for a big file, several: one per piece of input, see
`ingest.formats.parse_pieces`); the ingest runner labels trust, de-duplicates by record uuid and
writes each batch in one transaction together with the read position where it ends (`ParseBatch.end`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class SessionInfo:
    id: str
    kind: str
    format: str
    cwd: str | None
    project: str | None
    title: str | None
    first_ts: str | None
    last_ts: str | None
    turn_count: int
    entrypoint: str | None = None
    version: str | None = None
    git_branch: str | None = None
    source_file: str | None = None
    parent_session: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    spawn_tool_use_id: str | None = None
    host: str | None = None  # the machine it was ingested on

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Turn:
    """One stored turn, with its session's labels (what retrieval and the reader see)."""

    id: int
    session: str
    seq: int
    uuids: tuple[str, ...]
    role: str
    kind: str
    name: str
    text: str
    ts: str | None
    session_kind: str
    cwd: str | None
    tool_name: str | None = None
    paths: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["uuids"], d["paths"] = list(self.uuids), list(self.paths)
        return d


@dataclass(frozen=True)
class SearchHit:
    turn: Turn
    score: float
    snippet: str

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "snippet": self.snippet, **self.turn.to_dict()}


@dataclass(frozen=True)
class Source:
    """Where an answer stands: one turn, and the exact text quoted from it."""

    session: str
    seq: int
    name: str
    quote: str
    ts: str | None
    uuid: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IngestReport:
    files_seen: int = 0
    files_read: int = 0
    records: int = 0
    new_sessions: int = 0
    new_turns: int = 0
    duplicates: int = 0
    problems: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    files_by_format: dict[str, int] = field(default_factory=dict)  # files found per detected format
    files_skipped: dict[str, str] = field(default_factory=dict)  # path -> why it was not read, what to do
    new_by_kind: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Scope:
    """Who is asking, and so what may be read.

    `project_cwds`: only sessions run in these folders or below. `agent_projects`: an agent
    granted these projects sees only their sessions, never personal facts, and never the person's
    asides in those sessions (cut out by retrieval and `Memory.turns`). Both None: the
    person's own surface, which sees everything. Memory's own ask threads are never read.
    """

    project_cwds: tuple[str, ...] | None = None
    agent_projects: tuple[str, ...] | None = None

    @classmethod
    def of(cls, project_cwds: Any = None, agent_projects: Any = None) -> Scope:
        return cls(
            tuple(project_cwds) if project_cwds is not None else None,
            tuple(agent_projects) if agent_projects is not None else None,
        )

    @property
    def personal_allowed(self) -> bool:
        return self.agent_projects is None

    def folders(self) -> tuple[str, ...] | None:
        if self.agent_projects is None:
            return self.project_cwds
        if self.project_cwds is None:
            return self.agent_projects
        from .ingest.labels import is_within

        return tuple(p for p in self.project_cwds if any(is_within(p, a) for a in self.agent_projects))

    @staticmethod
    def excluded_session_kinds() -> tuple[str, ...]:
        return ("memory",)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.project_cwds is not None:
            d["project_cwds"] = list(self.project_cwds)
        if self.agent_projects is not None:
            d["agent_projects"] = list(self.agent_projects)
        return d


@dataclass(frozen=True)
class Passage:
    """A ranked passage, as `memory.retrieve` returns it and the answer step reads it."""

    id: int
    session: str
    seq: int
    uuids: tuple[str, ...]
    kind: str
    name: str
    ts: str | None
    text: str
    score: float
    cwd: str | None = None
    session_kind: str = ""
    via: tuple[str, ...] = ()
    about: str = field(default="", repr=False)  # what it was found by: who, when, where, what was asked

    def source(self, quote: str | None = None) -> Source:
        return Source(
            self.session,
            self.seq,
            self.name,
            quote if quote is not None else self.text[:500],
            self.ts,
            self.uuids[0] if self.uuids else None,
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["uuids"], d["via"] = list(self.uuids), list(self.via)
        del d["about"]
        return d


@dataclass(frozen=True)
class FactSource:
    """One mention of a fact: the turn it was read from and the exact sentence."""

    session: str
    seq: int
    turn: int
    uuid: str | None
    quote: str
    ts: str | None
    confidence: float
    via: str = "typed"  # "typed": the person's own sentence; "confirmed": an assistant guess they confirmed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Fact:
    """A personal fact. `id` is the fact itself (a hash of subject, relation, object), so a re-derive keeps it.

    `status`: "current", or "past" for an older value of something that changes over time (a move,
    a new car): the newest value wins and the others are kept as its history.
    """

    id: str
    subject: str
    relation: str
    object: str
    confidence: float
    first_ts: str | None
    last_ts: str | None
    status: str
    sources: tuple[FactSource, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sources"] = [s.to_dict() for s in self.sources]
        return d


@dataclass(frozen=True)
class AskResult:
    """The answer contract (DESIGN.md "The contract"): `abstained` means `answer` is None."""

    answer: str | None
    confidence: float
    abstained: bool
    known: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()
    via: str | None = None  # "fact" | "retrieval" | None
    latency_ms: float = 0.0
    cost_usd: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    # the record uuids of each passage the answer step read (for the eval's answer recall; not in the contract)
    read: tuple[tuple[str, ...], ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "confidence": self.confidence,
            "abstained": self.abstained,
            "known": list(self.known),
            "sources": [s.to_dict() for s in self.sources],
            "via": self.via,
            "latency_ms": self.latency_ms,
            "cost_usd": self.cost_usd,
            "timings": dict(self.timings),
        }


@dataclass(frozen=True)
class EdgeSource:
    """A turn an edge stands on."""

    session: str
    seq: int
    uuid: str | None
    quote: str
    ts: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Edge:
    """A relation in the graph: `src` -[relation]-> `dst` (entity ids), when, on whose word, from which turns.

    `status` is "current", or "superseded" for a decision a newer one on the same topic replaced.
    """

    id: str
    src: str
    relation: str
    dst: str
    confidence: float
    status: str
    ts: str | None
    said_by: str | None
    sources: tuple[EdgeSource, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sources"] = [s.to_dict() for s in self.sources]
        return d


@dataclass(frozen=True)
class Entity:
    """A node of the graph: a person, project, organisation or decision, with its aliases and edges."""

    id: str
    kind: str  # "person" | "project" | "organisation" | "decision"
    name: str
    aliases: tuple[str, ...] = ()
    pinned: bool = False
    status: str = "current"
    first_ts: str | None = None
    last_ts: str | None = None
    mentions: int = 0
    edges: tuple[Edge, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["aliases"] = list(self.aliases)
        d["edges"] = [e.to_dict() for e in self.edges]
        return d


# -- kinds, and what a parser hands to the store ---------------------------------------------------

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

# Sessions of a coding agent wander over many tasks; a session of any other format (a chat export, an
# imported conversation) is one conversation, which a question is often about as a whole.
AGENT_FORMATS = frozenset({"claude-code", "codex"})


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

"""The typed shapes that cross a boundary: what the store returns, what `Memory` returns,
and what every surface (CLI, HTTP, MCP, web page) serialises. Frozen dataclasses with a
`to_dict()` that gives the JSON form of the contract in DESIGN.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


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
    new_by_kind: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Scope:
    """Who is asking, and so what may be read.

    `project_cwds`: only sessions run in these folders or below. `agent_projects`: an agent
    granted these projects sees only their sessions and never personal facts. Both None: the
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

    def source(self, quote: str | None = None) -> Source:
        return Source(self.session, self.seq, self.name, quote if quote is not None else self.text[:500], self.ts,
                      self.uuids[0] if self.uuids else None)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["uuids"], d["via"] = list(self.uuids), list(self.via)
        return d

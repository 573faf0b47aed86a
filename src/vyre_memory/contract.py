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

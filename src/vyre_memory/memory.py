"""class Memory: the one public API. Every surface (CLI, HTTP, MCP, web page) calls it.

mem = Memory()                      # VYRE_HOME or ~/.vyre
mem.ingest()                        # ~/.claude/projects, incrementally
mem.search("stripe refund")         # BM25 over turns
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from .ask.index import embed_passages, index_passages
from .ask.retrieve import Retriever
from .config import Config
from .contract import IngestReport, Passage, Scope, SearchHit, SessionInfo, Turn
from .errors import NotFoundError
from .ingest.formats import SourceFormat, formats
from .ingest.runner import IngestSettings, Progress, default_paths
from .ingest.runner import ingest as run_ingest
from .models.embed import default_embedder, get_embedder
from .store.sqlite import Store

_UNSET: Any = object()


class Memory:
    def __init__(self, home: Path | str | None = None, *, config: Config | None = None, **overrides: Any) -> None:
        self.config = config or Config.load(home, **overrides)
        self.store = Store(self.config.db_path)
        self._embedder: Any = _UNSET
        self.embedder_reason = ""
        self._retriever: Retriever | None = None

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest ---------------------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[Path | str] | None = None,
        *,
        format: str | None = None,
        strict: bool = False,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Read new transcript records from `paths` (default: the configured transcripts)."""
        targets = [Path(p).expanduser() for p in paths] if paths else default_paths(self.config.transcripts)
        settings = IngestSettings(
            vyre_home=str(self.config.home), builds_memory_folders=self.config.builds_memory_folders
        )
        report = run_ingest(self.store, targets, settings, format_name=format, strict=strict, progress=progress)
        self.index(progress=progress)
        return report

    def index(self, progress: Progress | None = None) -> dict[str, int]:
        """Bring passages and their vectors up to date with the stored turns."""
        passages = index_passages(self.store, self.config.user_name)
        embedder = self.embedder
        vectors = embed_passages(self.store, embedder, progress) if embedder is not None else 0
        return {"passages": passages, "vectors": vectors}

    @property
    def embedder(self) -> Any | None:
        """The configured embedder (config `embedder`), else the best available offline; None: BM25 only."""
        if self._embedder is _UNSET:
            if self.config.embedder:
                self._embedder = get_embedder(self.config.embedder)
                self.embedder_reason = f"{self.config.embedder} (from config)"
            else:
                self._embedder, self.embedder_reason = default_embedder()
        return self._embedder

    @property
    def retriever(self) -> Retriever:
        if self._retriever is None:
            self._retriever = Retriever(self.store, self.embedder, self.config.user_name)
        return self._retriever

    def retrieve(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = None,
        agent_projects: Sequence[str] | None = None,
        k: int = 8,
        now: datetime | None = None,
        context: dict[str, Any] | None = None,
        config: str | None = None,
    ) -> list[Passage]:
        """The ranked passages the answer step would read, under the caller's scope."""
        scope = _scope(project_cwds, agent_projects, context)
        thread = (context or {}).get("thread")
        return self.retriever.retrieve(question, scope, k=k, now=now, config=config, thread=thread)

    def watch(
        self,
        paths: Iterable[Path | str] | None = None,
        *,
        interval: float = 2.0,
        rounds: int | None = None,
        on_round: Callable[[IngestReport], None] | None = None,
    ) -> None:
        """Keep ingesting as sessions grow (polling); each round that adds turns bumps the corpus version."""
        done = 0
        targets = list(paths) if paths else None
        while rounds is None or done < rounds:
            report = self.ingest(targets)
            if on_round:
                on_round(report)
            done += 1
            if rounds is None or done < rounds:
                time.sleep(interval)

    @staticmethod
    def formats() -> dict[str, SourceFormat]:
        return formats()

    # -- reading --------------------------------------------------------------------------------
    def sessions(
        self,
        *,
        project_cwds: Sequence[str] | None = None,
        kind: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
    ) -> list[SessionInfo]:
        return self.store.sessions(project_cwds=project_cwds, kind=kind, since=since, until=until, limit=limit)

    def session(self, session_id: str) -> SessionInfo:
        info = self.store.session(session_id)
        if info is None:
            raise NotFoundError(f"no session {session_id!r}; list them with: vyre sessions")
        return info

    def turns(self, session_id: str, start: int = 0, end: int | None = None) -> list[Turn]:
        return [self._named(t) for t in self.store.turns(session_id, start=start, end=end)]

    def search(self, text: str, *, project_cwds: Sequence[str] | None = None, limit: int = 20) -> list[SearchHit]:
        return [
            SearchHit(turn=self._named(h.turn), score=h.score, snippet=h.snippet)
            for h in self.store.search(text, project_cwds=project_cwds, limit=limit)
        ]

    def stats(self) -> dict[str, Any]:
        return self.store.stats()

    def _named(self, turn: Turn) -> Turn:
        """The person's own turns carry the person's name."""
        if turn.name:
            return turn
        from dataclasses import replace

        return replace(turn, name=self.config.user_name)


def _scope(
    project_cwds: Sequence[str] | None, agent_projects: Sequence[str] | None, context: dict[str, Any] | None
) -> Scope:
    """context.project scopes like project_cwds (ADR: "context.project scopes the question")."""
    project = (context or {}).get("project")
    if project and project_cwds is None:
        project_cwds = [project]
    return Scope.of(project_cwds, agent_projects)

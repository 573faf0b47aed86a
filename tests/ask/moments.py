"""What the releases, incidents and decisions list tests share: two projects' sessions written as real
transcripts, a store built from them, and the passages one list brought."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.read.derive import MomentKind, moments_of

NOW = datetime(2026, 10, 21, 12, 0, tzinfo=UTC)
SHOP = "/home/sam/code/shop-api"
ADMIN = "/home/sam/code/web-admin"


def session(root: Path, cwd: str, name: str, day: int) -> TranscriptWriter:
    """A new session of the project at `cwd`, started on that day of October 2026."""
    folder = root / cwd.replace("/", "-")
    return TranscriptWriter(folder / f"{name}.jsonl", cwd, start=datetime(2026, 10, day, 9, 0, tzinfo=UTC))


def subagent(parent: TranscriptWriter, agent_id: str) -> TranscriptWriter:
    """A subagent of the `parent` session, written where Claude Code writes one (`<session>/subagents/`)."""
    path = parent.path.parent / parent.session_id / "subagents" / f"agent-{agent_id}.jsonl"
    return TranscriptWriter(path, parent.cwd, session_id=parent.session_id, start=parent.start, agent_id=agent_id)


def memory_of(tmp_path: Path, history: Callable[[Path], None]) -> Iterator[Memory]:
    """A store in `tmp_path` of the sessions `history` writes under `tmp_path / "projects"`."""
    history(tmp_path / "projects")
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        mem.ingest([tmp_path / "projects"])
        yield mem


def found_by(memory: Memory, question: str, config: str, k: int = 8) -> list[str]:
    """The texts of the best `k` passages for `question`."""
    return [p.text for p in memory.retrieve(question, k=k, now=NOW, config=config)]


def brought_by(memory: Memory, name: str, question: str, config: str = "hybrid", **scope: object) -> list[str]:
    """The texts of the best eight passages for `question` that the list `name` brought."""
    found = memory.retrieve(question, k=8, now=NOW, config=config, **scope)  # type: ignore[arg-type]
    return [p.text for p in found if name in p.via]


def derives_the_same(memory: Memory, kind: MomentKind, projects: Path) -> int:
    """Ingest what was added under `projects` (an incremental derive), derive again in full, check both kept the
    same moments of `kind`, and then that a store with none of them kept (derived before they were) is derived
    whole once by an incremental derive; how many are kept."""
    memory.ingest([projects])
    incremental = moments_of(memory.store, kind)
    memory.derive()
    assert incremental == moments_of(memory.store, kind)
    memory.store.conn.execute("DELETE FROM meta WHERE key = ?", (kind.key,))
    memory.derive(incremental=True)
    assert moments_of(memory.store, kind) == incremental
    return len(incremental)

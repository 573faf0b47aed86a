"""Claude Code hooks: what the plugin in `plugin/` runs when a session ends (`SessionEnd`) and when Claude
finishes a reply (`Stop`).

Guarantees:
- the hook never fails Claude Code: bad input, a missing transcript or any error is one line on
  stderr and exit code 0;
- only the session the hook names is read (its transcript, and its subagents' folder beside it),
  never the whole projects tree;
- the person does not wait for it: the plugin's hook script starts `vyre hook ingest` detached,
  its output appended to `VYRE_HOME/hook.log`, and returns at once;
- hooks of one session never pile up (`one_at_a_time`): while an ingest of it runs, the hooks that fire
  meanwhile start nothing but ask it for one more round, which reads whatever they were fired for.

The hook's input (JSON on stdin) names `session_id`, `transcript_path`, `cwd`, `hook_event_name`
and, for SessionEnd, `reason`; for Stop, `stop_hook_active`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

try:
    import fcntl
except ImportError:  # Windows: no advisory locks here; each hook then ingests on its own
    fcntl = None  # type: ignore[assignment]

HOOK_EVENTS = ("SessionEnd", "Stop")


class HookInputError(ValueError):
    """Hook input this command cannot act on; its message says why."""


@dataclass(frozen=True)
class HookInput:
    event: str
    session_id: str
    transcript: Path

    def paths(self) -> list[Path]:
        """The transcript, and `<session>/subagents/` beside it when Claude Code wrote one."""
        subagents = self.transcript.with_suffix("") / "subagents"
        return [self.transcript, *([subagents] if subagents.is_dir() else [])]


def read_input(stream: IO[str]) -> HookInput:
    try:
        data: Any = json.loads(stream.read(1 << 20) or "null")
    except ValueError as exc:
        raise HookInputError(f"the hook input is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise HookInputError("the hook input is not a JSON object with transcript_path")
    event = data.get("hook_event_name")
    path = data.get("transcript_path")
    if event not in HOOK_EVENTS:
        raise HookInputError(f"hook event {event!r} is not one memory acts on ({', '.join(HOOK_EVENTS)})")
    if not isinstance(path, str) or not path:
        raise HookInputError("the hook input has no transcript_path")
    transcript = Path(path).expanduser()
    if not transcript.is_file():
        raise HookInputError(f"the session's transcript {transcript} is not there (nothing to ingest)")
    return HookInput(event, str(data.get("session_id") or transcript.stem), transcript)


def one_at_a_time(folder: Path, key: str, event: str, work: Callable[[str], None]) -> bool:
    """Run `work(event)` unless a run for `key` is under way in another process; then ask that run for one more
    round (with this event) and return False at once. However many hooks fire while one runs, one more round
    follows it: none piles up, none is lost. True when this process ran `work`."""
    if fcntl is None:
        work(event)
        return True
    folder.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(key.encode()).hexdigest()[:16]
    asked, lock = folder / f"{name}.again", folder / f"{name}.lock"
    _ask(asked, event)
    ran = False
    while True:
        with lock.open("a") as held:
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return ran  # the holder sees what was asked before it lets go
            try:
                while (round_event := _take(asked)) is not None:
                    work(round_event)
                    ran = True
            finally:
                fcntl.flock(held, fcntl.LOCK_UN)
        if not asked.exists():  # nothing asked between the last round and letting go
            return ran


def _ask(path: Path, event: str) -> None:
    """Ask for a round: the file appears whole (renamed into place), so a taker reads one event or another."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}")
    tmp.write_text(event, encoding="utf-8")
    os.replace(tmp, path)


def _take(path: Path) -> str | None:
    """The event asked for, taking the request (renamed away first: a request made meanwhile is a new file)."""
    taken = path.with_name(f"{path.name}.taken")
    try:
        os.replace(path, taken)
    except FileNotFoundError:
        return None
    try:
        return taken.read_text(encoding="utf-8") or "Stop"
    finally:
        taken.unlink(missing_ok=True)

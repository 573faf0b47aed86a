"""Claude Code hooks: what the plugin in `plugin/` runs when a session ends.

Guarantees:
- the hook never fails Claude Code: bad input, a missing transcript or any error is one line on
  stderr and exit code 0;
- only the session the hook names is read (its transcript, and its subagents' folder beside it),
  never the whole projects tree;
- the person does not wait for it: the plugin's hook script starts `vyre hook ingest` detached,
  its output appended to `VYRE_HOME/hook.log`, and returns at once.

The hook's input (JSON on stdin) names `session_id`, `transcript_path`, `cwd`, `hook_event_name`
and, for SessionEnd, `reason`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

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

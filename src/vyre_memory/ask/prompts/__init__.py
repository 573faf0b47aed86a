"""What the answer stages show a model, and the one bounded way they call it.

Guarantees:
- A passage is shown to a model by a short id (1, 2, 3 ...), its speaker and kind of text, its date and
  project folder name, and a bounded excerpt of its text; never by its session id, record uuids or full path.
- `render_passages` is pure: the same passages give the same text, character for character. Each excerpt is one
  line (whitespace collapsed), so a passage's text can never start a line that looks like another passage's header.
- Nothing happens at import.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from vyre_memory.contract import Passage
from vyre_memory.text import parse_ts

__all__ = ["asked_on", "excerpt", "passage_date", "project_of", "render_passages", "speaker_label"]

_KIND_LABELS = {
    "typed": "the user's own words",
    "assistant": "assistant",
    "thinking": "assistant reasoning",
    "tool_call": "tool call",
    "tool_output": "tool output",
    "command": "command",
    "compact_summary": "summary of an earlier conversation",
    "agent_prompt": "a program's brief to a subagent",
    "pasted": "pasted text, not the user's words",
    "fact": "remembered fact",
}
_SESSION_LABELS = {"subagent": "subagent session", "headless": "scripted run", "builds_memory": "memory dev session"}


def excerpt(text: str, limit: int) -> str:
    """`text` with runs of whitespace collapsed, cut at a word break to at most `limit` characters (… marks a cut)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", limit // 2, limit - 1)
    return flat[: cut if cut > 0 else limit - 1].rstrip() + "…"


def passage_date(ts: str | None) -> str:
    """'2026-08-04 (Tuesday)' from an ISO time, or '' when there is none or it does not parse."""
    when = parse_ts(ts)
    return f"{when:%Y-%m-%d} ({when:%A})" if when else ""


def asked_on(now: datetime) -> str:
    """'Asked on: 2026-08-04 (Tuesday)\n': the day a question is asked (only the day, so a question asked twice in a
    day is one request key), for the time words of the question and the dates of the passages."""
    return f"Asked on: {now:%Y-%m-%d} ({now:%A})\n"


def project_of(cwd: str | None) -> str:
    """The last folder name of a session's working directory (never the whole path)."""
    if not cwd:
        return ""
    return cwd.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def speaker_label(p: Passage) -> str:
    """'Sam (the user's own words)', 'assistant', 'Bash (tool output)'."""
    kind = _KIND_LABELS.get(p.kind, p.kind or "text")
    name = p.name or "unknown"
    label = name if name == kind else f"{name} ({kind})"
    session = _SESSION_LABELS.get(p.session_kind)
    return f"{label}, in a {session}" if session else label


def render_passages(passages: Sequence[Passage], *, chars: int, start: int = 1) -> str:
    """Passages as the model sees them: `[n] header` (n from `start`) then an excerpt of at most `chars`
    characters."""
    blocks = []
    for i, p in enumerate(passages, start=start):
        head = [speaker_label(p)]
        if date := passage_date(p.ts):
            head.append(date)
        if project := project_of(p.cwd):
            head.append(f"project {project}")
        blocks.append(f"[{i}] {' · '.join(head)}\n{excerpt(p.text, chars)}")
    return "\n\n".join(blocks)

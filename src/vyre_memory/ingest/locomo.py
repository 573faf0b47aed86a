"""LoCoMo conversations (a public long-term memory benchmark) as sessions and turns.

Takes both layouts: one conversation per file (`{speaker_a, speaker_b, session_N, session_N_date_time,
qa}`) and the list layout of `locomo10.json` (`[{sample_id, conversation: {...}, qa}]`). Each
`session_N` becomes a session; each turn keeps its `dia_id` as its record uuid, prefixed by the
sample id (or, for a one-conversation file, the file's name) so ids stay unique when several
conversations share a store; its speaker as the name, and the session's
date plus one minute per turn as its time. Both speakers are people typing: their turns are
labelled as typed words. Images are kept as their caption.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..contract import TYPED, Cursor, ParseBatch, ParsedSession, ParsedTurn, Problem

NAME = "locomo"
_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)
_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(), 1
    )
}


def parse_date(text: str) -> datetime | None:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08T13:56Z."""
    m = _DATE.search(text or "")
    if not m:
        return None
    hour, minute, ampm, day, month, year = m.groups()
    month_no = _MONTHS.get(month.lower()) or next((v for k, v in _MONTHS.items() if k.startswith(month.lower()[:3])), 0)
    if not month_no:
        return None
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    return datetime(int(year), month_no, int(day), h, int(minute), tzinfo=UTC)


def conversations(data: Any) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """(sample id, conversation, qa) for either layout."""
    if isinstance(data, dict) and "speaker_a" in data:
        return [("", data, data.get("qa") or [])]
    if isinstance(data, dict) and isinstance(data.get("conversation"), dict):
        return [(str(data.get("sample_id", "")), data["conversation"], data.get("qa") or [])]
    if isinstance(data, list):
        out = []
        for i, item in enumerate(data):
            if isinstance(item, dict) and isinstance(item.get("conversation"), dict):
                out.append((str(item.get("sample_id", i)), item["conversation"], item.get("qa") or []))
        return out
    return []


def turn_uuid(sample: str, dia_id: str) -> str:
    return f"{sample}:{dia_id}" if sample else dia_id


class LoCoMoFormat:
    name = NAME
    summary = "LoCoMo benchmark conversations (one conversation per .json, or locomo10.json)"
    incremental = False

    def sniff(self, path: Path) -> bool:
        if path.is_dir() or path.suffix != ".json":
            return False
        try:
            with path.open("rb") as f:
                head = f.read(4096)
        except OSError:
            return False
        return b'"speaker_a"' in head or (b'"sample_id"' in head and b'"conversation"' in head)

    def files(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
        else:
            yield from (p for p in sorted(root.glob("*.json")) if self.sniff(p))

    def parse(self, path: Path, cursor: Cursor, *, max_line_bytes: int) -> ParseBatch:
        batch = ParseBatch(sessions=[], problems=[], end=Cursor(), whole_file=True)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            batch.problems.append(Problem(str(path), 0, f"not a LoCoMo JSON file: {exc}"))
            return batch
        convs = conversations(data)
        if not convs:
            batch.problems.append(Problem(str(path), 0, "no LoCoMo conversation (speaker_a / session_N) in this file"))
        for sample, conv, _qa in convs:
            prefix = sample or path.stem
            n = 1
            while f"session_{n}" in conv:
                turns = conv.get(f"session_{n}")
                when = parse_date(str(conv.get(f"session_{n}_date_time", "")))
                session = ParsedSession(
                    id=f"locomo-{prefix}-s{n}",
                    source_file=str(path),
                    format=NAME,
                    title=f"{conv.get('speaker_a')} and {conv.get('speaker_b')}, session {n}",
                )
                for i, t in enumerate(turns if isinstance(turns, list) else []):
                    if not isinstance(t, dict) or not isinstance(t.get("text"), str):
                        batch.problems.append(Problem(str(path), i, f"session_{n} turn {i} has no text"))
                        continue
                    batch.records += 1
                    text = t["text"]
                    if t.get("blip_caption"):
                        text += f" [image: {t['blip_caption']}]"
                    ts = (when + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z") if when else None
                    session.turns.append(
                        ParsedTurn(
                            uuids=[turn_uuid(prefix, str(t.get("dia_id", f"D{n}:{i}")))],
                            role="user",
                            kind=TYPED,
                            text=text,
                            ts=ts,
                            line=i + 1,
                            name=str(t.get("speaker") or "speaker"),
                        )
                    )
                batch.sessions.append(session)
                n += 1
        return batch


FORMAT = LoCoMoFormat()

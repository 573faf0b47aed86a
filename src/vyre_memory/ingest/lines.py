"""Reading a JSON Lines file from where the last run stopped, one bounded line at a time.

Guarantees: the file is never loaded whole (a line longer than `max_line_bytes` is skipped in
chunks and reported); a last line without a newline is taken only if it parses, else it is
left for the next run and the cursor stops before it; non-UTF-8 bytes are replaced and
reported; every bad line is reported with its 1-based line number.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..contract import Cursor

_CHUNK = 1 << 20


class read_json_lines:  # noqa: N801 - used like a function that also reports where it stopped
    """Iterate `(line_no, record | None, problem | None)`; `.end` is the cursor afterwards."""

    def __init__(self, path: Path, cursor: Cursor, max_line_bytes: int) -> None:
        self.path = path
        self.end = Cursor(cursor.offset, cursor.line)
        self.max = max_line_bytes

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
        with self.path.open("rb") as f:
            first = False
            if self.end.offset > 0:
                # a newline at the cursor completes a last line read without one only if the byte
                # before the cursor is not itself a newline (else it is a blank line of its own)
                f.seek(self.end.offset - 1)
                first = f.read(1) != b"\n"
            f.seek(self.end.offset)
            while True:
                raw = f.readline(self.max + 1)
                if not raw:
                    return
                if first and raw == b"\n":
                    # the newline that completes a last line the previous run read without one
                    self.end = Cursor(self.end.offset + 1, self.end.line, self.end.session)
                    first = False
                    continue
                first = False
                line_no = self.end.line + 1
                if len(raw) > self.max and not raw.endswith(b"\n"):
                    size = len(raw) + _skip_rest_of_line(f)
                    self.end = Cursor(f.tell(), line_no, self.end.session)
                    yield line_no, None, f"line of {size:,} bytes is over the {self.max:,}-byte limit; skipped"
                    continue
                complete = raw.endswith(b"\n")
                record, problem = _decode(raw)
                if not complete and (record is None and problem is not None):
                    return  # a torn last line: leave it for the next run
                self.end = Cursor(self.end.offset + len(raw), line_no, self.end.session)
                if record is None and problem is None:
                    continue  # blank line
                yield line_no, record, problem


def _skip_rest_of_line(f: Any) -> int:
    skipped = 0
    while True:
        chunk = f.readline(_CHUNK)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped


def _decode(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    note = None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        note = "non-UTF-8 bytes replaced"
    text = text.strip()
    if not text:
        return None, None
    if "\x00" in text:
        return None, "binary data (NUL bytes), not a JSON line"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    except ValueError as exc:
        return None, f"not valid JSON ({exc})"
    except RecursionError:
        return None, "JSON nested too deeply"
    if not isinstance(value, dict):
        return None, f"a JSON {type(value).__name__}, not an object"
    if "\\ud" in text or "\\uD" in text:  # an escaped surrogate: a lone one cannot be stored as UTF-8
        value, replaced = _clean_surrogates(value)
        if replaced:
            note = "lone UTF-16 surrogate replaced"
    return value, note


def _clean_surrogates(value: Any) -> tuple[Any, bool]:
    """Replace lone surrogates (a split emoji, say) in every string of a parsed record."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value, False
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8"), True
    if isinstance(value, list):
        items = [_clean_surrogates(v) for v in value]
        return [v for v, _ in items], any(r for _, r in items)
    if isinstance(value, dict):
        pairs = {k: _clean_surrogates(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(r for _, r in pairs.values())
    return value, False

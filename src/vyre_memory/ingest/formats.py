"""The transcript formats memory can read, registered the way a plugin would register one:
an entry point in the `vyre_memory.formats` group naming an object with `name`, `summary`,
`incremental`, `sniff(path)`, `files(root)` and `parse(path, cursor, *, max_line_bytes)`.
A new format is one module plus one entry point.

A line-incremental format may also offer `pieces(path, cursor, *, max_line_bytes, max_bytes)`:
the same records as `parse`, as several batches of about `max_bytes` of input each, cut only
between records, each ending with the cursor where the next one starts (so a 500 MB file is
never held parsed whole: the runner stores each piece with its position before reading the
next). The parser's state (session ids, tool names, open sidechains, titles) lives on across
the pieces of one read, so the stored turns are the same as from one piece. The JSON Lines
formats (Claude Code, Codex) do; whole-file exports (ChatGPT, Claude.ai, LoCoMo) are one JSON
document each and stay one batch (`parse_pieces` gives them one piece).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Protocol, runtime_checkable

from ..contract import Cursor, ParseBatch
from ..errors import IngestError


class SourceFormat(Protocol):
    name: str
    summary: str
    incremental: bool

    def sniff(self, path: Path) -> bool: ...

    def files(self, root: Path): ...  # type: ignore[no-untyped-def]  # Iterator[Path]

    def parse(self, path: Path, cursor: Cursor, *, max_line_bytes: int) -> ParseBatch: ...


@runtime_checkable
class PiecewiseFormat(Protocol):
    """A format that can hand over a file's new records in bounded pieces."""

    def pieces(self, path: Path, cursor: Cursor, *, max_line_bytes: int, max_bytes: int) -> Iterator[ParseBatch]: ...


def parse_pieces(
    fmt: SourceFormat, path: Path, cursor: Cursor, *, max_line_bytes: int, max_bytes: int
) -> Iterator[ParseBatch]:
    """What is new in `path` from `cursor`, in pieces of about `max_bytes` of input (0: one piece)
    where the format supports it, else in one batch. Store (or drop) each piece before asking for
    the next: that is what keeps memory bounded."""
    if isinstance(fmt, PiecewiseFormat):
        yield from fmt.pieces(path, cursor, max_line_bytes=max_line_bytes, max_bytes=max_bytes)
    else:
        yield fmt.parse(path, cursor, max_line_bytes=max_line_bytes)


class LineParser(Protocol):
    def pieces(self, cursor: Cursor, max_line_bytes: int, max_bytes: int) -> Iterator[ParseBatch]: ...


class LineFormat:
    """The `parse` and `pieces` of a JSON Lines format, from its per-file parser (`parser(path)`)."""

    parser: Callable[[Path], LineParser]  # each format names its own (a staticmethod)

    def parse(self, path: Path, cursor: Cursor, *, max_line_bytes: int) -> ParseBatch:
        (batch,) = self.parser(path).pieces(cursor, max_line_bytes, 0)
        return batch

    def pieces(self, path: Path, cursor: Cursor, *, max_line_bytes: int, max_bytes: int) -> Iterator[ParseBatch]:
        return self.parser(path).pieces(cursor, max_line_bytes, max_bytes)


_cache: dict[str, SourceFormat] | None = None


def formats() -> dict[str, SourceFormat]:
    """Every registered format by name, Claude Code first."""
    global _cache
    if _cache is None:
        found: dict[str, SourceFormat] = {}
        for ep in sorted(entry_points(group="vyre_memory.formats"), key=lambda e: (e.name != "claude-code", e.name)):
            try:
                found[ep.name] = ep.load()
            except Exception as exc:  # a broken plugin must not stop ingest of the others
                found.pop(ep.name, None)
                _broken[ep.name] = f"{type(exc).__name__}: {exc}"
        if "claude-code" not in found:  # running from a source tree without installed metadata
            from .claude_code import FORMAT

            found = {"claude-code": FORMAT, **found}
        _cache = found
    return _cache


_broken: dict[str, str] = {}


def get_format(name: str) -> SourceFormat:
    known = formats()
    if name not in known:
        raise IngestError(f"unknown format {name!r}; known formats: {', '.join(known)} (vyre ingest --list-formats)")
    return known[name]


def detect(path: Path) -> SourceFormat | None:
    """The format of a file or folder, by each format's own cheap sniff, in registry order."""
    for fmt in formats().values():
        try:
            if fmt.sniff(path):
                return fmt
        except OSError:
            continue
    return None

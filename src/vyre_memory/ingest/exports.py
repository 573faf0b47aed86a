"""Reading chat-export files (ChatGPT, Claude.ai): a `conversations.json`, or a `.zip` holding one.

Guarantees:
- the export is streamed, one conversation at a time: a zip member is read through
  `zipfile` without extracting anything to disk, and at most one conversation (bounded by
  `max_record_bytes`) is held in memory besides the one being parsed;
- nothing raises: a missing or unreadable file, a broken zip, a zip without
  `conversations.json`, a file that is not a JSON array, a broken record or a record over the
  size limit is reported as a problem with its 1-based record number, and the conversations
  read before it are still yielded;
- a top-level JSON object (one conversation saved on its own) is taken as a one-record export;
- `detect(path)` tells a ChatGPT export (`mapping`) from a Claude.ai one (`chat_messages`) by
  looking at the first conversation only.
"""

from __future__ import annotations

import codecs
import json
import zipfile
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from ..contract import Cursor, ParseBatch, ParsedSession, Problem

CHATGPT = "chatgpt"
CLAUDE_AI = "claude-ai"
EXPORT_MEMBER = "conversations.json"
MIN_RECORD_BYTES = 64 << 20  # one conversation may be far larger than one JSONL line
_CHUNK = 1 << 20
_SNIFF_BYTES = 4 << 20
_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


class _NoValue:
    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE: Any = _NoValue()  # what `read_export` yields in place of a record it could not read


def record_limit(max_line_bytes: int) -> int:
    """The largest conversation (in characters) a parser accepts, given the runner's line limit."""
    return max(max_line_bytes, MIN_RECORD_BYTES)


def is_export_candidate(path: Path) -> bool:
    """Cheap name test: a `.json` file, or a `.zip` file."""
    return path.suffix.lower() in (".json", ".zip")


def export_files(root: Path) -> Iterator[Path]:
    """`conversations.json` files and `.zip` files under a folder (or the file itself), sorted."""
    if root.is_file():
        if is_export_candidate(root):
            yield root
        return
    if not root.is_dir():
        return
    found: set[Path] = set()
    try:
        for pattern in (EXPORT_MEMBER, "*.zip"):
            found.update(p for p in root.rglob(pattern) if p.is_file())
    except OSError:
        pass
    yield from sorted(found)


def detect(path: Path) -> str | None:
    """`CHATGPT`, `CLAUDE_AI` or None, from the first conversation of an export file."""
    if not is_export_candidate(path):
        return None
    reader = read_export(path, _SNIFF_BYTES)
    records = iter(reader)
    try:
        first = next(records, None)  # only the first record
        if first is not None and isinstance(first[1], dict):
            return _kind_of(first[1])
        head = reader.head
    except Exception:
        return None
    finally:
        records.close()  # type: ignore[attr-defined]
    # The first conversation was too big (or broken) to decode: fall back to its first bytes.
    mapping, chat = head.find('"mapping"'), head.find('"chat_messages"')
    if mapping < 0 and chat < 0:
        return None
    if chat < 0 or (0 <= mapping < chat):
        return CHATGPT
    return CLAUDE_AI


def _kind_of(conversation: dict[str, Any]) -> str | None:
    if "mapping" in conversation:
        return CHATGPT
    if "chat_messages" in conversation:
        return CLAUDE_AI
    return None


class read_export:  # noqa: N801 - used like a function that also reports what it saw
    """Iterate `(record_no, value | NO_VALUE, problem | None)` over the conversations of an export.

    A `problem` with `NO_VALUE` ends the iteration when the stream cannot be resynced
    (a broken record, a record over the limit); `records` counts the values yielded and `size`
    the bytes read.
    """

    def __init__(self, path: Path, max_record_bytes: int) -> None:
        self.path = path
        self.max = max(1, max_record_bytes)
        self.records = 0
        self.size = 0
        self.head = ""  # the first characters read, for sniffing
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._stream: IO[bytes] | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.replaced = False

    def __iter__(self) -> Iterator[tuple[int, Any, str | None]]:
        with ExitStack() as stack:
            try:
                self._stream = self._open(stack)
            except _ExportError as exc:
                yield 0, NO_VALUE, str(exc)
                return
            except Exception as exc:  # unreadable file, broken zip: never raise
                yield 0, NO_VALUE, f"cannot open export: {describe_error(exc)}"
                return
            try:
                yield from self._items()
            except Exception as exc:  # a zip member that fails mid-stream (CRC, zlib)
                yield self.records + 1, NO_VALUE, f"export stopped: {describe_error(exc)}"

    # -- opening ---------------------------------------------------------------------------
    def _open(self, stack: ExitStack) -> IO[bytes]:
        if self.path.suffix.lower() != ".zip":
            return stack.enter_context(self.path.open("rb"))
        archive = stack.enter_context(zipfile.ZipFile(self.path))
        names = [
            n for n in archive.namelist() if n.rsplit("/", 1)[-1] == EXPORT_MEMBER and not n.startswith("__MACOSX")
        ]
        if not names:
            raise _ExportError(f"zip has no {EXPORT_MEMBER}")
        member = min(names, key=lambda n: (n.count("/"), n))
        return stack.enter_context(archive.open(member))

    # -- buffered text -----------------------------------------------------------------------
    def _fill(self, want: int = _CHUNK) -> bool:
        """Read at least `want` more bytes (or to the end); False at the end of the stream."""
        if self._eof or self._stream is None:
            return False
        raw = self._stream.read(max(want, _CHUNK))
        if self._pos:
            self._buf, self._pos = self._buf[self._pos :], 0
        if not raw:
            self._eof = True
            self._buf += self._decoder.decode(b"", final=True)
            return False
        self.size += len(raw)
        text = self._decoder.decode(raw)
        if "\ufffd" in text and b"\xef\xbf\xbd" not in raw:
            self.replaced = True
        self._buf += text
        if len(self.head) < _SNIFF_BYTES:
            self.head += text[: _SNIFF_BYTES - len(self.head)]
        return True

    def _peek(self) -> str:
        """The next non-blank character ('' at the end), consuming the blanks before it."""
        while True:
            while self._pos < len(self._buf) and self._buf[self._pos] in _WS:
                self._pos += 1
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._fill():
                return ""

    # -- the array -------------------------------------------------------------------------
    def _items(self) -> Iterator[tuple[int, Any, str | None]]:
        first = self._peek()
        if first == "":
            yield 0, NO_VALUE, "empty file, not a JSON export"
            return
        if first == "{":  # one conversation on its own
            value, problem = self._value(1)
            if value is not NO_VALUE:
                self.records = 1
            yield 1, value, problem
            return
        if first != "[":
            yield 0, NO_VALUE, f"not a JSON array of conversations (starts with {first!r})"
            return
        self._pos += 1
        if self._peek() == "]":
            return
        while True:
            record_no = self.records + 1
            value, problem = self._value(record_no)
            if value is NO_VALUE:
                yield record_no, NO_VALUE, problem
                return
            self.records += 1
            yield record_no, value, problem
            sep = self._peek()
            if sep == ",":
                self._pos += 1
                continue
            if sep == "]":
                return
            where = "the end of the file" if sep == "" else repr(sep)
            yield record_no + 1, NO_VALUE, f"export is cut off or broken after record {record_no} (found {where})"
            return

    def _value(self, record_no: int) -> tuple[Any, str | None]:
        self._peek()  # raw_decode does not skip leading blanks
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                available = len(self._buf) - self._pos
                truncated = exc.msg.startswith("Unterminated string") or exc.pos >= len(self._buf) - 16
                if truncated and not self._eof and available <= self.max:
                    self._fill(available)  # double the window: linear time for big records
                    continue
                if available > self.max:
                    return NO_VALUE, f"record {record_no} is over the {self.max:,}-character limit"
                return NO_VALUE, f"record {record_no} is not valid JSON ({exc.msg})"
            except RecursionError:
                return NO_VALUE, f"record {record_no} is nested too deeply"
            if end == len(self._buf) and not self._eof and not isinstance(value, dict | list | str):
                self._fill()  # a number or literal may go on in the next chunk
                continue
            if end - self._pos > self.max:
                self._pos = end
                return NO_VALUE, f"record {record_no} is over the {self.max:,}-character limit"
            self._pos = end
            note = "non-UTF-8 bytes replaced" if self.replaced else None
            self.replaced = False
            return value, note


class _ExportError(Exception):
    pass


def describe_error(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]


# -- small value helpers shared by the export parsers -------------------------------------------
def text_of(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def epoch_to_iso(value: Any) -> str | None:
    """Float epoch seconds to ISO-8601 UTC with milliseconds and a `Z`; None when unusable."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        stamp = datetime.fromtimestamp(float(value), tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_text(value: Any) -> str | None:
    """An ISO-8601 timestamp string as the export wrote it (a number is read as epoch seconds)."""
    if isinstance(value, str) and value.strip():
        return value.strip()[:64]
    return epoch_to_iso(value)


class ExportFormat(ABC):
    """What the ChatGPT and Claude.ai exports share: detection, file listing and the per-conversation loop.

    A subclass names its `kind` (CHATGPT or CLAUDE_AI) and turns one conversation into a session
    in `conversation()`; a conversation that cannot be read is a Problem, and the next one is read.
    """

    name = ""
    summary = ""
    kind = ""
    incremental = False

    def sniff(self, path: Path) -> bool:
        if path.is_dir():
            return any(True for _ in self.files(path))
        return detect(path) == self.kind

    def files(self, root: Path) -> Iterator[Path]:
        for path in export_files(root):
            if root.is_file() or detect(path) == self.kind:
                yield path

    @abstractmethod
    def conversation(self, path: Path, no: int, value: Any, batch: ParseBatch) -> ParsedSession | None:
        """One conversation as a session (None: nothing to keep); problems go into `batch`."""

    def parse(self, path: Path, cursor: Cursor, *, max_line_bytes: int) -> ParseBatch:
        batch = ParseBatch(sessions=[], problems=[], end=Cursor(), whole_file=True)
        reader = read_export(path, record_limit(max_line_bytes))
        for record_no, value, problem in reader:
            if problem is not None:
                batch.problems.append(Problem(str(path), record_no, problem))
            if value is NO_VALUE:
                continue
            batch.records += 1
            try:
                session = self.conversation(path, record_no, value, batch)
            except Exception as exc:  # a shape nobody foresaw: report it, go on with the next one
                batch.problems.append(Problem(str(path), record_no, f"unusable conversation: {describe_error(exc)}"))
                continue
            if session is not None:
                batch.sessions.append(session)
        batch.end = Cursor(reader.size, reader.records)
        return batch

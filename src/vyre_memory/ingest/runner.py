"""Incremental, idempotent, crash-safe ingest of transcript files into the store.

A second run reads only new files and the bytes appended to grown files (a rewritten or
truncated file is read again from the start; record uuids keep that from duplicating
anything). Each file's new records are written in one transaction with its new position;
a big file (over `PIECE_BYTES` of new input) is read and written in pieces, each piece one
transaction with the position where it ends, so memory stays bounded by the piece, not the
file, and a crash between pieces resumes from the last written piece. Small files share a
transaction. Bad records are reported with file and line; they never stop the run.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..contract import Cursor, IngestReport, ParseBatch, Problem
from ..errors import IngestError, StrictIngestError
from ..store.sqlite import SourceBatch, SourceState, Store
from .formats import SourceFormat, detect, formats, get_format, parse_pieces
from .labels import session_kind

MAX_LINE_BYTES = 64 << 20
PIECE_BYTES = 32 << 20  # input read into one batch (one transaction) before it is written
_HEAD_BYTES = 4096
_GROUP_RECORDS = 5000
_GROUP_FILES = 200

Progress = Callable[[int, int, str], None]  # (bytes done, bytes total, current file)


@dataclass(frozen=True)
class IngestSettings:
    vyre_home: str | None = None
    builds_memory_folders: tuple[str, ...] = ()
    max_line_bytes: int = MAX_LINE_BYTES
    piece_bytes: int | None = None  # None: PIECE_BYTES; 0: a whole file in one batch


def plan(
    paths: Iterable[Path],
    format_name: str | None = None,
    skipped: dict[str, str] | None = None,
    known: Callable[[Path], str | None] | None = None,
) -> list[tuple[SourceFormat, Path]]:
    """Every (format, file) under the given paths. Without `format_name` each file in a folder is
    detected by its own content, so a folder may mix formats; a file no format claims, or one that
    cannot be read, goes into `skipped` (path -> why, with what to do). A path given by name that
    is missing, unreadable or of no known format is an error. `known(file)` names the format a file
    was read as before (it is not sniffed again: a poll of a big tree reads no heads)."""
    skipped = {} if skipped is None else skipped
    work: list[tuple[SourceFormat, Path]] = []
    for path in paths:
        path = path.expanduser()
        if not path.exists():
            raise IngestError(f"{path} does not exist; pass a transcripts folder or file: vyre ingest PATH")
        if path.is_dir():
            _check_folder(path)
        elif (why := _unreadable(path)) is not None:
            raise IngestError(f"cannot read {path}: {why}")
        if format_name:
            fmt = get_format(format_name)
            work.extend((fmt, f) for f in fmt.files(path))
        elif path.is_file():
            found = detect(path)
            if found is None:
                raise IngestError(
                    f"no known transcript format in {path}; pass --format (vyre ingest --list-formats shows them)"
                )
            work.append((found, path))
        else:
            work.extend(_plan_folder(path, skipped, known))
    seen: set[Path] = set()
    unique = []
    for fmt, f in work:
        if f not in seen:
            seen.add(f)
            unique.append((fmt, f))
    return unique


def _plan_folder(
    root: Path, skipped: dict[str, str], known: Callable[[Path], str | None] | None
) -> list[tuple[SourceFormat, Path]]:
    """Each file any format lists under `root` (and any other `.json` file a format claims), with the
    format its own content shows."""
    listed: set[Path] = set()
    for fmt in formats().values():
        try:
            listed.update(fmt.files(root))
        except OSError:
            continue
    extra: set[Path] = set()
    for folder, _, names in os.walk(root, onerror=lambda exc: _unreadable_folder(exc, skipped)):
        extra.update(Path(folder, n) for n in names if n.endswith(".json") and not n.endswith(".meta.json"))
    work: list[tuple[SourceFormat, Path]] = []
    registered = formats()
    for f in sorted(listed | extra):
        before = registered.get(known(f) or "") if known else None
        if before is not None:
            work.append((before, f))
            continue
        why = _unreadable(f)
        if why is not None:
            skipped[str(f)] = why
            continue
        found = detect(f)
        if found is not None:
            work.append((found, f))
        elif f in listed:
            skipped[str(f)] = (
                "empty (nothing to read yet)"
                if _size(f) == 0
                else "no known transcript format (vyre ingest --format NAME FILE reads it as one)"
            )
    return work


def _format_of(states: dict[str, SourceState], path: Path) -> str | None:
    state = states.get(str(path))
    return state.format if state else None


def _check_folder(path: Path) -> None:
    try:
        with os.scandir(path):
            pass
    except OSError as exc:
        raise IngestError(
            f"cannot read the folder {path}: {exc.strerror or exc}; give yourself access (chmod u+rx '{path}') "
            "or pass another folder: vyre ingest PATH"
        ) from exc


def _unreadable_folder(exc: OSError, skipped: dict[str, str]) -> None:
    where = exc.filename or "?"
    skipped[str(where)] = (
        f"folder cannot be read ({exc.strerror or exc}); give yourself access (chmod u+rx '{where}') and ingest again"
    )


def _unreadable(path: Path) -> str | None:
    """Why `path` cannot be read (with what to do), or None when it can."""
    try:
        with path.open("rb") as f:
            f.read(1)
    except IsADirectoryError:
        return None
    except OSError as exc:
        return f"cannot read ({exc.strerror or exc}); give yourself access (chmod u+r '{path}') and ingest again"
    return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def ingest(
    store: Store,
    paths: Iterable[Path],
    settings: IngestSettings,
    *,
    format_name: str | None = None,
    strict: bool = False,
    progress: Progress | None = None,
) -> IngestReport:
    started = time.perf_counter()
    report = IngestReport()
    skipped: dict[str, str] = {}
    states = store.source_states()  # read once: a shared database answers each question a round trip away
    work = plan(paths, format_name, skipped, known=lambda f: _format_of(states, f))
    report.files_seen = len(work) + len(skipped)
    report.files_skipped = skipped
    for fmt, _ in work:
        report.files_by_format[fmt.name] = report.files_by_format.get(fmt.name, 0) + 1
    sizes = []
    for _, f in work:
        try:
            sizes.append(f.stat().st_size)
        except OSError:
            sizes.append(0)
    total, done = sum(sizes), 0
    piece_bytes = PIECE_BYTES if settings.piece_bytes is None else settings.piece_bytes
    pending: list[SourceBatch] = []
    pending_bytes = 0
    for (fmt, f), size in zip(work, sizes):
        if progress:
            progress(done, total, str(f))
        for parsed, nbytes in read_pieces(store, fmt, f, settings, report, piece_bytes, states.get(str(f))):
            pending.append(parsed)
            pending_bytes += nbytes
            # Several small files share one transaction (fewer commits); a file's piece is never split,
            # and a big file's piece is written before the next piece is read.
            full = sum(p.batch.records for p in pending) >= _GROUP_RECORDS or len(pending) >= _GROUP_FILES
            if full or (piece_bytes and pending_bytes >= piece_bytes):
                _write(store, pending, report)
                pending, pending_bytes = [], 0
                if progress and parsed.batch.end.offset < size:  # a big file's piece: say how far it got
                    progress(done + parsed.batch.end.offset, total, str(f))
        done += size
    if pending:
        _write(store, pending, report)
    if progress:
        progress(total, total, "")
    report.seconds = time.perf_counter() - started
    if strict and report.problems:
        raise StrictIngestError(
            f"{len(report.problems)} bad record(s); first: {report.problems[0]} (run without --strict to skip them)"
        )
    return report


def read_pieces(
    store: Store,
    fmt: SourceFormat,
    path: Path,
    settings: IngestSettings,
    report: IngestReport,
    piece_bytes: int,
    state: SourceState | None,
) -> Iterator[tuple[SourceBatch, int]]:
    """Parse what is new in one file since `state`, its read position when the run began: (batch, input
    bytes it covers) per piece of about `piece_bytes` (0: one piece); nothing when nothing changed or it
    cannot be read. Write each piece before asking for the next: a later piece's session flags are merged
    with what the store holds. (A position another run on this machine moved since is read again from the
    older one: record uuids keep that from storing anything twice.)"""
    key = str(path)
    try:
        st = path.stat()
        head = _head(path)
    except OSError as exc:
        report.problems.append(str(Problem(key, 0, f"cannot read: {exc.strerror or exc}")))
        return
    cursor = Cursor()
    if state is not None:
        unchanged = state.size == st.st_size and state.mtime == st.st_mtime and state.head == head
        if unchanged and (state.offset >= st.st_size or not fmt.incremental):
            return
        if fmt.incremental and st.st_size >= state.offset and state.head == head:
            cursor = Cursor(state.offset, state.line, state.session)
        elif fmt.incremental:
            cursor = Cursor(0, 0, state.session)  # rewritten or truncated: read again, uuids de-duplicate
    pieces = parse_pieces(fmt, path, cursor, max_line_bytes=settings.max_line_bytes, max_bytes=piece_bytes)
    first = True
    while True:
        try:
            batch = next(pieces)
        except StopIteration:
            return
        except OSError as exc:  # the pieces already written stand; the next run goes on from there
            report.problems.append(str(Problem(key, cursor.line, f"cannot read: {exc.strerror or exc}")))
            return
        if first:
            report.files_read += 1
            first = False
        nbytes = max(0, batch.end.offset - cursor.offset) if not batch.whole_file else st.st_size
        cursor = batch.end
        yield _source_batch(store, fmt, key, batch, settings, report, st, head), nbytes


def _source_batch(
    store: Store,
    fmt: SourceFormat,
    key: str,
    batch: ParseBatch,
    settings: IngestSettings,
    report: IngestReport,
    st: os.stat_result,
    head: str,
) -> SourceBatch:
    report.records += batch.records
    report.problems.extend(str(p) for p in batch.problems)
    for reason, n in batch.skipped.items():
        report.skipped[reason] = report.skipped.get(reason, 0) + n
    for s in batch.sessions:  # a batch may lack what an earlier one said of who ran the session
        prior = store.session_flags(s.id)
        if prior is not None:
            s.cwd = s.cwd or prior[0]
            s.entrypoint = s.entrypoint or prior[1]
            s.headless_hint = s.headless_hint or prior[2]
    kinds = {
        s.id: session_kind(s, vyre_home=settings.vyre_home, builds_memory_folders=settings.builds_memory_folders)
        for s in batch.sessions
    }
    return SourceBatch(
        source=key,
        format=fmt.name,
        batch=batch,
        kinds=kinds,
        size=st.st_size,
        mtime=st.st_mtime,
        head=head,
        updated_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def _write(store: Store, pending: list[SourceBatch], report: IngestReport) -> None:
    result = store.write_batches(pending)
    report.new_sessions += result.new_sessions
    report.new_turns += result.new_turns
    report.duplicates += result.duplicates
    for kind, n in (result.by_kind or {}).items():
        report.new_by_kind[kind] = report.new_by_kind.get(kind, 0) + n


def _head(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.sha1(f.read(_HEAD_BYTES)).hexdigest()


def default_paths(configured: Iterable[str]) -> list[Path]:
    return [Path(os.path.expanduser(p)) for p in configured]

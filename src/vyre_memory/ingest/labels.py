"""Who ran a session: the session half of the trust labels (the turn half is `records.*` kinds).

A session is, in order of precedence: a subagent's; the memory's own (its cwd is inside a Vyre
folder: `VYRE_HOME` or any folder named `.vyre`); in a project that builds memory (the
configured `builds_memory_folders`); headless (`entrypoint` sdk-cli / sdk-py / sdk-ts, or a
prompt with `promptSource: sdk`); else interactive (entrypoint `cli`, an IDE, or absent).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath, PureWindowsPath

from ..contract import BUILDS_MEMORY, HEADLESS, INTERACTIVE, MEMORY, SUBAGENT, ParsedSession

HEADLESS_ENTRYPOINTS = frozenset({"sdk-cli", "sdk-py", "sdk-ts"})


def path_parts(path: str) -> tuple[str, ...]:
    """Components of a POSIX or Windows path, compared case-sensitively like the records."""
    if "\\" in path and "/" not in path:
        return tuple(PureWindowsPath(path).parts)
    return tuple(PurePosixPath(path).parts)


def is_within(path: str, folder: str) -> bool:
    """True when `path` is `folder` or below it (by whole components, never by prefix)."""
    a, b = path_parts(path.rstrip("/\\") or "/"), path_parts(folder.rstrip("/\\") or "/")
    return len(a) >= len(b) and a[: len(b)] == b


def session_kind(
    session: ParsedSession,
    *,
    vyre_home: str | None = None,
    builds_memory_folders: Sequence[str] = (),
) -> str:
    if session.is_subagent:
        return SUBAGENT
    cwd = session.cwd or ""
    if cwd and (".vyre" in path_parts(cwd) or (vyre_home and is_within(cwd, vyre_home))):
        return MEMORY
    if cwd and any(is_within(cwd, folder) for folder in builds_memory_folders):
        return BUILDS_MEMORY
    if session.entrypoint in HEADLESS_ENTRYPOINTS or session.headless_hint:
        return HEADLESS
    return INTERACTIVE

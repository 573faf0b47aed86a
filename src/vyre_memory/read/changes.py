"""Changes of a value: an edit that sets a number in a file to another (a limit of 12 made 6, a timeout of 5 s made
30, a share of 90% made 75%), kept as moments.

"How many retries do we allow now" or "what's the cache's size" is answered by the edit that last changed the value,
while a search by the question's words finds the many turns that talk about it. A tool call that edits a file
(`Edit`'s old and new strings, each edit of a `MultiEdit`, the lines a patch takes out and puts in) is a change of a
value when a line it puts in is one it takes out with another number where they first differ. Its key names the
file and says the lines put in, with compound names split into words ("chunkSize" is "chunk size"), and what its
session was asked first, so the question's words find it.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

from ..contract import TOOL_CALL, Turn
from .moments import KEY_CHARS, Moment

__all__ = ["change_in", "edited_lines"]

_EDIT = re.compile(r"^old_string: (.*?)\nnew_string: (.*?)(?=\nreplace_all: |\Z)", re.S | re.M)
_EDITS = re.compile(r"^edits: (.*)", re.S | re.M)
_PATH = re.compile(r"^file_path: (\S+)", re.M)
_PATCHED = re.compile(r"^\*\*\* (?:Update|Add) File: (\S+)", re.M)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:[^\W\d_]{1,3})?(?![\w.])")  # with a unit: "30s", "250ms", "5m"
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _pairs(name: str, text: str) -> Iterator[tuple[str, str]]:
    """(taken out, put in) of each edit of a call, or nothing when it edits no file."""
    if name == "Edit":
        found = _EDIT.search(text)
        if found:
            yield found.group(1), found.group(2)
    elif name == "MultiEdit":
        found = _EDITS.search(text)
        try:
            edits = json.JSONDecoder().raw_decode(found.group(1))[0] if found else []
        except json.JSONDecodeError:  # a long list is cut short when the call is rendered
            edits = []
        for e in edits if isinstance(edits, list) else []:
            if isinstance(e, dict) and isinstance(e.get("old_string"), str) and isinstance(e.get("new_string"), str):
                yield e["old_string"], e["new_string"]
    elif name == "apply_patch" or "*** Begin Patch" in text:
        lines = text.splitlines()
        out = [ln[1:] for ln in lines if ln.startswith("-") and not ln.startswith("---")]
        put = [ln[1:] for ln in lines if ln.startswith("+") and not ln.startswith("+++")]
        if out or put:
            yield "\n".join(out), "\n".join(put)


def _new_number(line: str, old: str) -> bool:
    """Whether `line` is `old` with another number where they first differ, after words that name it ("timeout:
    5s" made "timeout: 30s"; "MAX_ITEMS = 12;" made "MAX_ITEMS = 6; // was 12"), and that number is no
    version ("1.4.0" is a release's, not a setting's)."""
    same = next((i for i, (a, b) in enumerate(zip(line, old, strict=False)) if a != b), min(len(line), len(old)))
    while same and (line[same - 1].isdigit() or line[same - 1] in ".,"):
        same -= 1  # from the start of the number they differ in
    number = _NUMBER.match(line, same)
    return (
        number is not None
        and _NUMBER.match(old, same) is not None
        and number.group().count(".") < 2
        and re.search(r"[^\W\d_]", line[:same]) is not None
    )


def edited_lines(text: str) -> list[str]:
    """The lines a file-editing call's text puts in that give a setting a new number: each is a line it takes out
    with another number where they first differ ("pool-size: 10" made "pool-size: 25"); empty for any other
    call, and for an edit that only adds lines (a changelog's entry) or bumps a version."""
    name = text.split("\n", 1)[0].strip()
    changed: list[str] = []
    for old, new in _pairs(name, text):
        was = [line.strip() for line in old.splitlines() if _NUMBER.search(line)]
        for line in (line.strip() for line in new.splitlines()):
            if line not in was and any(_new_number(line, before) for before in was):
                changed.append(line)
    return changed


def change_in(turn: Turn, about: Callable[[str], str] = lambda session: "") -> Moment | None:
    """The change of a value `turn` makes (a tool call editing a file), or None. Its key is the file's name, the
    lines put in and what its session was asked first, with no project name or version: a question names those
    of many changes."""
    if turn.kind != TOOL_CALL:
        return None
    lines = edited_lines(turn.text)
    if not lines:
        return None
    path = _PATH.search(turn.text) or _PATCHED.search(turn.text)
    file = path.group(1).rsplit("/", 1)[-1] if path else ""
    said = _CAMEL.sub(" ", " ".join([file, *lines]))[:KEY_CHARS]
    asked = " ".join(about(turn.session).split())[:KEY_CHARS]
    return Moment(turn.session, (turn.seq,), turn.ts, f"{said} {asked}".strip())

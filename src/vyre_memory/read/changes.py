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
from difflib import SequenceMatcher

from ..contract import TOOL_CALL, Turn
from .moments import FILE_PATH, KEY_CHARS, Moment

__all__ = ["change_in", "changed_lines", "edited_lines", "name_words"]

_EDIT = re.compile(r"^old_string: (.*?)\nnew_string: (.*?)(?=\nreplace_all: |\Z)", re.S | re.M)
_EDITS = re.compile(r"^edits: (.*)", re.S | re.M)
_PATCHED = re.compile(r"^\*\*\* (?:Update|Add) File: (.+)$", re.M)
# a number, with a unit ("30s", "250ms", "5m"); also one at the end of a name, which is often the value ("cx21" made
# "cx31", "node18" made "node20")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:[^\W\d_]{1,3})?(?![\w.])")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_CUT = " …"  # how a rendered tool call ends a field it cut short (ingest.text.render_tool_input)


def name_words(name: str) -> list[str]:
    """The words of a compound name as written: "PollInterval" is "Poll", "Interval"; "SYNC_BATCH_SIZE" is "SYNC",
    "BATCH", "SIZE"."""
    return [w for w in re.split(r"[_.\-\s]+", _CAMEL.sub(" ", name)) if w]


def _lines(field: str) -> list[str]:
    """A rendered field's lines, stripped, without a last line the rendering cut short (its number may be cut)."""
    lines = [line.strip() for line in field.splitlines()]
    return lines[:-1] if lines and lines[-1].endswith(_CUT.strip()) else lines


def _edits(field: str) -> Iterator[dict[str, object]]:
    """The edits of a MultiEdit's rendered list, one by one: a long list is cut short, its last edit lost."""
    decoder, at = json.JSONDecoder(), field.find("{")
    while at >= 0:
        try:
            edit, end = decoder.raw_decode(field, at)
        except json.JSONDecodeError:
            return
        if isinstance(edit, dict):
            yield edit
        at = field.find("{", end)


def _pairs(name: str, text: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """(file, lines taken out, lines put in) of each edit of a call, or nothing when it edits no file."""
    path = FILE_PATH.search(text)
    file = path.group(1).strip() if path else ""
    if name == "Edit":
        found = _EDIT.search(text)
        if found:
            yield file, _lines(found.group(1)), _lines(found.group(2))
    elif name == "MultiEdit":
        found = _EDITS.search(text)
        for e in _edits(found.group(1)) if found else ():
            old, new = e.get("old_string"), e.get("new_string")
            if isinstance(old, str) and isinstance(new, str):
                yield file, _lines(old), _lines(new)
    elif name == "apply_patch":  # Codex: one section per file, "-" lines taken out and "+" lines put in
        marks = list(_PATCHED.finditer(text))
        for k, mark in enumerate(marks):
            section = _lines(text[mark.end() : marks[k + 1].start() if k + 1 < len(marks) else len(text)])
            out = [ln[1:].strip() for ln in section if ln.startswith("-") and not ln.startswith("---")]
            put = [ln[1:].strip() for ln in section if ln.startswith("+") and not ln.startswith("+++")]
            yield mark.group(1).strip(), out, put


def _new_number(line: str, old: str) -> bool:
    """Whether `line` is `old` with another number where they first differ, after a word ("timeout: 5s" made
    "timeout: 30s"; "MAX_ITEMS = 12;" made "MAX_ITEMS = 6; // was 12"), and that number is no version of three
    parts or more ("1.4.0" is a release's, not a setting's)."""
    same = next((i for i, (a, b) in enumerate(zip(line, old, strict=False)) if a != b), min(len(line), len(old)))
    while same and (line[same - 1].isdigit() or line[same - 1] in ".,"):
        same -= 1  # from the start of the number they differ in
    now, was = _NUMBER.match(line, same), _NUMBER.match(old, same)
    return (
        now is not None
        and was is not None
        and now.group() != was.group()
        and now.group().count(".") < 2
        and re.search(r"[^\W\d_]", line[:same]) is not None
    )


def changed_lines(text: str) -> list[tuple[str, str]]:
    """(file, line) for each line a file-editing call's text puts in that gives a setting a new number: one that
    replaces, at the same place, a line it takes out with another number where they first differ."""
    name = text.split("\n", 1)[0].strip()
    changed: list[tuple[str, str]] = []
    for file, old, new in _pairs(name, text):
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag == "replace":  # lines taken out and put in at one place (kept lines align around them)
                gone = [line for line in old[i1:i2] if _NUMBER.search(line)]
                changed += [(file, line) for line in new[j1:j2] if any(_new_number(line, b) for b in gone)]
    return changed


def edited_lines(text: str) -> list[str]:
    """The lines a file-editing call's text puts in that give a setting a new number: each replaces a line it takes
    out with another number where they first differ ("pool-size: 10" made "pool-size: 25"); empty for any other
    call, and for an edit that only adds lines (a changelog's entry), keeps its numbers or bumps a version."""
    return [line for _, line in changed_lines(text)]


def change_in(turn: Turn, about: Callable[[str], str] = lambda session: "") -> Moment | None:
    """The change of a value `turn` makes (a tool call editing a file), or None. Its key is the file's name, the
    lines put in and what its session was asked first, with no project name or version: a question names those
    of many changes."""
    if turn.kind != TOOL_CALL:
        return None
    changed = changed_lines(turn.text)
    if not changed:
        return None
    file = changed[0][0].rsplit("/", 1)[-1]
    said = _CAMEL.sub(" ", " ".join([file, *(line for _, line in changed)]))[:KEY_CHARS]
    asked = " ".join(about(turn.session).split())[:KEY_CHARS]
    return Moment(turn.session, (turn.seq,), turn.ts, f"{said} {asked}".strip())

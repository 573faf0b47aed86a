"""Moments: single turns kept as retrieval keys (a release, an incident, a decision, a change of a value), each
with the turns it points to.

A question about a release, an incident or a decision is answered by the few turns that did, reported or
diagnosed it, while a search by the question's words finds the many turns that discuss one. The readers of those
turns (`read.releases`, `read.incidents`, `read.decisions`) give each a `Moment`: its time and a short key text
made here, of the versions it names, the project's name, the turn's opening words and what its session was asked
first, so "the version that shipped the search fix" or "what caused the login errors" finds it by the words of
the work around it. A change of a value (`read.changes`) makes its own key: the file's name and the lines put
in, without the versions or the project's name a question names of many changes.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..contract import Turn
from ..text import project_name, versions

__all__ = ["CONDITION", "FILE_PATH", "KEY_CHARS", "READ_CHARS", "Moment", "MomentReader", "moment", "moments_in"]

KEY_CHARS = 300  # of a turn's opening (a command's), in its key
READ_CHARS = 400  # of a turn read for what makes it a moment
# a sentence that says its moment only as a condition ("when 2.3.1 is out, ping me", "if we swap the order ...")
CONDITION = re.compile(r"\b(?:if|when|whenever|once|until|unless|whether)\b", re.I)
# the file a tool call names, as its rendering writes it on a line of its own (a path with spaces kept whole)
FILE_PATH = re.compile(r"^file_path: (.+)$", re.M)


@dataclass(frozen=True)
class Moment:
    """A turn kept as a retrieval key: a release, an incident, a decision, a change of a value."""

    session: str
    seqs: tuple[int, ...]  # the turns it points to: its own, and a tool call's output (paired by derive)
    ts: str | None
    text: str  # its key: the versions it names, the project's name, the turn's opening, its session's first request


MomentReader = Callable[[Turn, Callable[[str], str]], "Moment | None"]  # one turn's moment of a kind, or None


def moment(turn: Turn, seqs: tuple[int, ...], said: str, about: Callable[[str], str]) -> Moment:
    """The moment of `turn` (`said`: what of it was read), its key joined with `about(turn.session)`, what its
    session was asked first."""
    opening = " ".join(said.split())[:KEY_CHARS]
    asked = " ".join(about(turn.session).split())[:KEY_CHARS]
    key = " ".join([*versions(opening), project_name(turn.cwd), opening, asked])
    return Moment(turn.session, seqs, turn.ts, key.strip())


def moments_in(read: MomentReader, turns: Iterable[Turn], about: Callable[[str], str]) -> list[Moment]:
    """The moments `read` finds in `turns`, in their order; `about(session)` says what a session was asked first."""
    found = (read(t, about) for t in turns)
    return [m for m in found if m is not None]

"""Incidents: the turns where something broke and was found out, kept as retrieval keys.

"What caused the login errors last week", "which file had the timeout bug", "why did the nightly job crash": the
answer is in the few turns that report the problem or say what caused it, while a search by the question's words
finds every turn that mentions the code involved. A turn is an incident turn when:

- the assistant diagnoses one, at the start of a sentence of its opening: "found it", "there it is", "that
  confirms it", "I think I see it", "root cause", "the problem is", "two problems", "confirmed", "it's caused by",
  "fixed in", or "... is the culprit" anywhere (at a sentence's start, "it's not the root cause" says none); or
  its turn opens with what the matter is ("It's the cache.", "That's a race.", "This is an off-by-one");
- the person reports one: something failing, broken, down, crashing, flaky or timing out, errors or exceptions
  seen or thrown, a traceback, an outage, an incident, a regression, error spikes.

Each becomes a `Moment` (`read.moments`): the turn, its time and its key text (the versions it names, the
project's name, the turn's opening words and what its session was asked first). Only a coding agent's sessions
are read (`derive` passes those).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from ..contract import ASSISTANT, TYPED, Turn
from .moments import READ_CHARS, Moment, moment

__all__ = ["incident_in", "incidents_in"]

_DIAGNOSIS = re.compile(
    r"(?:^|[.!?:]\s+|\n)[\W_]*(?:found it|found the (?:bug|problem|issue|cause|culprit)|there it is|that's it\b"
    r"|(?:that|this) (?:confirms|explains)|i (?:think i )?see (?:it|the (?:bug|problem|issue))|(?:the )?root cause"
    r"|the (?:real |actual |underlying )?(?:bug|problem|issue|cause|culprit|error) (?:is|was|here)\b"
    r"|(?:two|three|several) (?:separate |different |distinct )?(?:problems|bugs|issues|things)|confirmed\b"
    r"|(?:it|this|that)(?:'s| is| was) caused by|fixed (?:in|at|by)\b)"
    r"|\b(?:is|was) the culprit\b",
    re.I,
)
_OPENS_WITH_IT = re.compile(
    r"^[\W_]*(?:(?:yes|so|ok|right),? )?(?:it's|it is|this is|that's|that is) (?:the|a|an) ", re.I
)
_REPORTED = re.compile(
    r"\b(?:is|are|was|were|keeps?|kept|started|been|went|got) (?:\w+ )?(?:broken|failing|down|crashing|timing out"
    r"|erroring|flaky|hanging)\b"
    r"|\b(?:getting|got|seeing|throws?|throwing|hit|hitting|returns?|returning) (?:an? |the |this |these |some "
    r"|intermittent )?(?:\w+ )?(?:errors?|exceptions?|5\d\d|5xx|timeouts?|crash(?:es)?)\b"
    r"|\b(?:outage|incident|regression|traceback)\b|\b(?:error|5xx|latency) spikes?\b|\bbroke (?:the|our|prod\w*|ci)\b",
    re.I,
)


def _diagnosed(text: str) -> bool:
    """Whether the assistant's turn (its opening) says what the matter is."""
    return _OPENS_WITH_IT.search(text) is not None or _DIAGNOSIS.search(text) is not None


def incident_in(turn: Turn, about: Callable[[str], str] = lambda session: "") -> Moment | None:
    """The incident `turn` diagnoses (the assistant's) or reports (the person's), or None; `about(session)` (what
    its session was asked first, asked only of an incident) joins its key."""
    said = turn.text[:READ_CHARS]
    if turn.kind == ASSISTANT:
        found = _diagnosed(said)
    elif turn.kind == TYPED:
        found = _REPORTED.search(said) is not None
    else:
        return None
    return moment(turn, (turn.seq,), said, about) if found else None


def incidents_in(turns: Iterable[Turn], about: Callable[[str], str]) -> list[Moment]:
    """The incidents in `turns`, in their order; `about(session)` says what a session was asked first."""
    found = (incident_in(t, about) for t in turns)
    return [m for m in found if m is not None]

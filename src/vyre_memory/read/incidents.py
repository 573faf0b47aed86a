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
from collections.abc import Callable

from ..contract import ASSISTANT, TYPED, Turn
from .asides import speaks_of_life
from .moments import READ_CHARS, Moment, moment

__all__ = ["incident_in"]

_DIAGNOSIS = re.compile(
    r"(?:^|[.!?:]\s+|\n)[\W_]*(?:found it|(?:i(?:'ve)? )?found the (?:bug|problem|issue|cause|culprit)|there it is"
    r"|(?:that|this) (?:confirms|explains)|i (?:think i )?see (?:it|the (?:bug|problem|issue))|(?:the )?root cause"
    r"|turns out\b|the (?:real |actual |underlying )?(?:bug|problem|issue|cause|culprit|error) (?:is|was)\b"
    r"|(?:two|three|several) (?:separate |different |distinct )?(?:problems|bugs|issues)"
    r"|(?:two|three) things (?:together|stacked|at once|going on)|confirmed(?=[:.])"
    r"|(?:it|this|that)(?:'s| is| was) caused by|fixed (?:in|at|by)\b)"
    r"|\b(?:is|was) the culprit\b",
    re.I,
)
# "It's the cache.", "That's a race": not "That's a good question", "This is the updated file"
_OPENS_WITH_IT = re.compile(
    r"^[\W_]*(?:(?:yes|so|ok|right),? )?(?:it's|it is|this is|that's|that is) (?:the|a|an) (?!(?:good|great|nice|fair"
    r"|valid|simple|quick|small|new|updated|clean|reasonable|common|known|better|different|separate|general|full"
    r"|complete|right|first|next|last|final|current|same|plan|summary|list|result)\b)",
    re.I,
)
_REPORTED = re.compile(
    r"\b(?:is|are|was|were|keeps?|kept|started|been|went|got) (?:\w+ )?(?:broken|failing|down|crashing|timing out"
    r"|erroring|flaky|hanging)\b"
    r"|\b(?:getting|got|seeing|see|get|throws?|throwing|hit|hitting|returns?|returning) (?:an? |the |this |these "
    r"|some |intermittent )?(?:\w+ )?(?:errors?|exceptions?|[45]\d\d|5xx|timeouts?|crash(?:es)?)\b"
    r"|\b(?:outage|incident|regression|traceback)\b(?! (?:test|tests|suite|report|template|plan|doc|docs"
    r"|pretty|printer|handling)\b)|\b(?:error|5xx|latency) spikes?\b|\bbroke (?:the|our|prod\w*|ci)\b"
    r"|\b(?:doesn't|does not|don't|won't|will not|can't) (?:work|load|start|build|compile|run|open|connect)\b"
    r"|\bfails (?:with|on|when|to)\b|\bcrash(?:es|ed)? (?:on|when|at|after|if)\b|\bsegfaults?\b",
    re.I,
)
# a report only as what should or could happen ("so it returns a 400 error", "it should throw an exception")
_HYPOTHETICAL = re.compile(
    r"\b(?:should|shall|must|would|could|will|so (?:it|that|they)|make sure|ensure|unless)\b[^.!?;:]*$",
    re.I,
)


def _diagnosed(text: str) -> bool:
    """Whether the assistant's turn (its opening) says what the matter is."""
    return _OPENS_WITH_IT.search(text) is not None or _DIAGNOSIS.search(text) is not None


def _reported(text: str, at: int) -> bool:
    """Whether the person's words at `at` report a problem: not as what should happen, and not of their life."""
    sentence = re.split(r"[.!?\n]", text[:at])[-1]
    rest = re.split(r"[.!?\n]", text[at:])[0]
    return not _HYPOTHETICAL.search(sentence) and not speaks_of_life(sentence + rest)


def incident_in(turn: Turn, about: Callable[[str], str] = lambda session: "") -> Moment | None:
    """The incident `turn` diagnoses (the assistant's) or reports (the person's), or None; `about(session)` (what
    its session was asked first, asked only of an incident) joins its key."""
    said = turn.text[:READ_CHARS]
    if turn.kind == ASSISTANT:
        found = _diagnosed(said)
    elif turn.kind == TYPED:
        found = any(_reported(said, m.start()) for m in _REPORTED.finditer(said))
    else:
        return None
    return moment(turn, (turn.seq,), said, about) if found else None

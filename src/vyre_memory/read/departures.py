"""Someone leaving the part they played in the person's life: "mira starts her maternity leave on friday", a message
pasted into the person's turn saying "my last day is 28 May", "jon is leaving the company".

A role someone holds for the person (their manager, a colleague, a client, a doctor, a teacher, a roommate) lasts
until it does not; the person seldom says who holds it next in the words the role was first said in. When such a
departure is said (in the turn that names the role, or after it), the role's holder is no longer known: better
"Not sure." and what was known than the old name told as today's. The departure may be in the leaver's own pasted
words ("I start my leave on ...") with their name a line above, so a name and a departure phrase count together when
they are near each other in one turn, not only in one sentence. A phrase that also says something of the day or of
a thing ("leaving early today", "retired the old endpoint") is no departure.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re

__all__ = ["DEPARTING_ROLES", "NEAR_CHARS", "given_name", "leaves"]

# the relations a person holds for a time (not kin): who held one may leave it
DEPARTING_ROLES = frozenset({"boss", "colleague", "client", "doctor", "teacher", "roommate"})
NEAR_CHARS = 300  # a name and a departure phrase this close in one turn speak of one person

_TITLE = frozenset("dr dr. mr mr. mrs mrs. ms ms. miss prof prof. sir".split())
# what follows "leaving" when it is not a departure: a time, a place of the day, or a thing left behind
_NOT_AFTER = (
    r"(?!\s+(?:early|late|soon|now|at|for|in|on|to|by|after|before|around|today|tonight|tomorrow|work|home|the\s+office"
    r"|the\s+house|the\s+(?!company|team|firm|practice|school)\w+|a|an|this|that|these|those|it|its|my|your)\b)"
)
# ... and what follows "quit" or "retired" when it is not a departure: a thing acted on ("retired the old endpoint")
_NO_OBJECT = r"(?!\s+(?:the\s+(?!company|team|firm|practice|school)\w+|a|an|it|its|my|your|them)\b)"
_DEPARTURE = re.compile(
    r"\b(?:maternity|paternity|parental|long-term|extended)\s+leave\b"
    r"|\bmy\s+last\s+day\b|\b(?:his|her|their)\s+last\s+day\b|\blast\s+day\s+(?:is|was|will\s+be|at|here)\b"
    rf"|\b(?:is|she's|he's|they're|i'm|i\s+am|are)\s+leaving\b{_NOT_AFTER}"
    r"|\b(?:has|have|had)\s+left\s+the\s+(?:company|team|firm|practice|school)\b"
    rf"|\b(?:quit|quits|resigned|resigns|retired|retires|retiring)\b{_NO_OBJECT}"
    r"|\bstep(?:s|ping|ped)?\s+down\b|\bhanding\s+over\s+to\b",
    re.I,
)


def given_name(name: str) -> str:
    """The word of `name` a person is called by: its first, past a title ("Dr. Ana Patel" -> "Ana")."""
    words = [w for w in name.split() if w.lower() not in _TITLE]
    return words[0] if words else ""


def leaves(text: str, name: str) -> bool:
    """Whether `text` says that `name` (its given name is looked for, as a whole word) leaves: a departure phrase
    within `NEAR_CHARS` of the name, in either order."""
    first = given_name(name)
    if len(first) < 2:
        return False
    text = text.replace("’", "'")
    named = [m.start() for m in re.finditer(rf"(?<![\w]){re.escape(first)}(?![\w])", text, re.I)]
    if not named:
        return False
    return any(abs(d.start() - at) <= NEAR_CHARS for d in _DEPARTURE.finditer(text) for at in named)

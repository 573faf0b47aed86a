"""Someone leaving the part they played in the person's life: "mira starts her maternity leave on friday", a pasted
"my last day is 28 May", "jon is leaving the company".

A role someone holds for the person (their manager, a colleague, a client, a doctor, a teacher) lasts until it does
not; the person seldom says who holds it next in the words the role was first said in. When such a departure is
said after the newest mention of who holds a role, the role's holder is no longer known: better "Not sure." and
what was known than the old name told as today's. The departure may be in the leaver's own pasted words ("I start
my leave on ...") with their name a line above, so a name and a departure phrase count together when they are
near each other in one turn, not only in one sentence.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re

__all__ = ["DEPARTING_ROLES", "NEAR_CHARS", "leaves"]

# the relations a person holds for a time (not kin): who held one may leave it
DEPARTING_ROLES = frozenset({"boss", "colleague", "client", "doctor", "teacher", "roommate"})
NEAR_CHARS = 300  # a name and a departure phrase this close in one turn speak of one person

_DEPARTURE = re.compile(
    r"\b(?:maternity|paternity|parental|long-term|extended)\s+leave\b"
    r"|\bmy\s+last\s+day\b|\b(?:his|her|their)\s+last\s+day\b|\blast\s+day\s+(?:is|was|will\s+be|at|here)\b"
    r"|\b(?:is|she's|he's|they're|i'm|i\s+am|are)\s+leaving\b|\bleaving\s+(?:the\s+(?:company|team|firm)|us)\b"
    r"|\b(?:has|have|had)\s+left\s+(?:the\s+(?:company|team|firm|practice|school))\b"
    r"|\b(?:quit|quits|resigned|resigns|retired|retires|retiring)\b|\bstep(?:s|ping|ped)?\s+down\b"
    r"|\bhanding\s+over\s+to\b|\b(?:interim|acting)\s+(?:lead|manager|head|boss)\b",
    re.I,
)


def leaves(text: str, name: str) -> bool:
    """Whether `text` says that `name` (a first name, or a full name whose first word is looked for) leaves: a
    departure phrase within `NEAR_CHARS` of the name, as a whole word, in either order."""
    first = name.split()[0] if name.split() else ""
    if len(first) < 2:
        return False
    named = [m.start() for m in re.finditer(rf"(?<![\w]){re.escape(first)}(?![\w])", text, re.I)]
    if not named:
        return False
    return any(abs(d.start() - at) <= NEAR_CHARS for d in _DEPARTURE.finditer(text) for at in named)

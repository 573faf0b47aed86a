"""Who the person's partner likely is, when they never say "my wife" or "my girlfriend" with the name.

People name a partner in passing by what they share: "njeri is pregnant", "anouk and i got a place", "bea's got the
twins tonight", "her mom is staying with us". No one of these is a fact the memory may tell (a flatmate signs a
lease too), so they are never facts: they are cues, counted per name, and the name with the most (`likely_partners`)
is searched beside a question about the person's partner that the graph cannot answer by a name ("what does my wife
do", "who am i dating"). A strong cue counts two, a weak one (a pregnancy, which may be a colleague's; a pickup because
someone is on a shift) one; a name needs two points.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .moments import CONDITION
from .relations import KIN, PARTNER_RELATIONS, is_name_token
from .trust import negated_clause, own_sentences

__all__ = ["LEAST_POINTS", "asks_partner", "likely_partners", "partner_cues"]

LEAST_POINTS = 2
_PARTNER_WORDS = "|".join(sorted((re.escape(w) for w, rel in KIN.items() if rel in PARTNER_RELATIONS), key=len)[::-1])
_ASKS = re.compile(
    rf"\b(?:my|our)\s+(?:{_PARTNER_WORDS})\b|\bwho\s+(?:am\s+i|i'?m|i\s+am)\s+(?:dating|seeing|going\s+out\s+with)\b"
    r"|\b(?:am\s+i|i'?m|i\s+am)\s+dating\b|\bseeing\s+(?:someone|anyone)\b"
)
_NAME = r"([^\W\d_][\w'’-]{1,30}?)"
_POSS = r"(?:'s|’s)"
# each: a pattern whose first group is the name, and its points
_CUES: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(rf"\b{_NAME}(?:\s+is|{_POSS})\s+(?:\w+\s+)?pregnant\b"), 1),  # a colleague may be too
    (
        re.compile(
            rf"\b{_NAME}\s+and\s+i\s+(?:just\s+|finally\s+)?(?:got\s+(?:a\s+place|an?\s+(?:apartment|apt|flat|house)"
            r"|the\s+keys|engaged|married)|bought\s+(?:a\s+)?(?:place|apartment|flat|house)|are\s+(?:getting\s+married"
            r"|engaged|moving\s+in)|moved\s+in|signed\s+(?:the|a)\s+lease|have\s+been\s+together)\b"
        ),
        2,
    ),
    (
        re.compile(
            rf"\b{_NAME}{_POSS}\s+(?:mom|mum|mother|dad|father|parents|folks|family)\b[^.!?]{{0,80}}?"
            r"\b(?:(?:is|are)\s+)?(?:staying\s+with\s+us|stay\s+with\s+us|visiting\s+us|coming\s+to\s+stay)\b"
        ),
        2,
    ),
    (
        re.compile(
            rf"\b{_NAME}(?:{_POSS}\s+got|\s+has\s+got|\s+has|{_POSS}\s+with|\s+is\s+with)\s+the\s+"
            r"(?:kids|twins|baby|boys|girls)\b"
        ),
        2,
    ),
    (re.compile(rf"\bdate\s+night\s+with\s+{_NAME}\b"), 2),
)
# a weak cue: the person does a child's pickup because someone is busy, in one sentence
_CHILD_RUN = re.compile(r"\b(?:pick(?:ing)?\s+up|pickup|pick-up|drop-?off|school\s+run|daycare|nursery)\b")
_BUSY = re.compile(
    rf"\b{_NAME}(?:{_POSS}|\s+is)\s+(?:on\s+(?:the\s+)?\w+\s+shift|on\s+nights|on\s+a\s+(?:site\s+visit|work\s+trip)"
    r"|away|travelling|traveling|working\s+late)\b"
)


def asks_partner(question: str) -> bool:
    """Whether a question asks about the person's own partner ("my wife", "who am i dating")."""
    return bool(_ASKS.search(question.lower()))


# the word before a name: never an article or a possessive ("the landlord and i", "my sister in law is")
_NOT_BEFORE_NAME = frozenset("a an the my our your his her their in this that".split())


def _names(pattern: re.Pattern[str], text: str) -> Iterable[str]:
    for m in pattern.finditer(text):
        name = m.group(1).lower().rstrip("'’")
        before = text[: m.start(1)].split()
        if (before and before[-1] in _NOT_BEFORE_NAME) or negated_clause(text, m.end()):
            continue
        if is_name_token(name) and name not in KIN and name not in ("she", "he", "they", "who"):
            yield name


# a word without which no cue above can match: most turns are passed over by it alone
_ANY_CUE = re.compile(
    r"pregnant|\band\s+i\s|with\s+us\b|coming\s+to\s+stay|\bthe\s+(?:kids|twins|baby|boys|girls)\b|date\s+night"
    r"|pick|drop|school\s+run|daycare|nursery"
)


def partner_cues(text: str) -> dict[str, int]:
    """The names a person's own sentences in `text` (their typed words) give cues of a partner to, with points."""
    points: dict[str, int] = {}
    if not _ANY_CUE.search(text.lower()):
        return points
    for s in own_sentences(text):
        low = s.text.lower()
        if CONDITION.search(low):
            continue  # "if ayla is pregnant we'll move"
        for pattern, worth in _CUES:
            for name in _names(pattern, low):
                points[name] = max(points.get(name, 0), worth)
        if _CHILD_RUN.search(low):
            for name in _names(_BUSY, low):
                points[name] = max(points.get(name, 0), 1)
    return points


def likely_partners(cues: Iterable[tuple[str, int]], others: Iterable[str] = ()) -> list[str]:
    """Of (name, points) cues over many turns, the names with the most points and at least LEAST_POINTS, best first
    (two at most: a name and its short form, "beatriz" and "bea"), but none the person relates otherwise (`others`:
    a sister, a flatmate)."""
    not_partner = {o.lower() for o in others}
    total: dict[str, int] = {}
    for name, worth in cues:
        if name not in not_partner:
            total[name] = total.get(name, 0) + worth
    ranked = sorted((n for n, p in total.items() if p >= LEAST_POINTS), key=lambda n: (-total[n], n))
    return ranked[:2]

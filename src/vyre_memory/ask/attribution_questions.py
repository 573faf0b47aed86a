"""Who said, asked or did what: "who reported the login timeouts", answered from what the person typed.

Guarantees:
- `parse_who_question` returns a `WhoQuery` only for "who <reporting or doing verb> <what>" ("who
  asked for ...", "who kept pushing for ...", "who ran the soak test", "who had ankle surgery") or "whose
  <what>"; every other question gives None;
- `answer_who` reads only attributions (relation "said": "<name> reports ...", typed by the person)
  and tells a name only when one person's report covers most of what the question names (its words,
  or its project's name) with a verb of the same kind, and no other person's report comes close; a
  possession ("oskar's notebook") answers only who had, ran, wrote or built something, at most 0.6;
  otherwise None. The answer is the name as the person wrote it, proper-cased, and a span of its quote.
Pure functions: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..read.attribution import verb_family
from ..read.relations import display
from ..text import STOP, names_match
from ..text import stem as _stem
from .personal_questions import KnownFact, PersonalAnswer
from .understand import strip_time_words

__all__ = ["Said", "WhoQuery", "answer_surname", "answer_who", "parse_surname_question", "parse_who_question"]

MIN_COVER = 0.6  # the share of the question's words a report must hold
RIVAL_MARGIN = 0.2  # another person's report this close makes the answer doubtful

# Which kinds of report answer which kind of question ("who proposed X" is answered by "zora thinks X").
_COMPATIBLE = {
    "say": frozenset({"say", "report", "suggest", "ask", "talk"}),
    "report": frozenset({"report", "say"}),
    "suggest": frozenset({"suggest", "ask", "say"}),  # "who suggested X": "ana said we should X"
    "ask": frozenset({"ask", "suggest"}),
    "ran": frozenset({"ran", "own"}),
    "wrote": frozenset({"wrote", "own"}),
    "built": frozenset({"built", "own"}),
    "own": frozenset({"own"}),  # "who had ankle surgery", "whose notebook": answered by "grandpa's ankle operation"
}
POSSESSION_CAP = 0.6  # whose thing it is was said in passing, never as a report
_QUESTION = re.compile(
    r"^(?:and |so |but )?who (?:(?:first|originally|actually|really|initially|kept|keeps|was|is|had|has|else|"
    r"always|even)\s+)*(?P<verb>[a-z]+)\b(?P<rest>.*)$"
)
_STOP = STOP | frozenset("place originally initially kept keep always first standup meeting".split())
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class WhoQuery:
    """A who-said question: the verb's family and the words naming what was said or done."""

    family: str
    terms: frozenset[str]


@dataclass(frozen=True)
class Said:
    """One attribution as the fast path reads it: who, what (verb onwards), the quote, the project folder."""

    fact: KnownFact
    quote: str
    project: str = ""


def _terms(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def parse_who_question(question: str) -> WhoQuery | None:
    """The who-said lookup a question asks for, or None."""
    q = question.strip().lower().replace("’", "'")
    q = re.sub(r"[?!.\s]+$", "", strip_time_words(q))  # when it was said is not what was said
    whose = re.match(r"^(?:and |so |but )?(?:whose|who (?:had|has|owns|owned)) (?P<rest>.+)$", q)
    if whose:
        terms = _terms(whose.group("rest"))
        return WhoQuery("own", frozenset(terms)) if terms else None
    m = _QUESTION.match(q)
    if m is None:
        return None
    family = verb_family(m.group("verb"))
    terms = _terms(m.group("rest"))
    if family is None or not terms:
        return None
    return WhoQuery(family, frozenset(terms))


def _family_of(s: Said) -> str | None:
    """The kind of report: its verb's family, or "own" for a possession ("grandpa's ankle operation ...")."""
    obj = s.fact.object.lower()
    if re.match(rf"{re.escape(s.fact.subject.lower())}['’]s\b", obj):
        return "own"
    return verb_family(obj.split()[0]) if obj.split() else None


def answer_who(query: WhoQuery, said: Sequence[Said]) -> PersonalAnswer | None:
    """The person whose reported words answer the question, or None (abstain)."""
    kinds = _COMPATIBLE.get(query.family, frozenset())
    scored: list[tuple[float, Said]] = []
    for s in said:
        if _family_of(s) not in kinds:
            continue
        words = _terms(s.quote) | _terms(s.project.replace("-", " ").replace("_", " "))
        cover = len(query.terms & words) / len(query.terms)
        if cover >= MIN_COVER:
            scored.append((cover, s))
    if not scored:
        return None
    scored.sort(key=lambda c: (-c[0], c[1].fact.ts))
    best_cover, best = scored[0]
    # people named together in the one report ("noor haddad and bruno both asked") answer together
    together = [s for c, s in scored if s.quote == best.quote and s.fact.object == best.fact.object]
    subjects = list(
        dict.fromkeys(s.fact.subject for s in sorted(together, key=lambda s: best.quote.find(s.fact.subject)))
    )
    rivals = [
        s
        for c, s in scored
        if c >= best_cover - RIVAL_MARGIN and not any(names_match(s.fact.subject, who) for who in subjects)
    ]
    if rivals:
        return None
    names: list[str] = []
    facts: list[KnownFact] = []
    for who in subjects:
        # a fuller name the person used for the same reporter elsewhere ("noor haddad" for "noor")
        agreeing = [s for c, s in scored if names_match(s.fact.subject, who)]
        name = max((s.fact.subject for s in agreeing), key=len)
        names.append(display(name))
        facts.extend(s.fact for s in agreeing if s.fact.subject == name or s in together)
    shown = " and ".join(names)
    confidence = round(0.5 + 0.2 * best_cover, 3)
    if _family_of(best) == "own":
        confidence = min(confidence, POSSESSION_CAP)
    return PersonalAnswer(f"{shown}.", shown, confidence, tuple(dict.fromkeys(facts)))


_SURNAME = re.compile(
    r"^(?:what(?:'s| is| was)?|whats)\s+([^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*)?)(?:'s|s'|')\s+"
    r"(?:surname|last name|family name|full name)$"
)


def parse_surname_question(question: str) -> str | None:
    """The name a "what's zora's surname" question asks about, lowercased, or None."""
    q = re.sub(r"[?!.\s]+$", "", question.strip().lower().replace("’", "'"))
    m = _SURNAME.match(q)
    return m.group(1) if m else None


def answer_surname(first: str, named: Sequence[tuple[str, KnownFact]]) -> PersonalAnswer | None:
    """The full name the person wrote for the only person of that first name they wrote a full name for.

    `named`: (a name as written, the fact or attribution it stands in). Two full names for one first
    name ("zora fenn", "zora mbeki") mean no answer: the question does not say which."""
    asked = first.lower().split()
    full = {
        n.lower(): f
        for n, f in named
        if len(n.split()) == 2
        and n.split()[0].lower() == asked[0]
        and (len(asked) == 1 or n.lower() == " ".join(asked))
    }
    if len(full) != 1:
        return None
    name, fact = next(iter(full.items()))
    return PersonalAnswer(f"{display(name)}.", display(name), 0.6, (fact,))

"""The fast path's question rules: personal questions mapped to fact lookups, and the lookup itself.

Guarantees:
- `parse_personal_question` returns a `PersonalQuery` only for a question about the person's own
  life (family, home, car, pets, people they know, routines, preferences); every other question,
  work questions included, gives None. It never names a person, place or phrase of any world.
- `answer_personal` answers only from facts at or above the bar: 0.6 for who someone is to the
  person (ADR 0034 amendment 5), 0.5 for other facts; for a value that changes over time the
  newest statement wins; two different values for a one-valued relation (a wife, a father) with
  comparable support mean no answer. No answer is always preferred to a doubtful one.
Pure functions: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..read.relations import (
    CATEGORY_ALIASES,
    CHANGING,
    HOLIDAYS,
    KIN,
    PEOPLE_RELATIONS,
    PET_BREEDS,
    PETS,
    TOOL_CATEGORIES,
    display,
    is_stop,
)

__all__ = ["KnownFact", "PersonalAnswer", "PersonalQuery", "answer_personal", "parse_personal_question"]

PEOPLE_BAR = 0.6
OTHER_BAR = 0.5
ONE_VALUED = frozenset({"wife", "husband", "partner", "fiance", "mother", "father", "boss"})
_PHRASE = {"boss": "manager", "family_friend": "family friend", "fiance": "fiancé(e)", "neighbour": "neighbour"}


@dataclass(frozen=True)
class PersonalQuery:
    """A personal question as a lookup.

    relation: the relation to read; subject: "user", a lowercase name, or a thing/activity;
    via: relations to follow from the user first ("where does my sister live": via=("sister",),
    relation="lives_in"); reverse: a lowercase name to explain ("who is dani"); kind: a pet kind
    ("dog"), a tool category ("python package manager") or a role ("ml team lead") that the value
    must fit; template: how to phrase the answer, with {value} (and {name}, {relation}).
    """

    relation: str
    subject: str = "user"
    template: str = "{value}"
    via: tuple[str, ...] = ()
    reverse: str | None = None
    kind: str | None = None


@dataclass(frozen=True)
class KnownFact:
    """A fact as the store holds it, for the fast path's lookup (one row per mention is fine)."""

    subject: str
    relation: str
    object: str
    confidence: float
    ts: str = ""
    source: str = ""


@dataclass(frozen=True)
class PersonalAnswer:
    text: str
    value: str
    confidence: float
    facts: tuple[KnownFact, ...] = field(default_factory=tuple)


# ---------------------------------------------------------------------------------------------
# Parsing.

_KIN_ALT = "|".join(sorted((re.escape(k) for k in KIN), key=len, reverse=True))
_PET_ALT = "|".join(sorted((re.escape(k) for k in PETS), key=len, reverse=True))
_WHO = r"(?:my|our|the\s+user'?s)"
_NAME = r"[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*)?"


def _norm(q: str) -> str:
    s = q.strip().lower().replace("’", "'").replace("‘", "'")
    s = re.sub(r"[?!.]+$", "", s).strip()
    s = re.sub(r"\b(whats|what is)\b", "what's", s)
    s = re.sub(r"\b(whos|who is)\b", "who's", s)
    s = re.sub(r"\b(wheres|where is)\b", "where's", s)
    s = re.sub(r"\b(again|now|currently|these days|nowadays|at the moment|right now|btw|please|pls)\b", "", s)
    s = re.sub(
        r"^(hey|hi|ok|okay|so|quick one|remind me|do you (know|remember)|can you tell me|tell me)[,:]?\s+", "", s
    )
    s = re.sub(r"\b(do you know|remind me)\b\s*", "", s)
    s = re.sub(r"\bthe name of\s+(my|our)\s+([\w\s]+?)$", r"\1 \2's name", s)
    s = re.sub(r"\bteam\s+lead\b", "lead", s)
    s = re.sub(
        rf"\b({_KIN_ALT}|{_PET_ALT})(?:s'|s|')?(?:'s)?\s+(names?|called|birthday|teacher|school|job|breed)\b",
        r"\1's \2",
        s,
    )
    s = re.sub(r"^((?:my|our)\s+\S+'s\s+names?)$", r"what's \1", s)
    return re.sub(r"\s+", " ", s).strip(" ,")


def _rel_of(word: str) -> tuple[str, str | None]:
    """(relation, pet kind) for a kin or pet word."""
    if word in PETS:
        return "pet", PETS[word]
    return KIN.get(word, word), None


def _phrase(rel: str) -> str:
    return _PHRASE.get(rel, rel.replace("_", " "))


def parse_personal_question(question: str) -> PersonalQuery | None:
    """The lookup a personal question asks for, or None when it is not a personal question."""
    q = _norm(question)
    if not q:
        return None

    # "what's my sister's husband's name", "what's my wife's name", "who's my manager" ---------
    m = (
        re.fullmatch(
            rf"(?:what's|who's|what are)\s+{_WHO}\s+((?:(?:{_KIN_ALT}|{_PET_ALT})'s?\s+)*)"
            rf"({_KIN_ALT}|{_PET_ALT})(?:'s|s')?(?:\s+(?:name|names|called))?",
            q,
        )
        or re.fullmatch(
            rf"(?:what|who)\s+(?:is|are|'s)?\s*{_WHO}\s+((?:(?:{_KIN_ALT}|{_PET_ALT})'s?\s+)*)({_KIN_ALT}|{_PET_ALT})"
            r"(?:'s)?\s+(?:called|named)",
            q,
        )
        or re.fullmatch(
            rf"what\s+(?:do|did)\s+(?:i|we)\s+call\s+{_WHO}\s+((?:(?:{_KIN_ALT})'s?\s+)*)({_KIN_ALT}|{_PET_ALT})", q
        )
    )
    if m:
        chain = tuple(_rel_of(w.rstrip("'s").rstrip("'"))[0] for w in re.findall(r"(\w+)'s?", m.group(1) or ""))
        rel, kind = _rel_of(m.group(2))
        if kind:
            return PersonalQuery("pet", template=f"Your {m.group(2)} is {{value}}.", kind=kind, via=chain)
        if chain:
            who = "'s ".join(_phrase(c) for c in chain)
            return PersonalQuery(rel, via=chain, template=f"Your {who}'s {_phrase(rel)} is {{value}}.")
        return PersonalQuery(rel, template=f"Your {_phrase(rel)} is {{value}}.")

    # "what does my wife do for a living" ---------------------------------------------------------
    m = re.fullmatch(
        rf"what\s+does\s+{_WHO}\s+({_KIN_ALT})\s+do(?:\s+for\s+(?:a\s+living|work))?|what's\s+{_WHO}\s+"
        rf"({_KIN_ALT})'s\s+job",
        q,
    )
    if m:
        rel, _ = _rel_of(m.group(1) or m.group(2))
        return PersonalQuery("occupation", via=(rel,), template=f"Your {_phrase(rel)}: {{value}}.")

    # "what's my starter called", "what's my boat's name" (a named thing) --------------------
    m = re.fullmatch(r"what's\s+(?:my|our)\s+(?:[\w-]+\s+)?([\w-]+?)(?:'s\s+name|\s+called|\s+named)", q)
    if m and m.group(1) not in KIN and m.group(1) not in PETS:
        return PersonalQuery("called", subject=m.group(1), template=f"Your {m.group(1)} is called {{value}}.")

    # where the person lives, grew up; where a relative lives --------------------------------
    if re.fullmatch(
        r"where\s+(?:do|did)\s+(?:i|we)\s+(?:live|stay)|where's\s+(?:my|our)\s+(?:home|house|place|flat)"
        r"|what's\s+my\s+(?:home\s+)?address|which\s+part\s+of\s+\w+\s+do\s+(?:i|we)\s+live\s+in"
        r"|what\s+(?:neighbou?rhood|area|district|town|suburb)\s+do\s+(?:i|we)\s+live\s+in",
        q,
    ):
        return PersonalQuery("lives_in", template="You live in {value}.")
    if re.fullmatch(r"(?:which|what)\s+city\s+do\s+(?:i|we)\s+live\s+in|what\s+city\s+am\s+i\s+in", q):
        return PersonalQuery("home_city", template="You live in {value}.")
    if re.fullmatch(
        r"where\s+did\s+i\s+grow\s+up|where\s+am\s+i\s+from(?:\s+originally)?|what's\s+my\s+home\s*town"
        r"|where\s+was\s+i\s+raised",
        q,
    ):
        return PersonalQuery("grew_up_in", template="You grew up in {value}.")
    m = re.fullmatch(rf"where\s+(?:does|do)\s+{_WHO}\s+({_KIN_ALT})\s+live", q)
    if m:
        rel, _ = _rel_of(m.group(1))
        return PersonalQuery("lives_in", via=(rel,), template=f"Your {_phrase(rel)} lives in {{value}}.")
    m = re.fullmatch(rf"where\s+does\s+({_NAME})\s+live", q)
    if m and not is_stop(m.group(1).split()[0]):
        return PersonalQuery("lives_in", subject=m.group(1), template=f"{display(m.group(1))} lives in {{value}}.")
    if re.fullmatch(r"who\s+do\s+i\s+live\s+with", q):
        return PersonalQuery("lives_with", template="You live with your {value}.")

    # car, laptop, job ---------------------------------------------------------------------------
    if re.fullmatch(
        r"what\s+(?:car|kind\s+of\s+car|make\s+of\s+car|vehicle)\s+do\s+(?:i|we)\s+(?:drive|have|own)"
        r"|what\s+do\s+(?:i|we)\s+drive|what's\s+(?:my|our)\s+car|what\s+am\s+i\s+driving"
        r"|which\s+car\s+do\s+(?:i|we)\s+(?:drive|have|own)",
        q,
    ):
        return PersonalQuery("car", template="You drive a {value}.")
    if re.fullmatch(
        r"what\s+laptop\s+(?:am\s+i\s+using|do\s+i\s+(?:use|have))(?:\s+for\s+work)?|what's\s+my\s+"
        r"(?:work\s+)?laptop",
        q,
    ):
        return PersonalQuery("laptop", template="Your laptop is a {value}.")
    if re.fullmatch(
        r"what's\s+my\s+(?:job\s+title|title|role|position|job)|what\s+do\s+i\s+do\s+for\s+(?:a\s+living|work)", q
    ):
        return PersonalQuery("job_title", template="You are a {value}.")
    if re.fullmatch(r"where\s+do\s+i\s+work|who\s+do\s+i\s+work\s+for|who's\s+my\s+employer", q):
        return PersonalQuery("employer", template="You work at {value}.")

    # pets: "what kind of animal is kumo", "what breed is kumo" --------------------------------
    m = re.fullmatch(
        rf"what\s+(?:kind|sort|type)\s+of\s+(?:animal|pet)\s+is\s+({_NAME})|what\s+(?:animal|pet)\s+is\s+"
        rf"({_NAME})|is\s+({_NAME})\s+a\s+(?:dog|cat)(?:\s+or\s+a\s+(?:dog|cat))?",
        q,
    )
    if m:
        name = next(g for g in m.groups() if g)
        return PersonalQuery("pet_kind", subject=name, template=f"{display(name)} is a {{value}}.")
    if re.fullmatch(
        rf"what\s+breed\s+is\s+{_WHO}\s+(?:{_PET_ALT})|what's\s+{_WHO}\s+(?:{_PET_ALT})'s\s+breed"
        rf"|what\s+kind\s+of\s+(?:dog|cat)\s+is\s+{_WHO}\s+(?:{_PET_ALT})",
        q,
    ):
        return PersonalQuery("pet_kind", via=("pet",), kind="breed", template="Your pet is a {value}.")
    m = re.fullmatch(rf"what\s+breed\s+is\s+({_NAME})|what\s+kind\s+of\s+(?:dog|cat)\s+is\s+({_NAME})", q)
    if m:
        name = next(g for g in m.groups() if g)
        return PersonalQuery("pet_kind", subject=name, kind="breed", template=f"{display(name)} is a {{value}}.")

    # children: school, teacher --------------------------------------------------------------------
    m = re.fullmatch(
        rf"who's\s+({_NAME}|my\s+(?:{_KIN_ALT}))'s?\s+(?:new\s+)?teacher|what's\s+({_NAME})'s\s+teacher's\s+name", q
    )
    if m:
        who = m.group(1) or m.group(2)
        if who.startswith("my "):
            rel, _ = _rel_of(who[3:])
            return PersonalQuery("teacher", via=(rel,), template="The teacher is {value}.")
        return PersonalQuery("teacher", subject=who, template=f"{display(who)}'s teacher is {{value}}.")
    m = re.fullmatch(
        rf"where\s+does\s+({_NAME})\s+go\s+to\s+(?:pre-?school|school|daycare|nursery|kindergarten)"
        rf"|what\s+(?:pre-?school|school|daycare|nursery)\s+does\s+({_NAME})\s+(?:go\s+to|attend)"
        rf"|what's\s+({_NAME})'s\s+(?:pre-?school|school|daycare|nursery)(?:'s\s+name|\s+called)?"
        rf"|what's\s+the\s+name\s+of\s+({_NAME})'s\s+(?:pre-?school|school|daycare|nursery)",
        q,
    )
    if m:
        who = next(g for g in m.groups() if g)
        return PersonalQuery("school", subject=who, template=f"{display(who)} goes to {{value}}.")

    # birthdays ----------------------------------------------------------------------------------
    m = re.fullmatch(
        r"when's\s+(.+?)(?:'s|')\s+birthday|when\s+is\s+(.+?)(?:'s|')\s+birthday|when's\s+(my)\s+birthday"
        r"|when\s+is\s+(my)\s+birthday",
        q,
    )
    if m:
        who = next(g for g in m.groups() if g)
        if who == "my":
            return PersonalQuery("birthday", template="Your birthday is {value}.")
        mk = re.fullmatch(rf"(?:my|our)\s+({_KIN_ALT})", who)
        if mk:
            rel, _ = _rel_of(mk.group(1))
            return PersonalQuery("birthday", via=(rel,), template=f"Your {_phrase(rel)}'s birthday is {{value}}.")
        if re.fullmatch(_NAME, who) and not is_stop(who.split()[0]):
            return PersonalQuery("birthday", subject=who, template=f"{display(who)}'s birthday is {{value}}.")
        return None

    # age and school grade: "how old did my dad turn", "what grade is mila in" --------------------
    m = re.fullmatch(
        rf"how\s+old\s+(?:is|did|does|will|was)\s+(?:({_WHO}\s+(?:{_KIN_ALT}))|({_NAME}))(?:\s+(?:turn|be|get))?"
        r"(?:\s+(?:this|last|next)\s+(?:week|month|year))?|how\s+old\s+(am\s+i|did\s+i\s+turn)"
        r"(?:\s+(?:this|last|next)\s+(?:week|month|year))?",
        q,
    )
    if m:
        if m.group(3):
            return PersonalQuery("age", template="You {value}.")
        if m.group(1):
            rel, _ = _rel_of(m.group(1).split()[-1])
            return PersonalQuery("age", via=(rel,), template=f"Your {_phrase(rel)} {{value}}.")
        if not is_stop(m.group(2).split()[0]):
            return PersonalQuery("age", subject=m.group(2), template=f"{display(m.group(2))} {{value}}.")
        return None
    m = re.fullmatch(
        rf"what\s+grade\s+(?:is|was)\s+(?:({_WHO}\s+(?:{_KIN_ALT}))|({_NAME}))(?:\s+in)?|what\s+grade\s+(?:does|did)\s+"
        rf"(?:({_WHO}\s+(?:{_KIN_ALT}))|({_NAME}))\s+(?:go\s+to|attend|start)",
        q,
    )
    if m:
        kin, name = m.group(1) or m.group(3), re.sub(r"\s+in$", "", m.group(2) or m.group(4) or "")
        if kin:
            rel, _ = _rel_of(kin.split()[-1])
            return PersonalQuery("grade", via=(rel,), template=f"Your {_phrase(rel)} is in {{value}}.")
        if name and not is_stop(name.split()[0]):
            return PersonalQuery("grade", subject=name, template=f"{display(name)} is in {{value}}.")
        return None

    # other people: "what does iza do for a living", "what's tomasz's job" ---------------------
    m = re.fullmatch(
        rf"what\s+does\s+({_NAME})\s+do(?:\s+for\s+(?:a\s+living|work))?|what's\s+({_NAME})'s\s+"
        r"(?:job|role|title|job\s+title|occupation|profession)",
        q,
    )
    if m:
        who = m.group(1) or m.group(2)
        if not is_stop(who.split()[0]):
            return PersonalQuery("occupation", subject=who, template=f"{display(who)}: {{value}}.")
    m = re.fullmatch(
        r"who\s+(?:leads|runs|heads|manages)\s+(?:the\s+|our\s+)?([\w\s-]+?)(?:\s+team)?"
        r"|who's\s+(?:the|our)\s+([\w\s-]+?\s+(?:lead|head|manager|pm))",
        q,
    )
    if m:
        role = (m.group(1) or m.group(2) or "").strip()
        if role:
            return PersonalQuery("occupation", subject="", kind=f"role:{role}", template="{name} is the {value}.")

    # who someone is to the person: "who is dani", "how do i know gus" -----------------------------
    m = re.fullmatch(
        rf"who's\s+({_NAME})(?:\s+to\s+me)?|how\s+do\s+i\s+know\s+({_NAME})|who\s+was\s+({_NAME})"
        rf"|what's\s+({_NAME})\s+to\s+me|how\s+is\s+({_NAME})\s+related\s+to\s+me",
        q,
    )
    if m:
        name = next(g for g in m.groups() if g)
        if not is_stop(name.split()[0]) and name.split()[0] not in ("your", "it", "they"):
            return PersonalQuery("", subject="", reverse=name, template="{name} is {value}.")

    # routines and preferences ---------------------------------------------------------------------
    m = re.fullmatch(
        r"(?:what|which)\s+(?:night|nights|day|days|evening)\s+(?:do|am)\s+i\s+(?:usually\s+|normally\s+)?"
        r"(?:go\s+|do\s+|have\s+)?([\w-]+)",
        q,
    )
    if m and m.group(1) not in ("in",):
        return PersonalQuery("schedule", subject=m.group(1), template=f"{m.group(1).capitalize()}: {{value}}.")
    if re.fullmatch(
        r"(?:which|what)\s+days?\s+(?:am|do)\s+i\s+(?:usually\s+)?(?:in|go\s+(?:in)?to)\s+the\s+office"
        r"|when\s+am\s+i\s+in\s+the\s+office",
        q,
    ):
        return PersonalQuery("schedule", subject="office", template="You are in the office {value}.")
    m = re.fullmatch(
        r"(?:which|what)\s+([\w\s-]+?)\s+do\s+i\s+(?:like\s+to\s+use|prefer|use|like|usually\s+use|"
        r"prefer\s+to\s+use)|what's\s+my\s+(?:favou?rite|preferred)\s+([\w\s-]+)",
        q,
    )
    if m:
        cat = (m.group(1) or m.group(2) or "").strip()
        key = CATEGORY_ALIASES.get(cat)
        if key:
            return PersonalQuery("likes", kind=key, template=f"Your preferred {cat} is {{value}}.")
        return None
    m = re.fullmatch(
        rf"where\s+did\s+(?:i|we)\s+(?:spend|have|celebrate)\s+({'|'.join(map(re.escape, HOLIDAYS))})"
        r"(?:\s+this\s+year|\s+last\s+year)?|where\s+was\s+i\s+(?:for|at|on)\s+"
        rf"({'|'.join(map(re.escape, HOLIDAYS))})",
        q,
    )
    if m:
        holiday = HOLIDAYS[m.group(1) or m.group(2)]
        return PersonalQuery("holiday_in", subject=holiday, template=f"You spent {holiday.capitalize()} in {{value}}.")
    if re.fullmatch(
        r"(?:what|which\s+\w+)\s+am\s+i\s+allergic\s+to|am\s+i\s+allergic\s+to\s+anything|"
        r"what\s+are\s+my\s+allergies|do\s+i\s+have\s+(?:any\s+)?allergies",
        q,
    ):
        return PersonalQuery("allergy", template="You are allergic to {value}.")
    return None


# ---------------------------------------------------------------------------------------------
# Lookup.


@dataclass
class _Agg:
    subject: str
    relation: str
    value: str
    confidence: float = 0.0
    ts: str = ""
    facts: list[KnownFact] = field(default_factory=list)


def _aggregate(facts: Iterable[KnownFact]) -> list[_Agg]:
    groups: dict[tuple[str, str, str], _Agg] = {}
    for f in facts:
        key = (f.subject.lower(), f.relation, f.object.lower())
        g = groups.get(key)
        if g is None:
            g = groups[key] = _Agg(f.subject.lower(), f.relation, f.object)
        g.confidence = 1 - (1 - g.confidence) * (1 - max(0.0, min(1.0, f.confidence)))
        if f.ts >= g.ts:
            g.ts = f.ts
            if f.object != f.object.lower() or g.value == g.value.lower():
                g.value = f.object
        g.facts.append(f)
    return list(groups.values())


def _bar(relation: str) -> float:
    return PEOPLE_BAR if relation in PEOPLE_RELATIONS else OTHER_BAR


def _pick(cands: list[_Agg], relation: str) -> list[_Agg]:
    """The values to answer with: newest for a changing relation; none when one-valued and contested."""
    ok = [c for c in cands if c.confidence >= _bar(relation)]
    if not ok:
        return []
    if relation in CHANGING:
        return [max(ok, key=lambda c: (c.ts, c.confidence))]
    ok.sort(key=lambda c: -c.confidence)
    if relation in ONE_VALUED:
        rivals = [
            c
            for c in cands
            if c is not ok[0] and c.value.lower() != ok[0].value.lower() and c.confidence >= 0.5 * ok[0].confidence
        ]
        return [] if rivals else ok[:1]
    return ok


def _first(name: str) -> str:
    return name.lower().split()[0] if name.strip() else ""


def _matches(name: str, wanted: str) -> bool:
    n, w = name.lower(), wanted.lower()
    return n == w or (len(w.split()) == 1 and _first(n) == w)


def answer_personal(query: PersonalQuery, facts: Sequence[KnownFact]) -> PersonalAnswer | None:
    """Answer a parsed personal question from known facts, or None (abstain)."""
    aggs = _aggregate(facts)
    if query.reverse is not None:
        return _reverse(query, aggs)
    if query.relation == "occupation" and query.kind and query.kind.startswith("role:"):
        return _by_role(query.kind[5:], aggs)
    subjects = [query.subject]
    if query.via:
        subjects = _follow(query.via, aggs)
        if len(query.via) == 1:
            subjects = [*subjects, f"user:{query.via[-1]}"]
    relations = {query.relation}
    if query.relation == "lives_in":
        relations = {"lives_in", "moved_to"}
    cands = [a for a in aggs if a.relation in relations and any(_matches(a.subject, s) for s in subjects)]
    if query.relation == "lives_in":
        merged: dict[str, _Agg] = {}
        for c in cands:
            m = merged.setdefault(c.value.lower(), _Agg(c.subject, "lives_in", c.value))
            m.confidence = 1 - (1 - m.confidence) * (1 - c.confidence)
            m.ts = max(m.ts, c.ts)
            m.facts.extend(c.facts)
        cands = list(merged.values())
    if query.relation == "pet":
        people = {a.value.lower() for a in aggs if a.subject == "user" and a.relation in PEOPLE_RELATIONS}
        cands = [c for c in cands if c.value.lower() not in people]
    if query.relation == "pet" and query.kind:
        kinds = {a.subject: _kind_of(a.value) for a in aggs if a.relation == "pet_kind" and a.confidence >= OTHER_BAR}
        cands = [c for c in cands if kinds.get(c.value.lower()) == query.kind]
    if query.relation == "pet_kind":
        cands = [c for c in cands if (c.value.lower() in PET_BREEDS) == (query.kind == "breed")]
    if query.relation == "likes" and query.kind:
        members = TOOL_CATEGORIES.get(query.kind, frozenset())
        cands = [c for c in cands if c.value.lower() in members]
    if query.relation in ("son", "daughter", "child"):
        cands = _children(query.relation, aggs)
    picked = _pick(cands, query.relation)
    if not picked:
        return None
    value = " and ".join(p.value for p in picked)
    conf = min(p.confidence for p in picked)
    used = tuple(f for p in picked for f in p.facts)
    return PersonalAnswer(query.template.format(value=value, name=value, relation=query.relation), value, conf, used)


def _children(relation: str, aggs: list[_Agg]) -> list[_Agg]:
    """A son or daughter: gendered mentions plus ungendered "child" mentions of the same name, never a
    name that is also said to be another relative (a niece), nor one said to be both son and daughter."""
    explicit = {
        a.value.lower()
        for a in aggs
        if a.subject == "user"
        and a.relation in PEOPLE_RELATIONS
        and a.relation not in ("son", "daughter", "child")
        and a.confidence >= 0.5
    }
    other = {"son": "daughter", "daughter": "son"}.get(relation)
    by_name: dict[str, _Agg] = {}
    for a in aggs:
        if a.subject != "user" or a.relation not in ("son", "daughter", "child") or a.value.lower() in explicit:
            continue
        g = by_name.setdefault(a.value.lower(), _Agg("user", relation, a.value))
        g.confidence = 1 - (1 - g.confidence) * (1 - a.confidence)
        g.ts = max(g.ts, a.ts)
        g.facts.extend(a.facts)
    out: list[_Agg] = []
    for g in by_name.values():
        rels = {f.relation for f in g.facts}
        if other and other in rels:
            continue
        if relation == "child" or relation in rels:
            out.append(g)
    return out


def _kind_of(value: str) -> str:
    return PETS.get(value.lower(), value.lower())


def _follow(via: tuple[str, ...], aggs: list[_Agg]) -> list[str]:
    names = ["user"]
    for rel in via:
        nxt: list[str] = []
        for n in names:
            cands = [a for a in aggs if a.relation == rel and _matches(a.subject, n)]
            nxt.extend(p.value.lower() for p in _pick(cands, rel))
        names = nxt
    return names


def _same_person(value: str, name: str, aggs: list[_Agg]) -> bool:
    """`value` names `name`: the same name, or the first name alone ("Owen" for "Owen Pratt") when the
    person never spoke of anyone else by that first name."""
    if _matches(value, name):
        return True
    if len(value.split()) != 1 or len(name.split()) < 2 or _first(name) != value.lower():
        return False
    others = {
        a.value.lower()
        for a in aggs
        if a.subject == "user" and a.relation in PEOPLE_RELATIONS and _first(a.value) == value.lower()
    }
    return others <= {value.lower(), name.lower()}


def _reverse(query: PersonalQuery, aggs: list[_Agg]) -> PersonalAnswer | None:
    name = query.reverse or ""
    rels: dict[str, _Agg] = {}
    for a in aggs:
        if a.subject == "user" and a.relation in PEOPLE_RELATIONS and _same_person(a.value, name, aggs):
            cur = rels.get(a.relation)
            if cur is None:
                rels[a.relation] = _Agg(a.subject, a.relation, a.value, a.confidence, a.ts, list(a.facts))
            else:
                cur.confidence = 1 - (1 - cur.confidence) * (1 - a.confidence)
                if len(a.value) > len(cur.value):
                    cur.value = a.value
                cur.facts.extend(a.facts)
    ok = sorted((r for r in rels.values() if r.confidence >= PEOPLE_BAR), key=lambda r: -r.confidence)
    if ok:
        top = ok[0]
        if (
            len(ok) > 1
            and ok[1].confidence >= 0.8 * top.confidence
            and {top.relation, ok[1].relation} - {"friend", "family_friend", "neighbour", "colleague"}
        ):
            return None
        text = f"{display(top.value)} is your {_phrase(top.relation)}."
        return PersonalAnswer(text, _phrase(top.relation), top.confidence, tuple(top.facts))
    pets = [a for a in aggs if a.subject == "user" and a.relation == "pet" and _matches(a.value, name)]
    pets = [p for p in pets if p.confidence >= OTHER_BAR]
    if pets:
        kinds = [
            a for a in aggs if a.relation == "pet_kind" and _matches(a.subject, name) and a.confidence >= OTHER_BAR
        ]
        kind = kinds[0].value if kinds else "pet"
        return PersonalAnswer(
            f"{display(pets[0].value)} is your {kind}.", kind, pets[0].confidence, tuple(pets[0].facts)
        )
    # A first name alone never picks out a person only known by full name here: two people may share it.
    occ = [a for a in aggs if a.relation == "occupation" and a.subject == name.lower()]
    picked = _pick(occ, "occupation")
    if picked and picked[0].confidence >= PEOPLE_BAR:
        p = picked[0]
        return PersonalAnswer(f"{display(p.subject)}: {p.value}.", p.value, p.confidence, tuple(p.facts))
    return None


def _by_role(role: str, aggs: list[_Agg]) -> PersonalAnswer | None:
    want = [w for w in role.lower().split() if w not in ("the", "our", "my", "team")]
    if not want:
        return None
    cands = [
        a
        for a in aggs
        if a.relation == "occupation"
        and all(w in a.value.lower() for w in want)
        and re.search(r"\b(lead|head|manager|director|pm)\b", a.value.lower())
    ]
    cands = [c for c in cands if c.confidence >= PEOPLE_BAR]
    if not cands:
        return None
    newest = max(cands, key=lambda c: (c.ts, c.confidence))
    text = f"{display(newest.subject)} is the {newest.value}."
    return PersonalAnswer(text, display(newest.subject), newest.confidence, tuple(newest.facts))

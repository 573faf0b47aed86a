"""The fast path's question rules: personal questions mapped to fact lookups (by the grammar of
`personal_grammar`), and the lookup itself.

Guarantees:
- `answer_personal` answers only from facts at or above the bar: 0.6 for who someone is to the
  person (ADR 0034 amendment 5), 0.5 for other facts; for a value that changes over time the
  newest statement wins; two different values for a one-valued relation (a wife, a father) with
  comparable support mean no answer; a relation group ("spouse") is one-valued across its members; a
  chain of relations that reaches two people ("my kid's school" with two children) means no answer;
  a street address is only a value with a number in it. No answer is always preferred to a doubtful one.
Pure functions: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..read.relations import (
    CHANGING,
    PEOPLE_RELATIONS,
    PET_BREEDS,
    PETS,
    RELATION_GROUPS,
    TOOL_CATEGORIES,
    display,
)
from .personal_grammar import PersonalQuery, parse_personal_question, relation_phrase

__all__ = ["KnownFact", "PersonalAnswer", "PersonalQuery", "answer_personal", "parse_personal_question"]

PEOPLE_BAR = 0.6
OTHER_BAR = 0.5
ONE_VALUED = frozenset({"spouse", "wife", "husband", "partner", "fiance", "mother", "father", "boss"})


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
    return PEOPLE_BAR if relation in PEOPLE_RELATIONS or relation in RELATION_GROUPS else OTHER_BAR


def _members(relation: str) -> frozenset[str]:
    """The stored relations a question's relation covers: "spouse" is a wife, husband or partner."""
    return RELATION_GROUPS.get(relation, frozenset({relation}))


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
        subjects = _follow(query.via, aggs, query.subject)
        if len(subjects) > 1 and query.relation not in PEOPLE_RELATIONS:
            return None  # "where does my kid go to school" with two kids: which one is asked about
        if len(query.via) == 1 and query.subject == "user":
            subjects = [*subjects, *(f"user:{r}" for r in _members(query.via[-1]))]
    relations = set(_members(query.relation))
    if query.relation == "lives_in":
        relations = {"lives_in", "moved_to"}
    cands = [a for a in aggs if a.relation in relations and any(_matches(a.subject, s) for s in subjects)]
    if query.relation == "lives_in":
        cands = _merged(cands)
    if query.kind == "address":  # a street address, never a city or a neighbourhood
        cands = [c for c in cands if re.search(r"\d", c.value)]
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
    if query.relation in ("son", "daughter", "child") and query.subject == "user" and not query.via:
        cands = _children(query.relation, aggs)
    picked = _pick(cands, query.relation)
    if not picked:
        return None
    value = " and ".join(p.value for p in picked)
    conf = min(p.confidence for p in picked)
    used = tuple(f for p in picked for f in p.facts)
    template = query.template
    if query.relation in ("car", "laptop") and value[:1].lower() in tuple("aeio"):  # "an Octavia", not "an Uber"
        template = template.replace(" a {value}", " an {value}")
    return PersonalAnswer(template.format(value=value, name=value, relation=query.relation), value, conf, used)


def _merged(cands: list[_Agg]) -> list[_Agg]:
    """Where someone lives: "lives in" and "moved to" mentions of one place count together."""
    merged: dict[str, _Agg] = {}
    for c in cands:
        m = merged.setdefault(c.value.lower(), _Agg(c.subject, "lives_in", c.value))
        m.confidence = 1 - (1 - m.confidence) * (1 - c.confidence)
        m.ts = max(m.ts, c.ts)
        m.facts.extend(c.facts)
    return list(merged.values())


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


def _follow(via: tuple[str, ...], aggs: list[_Agg], start: str = "user") -> list[str]:
    """The names a chain of relations leads to from `start` ("user", or a lowercase name)."""
    names = [start]
    for rel in via:
        nxt: list[str] = []
        for n in names:
            if n == "user" and rel in ("son", "daughter", "child"):
                picked = _children(rel, aggs)
            else:
                cands = [a for a in aggs if a.relation in _members(rel) and _matches(a.subject, n)]
                picked = _pick(cands, rel)
            nxt.extend(p.value.lower() for p in picked if p.value.lower() not in nxt)
        names = nxt
    return names


def _same_person(value: str, name: str, aggs: list[_Agg]) -> bool:
    """`value` names `name`: the same name, or the first name alone ("Tovah" for "Tovah Brennick") when the
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
        text = f"{display(top.value)} is your {relation_phrase(top.relation)}."
        return PersonalAnswer(text, relation_phrase(top.relation), top.confidence, tuple(top.facts))
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

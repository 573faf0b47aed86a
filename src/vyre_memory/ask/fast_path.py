"""The fast path (`memory.answer`): personal questions answered from stored facts, no model, in milliseconds.

Guarantees:
- only facts that passed the trust rules are read (the fact store holds nothing else), and only
  through `parse_personal_question` + `answer_personal`: who someone is to the person is told from
  confidence 0.6, other facts from 0.5, the newest value of a changing fact wins; otherwise the
  result abstains (answer None) and `known` lists short statements memory is sure of that bear on
  the question ("Your son is Emrys." when asked his school);
- an agent scope (`agent_projects`) never gets a personal fact: it abstains with empty `known`;
- with `project_cwds`, facts about other people's work (occupation, colleague, client) count only
  from sessions in those folders; facts about the person's own life are theirs everywhere;
- with `now`, only mentions at or before `now` count (the answer as of that moment);
- who holds a role for the person (manager, colleague, client, doctor, teacher, roommate) is not told once the turn
  of its newest mention or a later one says they leave it (`read.departures`), wherever it was said for the person's
  own roles, in scope for roles of the work: it abstains, and `known` says who held it up to when;
- every answer carries its sources (session, seq, name, quote, ts, uuid) and `via="fact"`;
  the same question over the same facts gives the same result (facts are cached by facts_version).
"""

from __future__ import annotations

import calendar
import re
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import PurePosixPath

from ..contract import ASSISTANT, TYPED, AskResult, Scope, Source
from ..ingest.labels import is_within
from ..read.departures import DEPARTING_ROLES, given_name, leaves
from ..read.derive import ATTRIBUTIONS_KEY, attributions_of
from ..read.losses import lost, names_thing
from ..read.relations import PEOPLE_RELATIONS, display
from ..store.facts import FactMention
from ..store.sqlite import Store, fts_words
from ..text import parse_ts
from .attribution_questions import (
    Said,
    WhoQuery,
    answer_surname,
    answer_who,
    parse_surname_question,
    parse_who_question,
)
from .grounding import ORDINAL_DAY, RELATIVE_DAYS, claims
from .personal_questions import (
    KnownFact,
    PersonalAnswer,
    PersonalQuery,
    answer_personal,
    parse_personal_question,
)
from .understand import asks_current

__all__ = ["FastPath", "iso_now"]

WORK_RELATIONS = frozenset({"occupation", "colleague", "client", "said"})
MAX_SOURCES = 8
# a car, a laptop or a job title, asked as it is now, is not told from a statement older than this: "Not sure.", with
# what was said then. Other changing values are kept longer (a home, a school year, an employer, a boss).
STALE_DAYS = 120
STALE_RELATIONS = frozenset({"car", "laptop", "job_title"})
DEPARTURE_READ = 200  # passages naming a role's holder (since their newest mention) or a thing had, read for its end
OWNED = frozenset({"car", "laptop", "phone"})  # things had until said gone (`lost`)


def _long_before(said: str, now: datetime | str | None) -> bool:
    """Whether a fact said at `said` is more than STALE_DAYS before `now` (the clock's time without one)."""
    then, at = parse_ts(said), parse_ts(iso_now(now or datetime.now(UTC)))
    return then is not None and at is not None and at - then > timedelta(days=STALE_DAYS)


def iso_now(now: datetime | str | None) -> str | None:
    """`now` as a UTC ISO string comparable with stored turn times (seconds precision)."""
    if now is None:
        return None
    if isinstance(now, str):
        now = datetime.fromisoformat(now.replace("Z", "+00:00"))
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True)
class _Loaded:
    version: int
    mentions: tuple[FactMention, ...]


class FastPath:
    """Holds the fact mentions (reloaded only when `facts_version` moves) and answers from them."""

    def __init__(self, store: Store, user_name: str) -> None:
        self.store = store
        self.user_name = user_name
        self._loaded: _Loaded | None = None
        self._said: tuple[str, tuple[FactMention, ...]] | None = None  # (stored rows, as mentions)
        parse_personal_question("what's my wife's name")  # compiles the question rules once, up front

    def _mentions(self) -> tuple[FactMention, ...]:
        version = self.store.facts_version()
        if self._loaded is None or self._loaded.version != version:
            self._loaded = _Loaded(version, tuple(self.store.fact_mentions()))
        return self._loaded.mentions

    def answer(self, question: str, *, scope: Scope | None = None, now: datetime | str | None = None) -> AskResult:
        started = time.perf_counter()
        scope = scope or Scope()
        if not scope.personal_allowed:
            return _result(None, 0.0, (), (), started, {"parse": 0.0})
        query = parse_personal_question(question)
        parsed_at = time.perf_counter()
        if query is None:
            who = parse_who_question(question)
            if who is not None:
                return self._who(who, scope, now, started, parsed_at)
            first = parse_surname_question(question)
            if first is not None:
                return self._surname(first, scope, now, started, parsed_at)
            return _result(None, 0.0, (), (), started, {"parse": _ms(started, parsed_at)})
        mentions = self._visible(scope, iso_now(now))
        known = [
            KnownFact(m.subject, m.relation, _dated(m), m.confidence, m.ts or "", str(i))
            for i, m in enumerate(mentions)
        ]
        ans = answer_personal(query, known)
        looked_at = time.perf_counter()
        timings = {"parse": _ms(started, parsed_at), "lookup": _ms(parsed_at, looked_at)}
        if ans is None:
            return _result(None, 0.0, tuple(_known(query, known)), (), started, timings)
        roles_scope = scope if query.relation in WORK_RELATIONS else Scope()  # the person's own roles: said anywhere
        ended = self._ended(ans, query.relation, roles_scope, now)
        if ended is not None:
            # who held the role has said since that they leave it, or the thing had is gone: what was known, not
            # today's answer
            return _result(None, 0.0, (f"Up to {ended[0][:10]}: {ans.text} {ended[1]}",), (), started, timings)
        said = max((f.ts for f in ans.facts), default="")
        if query.relation in STALE_RELATIONS and asks_current(question) and _long_before(said, now):
            # a value that changes, asked as it is now, last said months ago: what was said then, not today's answer
            return _result(None, 0.0, (f"As of {said[:10]}: {ans.text}",), (), started, timings)
        sources = self._sources(ans, mentions)
        quoted = " ".join(src.quote for src in sources).lower()
        # told in words the sources say: a phrasing that names what no quote holds falls back to the value
        text = ans.text if all(c.lower() in quoted for c in claims(ans.text)) else ans.value
        return _result(text, ans.confidence, (), sources, started, timings)

    def _who(
        self, query: WhoQuery, scope: Scope, now: datetime | str | None, started: float, parsed_at: float
    ) -> AskResult:
        """Who said, asked or did what, from the attributions the person typed."""
        mentions = self._visible(scope, iso_now(now), self._attributions())
        said = [
            Said(
                KnownFact(m.subject, m.relation, m.object, m.confidence, m.ts or "", str(i)),
                m.quote,
                PurePosixPath(m.cwd).name if m.cwd else "",
            )
            for i, m in enumerate(mentions)
        ]
        ans = answer_who(query, said)
        timings = {"parse": _ms(started, parsed_at), "lookup": _ms(parsed_at, time.perf_counter())}
        if ans is None:
            return _result(None, 0.0, (), (), started, timings)
        return _result(ans.text, ans.confidence, (), self._sources(ans, mentions), started, timings)

    def _surname(
        self, first: str, scope: Scope, now: datetime | str | None, started: float, parsed_at: float
    ) -> AskResult:
        """Someone's full name, from the full names the person wrote (facts and who-said-what) in scope."""
        mentions = self._visible(scope, iso_now(now)) + self._visible(scope, iso_now(now), self._attributions())
        named: list[tuple[str, KnownFact]] = []
        for i, m in enumerate(mentions):
            fact = KnownFact(m.subject, m.relation, m.object, m.confidence, m.ts or "", str(i))
            if m.subject not in ("", "user") and not m.subject.startswith("user:"):
                named.append((m.subject, fact))
            if m.relation in PEOPLE_RELATIONS:
                named.append((m.object, fact))
        ans = answer_surname(first, named)
        timings = {"parse": _ms(started, parsed_at), "lookup": _ms(parsed_at, time.perf_counter())}
        if ans is None:
            return _result(None, 0.0, (), (), started, timings)
        return _result(ans.text, ans.confidence, (), self._sources(ans, mentions), started, timings)

    def _ended(
        self, ans: PersonalAnswer, relation: str, scope: Scope, now: datetime | str | None
    ) -> tuple[str, str] | None:
        """(the newest mention of a value of the answer, what was said) when, not after `now`, a holder of a role
        says they leave it (`leaves`, in the turn of that mention or after it), or the person says in their own words
        that the thing they had is gone (`lost`: by the noun of its kind, "the car got written off", after that
        mention; by its name, after it was first named at all, for "the corolla" said while the insurance sorts it out
        is still the one written off); None when nothing is. Each value is looked at ("Ana and Bram"): the answer
        names them all."""
        role = relation in DEPARTING_ROLES
        if not role and relation not in OWNED:
            return None
        until = f"{iso_now(now)}Z" if now is not None else None  # stored times end ".000Z": one at `now` counts
        newest: dict[str, str] = {}
        for f in ans.facts:
            newest[f.object] = max(newest.get(f.object, ""), f.ts)
        for value, since in newest.items():
            words = fts_words([given_name(value)] if role else [value, relation])
            if not since or not words:
                continue
            found = self.store.full_text(words, scope, limit=DEPARTURE_READ, since=since if role else None, until=until)
            rows = list(self.store.passages_by_id([pid for pid, _ in found]).values())
            if role:
                if any(r.kind in (TYPED, ASSISTANT) and leaves(r.text, value) for r in rows):
                    return since, f"Said since: {display(given_name(value))} leaves."
                continue
            own = [(r.ts, r.text) for r in rows if r.kind == TYPED and r.ts]
            first = min([since, *(ts for ts, text in own if names_thing(text, value))])
            if any(ts > first and lost(text, value, relation if ts >= since else "") for ts, text in own):
                return since, f"Said: the {relation} is gone."
        return None

    def _attributions(self) -> tuple[FactMention, ...]:
        raw = self.store.get_meta(ATTRIBUTIONS_KEY) or ""
        if self._said is None or self._said[0] != raw:
            self._said = (raw, tuple(attributions_of(self.store)))
        return self._said[1]

    def _visible(
        self, scope: Scope, now: str | None, mentions: tuple[FactMention, ...] | None = None
    ) -> list[FactMention]:
        folders = scope.folders()
        out: list[FactMention] = []
        for m in self._mentions() if mentions is None else mentions:
            if now is not None and (m.ts or "")[:19] > now:
                continue
            if (
                folders is not None
                and m.relation in WORK_RELATIONS
                and not (m.cwd and any(is_within(m.cwd, f) for f in folders))
            ):
                continue
            out.append(m)
        return out

    def _sources(self, ans: PersonalAnswer, mentions: list[FactMention]) -> tuple[Source, ...]:
        picked = sorted({int(f.source) for f in ans.facts}, key=lambda i: (mentions[i].ts or "", i), reverse=True)[
            :MAX_SOURCES
        ]
        return tuple(
            Source(
                mentions[i].session,
                mentions[i].seq,
                self.user_name,
                self._quote(ans.text, mentions[i]),
                mentions[i].ts,
                mentions[i].uuid,
            )
            for i in picked
        )

    def _quote(self, answer: str, m: FactMention) -> str:
        """The fact's sentence, reaching back in its turn to where a name the answer uses was said
        ("juno starts 3rd grade monday … her teacher is ms okafor"), so the quote grounds the answer."""
        missing = [c for c in claims(answer) if c.lower() not in m.quote.lower()]
        if not missing:
            return m.quote
        turns = self.store.turns(m.session, start=m.seq, end=m.seq + 1)
        text = turns[0].text if turns else ""
        end = text.lower().find(m.quote.lower()[:60])
        if end < 0:
            return m.quote
        start = end
        for name in missing:
            at = text.lower().rfind(name.lower(), 0, end)
            if at >= 0:
                dot, newline = text.rfind(". ", 0, at), text.rfind("\n", 0, at)
                start = min(start, max(dot + 2 if dot >= 0 else 0, newline + 1 if newline >= 0 else 0))
        return text[start : end + len(m.quote)].strip() if end - start <= 400 else m.quote


_WAS = re.compile(r"\bbirthday\s+was\b", re.I)


def _dated(m: FactMention) -> str:
    """A birthday said as a day word ("tomorrow's ines's birthday") is the day it names, from the turn's day; so is
    one said by its day of the month alone ("her birthday is on the 9th"): the next such day from the turn's, or the
    last one when it "was"."""
    if m.relation != "birthday":
        return m.object
    said = parse_ts(m.ts) if m.ts else None
    offset = next((days for said_as, days in RELATIVE_DAYS if said_as.fullmatch(m.object.lower())), None)
    day = ORDINAL_DAY.fullmatch(m.object.lower().strip().removeprefix("the ").strip())
    if said is None:
        return m.object
    if offset is not None:
        when = (said + timedelta(days=offset)).date()
    elif day is not None:
        n, today = int(day.group(1)), said.date()
        months = [(today.year + (today.month - 1 + k) // 12, (today.month - 1 + k) % 12 + 1) for k in range(-2, 3)]
        days = [date(y, mo, n) for y, mo in months if n <= calendar.monthrange(y, mo)[1]]
        past = _WAS.search(m.quote) is not None
        near = [d for d in days if (d <= today if past else d >= today)]
        if not near:
            return m.object
        when = max(near) if past else min(near)
    else:
        return m.object
    return f"{when:%B} {when.day}"


def _known(query: PersonalQuery, facts: list[KnownFact]) -> list[str]:
    """Short statements memory is sure of that bear on an unanswered question."""
    out: list[str] = []
    if query.via and query.subject == "user":  # "where does wren's husband live" says nothing of the person's own
        rel = query.via[0]
        hit = answer_personal(PersonalQuery(rel, template=f"Your {rel.replace('_', ' ')} is {{value}}."), facts)
        if hit is not None:
            out.append(hit.text)
    names = [n for n in (query.subject, query.reverse) if n and n != "user" and not n.startswith("user:")]
    for name in names:
        who = answer_personal(PersonalQuery("", subject="", reverse=name, template="{name} is {value}."), facts)
        if who is not None and who.text not in out:
            out.append(who.text)
        shown = display(name)
        for relation, template in _ABOUT.items():
            if relation == query.relation:
                continue
            hit = answer_personal(PersonalQuery(relation, subject=name, template=template.format(name=shown)), facts)
            if hit is not None and hit.text not in out:
                out.append(hit.text)
    near = _NEAR.get(query.relation, {}) if query.subject == "user" and not query.via else {}
    for relation, template in near.items():
        hit = answer_personal(PersonalQuery(relation, template=template), facts)
        if hit is not None and hit.text not in out:
            out.append(hit.text)
    return [s[:1].upper() + s[1:] for s in out[:4] if s]


# What else memory may know about a named person or thing, and about the person near a question.
_ABOUT = {
    "occupation": "{name}: {{value}}.",
    "teacher": "{name}'s teacher is {{value}}.",
    "school": "{name} goes to {{value}}.",
    "lives_in": "{name} lives in {{value}}.",
    "pet_kind": "{name} is a {{value}}.",
}
_NEAR = {
    "home_city": {"lives_in": "You live in {value}."},
    "lives_in": {"grew_up_in": "You grew up in {value}."},
    "job_title": {"employer": "You work at {value}."},
    "employer": {"job_title": "You are a {value}."},
}


def _ms(a: float, b: float) -> float:
    return round((b - a) * 1000, 3)


def _result(
    answer: str | None,
    confidence: float,
    known: tuple[str, ...],
    sources: tuple[Source, ...],
    started: float,
    timings: dict[str, float],
) -> AskResult:
    latency = round((time.perf_counter() - started) * 1000, 3)
    if answer is None:
        return AskResult(None, 0.0, True, known, (), None, latency, 0.0, timings)
    return AskResult(answer, round(confidence, 4), False, (), sources, "fact", latency, 0.0, timings)

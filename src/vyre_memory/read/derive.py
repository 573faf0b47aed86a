"""Deriving the personal-fact set from the stored turns: the reader's write side.

Guarantees:
- a fact comes only from a turn `judge_turn` accepts (the person's own typed words in a session a
  person ran; a paste announced by the person's previous message is refused), read by `extract`,
  or from an assistant guess that the very next typed turn confirms (`confirmed_facts`), sourced
  to that typed turn; no other turn is ever a fact's source;
- the id of a fact is the fact itself: sha256 of its normalised subject|relation|object, so a
  re-derive keeps ids; a fact's confidence grows with independent mentions (one per turn,
  1 - prod(1 - c), capped at 0.99) and it keeps first and last seen;
- for a value that changes over time (CHANGING relations; a move and where one lives are one
  value) the newest confident value is "current" and older ones are kept as "past" history;
- a (fact, turn) pair the person deleted is never derived again; a new turn saying it again is;
- deterministic: the same turns and deletions give the same facts, ids, confidences and order,
  and the whole set is written in one transaction;
- bounded: only the first READ_LIMIT characters of a typed turn are read (its trust is judged on
  the whole text);
- an optional `reader` (the model reader) sees only the own sentences of a trusted turn that the rules
  read too (`own_sentences` + `judge_sentence`, one per line), never any other turn; its candidates are
  merged with the rules' for that turn (a fact the rules read wins), stored with via "model", and their
  confidence is capped at MODEL_CONFIDENCE_CAP, so a fact only the model read needs a second mention to
  pass the bar for who someone is;
- who said or asked what ("yusra reports ...", `attributions`) is read from the same trusted turns but
  never becomes a fact: it is kept beside them (`attributions_of`), for who-said questions only;
- the asides (`asides_of`): the trusted typed turns of a coding agent's sessions (`AGENT_FORMATS`) whose own
  sentences speak of the person's life (`speaks_of_life`), whether or not a rule read a fact from them, kept
  beside the facts as (session, seq) for retrieval to search among; a store derived before they were kept is
  derived whole once, so it has them too; with an embedder, the other trusted typed turns of those sessions
  with a clause likely of a life (`read.life`) are kept the same way, as likely asides (a derive without one
  leaves its turns unplaced, so the next derive with one reads every turn again). MiniLM's int8 path scales
  each batch, so a long clause right at the margin may fall the other way in a full derive than in an
  incremental one;
- the moments (`moments_of`) of a coding agent's sessions: the releases, the typed, assistant and tool-call turns
  that ask for, report or run a release or deploy (`read.releases`); the incidents, the typed and assistant
  turns that report a problem or say what caused it (`read.incidents`); the decisions, the turns that take,
  settle or write one down (`read.decisions`); the changes, the tool calls that edit a value in a file
  (`read.changes`); each with its time and key text, kept beside the facts for
  retrieval's lists of them; a store derived before any kind was kept is derived whole once;
- a store derived by older readers than these (`READERS_VERSION`: an older release's) is derived whole once, so
  what a reader finds now replaces what the older one found, not only in turns written since;
- with an embedder, the clauses of the assistant's replies to an aside that likely speak of a life
  (`aside_replies_of`), found again in every session this derive read turns of, for an agent never to see; a
  derive without the embedder keeps them as they were.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
import unicodedata
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..contract import AGENT_FORMATS, AGENT_PROMPT, ASSISTANT, THINKING, TOOL_CALL, TYPED, FactSource, Turn
from ..store.facts import FactMention, NewFact
from ..store.sqlite import Store
from .asides import speaks_of_life
from .attribution import ATTRIBUTION_CONFIDENCE, attributions
from .changes import change_in
from .decisions import decision_in
from .incidents import incident_in
from .life import Embed, likely_life, unworded_clauses
from .moments import Moment, MomentReader, moments_in
from .partner import partner_cues
from .relations import CHANGING, PEOPLE_RELATIONS, RELATIONS
from .releases import release_in
from .rules import FactCandidate, confirmed_facts, extract
from .trust import judge_sentence, judge_turn, own_sentences

__all__ = [
    "CHANGES",
    "DECISIONS",
    "INCIDENTS",
    "MODEL_CONFIDENCE_CAP",
    "MOMENT_KINDS",
    "RELEASES",
    "DeriveReport",
    "MomentKind",
    "Reader",
    "aside_replies_of",
    "asides_of",
    "derive_facts",
    "fact_id",
    "moments_of",
    "moments_version",
    "needs_placing",
    "partner_cues_of",
    "read_mentions",
    "reader_text",
    "readers_changed",
]

CONFIDENCE_CAP = 0.99
READ_LIMIT = 10_000  # characters of a typed turn read for facts (the rules are slow on huge unbroken pastes)
PEOPLE_BAR = 0.6
OTHER_BAR = 0.5
ATTRIBUTIONS_KEY = "attributions.v1"  # the store meta key holding who said what (never facts)
PARTNER_CUES_KEY = "partner-cues.v1"  # ... and the cues of who the person's partner is (`read.partner`, never facts)
ASIDES_KEY = "asides.v1"  # the store meta key holding the turns where the person speaks of their life
LIKELY_ASIDES_KEY = "likely-asides.v1"  # ... and the turns where they likely do (`read.life`), the others aside
ASIDE_REPLIES_KEY = "aside-replies.v1"  # ... and the clauses of the assistant's replies to either that speak of it
_REPLY_KINDS = frozenset({ASSISTANT, THINKING})
REPLY_REACH = 200  # turns after an aside looked at for its replies (tool calls and their output come between)
FIRST_REACH = 50  # turns of a session looked at for the person's first request (a moment's key names it)
UNPLACED_KEY = "life-unplaced.v1"  # "1": a derive without the embedder ran since the last with it
READERS_KEY = "readers.v1"  # the READERS_VERSION of the last derive: an older one's store is derived whole once
# Raised with every change to what a reader finds (rules, kin words, moments' cues): a store derived by older readers
# is derived whole once at the next ingest. Session 32: cars by model alone, and not one test-driven or sold. Session
# 34: a birthday by its day of the month or a relative's, no home ending in a possessive ("moving to ani's ..."), and
# an in-law is not the relative ("baba (my father-in-law)"). Session 39: "got engaged to NAME" and "i'm married to NAME"
# name the person's fiance and spouse; a contraction's tail ("they're") is no name.
READERS_VERSION = 14
MODEL_CONFIDENCE_CAP = 0.55  # below PEOPLE_BAR: one model-only mention never says who someone is
_SAME_VALUE = {"moved_to": "lives_in"}  # a move and where one lives are the same changing value


@dataclass(frozen=True)
class MomentKind:
    """A kind of moment derive keeps (`moments_of`): where, and what finds them."""

    name: str  # the count of them found by a derive, in its report
    key: str  # the store meta key holding them
    version_key: str  # ... and a short hash of them: read for each question, the list rebuilt when it changed
    read: MomentReader  # one turn's moment, given what each session was asked first
    calls: bool  # whether tool calls are read too (a release command), not only typed and assistant turns
    failed_calls: bool = True  # whether a tool call whose output reports an error is a moment still


RELEASES = MomentKind("releases", "releases.v1", "releases-version.v1", release_in, calls=True)
INCIDENTS = MomentKind("incidents", "incidents.v1", "incidents-version.v1", incident_in, calls=False)
DECISIONS = MomentKind("decisions", "decisions.v1", "decisions-version.v1", decision_in, calls=True)
# an edit the tool refused (its old text not found, the file not read first) changed nothing
CHANGES = MomentKind("changes", "changes.v1", "changes-version.v1", change_in, calls=True, failed_calls=False)
MOMENT_KINDS = (RELEASES, INCIDENTS, DECISIONS, CHANGES)


def _norm(value: str) -> str:
    return " ".join(unicodedata.normalize("NFC", value).replace("’", "'").lower().split())


def fact_id(subject: str, relation: str, obj: str) -> str:
    """The fact itself as an id: sha256 of normalised subject|relation|object (hex)."""
    return hashlib.sha256(f"{_norm(subject)}|{_norm(relation)}|{_norm(obj)}".encode()).hexdigest()


Reader = Callable[[str], list[FactCandidate]]


def readers_changed(store: Store) -> bool:
    """Whether the store's facts, asides and moments were derived by older readers than these (`READERS_VERSION`), or
    never: the next derive reads every turn. A store derived by newer readers (another machine's newer release
    sharing it) is not derived again by these."""
    stored = store.get_meta(READERS_KEY) or ""
    return (int(stored) if stored.isdigit() else 0) < READERS_VERSION


def reader_text(text: str) -> str:
    """What the model reader is shown of a trusted typed turn: the own sentences the rules read, one per line."""
    return "\n".join(s.text for s in own_sentences(text[:READ_LIMIT]) if judge_sentence(s.text).ok)


@dataclass(frozen=True)
class Mention:
    """One fact read from one trusted turn."""

    fact: str
    candidate: FactCandidate
    turn: Turn
    via: str  # "typed" | "confirmed" | "model"


@dataclass
class DeriveReport:
    turns_read: int = 0
    turns_trusted: int = 0
    mentions: int = 0
    facts: int = 0
    suppressed: int = 0
    model_mentions: int = 0
    changed: bool = False
    facts_version: int = 0
    clauses_placed: int = 0  # the person's clauses with no life word compared with a life's (read.life) ...
    likely_asides: int = 0  # ... and the turns of them found likely of a life
    releases: int = 0  # turns read now that did, reported or asked for a release or deploy (read.releases)
    incidents: int = 0  # ... and that reported a problem or said what caused it (read.incidents)
    decisions: int = 0  # ... and that took, settled or wrote down a decision (read.decisions)
    changes: int = 0  # ... and the tool calls that changed a value in a file (read.changes)
    seconds: float = 0.0
    refused: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def read_mentions(
    turns: Iterable[Turn],
    report: DeriveReport | None = None,
    reader: Reader | None = None,
    reader_skip: Collection[int] = (),
    said: list[Mention] | None = None,
    asides: list[Turn] | None = None,
    unworded: list[tuple[Turn, str]] | None = None,
    partners: list[tuple[Turn, str, int]] | None = None,
) -> list[Mention]:
    """Every fact mention in `turns` (typed and assistant turns, each session's in seq order); with `reader`,
    also what it reads in each trusted turn's own sentences (a fact the rules read in that turn wins), except
    in the turns whose ids are in `reader_skip`. With `said`, the attributions in each trusted turn
    ("yusra reports ...") are appended to it; they are never facts. With `asides`, each trusted turn whose own
    sentences speak of someone's life is appended to it; with `unworded`, each other trusted turn's clauses that
    may yet (`read.life.unworded_clauses`), as (turn, clause). With `partners`, each cue of a partner in a trusted
    turn (`read.partner.partner_cues`), as (turn, name, points)."""
    report = report if report is not None else DeriveReport()
    prev_typed: dict[str, str] = {}
    prev_assistant: dict[str, str] = {}
    out: list[Mention] = []
    for t in turns:
        if t.kind == ASSISTANT:
            prev_assistant[t.session] = t.text
            continue
        if t.kind != TYPED:
            continue
        report.turns_read += 1
        previous = prev_typed.get(t.session)
        verdict = judge_turn(t.kind, t.session_kind, t.text, previous_text=previous)
        prev_typed[t.session] = t.text
        guess = prev_assistant.pop(t.session, "")
        if not verdict.ok:
            key = verdict.reason.split(" (")[0]
            report.refused[key] = report.refused.get(key, 0) + 1
            continue
        report.turns_trusted += 1
        if asides is not None and any(speaks_of_life(s.text) for s in own_sentences(t.text[:READ_LIMIT])):
            asides.append(t)
        elif unworded is not None:
            unworded.extend((t, clause) for clause in unworded_clauses(t.text[:READ_LIMIT]))
        seen: set[str] = set()
        for c in extract(t.text[:READ_LIMIT], context=(previous or "")[:READ_LIMIT]):
            seen.add(fact_id(c.subject, c.relation, c.object))
            out.append(Mention(fact_id(c.subject, c.relation, c.object), c, t, "typed"))
        if partners is not None:
            partners.extend((t, name, worth) for name, worth in partner_cues(t.text[:READ_LIMIT]).items())
        if said is not None:  # who said or asked what, as the person reports it: kept apart from the facts
            said.extend(Mention(fact_id(c.subject, c.relation, c.object), c, t, "typed") for c in attributions(t.text))
        own = reader_text(t.text) if reader is not None and t.id not in reader_skip else ""
        if reader is not None and own:
            for c in reader(own):
                fid = fact_id(c.subject, c.relation, c.object)
                if fid in seen or c.relation not in RELATIONS:
                    continue
                seen.add(fid)
                report.model_mentions += 1
                out.append(Mention(fid, replace(c, confidence=min(c.confidence, MODEL_CONFIDENCE_CAP)), t, "model"))
        if guess:
            for c in confirmed_facts(guess, t.text):
                out.append(Mention(fact_id(c.subject, c.relation, c.object), c, t, "confirmed"))
    return out


def _bar(relation: str) -> float:
    return PEOPLE_BAR if relation in PEOPLE_RELATIONS else OTHER_BAR


def build_facts(mentions: Iterable[Mention]) -> list[NewFact]:
    """Aggregate mentions into facts: one source per (fact, turn), confidence from independent turns."""
    per_turn: dict[tuple[str, int], Mention] = {}
    for m in mentions:
        key = (m.fact, m.turn.id)
        cur = per_turn.get(key)
        if cur is None or (m.candidate.confidence, m.via == "typed") > (cur.candidate.confidence, cur.via == "typed"):
            per_turn[key] = m
    by_fact: dict[str, list[Mention]] = {}
    for (fid, _), m in sorted(per_turn.items()):
        by_fact.setdefault(fid, []).append(m)
    facts: list[NewFact] = []
    for fid in sorted(by_fact):
        ms = sorted(by_fact[fid], key=lambda m: (m.turn.ts or "", m.turn.id))
        miss = 1.0
        for m in ms:
            miss *= 1 - max(0.0, min(1.0, m.candidate.confidence))
        conf = round(min(CONFIDENCE_CAP, 1 - miss), 4)
        c0 = ms[-1].candidate
        shown = next(
            (m.candidate.object for m in reversed(ms) if m.candidate.object != m.candidate.object.lower()), c0.object
        )
        sources = tuple(
            FactSource(
                session=m.turn.session,
                seq=m.turn.seq,
                turn=m.turn.id,
                uuid=m.turn.uuids[0] if m.turn.uuids else None,
                quote=m.candidate.quote,
                ts=m.turn.ts,
                confidence=m.candidate.confidence,
                via=m.via,
            )
            for m in ms
        )
        stamps = [m.turn.ts for m in ms if m.turn.ts]
        facts.append(
            NewFact(
                id=fid,
                subject=_norm(c0.subject),
                relation=c0.relation,
                object=shown,
                confidence=conf,
                first_ts=min(stamps) if stamps else None,
                last_ts=max(stamps) if stamps else None,
                status="current",
                sources=sources,
            )
        )
    return _mark_history(facts)


def _mark_history(facts: list[NewFact]) -> list[NewFact]:
    """Older values of a changing relation become "past" once a newer confident value exists."""
    groups: dict[tuple[str, str], list[NewFact]] = {}
    for f in facts:
        if f.relation in CHANGING:
            groups.setdefault((f.subject, _SAME_VALUE.get(f.relation, f.relation)), []).append(f)
    past: set[str] = set()
    for members in groups.values():
        confident = [f for f in members if f.confidence >= _bar(f.relation)]
        if not confident:
            continue
        newest = max(confident, key=lambda f: (f.last_ts or "", f.confidence, f.id))
        for f in members:
            if (
                f.id != newest.id
                and f.object.lower() != newest.object.lower()
                and (f.last_ts or "") <= (newest.last_ts or "")
            ):
                past.add(f.id)
    return [replace(f, status="past") if f.id in past else f for f in facts]


def _stored(store: Store) -> list[Mention]:
    """The mentions already stored, as the derive that wrote them saw them."""
    out: list[Mention] = []
    for fid, subject, relation, obj, turn, session, seq, uuid, quote, ts, conf, via in store.stored_mentions():
        t = Turn(turn, session, seq, (uuid,) if uuid else (), "user", TYPED, "", "", ts, "interactive", None)
        out.append(Mention(fid, FactCandidate(subject, relation, obj, conf, quote, (0, 0)), t, via))
    return out


def _new_turns(store: Store, after: int) -> tuple[list[Turn], set[int]]:
    """Turns after `after`, each session's preceded by the stored turns that set its reading state
    (the person's previous typed turn and the assistant turns after it); ids of those to skip."""
    fresh = list(store.iter_turns(kinds=[TYPED, ASSISTANT], after_id=after))
    first: dict[str, int] = {}
    for t in fresh:
        first[t.session] = min(first.get(t.session, t.seq), t.seq)
    seed_ids: set[int] = set()
    for session, seq in first.items():
        for tid, _, kind in store.turns_before(session, seq, [TYPED, ASSISTANT]):
            seed_ids.add(tid)
            if kind == TYPED:
                break
    seeded = [t for sid in sorted(first) for t in store.turns(sid, start=0, end=first[sid]) if t.id in seed_ids]
    turns = sorted([*seeded, *fresh], key=lambda t: (t.session, t.seq))
    return turns, seed_ids


def derive_facts(
    store: Store,
    user_name: str = "",
    *,
    incremental: bool = False,
    reader: Reader | None = None,
    embed: Embed | None = None,
) -> DeriveReport:
    """Derive the facts from the stored turns and write the whole set in one transaction.

    Full (the default): every typed and assistant turn is read again. `incremental`: only turns
    after the last derived one are read and merged with the stored mentions; it gives the same
    facts as a full derive. `user_name` is accepted for symmetry with the other readers (sources
    name the person at read time). `reader` (optional, the model reader) reads each trusted turn's own
    sentences too; only the turns this derive reads are given to it. `embed` (the default embedder's) places the
    clauses of a turn that speak of no life by word (`read.life`): the turns with one likely of a life are kept
    as likely asides.
    """
    started = time.perf_counter()
    report = DeriveReport()
    # a store derived by older readers, or before the asides (or, with an embedder, the likely asides and replies)
    # were kept, is derived whole once
    kept_before = (
        not readers_changed(store)
        and store.get_meta(ASIDES_KEY) is not None
        and store.get_meta(PARTNER_CUES_KEY) is not None
        and all(store.get_meta(kind.key) is not None for kind in MOMENT_KINDS)
        and (embed is None or not needs_placing(store))
    )
    after = store.derived_turn() if incremental and kept_before else 0
    if after:
        turns, skip = _new_turns(store, after)
        if not turns:  # no typed or assistant turn since: a release command run alone is still kept
            _count_moments(report, _store_moments(store, [], after))
            report.facts_version = store.facts_version()
            return report
        base = _stored(store)
    else:
        turns, skip, base = list(store.iter_turns(kinds=[TYPED, ASSISTANT])), set(), []
        turns.sort(key=lambda t: (t.session, t.seq))
    last_turn = max([after, *(t.id for t in turns)])
    said: list[Mention] = []
    partners: list[tuple[Turn, str, int]] = []
    asides: list[Turn] = []
    unworded: list[tuple[Turn, str]] | None = [] if embed is not None else None
    mentions = [
        m for m in read_mentions(turns, report, reader, skip, said, asides, unworded, partners) if m.turn.id not in skip
    ]
    _store_attributions(store, [m for m in said if m.turn.id not in skip], incremental=bool(after))
    read = {(t.session, t.seq) for t in turns if t.id not in skip}
    _store_partner_cues(store, [c for c in partners if c[0].id not in skip], read, incremental=bool(after))
    fresh = [t for t in asides if t.id not in skip]
    unplaced = [(t, clause) for t, clause in unworded or [] if t.id not in skip]
    agents = _agent_sessions(store, {t.session for t in fresh} | {t.session for t, _ in unplaced})
    _store_asides(store, [t for t in fresh if t.session in agents], ASIDES_KEY, incremental=bool(after))
    _count_moments(report, _store_moments(store, [t for t in turns if t.id not in skip], after))
    if embed is not None:
        unplaced = [(t, clause) for t, clause in unplaced if t.session in agents]
        likely = likely_life([clause for _, clause in unplaced], embed)
        lived = list({t.id: t for (t, _), yes in zip(unplaced, likely) if yes}.values())
        report.clauses_placed, report.likely_asides = len(unplaced), len(lived)
        _store_asides(store, lived, LIKELY_ASIDES_KEY, incremental=bool(after))
        first_new: dict[str, int] = {}  # per session read now, its first new turn: replies from there are read
        for t in turns:
            if t.id not in skip:
                first_new[t.session] = min(first_new.get(t.session, t.seq), t.seq)
        _store_aside_replies(store, first_new if after else None, embed)
        if store.get_meta(UNPLACED_KEY):
            store.set_meta(UNPLACED_KEY, "")
    elif not store.get_meta(UNPLACED_KEY):
        # these turns go unplaced (what was placed stays cut): the next derive with the embedder reads every turn
        store.set_meta(UNPLACED_KEY, "1")
    by_turn, by_uuid = store.suppressed_facts()
    kept: list[Mention] = list(base)
    for m in mentions:
        if (m.fact, m.turn.id) in by_turn or any((m.fact, u) in by_uuid for u in m.turn.uuids):
            report.suppressed += 1
            continue
        kept.append(m)
    report.mentions = len(kept)
    facts = build_facts(kept)
    report.facts = len(facts)
    report.changed = store.replace_facts(facts, last_turn)
    if readers_changed(store):
        store.set_meta(READERS_KEY, str(READERS_VERSION))
    report.facts_version = store.facts_version()
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _store_attributions(store: Store, said: list[Mention], *, incremental: bool) -> None:
    """Write who said what (`attributions`) beside the facts, as rows the fast path reads (`attributions_of`)."""
    rows = [
        {
            "subject": _norm(m.candidate.subject),
            "object": m.candidate.object,
            "quote": m.candidate.quote,
            "session": m.turn.session,
            "seq": m.turn.seq,
            "uuid": m.turn.uuids[0] if m.turn.uuids else None,
            "ts": m.turn.ts,
            "cwd": m.turn.cwd,
        }
        for m in said
    ]
    if incremental:
        fresh = {(r["session"], r["seq"]) for r in rows}
        rows = [r for r in _attribution_rows(store) if (r["session"], r["seq"]) not in fresh] + rows
    rows.sort(key=lambda r: (str(r["session"]), int(r["seq"] or 0), str(r["subject"]), str(r["object"])))
    store.set_meta(ATTRIBUTIONS_KEY, json.dumps(rows, ensure_ascii=False, sort_keys=True))


def _store_partner_cues(
    store: Store, cues: list[tuple[Turn, str, int]], read: set[tuple[str, int]], *, incremental: bool
) -> None:
    """Write the cues of a partner (`partner_cues_of`); when `incremental`, merged with the stored ones of the turns
    not `read` now (a turn read again has only its new cues)."""
    rows = {(t.session, t.seq, name, worth) for t, name, worth in cues}
    if incremental:
        stored = json.loads(store.get_meta(PARTNER_CUES_KEY) or "[]")
        rows |= {(r[0], r[1], r[2], r[3]) for r in stored if (r[0], r[1]) not in read}
    store.set_meta(PARTNER_CUES_KEY, json.dumps(sorted(rows), ensure_ascii=False))


def partner_cues_of(store: Store) -> list[tuple[str, int]]:
    """(name, points) of every cue of who the person's partner is (`read.partner`); empty before the first derive."""
    return [(str(name), int(worth)) for _, _, name, worth in json.loads(store.get_meta(PARTNER_CUES_KEY) or "[]")]


def _store_asides(store: Store, turns: list[Turn], key: str, *, incremental: bool) -> None:
    """Write the asides of one kind (`asides_of(store, key)`): `turns` (of coding agents' sessions), merged with the
    stored ones when `incremental`."""
    rows = {(t.session, t.seq) for t in turns}
    if incremental:
        rows |= set(asides_of(store, key))
    store.set_meta(key, json.dumps(sorted(rows)))


def _count_moments(report: DeriveReport, found: dict[str, int]) -> None:
    """The moments found now, by kind, into the report (each kind has its field)."""
    assert set(found) == {kind.name for kind in MOMENT_KINDS}, "a kind of moment the report has no field for"
    report.releases, report.incidents, report.decisions, report.changes = (
        found[k.name] for k in (RELEASES, INCIDENTS, DECISIONS, CHANGES)
    )


def _store_moments(store: Store, read: list[Turn], after: int) -> dict[str, int]:
    """Write the moments of each kind (`moments_of`) of coding agents' sessions found in `read` (typed and assistant
    turns) and, for a kind that reads them, in the tool calls after turn `after`, merged with the stored ones when
    `after` (an incremental derive); how many were found now, by kind's name."""
    calls = list(store.iter_turns(kinds=[TOOL_CALL], after_id=after))
    agents = _agent_sessions(store, {t.session for t in read} | {t.session for t in calls})
    firsts: dict[str, str] = {}  # a full derive reads every typed turn: each session's first is among them
    for t in read:
        if t.kind == TYPED and t.seq < FIRST_REACH and not after:
            firsts.setdefault(t.session, t.text)

    @functools.cache
    def about(session: str) -> str:
        return firsts.get(session) or _first_request(store, session)

    call_at = {(t.session, t.seq) for t in calls}

    def settled(m: Moment, kind: MomentKind) -> Moment | None:
        """A tool call's moment points to its output too, whose passage carries the call (found by the call's id:
        parallel calls write their outputs after all of them); one whose output is not stored yet is unchanged.
        None: the output reports an error, and for this kind a failed call is no moment."""
        out = store.tool_output(m.session, m.seqs[0])
        if out is None:
            return m
        seq, failed = out
        return None if failed and not kind.failed_calls else replace(m, seqs=(m.seqs[0], seq))

    def paired(m: Moment, kind: MomentKind) -> Moment | None:
        return settled(m, kind) if (m.session, m.seqs[0]) in call_at else m

    touched = {t.session for t in read} | {t.session for t in calls}

    counts: dict[str, int] = {}
    for kind in MOMENT_KINDS:
        turns = (t for t in [*read, *(calls if kind.calls else [])] if t.session in agents)
        read_now = [(m, paired(m, kind)) for m in moments_in(kind.read, turns, about)]
        found = [m for _, m in read_now if m is not None]
        raw = store.get_meta(kind.key) if after else None
        rows = {(r[0], r[1][0]): r for r in json.loads(raw)} if raw else {}
        # a tool call after the last typed or assistant turn is read again by the next derive: kept once, and
        # dropped when its output, stored since, reports an error
        for m, _ in read_now:
            rows.pop((m.session, m.seqs[0]), None)
        # a kept call of a session with new turns whose output was not stored then (another session's turns can
        # pass it, and then it is not read again): paired now, or dropped when that output reports an error
        for key, (session, seqs, ts, text) in list(rows.items()):
            if session in touched and len(seqs) == 1:
                now = settled(Moment(session, (int(seqs[0]),), ts, text), kind)
                if now is None:
                    del rows[key]
                else:
                    rows[key] = [session, list(now.seqs), ts, text]
        rows.update({(m.session, m.seqs[0]): [m.session, list(m.seqs), m.ts, m.text] for m in found})
        text = json.dumps([rows[k] for k in sorted(rows)], ensure_ascii=False)
        store.set_meta(kind.key, text)
        store.set_meta(kind.version_key, hashlib.sha256(text.encode()).hexdigest()[:16])
        counts[kind.name] = len(found)
    return counts


def _first_request(store: Store, session: str) -> str:
    """What the person typed first in `session` (within its first FIRST_REACH turns); in a subagent's session, where
    the person types nothing, the brief it was given; or ""."""
    opening = store.turns(session, start=0, end=FIRST_REACH)
    typed = next((t.text for t in opening if t.kind == TYPED), None)
    return typed if typed is not None else next((t.text for t in opening if t.kind == AGENT_PROMPT), "")


def moments_version(store: Store, kind: MomentKind) -> str | None:
    """A short hash of the moments of `kind` kept (`moments_of`), which changes when they do; None before the first
    derive."""
    return store.get_meta(kind.version_key)


def moments_of(store: Store, kind: MomentKind) -> list[Moment]:
    """The turns of coding agents' sessions that are moments of `kind` (RELEASES: that did, reported or asked for a
    release or deploy, `read.releases`; INCIDENTS: that reported a problem or said what caused it,
    `read.incidents`; DECISIONS: that took, settled or wrote down a decision, `read.decisions`; CHANGES: tool calls
    that changed a value in a file, `read.changes`), by session and
    turn; empty before the first derive."""
    rows = json.loads(store.get_meta(kind.key) or "[]")
    return [Moment(str(s), tuple(int(x) for x in seqs), ts, str(text)) for s, seqs, ts, text in rows]


def _store_aside_replies(store: Store, first_new: dict[str, int] | None, embed: Embed) -> None:
    """Write the clauses of the assistant's replies to an aside that likely speak of a life (`aside_replies_of`):
    with `first_new` (an incremental derive: per session, its first new turn) only the replies from there on are
    read, the others kept as they were; None: every reply is read."""
    asides = set(asides_of(store)) | set(asides_of(store, LIKELY_ASIDES_KEY))
    raw = store.get_meta(ASIDE_REPLIES_KEY)
    old = json.loads(raw) if first_new is not None and raw else []
    rows = [r for r in old if first_new is None or r[1] < first_new.get(r[0], 1 << 62)]
    found: list[tuple[str, int, str]] = []
    for session, seq in sorted(asides):
        start = seq + 1 if first_new is None else max(seq + 1, first_new.get(session, 1 << 62))
        if start > seq + REPLY_REACH:
            continue  # no new turn within its reach
        for t in store.turns(session, start=seq + 1, end=seq + 1 + REPLY_REACH):
            if t.seq < start:
                if t.kind == TYPED:
                    break
                continue  # read before, kept in `rows`
            if t.kind == TYPED:
                break  # the person speaks again: what follows answers that
            if t.kind in _REPLY_KINDS:
                found.extend((session, t.seq, clause) for clause in unworded_clauses(t.text[:READ_LIMIT], t.kind))
    found = list(dict.fromkeys(found))  # two asides before one reply
    rows += [list(row) for row, yes in zip(found, likely_life([c for *_, c in found], embed)) if yes]
    store.set_meta(ASIDE_REPLIES_KEY, json.dumps(sorted(rows), ensure_ascii=False))


def needs_placing(store: Store) -> bool:
    """Whether the likely asides and the replies to asides were never placed, or a derive without the embedder ran
    since: the next derive with the embedder reads every turn."""
    missing = store.get_meta(LIKELY_ASIDES_KEY) is None or store.get_meta(ASIDE_REPLIES_KEY) is None
    return missing or bool(store.get_meta(UNPLACED_KEY))


def aside_replies_of(store: Store) -> dict[tuple[str, int], frozenset[str]]:
    """The clauses of the assistant's turns (text and thinking) after an aside or a likely aside, up to the person's
    next typed turn (within REPLY_REACH turns; a turn's first READ_LIMIT characters), that speak of the person's
    life with no life word ("good luck to her tomorrow", placed as `read.life` places the person's own), by
    (session, seq): an agent is not shown them (`read.asides.withhold_personal`'s `also`)."""
    raw = store.get_meta(ASIDE_REPLIES_KEY)
    out: dict[tuple[str, int], set[str]] = {}
    for session, seq, clause in json.loads(raw) if raw else []:
        out.setdefault((str(session), int(seq)), set()).add(str(clause))
    return {turn: frozenset(clauses) for turn, clauses in out.items()}


def _agent_sessions(store: Store, sessions: Iterable[str]) -> set[str]:
    """Those of `sessions` a coding agent wrote (`AGENT_FORMATS`): the only ones asides are kept from."""
    infos = {session: store.session(session) for session in sessions}
    return {session for session, info in infos.items() if info is not None and info.format in AGENT_FORMATS}


def asides_of(store: Store, key: str = ASIDES_KEY) -> list[tuple[str, int]]:
    """The (session, seq) of every trusted typed turn of a coding agent's session in which the person speaks of
    their life, said in passing beside the work (`key` LIKELY_ASIDES_KEY: where they likely do); empty before
    the first derive."""
    raw = store.get_meta(key)
    return [(str(session), int(seq)) for session, seq in json.loads(raw)] if raw else []


def _attribution_rows(store: Store) -> list[dict[str, Any]]:
    raw = store.get_meta(ATTRIBUTIONS_KEY)
    return list(json.loads(raw)) if raw else []


def attributions_of(store: Store) -> list[FactMention]:
    """Who said or asked what, as the person's own typed words report it, as fact mentions (relation "said")."""
    out: list[FactMention] = []
    for r in _attribution_rows(store):
        fid = fact_id(r["subject"], "said", r["object"])
        out.append(
            FactMention(
                fid,
                r["subject"],
                "said",
                r["object"],
                "current",
                r["session"],
                r["seq"],
                r["uuid"],
                r["quote"],
                r["ts"],
                ATTRIBUTION_CONFIDENCE,
                r["cwd"],
            )
        )
    return out

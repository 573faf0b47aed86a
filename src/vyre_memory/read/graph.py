"""The graph of people, projects, organisations and decisions: derived, then the person's edits re-applied.

Guarantees:
- derived only from stored facts (which passed the trust rules) and from turns of sessions a person
  ran (interactive): people from facts and from names that recur with a project, projects from
  session cwds, organisations from employer facts, decisions from cue phrases ("let's go with",
  "we decided", "switching to", "decision:") in typed and assistant turns;
- every edge keeps its sources (session, seq, uuid, quote, ts), when, and on whose word; of the
  decisions on one topic of a project (shared key words) the newest is current and the older
  ones "superseded";
- entity ids are the entity itself (a hash of kind and canonical name or folder), so a re-derive
  keeps them; the person's edits (rename, merge, alias add/remove, delete, pin) are stored as an
  append-only log and re-applied in order after every derive, so they survive re-ingest and
  re-derive; an edit whose entity is gone is skipped, not lost;
- deterministic: the same facts, turns and edits give the same graph.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from ..contract import ASSISTANT, INTERACTIVE, MEMORY, TYPED, Edge, EdgeSource, Entity, Fact, Turn
from ..errors import NotFoundError, VyreError
from ..store.graph import GraphEdit
from ..store.sqlite import Store
from ..text import project_name
from .decisions import READ_LIMIT, decided, topic_words, turn_sentences
from .derive import attributions_of
from .relations import KIN, PEOPLE_RELATIONS, display, is_name_token, is_stop, words

__all__ = ["GraphReport", "apply_edits", "derive_graph", "edit_graph", "expand", "find_entity", "load_graph"]

USER_ID = "user"
EDIT_OPS = ("rename", "merge", "alias_add", "alias_remove", "delete", "pin")
_PEOPLE_BAR = 0.5

_SPEECH = re.compile(
    r"\b([A-Za-z][\w'’-]+(?:\s+[A-Za-z][\w'’-]+)?)\s+(?:asked|asks|said|says|wants|wanted|thinks|mentioned|agreed|"
    r"suggested|pushed\s+back|signed\s+off|reviewed|approved|pinged|replied)\b"
)
_FULL_NAME = re.compile(r"(?<![\w.])[A-ZÀ-Ž][a-zà-ž'’-]+ [A-ZÀ-Ž][a-zà-ž'’-]+(?![\w])")
_PERSON_AFTER = re.compile(r"\s+(?:is|was)\s+(?:our|their|your|my|the|a)\s+\w+|\s*\((?:our|their|the)\s")
_PERSON_BEFORE = re.compile(
    r"\b(?:contact|ask|asked|tell|told|ping|pinged|email|emailed|cc|thanks|with|from)\s+$", re.I
)
_WORK_RELATIONS = frozenset({"boss", "colleague", "client", "works_at"})
_GENERIC_PROJECT = words(
    "invoice invoices spelling monitor service server client api app apps web website portal data dashboard "
    "backend frontend mobile admin infra platform tools utils scripts config dotfiles forecast model models "
    "pipeline pipelines report reports test tests sample demo"
)


@dataclass
class GraphReport:
    entities: int = 0
    edges: int = 0
    decisions: int = 0
    edits_applied: int = 0
    edits_skipped: int = 0
    changed: bool = False
    graph_version: int = 0

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def _hash(*parts: str) -> str:
    return hashlib.sha256("|".join(p.strip().lower() for p in parts).encode()).hexdigest()[:16]


def entity_id(kind: str, key: str) -> str:
    return _hash(kind, key)


@dataclass
class _Node:
    id: str
    kind: str
    name: str
    aliases: set[str] = field(default_factory=set)
    pinned: bool = False
    status: str = "current"
    stamps: list[str] = field(default_factory=list)
    mentions: int = 0


@dataclass
class _Link:
    src: str
    relation: str
    dst: str
    confidence: float
    status: str
    ts: str | None
    said_by: str | None
    sources: list[EdgeSource] = field(default_factory=list)

    @property
    def id(self) -> str:
        return _hash(self.src, self.relation, self.dst)


class _Graph:
    def __init__(self) -> None:
        self.nodes: dict[str, _Node] = {}
        self.links: dict[tuple[str, str, str], _Link] = {}

    def node(self, kind: str, key: str, name: str, *, node_id: str | None = None) -> _Node:
        nid = node_id or entity_id(kind, key)
        if nid not in self.nodes:
            self.nodes[nid] = _Node(nid, kind, name)
        return self.nodes[nid]

    def link(self, link: _Link) -> _Link:
        key = (link.src, link.relation, link.dst)
        cur = self.links.get(key)
        if cur is None:
            self.links[key] = link
            return link
        cur.confidence = max(cur.confidence, link.confidence)
        if (link.ts or "") > (cur.ts or ""):
            cur.ts, cur.said_by = link.ts, link.said_by
        seen = {(s.session, s.seq) for s in cur.sources}
        cur.sources.extend(s for s in link.sources if (s.session, s.seq) not in seen)
        return cur


# ---------------------------------------------------------------------------------------------
# Deriving.


def _people_from_facts(g: _Graph, facts: Sequence[Fact], user_name: str) -> None:
    people: dict[str, str] = {}  # lowercase full name -> node id
    named = [f for f in facts if f.subject == "user" and f.relation in PEOPLE_RELATIONS and f.confidence >= _PEOPLE_BAR]
    full = sorted({f.object.lower() for f in named if " " in f.object.strip()})
    for f in sorted(named, key=lambda f: (f.object.lower(), f.relation, f.id)):
        low = f.object.lower()
        longer = [n for n in full if n.split()[0] == low]
        key = longer[0] if len(longer) == 1 else low
        node = g.node("person", key, display(key))
        if key != low:
            node.aliases.add(display(low))
        elif " " in key:
            node.aliases.add(display(key.split()[0]))
        people[key] = node.id
        _fact_link(g, f, USER_ID, f.relation, node.id, user_name)
    for f in facts:  # a relative's relative ("marisol's husband anselm"), a named person's occupation
        if f.confidence < _PEOPLE_BAR or f.subject in ("user",) or f.subject.startswith("user:"):
            continue
        if f.relation in PEOPLE_RELATIONS and f.subject in people:
            other = g.node("person", f.object.lower(), display(f.object))
            _fact_link(g, f, people[f.subject], f.relation, other.id, user_name)
        elif f.relation == "occupation" and is_name_token(f.subject.split()[0]):
            node = g.node("person", f.subject, display(f.subject))
            if " " in f.subject:
                node.aliases.add(display(f.subject.split()[0]))
            node.stamps.extend(s for s in (f.first_ts, f.last_ts) if s)
    for f in facts:
        if f.subject == "user" and f.relation == "employer" and f.confidence >= _PEOPLE_BAR:
            org = g.node("organisation", f.object.lower(), f.object)
            _fact_link(g, f, USER_ID, "works_at", org.id, user_name)


def _people_from_attributions(g: _Graph, store: Store, user_name: str) -> None:
    """A full name the person wrote before a reporting verb ("ewa lis wrote ...") is a person when its first
    name is already someone's (or it reports twice); its first name is an alias, so a first name two people
    share ("ewa") is never read as either of them."""
    known = {name.lower() for n in g.nodes.values() if n.kind == "person" for name in (n.name.split()[0], *n.aliases)}
    said = attributions_of(store)
    turns: dict[str, set[tuple[str, int]]] = {}
    for a in said:
        turns.setdefault(a.subject, set()).add((a.session, a.seq))
    for a in said:
        toks = a.subject.split()
        if len(toks) != 2 or not all(is_name_token(t) for t in toks) or a.subject == (user_name or "").lower():
            continue
        # a two-word "name" is taken as a person only when its first word is already someone's name, or
        # it reports in two turns: "staging renderer reports ..." once is not a person
        if toks[0] not in known and len(turns[a.subject]) < 2:
            continue
        node = g.node("person", a.subject, display(a.subject))
        node.aliases.add(display(toks[0]))
        if a.ts:
            node.stamps.append(a.ts)


def _fact_link(g: _Graph, f: Fact, src: str, relation: str, dst: str, user_name: str) -> None:
    g.link(
        _Link(
            src,
            relation,
            dst,
            f.confidence,
            "past" if f.status == "past" else "current",
            f.last_ts,
            user_name,
            [EdgeSource(s.session, s.seq, s.uuid, s.quote, s.ts) for s in f.sources],
        )
    )
    if dst in g.nodes:
        g.nodes[dst].stamps.extend(s for s in (f.first_ts, f.last_ts) if s)
        g.nodes[dst].mentions += len(f.sources)


@dataclass(frozen=True)
class _Decision:
    project: str
    text: str
    topic: frozenset[str]
    reach: frozenset[str]  # its topic and its neighbouring sentences': what a newer decision replaces
    turn: Turn
    quote: str
    by: str


def _decisions_in(t: Turn, project: str, user_name: str) -> list[_Decision]:
    out: list[_Decision] = []
    sentences = turn_sentences(t)
    for i, sentence in enumerate(sentences):
        found = decided(sentence)
        if found is None:
            continue
        what, topic = found
        # the reason said beside a decision names what it replaces ("nobody opens the X. so: we drop Y")
        reach = topic.union(*(topic_words(s) for s in sentences[max(i - 1, 0) : i + 2]))
        by = user_name if t.kind == TYPED else "assistant"
        out.append(_Decision(project, what[:160], topic, reach, t, sentence[:500], by))
    return out


def _name_candidates(t: Turn) -> list[tuple[str, bool]]:
    """Two-word names in a turn, each with whether it is said the way people are ("X asked", "X is our ...")."""
    text = t.text[:READ_LIMIT]
    spoken = [(m.group(1).strip(), True) for m in _SPEECH.finditer(text)]
    written = [
        (m.group(0), bool(_PERSON_AFTER.match(text, m.end())) or bool(_PERSON_BEFORE.search(text[: m.start()])))
        for m in _FULL_NAME.finditer(text)
    ]
    out: list[tuple[str, bool]] = []
    for cand, cue in spoken + written:
        toks = cand.split()
        if len(toks) != 2 or not all(is_name_token(x) for x in toks) or toks[0].lower() in KIN:
            continue
        if t.kind == ASSISTANT and not all(x[:1].isupper() for x in toks):
            continue
        out.append((" ".join(cand.lower().split()), cue))
    return out


def _recurring_people(g: _Graph, project_of: dict[str, str], turns: Sequence[Turn], user_name: str) -> None:
    """People named with a project in two or more of its turns.

    New people are two-word names said in two or more sessions, at least once the way people are
    ("dagny wenzel asked", "Dagny Wenzel is your contact"). A first name counts for a person
    only when no other known person has it, and never when a different surname follows it.
    """
    sessions: dict[str, set[str]] = {}
    cued: set[str] = set()
    for t in turns:
        for key, cue in _name_candidates(t):
            sessions.setdefault(key, set()).add(t.session)
            if cue:
                cued.add(key)
    for key in sorted(cued):
        if len(sessions[key]) >= 2 and key != (user_name or "").lower():
            node = g.node("person", key, display(key))
            node.aliases.add(display(key.split()[0]))
    family = {lk.dst for lk in g.links.values() if lk.src == USER_ID and lk.relation not in _WORK_RELATIONS}
    owners: dict[str, set[str]] = {}
    for n in g.nodes.values():
        if n.kind == "person" and n.id != USER_ID:
            for name in (n.name, *n.aliases):
                owners.setdefault(name.lower(), set()).add(n.id)
    known = {
        name: next(iter(ids))
        for name, ids in owners.items()
        if len(ids) == 1 and len(name) >= 3 and next(iter(ids)) not in family
    }
    hits: dict[tuple[str, str], list[Turn]] = {}
    for t in turns:
        project = project_of.get(t.session)
        if project is None:
            continue
        low = t.text[:READ_LIMIT].lower()
        found: set[str] = set()
        for name, nid in known.items():
            if _mentions(low, name, g.nodes[nid].name.lower()):  # "dagny wenzel" is not "dagny fenn"
                found.add(nid)
        for nid in found:
            hits.setdefault((nid, project), []).append(t)
    for (nid, project), ts in sorted(hits.items()):
        if len(ts) < 2:
            continue
        node = g.nodes[nid]
        node.mentions += len(ts)
        node.stamps.extend(t.ts for t in ts if t.ts)
        last = max(ts, key=lambda t: (t.ts or "", t.id))
        g.link(
            _Link(
                nid,
                "works_on",
                project,
                1.0,
                "current",
                last.ts,
                None,
                [EdgeSource(t.session, t.seq, t.uuids[0] if t.uuids else None, t.text[:300], t.ts) for t in ts[:5]],
            )
        )


def build_graph(store: Store, user_name: str) -> _Graph:
    g = _Graph()
    me = g.node("person", USER_ID, user_name or "you", node_id=USER_ID)
    me.pinned = True
    project_of: dict[str, str] = {}
    for s in store.sessions():
        if not s.cwd or s.kind == MEMORY:
            continue
        node = g.node("project", s.cwd, project_name(s.cwd) or s.cwd)
        node.aliases.update({s.cwd, node.name.replace("-", " ").replace("_", " ")})
        node.mentions += 1
        node.stamps.extend(x for x in (s.first_ts, s.last_ts) if x)
        if s.kind == INTERACTIVE:
            project_of[s.id] = node.id
    firsts: dict[str, list[str]] = {}
    for n in g.nodes.values():
        if n.kind == "project":
            head = re.split(r"[-_ ]", n.name)[0].lower()
            if len(head) >= 5 and head != n.name.lower() and not is_stop(head) and head not in _GENERIC_PROJECT:
                firsts.setdefault(head, []).append(n.id)
    for head, ids in firsts.items():
        if len(set(ids)) == 1:
            g.nodes[ids[0]].aliases.add(head)
    _people_from_facts(g, store.facts(), user_name)
    _people_from_attributions(g, store, user_name)
    turns = [t for t in store.iter_turns(kinds=[TYPED, ASSISTANT]) if t.session in project_of]
    turns.sort(key=lambda t: (t.session, t.seq))
    _recurring_people(g, project_of, turns, user_name)
    decisions: list[_Decision] = []
    for t in turns:
        decisions.extend(_decisions_in(t, project_of[t.session], user_name))
    decisions.sort(key=lambda d: (d.turn.ts or "", d.turn.id))
    for i, d in enumerate(decisions):
        when = (d.turn.ts or "", d.turn.id)
        newer = any(
            o.project == d.project and o.reach & d.topic and (o.turn.ts or "", o.turn.id) > when
            for o in decisions[i + 1 :]
        )
        node = g.node("decision", f"{d.project}|{d.text.lower()}", d.text)
        node.status = "superseded" if newer else "current"
        node.mentions += 1
        if d.turn.ts:
            node.stamps.append(d.turn.ts)
        src = EdgeSource(d.turn.session, d.turn.seq, d.turn.uuids[0] if d.turn.uuids else None, d.quote, d.turn.ts)
        g.link(_Link(node.id, "about", d.project, 1.0, node.status, d.turn.ts, d.by, [src]))
    return g


# ---------------------------------------------------------------------------------------------
# Edits.


def _resolve(g: _Graph, args: dict[str, object], key: str = "id", name_key: str = "name") -> str | None:
    nid = str(args.get(key) or "")
    if nid in g.nodes:
        return nid
    name = str(args.get(name_key) or "")
    return _lookup(g, name) if name else None


def _lookup(g: _Graph, name: str) -> str | None:
    low = name.strip().lower()
    for n in sorted(g.nodes.values(), key=lambda n: (n.kind != "person", n.id)):
        if n.name.lower() == low or n.id == low:
            return n.id
    for n in sorted(g.nodes.values(), key=lambda n: (n.kind != "person", n.id)):
        if low in {a.lower() for a in n.aliases}:
            return n.id
    return None


def apply_edits(g: _Graph, edits: Iterable[GraphEdit]) -> tuple[int, int]:
    """Re-apply the person's edits in order; (applied, skipped because their entity is gone)."""
    applied = skipped = 0
    for e in edits:
        a = e.args
        nid = _resolve(g, a)
        if nid is None:
            skipped += 1
            continue
        node = g.nodes[nid]
        if e.op == "rename":
            node.aliases.add(node.name)
            node.name = str(a["new"])
            node.aliases.discard(node.name)
        elif e.op == "merge":
            other = _resolve(g, a, "other_id", "other_name")
            if other is None or other == nid:
                skipped += 1
                continue
            gone = g.nodes.pop(other)
            node.aliases |= {gone.name, *gone.aliases}
            node.aliases.discard(node.name)
            node.mentions += gone.mentions
            node.stamps.extend(gone.stamps)
            node.pinned = node.pinned or gone.pinned
            for key in list(g.links):
                link = g.links.pop(key)
                link.src = nid if link.src == other else link.src
                link.dst = nid if link.dst == other else link.dst
                if link.src != link.dst:
                    g.link(link)
        elif e.op == "alias_add":
            node.aliases.add(str(a["alias"]))
        elif e.op == "alias_remove":
            node.aliases = {x for x in node.aliases if x.lower() != str(a["alias"]).lower()}
        elif e.op == "delete":
            if nid == USER_ID:
                skipped += 1
                continue
            del g.nodes[nid]
            g.links = {k: v for k, v in g.links.items() if nid not in (v.src, v.dst)}
        elif e.op == "pin":
            node.pinned = bool(a.get("pinned", True))
        applied += 1
    return applied, skipped


def _freeze(g: _Graph) -> tuple[list[Entity], list[Edge]]:
    entities = [
        Entity(
            id=n.id,
            kind=n.kind,
            name=n.name,
            aliases=tuple(sorted(n.aliases - {n.name})),
            pinned=n.pinned,
            status=n.status,
            first_ts=min(n.stamps) if n.stamps else None,
            last_ts=max(n.stamps) if n.stamps else None,
            mentions=n.mentions,
        )
        for n in sorted(g.nodes.values(), key=lambda n: n.id)
    ]
    edges = [
        Edge(
            id=lk.id,
            src=lk.src,
            relation=lk.relation,
            dst=lk.dst,
            confidence=round(lk.confidence, 4),
            status=lk.status,
            ts=lk.ts,
            said_by=lk.said_by,
            sources=tuple(sorted(lk.sources, key=lambda s: (s.ts or "", s.session, s.seq))),
        )
        for lk in sorted(g.links.values(), key=lambda lk: lk.id)
        if lk.src in g.nodes and lk.dst in g.nodes
    ]
    return entities, edges


def derive_graph(store: Store, user_name: str) -> GraphReport:
    """Rebuild the graph from facts and turns, re-apply every edit, store it in one transaction."""
    g = build_graph(store, user_name)
    applied, skipped = apply_edits(g, store.graph_edits())
    entities, edges = _freeze(g)
    changed = store.replace_graph(entities, edges)
    return GraphReport(
        entities=len(entities),
        edges=len(edges),
        decisions=sum(1 for e in entities if e.kind == "decision"),
        edits_applied=applied,
        edits_skipped=skipped,
        changed=changed,
        graph_version=store.graph_version(),
    )


# ---------------------------------------------------------------------------------------------
# Reading and editing.


@dataclass(frozen=True)
class LoadedGraph:
    entities: dict[str, Entity]
    edges: tuple[Edge, ...]

    def with_edges(self, e: Entity) -> Entity:
        return replace(e, edges=tuple(x for x in self.edges if e.id in (x.src, x.dst)))


def load_graph(store: Store) -> LoadedGraph:
    return LoadedGraph({e.id: e for e in store.graph_entities()}, tuple(store.graph_edges()))


def find_entity(graph: LoadedGraph, name: str) -> Entity:
    """An entity by name, alias or id (prefix of 6+); NotFoundError says what to do."""
    low = name.strip().lower()
    order = sorted(graph.entities.values(), key=lambda e: (e.kind != "person", e.kind, e.id))
    for match in (
        lambda e: e.id == low or e.name.lower() == low,
        lambda e: low in {a.lower() for a in e.aliases},
        lambda e: len(low) >= 6 and e.id.startswith(low),
    ):
        hits = [e for e in order if match(e)]
        if hits:
            return graph.with_edges(hits[0])
    raise NotFoundError(f"no entity called {name!r} in the graph; list them with: vyre graph show")


def edit_graph(store: Store, user_name: str, op: str, name: str, **args: object) -> GraphReport:
    """Record one edit (by the entity's id and its name now) and rebuild the graph with it applied."""
    if op not in EDIT_OPS:
        raise VyreError(f"unknown graph edit {op!r}; use one of: {', '.join(EDIT_OPS)}")
    graph = load_graph(store)
    target = find_entity(graph, name)
    record: dict[str, object] = {"id": target.id, "name": target.name, **args}
    if op == "merge":
        other = find_entity(graph, str(args.pop("other")))
        if other.id == target.id:
            raise VyreError(f"{name!r} and that name are already the same entity; nothing to merge")
        record = {"id": target.id, "name": target.name, "other_id": other.id, "other_name": other.name}
    if op == "delete" and target.id == USER_ID:
        raise VyreError("the person memory belongs to cannot be deleted from the graph; rename it instead")
    store.add_graph_edit(op, record, datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return derive_graph(store, user_name)


def expand(graph: LoadedGraph, question: str) -> list[str]:
    """Names and aliases to add to a search: "my wife" -> her name; a person -> aliases; a project -> its folder."""
    low = question.lower()
    out: list[str] = []

    def add(values: Iterable[str]) -> None:
        for v in values:
            if v and v.lower() not in low and v not in out:
                out.append(v)

    for m in re.finditer(r"\b(?:my|our)\s+([\w-]+)", low):
        rel = KIN.get(m.group(1))
        if rel is None:
            continue
        for e in graph.edges:
            if e.src == USER_ID and e.relation == rel and e.status == "current" and e.confidence >= 0.6:
                person = graph.entities.get(e.dst)
                if person:
                    add([person.name, *person.aliases])
    for ent in sorted(graph.entities.values(), key=lambda e: e.id):
        if ent.kind == "decision" or ent.id == USER_ID:
            continue
        names = [ent.name, *ent.aliases]
        if any(_mentions(low, n.lower(), ent.name.lower(), person=ent.kind == "person") for n in names if len(n) >= 3):
            add(names)
    return out


def _mentions(text: str, name: str, full: str, *, person: bool = True) -> bool:
    """`name` occurs in `text` as a word; for a person, a first name followed by another surname is someone else."""
    for hit in re.finditer(rf"(?<![\w]){re.escape(name)}(?![\w])", text):
        after = re.match(r"\s+([\w'’-]+)", text[hit.end() :]) if person and " " not in name else None
        if after and is_name_token(after.group(1)) and f"{name} {after.group(1)}" != full:
            continue
        return True
    return False


def resolve_aliases(entities: Iterable[Entity], question: str) -> str | None:
    """The question with each alias (3+ characters, whole words) replaced by its entity's name; None: no alias.

    So an alias the person added in the graph ("Danielle" for Dani) is understood by the next answer.
    """

    def whole(text: str) -> re.Pattern[str]:
        return re.compile(rf"(?<![\w]){re.escape(text)}(?![\w])", re.IGNORECASE)

    entities = [e for e in entities if e.kind != "decision"]
    # an alias two entities share ("Dagny" for two people of that name) names neither: it is left as asked
    owners: dict[str, set[str]] = {}
    for entity in entities:
        for alias in entity.aliases:
            owners.setdefault(alias.lower(), set()).add(entity.id)
    names = [whole(e.name) for e in entities]
    out = question
    for entity, own in zip(entities, names, strict=True):
        if own.search(out):
            continue
        # a full name the question already says is never rewritten through a shorter alias inside it
        named = [m.span() for n in names for m in n.finditer(out)]
        for alias in sorted(entity.aliases, key=len, reverse=True):
            if len(alias) < 3 or alias.startswith("/") or len(owners.get(alias.lower(), ())) > 1:
                continue
            pattern = whole(alias)
            free = [m for m in pattern.finditer(out) if not any(a <= m.start() < b for a, b in named)]
            if free:
                for m in reversed(free):
                    out = out[: m.start()] + entity.name + out[m.end() :]
                break
    return out if out != question else None

"""Retrieval keys: short texts that stand for turns, searched by their own words.

A long turn that says something once in passing scores low against a question on its full text; a key that
says only that thing scores high, and a hit on the key retrieves the turns it points to. Two kinds:

    session keys   one per session: its title, the openings of what the person asked in it, the files it
                   touched and the tools it ran; a subagent's key parts roll up into its parent session
    record keys    one per personal fact mention (who, the relation in words, the value, the sentence it was
                   read from) and one per decision the graph holds (the decision, its project, its sentence),
                   each with its time and its source turn
    moment keys    one per turn that did, reported or asked for a release or deploy (read.releases), one per
                   turn that reported a problem or said what caused it (read.incidents), and one per turn that
                   took, settled or wrote down a decision (read.decisions): the versions it names, its project,
                   its opening, its session's first request (read.moments), with its time and the turns it
                   points to; and one per tool call that changed a value in a file (read.changes): the file,
                   the lines put in and its session's first request

Guarantees:
- keys are derived from the store (turns, facts, the graph) and grown or rebuilt when those change; nothing
  is written;
- a search scores only keys whose sessions the caller's scope may read (the caller passes that set, taken
  from the same scope SQL every list uses), and no key with a time after the question's "now";
- personal-fact keys are returned only when asked for (`personal=True`): never for an agent's scope;
- the same keys and words give the same ranking (ties broken by session, then seq).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import math
import re
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..contract import AGENT_FORMATS
from ..read.moments import Moment
from ..read.relations import KIN
from ..store.sqlite import Store
from ..text import project_name, versions

OPENING_CHARS = 300  # of each typed request or agent prompt, in its session's key
MAX_PATHS = 40  # files a session key names at most
REQUESTS_KEPT = 4  # of each session's first requests, kept with their words to be retrieved by its key
K1, B = 1.2, 0.75
COMMON_MOMENT_WORD = 1000  # moments of a kind a word may be in and still be scored, however many there are

_WORD = re.compile(r"[a-z0-9][a-z0-9_'-]*")
_SUFFIXES = ("ing", "ed", "es", "s")


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude stem, the same for a key and a question: "deploys", "deployed", "deploying" → "deploy"."""
    word = word.lower().strip("'-_").removesuffix("'s")
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        out.append(stem(w))
        if "_" in w or "-" in w:  # "billing_service" is also "billing" and "service"
            out.extend(stem(p) for p in re.split(r"[_-]", w) if len(p) > 1)
    return out


class Bm25:
    """BM25 over small documents held in memory, added to in place."""

    def __init__(self) -> None:
        self.docs: list[Counter[str]] = []
        self.lengths: list[int] = []
        self.postings: dict[str, set[int]] = {}

    @classmethod
    def of(cls, texts: Iterable[str], words: Callable[[str], list[str]] = lambda text: tokens(text)) -> Bm25:
        """An index of `texts`' words (`words`, `tokens` by default), each text the document numbered by its place."""
        index = cls()
        for doc, text in enumerate(texts):
            index.set(doc, words(text))
        return index

    def set(self, doc: int, words: Iterable[str]) -> None:
        counts = Counter(words)
        while len(self.docs) <= doc:
            self.docs.append(Counter())
            self.lengths.append(0)
        for w in self.docs[doc]:
            self.postings[w].discard(doc)
        self.docs[doc], self.lengths[doc] = counts, sum(counts.values())
        for w in counts:
            self.postings.setdefault(w, set()).add(doc)

    def scores(self, words: Sequence[str], keep: Collection[int] | None = None) -> dict[int, float]:
        n = max(1, len(self.docs))
        avg = max(1.0, sum(self.lengths) / n)
        out: dict[int, float] = {}
        for w in dict.fromkeys(words):
            docs = self.postings.get(w)
            if not docs:
                continue
            weight = idf(n, len(docs))
            for d in docs:
                if keep is not None and d not in keep:
                    continue
                out[d] = out.get(d, 0.0) + term_score(self.docs[d][w], self.lengths[d], avg, weight)
        return out


class AddedBm25:
    """BM25 over documents that are only ever added, never changed, in little memory: each word's postings as arrays
    of (document, count), no Counter per document (a few hundred bytes a document of a hundred words, not kilobytes).
    """

    def __init__(self) -> None:
        self.lengths = array("I")
        self.total = 0
        self.postings: dict[str, tuple[array[int], array[int]]] = {}

    def add(self, words: Iterable[str]) -> int:
        """Add a document of these words; returns its number (0, 1, 2, ... in the order added)."""
        doc = len(self.lengths)
        counts = Counter(words)
        for w, count in counts.items():
            posting = self.postings.get(w)
            if posting is None:
                posting = self.postings[w] = (array("I"), array("I"))
            posting[0].append(doc)
            posting[1].append(count)
        length = sum(counts.values())
        self.lengths.append(length)
        self.total += length
        return doc

    def scores(self, words: Sequence[str], common: int | None = None) -> dict[int, float]:
        """BM25 of each document with any of the words; a word in more than `common` documents is not scored."""
        n = max(1, len(self.lengths))
        avg = max(1.0, self.total / n)
        out: dict[int, float] = {}
        for w in dict.fromkeys(words):
            posting = self.postings.get(w)
            if posting is None or (common is not None and len(posting[0]) > common):
                continue
            docs, tfs = posting
            weight = idf(n, len(docs))
            for d, tf in zip(docs, tfs):
                out[d] = out.get(d, 0.0) + term_score(tf, self.lengths[d], avg, weight)
        return out


def idf(documents: int, with_word: int) -> float:
    return math.log(1 + (documents - with_word + 0.5) / (with_word + 0.5))


def term_score(tf: int, length: int, avg: float, weight: float) -> float:
    """A word's BM25 share of a document's score: its `idf` weight for how often and in how long a document."""
    return weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))


@dataclass(frozen=True)
class RecordKey:
    """A fact mention or a decision: what it says, when, and the turn it was read from."""

    kind: str  # "fact" | "decision"
    text: str
    value: str  # what it says: a fact's value, a decision's words
    session: str
    seq: int
    ts: str | None
    current: bool  # the current value or decision, not one a newer one replaced


class SessionKeys:
    """One key per session (a subagent's parts in its parent's), grown forward by turn id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._index = Bm25()
        self._doc: dict[str, int] = {}  # session (a parent, for subagents) -> document number
        self._words: dict[str, list[str]] = {}
        self._paths: dict[str, set[str]] = {}
        self.parent: dict[str, str] = {}  # subagent session -> the session its key rolls up into
        self._titles: dict[str, str] = {}
        self.conversations: set[str] = set()  # sessions of a format other than a coding agent's
        # the first requests of each session (its subagents' prompts too), with their words: what its key says
        self.requests: dict[str, list[tuple[str, int, frozenset[str]]]] = {}
        self._last_turn = 0
        self._version = -1

    def refresh(self, store: Store) -> SessionKeys:
        with self._lock:
            version = store.corpus_version()
            if version == self._version:
                return self
            touched: set[str] = set()
            while True:
                rows = store.session_key_parts(self._last_turn, 20_000)
                if not rows:
                    break
                for turn_id, session, seq, parent, text, tool, paths, title, cwd, source_format in rows:
                    owner = parent or session
                    if source_format not in AGENT_FORMATS:
                        self.conversations.add(owner)
                    if parent:
                        self.parent[session] = parent
                    words = self._words.setdefault(owner, [])
                    if owner not in self._paths:
                        self._paths[owner] = set()
                        words.extend(tokens(project_name(cwd)))
                    if title and not parent and self._titles.get(owner) != title:
                        self._titles[owner] = title
                        words.extend(tokens(title))
                    if text:
                        said = tokens(text[:OPENING_CHARS])
                        words.extend(said)
                        requests = self.requests.setdefault(owner, [])
                        if len(requests) < REQUESTS_KEPT:
                            requests.append((session, seq, frozenset(said)))
                    if tool:
                        words.append(stem(tool))
                    for path in json.loads(paths) if paths else []:
                        if path not in self._paths[owner] and len(self._paths[owner]) < MAX_PATHS:
                            self._paths[owner].add(path)
                            words.extend(tokens(path.rsplit("/", 1)[-1]))
                    touched.add(owner)
                    self._last_turn = max(self._last_turn, turn_id)
            for owner in touched:
                doc = self._doc.setdefault(owner, len(self._doc))
                self._index.set(doc, self._words[owner])
            self._version = version
        return self

    def search(self, words: Sequence[str], allowed: Collection[str] | None, limit: int) -> list[tuple[str, float]]:
        """The best sessions for the words (`tokens` of the question: stems, not stemmed again), among `allowed`
        (None: any), best first."""
        with self._lock:
            names = list(self._doc)
            keep = None if allowed is None else {self._doc[s] for s in allowed if s in self._doc}
            scored = self._index.scores(list(words), keep)
        ranked = sorted(scored, key=lambda d: (-scored[d], names[d]))[:limit]
        return [(names[d], scored[d]) for d in ranked]

    def request_turns(self, sessions: Sequence[str], words: Sequence[str], per_session: int) -> list[tuple[str, int]]:
        """The turns the best sessions' keys were made from that share words with the question, most shared
        first within each session, sessions in the given order: a hit on a session key retrieves them."""
        wanted = set(words)
        out: list[tuple[str, int]] = []
        with self._lock:
            for owner in sessions:
                shared = [(len(said & wanted), session, seq) for session, seq, said in self.requests.get(owner, [])]
                best = sorted((x for x in shared if x[0]), key=lambda x: (-x[0], x[2]))[:per_session]
                out.extend((session, seq) for _, session, seq in best)
        return out

    def owner(self, session: str) -> str:
        return self.parent.get(session, session)


# Relation names as the words a question uses for them ("wife" is also "spouse"; "lives_in" is "live").
_RELATION_WORDS: dict[str, list[str]] = {}
for _word, _rel in KIN.items():
    _RELATION_WORDS.setdefault(_rel, []).append(_word)
_RELATION_WORDS["spouse"] = ["married", "wife", "husband", "partner"]


def relation_words(relation: str) -> str:
    return " ".join([relation.replace("_", " "), *_RELATION_WORDS.get(relation, [])[:4]])


class RecordKeys:
    """Keys for personal-fact mentions and graph decisions, rebuilt when facts or the graph change."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] = (-1, -1)
        self.keys: list[RecordKey] = []
        self._index = Bm25()

    def refresh(self, store: Store, user_name: str) -> RecordKeys:
        stamp = (store.facts_version(), store.graph_version())
        with self._lock:
            if stamp == self._stamp:
                return self
            keys: list[RecordKey] = []
            for m in store.fact_mentions():
                who = f"{user_name} my i" if m.subject == "user" else m.subject
                text = f"{who} {relation_words(m.relation)} {m.object}. {m.quote}"
                keys.append(RecordKey("fact", text, m.object, m.session, m.seq, m.ts, m.status == "current"))
            for d in store.decision_sources():
                text = f"decided decision {d.name} {d.project} {d.quote}"
                keys.append(RecordKey("decision", text, d.name, d.session, d.seq, d.ts, d.status == "current"))
            self.keys, self._index, self._stamp = keys, Bm25.of(key.text for key in keys), stamp
        return self

    def search(
        self,
        words: Sequence[str],
        allowed: Collection[str] | None,
        horizon: str,
        *,
        personal: bool,
        newest_first: bool,
        limit: int,
    ) -> list[RecordKey]:
        """The best keys before `horizon`, best first. With `newest_first` ("where do i live now") a current
        value or decision gains over one a newer one replaced."""
        with self._lock:
            keys, index = self.keys, self._index
        keep = {
            i
            for i, k in enumerate(keys)
            if (personal or k.kind != "fact")
            and (allowed is None or k.session in allowed)
            and not (k.ts and k.ts > horizon)
        }
        scored = index.scores(list(words), keep)
        if newest_first:
            for i in scored:
                if keys[i].current:
                    scored[i] *= 1.5
        ranked = sorted(scored, key=lambda i: (-scored[i], keys[i].session, keys[i].seq))
        return [keys[i] for i in ranked[:limit]]


def moment_words(text: str) -> list[str]:
    """A moment key's or a question's words: `tokens`, and each version whole ("1.4.0", which `tokens` splits)."""
    return [*tokens(text), *versions(text)]


class MomentKeys:
    """Keys for the moments of one kind derive kept (`read.derive.moments_of`: releases, incidents, decisions),
    rebuilt when they change; held oldest first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: str | None = None
        self.moments: list[Moment] = []
        self._times: list[str] = []
        self._index = Bm25()

    def refresh(self, version: str | None, moments: Callable[[], list[Moment]]) -> MomentKeys:
        """Rebuilt from `moments()` when their `version` (`read.derive.moments_version`) changed."""
        with self._lock:
            if version == self._held:
                return self
            found = sorted(moments(), key=lambda m: (m.ts or "", m.session, m.seqs))
            self._held, self.moments, self._times = version, found, [m.ts or "" for m in found]
            self._index = Bm25.of((m.text for m in found), moment_words)
        return self

    def search(
        self,
        words: Sequence[str],
        allowed: Collection[str] | None,
        horizon: str,
        *,
        since: str | None,
        until: str | None,
        newest_first: bool,
        limit: int,
        fill: bool = True,
    ) -> list[tuple[str, int]]:
        """The turns of the best moments before `horizon`, best first: within [`since`, `until`) when any moment
        is, best by the words and then newest, or with `newest_first` ("when did we last deploy") newest. A word
        in more than COMMON_MOMENT_WORD moments ("deploy" in a long history of releases) is not scored: it tells
        them apart little, and scoring it would read them all. `words` are `moment_words` of the question. Fewer
        than `limit` moments that score are followed by the newest only with `fill`, a window or `newest_first`:
        the newest releases answer "what did we deploy", not "how long after the v2 release did we roll it back"."""
        with self._lock:
            moments, times, index = self.moments, self._times, self._index

        def newest(lo: int, hi: int) -> Iterator[int]:
            return (i for i in range(hi - 1, lo - 1, -1) if allowed is None or moments[i].session in allowed)

        lo, hi = 0, bisect.bisect_right(times, horizon)
        if since is not None and until is not None:
            a, b = bisect.bisect_left(times, since, 0, hi), bisect.bisect_left(times, until, 0, hi)
            if next(newest(a, b), None) is not None:
                lo, hi = a, b
        ranked: list[int] = []
        if not newest_first:
            rare = [w for w in words if len(index.postings.get(w, ())) <= COMMON_MOMENT_WORD]
            scored = {
                i: round(score, 9)
                for i, score in index.scores(rare).items()
                if lo <= i < hi and (allowed is None or moments[i].session in allowed)
            }
            ranked = sorted(scored, key=lambda i: (-scored[i], -i))[:limit]  # among equals, the newest first
        if fill or newest_first or (since is not None and until is not None):
            chosen = set(ranked)
            ranked += itertools.islice((i for i in newest(lo, hi) if i not in chosen), limit - len(ranked))
        return [(moments[i].session, seq) for i in ranked for seq in moments[i].seqs]

"""Retrieval: candidates from BM25 and vectors (and facts and the graph when a config asks),
fused by reciprocal rank, with a time-window list, a recency prior and a thread preference.

Guarantees: the scope is in every query (nothing outside it is read or scored); the same
question over the same corpus gives the same ranking; `context.thread` only ever boosts.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..contract import AGENT_FORMATS, ASSISTANT, TOOL_CALL, TOOL_OUTPUT, TYPED, Passage, Scope
from ..errors import StoreError
from ..read.asides import personal_question, withhold_personal
from ..read.changes import name_words
from ..read.derive import (
    ASIDE_REPLIES_KEY,
    ASIDES_KEY,
    CHANGES,
    DECISIONS,
    INCIDENTS,
    LIKELY_ASIDES_KEY,
    MOMENT_KINDS,
    RELEASES,
    MomentKind,
    aside_replies_of,
    asides_of,
    moments_of,
    moments_version,
)
from ..read.moments import FILE_PATH
from ..read.relations import ALIKE, RELATION_GROUPS, category_members, kin_words, life_context
from ..read.trust import holds_pasted
from ..store.passages import EMBED_CLASSES, PassageRow, rarest_within
from ..store.sqlite import Store, fts_query, fts_words
from ..store.vectors import VectorIndex
from ..text import STOP, parse_ts, project_name, sentences
from . import vector_files
from .configs import RetrievalConfig, get_config
from .derived_vectors import DerivedIndex, DerivedKind
from .directory import PassageDirectory
from .exchanges import EXCHANGES, ExchangeKeys
from .feedback import feedback_terms
from .index import DERIVED
from .keys import MomentKeys, RecordKeys, SessionKeys, moment_words, tokens
from .personal_questions import parse_personal_question
from .sentences import SENTENCES
from .understand import Understanding, is_stop_word, understand
from .vector_files import fingerprint, index_file, worth_writing

_ISO = "%Y-%m-%dT%H:%M:%S.000Z"
# a short window is also searched in the days after it, as one more list below the window's own: what happened is told
# then too ("yesterday we ...", a weekend on the monday). Widening the window itself instead lost a release question
# ("which version did we ship last thursday") to the releases after it
_TOLD_WITHIN = timedelta(days=3)
_TOKEN = re.compile(r"[^\W_]+")  # a token of FTS5's unicode61 tokenizer: letters and digits, split at all else
# "when did we last deploy", "the last release": the newest release first ("last week" is a window)
_LAST = re.compile(
    r"\blast\b(?! (?:week|month|year|night|weekend|quarter|sprint|spring|summer|autumn|fall|winter|few|couple|\d+|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|\w+ (?:days|weeks|months))\b)"
)
_FIX = re.compile(r"\b(?:hot|bug)?fix(?:es|ed|ing)?\b|\bpatch(?:ed|es)?\b|\bresolved\b")
REPORT_REACH = 8  # turns after a release's last looked at for what the assistant said of it
REPLY_REACH = 20  # turns after a typed turn looked at for the assistant's reply to it
PROJECT_NAME_MIN = 4  # a project folder's name this long or longer is looked for in a question ("api" is not)
# A part of a project folder's name names the project ("the kiosk" for harbour-kiosk) when at least this share of the
# passages that say it are the project's, and at least this many
PROJECT_PART_SHARE = 0.8
PROJECT_PART_MIN = 10
PROJECT_PART_COUNT = 20_000  # the most passages counted in a project for it (a few ms)


@dataclass
class Timings:
    stages: dict[str, float] = field(default_factory=dict)


_VERSION = re.compile(r"(v?)(\d+(?:\.\d+)+)")


def _version_forms(terms: Sequence[str]) -> list[str]:
    """The other way of writing each version among the terms: "v4.12.1" for "4.12.1", and "4.12.1" for "v4.12.1"."""
    out: list[str] = []
    for term in terms:
        m = _VERSION.fullmatch(term.lower())
        other = (m.group(2) if m.group(1) else "v" + m.group(2)) if m else None
        if other and other not in terms and other not in out:
            out.append(other)
    return out


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).strftime(_ISO)


# a word in more than COMMON_SHARE of passages is dropped from the search when one in under RARE_SHARE is there
COMMON_SHARE = 0.2
RARE_SHARE = 0.05
# FTS5 ranks ~5 us per matching passage on this machine: a full-text list ranks about this many at most
POSTINGS_BUDGET = 12_000
LARGE_INDEX = 100_000  # passages; past it word counts are kept across corpus versions (see _matches)
# FTS5's bm25() reads every match of its words in the whole index, at ~1 us each: a ranked list counts this many at most
COUNTED_BUDGET = 100_000


VECTOR_CHUNK = 100_000


class VectorCache:
    """The passage vectors of one embedder in a vector index, grown as passages get vectors.

    Passages get vectors in priority order (`EMBED_CLASSES`), each class up to its own mark
    (`embedded_through`): the cache reads each class's rows forward, up to that class's mark, so a
    passage past a mark whose text repeats an embedded one waits for the mark, and the passages before
    it are never skipped; no row is read twice.

    With a folder, a large index is also kept in a file there (`save`), so a new process loads it in
    seconds and reads only the rows added since from the database. The file names the database it
    came from (its `store_id`) and the embedder, and carries a fingerprint of the passages it holds
    (the text hashes of ids spread over its range) and how far it read each class; a file whose
    fingerprint the database no longer matches (another database, one restored from a backup) is
    ignored: the database stays the source of truth. Searches and updates take one lock, so no search
    reads an index being added to.
    """

    def __init__(self, folder: Path | None = None) -> None:
        self._lock = threading.Lock()
        self.folder = folder
        self._model: str | None = None
        self._seen = -1
        self._saved_rows = 0
        self.read_through = [0] * len(EMBED_CLASSES)  # the last passage id read, per priority class
        self.index: VectorIndex | None = None

    def get(self, store: Store, model: str, dim: int, version: int) -> VectorCache:
        """The index, first brought up to date when the store's `vectors_version` moved."""
        with self._lock:
            if self._model != model or self.index is None:
                self._model, self._seen, self._saved_rows = model, -1, 0
                self.index, self.read_through = self._load(store, model, dim)
            if version != self._seen:
                added = 0
                marks = store.embedded_through(model)
                # no mark at all: vectors were put directly, every one is read
                through = marks if any(marks) else [1 << 62] * len(marks)
                while True:  # in chunks and in id order (as one pass would add them), never a row twice
                    bounds = list(zip(self.read_through, through))
                    open_ = [(r, t) for r, t in bounds if t > r]  # classes with rows still to read
                    if not open_:
                        break
                    ids, matrix = store.load_vectors(
                        model,
                        dim,
                        after_id=min(r for r, _ in open_),
                        through_id=max(t for _, t in open_),
                        limit=VECTOR_CHUNK,
                        classes=bounds,
                    )
                    if not len(ids):
                        break
                    self.index.add(ids, matrix)
                    last, added = int(ids.max()), added + len(ids)
                    self.read_through = [max(r, min(last, t)) for r, t in zip(self.read_through, through)]
                if any(marks):  # every passage of each class up to its mark is read: the next read starts there
                    self.read_through = [max(r, m) for r, m in zip(self.read_through, marks)]
                self._seen = version
                if added >= vector_files.SAVE_FROM_ROWS:  # a long load from the database is not paid twice
                    self._write(store, model)
        return self

    def _load(self, store: Store, model: str, dim: int) -> tuple[VectorIndex, list[int]]:
        """The index kept in the file with how far it read each class, when the database still matches it;
        else an empty one."""
        path = index_file(self.folder, store, model)
        if path is not None and path.exists():
            try:
                index = VectorIndex.load(path)
            except StoreError:
                index = None  # unreadable: rebuilt from the database and written again
            if index is not None and index.dim == dim:
                kept, read_through = _read_note(index.note, index.max_id)
                if kept == fingerprint(store, index.max_id):
                    self._saved_rows = len(index)
                    return index, read_through
        return VectorIndex(dim), [0] * len(EMBED_CLASSES)

    def save(self, store: Store, model: str, dim: int) -> bool:
        """Bring the index up to date and write its file when it is large and has grown since; True when
        written."""
        self.get(store, model, dim, store.vectors_version())
        with self._lock:
            return self._write(store, model)

    def _write(self, store: Store, model: str) -> bool:
        path = index_file(self.folder, store, model)
        index = self.index
        if path is None or index is None or not worth_writing(len(index), self._saved_rows):
            return False
        try:
            note = json.dumps({"fingerprint": fingerprint(store, index.max_id), "read_through": self.read_through})
            index.save(path, note=note)
        except OSError:
            return False  # a read-only or full disk: the next process loads from the database again
        self._saved_rows = len(index)
        return True

    def search(
        self, query: np.ndarray, allowed: np.ndarray | None, k: int, *, exact: bool = True
    ) -> list[tuple[int, float]]:
        with self._lock:
            if self.index is None or len(self.index) == 0:
                return []
            return self.index.search(query, k, allowed, exact=exact)


def _read_note(note: str, max_id: int) -> tuple[str, list[int]]:
    """(fingerprint, the last id read per priority class) from a vector file's note. A file from before the
    classes holds every vector up to its largest id (then read in passage order): each class read that far."""
    try:
        kept = json.loads(note)
        read_through = [int(i) for i in kept["read_through"]]
        if len(read_through) == len(EMBED_CLASSES):
            return str(kept["fingerprint"]), read_through
    except (ValueError, TypeError, KeyError):
        pass
    return note, [max(0, max_id)] * len(EMBED_CLASSES)


@dataclass(frozen=True)
class TextSearch:
    """One full-text list, chosen on the asking thread (`Retriever._text_search`) and run on any connection to
    the store: SQLite's FTS5 over `words` within the passage ids `ids` (None: PostgreSQL bounds its own)."""

    words: tuple[str, ...]
    scope: Scope
    limit: int
    since: str | None
    until: str | None
    ids: tuple[int, int] | None = None
    ranked: bool = True

    def run(self, store: Store) -> list[tuple[int, float]]:
        if not self.words:
            return []
        if store.searches_in_database:
            return store.full_text(list(self.words), self.scope, limit=self.limit, since=self.since, until=self.until)
        return store.bm25(
            fts_query(self.words),
            self.scope,
            limit=self.limit,
            since=self.since,
            until=self.until,
            ids=self.ids,
            ranked=self.ranked,
        )


class SideSearches:
    """Full-text searches run on a second connection to the store, in one thread of their own, while the asking
    thread ranks vectors: SQLite and the vector index both let go of Python's lock while they work, so on two
    cores the two take about as long as the longer one. The connection is opened by `open_store` on the asking
    thread, at the first search, and used only by the search thread after that; with none (no opener, it could
    not be opened, or closed) or nothing to do beside, the searches run on the asking thread and its connection."""

    def __init__(self, open_store: Callable[[], Store] | None) -> None:
        self._open = open_store
        self._store: Store | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def start(
        self, searches: Sequence[TextSearch], own: Store, *, beside: bool = True
    ) -> Callable[[], list[list[tuple[int, float]]]]:
        """Start `searches` (in the search thread when the asking thread has work to do `beside` them); the
        returned call waits for their lists, in their order."""
        pool = self.ready() if beside and searches else None
        if pool is not None:
            try:
                return pool.submit(self._run, list(searches)).result
            except RuntimeError:  # closed meanwhile, or the interpreter is shutting down
                pass
        done = [search.run(own) for search in searches]
        return lambda: done

    def ready(self) -> ThreadPoolExecutor | None:
        """The search thread, its connection opened first; None when there is no second connection."""
        with self._lock:
            if self._pool is None and self._open is not None:
                opener, self._open = self._open, None  # one try: a store that refused is not asked again
                try:
                    self._store = opener()
                except StoreError:
                    return None
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="vyre-search")
            return self._pool

    def _run(self, searches: list[TextSearch]) -> list[list[tuple[int, float]]]:
        store = self._store
        assert store is not None  # set before the pool exists, and closed only after it has stopped
        return [search.run(store) for search in searches]

    def close(self) -> None:
        with self._lock:
            pool, self._pool, self._open = self._pool, None, None
        if pool is not None:
            pool.shutdown(wait=True)
        if self._store is not None:
            self._store.close()
            self._store = None


class Retriever:
    def __init__(
        self,
        store: Store,
        embedder: Any | None = None,
        user_name: str = "you",
        expander: Callable[[str], list[str]] | None = None,
        folder: Path | None = None,
        side_store: Callable[[], Store] | None = None,
    ) -> None:
        """`side_store` opens a second connection to the same store, for the full-text searches that run while
        vectors are ranked (`SideSearches`)."""
        self.store = store
        self.side = SideSearches(side_store)
        self.expander = expander
        self.embedder = embedder
        self.user_name = user_name
        self.vectors = VectorCache(folder)
        self.directory = PassageDirectory()
        self._facts_key: int | None = None
        self._df: dict[str, int] = {}
        self._df_version = -1
        self._df_total = -1
        self._mentions: list[tuple[Any, frozenset[str]]] = []
        self.session_keys = SessionKeys()
        self._conversations = (-1, False)  # (corpus version, whether the store holds a conversation)
        # per kind of aside (its meta key: ASIDES_KEY, LIKELY_ASIDES_KEY): (the asides as stored, their passage ids)
        self._aside_ids: dict[str, tuple[str | None, list[int]]] = {}
        # (as stored, the clauses of the assistant's replies to asides that speak of a life, by turn)
        self._replies: tuple[str | None, dict[tuple[str, int], frozenset[str]]] = (None, {})
        self.record_keys = RecordKeys()
        self.moment_keys = {kind.key: MomentKeys() for kind in MOMENT_KINDS}
        self.derived = {kind.name: DerivedIndex(kind, folder) for kind in DERIVED}  # sentences, exchanges
        self.exchange_keys = ExchangeKeys()
        # (corpus version, each project folder's name with the parts that may name it and its folders)
        self._projects: tuple[int, tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]] = (-1, ())
        self._part_named: dict[tuple[str, tuple[str, ...]], bool] = {}  # (part, folders): whether it names them
        self._part_total = -1  # the passages there were when `_part_named` was begun

    def close(self) -> None:
        self.side.close()

    def warm(self) -> None:
        """Load now what a first question would wait for here: the passage directory, each kind of moment's keys
        (a second or two at a million turns), the passages of the person's asides, the facts' mentions, the
        projects' names, the conversations' exchanges and the second connection."""
        self.directory.refresh(self.store)
        for kind in MOMENT_KINDS:
            self._moments(kind)
        for key in (ASIDES_KEY, LIKELY_ASIDES_KEY):
            self._aside_passages(key)
        self._fact_mentions()
        self._projects_named("")  # each project's name and the parts of it that may name it
        if self._holds_conversations():
            self.exchange_keys.refresh(self.store)
        self.side.ready()

    def _moments(self, kind: MomentKind) -> MomentKeys:
        """The keys of the moments of `kind`, built again when a derive changed them."""
        return self.moment_keys[kind.key].refresh(
            moments_version(self.store, kind), functools.partial(moments_of, self.store, kind)
        )

    def retrieve(
        self,
        question: str,
        scope: Scope,
        *,
        k: int = 8,
        now: datetime | None = None,
        config: str | RetrievalConfig | None = None,
        thread: str | None = None,
        understanding: Understanding | None = None,
        extra_terms: Sequence[str] = (),
        chars: int | None = None,
    ) -> list[Passage]:
        """The best passages for `question` in `scope`, best first: at most `k`, and with `chars` also no more
        than fill that many characters of text (`within_chars`), so a model reads a budget, not a count."""
        personal = personal_question(question)
        if not scope.personal_allowed and personal:
            return []  # the person's life is never searched for an agent
        cfg = config if isinstance(config, RetrievalConfig) else get_config(config)
        now = now or datetime.now(UTC)
        u = understanding or understand(question, now)
        lists: list[tuple[float, list[tuple[int, float]], str]] = []
        window = u.window
        # memory as of `now`: turns after the question's time are not read
        horizon = _iso(now)
        since = _iso(window.start) if window else None
        until = min(_iso(window.end), horizon) if window else None
        if cfg.graph and self.expander is not None and scope.personal_allowed:
            extra_terms = [*extra_terms, *self.expander(question)]  # "my wife" also searches her name
        if cfg.graph and personal and scope.personal_allowed:
            extra_terms = [*extra_terms, *kin_words(question)]  # "my mum" also searches "maman"
        if cfg.tool_kinds:
            extra_terms = [*extra_terms, *category_members(question)]  # "which editor": vim, helix said in passing
        terms = list(u.terms) + list(extra_terms)
        terms += _version_forms(terms)  # "4.12.1" is written "v4.12.1" as often, and the index tells them apart
        # A short exact window ("yesterday", "last week", "on tuesday") names when it happened: search
        # inside it, and keep the unrestricted lists at a lower weight in case the words misled.
        # A longer or fuzzy one ("in august", "about two months ago") only adds the windowed lists.
        narrow = bool(window and window.strength == "exact" and (window.end - window.start).days <= 8)
        outside = cfg.narrow_outside_weight if narrow else 1.0
        # the days after a short window, up to the time asked, where what happened in it is told too
        told_after = min(_iso(window.end + _TOLD_WITHIN), horizon) if window and narrow and until else None
        if told_after is not None and until is not None and told_after <= until:
            told_after = None  # a window not yet over when asked ("today", "this week")
        # the full-text lists run on the side connection while this thread ranks vectors (SideSearches); so do the
        # asides' by the words said around a part of a life, filtered when the asides are known
        text_lists: list[tuple[float, TextSearch]] = []
        if cfg.bm25:
            words = self._selective(terms or [question])
            text_lists.append(
                (cfg.bm25_weight * outside, self._text_search(words, scope, cfg.candidates, None, horizon))
            )
            if window:
                windowed = self._text_search(words, scope, cfg.candidates // 2, since, until)
                text_lists.append((cfg.window_weight * (1.0 / outside if narrow else 1.0), windowed))
            if told_after:
                after = self._text_search(words, scope, cfg.candidates // 2, until, told_after)
                text_lists.append((cfg.window_weight, after))
            compounded = cfg.compounds_share and u.qclass in _COMPOUND_CLASSES and not personal
            joined = [w for w in _compounds(u.terms) if self._matches(w)] if compounded else []  # most are no word
            if joined:
                compound = self._text_search(joined, scope, cfg.candidates // 2, None, horizon)
                text_lists.append((cfg.bm25_weight * outside * cfg.compounds_share, compound))
        asides_wanted = bool(cfg.asides_weight and cfg.dense and scope.personal_allowed and personal)
        asides_wanted = asides_wanted and self.embedder is not None
        context = life_context(question) if asides_wanted and cfg.life_context_share and cfg.bm25 else []
        if context:
            in_context = self._text_search(
                self._selective([*terms, *context]), scope, cfg.candidates * 3, None, horizon
            )
        texts = self.side.start(
            [search for _, search in text_lists] + ([in_context] if context else []),
            self.store,
            beside=cfg.dense and self.embedder is not None,  # vectors to rank meanwhile
        )
        query: np.ndarray | None = None
        cache: VectorCache | None = None
        dense_lists: list[tuple[float, list[tuple[int, float]], str]] = []
        if cfg.dense and self.embedder is not None:
            pool: dict[str, list[tuple[int, float]]] = {}  # one search of the index serves both dense lists
            # the question's own words: the names and folders the graph adds widen the full-text search, while
            # a vector of the question with them appended is of no sentence anyone wrote
            query = self.embedder.embed([question])[0]
            cache = (
                None  # the database searches its own vector index
                if self.store.searches_in_database
                else self.vectors.get(self.store, self.embedder.name, self.embedder.dim, self.store.vectors_version())
            )
            dense_lists.append(
                (
                    cfg.dense_weight * outside,
                    self._dense(cache, query, scope, horizon, cfg.candidates, pool=pool),
                    "dense",
                )
            )
            if window:
                windowed_d = self._dense(
                    cache, query, scope, until or horizon, cfg.candidates // 2, since=since, pool=pool
                )
                dense_lists.append((cfg.window_weight * (1.0 / outside if narrow else 1.0), windowed_d, "dense"))
            if told_after:
                after_d = self._dense(cache, query, scope, told_after, cfg.candidates // 2, since=until, pool=pool)
                dense_lists.append((cfg.window_weight, after_d, "dense"))
        aside_lists: list[tuple[float, list[tuple[int, float]], str]] = []
        if asides_wanted and query is not None:
            for kind, share in ((ASIDES_KEY, 1.0), (LIKELY_ASIDES_KEY, cfg.likely_asides_share)):
                if share:
                    found_asides = self._asides(kind, cache, query, scope, horizon, cfg.asides_limit)
                    aside_lists.append((cfg.asides_weight * share, found_asides, "asides"))
        searched = texts()
        lists.extend((weight, ranked, "bm25") for (weight, _), ranked in zip(text_lists, searched))
        lists.extend(dense_lists)
        found: dict[int, PassageRow] = {}
        if cfg.feedback_terms and cfg.bm25 and cfg.dense and lists:
            # Pseudo-relevance feedback: the words the best full-text passages share, idf-weighted over
            # every candidate either search found, widen a second full-text search (hybrid only).
            found.update(self.store.passages_by_id(list({pid for _, ranked, _ in lists for pid, _ in ranked})))
            top = [found[pid].text for pid, _ in lists[0][1][: cfg.feedback_docs] if pid in found]
            extra = feedback_terms(top, [row.text for row in found.values()], terms, cfg.feedback_terms)
            if extra:
                widened = self._full_text(self._selective(terms + extra), scope, cfg.candidates, None, horizon)
                lists.append((cfg.feedback_weight * outside, widened, "bm25"))
        if cfg.versions_weight and not personal and (things := _versioned(question, u.terms)):
            # "what dbt version are we on": the turns that write a version number right after the thing's name
            # ("dbt 1.8.4 -> 1.9.1", "prod is on Airflow 2.9.3"), not those that say "version" of something else
            versioned = self._versions_of(things, scope, horizon, cfg.candidates, newest=u.wants_current)
            lists.append((cfg.versions_weight, versioned, "versions"))
        if cfg.facts and scope.personal_allowed:
            lists.append((cfg.facts_weight, self._fact_candidates(question, scope, horizon), "facts"))
        if cfg.sentences_weight and query is not None:
            # the person's own life ("what's my cat called"): said in one sentence of a long turn about the work
            weight = cfg.own_life_sentences_weight if personal and u.about_user else 0.0
            sentences = self._sentences(query, scope, horizon, cfg.candidates)
            lists.append((weight or cfg.sentences_weight, sentences, "sentences"))
        if cfg.conversation_feedback and query is not None and self._holds_conversations():
            widened = self._conversation_feedback(cache, query, lists, cfg, scope, horizon)
            lists.append((cfg.conversation_feedback_weight * outside, widened, "feedback"))
        if cfg.exchanges_weight and query is not None and self._holds_conversations():
            for found_exchanges in self._exchanges(question, query, scope, horizon, cfg.candidates):
                lists.append((cfg.exchanges_weight * outside, found_exchanges, "exchanges"))
        lists.extend(aside_lists)
        if context:
            lists.append(
                (cfg.asides_weight * cfg.life_context_share, self._in_asides(searched[-1], cfg), "lifecontext")
            )
        key_words = [w for t in terms or [question] for w in tokens(t)]
        allowed: frozenset[str] | None = None
        # per kind of moment: whether the question is about one, whether the newest fill a list the words leave short
        # (it asks for a release, "what did we ship", not of something a release did), and whether the newest come
        # first ("when did we last deploy"; "what did we last decide about X" is found by its words, among equals
        # the newest)
        newest = u.wants_current or bool(_LAST.search(question.lower()))
        moment_lists = (
            (RELEASES, cfg.releases_weight, cfg.releases_limit, u.about_release, u.qclass == "deploy", newest),
            (INCIDENTS, cfg.incidents_weight, cfg.incidents_limit, u.about_incident, False, False),
            # a work decision: a question `personal_question` reads as the person's life ("when did we move house") is
            # never about one; a question that may ask what a thing uses or where it runs ("where is the site hosted"),
            # though no word of a decision is in it, at a share: the decision that chose it
            (
                DECISIONS,
                cfg.decisions_weight * (1.0 if u.about_decision else cfg.decisions_state_share),
                cfg.decisions_limit,
                not personal and (u.about_decision or u.qclass in _STATE_CLASSES),
                False,
                False,
            ),
            # a value of the work asked for ("what's the pool size"), or what understand gives no kind: the edits
            # that changed a value, the newest among equals
            (
                CHANGES,
                cfg.changes_weight,
                cfg.changes_limit,
                not personal and u.qclass in ("number", "other"),
                False,
                False,
            ),
        )
        for of_kind, weight, limit, about, fill, newest_first in moment_lists:
            if weight and about:
                if allowed is None:
                    allowed = self.directory.refresh(self.store).sessions_in(self.store, scope)
                found_moments = self._moments(of_kind).search(
                    moment_words(" ".join(terms or [question])),
                    allowed,
                    horizon,
                    since=since,
                    until=until,
                    newest_first=newest_first,
                    limit=limit,
                    fill=fill,
                )
                if of_kind is RELEASES and cfg.release_sessions and not newest_first and _fix_asked(u, question):
                    # the release that shipped a fix is done where the fix was worked on
                    best = [pid for pid, _ in searched[0][: cfg.release_sessions]] if cfg.bm25 else []
                    in_sessions = self._releases_in(best, found, since, until or horizon)
                    ids = self.store.passage_ids_for_turns(in_sessions, scope)
                    lists.append((weight, [(pid, 1.0) for pid in ids], of_kind.name))
                if of_kind is RELEASES and cfg.release_reports:
                    found_moments = self._with_reports(found_moments)
                ids = self.store.passage_ids_for_turns(found_moments, scope)
                weight *= cfg.newest_weight if newest_first else 1.0
                lists.append((weight, [(pid, 1.0) for pid in ids], of_kind.name))
        if cfg.keys_weight:
            if allowed is None:  # a moments list may have read them already
                allowed = self.directory.refresh(self.store).sessions_in(self.store, scope)
            hits = self.record_keys.refresh(self.store, self.user_name).search(
                key_words,
                allowed,
                horizon,
                personal=scope.personal_allowed,
                newest_first=u.wants_current,
                limit=cfg.keys_limit,
            )
            turns = list(dict.fromkeys((k.session, k.seq) for k in hits))
            ranked_keys = self.store.passage_ids_for_turns(turns, scope)
            lists.append((cfg.keys_weight, [(pid, 1.0) for pid in ranked_keys], "keys"))
            # what the best keys say ("the dog is Rex") is searched for too: the turns that name it in passing
            values = [w for k in hits[: cfg.key_values] for w in fts_words([k.value])]
            values = [w for w in dict.fromkeys(values) if w not in terms and not is_stop_word(w)]
            if values and cfg.bm25:
                named = self._full_text(self._selective(values), scope, cfg.candidates // 2, None, horizon)
                lists.append((cfg.keys_weight * cfg.key_values_weight, named, "keys"))
        best_sessions: list[str] = []
        if cfg.session_keys_weight or (cfg.session_turns and self._may_read_sessions(cfg)):
            if allowed is None:
                allowed = self.directory.refresh(self.store).sessions_in(self.store, scope)
            keys = self.session_keys.refresh(self.store)
            among = allowed & keys.conversations if cfg.session_turns_conversations else allowed
            found_sessions = keys.search(key_words, among, cfg.session_keys_limit)
            best_sessions = [s for s, _ in found_sessions]
            if cfg.session_requests:
                asked = self.session_keys.request_turns(best_sessions[: cfg.session_requests], key_words, 2)
                from_keys = self.store.passage_ids_for_turns(asked, scope)
                lists.append((cfg.session_requests_weight, [(pid, 1.0) for pid in from_keys], "sessions"))
            if cfg.session_turns and query is not None:
                inside = self._session_turns(cache, query, scope, best_sessions[: cfg.session_turns], horizon)
                lists.append((cfg.session_turns_weight, inside, "sessions"))
        fused = _fuse(lists, cfg.rrf_k)
        via: dict[int, set[str]] = {}
        for _, ranked, name in lists:
            for pid, _score in ranked:
                via.setdefault(pid, set()).add(name)
        if not fused:
            return []
        rows = self._rows(list(fused), found)
        if cfg.neighbor_weight:
            # A turn next to a strong candidate shares some of its score: an answer is often the line
            # before or after the one that repeats the question's words.
            at = {(r.session, r.seq): pid for pid, r in rows.items()}
            own = dict(fused)
            for pid, r in rows.items():
                for step in (-1, 1):
                    other = at.get((r.session, r.seq + step))
                    if other is not None and other != pid:
                        fused[pid] += cfg.neighbor_weight * own[other]
            if cfg.neighbor_expand:
                # a bug's report: the assistant's first words after it are likely its diagnosis; a tool call that
                # set a value: the assistant's first words after it say what it is now
                typed_share = cfg.bug_reply_share if u.about_incident or u.qclass == "bug" else 0.0
                call_share = cfg.value_reply_share if u.qclass == "number" else 0.0
                self._add_neighbours(fused, via, rows, own, cfg, scope, horizon, typed_share, call_share)
        if best_sessions and cfg.session_keys_weight:
            # sessions whose keys match: every candidate in one of them gains by its session's rank
            key_rank = {s: i for i, s in enumerate(best_sessions)}
            for pid in fused:
                if pid in rows:
                    at_rank = key_rank.get(self.session_keys.owner(rows[pid].session))
                    if at_rank is not None:
                        fused[pid] += cfg.session_keys_weight / (cfg.rrf_k + at_rank + 1)
        if cfg.session_weight:
            per_session: dict[str, float] = {}
            for pid, score in fused.items():
                if pid in rows:
                    per_session[rows[pid].session] = per_session.get(rows[pid].session, 0.0) + score
            ranked_sessions = sorted(per_session, key=lambda s: (-per_session[s], s))
            session_rank = {s: i for i, s in enumerate(ranked_sessions)}
            for pid in fused:
                if pid in rows:
                    fused[pid] += cfg.session_weight / (cfg.rrf_k + session_rank[rows[pid].session] + 1)
        kind_w, session_w = dict(cfg.kind_weights), dict(cfg.session_weights)
        recency = cfg.current_recency_weight if u.wants_current else cfg.recency_weight
        pasted = bool(cfg.pasted_weight) and u.qclass == "who-said"
        in_projects = self._projects_named(question) if cfg.project_weight else frozenset()
        scored = []
        for pid, score in fused.items():
            row = rows.get(pid)
            if row is None:
                continue
            prior = 1.0 if via.get(pid, set()) & _JUDGED else kind_w.get(row.kind, 1.0)
            score *= prior * session_w.get(row.session_kind, 1.0)
            shape = _ANSWER_SHAPES.get(u.qclass) if cfg.answer_shape_weight else None
            if shape is not None and shape.search(row.text):
                score *= 1.0 + cfg.answer_shape_weight
            score *= 1.0 + recency * _freshness(row.ts, now)
            if pasted and row.kind == TYPED and holds_pasted(row.text):
                score *= 1.0 + cfg.pasted_weight
            if cfg.speaker_weight and _spoken_by_named(row, question):
                score *= 1.0 + cfg.speaker_weight
            if thread and row.session == thread:
                score *= 1.0 + cfg.thread_weight
            if in_projects and project_name(row.cwd).lower() in in_projects:
                score *= 1.0 + cfg.project_weight
            scored.append((score, pid, row))
        scored.sort(key=lambda x: (-x[0], x[1]))
        out: list[Passage] = []
        seen_turns: set[int] = set()
        seen_texts: set[tuple[str | None, str]] = set()
        replies = self._aside_replies() if not scope.personal_allowed else {}
        for score, pid, row in scored:
            if row.turn in seen_turns:
                continue  # pieces of one turn: keep the best
            seen_turns.add(row.turn)
            same = (row.cwd, " ".join(row.text.lower().split()))
            if same in seen_texts:
                continue  # a request or reply said again word for word in one project (a routine step): its best copy
            seen_texts.add(same)
            passage: Passage | None = self._passage(row, score, tuple(sorted(via[pid])))
            if passage is not None and not scope.personal_allowed:
                # an agent: the person's asides (and what replies to them speak of) cut out, a turn of nothing else
                # dropped
                passage = withheld(passage, replies.get((row.session, row.seq), frozenset()))
            if passage is None:
                continue
            out.append(passage)
            if len(out) >= k:
                break
        return within_chars(out, chars) if chars is not None else out

    def changed_since(self, name: str, value: str, after: Passage, scope: Scope, now: datetime) -> bool:
        """Whether the setting `name` that the edit `after` set to `value` may hold another value at `now` (in
        `scope`): a later tool call names it (an edit, a write, a shell command, a deploy's environment); the person
        or the assistant later says it with another number; an edit of another project sets it too; or a later git
        command puts files back."""
        named = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
        spoken = re.compile(rf"(?<![\w-]){re.escape(' '.join(name_words(name)).lower())}(?![\w-])")
        allowed = self.directory.refresh(self.store).sessions_in(self.store, scope)
        horizon, since = _iso(now), after.ts or ""
        told = value.split()[0].rstrip("%")
        for hit in self.store.search(name, limit=500):
            t, ts = hit.turn, hit.turn.ts or ""
            if ts > horizon or (allowed is not None and t.session not in allowed):
                continue
            if t.session == after.session and t.seq <= after.seq + 1:
                continue  # the edit itself and what it printed
            if t.kind == TOOL_CALL and t.name not in _READS and named.search(t.text):
                if ts > since or (t.cwd != after.cwd and t.name in _EDITS):
                    return True  # named by a later call, or edited in another project
            elif t.kind in (TYPED, ASSISTANT) and ts > since:
                said = [x for x in sentences(t.text) if named.search(x) or spoken.search(x.lower())]
                if any(n != told for x in said for n in re.findall(r"\d+(?:\.\d+)?", x)):
                    return True  # said later with another number ("put it back to 100 by hand")
        path = FILE_PATH.search(after.text)
        file = path.group(1).strip().rsplit("/", 1)[-1] if path else ""
        for query in dict.fromkeys(q for q in (file, "checkout restore revert reset hard stash") if q):
            for hit in self.store.search(query, limit=200):
                t = hit.turn
                if (
                    t.kind == TOOL_CALL
                    and t.cwd == after.cwd
                    and since < (t.ts or "") <= horizon
                    and _RESTORES.search(t.text)
                ):
                    return True  # files put back as they were ("git checkout -- config/sync.py", "git stash")
        return False

    def _projects_named(self, question: str) -> frozenset[str]:
        """The names of the project folders `question` names, lowercased: by the whole name as a word
        ("billing-api"), or by a part of it that names that project alone ("the kiosk" for "harbour-kiosk":
        `_own_part`, and the history says it mostly in that project's sessions, `_part_names`)."""
        version = self.store.corpus_version()
        if self._projects[0] != version:
            in_folders: dict[str, list[str]] = {}
            for f in self.store.project_folders():
                if "/." not in f.replace("\\", "/"):  # not a tool's own folder (~/.vyre/threads)
                    in_folders.setdefault(project_name(f).lower(), []).append(f)
            names = sorted(n for n in in_folders if len(n) >= PROJECT_NAME_MIN)
            parts = {n: _NAME_PARTS.split(n) for n in names}
            shared = Counter(p for n in names for p in set(parts[n]))
            own = {n: tuple(p for p in parts[n] if _own_part(p, parts[n], shared)) for n in names}
            self._projects = (version, tuple((n, own[n], tuple(in_folders[n])) for n in names))
        low = question.lower()
        named: set[str] = set()
        for name, own_parts, dirs in self._projects[1]:
            said = [p for p in own_parts if _name_pattern(p, any_case=False).search(low)]
            if _name_pattern(name, any_case=False).search(low) or any(self._part_names(p, dirs) for p in said):
                named.add(name)
        return frozenset(named)

    def _part_names(self, part: str, folders: tuple[str, ...]) -> bool:
        """Whether the history says `part` of a project's name mostly in that project's sessions (whose passages all
        carry the name: at least PROJECT_PART_SHARE of the passages that say it, and PROJECT_PART_MIN of them): the
        project's own word ("kiosk"), not one other work uses too ("invoice" beside a billing service). Counted only
        for a part a question says, and kept until the history has grown a tenth (an asked question, stored in its
        thread, is a new corpus version)."""
        total = self.store.passage_count()
        if not self._part_total <= total <= self._part_total * 1.1:
            self._part_named, self._part_total = {}, total
        known = self._part_named.get((part, folders))
        if known is None:
            everywhere = self._matches(part)  # counted, or estimated on a large index
            known = False
            if everywhere * PROJECT_PART_SHARE <= PROJECT_PART_COUNT:  # else too common a word to count in a project
                limit = min(everywhere + 1, PROJECT_PART_COUNT)
                scope = Scope.of(project_cwds=folders)
                within = len(TextSearch((part,), scope, limit, None, None, ranked=False).run(self.store))
                known = within >= PROJECT_PART_MIN and within >= PROJECT_PART_SHARE * everywhere
            self._part_named[(part, folders)] = known
        return known

    def _rows(self, pids: list[int], found: dict[int, PassageRow]) -> dict[int, PassageRow]:
        """The rows of passages `pids`: those in `found`, the others read."""
        rows = {pid: found[pid] for pid in pids if pid in found}
        rows.update(self.store.passages_by_id([pid for pid in pids if pid not in found]))
        return rows

    def _releases_in(
        self, pids: list[int], found: dict[int, PassageRow], since: str | None, until: str, limit: int = 6
    ) -> list[tuple[str, int]]:
        """The turns of the releases (`RELEASES`) done in [`since`, `until`) in the sessions of passages `pids` (best
        first): the best passage's session first, newest first within a session, at most `limit`."""
        rows = self._rows(pids, found)
        order = {s: i for i, s in enumerate(dict.fromkeys(rows[pid].session for pid in pids if pid in rows))}
        moments = self._moments(RELEASES).moments  # oldest first: read once, newest first
        done = [m for m in reversed(moments) if m.session in order and (since or "") <= (m.ts or "") < until]
        done.sort(key=lambda m: order[m.session])  # stable: newest first within a session
        return list(itertools.islice(((m.session, seq) for m in done for seq in m.seqs), limit))

    def _with_reports(self, turns: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """`turns` (a moments list's, best first) with, after each run of one session's turns in order (a moment's: a
        call and its output), the assistant's first words within REPORT_REACH turns after it: what it said of the
        release it ran or saw ("v2 is live: ..."), which a question of the release is often answered by."""
        out: list[tuple[str, int]] = []
        for i, (session, seq) in enumerate(turns):
            out.append((session, seq))
            if i + 1 < len(turns) and turns[i + 1][0] == session and turns[i + 1][1] > seq:
                continue  # the moment goes on
            after = self.store.turns(session, start=seq + 1, end=seq + 1 + REPORT_REACH)
            said = next((t for t in after if t.kind == ASSISTANT), None)
            if said is not None and (session, said.seq) not in out:
                out.append((session, said.seq))
        return out

    def _asides(
        self, key: str, cache: VectorCache | None, query: np.ndarray, scope: Scope, horizon: str, k: int
    ) -> list[tuple[int, float]]:
        """The `k` nearest passages of the person's asides of one kind (`asides_of(store, key)`) in scope and
        before `horizon`."""
        kept = self.directory.refresh(self.store).keep(self.store, scope, self._aside_passages(key), until=horizon)
        # approximate over a large index (the usual share of its cells): the asides are one more list, not a scope
        return self._nearest_among(cache, query, kept, k, exact=False)

    def _sentences(self, query: np.ndarray, scope: Scope, horizon: str, k: int) -> list[tuple[int, float]]:
        """The `k` passages of typed words (in scope, before `horizon`) whose nearest sentence is nearest the
        question (ask/sentences.py)."""
        return self._kept(self._nearest_derived(SENTENCES, query, k), scope, horizon)

    def _exchanges(
        self, question: str, query: np.ndarray, scope: Scope, horizon: str, k: int
    ) -> list[list[tuple[int, float]]]:
        """The `k` passages of conversations (in scope, before `horizon`) whose exchanges best match the question:
        by its own words (measured: better than with the words the graph and the kinds of tool add), and by its
        vector (ask/exchanges.py)."""
        words = [w for w in tokens(question) if not is_stop_word(w)]
        by_words = self.exchange_keys.refresh(self.store).search(words, k)
        by_vectors = self._nearest_derived(EXCHANGES, query, k)
        return [self._kept(by_words, scope, horizon), self._kept(by_vectors, scope, horizon)]

    def _nearest_derived(self, kind: DerivedKind, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The `k` passages whose nearest derived text of `kind` is nearest `query` (ask/derived_vectors.py)."""
        assert self.embedder is not None
        return self.derived[kind.name].refresh(self.store, self.embedder.name, self.embedder.dim).search(query, k)

    def _kept(self, found: list[tuple[int, float]], scope: Scope, horizon: str) -> list[tuple[int, float]]:
        """Of ranked passages, those in scope and before `horizon`."""
        kept = set(self.directory.refresh(self.store).keep(self.store, scope, [pid for pid, _ in found], until=horizon))
        return [(pid, score) for pid, score in found if pid in kept]

    def _aside_passages(self, key: str) -> list[int]:
        """The passages of the asides of one kind, sorted; read again when a derive changed them."""
        raw = self.store.get_meta(key)
        held = self._aside_ids.get(key)
        if held is None or raw != held[0]:
            held = (raw, sorted(self.store.passage_ids_for_turns(asides_of(self.store, key), Scope())))
            self._aside_ids[key] = held
        return held[1]

    def _in_asides(self, ranked: list[tuple[int, float]], cfg: RetrievalConfig) -> list[tuple[int, float]]:
        """The person's asides (of both kinds `_asides` searched) among a full-text list over the question's words
        and the words said around the parts of a life it names (`life_context`: "date", "anniversary" for a
        partner)."""
        held = [self._aside_passages(key) for key in (ASIDES_KEY, LIKELY_ASIDES_KEY)]  # each sorted
        return [(pid, score) for pid, score in ranked if any(_holds(ids, pid) for ids in held)][: cfg.asides_limit]

    def _aside_replies(self) -> dict[tuple[str, int], frozenset[str]]:
        """`aside_replies_of`, read again when a derive changed it."""
        raw = self.store.get_meta(ASIDE_REPLIES_KEY)
        if raw != self._replies[0]:
            self._replies = (raw, aside_replies_of(self.store))
        return self._replies[1]

    def _nearest_among(
        self, cache: VectorCache | None, query: np.ndarray, ids: Sequence[int], k: int, *, exact: bool = True
    ) -> list[tuple[int, float]]:
        """The `k` passages among `ids` (already kept to a scope and time) nearest `query`: in the in-memory index
        (`exact` as for `VectorIndex.search`), or inside the database when it searches its own vectors (`cache`
        None)."""
        if not len(ids):
            return []
        if cache is None:
            assert self.embedder is not None
            return self.store.nearest(self.embedder.name, query, Scope(), k, ids=[int(i) for i in ids])
        return cache.search(query, np.asarray(ids, dtype=np.int64), k, exact=exact)

    def _may_read_sessions(self, cfg: RetrievalConfig) -> bool:
        """Whether there are sessions for `session_turns` to read: with `session_turns_conversations`, only when
        the store holds a conversation."""
        return not cfg.session_turns_conversations or self._holds_conversations()

    def _holds_conversations(self) -> bool:
        """Whether the store holds a conversation: a session of any format but a coding agent's (asked once per
        corpus version, so a coding agent's history never builds the session keys the conversations' lists read)."""
        version = self.store.corpus_version()
        if self._conversations[0] != version:
            self._conversations = (version, self.store.has_conversations(AGENT_FORMATS))
        return self._conversations[1]

    def _conversation_feedback(
        self,
        cache: VectorCache | None,
        query: np.ndarray,
        lists: list[tuple[float, list[tuple[int, float]], str]],
        cfg: RetrievalConfig,
        scope: Scope,
        horizon: str,
    ) -> list[tuple[int, float]]:
        """The conversations' passages (in scope, before `horizon`) nearest the question's vector moved toward the
        vectors of the best `conversation_feedback` passages of `lists`: what they speak of, in other words."""
        so_far = _fuse(lists, cfg.rrf_k)
        best = sorted(so_far, key=lambda pid: (-so_far[pid], pid))[: cfg.conversation_feedback]
        rows = self.store.passages_by_id(best)
        texts = [rows[pid].text for pid in best if pid in rows]
        if not texts or self.embedder is None:
            return []
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
        question = np.asarray(query, dtype=np.float32)
        widened = question / (np.linalg.norm(question) + 1e-9) + cfg.conversation_feedback_share * vectors.mean(axis=0)
        places = self.directory.refresh(self.store)
        conversations = self.session_keys.refresh(self.store).conversations & places.sessions_in(self.store, scope)
        ids = places.keep(self.store, scope, places.ids_of_sessions(conversations).tolist(), until=horizon)
        return self._nearest_among(cache, widened, ids, cfg.candidates)

    def _add_neighbours(
        self,
        fused: dict[int, float],
        via: dict[int, set[str]],
        rows: dict[int, PassageRow],
        own: dict[int, float],
        cfg: RetrievalConfig,
        scope: Scope,
        horizon: str,
        replies: float = 0.0,
        call_replies: float = 0.0,
    ) -> None:
        """The turns next to the best candidates become candidates too, with `neighbor_weight` of the best
        one's score: a command's output beside the line that names it, the reply to a question. With `replies`, a
        typed turn's reply (the assistant's first words after it, past the tool calls between, within REPLY_REACH
        turns) gains that share of its score, or becomes a candidate with it; with `call_replies`, so does a tool
        call's or output's (what the assistant said of the call's work)."""
        best = sorted(own, key=lambda pid: (-own[pid], pid))[: cfg.neighbor_expand]
        wanted: dict[tuple[str, int], float] = {}
        lifted: dict[tuple[str, int], float] = {}  # replies already candidates
        have = {(r.session, r.seq) for r in rows.values()}
        for pid in best:
            row = rows.get(pid)
            if row is None:
                continue
            for step in (-1, 1):
                turn = (row.session, row.seq + step)
                if turn not in have:
                    wanted[turn] = max(wanted.get(turn, 0.0), cfg.neighbor_weight * own[pid])
            share = replies if row.kind == TYPED else call_replies if row.kind in (TOOL_CALL, TOOL_OUTPUT) else 0.0
            reply = self._reply(row) if share else None
            if reply is not None:
                into = wanted if reply not in have else lifted
                into[reply] = max(into.get(reply, 0.0), share * own[pid])
        at = {(r.session, r.seq): pid for pid, r in rows.items()} if lifted else {}
        for turn, share in lifted.items():
            fused[at[turn]] += share
        if not wanted:
            return
        order = sorted(wanted, key=lambda t: (-wanted[t], t))
        ids = self.store.passage_ids_for_turns(order, scope)
        for pid, row in self.store.passages_by_id(ids).items():
            if row.ts is not None and row.ts > horizon:
                continue
            rows[pid] = row
            fused[pid] = wanted[(row.session, row.seq)]
            via.setdefault(pid, set()).add("neighbour")

    def _reply(self, row: PassageRow) -> tuple[str, int] | None:
        """The assistant's first words after the turn `row` (tool calls and outputs between), before the next typed
        turn and within REPLY_REACH turns; None when there are none."""
        for turn in self.store.turns(row.session, start=row.seq + 1, end=row.seq + 1 + REPLY_REACH):
            if turn.kind == TYPED:
                return None
            if turn.kind == ASSISTANT:
                return (turn.session, turn.seq)
        return None

    def _dense(
        self,
        cache: VectorCache | None,
        query: np.ndarray,
        scope: Scope,
        until: str,
        k: int,
        since: str | None = None,
        pool: dict[str, list[tuple[int, float]]] | None = None,
    ) -> list[tuple[int, float]]:
        """Nearest passages in scope and in [since, until). A project or agent scope scores only the
        passages inside it; the person's own scope searches the whole index and drops what memory never
        answers from (its own threads, turns outside the time). A short window scores only the
        passages inside it; otherwise `pool` keeps the first search's nearest passages for the next list
        of the same question, so the lists with and without a time window cost one scan of the index."""
        if cache is None:  # PostgreSQL: nearest passages under the scope and window, inside the database
            assert self.embedder is not None
            return self.store.nearest(self.embedder.name, query, scope, k, since=since, until=until)
        places = self.directory.refresh(self.store)
        if since is not None and _days_between(since, until) <= 31:
            # the passages of a short window, at the usual share of a large index's cells (every cell of it
            # costs a pass over all its ids: at 1M ~16 ms, against ~4 ms)
            window = places.ids_in(self.store, scope, since=since, until=until)
            return cache.search(query, window, k, exact=False)
        hits = pool.get("nearest") if pool is not None else None
        if hits is None:
            allowed = places.ids_in(self.store, scope) if scope.folders() is not None else None
            hits = cache.search(query, allowed, k * 8)
            if pool is not None:
                pool["nearest"] = hits
        score = dict(hits)
        kept = places.keep(self.store, scope, [pid for pid, _ in hits], since=since, until=until)
        return [(pid, score[pid]) for pid in kept[:k]]

    def _session_turns(
        self, cache: VectorCache | None, query: np.ndarray, scope: Scope, sessions: list[str], horizon: str
    ) -> list[tuple[int, float]]:
        """The best turns within the best sessions (their subagents' too): the nearest of their passages in
        scope and before `horizon`."""
        if not sessions:
            return []
        places = self.directory.refresh(self.store)
        members = set(sessions) | {s for s, parent in self.session_keys.parent.items() if parent in sessions}
        ids = places.ids_of_sessions(members & places.sessions_in(self.store, scope))
        return self._nearest_among(cache, query, places.keep(self.store, scope, ids.tolist(), until=horizon), 10)

    def _versions_of(
        self, things: list[str], scope: Scope, horizon: str, limit: int, *, newest: bool
    ) -> list[tuple[int, float]]:
        """The passages found by the names of `things` in which one of them is written just before a version number
        ("dbt 1.9.1", "dbt-core~=1.9.0", "airflow upgrade on staging: 2.8.4 -> 2.9.3"), best by the words, or
        newest first when the question asks for the value now."""
        found = self._full_text(fts_words(things), scope, limit * VERSIONS_READ, None, horizon)
        rows = self.store.passages_by_id([pid for pid, _ in found])
        names = "|".join(re.escape(t) for t in things)
        written = re.compile(rf"(?<![\w-])(?:{names}){_VERSION_AFTER}", re.I)
        kept = [(pid, score) for pid, score in found if pid in rows and written.search(rows[pid].text)]
        if newest:
            kept.sort(key=lambda x: rows[x[0]].ts or "", reverse=True)
        return kept[:limit]

    def _selective(self, terms: list[str]) -> list[str]:
        """Drop search words that match most passages when rarer ones are there: "test" or "error"
        beside a rare name says little."""
        total = max(1, self.store.passage_count())
        words = fts_words(terms)
        share = {w: self._matches(w) / total for w in words}
        if not any(v < RARE_SHARE for v in share.values()):
            return words
        return [w for w in words if share[w] <= COMMON_SHARE] or words

    def _count_cost(self, word: str) -> int:
        """How many matches FTS5 reads to rank a word over the whole index: those of each of its tokens."""
        parts = _TOKEN.findall(word)
        return self._matches(word) if len(parts) < 2 else sum(self._matches(p) for p in dict.fromkeys(parts))

    def _matches(self, word: str) -> int:
        """How many passages a word matches. Counted exactly, once per corpus version, while the index is
        small; on a large one estimated from LARGE_INDEX passages spread over it (counting a common word in
        all of a million costs ~0.1 s) and kept until the index has grown a tenth."""
        total = self.store.passage_count()
        stale = total < LARGE_INDEX and self.store.corpus_version() != self._df_version
        if stale or not (self._df_total <= total <= self._df_total * 1.1):
            self._df, self._df_version, self._df_total = {}, self.store.corpus_version(), total
        counts = self._df  # this thread's dict, even if another thread starts a new one meanwhile
        if word not in counts:
            counts[word] = self.store.match_count(word, sample=LARGE_INDEX if total >= LARGE_INDEX else 0)
        return counts[word]

    def _full_text(
        self, words: list[str], scope: Scope, limit: int, since: str | None, until: str | None
    ) -> list[tuple[int, float]]:
        """BM25 over the words (`_text_search`), here and now."""
        return self._text_search(words, scope, limit, since, until).run(self.store)

    def _text_search(
        self, words: list[str], scope: Scope, limit: int, since: str | None, until: str | None
    ) -> TextSearch:
        """BM25 over the words, ranking about POSTINGS_BUDGET matches at most: the commonest words are
        left out first, and when even the rarest is that common only its latest matches (by passage id,
        which follows ingest order) are ranked; for a project scope, the latest within the span of that
        project's own passages. Small indexes never reach the budget. Chosen here, on the asking thread (the
        counts and the directory are read from its connection); run on either connection."""
        search = TextSearch(tuple(words), scope, limit, since, until)
        if self.store.searches_in_database:  # PostgreSQL ranks, bounds and filters its matches itself
            return search
        total = self.store.passage_count()
        first, last = 0, total
        if since is not None:
            first, last = self.directory.refresh(self.store).id_range(since, until)
        if scope.folders() is not None and total >= LARGE_INDEX:
            # a project's passages may all be old: cut within its own ids, not the newest of everyone's
            low, high = self.directory.refresh(self.store).span(self.store, scope)
            first, last = max(first, low), min(last, high)
        if last < first:
            return replace(search, words=())
        share = (last - first + 1) / max(1, total)
        expected = {w: self._matches(w) * share for w in words}
        chosen, spent = rarest_within(words, expected, POSTINGS_BUDGET)
        if spent > POSTINGS_BUDGET:
            first = max(first, int(last - (last - first) * POSTINGS_BUDGET / spent))
        # FTS5's ranking also counts each word's matches in the whole index, whatever the id bounds: only
        # the rarest words it can afford to count are ranked; when even one is too common to count, the
        # latest matches of the chosen words come first, unranked (a huge index and only common words).
        # A word FTS5 reads as a phrase of several ("data-pipeline", "readme.md") costs the matches of each
        # of its parts, though the phrase itself is rare.
        counted, cost = rarest_within(chosen, {w: float(self._count_cost(w)) for w in chosen}, COUNTED_BUDGET)
        if cost > COUNTED_BUDGET:
            return replace(search, words=tuple(chosen), ids=(first, last), ranked=False)
        return replace(search, words=tuple(counted), ids=(first, last))

    def _fact_mentions(self) -> list[tuple[Any, frozenset[str]]]:
        """Each mention of a personal fact with the names in it, read once per facts version, not once per question."""
        version = self.store.facts_version()
        if self._facts_key != version:
            self._mentions = [(m, _mention_names(m.subject, m.object)) for m in self.store.fact_mentions()]
            self._facts_key = version
        return self._mentions

    def _fact_candidates(self, question: str, scope: Scope, horizon: str) -> list[tuple[int, float]]:
        """Passages of the turns that personal facts about this question were read from."""
        if not self._fact_mentions():
            return []
        query = parse_personal_question(question)
        words = set(re.findall(r"[\w']+", question.lower()))
        members = RELATION_GROUPS.get(query.relation, frozenset({query.relation})) if query is not None else frozenset()
        alike = members.union(*(a for a in ALIKE if members & a)) - members  # the subject's own, a little lower
        scored: dict[tuple[str, int], float] = {}
        for m, names in self._mentions:
            if m.ts and m.ts > horizon:
                continue
            score = 0.0
            if query is not None and (
                m.relation in members
                or m.relation in query.via
                or (query.reverse and query.reverse in m.object.lower())
            ):
                score += 2.0
            elif query is not None and m.relation in alike and m.subject == query.subject:
                score += 1.5
            if names & words:
                score += 1.0
            if score:
                key = (m.session, m.seq)
                scored[key] = max(scored.get(key, 0.0), score + m.confidence)
        ranked = sorted(scored, key=lambda k: (-scored[k], k))[:20]
        ids = self.store.passage_ids_for_turns(ranked, scope)
        return [(pid, 1.0) for pid in ids]

    def _passage(self, row: PassageRow, score: float, via: tuple[str, ...]) -> Passage:
        return Passage(
            id=row.id,
            session=row.session,
            seq=row.seq,
            uuids=row.uuids,
            kind=row.kind,
            name=row.name or self.user_name,
            ts=row.ts,
            text=row.text,
            score=round(score, 6),
            cwd=row.cwd,
            session_kind=row.session_kind,
            via=via,
            about=row.search,
        )


# The classes of a question that may ask what a thing of the work is or uses now ("where is the API hosted", "what
# does the app build with"): understand's tool, place and other.
_STATE_CLASSES = frozenset({"tool", "place", "other"})
# the classes of question that name an identifier in words ("what's the max replicas now", "how do we roll back");
# a decision or a part of a life is told in prose
_COMPOUND_CLASSES = frozenset({"number", "tool", "deploy", "file", "bug", "other"})


_VERSION_ASKED = re.compile(r"\bversions?\b", re.I)
_NOT_A_THING = frozenset(
    "version versions release releases latest current now upgrade run runs use uses used ship prod production test "
    "tests pinned pin exist image ci app build".split()
)
# what may stand between a thing's name and its version: "dbt-core~=1.9.0", "airflow upgrade on staging: 2.8.4",
# "postgres is now 16.4", "dbt 1.8.4 -> 1.9.1", "the db is now postgres 16.4", "python3.12"; not another name ("dbt
# and sqlfluff 3.0.1"), and not a number with a unit ("dbt run took 3.5 minutes", "cpu at 85.3%")
_VERSION_AFTER = (
    r"(?:[-_]core)?(?:\s*(?:[:=@~^]=?|->|→)\s*|\s+|(?:\s+(?:version|is|was|now|on|at|to|from|upgrade[ds]?|bump(?:ed)?"
    r"|staging|prod|still|already)\b[:,]?){1,3}\s*|(?:\s+(?:is|was|now|runs|running|on|still)){1,2}\s+[a-z][\w.-]*\s+|)"
    r"v?\d+\.\d+(?:\.\d+)*(?![\d.]|\s*(?:%|x\b|[kmg]?b\b|ms\b|s\b|secs?\b"
    r"|seconds|mins?\b|minutes|h\b|hours?|days?|k\b))"
)
VERSIONS_READ = 4  # the passages found by a thing's name read for its version, per one kept


def _versioned(question: str, terms: Sequence[str]) -> list[str]:
    """The names a question asking for a version asks it of ("what dbt version are we on": dbt): its terms but for
    the words of asking for one."""
    if not _VERSION_ASKED.search(question):
        return []
    return [t for t in terms if t.lower() not in _NOT_A_THING and not is_stop_word(t) and len(t) > 1]


def _fix_asked(u: Understanding, question: str) -> bool:
    """Whether a question asks about a fix or a problem ("which release fixed the drift", "why did the deploy go
    wrong")."""
    return u.about_incident or _FIX.search(question.lower()) is not None


def _compounds(terms: Sequence[str]) -> list[str]:
    """Each two adjacent words of a question's terms joined, as an identifier or a closed compound writes them
    ("max replicas": "maxreplicas", matching "maxReplicas"; "roll back": "rollback")."""
    words = [t for t in terms if t.isalpha()]
    return list(dict.fromkeys(a + b for a, b in itertools.pairwise(words)))


# the lists of turns a reader kept as a release, an incident or a decision: such a turn was judged already (the
# command that deployed is the release), so it takes no prior of its kind of turn
_JUDGED = frozenset(kind.name for kind in MOMENT_KINDS)
# a git command that puts files back as they were (not "git checkout -b", which starts a branch)
_RESTORES = re.compile(
    r"\bgit\s+(?:checkout\s+(?!-[bB]\b)|restore\b|revert\b|reset\s+--hard\b|stash\b(?!\s+(?:list|show)))"
)
_EDITS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch", "edit", "write"})
# tools that only read: a later call of one that names a setting changes nothing
_READS = frozenset({"Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite", "read", "grep"})


def _holds(sorted_ids: Sequence[int], pid: int) -> bool:
    at = bisect.bisect_left(sorted_ids, pid)
    return at < len(sorted_ids) and sorted_ids[at] == pid


def _fuse(lists: Sequence[tuple[float, list[tuple[int, float]], str]], rrf_k: int) -> dict[int, float]:
    """Reciprocal-rank fusion: each passage's weighted 1 / (rrf_k + rank) summed over the lists."""
    fused: dict[int, float] = {}
    for weight, ranked, _name in lists:
        for rank, (pid, _score) in enumerate(ranked):
            fused[pid] = fused.get(pid, 0.0) + weight / (rrf_k + rank + 1)
    return fused


def withheld(passage: Passage, also: frozenset[str] = frozenset()) -> Passage | None:
    """The passage as an agent may read it: the person's asides cut out of its text (`read.asides`), and `also`
    (clauses of a reply to an aside that speak of a life, `read.derive.aside_replies_of`), and no search text (it
    quotes what the person asked); None when nothing but asides is left."""
    text = withhold_personal(passage.text, passage.kind, also)
    if not text:
        return None
    return replace(passage, text=text, about="")


def within_chars(passages: Sequence[Passage], budget: int) -> list[Passage]:
    """The leading passages whose text fits in `budget` characters (always the first one): what a model
    with that reading budget is shown."""
    out: list[Passage] = []
    used = 0
    for p in passages:
        if out and used + len(p.text) > budget:
            break
        out.append(p)
        used += len(p.text)
    return out


# What an answer of each question class looks like: a passage that has that shape is a
# likelier answer (answer-type priors, as in classic question answering).
_ANSWER_SHAPES: dict[str, re.Pattern[str]] = {
    "file": re.compile(
        r"[\w.-]+/[\w./-]+\.\w{1,6}\b|\b[\w-]+\.(?:py|ts|tsx|js|go|rs|sql|sh|ipynb|toml|ya?ml|json|md)\b"
    ),
    "deploy": re.compile(
        r"\bv?\d+\.\d+\.\d+\b|\b(?:deploy(?:ed|ing)?|releas(?:e|ed)|shipped|ship it|is live|went live|"
        r"rolled? back|rollback|tagg?ed)\b",
        re.I,
    ),
    "decision": re.compile(
        r"\b(?:let'?s (?:go with|use|do|keep|drop)|we(?:'ll| will)? (?:go with|use|keep|drop)|decided|decision|"
        r"going with|switch(?:ing)? to|instead of|settled on|it is\b|adr|rfc)\b",
        re.I,
    ),
    "bug": re.compile(
        r"\b(?:root cause|because|caused|the bug|the fix|fixed|broke|race|leak|timeout|off.by|regression)\b", re.I
    ),
    "number": re.compile(r"\d"),
    "date": re.compile(
        r"\b(?:\d{1,2}(?:st|nd|rd|th)?|yesterday|tomorrow|today|monday|tuesday|wednesday|thursday|"
        r"friday|saturday|sunday|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\b",
        re.I,
    ),
}


_COMMON = STOP | {"user"}  # words in a fact too common to match a question by


@lru_cache(maxsize=65536)
def _mention_names(subject: str, obj: str) -> frozenset[str]:
    """The words of a fact mention's subject and value that a question can name it by."""
    return frozenset(w for w in re.findall(r"[\w']+", f"{subject} {obj}".lower()) if len(w) > 2) - _COMMON


def _spoken_by_named(row: PassageRow, question: str) -> bool:
    """A person's typed turn whose speaker the question names ("what did Tim say", "was it tim's idea"):
    in a conversation between people, most answers about someone are in their own words. Only proper
    names count (a speaker written with a capital), so no "you" or "me" is taken for one. A question that
    capitalises names must capitalise this one ("What will Caroline do" names no "Will"), and a name that
    is also a common word never counts at the start of a sentence ("May I see it?")."""
    name = row.name or ""
    if row.kind != "typed" or not name[:1].isupper():
        return False
    common = is_stop_word(name.lower()) or name.lower() in _AUXILIARIES
    for found in _name_pattern(name, not _writes_names(question)).finditer(question):
        if not (common and _SENTENCE_START.search(question[: found.start()])):
            return True
    return False


_AUXILIARIES = frozenset({"may", "will", "can", "shall", "must", "might"})  # names that open questions as verbs
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)\W*$")
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")
_PRONOUN_I = re.compile(r"I(?:['’](?:m|ve|d|ll))?", re.I)


def _writes_names(question: str) -> bool:
    """Whether the question capitalises a word other than a sentence's first and "I": then it writes
    names with their capital, and a lowercase word is no name."""
    return any(
        not _PRONOUN_I.fullmatch(m.group()) and not _SENTENCE_START.search(question[: m.start()])
        for m in _CAPITALISED.finditer(question)
    )


# the parts of project folders' names that name no one project ("the service", "the tests", "my next steps")
_GENERIC_NAME_PARTS = frozenset(
    "app apps web site api server client service services backend frontend infra config configs data docs main core "
    "common utils tools tool test tests demo mobile admin portal worker workers code repo home work project projects "
    "next steps side hello world new old dev src lib ui my".split()
)
_NAME_PARTS = re.compile(r"[-_.]+")


def _own_part(part: str, parts: Sequence[str], shared: Counter[str]) -> bool:
    """Whether `part` of a project folder's name of `parts` (two or more) names that project alone."""
    generic = part in _GENERIC_NAME_PARTS or is_stop_word(part) or part.isdigit()
    return len(parts) > 1 and len(part) >= PROJECT_NAME_MIN and shared[part] == 1 and not generic


@lru_cache(maxsize=4096)
def _name_pattern(name: str, any_case: bool) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", re.IGNORECASE if any_case else 0)


def _days_between(since: str, until: str) -> float:
    a, b = parse_ts(since), parse_ts(until)
    return (b - a).total_seconds() / 86400 if a and b else 1e9


def _freshness(ts: str | None, now: datetime) -> float:
    """1.0 for today, falling to 0 over a year; 0 when unknown or after `now`."""
    when = parse_ts(ts)
    if when is None:
        return 0.0
    days = (now - when).total_seconds() / 86400
    if days < 0:
        return 0.0
    return max(0.0, 1.0 - days / 365)

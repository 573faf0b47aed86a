"""class Memory: the one public API. Every surface (CLI, HTTP, MCP, web page) calls it.

mem = Memory()                       # VYRE_HOME or ~/.vyre
mem.ingest()                         # ~/.claude/projects, incrementally
mem.ask("which file had the refund bug")   # one cited answer, or "Not sure." and what it knows
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, overload
from urllib.parse import urlsplit

from .ask.fast_path import FastPath
from .ask.index import EMBED_BATCH, derived_backlog, embed_passages, index_passages
from .ask.pipeline import Event, Pipeline
from .ask.retrieve import Retriever
from .config import Config, models_home, save_user_name
from .contract import AskResult, Entity, Fact, IngestReport, Passage, Scope, SearchHit, SessionInfo, Turn
from .errors import NotFoundError, ScopeError, VyreError
from .ingest.formats import SourceFormat, formats
from .ingest.labels import is_within
from .ingest.runner import IngestSettings, Progress, default_paths
from .ingest.runner import ingest as run_ingest
from .models.embed import MiniLMEmbedder, OpenAIEmbedder, default_embedder, get_embedder
from .read.asides import personal_question, withhold_personal
from .read.derive import (
    DeriveReport,
    aside_replies_of,
    derive_facts,
    needs_placing,
    partner_cues_of,
    readers_changed,
)
from .read.graph import USER_ID, GraphReport, LoadedGraph, derive_graph, edit_graph, expand, find_entity, load_graph
from .read.partner import asks_partner, likely_partners
from .read.relations import PARTNER_RELATIONS
from .store.open import open_store
from .store.postgres import is_database_url
from .store.sqlite import Store

_UNSET: Any = object()


class Memory:
    def __init__(self, home: Path | str | None = None, *, config: Config | None = None, **overrides: Any) -> None:
        self.config = config or Config.load(home, **overrides)
        self.store = open_store(self.config.database_location, host=self.config.host)
        # as opened now: a second connection opened later (_second_connection) is to the same store, and what is kept
        # in the home later (_env) goes to the same home, even after a change of the working folder
        location = self.config.database_location
        self._location = location if is_database_url(location) else str(Path(location).expanduser().absolute())
        self._home = str(Path(self.config.home).expanduser().absolute())
        self._embedder: Any = _UNSET
        self.embedder_reason = ""
        self._retriever: Retriever | None = None
        self._fast_path: FastPath | None = None
        self._pipeline: Pipeline | None = None
        self._entities: tuple[int, list[Entity]] | None = None
        self._loaded_graph: tuple[int, LoadedGraph] | None = None
        self._backends: dict[str, Any] = {}
        self.backend_reasons: dict[str, str] = {}

    def close(self) -> None:
        """Close the database and any model backend this memory started (a warm `claude` process)."""
        for backend in self._backends.values():
            close = getattr(backend, "close", None)
            if callable(close):
                close()
        self._backends.clear()
        if self._retriever is not None:
            self._retriever.close()
        self.store.close()

    def _env(self) -> dict[str, str]:
        """The environment with this memory's home as VYRE_HOME: what it builds or keeps of its own (the
        embedder's graphs unless VYRE_MODELS names a shared folder, a model's daily spend, the warm `claude`
        process's folder) goes there, whatever home the process was started with."""
        return {**os.environ, "VYRE_HOME": self._home}

    def _second_connection(self) -> Store:
        """Another connection to this memory's store, for the searches run beside the asking thread's."""
        return open_store(self._location, host=self.config.host, readonly=self.store.readonly)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest ---------------------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[Path | str] | None = None,
        *,
        format: str | None = None,
        strict: bool = False,
        progress: Progress | None = None,
        embed_now_max: int | None = None,
    ) -> IngestReport:
        """Read new transcript records from `paths` (default: the configured transcripts).

        Passages (full-text search) and facts are always brought up to date; vectors too, unless
        `embed_now_max` is set and more passages than that wait for one: then they are left for
        `embed_backlog` (a server or `vyre watch` runs it in the background) and questions are answered
        from full-text search and facts meanwhile."""
        targets = [Path(p).expanduser() for p in paths] if paths else default_paths(self.config.transcripts)
        settings = IngestSettings(
            vyre_home=str(self.config.home), builds_memory_folders=self.config.builds_memory_folders
        )
        report = run_ingest(self.store, targets, settings, format_name=format, strict=strict, progress=progress)
        self.index(progress=progress, embed_now_max=embed_now_max)
        changed = self.store.get_meta("derived_corpus") != str(self.store.corpus_version())
        changed = changed or (not self.store.readonly and readers_changed(self.store))  # read whole by newer readers
        # a store whose likely asides and replies were never placed by the default embedder is placed once
        unplaced = not self.store.readonly and isinstance(self.embedder, MiniLMEmbedder) and needs_placing(self.store)
        if changed or unplaced:
            # only when turns were added or changed (only the new turns are read), or the readers are newer (all are)
            self.derive(incremental=True)
        return report

    def index(self, progress: Progress | None = None, *, embed_now_max: int | None = None) -> dict[str, int]:
        """Bring passages and their vectors up to date with the stored turns (vectors only while at most
        `embed_now_max` passages wait for one, when it is set)."""
        passages = index_passages(self.store, self.config.user_name)
        if embed_now_max is not None and self.pending()["embed"] > embed_now_max:
            return {"passages": passages, "vectors": 0}
        return {"passages": passages, "vectors": self.embed_backlog(progress, in_order=True)}

    def embed_backlog(
        self,
        progress: Progress | None = None,
        *,
        call: Callable[..., Any] | None = None,
        stop: Callable[[], bool] | None = None,
        in_order: bool = False,
    ) -> int:
        """Embed every passage that has no vector yet, in priority order (the person's and the assistant's
        words first, tool output last; `embed_passages`), or in passage order with `in_order` (what `index`
        does while the person waits for all of it); returns how many texts were embedded.
        With `call` (a server's lock around each store access) questions are answered between batches."""
        embedder = self.embedder
        if embedder is None:
            return 0
        # short batches: others wait at most one batch, and a progress bar moves every few seconds
        vectors = embed_passages(
            self.store, embedder, progress, call=call, batch=EMBED_BATCH, stop=stop, in_order=in_order
        )
        searched_in_database = self.store.searches_in_database  # PostgreSQL keeps its own vector index
        run = call or (lambda fn, *args: fn(*args))
        if vectors and not self.store.readonly and not searched_in_database:  # a large index is kept in a file
            run(self.retriever.vectors.save, self.store, embedder.name, embedder.dim)
        if vectors and not self.store.readonly:
            # the derived texts' indexes read now, and kept in their files when large, not by the next first question
            for derived in self.retriever.derived.values():
                run(derived.refresh, self.store, embedder.name, embedder.dim)
        return vectors

    def warm(self) -> None:
        """Load now what the first question would otherwise wait for: what the retriever keeps (`Retriever.warm`),
        the graph, the vector index and a local embedding model (seconds on a history of a million
        turns; servers call it as they start), and the derived texts' vectors (sentences, exchanges). A remote
        embedder is never called unasked."""
        retriever = self.retriever
        embedder = self.embedder
        local = embedder if not isinstance(embedder, OpenAIEmbedder) else None  # a remote one's dim may need a call
        if not self.store.searches_in_database:  # PostgreSQL holds the other indexes
            retriever.warm()
            self.expand("")  # the graph its expansion reads
            if local is not None:
                retriever.vectors.get(self.store, local.name, local.dim, self.store.vectors_version())
        if local is not None:
            for derived in retriever.derived.values():
                derived.refresh(self.store, local.name, local.dim)
            if isinstance(local, MiniLMEmbedder):
                local.embed(["warm"])

    @property
    def embedder(self) -> Any | None:
        """The configured embedder (config `embedder`), else the best available offline; None: BM25 only."""
        if self._embedder is _UNSET:
            graphs = models_home(self._env())
            if self.config.embedder:
                self._embedder = get_embedder(self.config.embedder, cache_dir=graphs)
                self.embedder_reason = f"{self.config.embedder} (from config)"
            else:
                self._embedder, self.embedder_reason = default_embedder(cache_dir=graphs)
        return self._embedder

    @property
    def retriever(self) -> Retriever:
        if self._retriever is None:
            self._retriever = Retriever(
                self.store,
                self.embedder,
                self.config.user_name,
                expander=self.expand,
                folder=self.config.home,
                side_store=self._second_connection,
            )
        return self._retriever

    def retrieve(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = None,
        agent_projects: Sequence[str] | None = None,
        k: int = 8,
        now: datetime | None = None,
        context: dict[str, Any] | None = None,
        config: str | None = None,
    ) -> list[Passage]:
        """The ranked passages the answer step would read, under the caller's scope."""
        scope = _scope(project_cwds, agent_projects, context)
        thread = (context or {}).get("thread")
        return self.retriever.retrieve(question, scope, k=k, now=now, config=config, thread=thread)

    def watch(
        self,
        paths: Iterable[Path | str] | None = None,
        *,
        interval: float = 2.0,
        rounds: int | None = None,
        on_round: Callable[[IngestReport], None] | None = None,
        call: Callable[..., Any] | None = None,
        embed_now_max: int | None = None,
    ) -> None:
        """Keep ingesting as sessions grow (polling); each round that adds turns bumps the corpus version.
        `call` runs each round (a lock shared with a background embedder); `embed_now_max` as for `ingest`."""
        done = 0
        targets = list(paths) if paths else None
        run = call or (lambda fn, *args, **kw: fn(*args, **kw))
        while rounds is None or done < rounds:
            report = run(self.ingest, targets, embed_now_max=embed_now_max)
            if on_round:
                on_round(report)
            done += 1
            if rounds is None or done < rounds:
                time.sleep(interval)

    @staticmethod
    def formats() -> dict[str, SourceFormat]:
        return formats()

    # -- reading --------------------------------------------------------------------------------
    def sessions(
        self,
        *,
        project_cwds: Sequence[str] | None = None,
        kind: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
    ) -> list[SessionInfo]:
        return self.store.sessions(project_cwds=project_cwds, kind=kind, since=since, until=until, limit=limit)

    def session(self, session_id: str) -> SessionInfo:
        info = self.store.session(session_id)
        if info is None:
            raise NotFoundError(f"no session {session_id!r}; list them with: vyre sessions")
        return info

    def turns(
        self,
        session_id: str,
        start: int = 0,
        end: int | None = None,
        *,
        agent_projects: Sequence[str] | None = None,
    ) -> list[Turn]:
        """The turns of a session from `start` to before `end`. For an agent granted `agent_projects`: only a
        session in those projects, with the person's asides cut out of every turn (`read.asides`)."""
        if agent_projects is not None:
            info = self.session(session_id)
            if not (info.cwd and any(is_within(info.cwd, p) for p in agent_projects)):
                raise ScopeError(f"session {session_id!r} is outside this caller's projects; ask an owner to share it")
        turns = [self._named(t) for t in self.store.turns(session_id, start=start, end=end)]
        if agent_projects is None:
            return turns
        from dataclasses import replace

        replies = aside_replies_of(self.store)  # what replies to an aside speak of (`read.derive`)
        return [
            replace(t, text=withhold_personal(t.text, t.kind, replies.get((t.session, t.seq), frozenset())))
            for t in turns
        ]

    def search(self, text: str, *, project_cwds: Sequence[str] | None = None, limit: int = 20) -> list[SearchHit]:
        return [
            SearchHit(turn=self._named(h.turn), score=h.score, snippet=h.snippet)
            for h in self.store.search(text, project_cwds=project_cwds, limit=limit)
        ]

    def stats(self) -> dict[str, Any]:
        return self.store.stats()

    def pending(self) -> dict[str, Any]:
        """What stored turns still lack (after a crash, or while vectors are built in the background):
        `index` (turns not yet in the search index), `embed` (texts to embed under this embedder: each passage
        without a vector, and once more for each kind of derived text it has and that has none: a typed one's
        sentences, a conversation's exchange; so a new typed passage of a conversation counts three times)
        and `derive` (facts and graph not yet read from the newest turns, or, on a writable store, derived by older
        readers than these). All empty: complete."""
        embedder = self.embedder
        to_embed = 0
        if embedder:
            to_embed = sum(self.store.passages_to_embed_count(embedder.name)) + derived_backlog(
                self.store, embedder.name
            )
        return {
            "index": bool(self.store.turns_to_index(self.store.indexed_turn(), limit=1)),
            "embed": to_embed,
            "derive": self.store.get_meta("derived_corpus") != str(self.store.corpus_version())
            or (not self.store.readonly and readers_changed(self.store)),
        }

    # -- facts and the fast path ----------------------------------------------------------------
    def derive(self, *, incremental: bool = False) -> DeriveReport:
        """Re-derive personal facts, then the graph, from the stored turns (ingest runs it incrementally).

        Ids stay the same; an incremental derive reads only new turns and gives the same facts as a full one.
        """
        with self.store.derive_lock():  # several machines sharing one database derive one at a time
            return self._derive(incremental)

    def _derive(self, incremental: bool) -> DeriveReport:
        corpus = self.store.corpus_version()
        backend = self.backend("reader") if self._reader_chosen() else None
        if backend is not None:  # optional: the model reads trusted turns too, each text once per prompt version
            from .read.model_reader import ModelReader

            reader = ModelReader(backend, self.store)
        else:
            reader = None
        # the likely asides are placed by the default embedder, whose vectors their margin was fitted to
        embed = self.embedder.embed if isinstance(self.embedder, MiniLMEmbedder) else None
        report = derive_facts(self.store, self.config.user_name, incremental=incremental, reader=reader, embed=embed)
        derive_graph(self.store, self.config.user_name)
        self.store.set_meta("derived_corpus", str(corpus))
        return report

    def facts(self, subject: str | None = None, relation: str | None = None) -> list[Fact]:
        """Stored personal facts, optionally of one subject ("user", a name) or relation ("wife")."""
        return self.store.facts(subject=subject, relation=relation)

    def fact(self, fact_id: str) -> Fact:
        found = self.store.fact(fact_id)
        if found is None:
            raise NotFoundError(f"no fact {fact_id!r} (or the prefix is not unique); list them with: vyre facts list")
        return found

    def delete_fact(self, fact_id: str) -> Fact:
        """Delete a fact; the turns it came from never yield it again (a new turn saying it again does)."""
        found = self.fact(fact_id)
        self.store.delete_fact(found.id, datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        derive_graph(self.store, self.config.user_name)  # what was derived from the fact goes with it
        return found

    def answer(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = None,
        agent_projects: Sequence[str] | None = None,
        now: datetime | str | None = None,
        context: dict[str, Any] | None = None,
    ) -> AskResult:
        """The fast path: a personal question answered from trusted facts, no model; else an abstention."""
        return self.fast_path.answer(question, scope=_scope(project_cwds, agent_projects, context), now=now)

    @property
    def fast_path(self) -> FastPath:
        if self._fast_path is None:
            self._fast_path = FastPath(self.store, self.config.user_name)
        return self._fast_path

    # -- asking -----------------------------------------------------------------------------------
    @overload
    def ask(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = ...,
        agent_projects: Sequence[str] | None = ...,
        room: str | None = ...,
        context: dict[str, Any] | None = ...,
        stream: Literal[False] = ...,
        now: datetime | None = ...,
        config: str | None = ...,
    ) -> AskResult: ...

    @overload
    def ask(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = ...,
        agent_projects: Sequence[str] | None = ...,
        room: str | None = ...,
        context: dict[str, Any] | None = ...,
        stream: Literal[True],
        now: datetime | None = ...,
        config: str | None = ...,
    ) -> Iterator[Event]: ...

    def ask(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = None,
        agent_projects: Sequence[str] | None = None,
        room: str | None = None,
        context: dict[str, Any] | None = None,
        stream: bool = False,
        now: datetime | None = None,
        config: str | None = None,
    ) -> AskResult | Iterator[Event]:
        """One question in, one cited answer out (or "Not sure." with what memory knows).

        Returns an `AskResult`; with `stream=True`, an iterator of events (`memory.thinking`
        per stage, `memory.answered`, then the result). `room` names one project (its folder, or the
        folder's last name, as `vyre sessions` shows it): the question is asked of that project's sessions.
        `config` names a retrieval configuration for this ask alone (ablations: "bm25",
        "hybrid-no-day" switches the `day` extractor off).
        """
        if self._pipeline is None:
            self._pipeline = Pipeline(self)
        if room is not None:
            project_cwds = self._room(room, project_cwds)
        scope = _scope(project_cwds, agent_projects, context)
        thread = (context or {}).get("thread")
        events = self._pipeline.stream(question, scope, now=now, thread=thread, config=config)
        if stream:
            return events
        result = None
        for event in events:
            if event.result is not None:
                result = event.result
        assert result is not None
        return result

    def _room(self, room: str, project_cwds: Sequence[str] | None) -> list[str]:
        """The folders of the project `room` names (narrowed to `project_cwds` when given)."""
        wanted = os.path.expanduser(room).rstrip("/")
        cwds = sorted({s.cwd for s in self.store.sessions() if s.cwd})
        found = [c for c in cwds if c.rstrip("/") == wanted or c.rstrip("/").rsplit("/", 1)[-1] == wanted]
        if project_cwds is not None:
            found = [c for c in found if any(is_within(c, p) for p in project_cwds)]
        if not found:
            names = sorted({c.rstrip("/").rsplit("/", 1)[-1] for c in cwds})
            raise NotFoundError(f"no room {room!r}: a room is a project; rooms here: {', '.join(names[:20]) or 'none'}")
        return found

    def _reader_chosen(self) -> bool:
        """The model reader reads every trusted turn once: thousands of calls on a first ingest, so it runs
        only when chosen (`[models.reader]` in config, VYRE_MODEL_BACKEND_READER, or set_backend), never by
        `auto` picking whatever model is around."""
        return (
            "reader" in self._backends
            or isinstance(self.config.models.get("reader"), dict)
            or bool(os.environ.get("VYRE_MODEL_BACKEND_READER"))
        )

    def clear_answer_cache(self) -> None:
        """Forget cached answers, so the next ask runs the whole pipeline again (eval --repeat)."""
        if self._pipeline is not None:
            self._pipeline.clear_cache()

    def backend(self, purpose: str) -> Any | None:
        """The model backend for a purpose (rerank, answer, verify, reader), or None: no model."""
        if purpose not in self._backends:
            from .models.select import select_backend

            backend, reason = select_backend(purpose, self.config.models, self._env())
            self._backends[purpose] = backend
            self.backend_reasons[purpose] = reason
        return self._backends[purpose]

    def set_backend(self, purpose: str, backend: Any | None, reason: str = "set in code") -> None:
        """Use this backend (or None: no model) for a purpose; tests pass scripted models here."""
        self._backends[purpose] = backend
        self.backend_reasons[purpose] = reason

    def offsite(self) -> str | None:
        """One line saying which model steps send passages of the history off this machine, and to what; None
        when every step stays here (no model, a fake, a replay, or an OpenAI-compatible server on loopback)."""
        where: dict[str, list[str]] = {}
        for purpose in ("rerank", "answer", "verify", "reader"):
            try:
                backend = self.backend(purpose)
            except VyreError:
                continue
            inner = getattr(backend, "inner", backend)  # a budget or recording wrapper
            target = _offsite_target(inner)
            if target is not None:
                where.setdefault(target, []).append(purpose)
        if not where:
            return None
        parts = "; ".join(f"{', '.join(p)} to {target}" for target, p in where.items())
        return (
            f"Model steps send passages of your history off this machine: {parts}. "
            'To keep everything local, set [models] backend = "none" in config.toml.'
        )

    def model_notice(self) -> str | None:
        """`offsite()` the first time it is true for this home (and after it changes), else None."""
        line = self.offsite()
        if line is None or self.store.readonly:
            return None
        mark = self.config.home / "offsite-notice"
        try:
            if mark.is_file() and mark.read_text(encoding="utf-8") == line:
                return None
            mark.write_text(line, encoding="utf-8")
        except OSError:
            pass
        return line

    def backend_names(self) -> dict[str, str | None]:
        """Which backend instance serves each purpose (answers cached under one never serve another)."""
        return {
            p: (f"{getattr(b, 'name', type(b).__name__)}#{id(b)}" if b is not None else None)
            for p, b in sorted(self._backends.items())
        }

    # -- the graph ------------------------------------------------------------------------------
    def derive_graph(self) -> GraphReport:
        """Rebuild the graph from facts and turns; the person's edits are re-applied."""
        return derive_graph(self.store, self.config.user_name)

    def graph(self) -> list[Entity]:
        """Every entity (people, projects, organisations, decisions) with its edges."""
        loaded = load_graph(self.store)
        return [loaded.with_edges(e) for e in loaded.entities.values()]

    def entity(self, name: str) -> Entity:
        """An entity by name, alias or id, with its edges; NotFoundError if there is none."""
        return find_entity(load_graph(self.store), name)

    def rename_entity(self, name: str, new_name: str) -> Entity:
        """Rename an entity; renaming the person (the graph's own node) sets `user_name` too."""
        if self.entity(name).id == USER_ID and new_name.strip():
            self.set_user_name(new_name.strip())
        edit_graph(self.store, self.config.user_name, "rename", name, new=new_name)
        return self.entity(new_name)

    def set_user_name(self, name: str) -> None:
        """How the person's own turns are named in sources, kept in config.toml; used from the next call on."""
        from dataclasses import replace

        save_user_name(self.config.home, name)
        self.config = replace(self.config, user_name=name, raw={**self.config.raw, "user_name": name})
        if self._retriever is not None:
            self._retriever.close()
        self._retriever = self._fast_path = self._pipeline = None  # each holds the old name

    def merge_entities(self, keep: str, other: str) -> Entity:
        """Merge `other` into `keep`: its name and aliases become aliases, its edges move over."""
        edit_graph(self.store, self.config.user_name, "merge", keep, other=other)
        return self.entity(keep)

    def add_alias(self, name: str, alias: str) -> Entity:
        edit_graph(self.store, self.config.user_name, "alias_add", name, alias=alias)
        return self.entity(name)

    def remove_alias(self, name: str, alias: str) -> Entity:
        edit_graph(self.store, self.config.user_name, "alias_remove", name, alias=alias)
        return self.entity(name)

    def delete_entity(self, name: str) -> None:
        edit_graph(self.store, self.config.user_name, "delete", name)

    def pin_entity(self, name: str, pinned: bool = True) -> Entity:
        edit_graph(self.store, self.config.user_name, "pin", name, pinned=pinned)
        return self.entity(name)

    def resolve_aliases(self, question: str) -> str:
        """The question with graph aliases replaced by their entity's name ("Danielle" -> "Dani")."""
        from .read.graph import resolve_aliases

        version = self.store.graph_version()
        if self._entities is None or self._entities[0] != version:
            self._entities = (version, self.graph())
        return resolve_aliases(self._entities[1], question) or question

    def expand(self, question: str) -> list[str]:
        """Names and aliases to add to a search (retrieval config `hybrid`); the graph is read once per version."""
        version = self.store.graph_version()
        loaded = self._loaded_graph
        if loaded is None or loaded[0] != version:
            loaded = self._loaded_graph = (version, load_graph(self.store))
        names = expand(loaded[1], question)
        if asks_partner(question) and personal_question(question):  # not "my partner api key"
            names += [n for n in self._likely_partners(loaded[1]) if n not in names and n not in question.lower()]
        return names

    def _likely_partners(self, graph: LoadedGraph) -> list[str]:
        """Who the person's partner likely is (`read.partner`), when the graph names no partner: the names the person
        gave cues of a partner to, none the graph relates to them otherwise nor one the person deleted from it."""
        mine = [e for e in graph.edges if e.src == USER_ID and e.status == "current"]
        if any(e.relation in PARTNER_RELATIONS and e.confidence >= 0.6 for e in mine):
            return []
        others = [
            name
            for e in mine
            if e.dst in graph.entities
            for name in (graph.entities[e.dst].name, *graph.entities[e.dst].aliases)
        ]
        deleted = [str(e.args.get("name", "")) for e in self.store.graph_edits() if e.op == "delete"]
        return likely_partners(partner_cues_of(self.store), [*others, *deleted])

    def _named(self, turn: Turn) -> Turn:
        """The person's own turns carry the person's name."""
        if turn.name:
            return turn
        from dataclasses import replace

        return replace(turn, name=self.config.user_name)


def _offsite_target(backend: Any) -> str | None:
    """Where a backend sends what it is given, when that is off this machine."""
    name = str(getattr(backend, "name", ""))
    if name == "claude-cli":
        return "the `claude` CLI (Anthropic)"
    if name == "anthropic":
        return "the Anthropic API"
    if name == "openai":
        url = str(getattr(backend, "base_url", ""))
        host = urlsplit(url).hostname or ""
        return None if host in ("localhost", "::1") or host.startswith("127.") else f"the server at {url}"
    return None


def _scope(
    project_cwds: Sequence[str] | None, agent_projects: Sequence[str] | None, context: dict[str, Any] | None
) -> Scope:
    """context.project scopes like project_cwds (ADR: "context.project scopes the question")."""
    project = (context or {}).get("project")
    if project and project_cwds is None:
        project_cwds = [project]
    return Scope.of(project_cwds, agent_projects)

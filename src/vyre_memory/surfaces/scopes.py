"""Who is calling a surface, and so what `Memory` may read for them. Shared by HTTP and MCP.

Guarantees:
- a caller is the person ("owner", sees everything), the person working in one project
  ("project", questions default to that folder), or an agent granted projects ("agent":
  only those projects' sessions, never personal facts, never the graph or its edits, and never the
  person's asides in those sessions: `Memory` cuts them out below every surface, see `read/asides.py`);
- an agent's grant can only be narrowed by a request, never widened: the grant is passed to
  `Memory` as `agent_projects`, and what the request names goes in `project_cwds`, which
  `Scope.folders()` intersects with the grant inside retrieval;
- a token is compared in constant time; an unknown token is never treated as no token.

Tokens live in config.toml:

    [tokens]
    "a-long-random-owner-token" = "owner"
    "a-long-random-agent-token" = ["~/code/shop-api"]     # an agent granted these projects

and the MCP server's own scope under `[mcp]`: `scope = "owner"`, or `agent_projects = [...]`;
with neither, a server serves the project folder it was started in.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from ..contract import AskResult, SessionInfo
from ..errors import ConfigError, NotFoundError, ScopeError, VyreError
from ..models.base import set_wait_hook

if TYPE_CHECKING:
    from ..memory import Memory

T = TypeVar("T")
log = logging.getLogger("vyre_memory.surfaces")


@dataclass(frozen=True)
class Caller:
    """One caller's grant. `kind` is "owner", "project" or "agent"."""

    kind: str
    projects: tuple[str, ...] = ()

    @property
    def personal_allowed(self) -> bool:
        return self.kind != "agent"

    def ask_scope(self, project_cwds: Sequence[str] | None = None) -> dict[str, Any]:
        """Keyword arguments for `Memory.ask/retrieve/answer`: this grant, narrowed by what the request names."""
        requested = [_norm(p) for p in project_cwds] if project_cwds else None
        if self.kind == "agent":
            return {"project_cwds": requested, "agent_projects": list(self.projects)}
        if self.kind == "project":
            return {"project_cwds": requested or list(self.projects), "agent_projects": None}
        return {"project_cwds": requested, "agent_projects": None}

    def require_personal(self, what: str) -> None:
        """Facts and the graph hold the person's life: an agent never reads or edits them."""
        if not self.personal_allowed:
            raise ScopeError(
                f"{what} is the person's own memory and this caller is an agent granted only "
                f"{', '.join(self.projects) or 'no projects'}; use an owner token (config.toml [tokens]) to see it"
            )

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "projects": list(self.projects)}


OWNER = Caller("owner")


def _norm(path: str) -> str:
    return os.path.expanduser(str(path))


def caller_from_value(value: Any, where: str) -> Caller:
    """A `[tokens]` value: "owner", or a list of project folders (an agent)."""
    if value == "owner":
        return OWNER
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return Caller("agent", tuple(_norm(v) for v in value))
    raise ConfigError(f'{where} must be "owner" or a list of project folders, e.g. ["~/code/shop-api"]')


def tokens_from_config(raw: Mapping[str, Any]) -> dict[str, Caller]:
    """The `[tokens]` table of config.toml as token -> Caller."""
    table = raw.get("tokens", {})
    if not isinstance(table, Mapping):
        raise ConfigError('config.toml: [tokens] must be a table of "token" = "owner" | ["project folder", ...]')
    out: dict[str, Caller] = {}
    for token, value in table.items():
        if len(str(token)) < 16:
            raise ConfigError(
                f"config.toml [tokens]: token {str(token)[:4]}… is shorter than 16 characters; use a longer one"
            )
        out[str(token)] = caller_from_value(value, f"config.toml [tokens] {str(token)[:4]}…")
    return out


def caller_for_token(token: str | None, tokens: Mapping[str, Caller], *, loopback: bool) -> Caller:
    """The caller a request's bearer token names. No token: the owner on loopback, refused elsewhere."""
    if token:
        for known, caller in tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                return caller
        raise PermissionError("unknown token; use one listed under [tokens] in config.toml")
    if loopback:
        return OWNER
    raise PermissionError(
        "this server is reachable beyond this machine, so every request needs a token: "
        "send 'Authorization: Bearer <token>' with a token from [tokens] in config.toml"
    )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def mcp_caller(raw: Mapping[str, Any], *, project: str | None, owner: bool, agent_projects: Sequence[str]) -> Caller:
    """The MCP server's scope: flags first, then `[mcp]` in config.toml, else the project it runs in."""
    if agent_projects:
        return Caller("agent", tuple(_norm(p) for p in agent_projects))
    if owner:
        return OWNER
    section = raw.get("mcp", {})
    if not isinstance(section, Mapping):
        raise ConfigError('config.toml: [mcp] must be a table (scope = "owner" or agent_projects = [...])')
    if section.get("agent_projects"):
        return caller_from_value(section["agent_projects"], "config.toml [mcp] agent_projects")
    if section.get("scope") == "owner":
        return OWNER
    return Caller("project", (_norm(project or os.getcwd()),))


# -- one caller's view of Memory ------------------------------------------------------------------
GRAPH_EDITS = ("rename", "merge", "alias_add", "alias_remove", "delete", "pin")


class Gate:
    """One `Memory` shared by every request of a server; calls into it are serialised (one SQLite connection)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.lock = threading.RLock()
        self.counts: tuple[int | None, int | None] = (None, None)  # sessions and turns when last counted
        self.warmed = threading.Event()  # clear while `warm` loads the indexes
        self.warmed.set()
        self.closed = False  # set by `close`: background work that calls in afterwards stops

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        with self.lock:
            self._open()
            return fn(*args, **kwargs)

    def close(self) -> None:
        """Close the memory once no call holds it (closing under a running query crashes the process); calls
        after it raise `VyreError`, so background threads stop rather than touch a closed database."""
        with self.lock:
            if not self.closed:
                self.closed = True
                self.memory.close()

    def _open(self) -> None:
        if self.closed:
            raise VyreError("this memory is closed: the server is stopping")

    def call_letting_others_in(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`call`, but while `fn` waits on a model the memory is free for other calls (an ask's model call
        may take seconds; health and other askers go on meanwhile). Ask code holds no transaction then."""
        with self.lock:
            self._open()
            previous = set_wait_hook(self._released)
            try:
                return fn(*args, **kwargs)
            finally:
                set_wait_hook(previous)

    @contextmanager
    def _released(self) -> Iterator[None]:
        depth = 0
        while True:  # every level this thread holds of the re-entrant lock
            try:
                self.lock.release()
            except RuntimeError:
                break
            depth += 1
        try:
            yield
        finally:
            for _ in range(depth):
                self.lock.acquire()

    def call_if_free(self, fn: Callable[[], T]) -> T | None:
        """`fn()` if no other call holds the memory now, else None at once (liveness never waits on an ask)."""
        if not self.lock.acquire(blocking=False):
            return None
        try:
            self._open()
            return fn()
        finally:
            self.lock.release()

    def warm(self) -> threading.Thread:
        """Load the indexes in a background thread (`Memory.warm`); a call that comes first waits for them."""

        def load() -> None:
            try:
                self.call(self.memory.warm)
            except Exception as exc:  # the first question loads what it needs and reports errors
                log.warning("could not load the indexes ahead of the first question: %s", exc)
            finally:
                self.warmed.set()

        self.warmed.clear()
        thread = threading.Thread(target=load, name="vyre-warm", daemon=True)
        thread.start()
        return thread


class ScopedMemory:
    """What one caller may do, as JSON-ready dicts: the operations both HTTP and MCP expose."""

    def __init__(self, gate: Gate, caller: Caller) -> None:
        self.gate, self.caller = gate, caller

    @property
    def mem(self) -> Memory:
        return self.gate.memory

    # -- asking ---------------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = None,
        context: Mapping[str, Any] | None = None,
        now: str | None = None,
    ) -> dict[str, Any]:
        kwargs = self._ask_kwargs(project_cwds, context, now)
        result = self.gate.call_letting_others_in(self.mem.ask, _question(question), **kwargs)
        return self.result_dict(result)

    def ask_stream(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = None,
        context: Mapping[str, Any] | None = None,
        now: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Events as dicts: `memory.thinking {id, stage}`..., `memory.answered {id}`, then `result {id, result}`."""
        kwargs = self._ask_kwargs(project_cwds, context, now)
        events = self.gate.call(self.mem.ask, _question(question), stream=True, **kwargs)
        while True:
            event = self.gate.call_letting_others_in(next, events, None)
            if event is None:
                return
            d = event.to_dict()
            if event.result is not None:
                d["result"] = self.result_dict(event.result)
            yield d

    def answer(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = None,
        context: Mapping[str, Any] | None = None,
        now: str | None = None,
    ) -> dict[str, Any]:
        kwargs = self._ask_kwargs(project_cwds, context, now)
        return self.result_dict(self.gate.call(self.mem.answer, _question(question), **kwargs))

    def retrieve(
        self,
        question: str,
        *,
        project_cwds: Sequence[str] | None = None,
        context: Mapping[str, Any] | None = None,
        now: str | None = None,
        k: int = 8,
    ) -> dict[str, Any]:
        kwargs = self._ask_kwargs(project_cwds, context, now)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise BadRequest(f'"k" must be a whole number of passages from 1 to {MAX_K} (got {k!r})')
        passages = self.gate.call(self.mem.retrieve, _question(question), k=k, **kwargs)
        out = []
        for p in passages:
            d = p.to_dict()
            d["project"] = _project(p.cwd)
            out.append(d)
        return {"passages": out}

    def _ask_kwargs(
        self, project_cwds: Sequence[str] | None, context: Mapping[str, Any] | None, now: str | None
    ) -> dict[str, Any]:
        kwargs = self.caller.ask_scope(project_cwds)
        ctx = dict(context or {})
        if ctx.get("project") and self.caller.kind == "project" and not project_cwds:
            kwargs["project_cwds"] = [_norm(str(ctx["project"]))]
        kwargs["context"] = ctx or None
        kwargs["now"] = parse_time(now)
        return kwargs

    def result_dict(self, result: AskResult) -> dict[str, Any]:
        """The contract, each source with its session's project and folder added (what a reader needs to place it)."""
        d = result.to_dict()
        for source in d["sources"]:
            info = self._session_info(source["session"])
            source["project"] = _project(info.project or info.cwd) if info else None
            source["cwd"] = info.cwd if info else None
        return d

    def _session_info(self, session_id: str) -> SessionInfo | None:
        try:
            return self.gate.call(self.mem.session, session_id)
        except NotFoundError:
            return None

    # -- sessions -------------------------------------------------------------------------------
    def turns(self, session_id: str, start: int = 0, end: int | None = None) -> dict[str, Any]:
        """The turns of a session from `start` to before `end`, if this caller may read that session."""
        info = self.gate.call(self.mem.session, session_id)
        grant = list(self.caller.projects) if self.caller.kind == "agent" else None
        turns = self.gate.call(self.mem.turns, session_id, max(0, start), end, agent_projects=grant)
        return {"session": info.to_dict(), "turns": [t.to_dict() for t in turns]}

    # -- facts ----------------------------------------------------------------------------------
    def facts(self, subject: str | None = None, relation: str | None = None) -> dict[str, Any]:
        self.caller.require_personal("the list of personal facts")
        return {"facts": [f.to_dict() for f in self.gate.call(self.mem.facts, subject=subject, relation=relation)]}

    def fact(self, fact_id: str) -> dict[str, Any]:
        self.caller.require_personal("a personal fact")
        return self.gate.call(self.mem.fact, fact_id).to_dict()

    def delete_fact(self, fact_id: str) -> dict[str, Any]:
        self.caller.require_personal("deleting a personal fact")
        return {"deleted": self.gate.call(self.mem.delete_fact, fact_id).to_dict()}

    # -- the graph ------------------------------------------------------------------------------
    def graph(self, kind: str | None = None) -> dict[str, Any]:
        """Entities (without their edges) and every edge once, so a client draws the graph from two lists."""
        self.caller.require_personal("the graph of people, projects and decisions")
        entities = self.gate.call(self.mem.graph)
        edges: dict[str, dict[str, Any]] = {}
        out = []
        for e in entities:
            for x in e.edges:
                edges.setdefault(x.id, x.to_dict())
            if kind is None or e.kind == kind:
                d = e.to_dict()
                d.pop("edges")
                d["edge_count"] = len(e.edges)
                out.append(d)
        out.sort(key=lambda d: (not d["pinned"], d["kind"], -d["mentions"], d["name"].lower()))
        return {"entities": out, "edges": list(edges.values())}

    def entity(self, name: str) -> dict[str, Any]:
        self.caller.require_personal("the graph")
        return self.gate.call(self.mem.entity, name).to_dict()

    def edit(
        self,
        op: str,
        name: str,
        *,
        new_name: str | None = None,
        other: str | None = None,
        alias: str | None = None,
        pinned: bool = True,
    ) -> dict[str, Any]:
        """One graph edit by the person: rename, merge, alias_add, alias_remove, delete, pin."""
        self.caller.require_personal("editing the graph")
        mem = self.mem
        if op == "rename":
            return {"entity": self.gate.call(mem.rename_entity, name, _needed(new_name, "new_name")).to_dict()}
        if op == "merge":
            return {"entity": self.gate.call(mem.merge_entities, name, _needed(other, "other")).to_dict()}
        if op == "alias_add":
            return {"entity": self.gate.call(mem.add_alias, name, _needed(alias, "alias")).to_dict()}
        if op == "alias_remove":
            return {"entity": self.gate.call(mem.remove_alias, name, _needed(alias, "alias")).to_dict()}
        if op == "delete":
            self.gate.call(mem.delete_entity, name)
            return {"deleted": name}
        if op == "pin":
            return {"entity": self.gate.call(mem.pin_entity, name, pinned=bool(pinned)).to_dict()}
        raise BadRequest(f"unknown graph edit {op!r}; use one of: {', '.join(GRAPH_EDITS)}")

    def health(self) -> dict[str, Any]:
        """Liveness: answers at once even while an ask holds the memory (with the counts last seen, `busy`)."""
        stats = self.gate.call_if_free(self.mem.stats)
        busy = stats is None
        if stats is not None:
            self.gate.counts = (stats["sessions"]["total"], stats["turns"]["total"])
        sessions, turns = self.gate.counts
        return {
            "status": "ok",
            "caller": self.caller.to_dict(),
            "sessions": sessions,
            "turns": turns,
            "busy": busy,
            "warming": not self.gate.warmed.is_set(),
        }


class BadRequest(VyreError):
    """A request a surface cannot run as sent (a missing or malformed field)."""


class TooLarge(BadRequest):
    """A request body or question over the surfaces' size limits (HTTP 413)."""


MAX_K = 50  # passages one retrieve returns at most
MAX_QUESTION_CHARS = 4000  # a question, not a document: longer ones are refused before any search


def _needed(value: str | None, field: str) -> str:
    if not value or not str(value).strip():
        raise BadRequest(f"{field!r} is required for this edit")
    return str(value).strip()


def _question(question: Any) -> str:
    if not isinstance(question, str) or not question.strip():
        raise BadRequest('"question" is required: a non-empty string, e.g. {"question": "which file had the bug"}')
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadRequest('"question" must be valid text (it holds a lone UTF-16 surrogate)') from exc
    if len(question) > MAX_QUESTION_CHARS:
        raise TooLarge(
            f'"question" is {len(question):,} characters; ask in at most {MAX_QUESTION_CHARS:,} '
            "(a question, not a document: name what to look for)"
        )
    return question.strip()


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError as exc:
        raise BadRequest(f'"now" must be an ISO time, e.g. 2026-10-09T16:00:00Z (got {value!r})') from exc
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _project(cwd: str | None) -> str | None:
    return cwd.rstrip("/").rsplit("/", 1)[-1] if cwd else None

"""The HTTP API and the web page: a thin Starlette layer over `Memory`. No SQL and no prompt text here.

Guarantees:
- binds 127.0.0.1 by default; on any other address every /v1 request needs a bearer token from
  `[tokens]` in config.toml, and the server refuses to start without tokens configured;
- each token maps to a scope (surfaces/scopes.py): an agent token never receives another
  project's passages, personal facts or the graph;
- `POST /v1/ask` answers with the contract; with `"stream": true` or `Accept: text/event-stream`
  it streams server-sent events: `memory.thinking` (the first is sent before any work is done),
  `memory.answered`, then `result`;
- every error is one JSON shape: `{"error": {"code": str, "message": str}}`, where the message
  says what to do;
- `/openapi.json` describes every route; `/` serves the web page (plain files, no build step).
"""

from __future__ import annotations

import json
import logging
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..config import Config
from ..errors import ConfigError, ModelError, NotFoundError, ScopeError, VyreError
from ..memory import Memory
from . import running
from .background import CatchUp
from .scopes import (
    BadRequest,
    Caller,
    Gate,
    ScopedMemory,
    TooLarge,
    caller_for_token,
    is_loopback,
    tokens_from_config,
)

WEB = Path(__file__).with_name("web")
log = logging.getLogger("vyre_memory.http")
Handler = Callable[[Request, ScopedMemory], Awaitable[Any]]


def create_app(
    memory_factory: Callable[[], Memory],
    config: Config,
    *,
    bind_host: str = "127.0.0.1",
    listener: running.Listener | None = None,
) -> Starlette:
    """The API and the page over one `Memory`, opened when the server starts and closed when it stops;
    `listener`, the socket `vyre ask` reaches it on, is removed as it stops."""
    tokens = tokens_from_config(config.raw)
    loopback = is_loopback(bind_host)
    if not loopback and not tokens:
        raise ConfigError(
            f"binding {bind_host} makes memory reachable beyond this machine, so it needs tokens: add to "
            f'{config.home / "config.toml"}:\n[tokens]\n"<a long random token>" = "owner"\n'
            "or bind 127.0.0.1 (the default)"
        )
    state: dict[str, Gate] = {}
    catching: list[CatchUp] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        memory = await anyio.to_thread.run_sync(memory_factory)
        state["gate"] = Gate(memory)
        state["gate"].warm()
        catching.append(CatchUp(state["gate"], report=_tell))  # vectors and facts still to build, meanwhile
        catching[0].start()
        try:
            yield
        finally:
            catching[0].stop()
            if listener is not None:  # here, not after the server returns: uvicorn re-raises SIGTERM first
                running.unlisten(listener)
            # once the warm-up or the catch-up, if one is in a call, lets go of the gate
            await anyio.to_thread.run_sync(state["gate"].close)

    def route(handler: Handler, *, personal: bool = False) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                caller = caller_for_token(_bearer(request), tokens, loopback=loopback)
                scoped = ScopedMemory(state["gate"], caller)
                out = await handler(request, scoped)
                return out if isinstance(out, Response) else JSONResponse(out)
            except Exception as exc:  # translated once, here, into the one error shape
                return error_response(exc)

        return endpoint

    async def health(request: Request, scoped: ScopedMemory) -> Any:
        out = await anyio.to_thread.run_sync(scoped.health)
        return {**out, "embedding": catching[0].status() if catching else None}

    routes = [
        Route("/", _page, methods=["GET"]),
        Route("/app.js", _asset("app.js", "text/javascript"), methods=["GET"]),
        Route("/style.css", _asset("style.css", "text/css"), methods=["GET"]),
        Route("/openapi.json", _openapi, methods=["GET"]),
        Route("/v1/health", route(health), methods=["GET"]),
        Route("/v1/ask", route(_ask), methods=["POST"]),
        Route("/v1/retrieve", route(_retrieve), methods=["POST"]),
        Route("/v1/answer", route(_answer), methods=["POST"]),
        Route("/v1/facts", route(_facts), methods=["GET"]),
        Route("/v1/facts/{fact_id}", route(_fact), methods=["GET", "DELETE"]),
        Route("/v1/graph", route(_graph), methods=["GET"]),
        Route("/v1/graph/entities/{entity}", route(_entity), methods=["GET", "DELETE"]),
        Route("/v1/graph/entities/{entity}/{op}", route(_edit), methods=["POST", "DELETE"]),
        Route("/v1/sessions/{session:path}/turns", route(_turns), methods=["GET"]),  # a subagent id holds "/"
    ]

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        what = {404: ("not_found", "no such route; see /openapi.json"), 405: ("method_not_allowed", "wrong method")}
        code, message = what.get(status, ("http_error", str(getattr(exc, "detail", exc))))
        return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)

    return Starlette(routes=routes, lifespan=lifespan, exception_handlers={HTTPException: http_error})


# -- errors ---------------------------------------------------------------------------------------
_STATUS: tuple[tuple[type[BaseException], int, str], ...] = (
    (PermissionError, 401, "unauthorized"),
    (TooLarge, 413, "too_large"),
    (BadRequest, 400, "bad_request"),
    (NotFoundError, 404, "not_found"),
    (ScopeError, 403, "forbidden"),
    (ConfigError, 500, "config"),
    (ModelError, 502, "model"),
    (VyreError, 400, "bad_request"),
)


def error_payload(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """The one error shape, and its HTTP status."""
    for kind, status, code in _STATUS:
        if isinstance(exc, kind):
            return status, {"error": {"code": code, "message": str(exc)}}
    message = f"unexpected error ({type(exc).__name__}: {exc}); see the server log"
    return 500, {"error": {"code": "internal", "message": message}}


def error_response(exc: BaseException) -> JSONResponse:
    status, payload = error_payload(exc)
    if status == 500:
        log.error("request failed", exc_info=exc)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(payload, status_code=status, headers=headers)


def _tell(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return None


MAX_BODY_BYTES = 64 << 10  # a question and its options; a bigger body is refused before it is read whole


async def _body(request: Request) -> dict[str, Any]:
    raw = await _read_limited(request)
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise BadRequest(f'the body is not JSON ({exc}); send e.g. {{"question": "..."}}') from exc
    if not isinstance(body, dict):
        raise BadRequest('the body must be a JSON object, e.g. {"question": "..."}')
    return body


async def _read_limited(request: Request) -> bytes:
    """The body, or TooLarge as soon as it is known to pass MAX_BODY_BYTES (from Content-Length, else as read)."""
    too_large = TooLarge(
        f"the request body is over {MAX_BODY_BYTES // 1024} KB; send a question of at most "
        'a few thousand characters, e.g. {"question": "which file had the refund bug"}'
    )
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


def _ask_args(body: Mapping[str, Any]) -> dict[str, Any]:
    cwds = body.get("project_cwds")
    if cwds is not None and (not isinstance(cwds, list) or not all(isinstance(c, str) for c in cwds)):
        raise BadRequest('"project_cwds" must be a list of folders, e.g. ["/home/sam/code/shop-api"]')
    context = body.get("context")
    if context is not None and not isinstance(context, dict):
        raise BadRequest('"context" must be an object: {"project": ..., "thread": ...}')
    for key in ("project", "thread"):
        if context and context.get(key) is not None and not isinstance(context[key], str):
            raise BadRequest(f'"context.{key}" must be a string, e.g. {{"{key}": "/home/sam/code/shop-api"}}')
    return {"project_cwds": cwds, "context": context, "now": body.get("now")}


# -- handlers -------------------------------------------------------------------------------------
async def _ask(request: Request, scoped: ScopedMemory) -> Any:
    body = await _body(request)
    question, args = body.get("question"), _ask_args(body)
    wants_stream = body.get("stream") is True or "text/event-stream" in request.headers.get("accept", "")
    if not wants_stream:
        return await anyio.to_thread.run_sync(lambda: scoped.ask(question, **args))  # type: ignore[arg-type]
    events = scoped.ask_stream(question, **args)  # type: ignore[arg-type]
    first = await anyio.to_thread.run_sync(_first, events)  # a bad request fails here, as JSON, before streaming
    return StreamingResponse(
        _sse(first, events),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _first(events: Iterator[dict[str, Any]]) -> dict[str, Any] | None:
    return next(events, None)


async def _sse(first: dict[str, Any] | None, events: Iterator[dict[str, Any]]) -> AsyncIterator[bytes]:
    event = first
    while event is not None:
        yield f"event: {event['event']}\ndata: {json.dumps(event)}\n\n".encode()  # ASCII: no line breaks in it
        try:
            event = await anyio.to_thread.run_sync(_first, events)
        except Exception as exc:
            err = error_payload(exc)[1]
            yield f"event: error\ndata: {json.dumps(err)}\n\n".encode()
            return


async def _retrieve(request: Request, scoped: ScopedMemory) -> Any:
    body = await _body(request)
    args = _ask_args(body)
    k = body.get("k", 8)  # bounds are checked with the question, for HTTP and MCP alike
    return await anyio.to_thread.run_sync(lambda: scoped.retrieve(body.get("question"), k=k, **args))  # type: ignore[arg-type]


async def _answer(request: Request, scoped: ScopedMemory) -> Any:
    body = await _body(request)
    args = _ask_args(body)
    return await anyio.to_thread.run_sync(lambda: scoped.answer(body.get("question"), **args))  # type: ignore[arg-type]


async def _facts(request: Request, scoped: ScopedMemory) -> Any:
    q = request.query_params
    return await anyio.to_thread.run_sync(lambda: scoped.facts(q.get("subject"), q.get("relation")))


async def _fact(request: Request, scoped: ScopedMemory) -> Any:
    fact_id = request.path_params["fact_id"]
    if request.method == "DELETE":
        return await anyio.to_thread.run_sync(scoped.delete_fact, fact_id)
    return await anyio.to_thread.run_sync(scoped.fact, fact_id)


async def _graph(request: Request, scoped: ScopedMemory) -> Any:
    return await anyio.to_thread.run_sync(scoped.graph, request.query_params.get("kind"))


async def _entity(request: Request, scoped: ScopedMemory) -> Any:
    name = request.path_params["entity"]
    if request.method == "DELETE":
        return await anyio.to_thread.run_sync(lambda: scoped.edit("delete", name))
    return await anyio.to_thread.run_sync(scoped.entity, name)


_OPS = {
    ("POST", "rename"): "rename",
    ("POST", "merge"): "merge",
    ("POST", "aliases"): "alias_add",
    ("DELETE", "aliases"): "alias_remove",
    ("POST", "pin"): "pin",
}


async def _edit(request: Request, scoped: ScopedMemory) -> Any:
    name, op = request.path_params["entity"], request.path_params["op"]
    if (request.method, op) not in _OPS:
        raise BadRequest(f"no edit {request.method} …/{op}; use POST rename|merge|aliases|pin or DELETE aliases")
    body = await _body(request)
    if request.method == "DELETE" and "alias" not in body:
        body["alias"] = request.query_params.get("alias")
    return await anyio.to_thread.run_sync(
        lambda: scoped.edit(
            _OPS[(request.method, op)],
            name,
            new_name=body.get("new_name"),
            other=body.get("other"),
            alias=body.get("alias"),
            pinned=body.get("pinned", True) is not False,
        )
    )


async def _turns(request: Request, scoped: ScopedMemory) -> Any:
    q = request.query_params
    try:
        start = int(q.get("start", "0"))
        end = int(q["end"]) if "end" in q else None
    except ValueError as exc:
        raise BadRequest("start and end must be turn numbers (seq), e.g. ?start=3&end=9") from exc
    if not (0 <= start < 1 << 62) or (end is not None and not (0 <= end < 1 << 62)):
        raise BadRequest("start and end must be turn numbers (seq) from 0, e.g. ?start=3&end=9")
    return await anyio.to_thread.run_sync(scoped.turns, request.path_params["session"], start, end)


# -- the page and the schema ----------------------------------------------------------------------
async def _page(request: Request) -> Response:
    return FileResponse(WEB / "index.html", media_type="text/html", headers={"Cache-Control": "no-cache"})


def _asset(name: str, media_type: str) -> Callable[[Request], Awaitable[Response]]:
    async def serve_asset(request: Request) -> Response:
        return FileResponse(WEB / name, media_type=media_type, headers={"Cache-Control": "no-cache"})

    return serve_asset


async def _openapi(request: Request) -> Response:
    return JSONResponse(openapi())


def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document of /v1 (kept here, beside the routes it describes)."""
    ask_body = {
        "type": "object",
        "required": ["question"],
        "properties": {
            "question": {"type": "string"},
            "project_cwds": {"type": "array", "items": {"type": "string"}},
            "context": {"type": "object", "properties": {"project": {"type": "string"}, "thread": {"type": "string"}}},
            "now": {"type": "string", "format": "date-time"},
            "stream": {
                "type": "boolean",
                "description": "server-sent events: memory.thinking, memory.answered, result",
            },
            "k": {"type": "integer", "description": "/v1/retrieve only: how many passages"},
        },
    }
    source = {
        "type": "object",
        "properties": {
            k: {"type": t}
            for k, t in (
                ("session", "string"),
                ("seq", "integer"),
                ("name", "string"),
                ("quote", "string"),
                ("ts", "string"),
                ("uuid", "string"),
                ("project", "string"),
                ("cwd", "string"),
            )
        },
    }
    result = {
        "type": "object",
        "properties": {
            "answer": {"type": ["string", "null"]},
            "confidence": {"type": "number"},
            "abstained": {"type": "boolean"},
            "known": {"type": "array", "items": {"type": "string"}},
            "sources": {"type": "array", "items": source},
            "via": {"type": ["string", "null"], "enum": ["fact", "retrieval", None]},
            "latency_ms": {"type": "number"},
            "cost_usd": {"type": "number"},
        },
    }
    error = {
        "type": "object",
        "properties": {
            "error": {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}
        },
    }

    def op(
        summary: str,
        body: dict[str, Any] | None = None,
        out: dict[str, Any] | None = None,
        params: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        d: dict[str, Any] = {
            "summary": summary,
            "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": out or {"type": "object"}}}},
                "default": {"description": "error", "content": {"application/json": {"schema": error}}},
            },
        }
        if body:
            d["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
        if params:
            d["parameters"] = [
                {"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in params
            ]
        return d

    ask = op("Ask: one cited answer, or an abstention with what memory knows", ask_body, result)
    ask["responses"]["200"]["content"]["text/event-stream"] = {"schema": {"type": "string"}}
    name_body = {
        "type": "object",
        "properties": {
            "new_name": {"type": "string"},
            "other": {"type": "string"},
            "alias": {"type": "string"},
            "pinned": {"type": "boolean"},
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Vyre Memory",
            "version": "0.1.0",
            "description": "One question in, one cited answer out. Send 'Authorization: Bearer <token>' "
            "when the server is bound beyond 127.0.0.1.",
        },
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}, {}],
        "paths": {
            "/v1/health": {"get": op("Is the server up, and who am I")},
            "/v1/ask": {"post": ask},
            "/v1/retrieve": {"post": op("The ranked passages an answer would read", ask_body)},
            "/v1/answer": {"post": op("The fast path: facts only, no model", ask_body, result)},
            "/v1/facts": {"get": op("Personal facts (owner only)")},
            "/v1/facts/{fact_id}": {
                "get": op("One fact and its sources", params=("fact_id",)),
                "delete": op("Delete a wrong fact", params=("fact_id",)),
            },
            "/v1/graph": {"get": op("People, projects, organisations and decisions, and their edges")},
            "/v1/graph/entities/{entity}": {
                "get": op("One entity by id, name or alias", params=("entity",)),
                "delete": op("Delete an entity", params=("entity",)),
            },
            "/v1/graph/entities/{entity}/rename": {"post": op("Rename", name_body, params=("entity",))},
            "/v1/graph/entities/{entity}/merge": {"post": op("Merge `other` into it", name_body, params=("entity",))},
            "/v1/graph/entities/{entity}/aliases": {
                "post": op("Add an alias", name_body, params=("entity",)),
                "delete": op("Remove an alias", name_body, params=("entity",)),
            },
            "/v1/graph/entities/{entity}/pin": {"post": op("Pin or unpin", name_body, params=("entity",))},
            "/v1/sessions/{session}/turns": {"get": op("The turns of a session (?start=&end=)", params=("session",))},
        },
    }


def serve(
    home: Path | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    log_level: str = "warning",
    ready: Callable[[], None] | None = None,
) -> None:
    """Run the API and the page on uvicorn until interrupted; on a loopback address also on the socket in
    the home that `vyre ask` hands its questions to (surfaces/running.py). Every socket listens before
    the memory opens, so a second server for the same port or home finds this one at once. `ready` is
    called once every socket listens and the settings are accepted (a banner printed there is true)."""
    import uvicorn

    config = Config.load(home)
    sockets = _tcp_sockets(host, port)
    listener = running.listen(config.home) if is_loopback(host) else None
    try:
        app = create_app(lambda: Memory(config=config), config, bind_host=host, listener=listener)
        settings = uvicorn.Config(app, host=host, port=port, log_level=log_level)
        if ready is not None:
            ready()
        uvicorn.Server(settings).run(sockets=[*sockets, *([listener.sock] if listener else [])])
    finally:
        for sock in sockets:
            sock.close()
        if listener is not None:
            running.unlisten(listener)


def _tcp_sockets(host: str, port: int) -> list[socket.socket]:
    """A listening socket on every address `host` names ("localhost": 127.0.0.1 and ::1, where it has both)."""
    out: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        ):
            try:
                sock = socket.socket(family, kind, proto)
            except OSError:
                continue  # a family this machine lacks (IPv6 switched off), as asyncio does
            out.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(2048)
    except OSError as exc:
        for sock in out:
            sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}); is another vyre serve running there? "
            "Stop it, or choose another --port"
        ) from exc
    return out


__all__ = ["Caller", "create_app", "error_response", "openapi", "serve"]

"""The one interface every model call goes through, and the switch that forbids real calls.

Guarantees:
- `ModelRequest` is frozen and `request_key(req, backend_name)` hashes *every* field of it
  (purpose, prompt name and VERSION, system, prompt, model, max_tokens, temperature,
  json_schema, timeout_s) plus the backend name: two requests share a key only if they are equal.
- A backend that would send anything off this process (API, local server, `claude` CLI) calls
  `check_model_requests_allowed()` first; with `ALLOW_MODEL_REQUESTS` off it raises
  `ModelCallsForbidden` before any byte is sent. Fakes and replay never check it.
- `complete(backend, req)` returns within about `req.timeout_s` (plus a small grace) even if a backend hangs:
  the call runs on a daemon thread and a late answer is dropped as a `ModelTimeout`.
- Nothing happens at import: no clock reads, no environment reads, no network.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable

from vyre_memory.errors import ModelCallsForbidden, ModelOutputError, ModelTimeout

PURPOSES: tuple[str, ...] = ("rerank", "answer", "verify", "reader")
DEFAULT_ANTHROPIC_MODEL = "claude-haiku-4-5"
DEFAULT_CLI_MODEL = DEFAULT_ANTHROPIC_MODEL

# Like pydantic-ai's ALLOW_MODEL_REQUESTS: tests set it to False (tests/models/conftest.py)
# so that a forgotten real backend fails loudly instead of spending money or leaking data.
ALLOW_MODEL_REQUESTS: bool = True
_switch_lock = threading.Lock()


def check_model_requests_allowed(backend_name: str) -> None:
    """Raise ModelCallsForbidden when real model calls are switched off."""
    if not ALLOW_MODEL_REQUESTS:
        raise ModelCallsForbidden(
            f"a real model call through {backend_name!r} while model requests are switched off "
            "(tests); use a FakeModel or ReplayBackend, or wrap a call to a local fake server "
            "in `with allow_model_requests():`"
        )


@contextmanager
def allow_model_requests(allow: bool = True) -> Iterator[None]:
    """Temporarily set ALLOW_MODEL_REQUESTS (e.g. a test that talks to a fake server on 127.0.0.1)."""
    global ALLOW_MODEL_REQUESTS
    with _switch_lock:
        before = ALLOW_MODEL_REQUESTS
        ALLOW_MODEL_REQUESTS = allow
    try:
        yield
    finally:
        with _switch_lock:
            ALLOW_MODEL_REQUESTS = before


def set_model_requests_allowed(allow: bool) -> bool:
    """Set the switch; return the previous value (for fixtures that restore it)."""
    global ALLOW_MODEL_REQUESTS
    with _switch_lock:
        before = ALLOW_MODEL_REQUESTS
        ALLOW_MODEL_REQUESTS = allow
    return before


@dataclass(frozen=True)
class ModelRequest:
    """Everything that decides a model's answer; all of it goes into the request key."""

    purpose: str
    prompt_name: str
    prompt_version: str
    system: str
    prompt: str
    model: str = ""
    max_tokens: int = 1024
    temperature: float = 0.0
    json_schema: dict[str, Any] | None = None
    timeout_s: float = 30.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelRequest:
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class ModelResponse:
    text: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    backend: str = ""
    from_cache: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelResponse:
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in names})


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def request_key(req: ModelRequest, backend_name: str) -> str:
    """sha256 of the canonical JSON of the whole request and the backend name."""
    payload = {"backend": backend_name, "request": req.to_dict()}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


@runtime_checkable
class ModelBackend(Protocol):
    """A model behind one call. Implementations raise only the errors.py tree."""

    name: str

    def complete(self, req: ModelRequest) -> ModelResponse: ...

    def close(self) -> None: ...


def render_user_prompt(req: ModelRequest) -> str:
    """The user text a backend sends: the prompt, plus the JSON Schema instruction if one is set.

    Backends send the schema as an instruction rather than a provider feature so that the same
    request means the same thing on every backend (CLI, API, local servers).
    """
    if req.json_schema is None:
        return req.prompt
    schema = json.dumps(req.json_schema, sort_keys=True, ensure_ascii=False)
    return f"{req.prompt}\n\nReply with one JSON value only, no prose, matching this JSON Schema:\n{schema}"


def parse_json_output(text: str) -> Any:
    """Parse model output as JSON (tolerating a ```json fence); raise ModelOutputError carrying the raw text."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        if body.rstrip().endswith("```"):
            body = body.rstrip()[:-3]
    try:
        return json.loads(body)
    except (json.JSONDecodeError, ValueError) as exc:
        raise ModelOutputError(f"model output is not JSON: {exc}", raw=text) from exc


GRACE_S = 0.25  # how long past its own timeout a backend gets before we stop waiting
_waiting = threading.local()


def set_wait_hook(hook: Callable[[], AbstractContextManager[None]] | None) -> Callable[[], Any] | None:
    """In this thread, wrap every wait for a model in `hook()` (a server lets other requests use the memory
    meanwhile); returns the previous hook, to restore."""
    previous = getattr(_waiting, "hook", None)
    _waiting.hook = hook
    return previous


def complete(backend: ModelBackend, req: ModelRequest) -> ModelResponse:
    """`backend.complete(req)`, but never waiting much longer than `req.timeout_s`; errors are re-raised as is."""
    box: dict[str, ModelResponse | BaseException] = {}

    def run() -> None:
        try:
            box["out"] = backend.complete(req)
        except BaseException as exc:  # handed to the caller's thread
            box["out"] = exc

    worker = threading.Thread(target=run, name=f"vyre-{req.purpose}", daemon=True)
    worker.start()
    hook = getattr(_waiting, "hook", None)
    with hook() if hook is not None else nullcontext():
        worker.join(req.timeout_s + GRACE_S)
    if "out" not in box:
        raise ModelTimeout(f"{backend.name}: no {req.purpose} answer within {req.timeout_s}s")
    out = box["out"]
    if isinstance(out, BaseException):
        raise out
    return out

"""The `claude` CLI as a model: one warm stream-json process, with a per-call fallback.

Guarantees:
- Memory's own calls never become sessions memory ingests: every `claude` process runs with
  `--no-session-persistence` and its working folder is `workdir` (inside VYRE_HOME, e.g.
  `$VYRE_HOME/cli/`), created on first use.
- One long-lived process (`claude -p --input-format stream-json --output-format stream-json
  --verbose ...`) serves calls one at a time and is closed after `idle_timeout_s` without a call.
  It is restarted when the model or system prompt changes, and after `max_calls_per_process`
  calls, because a stream-json process keeps the conversation and would otherwise grow.
- If the warm process cannot be started, dies, or breaks the protocol, the call is retried once
  as `claude -p --output-format json` within what is left of `timeout_s`.
- A call never outlives `timeout_s` (plus process teardown): on timeout the process is killed and
  ModelTimeout raised. A `result` with `is_error` raises ModelError (no fallback: the CLI
  answered, and it said no).
- CLAUDECODE / CLAUDE_CODE_ENTRYPOINT are removed from the child's environment, so it starts when
  Vyre itself runs inside a Claude Code session (hooks, MCP).
- By default the CLI gets no tools and no MCP servers (DEFAULT_EXTRA_ARGS; `extra_args` replaces it).
- temperature and max_tokens are not CLI flags; they are part of the request key but not sent.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from vyre_memory.errors import ModelError, ModelTimeout
from vyre_memory.models.base import (
    DEFAULT_CLI_MODEL,
    ModelRequest,
    ModelResponse,
    check_model_requests_allowed,
    render_user_prompt,
)
from vyre_memory.models.pricing import cost_usd

# A warm process keeps the conversation; this keeps each call standing on its own.
INDEPENDENT_NOTE = "Each user message is a separate request: answer it on its own and ignore earlier messages."
_EOF = None
NESTING_ENV = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")
# A memory call is text in, text out: no built-in tools, and none of the user's MCP servers
# (which could include Vyre's own, started again inside every call). `--tools ""` alone leaves
# MCP tools mounted; `--strict-mcp-config` without `--mcp-config` loads none.
DEFAULT_EXTRA_ARGS: tuple[str, ...] = ("--tools", "", "--strict-mcp-config")


class _WarmFailedError(Exception):
    """The warm process could not serve the call (start, write, exit, protocol); fall back."""


def _system_for(req: ModelRequest) -> str:
    return f"{req.system}\n\n{INDEPENDENT_NOTE}" if req.system else INDEPENDENT_NOTE


def _user_line(text: str) -> str:
    message = {
        "type": "user",
        "session_id": "",
        "parent_tool_use_id": None,
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    return json.dumps(message, ensure_ascii=False) + "\n"


def _pump(stream: IO[str], sink: queue.Queue[str | None] | collections.deque[str]) -> None:
    """Copy lines from a pipe; a queue gets an EOF marker at the end."""
    try:
        for line in stream:
            if isinstance(sink, queue.Queue):
                sink.put(line)
            else:
                sink.append(line)
    except (OSError, ValueError):
        pass
    finally:
        if isinstance(sink, queue.Queue):
            sink.put(_EOF)


class _WarmProcess:
    """One running `claude` stream-json process and the threads draining its pipes."""

    def __init__(self, argv: list[str], cwd: Path, env: Mapping[str, str], key: tuple[str, str]) -> None:
        self.key = key
        self.calls = 0
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=50)
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=_pump, args=(self.proc.stderr, self.stderr), daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr_tail(self) -> str:
        return "".join(self.stderr).strip()[-500:]

    def close(self, grace_s: float = 2.0) -> None:
        """EOF on stdin first (the CLI exits cleanly), then terminate, then kill."""
        try:
            if self.proc.stdin and not self.proc.stdin.closed:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=grace_s)
            return
        except subprocess.TimeoutExpired:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def kill(self) -> None:
        if self.alive():
            self.proc.kill()
        self.proc.wait()


class ClaudeCliBackend:
    name = "claude-cli"

    def __init__(
        self,
        workdir: str | os.PathLike[str],
        *,
        binary: str = "claude",
        model: str = DEFAULT_CLI_MODEL,
        idle_timeout_s: float = 600.0,
        max_calls_per_process: int = 20,
        extra_args: Sequence[str] = DEFAULT_EXTRA_ARGS,
        env: Mapping[str, str] | None = None,
        prices: Mapping[str, Any] | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.binary = binary
        self.default_model = model
        self.idle_timeout_s = idle_timeout_s
        self.max_calls_per_process = max(1, max_calls_per_process)
        self.extra_args = list(extra_args)
        self.env = env
        self.prices = prices
        self.spawn_count = 0
        self.fallback_count = 0
        self.last_fallback_reason = ""
        self._warm: _WarmProcess | None = None
        self._lock = threading.Lock()
        self._idle_timer: threading.Timer | None = None
        self._last_used = 0.0

    # ---- public -------------------------------------------------------------------------

    @property
    def warm_pid(self) -> int | None:
        """The pid of the warm process while it runs, else None."""
        warm = self._warm
        return warm.pid if warm is not None and warm.alive() else None

    def complete(self, req: ModelRequest) -> ModelResponse:
        check_model_requests_allowed(self.name)
        deadline = time.monotonic() + req.timeout_s
        # Calls share one process, so they take turns; waiting for a turn spends the same budget.
        if not self._lock.acquire(timeout=max(0.0, req.timeout_s)):
            raise ModelTimeout(f"claude CLI: busy with other calls for {req.timeout_s}s; raise timeout_s")
        try:
            self._cancel_idle_timer()
            try:
                return self._warm_call(req, deadline)
            except _WarmFailedError as failure:
                self._drop_warm(kill=True)
                self.fallback_count += 1
                self.last_fallback_reason = str(failure)
                return self._oneshot_call(req, deadline, str(failure))
        finally:
            self._last_used = time.monotonic()
            self._start_idle_timer()
            self._lock.release()

    def complete_once(self, req: ModelRequest) -> ModelResponse:
        """One `claude -p --output-format json` process for this call only (the fallback path)."""
        check_model_requests_allowed(self.name)
        return self._oneshot_call(req, time.monotonic() + req.timeout_s, "asked for a one-off call")

    def close(self) -> None:
        with self._lock:
            self._cancel_idle_timer()
            self._drop_warm(kill=False)

    # ---- argv ---------------------------------------------------------------------------

    def warm_argv(self, model: str, system: str) -> list[str]:
        return [
            self.binary, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
            "--no-session-persistence", "--model", model, "--system-prompt", system, *self.extra_args,
        ]  # fmt: skip

    def oneshot_argv(self, model: str, system: str) -> list[str]:
        return [
            self.binary, "-p", "--output-format", "json", "--no-session-persistence",
            "--model", model, "--system-prompt", system, *self.extra_args,
        ]  # fmt: skip

    # ---- warm path ----------------------------------------------------------------------

    def _env(self) -> dict[str, str]:
        env = dict(self.env if self.env is not None else os.environ)
        # Run from a Claude Code session (hooks, MCP), these make the child refuse to start
        # ("cannot be launched inside another Claude Code session"); ours is not a nested session.
        for name in NESTING_ENV:
            env.pop(name, None)
        return env

    def _ensure_warm(self, model: str, system: str) -> _WarmProcess:
        key = (model, system)
        warm = self._warm
        if warm is not None and (not warm.alive() or warm.key != key or warm.calls >= self.max_calls_per_process):
            self._drop_warm(kill=True)  # a call is waiting; no grace period for the old process
            warm = None
        if warm is None:
            self.workdir.mkdir(parents=True, exist_ok=True)
            try:
                warm = _WarmProcess(self.warm_argv(model, system), self.workdir, self._env(), key)
            except OSError as exc:
                raise _WarmFailedError(f"cannot start {self.binary!r}: {exc}") from exc
            self.spawn_count += 1
            self._warm = warm
        return warm

    def _warm_call(self, req: ModelRequest, deadline: float) -> ModelResponse:
        model = req.model or self.default_model
        start = time.perf_counter()
        warm = self._ensure_warm(model, _system_for(req))
        try:
            assert warm.proc.stdin is not None
            warm.proc.stdin.write(_user_line(render_user_prompt(req)))
            warm.proc.stdin.flush()
        except (OSError, ValueError) as exc:
            raise _WarmFailedError(f"warm claude process would not take input: {exc}") from exc
        warm.calls += 1
        seen_model = model
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = warm.lines.get(timeout=max(0.0, remaining)) if remaining > 0 else warm.lines.get_nowait()
            except queue.Empty:
                self._drop_warm(kill=True)
                raise ModelTimeout(f"claude CLI: no answer within {req.timeout_s}s; raise timeout_s") from None
            if line is _EOF:
                warm.proc.wait()
                raise _WarmFailedError(
                    f"warm claude process exited (code {warm.proc.returncode}): {warm.stderr_tail() or 'no stderr'}"
                )
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue  # the CLI may print a non-JSON notice; the protocol lines are JSON
            if not isinstance(event, dict):
                continue
            if event.get("type") == "assistant":
                seen_model = str((event.get("message") or {}).get("model") or seen_model)
            elif event.get("type") == "result":
                return self._response(event, model, seen_model, start)

    # ---- fallback path ------------------------------------------------------------------

    def _oneshot_call(self, req: ModelRequest, deadline: float, why: str) -> ModelResponse:
        model = req.model or self.default_model
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ModelTimeout(f"claude CLI: no time left for the fallback call after: {why}")
        start = time.perf_counter()
        self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            done = subprocess.run(
                self.oneshot_argv(model, _system_for(req)),
                input=render_user_prompt(req),
                capture_output=True,
                text=True,
                encoding="utf-8",
                cwd=self.workdir,
                env=self._env(),
                timeout=remaining,
            )
        except subprocess.TimeoutExpired as exc:
            raise ModelTimeout(f"claude CLI: no answer within {req.timeout_s}s; raise timeout_s") from exc
        except OSError as exc:
            raise ModelError(
                f"cannot run {self.binary!r} ({exc}); install Claude Code, or choose another backend in [models]"
            ) from exc
        event = _result_from_json_output(done.stdout)
        if event is None:
            tail = (done.stderr or done.stdout).strip()[-500:]
            raise ModelError(
                f"claude CLI failed (exit {done.returncode}) after the warm process failed ({why}): {tail}; "
                "run `claude -p hello` to check it works and is logged in"
            )
        return self._response(event, model, model, start)

    # ---- shared -------------------------------------------------------------------------

    def _response(self, event: dict[str, Any], model: str, seen_model: str, start: float) -> ModelResponse:
        if event.get("is_error") or event.get("subtype", "success") != "success":
            raise ModelError(
                f"claude CLI returned an error ({event.get('subtype')}): {str(event.get('result', ''))[:300]}; "
                "run `claude -p hello` to check login and quota"
            )
        usage = event.get("usage") or {}
        in_tok = sum(
            int(usage.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        out_tok = int(usage.get("output_tokens") or 0)
        reported = event.get("total_cost_usd")
        cost = float(reported) if isinstance(reported, int | float) else cost_usd(model, in_tok, out_tok, self.prices)
        return ModelResponse(
            text=str(event.get("result") or ""),
            model=seen_model,
            input_tokens=in_tok,
            output_tokens=out_tok,
            cost_usd=cost,
            latency_ms=(time.perf_counter() - start) * 1000,
            backend=self.name,
        )

    def _drop_warm(self, kill: bool) -> None:
        warm, self._warm = self._warm, None
        if warm is None:
            return
        if kill:
            warm.kill()
        else:
            warm.close()

    # ---- idle ---------------------------------------------------------------------------

    def _start_idle_timer(self) -> None:
        if self._warm is None or self.idle_timeout_s <= 0:
            return
        timer = threading.Timer(self.idle_timeout_s, self._idle_close)
        timer.daemon = True
        self._idle_timer = timer
        timer.start()

    def _cancel_idle_timer(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None

    def _idle_close(self) -> None:
        with self._lock:
            # A call may have started and finished between the timer firing and the lock.
            if time.monotonic() - self._last_used + 0.01 < self.idle_timeout_s:
                return
            self._idle_timer = None
            self._drop_warm(kill=False)


def _result_from_json_output(stdout: str) -> dict[str, Any] | None:
    """The `result` event from `--output-format json`: one object, or (newer CLIs) a list of events."""
    try:
        data = json.loads(stdout)
    except (json.JSONDecodeError, ValueError):
        return None
    if isinstance(data, dict) and data.get("type", "result") == "result":
        return data
    if isinstance(data, list):
        results = [e for e in data if isinstance(e, dict) and e.get("type") == "result"]
        return results[-1] if results else None
    return None

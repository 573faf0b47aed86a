"""Which backend serves a purpose (rerank, answer, verify, reader), and why, in one line.

Config is the `[models]` table of config.toml, as a dict:

    backend = "auto"             # auto | claude-cli | anthropic | openai | replay | none (all purposes)
    model = "claude-haiku-4-5"   # optional, all purposes
    record_dir = "..."           # optional: wrap the chosen real backend in RecordingBackend
    daily_budget_usd = 1.0       # optional: refuse calls once today's (UTC) spend reaches it
    [models.answer]              # per purpose: backend, model
    [models.claude_cli]          # binary, idle_timeout_s, max_calls_per_process, extra_args
    [models.anthropic]           # api_key_env (default ANTHROPIC_API_KEY), base_url, max_retries
    [models.openai]              # base_url (required), model (required), api_key_env, max_retries
    [models.replay]              # fixtures_dir (required), misses_path
    [models.prices]              # "model-id" = {input = USD/Mtok, output = USD/Mtok}

The environment overrides config: VYRE_MODEL_BACKEND_<PURPOSE>, then VYRE_MODEL_BACKEND; replay
reads VYRE_REPLAY_DIR / VYRE_REPLAY_MISSES, recording VYRE_RECORD_DIR.

Guarantees:
- With nothing configured ("auto"): the `claude` CLI when it is on PATH, else the Anthropic API
  when ANTHROPIC_API_KEY is set, else no model. "auto" never raises.
- An explicit choice that cannot work raises ConfigError saying what to set.
- Selecting twice with the same settings returns the same CLI backend (so its warm process is
  reused); `close_shared_backends()` closes them. Selecting starts no process and sends nothing.
"""

from __future__ import annotations

import importlib.util
import shutil
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vyre_memory.config import vyre_home
from vyre_memory.errors import ConfigError
from vyre_memory.models.anthropic_api import AnthropicBackend
from vyre_memory.models.base import DEFAULT_ANTHROPIC_MODEL, PURPOSES, ModelBackend
from vyre_memory.models.claude_cli import DEFAULT_EXTRA_ARGS, ClaudeCliBackend
from vyre_memory.models.openai_compat import OpenAICompatBackend
from vyre_memory.models.pricing import BudgetedBackend, DailyBudget
from vyre_memory.models.replay import RecordingBackend, ReplayBackend

BACKENDS: tuple[str, ...] = ("auto", "claude-cli", "anthropic", "openai", "replay", "none")
_ALIASES = {"claude": "claude-cli", "cli": "claude-cli", "claude_cli": "claude-cli", "api": "anthropic", "off": "none"}

_shared_lock = threading.Lock()
_shared_cli: dict[tuple[Any, ...], ClaudeCliBackend] = {}


def _table(config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = config.get(name) or {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"[models.{name}] must be a table, got {value!r}")
    return value


def _choice(purpose: str, config: Mapping[str, Any], env: Mapping[str, str]) -> tuple[str, str]:
    """(backend name, where the choice came from)."""
    candidates = [
        (env.get(f"VYRE_MODEL_BACKEND_{purpose.upper()}"), f"VYRE_MODEL_BACKEND_{purpose.upper()}"),
        (env.get("VYRE_MODEL_BACKEND"), "VYRE_MODEL_BACKEND"),
        (_table(config, purpose).get("backend"), f"[models.{purpose}] backend"),
        (config.get("backend"), "[models] backend"),
    ]
    for value, source in candidates:
        if value:
            name = _ALIASES.get(str(value).strip().lower(), str(value).strip().lower())
            if name not in BACKENDS:
                raise ConfigError(f"{source} = {value!r} is not a model backend; use one of {', '.join(BACKENDS)}")
            return name, source
    return "auto", "default"


def _model(purpose: str, config: Mapping[str, Any], fallback: str) -> str:
    return str(_table(config, purpose).get("model") or config.get("model") or fallback)


def _auto(env: Mapping[str, str], config: Mapping[str, Any]) -> tuple[str, str]:
    binary = str(_table(config, "claude_cli").get("binary") or "claude")
    if shutil.which(binary, path=env.get("PATH", "")):
        return "claude-cli", f"`{binary}` is on PATH"
    key_env = str(_table(config, "anthropic").get("api_key_env") or "ANTHROPIC_API_KEY")
    if env.get(key_env):
        if importlib.util.find_spec("anthropic") is None:
            return (
                "none",
                f"{key_env} is set but the anthropic package is not installed: pip install 'vyre-memory[anthropic]'",
            )
        return "anthropic", f"{key_env} is set"
    return "none", f"no `{binary}` on PATH and no {key_env}"


def select_backend(purpose: str, config: Mapping[str, Any], env: Mapping[str, str]) -> tuple[ModelBackend | None, str]:
    """The backend for `purpose` (None = no model) and a one-line reason for `vyre doctor`."""
    if purpose not in PURPOSES:
        raise ConfigError(f"unknown model purpose {purpose!r}; use one of {', '.join(PURPOSES)}")
    name, source = _choice(purpose, config, env)
    why = f"set by {source}"
    if name == "auto":
        name, why = _auto(env, config)
    backend, detail = _build(name, purpose, config, env)
    if backend is None:
        return None, f"{purpose}: no model ({why}); answers come from local retrieval only"
    record_dir = env.get("VYRE_RECORD_DIR") or config.get("record_dir")
    if record_dir and name not in ("replay", "none"):
        backend = RecordingBackend(backend, Path(str(record_dir)).expanduser())
        detail += f", recording to {record_dir}"
    cap = config.get("daily_budget_usd")
    if cap is not None and name not in ("replay", "none"):
        try:
            cap_usd = float(cap)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"[models] daily_budget_usd must be a number of USD, got {cap!r}") from exc
        budget = DailyBudget.from_file(cap_usd, vyre_home(env) / "model_spend.json")
        backend = BudgetedBackend(backend, budget)
        detail += f", daily budget ${cap_usd:.2f}"
    return backend, f"{purpose}: {detail} ({why})"


def _need_sdk(module: str, backend: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ConfigError(f"the {backend} backend needs the `{module}` package: pip install 'vyre-memory[{module}]'")


def _build(
    name: str, purpose: str, config: Mapping[str, Any], env: Mapping[str, str]
) -> tuple[ModelBackend | None, str]:
    prices = _table(config, "prices") or None
    if name == "none":
        return None, "none"
    if name == "claude-cli":
        return _build_cli(purpose, config, env, prices)
    if name == "anthropic":
        table = _table(config, "anthropic")
        key_env = str(table.get("api_key_env") or "ANTHROPIC_API_KEY")
        if not env.get(key_env):
            raise ConfigError(f"the anthropic backend needs an API key; set {key_env}")
        _need_sdk("anthropic", name)
        model = _model(purpose, config, DEFAULT_ANTHROPIC_MODEL)
        backend = AnthropicBackend(
            env[key_env],
            model=model,
            base_url=table.get("base_url"),
            max_retries=int(table.get("max_retries", 0)),
            prices=prices,
        )
        return backend, f"Anthropic API, model {model}"
    if name == "openai":
        table = _table(config, "openai")
        base_url = str(table.get("base_url") or "")
        model = str(_table(config, purpose).get("model") or table.get("model") or "")
        _need_sdk("openai", name)
        openai_key_env = table.get("api_key_env")
        api_key = env.get(str(openai_key_env), "") if openai_key_env else "not-needed"
        openai_backend = OpenAICompatBackend(
            base_url, model, api_key=api_key, max_retries=int(table.get("max_retries", 0)), prices=prices
        )
        return openai_backend, f"OpenAI-compatible server at {base_url}, model {model}"
    if name == "replay":
        table = _table(config, "replay")
        fixtures = str(env.get("VYRE_REPLAY_DIR") or table.get("fixtures_dir") or "")
        if not fixtures:
            raise ConfigError("the replay backend needs a fixtures folder; set VYRE_REPLAY_DIR or [models.replay]")
        misses = env.get("VYRE_REPLAY_MISSES") or table.get("misses_path")
        replay = ReplayBackend(
            Path(str(fixtures)).expanduser(),
            Path(str(misses)).expanduser() if misses else None,
            default_model=_model(purpose, config, DEFAULT_ANTHROPIC_MODEL),
        )
        return replay, f"replay from {fixtures}"
    raise ConfigError(f"unknown model backend {name!r}; use one of {', '.join(BACKENDS)}")


def _build_cli(
    purpose: str, config: Mapping[str, Any], env: Mapping[str, str], prices: Mapping[str, Any] | None
) -> tuple[ModelBackend, str]:
    table = _table(config, "claude_cli")
    binary = str(table.get("binary") or "claude")
    resolved = shutil.which(binary, path=env.get("PATH", ""))
    if resolved is None:
        raise ConfigError(f"`{binary}` is not on PATH; install Claude Code or set [models.claude_cli] binary")
    model = _model(purpose, config, DEFAULT_ANTHROPIC_MODEL)
    workdir = vyre_home(env) / "cli"
    idle = float(table.get("idle_timeout_s", 600.0))
    max_calls = int(table.get("max_calls_per_process", 20))
    extra = tuple(str(a) for a in table.get("extra_args", DEFAULT_EXTRA_ARGS))
    # One instance per purpose and settings: each purpose keeps its own system prompt, so its
    # warm process is not restarted by the other purposes' calls.
    key = (purpose, resolved, str(workdir), model, idle, max_calls, extra, tuple(sorted(env.items())))
    with _shared_lock:
        backend = _shared_cli.get(key)
        if backend is None:
            backend = ClaudeCliBackend(
                workdir,
                binary=resolved,
                model=model,
                idle_timeout_s=idle,
                max_calls_per_process=max_calls,
                extra_args=extra,
                env=dict(env),
                prices=prices,
            )
            _shared_cli[key] = backend
    return backend, f"claude CLI at {resolved}, model {model}, working folder {workdir}"


def close_shared_backends() -> None:
    """Close every CLI backend select_backend handed out (their warm processes end)."""
    with _shared_lock:
        backends = list(_shared_cli.values())
        _shared_cli.clear()
    for backend in backends:
        backend.close()

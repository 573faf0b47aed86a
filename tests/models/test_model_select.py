"""Which backend serves a purpose: config, environment, and the default order CLI > API key > none."""

from __future__ import annotations

import importlib.util
import stat
from pathlib import Path

import pytest

from vyre_memory.errors import ConfigError
from vyre_memory.models.anthropic_api import AnthropicBackend
from vyre_memory.models.claude_cli import ClaudeCliBackend
from vyre_memory.models.openai_compat import OpenAICompatBackend
from vyre_memory.models.replay import RecordingBackend, ReplayBackend
from vyre_memory.models.select import select_backend


@pytest.fixture
def path_with_claude(tmp_path: Path) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(claude.stat().st_mode | stat.S_IXUSR)
    return str(bin_dir)


@pytest.fixture
def empty_path(tmp_path: Path) -> str:
    empty = tmp_path / "empty"
    empty.mkdir()
    return str(empty)


def test_default_is_claude_cli_when_on_path_even_with_api_key(path_with_claude: str, tmp_path: Path) -> None:
    env = {"PATH": path_with_claude, "ANTHROPIC_API_KEY": "sk-x", "VYRE_HOME": str(tmp_path / "home")}
    backend, reason = select_backend("answer", {}, env)
    assert isinstance(backend, ClaudeCliBackend)
    assert backend.workdir == tmp_path / "home" / "cli"
    assert backend.binary == str(Path(path_with_claude) / "claude")
    assert backend.default_model == "claude-haiku-4-5"
    assert backend.extra_args == ["--tools", "", "--strict-mcp-config"]
    assert reason == (
        f"answer: claude CLI at {path_with_claude}/claude, model claude-haiku-4-5, "
        f"working folder {tmp_path}/home/cli (`claude` is on PATH)"
    )


def test_default_is_anthropic_api_when_no_cli_but_key(empty_path: str) -> None:
    backend, reason = select_backend("rerank", {}, {"PATH": empty_path, "ANTHROPIC_API_KEY": "sk-x"})
    assert isinstance(backend, AnthropicBackend)
    assert reason == "rerank: Anthropic API, model claude-haiku-4-5 (ANTHROPIC_API_KEY is set)"


def test_default_is_none_with_neither(empty_path: str) -> None:
    backend, reason = select_backend("verify", {}, {"PATH": empty_path})
    assert backend is None
    assert reason == (
        "verify: no model (no `claude` on PATH and no ANTHROPIC_API_KEY); answers come from local retrieval only"
    )


def test_selection_starts_nothing_and_reuses_the_cli_backend(path_with_claude: str, tmp_path: Path) -> None:
    env = {"PATH": path_with_claude, "VYRE_HOME": str(tmp_path / "home")}
    first, _ = select_backend("answer", {}, env)
    second, _ = select_backend("answer", {}, env)
    assert first is second
    assert isinstance(first, ClaudeCliBackend) and first.warm_pid is None and first.spawn_count == 0
    assert not (tmp_path / "home").exists()


def test_per_purpose_config_and_environment_override(path_with_claude: str, tmp_path: Path) -> None:
    config = {"backend": "none", "answer": {"backend": "anthropic", "model": "claude-opus-4-6"}}
    env = {"PATH": path_with_claude, "ANTHROPIC_API_KEY": "sk-x"}
    answer, why = select_backend("answer", config, env)
    assert isinstance(answer, AnthropicBackend) and answer.default_model == "claude-opus-4-6"
    assert why.endswith("(set by [models.answer] backend)")
    assert select_backend("rerank", config, env)[0] is None
    forced, why = select_backend("answer", config, {**env, "VYRE_MODEL_BACKEND_ANSWER": "none"})
    assert forced is None and "VYRE_MODEL_BACKEND_ANSWER" in why
    cli, _ = select_backend("rerank", config, {**env, "VYRE_MODEL_BACKEND": "claude"})
    assert isinstance(cli, ClaudeCliBackend)


def test_openai_compatible_from_config(empty_path: str) -> None:
    config = {"backend": "openai", "openai": {"base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5:7b"}}
    backend, reason = select_backend("reader", config, {"PATH": empty_path})
    assert isinstance(backend, OpenAICompatBackend) and backend.default_model == "qwen2.5:7b"
    assert (
        reason
        == "reader: OpenAI-compatible server at http://127.0.0.1:11434/v1, model qwen2.5:7b (set by [models] backend)"
    )


def test_replay_and_recording_from_environment(tmp_path: Path, path_with_claude: str) -> None:
    env = {"PATH": path_with_claude, "VYRE_MODEL_BACKEND": "replay", "VYRE_REPLAY_DIR": str(tmp_path / "fx")}
    replay, _ = select_backend("answer", {}, {**env, "VYRE_REPLAY_MISSES": str(tmp_path / "misses.jsonl")})
    assert isinstance(replay, ReplayBackend) and replay.misses_path == tmp_path / "misses.jsonl"
    recording, why = select_backend("answer", {}, {"PATH": path_with_claude, "VYRE_RECORD_DIR": str(tmp_path / "fx")})
    assert isinstance(recording, RecordingBackend) and isinstance(recording.inner, ClaudeCliBackend)
    assert "recording to" in why


@pytest.mark.parametrize(
    ("purpose", "config", "env", "message"),
    [
        ("answer", {"backend": "gpt"}, {}, "not a model backend"),
        ("summarise", {}, {}, "unknown model purpose"),
        ("answer", {"backend": "anthropic"}, {}, "set ANTHROPIC_API_KEY"),
        ("answer", {"backend": "openai"}, {}, "base_url"),
        ("answer", {"backend": "replay"}, {}, "VYRE_REPLAY_DIR"),
        ("answer", {"backend": "claude-cli"}, {"PATH": "/nonexistent"}, "not on PATH"),
        ("answer", {"answer": "anthropic"}, {}, "must be a table"),
    ],
)
def test_explicit_choices_that_cannot_work_are_config_errors(
    purpose: str, config: dict[str, object], env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        select_backend(purpose, config, env)


def test_cli_extra_args_and_idle_timeout_from_config(path_with_claude: str, tmp_path: Path) -> None:
    config = {
        "backend": "claude-cli",
        "claude_cli": {"extra_args": [], "idle_timeout_s": 30, "max_calls_per_process": 5},
    }
    backend, _ = select_backend("answer", config, {"PATH": path_with_claude, "VYRE_HOME": str(tmp_path)})
    assert isinstance(backend, ClaudeCliBackend)
    assert (backend.extra_args, backend.idle_timeout_s, backend.max_calls_per_process) == ([], 30.0, 5)


def test_auto_with_key_but_no_sdk_is_none_with_the_install_hint(
    empty_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "anthropic" else real_find_spec(name, *a)
    )
    backend, reason = select_backend("answer", {}, {"PATH": empty_path, "ANTHROPIC_API_KEY": "sk-x"})
    assert backend is None and "pip install 'vyre-memory[anthropic]'" in reason
    with pytest.raises(ConfigError, match="needs the `anthropic` package"):
        select_backend("answer", {"backend": "anthropic"}, {"ANTHROPIC_API_KEY": "sk-x"})

"""The `claude` CLI backend against a fake `claude` that speaks stream-json and json."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from vyre_memory.errors import ModelCallsForbidden, ModelError, ModelTimeout
from vyre_memory.models.base import ModelRequest, allow_model_requests
from vyre_memory.models.claude_cli import INDEPENDENT_NOTE, ClaudeCliBackend, _result_from_json_output

if TYPE_CHECKING:
    from conftest import FakeClaude


def _req(prompt: str, system: str = "You answer.", timeout_s: float = 10.0) -> ModelRequest:
    return ModelRequest("answer", "answer", "1", system, prompt, timeout_s=timeout_s)


def _backend(fake: FakeClaude, tmp_path: Path, idle_timeout_s: float = 600.0, **env: str) -> ClaudeCliBackend:
    return ClaudeCliBackend(
        tmp_path / "vyre_home" / "cli", binary=str(fake.binary), idle_timeout_s=idle_timeout_s, env=fake.env(**env)
    )


def _wait_until(predicate: object, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(0.02)
    return False


def _pid_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_warm_process_serves_three_calls_then_closes_when_idle(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path, idle_timeout_s=0.5)
    with allow_model_requests():
        replies = [backend.complete(_req(f"q{i}")) for i in range(3)]
        pid = backend.warm_pid
    assert [r.text for r in replies] == ["reply 1 to: q0", "reply 2 to: q1", "reply 3 to: q2"]
    assert [s["mode"] for s in fake_claude.starts()] == ["stream"]
    assert backend.spawn_count == 1 and backend.fallback_count == 0
    assert pid is not None and fake_claude.starts()[0]["pid"] != os.getpid()
    first = replies[0]
    assert (first.backend, first.model, first.input_tokens, first.output_tokens, first.cost_usd) == (
        "claude-cli",
        "claude-haiku-4-5",
        12,
        4,
        0.0015,
    )
    assert _wait_until(lambda: backend.warm_pid is None)
    assert _wait_until(lambda: _pid_gone(pid))


def test_cli_runs_without_session_persistence_inside_vyre_home(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path)
    with allow_model_requests():
        backend.complete(_req("q", system="Be brief."))
    backend.close()
    [start] = fake_claude.starts()
    system = f"Be brief.\n\n{INDEPENDENT_NOTE}"
    assert start["argv"] == [
        "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
        "--no-session-persistence", "--model", "claude-haiku-4-5", "--system-prompt", system,
        "--tools", "", "--strict-mcp-config",
    ]  # fmt: skip
    assert Path(start["cwd"]).resolve() == (tmp_path / "vyre_home" / "cli").resolve()


def test_fallback_per_call_when_warm_process_dies(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path, FAKE_CLAUDE_DIE_AFTER="1")
    with allow_model_requests():
        first = backend.complete(_req("q1"))
        second = backend.complete(_req("q2"))
    backend.close()
    assert (first.text, second.text) == ("reply 1 to: q1", "reply 1 to: q2")
    starts = fake_claude.starts()
    assert [s["mode"] for s in starts] == ["stream", "json"]
    assert "--no-session-persistence" in starts[1]["argv"] and "--output-format" in starts[1]["argv"]
    assert Path(starts[1]["cwd"]).resolve() == (tmp_path / "vyre_home" / "cli").resolve()
    assert backend.fallback_count == 1 and "exited" in backend.last_fallback_reason


def test_fallback_when_warm_process_cannot_start(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path, FAKE_CLAUDE_FAIL_WARM="1")
    with allow_model_requests():
        resp = backend.complete(_req("q"))
    assert resp.text == "reply 1 to: q"
    assert "stream-json not supported" in backend.last_fallback_reason


def test_both_paths_failing_is_a_model_error_saying_what_to_do(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path, FAKE_CLAUDE_FAIL_WARM="1", FAKE_CLAUDE_ONESHOT_FAIL="1")
    with allow_model_requests(), pytest.raises(ModelError, match="claude -p hello"):
        backend.complete(_req("q"))


def test_missing_binary_is_a_model_error(tmp_path: Path) -> None:
    backend = ClaudeCliBackend(tmp_path / "cli", binary=str(tmp_path / "nope" / "claude"))
    with allow_model_requests(), pytest.raises(ModelError, match="install Claude Code"):
        backend.complete(_req("q"))


def test_error_result_raises_without_fallback(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path, FAKE_CLAUDE_ERROR="1")
    with allow_model_requests(), pytest.raises(ModelError, match="Please run /login"):
        backend.complete(_req("q"))
    backend.close()
    assert backend.fallback_count == 0


def test_timeout_kills_the_process_and_raises_within_budget(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path, FAKE_CLAUDE_DELAY="5")
    start = time.monotonic()
    with allow_model_requests(), pytest.raises(ModelTimeout):
        backend.complete(_req("q", timeout_s=0.8))
    assert time.monotonic() - start < 2.0
    assert backend.warm_pid is None
    assert _wait_until(lambda: _pid_gone(fake_claude.starts()[0]["pid"]))


def test_new_system_prompt_or_call_limit_restarts_the_process(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = ClaudeCliBackend(
        tmp_path / "cli", binary=str(fake_claude.binary), max_calls_per_process=2, env=fake_claude.env()
    )
    with allow_model_requests():
        texts = [
            backend.complete(_req(p, system=s)).text for p, s in [("a", "S1"), ("b", "S2"), ("c", "S2"), ("d", "S2")]
        ]
    backend.close()
    assert texts == ["reply 1 to: a", "reply 1 to: b", "reply 2 to: c", "reply 1 to: d"]
    assert backend.spawn_count == 3


def test_calls_are_forbidden_when_switched_off(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path)
    with pytest.raises(ModelCallsForbidden):
        backend.complete(_req("q"))
    assert fake_claude.starts() == []


def test_starts_when_vyre_itself_runs_inside_claude_code(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path, CLAUDECODE="1", CLAUDE_CODE_ENTRYPOINT="cli")
    with allow_model_requests():
        assert backend.complete(_req("q")).text == "reply 1 to: q"
    backend.close()
    assert backend.fallback_count == 0


def test_concurrent_calls_take_turns_on_one_process(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path)
    with allow_model_requests(), ThreadPoolExecutor(max_workers=3) as pool:
        texts = list(pool.map(lambda p: backend.complete(_req(p)).text, ["a", "b", "c"]))
    backend.close()
    assert [t.split(" to: ")[1] for t in texts] == ["a", "b", "c"]  # each call got its own reply ...
    assert sorted(t.split(" to: ")[0] for t in texts) == ["reply 1", "reply 2", "reply 3"]  # ... in some order
    assert backend.spawn_count == 1


def test_waiting_for_a_busy_process_counts_against_the_timeout(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path, FAKE_CLAUDE_DELAY="1.5")
    with allow_model_requests(), ThreadPoolExecutor(max_workers=2) as pool:
        slow = pool.submit(backend.complete, _req("slow", timeout_s=10))
        time.sleep(0.3)
        start = time.monotonic()
        with pytest.raises(ModelTimeout, match="busy"):
            backend.complete(_req("impatient", timeout_s=0.3))
        assert time.monotonic() - start < 1.0
        assert slow.result().text == "reply 1 to: slow"
    backend.close()


def test_complete_once_runs_one_json_process(fake_claude: FakeClaude, tmp_path: Path) -> None:
    backend = _backend(fake_claude, tmp_path)
    with allow_model_requests():
        assert backend.complete_once(_req("q")).text == "reply 1 to: q"
    assert [s["mode"] for s in fake_claude.starts()] == ["json"]
    assert backend.warm_pid is None


def test_json_output_is_read_as_one_object_or_a_list_of_events() -> None:
    result = {"type": "result", "subtype": "success", "result": "ok"}
    assert _result_from_json_output(json.dumps(result)) == result
    assert _result_from_json_output(json.dumps([{"type": "system"}, result])) == result
    assert _result_from_json_output("Error: not logged in") is None
    assert _result_from_json_output(json.dumps([{"type": "system"}])) is None

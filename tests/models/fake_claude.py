"""A fake `claude` executable speaking the CLI's stream-json and json protocols (stdlib only).

Behaviour is set by environment variables:
    FAKE_CLAUDE_LOG        append one JSON line per process start: {pid, argv, cwd, mode}
    FAKE_CLAUDE_DELAY      seconds to sleep before each answer
    FAKE_CLAUDE_DIE_AFTER  stream mode: exit(1) when message N+1 arrives, without answering
    FAKE_CLAUDE_FAIL_WARM  stream mode: exit(3) at once
    FAKE_CLAUDE_ERROR      answer with an error result (is_error true)
    FAKE_CLAUDE_ONESHOT_FAIL  json mode: exit(2) with a message on stderr
    CLAUDECODE             set: refuse to start, like the real CLI's nesting guard
Answers are "reply N to: <text>" where N counts the messages this process has answered.
"""

from __future__ import annotations

import json
import os
import sys
import time


def _arg(name: str, default: str = "") -> str:
    argv = sys.argv[1:]
    return argv[argv.index(name) + 1] if name in argv else default


def _result(n: int, text: str, model: str) -> dict[str, object]:
    if os.environ.get("FAKE_CLAUDE_ERROR"):
        return {
            "type": "result",
            "subtype": "error_during_execution",
            "is_error": True,
            "result": "Invalid API key · Please run /login",
            "session_id": "fake",
        }
    return {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 5,
        "num_turns": 1,
        "result": f"reply {n} to: {text}",
        "session_id": "fake",
        "total_cost_usd": 0.0015,
        "usage": {"input_tokens": 10, "output_tokens": 4, "cache_read_input_tokens": 2},
    }


def _emit(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> int:
    stream = _arg("--input-format") == "stream-json"
    model = _arg("--model", "claude-haiku-4-5")
    log = os.environ.get("FAKE_CLAUDE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            record = {
                "pid": os.getpid(),
                "argv": sys.argv[1:],
                "cwd": os.getcwd(),
                "mode": "stream" if stream else "json",
            }
            fh.write(json.dumps(record) + "\n")
    if os.environ.get("CLAUDECODE"):
        sys.stderr.write("Error: Claude Code cannot be launched inside another Claude Code session.\n")
        return 1
    delay = float(os.environ.get("FAKE_CLAUDE_DELAY", "0"))
    if not stream:
        text = sys.stdin.read()
        if os.environ.get("FAKE_CLAUDE_ONESHOT_FAIL"):
            sys.stderr.write("Error: not logged in\n")
            return 2
        time.sleep(delay)
        print(json.dumps(_result(1, text, model)))
        return 0
    if os.environ.get("FAKE_CLAUDE_FAIL_WARM"):
        sys.stderr.write("Error: stream-json not supported\n")
        return 3
    die_after = int(os.environ.get("FAKE_CLAUDE_DIE_AFTER", "0"))
    for answered, line in enumerate(sys.stdin):
        message = json.loads(line)
        assert message["type"] == "user", message
        text = "".join(block["text"] for block in message["message"]["content"] if block["type"] == "text")
        if die_after and answered >= die_after:
            return 1
        if answered == 0:
            _emit({"type": "system", "subtype": "init", "session_id": "fake", "model": model, "cwd": os.getcwd()})
        time.sleep(delay)
        number = answered + 1
        reply = _result(number, text, model)
        _emit(
            {
                "type": "assistant",
                "session_id": "fake",
                "message": {
                    "id": f"msg_{number}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": str(reply.get("result", ""))}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 10, "output_tokens": 4},
                },
            }
        )
        _emit(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())

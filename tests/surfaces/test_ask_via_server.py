"""`vyre ask` hands its question to a running `vyre serve` for the same home, and answers itself when
there is none: real server processes, real `vyre` commands, the announcement file in between."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vyre_memory.surfaces import running

QUESTION = "which file had the refund bug"


def vyre(demo: Any, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*demo.vyre, *args], env=demo.env(home), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done


def test_ask_is_answered_by_the_running_server_and_the_file_goes_when_it_stops(
    http_server: Callable[..., Any], demo: Any
) -> None:
    server = http_server()
    entry = json.loads((server.home / running.FILE).read_text())
    assert entry == {"url": server.url, "pid": server.proc.pid, "started": entry["started"]}

    assert f"server      {server.url}" in vyre(demo, server.home, "doctor").stdout
    told = vyre(demo, server.home, "ask", QUESTION).stdout
    assert "app/billing/refunds.py" in told
    assert f"answered by {server.url}" in told

    via_server = json.loads(vyre(demo, server.home, "ask", QUESTION, "--json").stdout)
    here = json.loads(vyre(demo, server.home, "ask", QUESTION, "--json", "--local").stdout)
    assert via_server["answer"] == here["answer"]
    assert [s["uuid"] for s in via_server["sources"]] == [s["uuid"] for s in here["sources"]]
    assert via_server["sources"][0]["project"] == "shop-api"  # the server's sources carry their project

    lines = [json.loads(line) for line in vyre(demo, server.home, "ask", QUESTION, "--stream").stdout.splitlines()]
    assert lines[0]["event"] == "memory.thinking" and lines[-1]["event"] == "result"
    assert "app/billing/refunds.py" in lines[-1]["result"]["answer"]

    server.stop()  # SIGTERM: a clean stop withdraws the announcement
    assert not (server.home / running.FILE).exists()
    assert "answered by" not in vyre(demo, server.home, "ask", QUESTION).stdout
    doctor = vyre(demo, server.home, "doctor").stdout
    assert "server      none running for this home" in doctor and "embedder    hash" in doctor


def test_a_killed_servers_file_is_removed_and_the_question_answered_here(
    http_server: Callable[..., Any], demo: Any
) -> None:
    server = http_server()
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    assert (server.home / running.FILE).exists()  # nothing ran to remove it
    told = vyre(demo, server.home, "ask", QUESTION).stdout
    assert "app/billing/refunds.py" in told and "answered by" not in told
    assert not (server.home / running.FILE).exists()


def test_a_live_process_that_does_not_answer_is_passed_over(home_copy: Callable[..., Path], demo: Any) -> None:
    home = home_copy()
    port = demo.port()  # nothing listens there
    (home / running.FILE).write_text(json.dumps({"url": f"http://127.0.0.1:{port}", "pid": os.getpid()}))
    told = vyre(demo, home, "ask", QUESTION).stdout
    assert "app/billing/refunds.py" in told and "answered by" not in told


def test_an_agent_question_is_never_sent_to_the_owners_server(http_server: Callable[..., Any], demo: Any) -> None:
    server = http_server()
    done = vyre(demo, server.home, "ask", "what's my wife's name", "--agent-project", demo.shop, "--json")
    result = json.loads(done.stdout)
    assert result["abstained"] is True  # asked here, as the agent: no personal facts
    assert all("project" not in s for s in result["sources"])  # not the server's shape


def test_a_bad_question_reports_the_servers_message(http_server: Callable[..., Any], demo: Any) -> None:
    server = http_server()
    done = subprocess.run(
        [*demo.vyre, "ask", "   "], env=demo.env(server.home), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert "question" in done.stderr.lower()

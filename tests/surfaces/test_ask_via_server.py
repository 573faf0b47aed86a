"""`vyre ask` hands its question to a running `vyre serve` for the same home, through the socket in that
home, and answers itself when there is none: real server processes, real `vyre` commands."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.surfaces.conftest import start_http

from vyre_memory.surfaces import running

QUESTION = "which file had the refund bug"


def vyre(demo: Any, home: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*demo.vyre, *args], env=demo.env(home), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == code, done.stderr
    return done


def test_ask_is_answered_by_the_running_server_and_the_socket_goes_when_it_stops(
    http_server: Callable[..., Any], demo: Any
) -> None:
    server = http_server()
    sock = server.home / running.SOCKET
    assert stat.S_ISSOCK(sock.stat().st_mode) and stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert f"vyre serve on {sock}" in vyre(demo, server.home, "doctor").stdout

    told = vyre(demo, server.home, "ask", QUESTION).stdout
    assert "app/billing/refunds.py" in told and "answered by vyre serve" in told

    via_server = json.loads(vyre(demo, server.home, "ask", QUESTION, "--json").stdout)
    here = json.loads(vyre(demo, server.home, "ask", QUESTION, "--json", "--local").stdout)
    assert via_server["answer"] == here["answer"] and via_server["sources"] == here["sources"]

    lines = [json.loads(line) for line in vyre(demo, server.home, "ask", QUESTION, "--stream").stdout.splitlines()]
    assert lines[0]["event"] == "memory.thinking" and lines[-1]["event"] == "result"
    assert "app/billing/refunds.py" in lines[-1]["result"]["answer"]

    server.stop()  # SIGTERM: a clean stop removes the socket
    assert not sock.exists()
    assert "answered by" not in vyre(demo, server.home, "ask", QUESTION).stdout
    assert "server      none for this home" in vyre(demo, server.home, "doctor").stdout


def test_a_killed_servers_socket_is_passed_over_then_replaced(http_server: Callable[..., Any], demo: Any) -> None:
    server = http_server()
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    assert (server.home / running.SOCKET).exists()  # nothing ran to remove it
    told = vyre(demo, server.home, "ask", QUESTION).stdout
    assert "app/billing/refunds.py" in told and "answered by" not in told

    again = start_http(server.home)
    try:
        assert "answered by vyre serve" in vyre(demo, server.home, "ask", QUESTION).stdout
    finally:
        again.stop()


def test_a_second_server_leaves_the_first_ones_socket_and_port(
    http_server: Callable[..., Any], demo: Any, tmp_path: Path
) -> None:
    first = http_server()
    second = start_http(first.home)
    second.stop()
    assert "answered by vyre serve" in vyre(demo, first.home, "ask", QUESTION).stdout  # still the first's
    port = first.url.rsplit(":", 1)[1]
    clash = vyre(demo, tmp_path / "other-home", "serve", "--port", port, "--home", str(tmp_path / "other-home"), code=1)
    assert f"cannot listen on 127.0.0.1:{port}" in clash.stderr and "choose another --port" in clash.stderr
    assert "answered by vyre serve" in vyre(demo, first.home, "ask", QUESTION).stdout


def test_a_first_server_makes_its_home_and_socket(demo: Any, tmp_path: Path) -> None:
    server = start_http(tmp_path / "new-home")
    try:
        assert stat.S_ISSOCK((tmp_path / "new-home" / running.SOCKET).stat().st_mode)
        assert "Not sure." in vyre(demo, server.home, "ask", QUESTION).stdout
    finally:
        server.stop()


def test_questions_the_server_must_not_take_are_answered_here(http_server: Callable[..., Any], demo: Any) -> None:
    server = http_server()
    done = vyre(demo, server.home, "ask", "what's my wife's name", "--agent-project", demo.shop, "--json")
    assert json.loads(done.stdout)["abstained"] is True  # asked here, as the agent: no personal facts
    empty = vyre(demo, server.home, "ask", "   ", code=2)
    assert "the question is empty" in empty.stderr


@pytest.fixture
def fake_server(home_copy: Callable[..., Path]) -> Iterator[Callable[[bytes], Path]]:
    """A home whose socket is answered by something that is not vyre serve: it sends `reply` and hangs up."""
    threads: list[threading.Thread] = []
    listeners: list[socket.socket] = []

    def start(reply: bytes) -> Path:
        home = home_copy()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(home / running.SOCKET))
        listener.listen()
        listeners.append(listener)

        def answer() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                with conn:
                    conn.recv(65536)
                    conn.sendall(reply)

        threads.append(threading.Thread(target=answer, daemon=True))
        threads[-1].start()
        return home

    yield start
    for listener in listeners:
        listener.close()


def test_something_else_on_the_socket_is_passed_over(fake_server: Callable[[bytes], Path], demo: Any) -> None:
    home = fake_server(b"HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\nconnection: close\r\n\r\nnot here!")
    told = vyre(demo, home, "ask", QUESTION).stdout
    assert "app/billing/refunds.py" in told and "answered by" not in told


def test_an_answer_cut_short_says_what_to_do(fake_server: Callable[[bytes], Path], demo: Any) -> None:
    thinking = b'event: memory.thinking\ndata: {"event": "memory.thinking", "id": "a1", "stage": "understanding"}\n\n'
    home = fake_server(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n" + thinking)
    done = vyre(demo, home, "ask", QUESTION, code=1)
    assert done.stderr.startswith("Error: vyre serve ") and "; ask again, or add --local" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_plain_file_where_the_socket_goes_is_not_asked(home_copy: Callable[..., Path], demo: Any) -> None:
    home = home_copy()
    (home / running.SOCKET).write_text("not a socket")
    told = vyre(demo, home, "ask", QUESTION).stdout
    assert "app/billing/refunds.py" in told and "answered by" not in told


def test_a_server_that_never_answers_is_passed_over(
    home_copy: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = home_copy()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(home / running.SOCKET))
    listener.listen()  # the kernel takes the connection; nothing ever reads it (a stopped server)
    monkeypatch.setattr(running, "READY_TIMEOUT", 0.3)
    try:
        with pytest.raises(running.Unreachable):
            running.ask_events(home, QUESTION)
    finally:
        listener.close()


def test_event_lines_split_at_line_feeds_only() -> None:
    text = json.dumps({"answer": "one\u2028two\u0085three"}, ensure_ascii=False).encode()
    chunks = [b"event: result\r\nda", b"ta: " + text[:7], text[7:] + b"\n\n"]
    assert list(running._lines(iter(chunks))) == ["event: result", "data: " + text.decode(), ""]

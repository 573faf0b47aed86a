"""A running `vyre serve`, found through its file in VYRE_HOME, so `vyre ask` can hand it the question.

A large history costs a new process seconds before its first answer (the vector file, the passage
directory); a server has paid that once. `vyre serve` on a loopback address writes `server.json` in its
home once it can answer, and removes it when it stops. `vyre ask` reads the file, checks that the process
is alive, and asks the server over HTTP; when there is no file, the process is gone or the server does
not answer, it answers in its own process as before. Only loopback servers are announced: they need no
token and answer as the person's own surface, which is what `vyre ask` is.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

from ..errors import VyreError

FILE = "server.json"
CONNECT_TIMEOUT = 1.0  # seconds: a loopback server that cannot accept by then is not used
ANSWER_TIMEOUT = 300.0  # seconds between two events of one answer (a model may be slow)


class Unreachable(Exception):
    """No running server could take the question: answer in this process instead."""


def announce(home: Path, url: str) -> Path:
    """Write `server.json` (url, pid, start time) in `home`, replacing it whole."""
    path = home / FILE
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"url": url, "pid": os.getpid(), "started": time.time()}), encoding="utf-8")
    os.replace(tmp, path)
    return path


def withdraw(home: Path, url: str) -> None:
    """Remove `server.json` if it still names this process and url (another server may have replaced it)."""
    path = home / FILE
    if _read(path) == {"url": url, "pid": os.getpid()}:
        path.unlink(missing_ok=True)


def find(home: Path) -> str | None:
    """The url of the server announced in `home`, if its process is alive (a stale file is removed)."""
    path = home / FILE
    entry = _read(path)
    if entry is None:
        return None
    if not _alive(entry["pid"]):
        path.unlink(missing_ok=True)
        return None
    return str(entry["url"])


def ask_events(
    url: str, question: str, *, project_cwds: list[str] | None = None, now: str | None = None
) -> Iterator[dict[str, Any]]:
    """Ask the server, streaming: the same event dicts `Memory.ask(stream=True)` gives, the last with the result.

    Raises Unreachable before any event when the server cannot take the question; an error the server
    reports (a bad question, a failed model) is raised as VyreError with its message."""
    body: dict[str, Any] = {"question": question, "stream": True}
    if project_cwds:
        body["project_cwds"] = project_cwds
    if now:
        body["now"] = now
    stack = ExitStack()
    try:
        client = stack.enter_context(httpx.Client(timeout=httpx.Timeout(ANSWER_TIMEOUT, connect=CONNECT_TIMEOUT)))
        response = stack.enter_context(client.stream("POST", f"{url}/v1/ask", json=body))
        if response.status_code != 200:
            response.read()
            raise VyreError(_error_message(response))
    except httpx.HTTPError as exc:
        stack.close()
        raise Unreachable(str(exc)) from exc
    except BaseException:
        stack.close()
        raise
    return _events(stack, response)


def _events(stack: ExitStack, response: httpx.Response) -> Iterator[dict[str, Any]]:
    with stack:
        name = ""
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line[len("event:") :].strip()
            elif line.startswith("data:"):
                data = json.loads(line[len("data:") :])
                if name == "error":
                    raise VyreError(str(data.get("error", {}).get("message", data)))
                yield data


def _error_message(response: httpx.Response) -> str:
    try:
        return str(response.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return f"the running vyre serve answered {response.status_code}"


def _read(path: Path) -> dict[str, Any] | None:
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("url"), str) or not isinstance(entry.get("pid"), int):
        return None
    return {"url": entry["url"], "pid": entry["pid"]}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive, though the url check decides
    return True

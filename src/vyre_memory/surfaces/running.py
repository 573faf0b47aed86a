"""A running `vyre serve`, reached through a socket in its home, so `vyre ask` can hand it the question.

A large history costs a new process seconds before its first answer (the vector file, the passage
directory); a server has paid that once. `vyre serve` on a loopback address also listens on the Unix
socket `serve.sock` in its home (readable by its owner only, made before the server starts and removed
when it stops); `vyre ask` sends its question there and prints the answer, and answers in its own
process when there is no socket or nothing answers on it. The socket lives in the home, so a question
never reaches a server of another home or of another user, nor passes through a proxy; and it is made
only for loopback servers, which answer without a token as the person's own surface, what `vyre ask` is.
A home whose path is too long for a socket, or that is read-only, gets no socket: `vyre ask` then
answers in its own process as before.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import VyreError

if TYPE_CHECKING:
    import httpx

SOCKET = "serve.sock"
MAX_PATH = 100  # bytes: Unix socket paths are limited (108 on Linux, 104 on macOS)
CONNECT_TIMEOUT = 1.0  # seconds
READY_TIMEOUT = 5.0  # seconds for the server to say it is there
ANSWER_TIMEOUT = 300.0  # seconds between two events of one answer (a model may be slow)
log = logging.getLogger("vyre_memory.surfaces")


class Unreachable(Exception):
    """No running server could take the question: answer in this process instead."""


@dataclass(frozen=True)
class Listener:
    """The socket a server made in its home, and which file it is (so only that file is removed)."""

    sock: socket.socket
    path: Path
    inode: int


def listen(home: Path) -> Listener | None:
    """Bind `serve.sock` in `home` for this server; None when it cannot (no Unix sockets, a path too long,
    a read-only home) or when another server already answers there."""
    path = home / SOCKET
    if not hasattr(socket, "AF_UNIX"):
        return None
    if len(os.fsencode(path)) > MAX_PATH:
        log.warning("%s is too long a path for a socket; vyre ask will answer in its own process", path)
        return None
    if _answers(path):
        log.warning("another vyre serve already answers for %s; vyre ask will keep asking that one", home)
        return None
    try:
        home.mkdir(parents=True, exist_ok=True)  # a first `vyre serve` comes before the memory makes it
    except OSError as exc:
        log.warning("no socket for vyre ask in %s (%s); it will answer in its own process", home, exc)
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mask = os.umask(0o177)  # the socket file is its owner's alone from the moment it exists (no threads yet)
    try:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a stale socket of a server that did not stop cleanly
        sock.bind(os.fsencode(path))
        sock.listen(128)  # at once: a second server starting meanwhile finds this one answering
        return Listener(sock, path, os.stat(path).st_ino)
    except OSError as exc:
        sock.close()
        log.warning("no socket for vyre ask in %s (%s); it will answer in its own process", home, exc)
        return None
    finally:
        os.umask(mask)


def unlisten(listener: Listener) -> None:
    """Close the socket and remove its file, unless another server has replaced it since."""
    listener.sock.close()
    with contextlib.suppress(OSError):
        if os.stat(listener.path).st_ino == listener.inode:
            listener.path.unlink()


def serving(home: Path) -> Path | None:
    """The socket of the server answering for `home`, if one answers."""
    path = home / SOCKET
    return path if _answers(path) else None


def ask_events(
    home: Path, question: str, *, project_cwds: list[str] | None = None, now: str | None = None
) -> Iterator[dict[str, Any]]:
    """Ask the server of `home`: the event dicts `Memory.ask(stream=True)` gives, the last with the result.

    Raises Unreachable, before any event, when no server takes the question; once it has, a failure
    (an error it reports, a dropped connection) is raised as VyreError saying what to do."""
    import httpx

    path = home / SOCKET
    if not _ours(path):
        raise Unreachable(f"no socket of this user's at {path}")
    body: dict[str, Any] = {"question": question, "stream": True}
    if project_cwds:
        body["project_cwds"] = project_cwds
    if now:
        body["now"] = now
    client = httpx.Client(
        transport=httpx.HTTPTransport(uds=str(path)),
        base_url="http://vyre",
        timeout=httpx.Timeout(ANSWER_TIMEOUT, connect=CONNECT_TIMEOUT),
        trust_env=False,
    )
    try:
        # a stopped or stuck server says nothing here, and the question is answered in this process (the
        # schema is served without the memory, so a server that is busy answering still says it at once)
        ready = client.get("/openapi.json", timeout=httpx.Timeout(READY_TIMEOUT, connect=CONNECT_TIMEOUT))
        if ready.status_code != 200:
            raise Unreachable(f"{path} answered {ready.status_code}")
        response = client.send(client.build_request("POST", "/v1/ask", json=body), stream=True)
    except (httpx.HTTPError, Unreachable) as exc:
        client.close()
        raise Unreachable(str(exc)) from exc
    if response.status_code != 200 or not response.headers.get("content-type", "").startswith("text/event-stream"):
        try:
            response.read()
            message = _error_message(response)
        finally:
            response.close()
            client.close()
        if message is None:
            raise Unreachable(f"{path} answered {response.status_code}")
        raise VyreError(f"{message} (said by vyre serve; --local asks in this process)")
    return _events(client, response)


def _events(client: httpx.Client, response: httpx.Response) -> Iterator[dict[str, Any]]:
    import httpx

    done = False
    try:
        name = ""
        for line in _lines(response.iter_bytes()):
            if line.startswith("event:"):
                name = line[len("event:") :].strip()
            elif line.startswith("data:"):
                data = json.loads(line[len("data:") :])
                if not isinstance(data, dict):
                    raise ValueError(f"an event that is not an object: {line[:80]!r}")
                if name == "error":
                    message = data.get("error", {}).get("message", data)
                    raise VyreError(f"{message} (said by vyre serve; --local asks in this process)")
                done = done or data.get("result") is not None
                yield data
    except (httpx.HTTPError, ValueError) as exc:
        raise VyreError(f"vyre serve stopped answering ({exc}); ask again, or add --local") from exc
    finally:
        response.close()
        client.close()
    if not done:
        raise VyreError("vyre serve ended the answer early; ask again, or add --local")


def _lines(chunks: Iterator[bytes]) -> Iterator[str]:
    """Server-sent event lines: split at line feeds only (a JSON text may hold U+2028 and its kin)."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line.rstrip(b"\r").decode("utf-8")
    if pending:
        yield pending.rstrip(b"\r").decode("utf-8")


def _error_message(response: httpx.Response) -> str | None:
    """The message of vyre's one error shape, or None for anything else."""
    try:
        return str(response.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return None


def _ours(path: Path) -> bool:
    """A socket file owned by this user: nothing another user planted is asked anything."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISSOCK(st.st_mode) and (not hasattr(os, "getuid") or st.st_uid == os.getuid())


def _answers(path: Path) -> bool:
    if not hasattr(socket, "AF_UNIX") or not path.exists() or len(os.fsencode(path)) > MAX_PATH:
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(CONNECT_TIMEOUT)
        try:
            probe.connect(os.fsencode(path))
        except OSError:
            return False
    return True

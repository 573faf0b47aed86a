"""Concurrency: a real `vyre serve` answering 20 concurrent askers over HTTP while a real `vyre watch` ingests a
session that grows under it, both on the same VYRE_HOME.

A writer appends Claude Code records (whole JSON lines, flushed) to a new shop-api session for a while; early
on it writes the only turns that name `app/payouts/ledger_sync_q7.py`. Twenty threads ask over HTTP the whole
time, among other things which file double-counted the payout fees. The test proves:

- 0 errors: every request answers 200 with the contract, the server and the watcher stay up and log no traceback;
- 0 lost turns: once the watcher catches up, the session holds exactly the records written (the same turns,
  by uuid, as one ingest of the finished file into a fresh home);
- fresh answers: the new file is cited (answer and source quote, from the new session) once it is ingested, within
  a few seconds of being written, and every question asked after the first citing answer cites it too;
- p50/p95 latency of the asks (printed, and kept in test-artifacts/measurements.json).

bench/concurrency.py runs the same campaign for 60 seconds and prints the figures.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tests.reliability.conftest import SHOP, VYRE, TranscriptWriter, server_env, start_http
from tests.surfaces.conftest import record

from vyre_memory import Memory
from vyre_memory.store.sqlite import Store

NEW_FILE = "app/payouts/ledger_sync_q7.py"
FACT_QUESTION = "which file double counted the payout fees"
OTHER_QUESTIONS = (
    "which file had the refund bug",
    "what version did we deploy",
    "what did we decide about the portal login",
    "why was the nightly export slow",
    "what's my wife's name",
    "what did we do about the flaky tests",
)
FILLER = (
    ("run the unit tests again please", "All 412 tests pass."),
    ("the flaky checkout test failed once more", "It waits on a real clock; I patched it to use a frozen time."),
    ("bump the httpx pin to 0.28", "Bumped httpx to 0.28.1 in pyproject.toml and relocked."),
    ("can you tidy the readme intro", "Rewrote the first paragraph of the README to say what the service does."),
    ("add a log line when a webhook is retried", "Added a warning log with the event id on every retry."),
)
SESSION = "c0ncu44e-0000-4000-8000-000000000001".replace("u", "0")


@dataclass
class Ask:
    sent: float  # seconds since the campaign started
    latency_ms: float
    question: str
    status: int
    body: dict[str, Any] | None = None
    error: str | None = None

    @property
    def cites_new_file(self) -> bool:
        """The new turn was read for the answer: told with it as a source, or (with no model, precision first) an
        abstention whose sources or known bullets quote it."""
        body = self.body or {}
        quoted = any(NEW_FILE in s.get("quote", "") and s.get("session") == SESSION for s in body.get("sources", []))
        if not body.get("abstained", True):
            return NEW_FILE in (body.get("answer") or "") and quoted
        return quoted or any(NEW_FILE in k for k in body.get("known", []))


@dataclass
class Campaign:
    seconds: float
    askers: int
    written: int = 0
    fact_written_at: float | None = None
    fact_stored_at: float | None = None
    asks: list[Ask] = field(default_factory=list)
    watch_log: str = ""
    server_log: str = ""
    stored_turns: int = -1
    stored_uuids: set[str] = field(default_factory=set)
    reference_uuids: set[str] = field(default_factory=set)
    catch_up_s: float = 0.0

    def latencies(self) -> list[float]:
        return sorted(a.latency_ms for a in self.asks)

    def pct(self, q: float) -> float:
        lat = self.latencies()
        return lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")

    def errors(self) -> list[Ask]:
        return [a for a in self.asks if a.status != 200 or a.error or not isinstance(a.body, dict)]

    def first_cite(self) -> float | None:
        hits = [a.sent + a.latency_ms / 1000 for a in self.asks if a.cites_new_file]
        return min(hits) if hits else None

    def figures(self) -> dict[str, Any]:
        first = self.first_cite()
        return {
            "seconds": self.seconds,
            "askers": self.askers,
            "asks": len(self.asks),
            "asks_per_s": round(len(self.asks) / self.seconds, 1),
            "errors": len(self.errors()),
            "records_written": self.written,
            "turns_stored": self.stored_turns,
            "lost_turns": len(self.reference_uuids - self.stored_uuids),
            "p50_ms": round(self.pct(0.50), 1),
            "p95_ms": round(self.pct(0.95), 1),
            "max_ms": round(self.pct(1.0), 1),
            "fact_written_s": _r(self.fact_written_at),
            "fact_stored_s": _r(self.fact_stored_at),
            "first_cited_s": _r(first),
            "write_to_cite_s": _r(first - self.fact_written_at if first and self.fact_written_at else None),
            "watch_catch_up_s": round(self.catch_up_s, 2),
        }


def _r(v: float | None) -> float | None:
    return round(v, 2) if v is not None else None


def run_campaign(home: Path, transcripts: Path, *, seconds: float, askers: int = 20, interval: float = 0.5) -> Campaign:
    """Serve `home`, watch `transcripts`, write a session for `seconds` while `askers` threads ask; measure."""
    camp = Campaign(seconds=seconds, askers=askers)
    folder = transcripts / SHOP.replace("/", "-")
    writer = TranscriptWriter(folder / f"{SESSION}.jsonl", SHOP, session_id=SESSION)
    writer.user("starting on the payouts work today")  # the session exists before the watcher starts
    server = start_http(home)
    watch_out = home.parent / "watch.log"
    watcher = subprocess.Popen(
        [*VYRE, "watch", str(transcripts), "--interval", str(interval), "--home", str(home)],
        env=server_env(home),
        stdout=watch_out.open("wb"),
        stderr=subprocess.STDOUT,
    )
    stop = threading.Event()
    lock = threading.Lock()
    t0 = time.monotonic()

    def write() -> None:
        i = 0
        while time.monotonic() - t0 < seconds:
            if camp.fact_written_at is None and time.monotonic() - t0 > min(2.0, seconds / 5):
                writer.user("payouts are off: the ledger sync double counted the fees, find where")
                writer.assistant(
                    f"Found it: {NEW_FILE} double counted the payout fees: it adds the processing fee twice when a "
                    "payout is retried; I made the fee line idempotent."
                )
                camp.fact_written_at = time.monotonic() - t0
            else:
                user, assistant = FILLER[i % len(FILLER)]
                writer.user(f"{user} (round {i})")
                writer.assistant(assistant)
                i += 1
            time.sleep(0.1)

    def monitor() -> None:  # when the new turn is in the store (read-only; never a writer)
        db = home / "memory.db"
        while not stop.is_set() and camp.fact_stored_at is None:
            try:
                ro = Store(db, readonly=True)
                try:
                    hits = ro.conn.execute("SELECT count(*) FROM turns WHERE text LIKE ?", (f"%{NEW_FILE}%",))
                    if hits.fetchone()[0]:
                        camp.fact_stored_at = time.monotonic() - t0
                finally:
                    ro.close()
            except Exception:
                pass
            time.sleep(0.05)

    def ask(n: int) -> None:
        questions = (FACT_QUESTION, *OTHER_QUESTIONS)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            k = n
            while not stop.is_set():
                q = questions[k % len(questions)] if k % 2 else FACT_QUESTION  # half the asks are the fresh fact
                k += 1
                sent = time.monotonic()
                try:
                    r = client.post("/v1/ask", json={"question": q})
                    body = r.json() if r.headers.get("content-type", "").startswith("application/json") else None
                    a = Ask(sent - t0, (time.monotonic() - sent) * 1000, q, r.status_code, body)
                except Exception as exc:
                    a = Ask(sent - t0, (time.monotonic() - sent) * 1000, q, 0, None, f"{type(exc).__name__}: {exc}")
                with lock:
                    camp.asks.append(a)

    threads = [threading.Thread(target=ask, args=(n,), daemon=True) for n in range(askers)]
    threads += [threading.Thread(target=monitor, daemon=True)]
    writing = threading.Thread(target=write, daemon=True)
    try:
        for t in threads:
            t.start()
        writing.start()
        writing.join()
        time.sleep(1.0)  # askers keep going while the watcher catches up
        stop.set()
        for t in threads:
            t.join(timeout=60)
        camp.written = len(writer.written)
        # the watcher catches up: every record written becomes a stored turn
        caught = time.monotonic()
        db = home / "memory.db"
        while time.monotonic() - caught < 20:
            ro = Store(db, readonly=True)
            try:
                n = ro.conn.execute("SELECT count(*) FROM turns WHERE session = ?", (SESSION,)).fetchone()[0]
            finally:
                ro.close()
            if n >= camp.written:
                break
            time.sleep(0.2)
        camp.catch_up_s = time.monotonic() - caught
        time.sleep(interval * 2)  # one more round: nothing more may arrive
        # a last question, once everything is in
        with httpx.Client(base_url=server.url, timeout=30) as client:
            sent = time.monotonic()
            r = client.post("/v1/ask", json={"question": FACT_QUESTION})
            camp.asks.append(Ask(sent - t0, (time.monotonic() - sent) * 1000, FACT_QUESTION, r.status_code, r.json()))
    finally:
        stop.set()
        alive = watcher.poll() is None
        watcher.terminate()
        try:
            watcher.wait(timeout=5)
        except subprocess.TimeoutExpired:
            watcher.kill()
            watcher.wait()
        server_alive = server.proc.poll() is None
        server.stop()
    camp.watch_log = watch_out.read_text(errors="replace") + ("" if alive else "\n<watcher died during the run>")
    camp.server_log = server.log.read_text(errors="replace") + ("" if server_alive else "\n<server died>")
    with Memory(home) as mem:
        turns = mem.turns(SESSION)
    camp.stored_turns = len(turns)
    camp.stored_uuids = {u for t in turns for u in _uuids(t)}
    # the reference: the finished file ingested in one go into a fresh home
    ref_home = home.parent / "reference-home"
    shutil.rmtree(ref_home, ignore_errors=True)
    with Memory(ref_home, user_name="Sam") as ref:
        ref.ingest([transcripts])
        camp.reference_uuids = {u for t in ref.turns(SESSION) for u in _uuids(t)}
    return camp


def _uuids(turn: Any) -> list[str]:
    d = turn.to_dict()
    return list(d.get("uuids") or [d.get("uuid")])


def test_twenty_askers_while_watch_ingests_a_growing_session(home_copy: Any, tmp_path: Path) -> None:
    home = home_copy(None)
    camp = run_campaign(home, tmp_path / "live" / "projects", seconds=12, askers=20)
    figures = camp.figures()
    print("\nconcurrency:", json.dumps(figures))
    record("concurrency_12s", figures)

    # 0 errors, both processes up and quiet
    assert camp.asks and not camp.errors(), [a.__dict__ for a in camp.errors()[:5]]
    assert all({"answer", "abstained", "sources", "known"} <= set(a.body or {}) for a in camp.asks)
    for log in (camp.watch_log, camp.server_log):
        assert "Traceback" not in log and "died" not in log, log[-2000:]
    # 0 lost turns: as many turns as records written, the same as one ingest of the finished file
    assert camp.stored_turns == camp.written, (camp.stored_turns, camp.written)
    assert camp.stored_uuids == camp.reference_uuids
    assert len(camp.reference_uuids) == camp.written
    # the fresh fact: cited once ingested, soon after it was written, and from then on
    assert camp.fact_written_at is not None and camp.fact_stored_at is not None
    first = camp.first_cite()
    assert first is not None, "the new file was never cited"
    assert first - camp.fact_written_at < 5.0, figures
    fact_asks = [a for a in camp.asks if a.question == FACT_QUESTION]
    early = [a for a in fact_asks if a.sent + a.latency_ms / 1000 < camp.fact_written_at]
    assert not any(a.cites_new_file for a in early), "cited before it was written?"
    later = [a for a in fact_asks if a.sent > first]
    assert later and all(a.cites_new_file for a in later), [a.body for a in later if not a.cites_new_file][:2]
    assert camp.asks[-1].cites_new_file
    assert statistics.median(camp.latencies()) < 5000, figures

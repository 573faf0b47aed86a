"""Ready fast, then better: `vyre ingest --no-embed` (or a backlog over the limit) stores turns, search
index and facts and answers at once from full-text search; the vectors are then built in the
background by `vyre serve` (and the MCP server, and `vyre watch`), with a progress line and the time left."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.surfaces.conftest import start_http

from vyre_memory import Memory
from vyre_memory.ask.sentences import SENTENCES, sentence_texts
from vyre_memory.errors import VyreError
from vyre_memory.surfaces.background import CatchUp, progress_line
from vyre_memory.surfaces.cli import main
from vyre_memory.surfaces.scopes import Gate

DEMO = Path(__file__).resolve().parents[2] / "demo" / "projects"


def fresh_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('user_name = "Sam"\nembedder = "hash"\n', encoding="utf-8")
    return home


def ingest_without_vectors(home: Path) -> str:
    done = CliRunner().invoke(main, ["ingest", "--no-embed", "-q", "--home", str(home), str(DEMO)])
    assert done.exit_code == 0, done.output
    return done.output


def test_answers_come_at_once_from_search_and_facts_then_the_backlog_is_embedded(tmp_path: Path) -> None:
    home = fresh_home(tmp_path)
    said = ingest_without_vectors(home)
    with Memory(home) as mem:
        left = mem.pending()["embed"]
        assert left > 0 and f"{left:,} texts left to embed (passages, sentences of typed ones, conversations'" in said
        assert "answers use full-text search and facts until then" in said
        assert mem.answer("what's my wife's name").answer == "Your wife is Dani."  # facts: at once
        work = mem.ask("which file had the refund bug")
        assert not work.abstained and "app/billing/refunds.py" in (work.answer or "")  # full-text search
        lines: list[str] = []
        catch_up = CatchUp(Gate(mem), report=lines.append, every_s=0)
        apart = SENTENCES.waiting(mem.store, mem.embedder.name)  # typed passages whose sentences wait too
        said = sentence_texts(mem.store.typed_passages(0, mem.store.passage_count(), 10**6))
        assert catch_up.once() == left - apart + len({h for _, h, _ in said})  # each text once
        assert mem.pending() == {"index": False, "embed": 0, "derive": False}
    assert lines[0].startswith(f"embedding [....................] 0 of {left:,} passages (0%)")
    assert lines[-1].startswith(f"vectors ready: {left:,} passages embedded in ")


def test_the_progress_line_has_a_bar_and_the_time_left() -> None:
    assert progress_line(12_300, 100_000, 540.0) == (
        "embedding [##..................] 12,300 of 100,000 passages (12%), about 9 min left; "
        "meanwhile answers use full-text search"
    )


def test_vyre_serve_embeds_what_ingest_left_in_the_background(tmp_path: Path) -> None:
    home = fresh_home(tmp_path)
    ingest_without_vectors(home)
    server = start_http(home)
    try:

        def left() -> int:
            with Memory(home) as mem:
                return int(mem.pending()["embed"])

        deadline = time.monotonic() + 120  # a hang guard, not a measure
        while left() and time.monotonic() < deadline:
            time.sleep(0.2)
        with server.client() as c:
            health = c.get("/v1/health").json()
            asked = c.post("/v1/ask", json={"question": "which file had the refund bug"}).json()
    finally:
        server.stop()
    assert left() == 0 and health["embedding"] is None
    assert "vectors ready:" in server.log.read_text()
    assert "app/billing/refunds.py" in asked["answer"]
    stats = json.loads(CliRunner().invoke(main, ["stats", "--json", "--home", str(home)]).output)
    assert stats["pending"] == {"index": False, "embed": 0, "derive": False}


def test_vyre_ingest_embeds_a_small_backlog_itself(tmp_path: Path) -> None:
    home = fresh_home(tmp_path)
    done = CliRunner().invoke(main, ["ingest", "-q", "--home", str(home), str(DEMO)])
    assert done.exit_code == 0 and "left to embed" not in done.output
    with Memory(home) as mem:
        assert mem.pending()["embed"] == 0


def test_closing_the_gate_while_the_catch_up_embeds_waits_for_its_call_and_stops_it(tmp_path: Path) -> None:
    """A server stopping closes its memory through the gate: never under a query the catch-up runs (closing a
    SQLite connection another thread is reading crashes the process), and the catch-up then ends."""
    home = fresh_home(tmp_path)
    ingest_without_vectors(home)
    mem = Memory(home)
    left = mem.pending()["embed"]
    gate = Gate(mem)
    catch_up = CatchUp(gate, every_s=0)
    embedding = threading.Event()
    catch_up._progress = lambda done, total, _: embedding.set() if done else None  # type: ignore[method-assign]
    thread = catch_up.start()
    assert embedding.wait(30), "the catch-up never started embedding"
    gate.close()  # waits for the call in hand, if any
    catch_up.kick()  # its next look (a kick, or RECHECK_S later) sees the gate closed and ends, touching nothing
    thread.join(10)
    assert not thread.is_alive() and gate.closed
    with pytest.raises(VyreError, match="closed"):
        gate.call(mem.pending)
    with Memory(home) as again:  # the batches embedded before the close stayed
        assert again.pending()["embed"] < left

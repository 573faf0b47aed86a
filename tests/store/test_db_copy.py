"""`vyre db copy`: a memory moved from SQLite into PostgreSQL and back loses nothing: every table's rows
and a checksum of turns, facts and graph edits are equal, and the copy answers as the original did."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner
from tests.pg_server import PgServer

from vyre_memory import Memory
from vyre_memory.store.copy import checksums
from vyre_memory.store.open import open_store
from vyre_memory.surfaces.cli import main

DEMO = Path(__file__).resolve().parents[2] / "demo" / "projects"
QUESTION = "which file had the refund bug"


def _sums(database: str) -> dict[str, str]:
    store = open_store(database)
    try:
        return checksums(store)
    finally:
        store.close()


def test_copy_sqlite_to_postgres_and_back_loses_nothing_postgres(pg_server: PgServer, tmp_path: Path) -> None:
    mem = Memory(tmp_path / "home", user_name="Sam")
    mem.ingest([DEMO])
    wife = next(f for f in mem.facts() if f.relation == "wife")
    person = next(e for e in mem.graph() if e.kind == "person")
    mem.rename_entity(person.name, "Danielle Q")  # an edit, a deletion: the person's own work travels too
    mem.delete_fact(wife.id)
    answer = mem.ask(QUESTION)
    mem.close()
    original = str(tmp_path / "home" / "memory.db")
    url = pg_server.create_database()
    back = str(tmp_path / "back" / "memory.db")

    runner = CliRunner()
    there = runner.invoke(main, ["db", "copy", original, url])
    assert there.exit_code == 0, there.output
    assert "checked (rows:sha256): turns 23:" in there.output and 'database = "postgresql://' in there.output
    again = runner.invoke(main, ["db", "copy", url, back])
    assert again.exit_code == 0, again.output

    sums = _sums(original)
    assert sums["turns"].startswith("23:") and sums["graph_edits"].startswith("1:")
    assert _sums(url) == sums == _sums(back)
    with sqlite3.connect(back) as conn:  # the copy's full-text index was built as its rows came in
        assert conn.execute("SELECT COUNT(*) FROM passages_fts WHERE passages_fts MATCH 'refund'").fetchone()[0] > 0
    for database in (url, back):
        copied = Memory(tmp_path / f"reader-{len(database)}", database=database, user_name="Sam")
        result = copied.ask(QUESTION)
        assert result.answer == answer.answer
        if database == back:  # the same engine: the same turns
            assert [s.uuid for s in result.sources] == [s.uuid for s in answer.sources]
        else:  # PostgreSQL's full-text search ranks by its own measure, so the lesser sources may differ
            assert result.sources[0].uuid == answer.sources[0].uuid
        assert copied.entity("Danielle Q").id == person.id and wife.id not in {f.id for f in copied.facts()}
        copied.close()


def test_copy_refuses_a_database_that_holds_a_memory_postgres(pg_server: PgServer, tmp_path: Path) -> None:
    url = pg_server.create_database()
    Memory(tmp_path / "a", database=url).ingest([DEMO])
    mem = Memory(tmp_path / "b")
    mem.ingest([DEMO])
    mem.close()
    result = CliRunner().invoke(main, ["db", "copy", str(tmp_path / "b" / "memory.db"), url])
    assert result.exit_code == 1
    assert "already holds 3 sessions; copy into a new, empty database" in result.output

"""After a crash between storing turns and building on them, `vyre stats` and `vyre doctor` say what is
still to be indexed, embedded and read for facts, and how to finish; after `vyre ingest`, nothing."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from vyre_memory.ingest.runner import IngestSettings
from vyre_memory.ingest.runner import ingest as store_turns_only
from vyre_memory.store.sqlite import Store
from vyre_memory.surfaces.cli import main

DEMO = Path(__file__).resolve().parents[2] / "demo" / "projects"
DONE = "nothing: every turn is indexed, embedded and read for facts"


def crashed_home(tmp_path: Path) -> Path:
    """Turns stored, then the process died before passages, vectors and facts (what kill -9 leaves)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('user_name = "Sam"\nembedder = "hash"\n', encoding="utf-8")
    store = Store(home / "memory.db")
    try:
        assert store_turns_only(store, [DEMO], IngestSettings(vyre_home=str(home))).new_turns > 0
    finally:
        store.close()
    return home


def test_stats_and_doctor_say_what_is_left_after_a_crash_and_nothing_once_finished(tmp_path: Path) -> None:
    home = crashed_home(tmp_path)
    cli = CliRunner()
    stats = cli.invoke(main, ["stats", "--home", str(home)])
    doctor = cli.invoke(main, ["doctor", "--home", str(home)], env={"VYRE_MODEL_BACKEND": "none"})
    pending = json.loads(cli.invoke(main, ["stats", "--json", "--home", str(home)]).output)["pending"]
    assert stats.exit_code == doctor.exit_code == 0, stats.output + doctor.output
    todo = (
        "turns to add to the search index; facts and graph to read from the newest turns "
        "(vyre ingest finishes it; vyre serve, vyre mcp and vyre watch do it as they run)"
    )
    assert f"to do      {todo}" in stats.output.splitlines()
    assert f"to do       {todo}" in doctor.output.splitlines()
    assert pending == {"index": True, "embed": 0, "derive": True}

    assert cli.invoke(main, ["ingest", "-q", "--home", str(home), str(DEMO)]).exit_code == 0
    assert f"to do      {DONE}" in cli.invoke(main, ["stats", "--home", str(home)]).output.splitlines()
    after = json.loads(cli.invoke(main, ["stats", "--json", "--home", str(home)]).output)["pending"]
    assert after == {"index": False, "embed": 0, "derive": False}


def test_passages_without_vectors_are_counted(tmp_path: Path) -> None:
    home = crashed_home(tmp_path)
    cli = CliRunner()
    no_vectors = cli.invoke(main, ["ingest", "-q", "--home", str(home), str(DEMO)], env={"VYRE_EMBEDDER": "none"})
    assert no_vectors.exit_code == 0  # passages and facts, no vectors
    pending = json.loads(cli.invoke(main, ["stats", "--json", "--home", str(home)]).output)["pending"]
    assert pending["index"] is False and pending["derive"] is False and pending["embed"] > 0
    line = cli.invoke(main, ["stats", "--home", str(home)]).output.splitlines()[-1]
    assert line.startswith(f"to do      {pending['embed']:,} texts to embed (answers use full-text search")

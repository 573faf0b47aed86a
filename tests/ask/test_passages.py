"""What a passage carries to be found: another speaker's first person is embedded as their name; the
person's own words, and every search text, stay as written."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import locomo_file, typed_line

from vyre_memory import Memory
from vyre_memory.ask.passages import in_third_person


def test_first_person_becomes_the_speakers_name() -> None:
    text = "I'm learning the violin, my teacher says I've improved. Mine is old; I'd love a new one, I'll ask me."
    assert in_third_person(text, "Tim") == (
        "Tim is learning the violin, Tim's teacher says Tim has improved. Tim's is old; "
        "Tim would love a new one, Tim will ask Tim."
    )
    assert in_third_person("It’s mine, I’M sure. Is it in Iowa? Imagine.", "Ana") == (
        "It’s Ana's, Ana is sure. Is it in Iowa? Imagine."  # whole words only
    )
    assert in_third_person("I/O is slow, so I wrote i++ and I++.", "Ana") == "I/O is slow, so Ana wrote i++ and I++."
    assert in_third_person("i think i'm right, i.e. I.e. done", "Ana") == "Ana think Ana is right, i.e. I.e. done"
    assert in_third_person("I did it", r"Dj\Q \g<0>") == r"Dj\Q \g<0> did it"  # a name is no template


def _embeds(mem: Memory) -> dict[str, tuple[str, str, str]]:
    rows = mem.store.conn.execute("SELECT uuids, text, search, embed FROM passages").fetchall()
    return {uuids: (text, search, embed) for uuids, text, search, embed in rows}


def test_a_conversation_speaker_is_embedded_in_the_third_person(tmp_path: Path) -> None:
    said = [("John", "How is school?"), ("Tim", "I started learning my first violin piece!")]
    conv = locomo_file(tmp_path / "conv.json", ("Tim", "John"), [("1:00 pm on 3 May, 2023", said)])
    with Memory(tmp_path / "home", user_name="you") as mem:
        mem.ingest([conv], format="locomo")
        text, search, embed = _embeds(mem)['["conv:D1:2"]']
    assert text == "I started learning my first violin piece!"
    assert search.endswith("\nre: How is school?\nI started learning my first violin piece!")
    assert embed.endswith("\nre: How is school?\nTim started learning Tim's first violin piece!")


def test_the_persons_own_words_are_embedded_as_written(tmp_path: Path) -> None:
    projects = tmp_path / "projects" / "-home-me-code-x"
    projects.mkdir(parents=True)
    session = "11111111-2222-4333-8444-555555555555"
    line = typed_line(session, "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "I moved my car", "2026-05-01T10:00:00Z")
    (projects / f"{session}.jsonl").write_text(line + "\n", encoding="utf-8")
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        mem.ingest([tmp_path / "projects"])
        [(text, search, embed)] = _embeds(mem).values()
    assert text == "I moved my car" and embed == search


def test_the_words_inside_an_identifier_are_searched_not_embedded(tmp_path: Path) -> None:
    projects = tmp_path / "projects" / "-home-me-code-x"
    projects.mkdir(parents=True)
    session = "11111111-2222-4333-8444-555555555555"
    said = "OrderQueueLatencyHigh paged me again, muted it"
    line = typed_line(session, "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", said, "2026-05-01T10:00:00Z")
    (projects / f"{session}.jsonl").write_text(line + "\n", encoding="utf-8")
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        mem.ingest([tmp_path / "projects"])
        [(text, search, embed)] = _embeds(mem).values()
        found = mem.store.conn.execute(
            "SELECT count(*) FROM passages_fts WHERE passages_fts MATCH 'latency AND queue'"
        ).fetchone()[0]
    assert text == said and search.endswith(f"{said}\norder queue latency high")
    assert "latency high" not in embed
    assert found == 1

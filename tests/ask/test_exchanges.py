"""A conversation's passages with the two said before them as keys of their own: a reply that names nothing is
found by the question and the topic before it, by words and by vector, in scope, embedded once."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tests.conftest import locomo_file
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask.exchanges import EXCHANGES, exchanges
from vyre_memory.ask.keys import AddedBm25, Bm25, tokens
from vyre_memory.ask.passages import text_hash

NOW = datetime(2024, 1, 1, tzinfo=UTC)
TOPIC = "I finally finished stitching my first quilt for the county fair!"
ASKED = "Amazing! Which colours did you go with in the end?"
REPLY = "Mostly teal and mustard, with a little grey around the edges."


def _conversation(path: Path) -> Path:
    first = [("Maya", "Morning! The bakery on the corner finally reopened."), ("Sam", "Good, I missed their rolls.")]
    second = [("Maya", TOPIC), ("Sam", ASKED), ("Maya", REPLY), ("Sam", "Sounds lovely, send a photo.")]
    sessions = [("2:00 pm on 10 June, 2023", first), ("3:00 pm on 12 June, 2023", second)]
    return locomo_file(path / "conv.json", ("Maya", "Sam"), sessions, filler=30)


def _exchange_of(memory: Memory, text: str) -> str:
    store = memory.store
    found, _, _ = exchanges(store, 0, store.passage_count(), 1000)
    (pid,) = store.conn.execute("SELECT id FROM passages WHERE text = ?", (text,)).fetchone()
    return dict(found)[pid]


def test_an_exchange_is_a_passage_after_the_two_said_before_it_in_its_session(memory: Memory, tmp_path: Path) -> None:
    memory.ingest([_conversation(tmp_path)], format="locomo")
    assert _exchange_of(memory, REPLY) == "\n".join([TOPIC, ASKED, REPLY])
    assert _exchange_of(memory, TOPIC) == TOPIC  # a session's first: nothing of the session before it


def test_a_reply_that_names_nothing_is_found_by_its_exchange(memory: Memory, tmp_path: Path) -> None:
    memory.ingest([_conversation(tmp_path)], format="locomo")
    question = "What colours is Maya's county fair quilt?"
    found = memory.retrieve(question, k=8, now=NOW, config="hybrid")
    reply = [p for p in found if p.uuids == ("conv:D3:3",)]
    assert reply and "exchanges" in reply[0].via
    without = memory.retrieve(question, k=8, now=NOW, config="hybrid-exchanges")
    assert not any("exchanges" in p.via for p in without)


def test_exchanges_are_embedded_once_and_marked_through_the_last_passage(memory: Memory, tmp_path: Path) -> None:
    memory.ingest([_conversation(tmp_path)], format="locomo")
    store, model = memory.store, memory.embedder.name
    assert int(store.get_meta(EXCHANGES.mark(model)) or 0) == store.passage_count()
    whole = text_hash("\n".join([TOPIC, ASKED, REPLY]))
    assert set(store.vectors_by_hash(EXCHANGES.model(model), [whole])) == {whole}
    assert memory.pending()["embed"] == 0 and memory.embed_backlog() == 0  # nothing new: none embedded again


def test_a_coding_agents_sessions_have_no_exchanges(memory: Memory, tmp_path: Path) -> None:
    work = TranscriptWriter(tmp_path / "projects" / "-home-you-code-shop" / "a.jsonl", "/home/you/code/shop")
    work.user("The quilt export fails on the colour step.")
    work.assistant("Looking at the colour step now.")
    memory.ingest([tmp_path / "projects"])
    store = memory.store
    assert exchanges(store, 0, store.passage_count(), 100)[0] == []
    assert EXCHANGES.waiting(store, memory.embedder.name) == 0
    found = memory.retrieve("what colours is the quilt", k=8, config="hybrid")
    assert found and not any("exchanges" in p.via for p in found)


def test_the_exchanges_lists_never_leave_the_scope(memory: Memory, tmp_path: Path) -> None:
    work = TranscriptWriter(tmp_path / "projects" / "-home-you-code-shop" / "a.jsonl", "/home/you/code/shop")
    work.user("The quilt colour picker shows teal twice.")
    work.assistant("Fixed the duplicate teal swatch.")
    memory.ingest([tmp_path / "projects"])
    memory.ingest([_conversation(tmp_path)], format="locomo")
    found = memory.retrieve("what colours is the quilt", project_cwds=["/home/you/code/shop"], k=8)
    assert found and all(memory.session(p.session).cwd == "/home/you/code/shop" for p in found)
    everywhere = memory.retrieve("what colours is the quilt", k=8)
    assert any("exchanges" in p.via for p in everywhere)


def test_a_word_in_too_many_exchanges_is_not_scored() -> None:
    index = AddedBm25()
    for words in (["teal", "quilt"], ["teal", "scarf"], ["mustard", "quilt", "quilt"]):
        index.add(words)
    assert set(index.scores(["teal", "mustard"])) == {0, 1, 2}
    assert set(index.scores(["teal", "mustard"], common=1)) == {2}  # "teal" is in two: only "mustard" scored


def test_added_documents_score_as_the_changeable_index_scores_them() -> None:
    texts = ["teal quilt", "teal scarf for the fair", "mustard quilt quilt", "a fair day"]
    added = AddedBm25()
    for text in texts:
        added.add(tokens(text))
    assert added.scores(["quilt", "fair"]) == Bm25.of(texts).scores(["quilt", "fair"])

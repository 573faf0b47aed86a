"""Who the person's partner likely is, from what they share said in passing: searched beside a question about the
partner that the graph names no one for; never a fact, never from someone else's words."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.read.derive import partner_cues_of
from vyre_memory.read.partner import asks_partner, likely_partners, partner_cues

NOW = datetime(2026, 12, 1, tzinfo=UTC)
CWD = "/home/sam/code/shop-api"


@pytest.mark.parametrize(
    ("text", "cues"),
    [
        ("also fyi slow replies this week, ayla is pregnant!! due in march", {"ayla": 1}),  # a colleague's may be
        ("moving wednesday, ayla and i got a place in the old town, boxes everywhere", {"ayla": 2}),
        ("rui's got the twins tonight so i can stay on this", {"rui": 2}),
        ("wrap early, rui's mom lands at 6 and is staying with us two weeks", {"rui": 2}),
        ("i have pickup today bc rui's on a site visit till late", {"rui": 1}),
        ("leaving at 4 to pick up the kid from daycare, ayla's on the late shift", {"ayla": 1}),
    ],
)
def test_what_a_person_shares_with_a_partner_is_a_cue(text: str, cues: dict[str, int]) -> None:
    assert partner_cues(text) == cues


@pytest.mark.parametrize(
    "text",
    [
        "> Yann: sorry, slow week, my wife is pregnant",  # a pasted colleague's words
        "the build is pregnant with bugs",
        "she's pregnant, he has the kids",  # no name
        "my sister's got the kids this weekend",  # a relative named by her relation
        "anna's kids are sick so she is out",  # her own kids
        "rui's on a site visit till late",  # busy, but no child to collect
        "ayla is not pregnant, that was a joke",
        "if ayla is pregnant we'll move",
        "the landlord and i signed a lease",  # a role, no name
        "the nanny has the kids today",
        "my sister in law is pregnant",
    ],
)
def test_no_cue_from_other_words(text: str) -> None:
    assert partner_cues(text) == {}


def test_the_name_with_most_points_and_at_least_two_is_the_likely_partner() -> None:
    cues = [("ayla", 2), ("ayla", 1), ("rui", 1), ("tom", 2)]
    assert likely_partners(cues) == ["ayla", "tom"]
    assert likely_partners(cues, others=["Tom"]) == ["ayla"]  # a flatmate signs a lease too
    assert likely_partners([("rui", 1)]) == []


def test_questions_about_the_persons_partner() -> None:
    assert asks_partner("what's my wife's first name") and asks_partner("who am i dating")
    assert asks_partner("where does my namorada work")
    assert not asks_partner("what does my brother do") and not asks_partner("my date picker is broken")
    assert not asks_partner("i'm seeing a 500 from the orders endpoint")


@pytest.fixture()
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        yield mem


def _history(root: Path) -> tuple[TranscriptWriter, str]:
    work = TranscriptWriter(root / "-home-sam-code-shop-api" / "a.jsonl", CWD)
    for i in range(30):
        work.user(f"the retry test {i} fails on the order list in src/jobs.py, the team says it started friday")
        work.assistant(f"Fixed retry case {i} in src/jobs.py: the backoff now resets.")
    work.user("moving wednesday, ayla and i got a place near the river, boxes everywhere. the retry test can wait")
    work.user("pasting from slack:\n> Mei: my husband started at the harbour office today, so i'm out at 4")
    work.user("ayla started at the county library on monday, she's wiped. ok the order list next")
    return work, work.written[-1]["uuid"]


def test_a_question_about_the_partner_searches_the_likely_partners_name(memory: Memory, tmp_path: Path) -> None:
    _, started = _history(tmp_path / "projects")
    memory.ingest([tmp_path / "projects"])
    assert partner_cues_of(memory.store) == [("ayla", 2)]
    assert memory.expand("where does my girlfriend work these days") == ["ayla"]
    found = memory.retrieve("where does my girlfriend work these days", k=3, now=NOW, config="hybrid")
    assert any(started in p.uuids for p in found)
    assert memory.expand("where does my brother work") == []
    assert memory.expand("what's my partner api key") == []  # a question of the work
    assert memory.retrieve("where does my girlfriend work", agent_projects=[CWD], k=8, now=NOW) == []


def test_a_turn_read_again_keeps_only_its_new_cues(memory: Memory, tmp_path: Path) -> None:
    work, _ = _history(tmp_path / "projects")
    memory.ingest([tmp_path / "projects"])
    work.user("rui's got the twins tonight, so the order list can wait")
    memory.ingest([tmp_path / "projects"])
    assert sorted(partner_cues_of(memory.store)) == [("ayla", 2), ("rui", 2)]


def test_a_partner_the_graph_names_is_searched_instead(memory: Memory, tmp_path: Path) -> None:
    work, _ = _history(tmp_path / "projects")
    work.user("my girlfriend noor says hi. the order list is green")
    memory.ingest([tmp_path / "projects"])
    assert memory.expand("where does my girlfriend work these days") == ["Noor"]
    assert memory.answer("what's my girlfriend's name").answer != "Ayla"  # a cue is never told as a fact


def test_a_name_deleted_from_the_graph_is_never_searched_as_the_partner(memory: Memory, tmp_path: Path) -> None:
    work, _ = _history(tmp_path / "projects")
    work.user("my friend ayla says the order list is fine")
    memory.ingest([tmp_path / "projects"])
    assert memory.expand("who am i dating") == []  # a friend, by the graph
    memory.delete_entity("Ayla")
    assert memory.expand("who am i dating") == []  # deleted: not someone to search for

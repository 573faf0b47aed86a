"""A question about what is ahead ("where are we going in june?") names when something will happen, not when it
was said: a bare month, season or weekday is the coming one, a time still ahead is no window, and the names in it
("june") are searched, since a plan is told months before by the name of its time ("booked the flights for
june")."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask.timewords import parse_time
from vyre_memory.ask.understand import understand

FRI_MAR = datetime(2027, 3, 12, 9, 30, tzinfo=UTC)  # a Friday


def _d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("where are we going in june?", _d(2027, 6, 1), _d(2027, 7, 1)),
        ("which school will she start at in september", _d(2027, 9, 1), _d(2027, 10, 1)),
        ("what's my title from july on?", _d(2027, 7, 1), _d(2027, 8, 1)),
        ("where's he flying in june?", _d(2027, 6, 1), _d(2027, 7, 1)),
        ("what are we doing on saturday", _d(2027, 3, 13), _d(2027, 3, 14)),
        ("what are we doing on friday", _d(2027, 3, 12), _d(2027, 3, 13)),  # today counts
        ("where are we going in march", _d(2027, 3, 1), _d(2027, 4, 1)),  # so does this month
        ("where are we going over the summer", _d(2027, 6, 1), _d(2027, 9, 1)),
    ],
)
def test_a_question_about_what_is_ahead_reads_the_coming_time(question: str, start: datetime, end: datetime) -> None:
    w = parse_time(question, FRI_MAR).window
    assert w is not None and (w.start, w.end) == (start, end)


@pytest.mark.parametrize(
    ("question", "start"),
    [
        ("where did we go in june?", _d(2026, 6, 1)),
        ("what was the vendor going to charge from may", _d(2026, 5, 1)),  # a past plan
        ("what did we hear from the client in june", _d(2026, 6, 1)),  # "from" a person, not a month
        ("what did we ship from may to june", _d(2026, 5, 1)),  # a range
        ("what did we do on saturday", _d(2027, 3, 6)),
    ],
)
def test_a_question_about_the_past_reads_the_last_time(question: str, start: datetime) -> None:
    w = parse_time(question, FRI_MAR).window
    assert w is not None and w.start == start


def test_a_time_ahead_is_no_window_and_its_names_are_searched() -> None:
    u = understand("where are we going in june?", FRI_MAR)
    assert u.window is None and u.window_strength == "none" and "june" in u.terms
    u = understand("what are we doing next week", FRI_MAR)
    assert u.window is None and "next" not in u.terms and "week" not in u.terms
    u = understand("where did we go in june?", FRI_MAR)  # the past: a window, its words not searched
    assert u.window is not None and "june" not in u.terms


def test_a_plan_told_months_before_is_found_for_the_month_ahead(tmp_path: Path) -> None:
    root = tmp_path / "projects" / "-home-sam-code-shop-api"
    plan = "booked the flights for june!! porto for a week, the kids want the boat trip"
    said = TranscriptWriter(root / "plan.jsonl", "/home/sam/code/shop-api", start=_d(2027, 2, 3))
    said.user(f"ok the cache fix is merged. {plan}")
    said.assistant("Nice, enjoy it. The cache fix is on main.")
    # the work since, where a word of the question ("going") is said
    for day in range(2, 12):
        work = TranscriptWriter(root / f"work-{day}.jsonl", "/home/sam/code/shop-api", start=_d(2027, 2, day + 10))
        work.user(f"going to rerun the queue migration tonight, batch {day}")
        work.assistant("The migration is running; four consumers are left.")
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        mem.ingest([tmp_path / "projects"])
        found = [p.text for p in mem.retrieve("where are we going in june?", k=3, now=FRI_MAR)]
    assert any(plan in text for text in found)


def test_a_time_ahead_that_has_begun_is_no_window_either() -> None:
    u = understand("where are we going in march?", FRI_MAR)  # asked on 12 March
    assert u.window is None and "march" in u.terms
    u = understand("what did we ship in march?", FRI_MAR)  # the past: a window, though March is not over
    assert u.window is not None and "march" not in u.terms


@pytest.mark.parametrize(
    "question",
    [
        "which invoices from january are still unpaid?",  # "from" a month: where they came from
        "show me the notes from march",
        "how often have i been going to the gym since january?",
        "how are things going since march?",
        "what are we doing about yesterday's outage?",
    ],
)
def test_what_has_been_is_no_question_about_what_is_ahead(question: str) -> None:
    w = understand(question, FRI_MAR).window
    assert w is not None and w.start <= FRI_MAR


def test_a_season_ahead_that_is_over_this_year_is_next_years() -> None:
    w = parse_time("where are we going in the summer?", _d(2026, 10, 10)).window
    assert w is not None and (w.start, w.end) == (_d(2027, 6, 1), _d(2027, 9, 1))


def test_from_a_month_is_from_then_on_when_it_comes_sooner_than_it_was() -> None:
    w = parse_time("what's my title from may?", FRI_MAR).window  # May comes in two months: from then on
    assert w is not None and w.start == _d(2027, 5, 1)
    w = parse_time("which invoices from january are still unpaid?", FRI_MAR).window  # January was two months ago
    assert w is not None and w.start == _d(2027, 1, 1)


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("where are we going on june 3?", _d(2027, 6, 3)),
        ("what are we doing on the 20th?", _d(2027, 3, 20)),
        ("what are we doing on the 2nd?", _d(2027, 4, 2)),
        ("where are we going for christmas?", _d(2027, 12, 25)),
    ],
)
def test_a_date_or_holiday_ahead_is_the_coming_one_and_no_window(question: str, day: datetime) -> None:
    w = parse_time(question, FRI_MAR).window
    assert w is not None and w.start <= day < w.end
    assert understand(question, FRI_MAR).window is None

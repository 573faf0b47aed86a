"""Someone leaving a role they held for the person: said near their name, in the person's words or pasted ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import typed_line

from vyre_memory import Memory
from vyre_memory.read.departures import leaves


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "fyi, from tamsin on friday:\n\n> From: Tamsin Ode\n> Subject: leave\n> Dear all, I start maternity leave",
            "Tamsin",
        ),
        ("big news, oskar is leaving the company at the end of june", "Oskar"),
        ("oskar: my last day is friday 28 may", "Oskar"),
        ("Tamsin resigned this morning, nobody saw it coming", "Tamsin"),
        ("oskar steps down as team lead in july, handing over to ines", "Oskar"),
        ("mirela posted: I’m leaving the firm in may", "Mirela"),  # a curly apostrophe
        ("my gp dr. ana patel retires in june", "Dr. Ana Patel"),  # the given name, past the title
    ],
)
def test_a_departure_near_the_name_is_one(text: str, name: str) -> None:
    assert leaves(text, name)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("tamsin reviewed the PR, looks fine", "Tamsin"),
        ("tamsin is on leave today, ask me instead", "Tamsin"),  # a day off is no departure
        ("the last day of the sprint is friday, tamsin wants the demo by then", "Tamsin"),  # no "my/her last day"
        ("tamsin is leaving early today, dentist", "Tamsin"),  # leaving for the day
        ("Tamsin retired the old endpoint last sprint", "Tamsin"),  # a thing retired
        ("jo is the acting manager while tamsin is away", "Jo"),  # who stands in does not leave
        ("tamsinator is leaving the company", "Tamsin"),  # another word
        ("oskar is leaving the company", "Tamsin"),  # another person
    ],
)
def test_other_mentions_are_none(text: str, name: str) -> None:
    assert not leaves(text, name)


def test_a_far_name_is_not_the_leaver() -> None:
    text = "tamsin signed off on the plan. " + "filler words here. " * 30 + "and jo is leaving the company"
    assert not leaves(text, "Tamsin")


def _history(tmp_path: Path, said: list[tuple[str, str]], cwds: tuple[str, ...] = ("/home/me/code/x",)) -> Path:
    """One session per folder in `cwds`, the turns of `said` dealt to them in turn."""
    for n, cwd in enumerate(cwds):
        projects = tmp_path / "projects" / cwd.replace("/", "-")
        projects.mkdir(parents=True)
        session = f"11111111-2222-4333-8444-55555555555{n}"
        lines = [
            typed_line(session, f"aaaaaaaa-bbbb-4ccc-8ddd-{i:012d}", text, ts, cwd)
            for i, (text, ts) in enumerate(said)
            if i % len(cwds) == n
        ]
        (projects / f"{session}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "projects"


def test_a_manager_who_said_they_leave_is_not_told_as_todays(tmp_path: Path) -> None:
    said = [
        ("tamsin (my manager) wants the report by friday", "2026-03-02T10:00:00Z"),
        ("ok the report is sent", "2026-03-06T10:00:00Z"),
        ("fyi from tamsin:\n> Dear all, I start my maternity leave on 7 May. Jo covers.", "2026-05-03T10:00:00Z"),
    ]
    projects = _history(tmp_path, said)
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([projects])
        before = mem.answer("who's my manager", now="2026-04-01T10:00:00Z")
        assert before.answer == "Your manager is Tamsin." and before.via == "fact"
        after = mem.answer("who's my manager now", now="2026-07-01T10:00:00Z")
        assert after.abstained and after.answer is None and after.sources == ()
        assert after.known == ("Up to 2026-03-02: Your manager is Tamsin. Said since: Tamsin leaves.",)
        # asked before the departure was said: the answer as of then
        assert mem.answer("who's my manager", now="2026-05-02T10:00:00Z").answer == "Your manager is Tamsin."


def test_a_departure_said_with_the_role_or_in_another_project_counts(tmp_path: Path) -> None:
    said = [
        ("my manager oskar is leaving the company at the end of may, sad", "2026-03-02T10:00:00Z"),
        ("the deploy went fine", "2026-03-03T10:00:00Z"),
    ]
    with Memory(tmp_path / "one" / "home", embedder="none", user_name="me") as mem:
        mem.ingest([_history(tmp_path / "one", said)])
        assert mem.answer("who's my manager", now="2026-07-01T10:00:00Z").abstained
    said = [
        ("tamsin (my manager) wants the report by friday", "2026-03-02T10:00:00Z"),
        ("fyi from tamsin:\n> Dear all, I start my maternity leave on 7 May.", "2026-05-03T10:00:00Z"),
    ]
    projects = _history(tmp_path / "two", said, cwds=("/home/me/code/x", "/home/me/code/y"))
    with Memory(tmp_path / "two" / "home", embedder="none", user_name="me") as mem:
        mem.ingest([projects])
        # the person's manager is theirs in every project, and so is her leaving, said in the other one
        scoped = mem.answer("who's my manager now", now="2026-07-01T10:00:00Z", project_cwds=["/home/me/code/x"])
        assert scoped.abstained and scoped.known

"""What of a turn an agent may read: the person's asides cut out, the work kept (read/asides.py)."""

from __future__ import annotations

import pytest

from vyre_memory.read.asides import WITHHELD, personal_question, withhold_personal

ASIDES_WITH_WORK = [
    ("nice. have to pick up noor, my wife, at 5 so let's wrap up. tag it as v3.2.0 and deploy", "noor", "v3.2.0"),
    (
        "my son tobin starts school monday so i'm off early. the export is slow, look at app/export.py",
        "tobin",
        "app/export.py",
    ),
    (
        "have to leave at 4 to walk pickle, my whippet. the webhook retry in hooks/retry.py is broken",
        "pickle",
        "hooks/retry.py",
    ),
    ("we finally moved to 14 quarry row! can you rerun the failing test?", "quarry", "failing test"),
    ("the release is tagged; my better half nadia says congrats. rerun the failing test", "nadia", "failing test"),
    ("Ines is visiting so I'll push the fix tomorrow", "ines", "push the fix"),
    ("the cache_key helper is wrong; my dad is in hospital again", "hospital", "cache_key"),
    ("feeling exhausted today - please bump redis to 7.2.4", "exhausted", "7.2.4"),
]


@pytest.mark.parametrize(("text", "secret", "work"), ASIDES_WITH_WORK)
def test_the_aside_is_cut_and_the_work_stays(text: str, secret: str, work: str) -> None:
    kept = withhold_personal(text, "typed")
    assert secret not in kept.lower()
    assert work in kept
    assert WITHHELD in kept


@pytest.mark.parametrize(
    "text",
    ["i'm off to the dentist", "dinner with the in-laws tonight", "our kitten knocked my coffee over", "gotta run"],
)
def test_a_turn_of_nothing_but_asides_is_empty(text: str) -> None:
    assert withhold_personal(text, "typed") == ""


@pytest.mark.parametrize(
    "text",
    [
        "fix the null check in billing/invoice.py",
        "ok, go ahead",
        "the child process exits before the parent flushes its log",
        "run the migration on staging first",
        "src/pages/index.tsx is home for the landing route",
        "we are marrying the legacy ids to the new uuids in the migration",
    ],
)
def test_work_and_neutral_replies_are_kept_whole(text: str) -> None:
    assert withhold_personal(text, "typed") == text


def test_prose_loses_only_what_speaks_of_a_life() -> None:
    text = "Patched the retry in worker.py. Enjoy the weekend with your daughter! The flaky test passes now."
    kept = withhold_personal(text, "assistant")
    assert "daughter" not in kept and "worker.py" in kept and "flaky test passes" in kept
    code = "def visit(node): return node.children  # my sister wrote this"
    assert withhold_personal(code, "tool_output") == code  # a tool's text is the project's, kept as it is


@pytest.mark.parametrize(
    "question",
    [
        "what's the user's dog called",
        "where does the user live",
        "who is visiting them this weekend",
        "what's my wife's name",
        "how old is my son",
        "when is the user's birthday",
        "what school do their kids go to",
        "is the user married",
        "who does the user pick up at 5",
        # "we" of a household: where it lives, when it moved, its house, car or holiday
        "where do we live these days",
        "when did we actually move",
        "what day did we move into the new place",
        "what car do we have now",
        "how much did the house cost us",
        "who am i seeing these days",  # a partner not named as one: never an agent's to read
        "is the user dating anyone",
        "what truck did i end up buying",
        "what was i driving back then",
        # where they are based, their title, their sport and team, their school breaks
        "which town am i based in",
        "what's my job title these days",
        "when was i promoted",
        "what football team do i support",
        "what sports does she play",
        "where did we go for the spring break",
        # a commute, a vehicle, a role or an office of theirs, where home is, whom they married
        "what vehicle do i get around in now",
        "how do i get to the office these days",
        "what's my current role at work",
        "what area of the city is my office in",
        "which part of town is home now",
        "who did i end up marrying",
        # a household, by whom it lives with or its home, though a word of the work is in it
        "what do we use for backup power at home now",
        "who lives with us now besides the kids",
    ],
)
def test_questions_about_the_persons_life(question: str) -> None:
    assert personal_question(question)


@pytest.mark.parametrize(
    "question",
    [
        "which file had the refund bug",
        "what did we decide about the login flow",
        "where does the config live",
        "what version did we deploy last",
        "who reviewed the payments PR",
        "why was the nightly export slow",
        "which field holds the user's birthday in the signup form",
        "what did we ship before the weekend",
        "what did we do on the trip to the datacenter",
        # "we" of a team
        "when did we go live with the new checkout",
        "why did we move the cron job off the old box",
        "when did we move to the new queue",
        "what's the in-house tool we use for flags",
        "what am i seeing in the logs",
        "which truck did the routing job send out",
        "why am i seeing a 502 from the proxy",
        "why is the truck icon blurry for me",
        "which city is the cdn edge in",
        "what sport scores does the feed endpoint return",
        "why did we break the build",
        "what does my role grant in the db",
        "what did we promote to the stable channel",
        "which city did they pick for the datacenter",
        "which region are they based in",
        "what sport did i add to the fixtures",
        "did i get the promotion banner working",
        "when was he promoted to admin",
        "what's my role on the vercel team",
        "which team do i support on the rotation",
        "will the freeze last through the winter break",
        # a vehicle, a commute, a role, an office or a way in that is the work's
        "what did the user decide about the vehicle picker",
        "how does my commute estimator compute eta",
        "what permissions does my new role need",
        "where is my office 365 tenant configured",
        "how did i get to work on the parser",
        "how do i get to the office wiki",
        "where does the backup job write its home dir",
        "which process lives with the web worker",
        "which port does the dev server use at home",
        "why is the at home delivery feature flag off for us",
        "which customers live with us in the eu region",
        "what config lives with me in the dotfiles repo",
        "does our app work around home screen widgets",
    ],
)
def test_work_questions_are_not_personal(question: str) -> None:
    assert not personal_question(question)


def test_prose_loses_a_known_clause_and_a_piece_of_one() -> None:
    """A clause placed as a life (`also`) is cut, and so is a piece of it where a passage was cut mid-clause; a
    short piece is not taken for it."""
    reply = "Good luck to her, I hope the first week goes well. The order test is next in src/jobs.py."
    known = frozenset({"Good luck to her, I hope the first week goes well."})
    assert withhold_personal(reply, "assistant", known) == f"{WITHHELD} The order test is next in src/jobs.py."
    piece = "The order test passes now. Good luck to her, I hope the first"  # a passage cut mid-clause
    assert withhold_personal(piece, "assistant", known) == f"The order test passes now. {WITHHELD}"
    assert withhold_personal("Done. Good", "assistant", known) == "Done. Good"
    assert withhold_personal(reply, "assistant") == reply  # no life word: prose alone keeps it

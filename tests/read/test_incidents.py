"""Which turns reported a problem or said what caused it (`read.incidents`), and their keys."""

from __future__ import annotations

import pytest

from vyre_memory.contract import ASSISTANT, TOOL_CALL, TOOL_OUTPUT, TYPED, Turn
from vyre_memory.read.incidents import incident_in
from vyre_memory.read.moments import moments_in

CWD = "/home/sam/code/shop-api"


def _turn(kind: str, text: str, seq: int = 4, session: str = "s1") -> Turn:
    return Turn(1, session, seq, ("u1",), "user", kind, "", text, "2026-10-02T09:00:00.000Z", "interactive", CWD)


@pytest.mark.parametrize(
    "text",
    [
        "Found it. The retry wrapper re-sends the charge without the idempotency key.",
        "There it is: `verify()` signs a re-serialised body, not the raw bytes.",
        "I think I see it. The cron runs in every replica, so each one sends the email.",
        "That confirms it: the same event id arrives twice, 11 seconds apart.",
        "Root cause: the cache is refreshed synchronously inside the request.",
        "The problem is the timezone: `DATE()` on a timestamp uses UTC.",
        "Two problems stacked: 1. the font has no Polish glyphs 2. the image has one font.",
        "Confirmed: 6 of 20 runs fail, each one on the unique violation.",
        "Looked at the logs. It's caused by the connection pool running dry under load.",
        "Fixed in `app/billing.py`: amounts are Decimals now.",
        "Checked both paths; `parse_day` is the culprit, it builds local midnight.",
        "It's the cache. Every request after expiry blocks on the upstream call.",
        "Yes, it's the service worker: it waits until every tab is closed.",
        "That's a race between the check and the insert.",
    ],
)
def test_the_assistant_saying_what_the_matter_is_is_an_incident(text: str) -> None:
    found = incident_in(_turn(ASSISTANT, text), lambda session: "checkout returns 500s since the deploy")
    assert found is not None and found.seqs == (4,)
    assert "shop-api" in found.text and "checkout returns 500s" in found.text  # the project, what was asked first


@pytest.mark.parametrize(
    "text",
    [
        "the checkout is failing for every card payment since this morning",
        "getting 500 errors on /v1/orders when the cart is empty",
        "ci has been flaky since last week, TestRender fails 1 in 10",
        "prod is down, the health check keeps timing out",
        'Traceback (most recent call last):\n  File "app.py", line 3',
        "marcus says we had an outage on saturday night, can you look at the logs",
        "the nightly job throws an exception on the first row",
        "error spikes on the payments dashboard every ten minutes",
    ],
)
def test_the_person_reporting_a_problem_is_an_incident(text: str) -> None:
    assert incident_in(_turn(TYPED, text)) is not None


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (ASSISTANT, "Added the endpoint and a test for the empty cart."),
        (ASSISTANT, "Done. The migration adds the index; all 214 tests pass."),
        (ASSISTANT, "Let me look at the logs to find the root cause."),  # not at a sentence's start: still looking
        (ASSISTANT, "I haven't found it yet; checking the worker next."),
        (TYPED, "add a csv export to the orders page"),
        (TYPED, "nice, ship it"),
        (TYPED, "write a test for the error message when the card is declined"),
        (TOOL_CALL, "Bash\ncommand: pytest -x\ndescription: run the tests"),
        (TOOL_OUTPUT, "FAILED tests/test_orders.py::test_empty - Traceback (most recent call last)"),
    ],
)
def test_other_turns_are_not(kind: str, text: str) -> None:
    assert incident_in(_turn(kind, text)) is None


def test_only_the_opening_is_read() -> None:
    late = "Updated the docs and the changelog. " * 20 + "Found it: the cache."
    assert incident_in(_turn(ASSISTANT, late)) is None


def test_the_incidents_of_turns_keep_their_order_each_with_its_sessions_first_request() -> None:
    def about(session: str) -> str:
        return f"first request of {session}"

    turns = [
        _turn(TYPED, "the export is broken for names with commas", 1, "a"),
        _turn(ASSISTANT, "Found it: the CSV is built with an f-string.", 2, "a"),
        _turn(ASSISTANT, "Added the header row.", 3, "a"),
        _turn(ASSISTANT, "Root cause: the worker runs the scheduler too.", 1, "b"),
    ]
    found = moments_in(incident_in, turns, about)
    assert [(m.session, m.seqs) for m in found] == [("a", (1,)), ("a", (2,)), ("b", (1,))]
    assert "first request of b" in found[2].text


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (ASSISTANT, "That's a good question. The retry count lives in the config."),
        (ASSISTANT, "This is the updated version of the file."),
        (ASSISTANT, "That's it! All 42 tests pass now."),
        (ASSISTANT, "Confirmed, the deployment is live."),
        (TYPED, "add error handling so it returns a 400 error"),
        (TYPED, "the function should throw an exception if the id is missing"),
        (TYPED, "add a regression test for the empty cart"),
        (TYPED, "create an incident report template in docs/"),
        (TYPED, "my dad had a health incident last week, I'll be slow to reply"),  # the person's life
    ],
)
def test_what_only_sounds_like_one_is_not(kind: str, text: str) -> None:
    assert incident_in(_turn(kind, text)) is None


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (ASSISTANT, "I found the bug. The parser drops the last line."),
        (ASSISTANT, "Turns out the cron runs twice because both pods start it."),
        (TYPED, "login doesn't work anymore after the upgrade"),
        (TYPED, "the settings page won't load on safari"),
        (TYPED, "i get a 404 on /api/orders"),
        (TYPED, "it crashes on startup since this morning"),
        (TYPED, "npm install fails with EACCES"),
        (TYPED, "when I open the dashboard it is crashing"),
    ],
)
def test_more_ways_of_saying_one_are(kind: str, text: str) -> None:
    assert incident_in(_turn(kind, text)) is not None

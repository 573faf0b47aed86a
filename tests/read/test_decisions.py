"""Which turns took, settled or wrote down a decision (`read.decisions`), and their keys."""

from __future__ import annotations

import pytest

from vyre_memory.contract import ASSISTANT, TOOL_CALL, TOOL_OUTPUT, TYPED, Turn
from vyre_memory.read.decisions import decided, decision_in
from vyre_memory.read.moments import moments_in

CWD = "/home/sam/code/shop-api"


def _turn(kind: str, text: str, seq: int = 4, session: str = "s1") -> Turn:
    return Turn(1, session, seq, ("u1",), "user", kind, "", text, "2026-10-02T09:00:00.000Z", "interactive", CWD)


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (TYPED, "ok let's go with postgres for the queue, redis is one more thing to run"),
        (TYPED, "wkhtmltopdf is dead, fpdf means rewriting every template. headless chromium it is."),
        (TYPED, "ok, decision: move the app to fargate and drop the old VMs"),
        (TYPED, "ok reversing myself, integer cents after all"),
        (TYPED, "we decided to keep the monolith for now"),
        (TYPED, "8 ms p99 for the big model blows the budget. small model it is — 0.2 worse isn't worth it"),
        (TYPED, "big one today. we're killing the nightly export, nobody opens it"),
        (TYPED, "the lead agreed this morning: we swap the log agent for one with a disk buffer"),
        (TYPED, "sync on the cache today. priya is pushing hard for memcached, says redis is overkill"),
        (TYPED, "okafor suggested in the retro that we split the monorepo"),
        (TYPED, "the vendor thing again: halvorsen kept asking for saml login"),
        (ASSISTANT, "Recording the decision in the docs and scaffolding the service."),
        (ASSISTANT, "ADR-0007 written (accepted): amounts are integer minor units."),
        (ASSISTANT, "ADR-012 is written (dated 3 May, budget up to 400/month) and ADR-007 is marked superseded."),
        (ASSISTANT, "`docs/adr/0015-stay-on-postgres.md` records the reversal, with the April numbers."),
        (ASSISTANT, "Written: **ADR-006** goes back to the plain client, and ADR-004 is marked superseded."),
        (TOOL_CALL, "Write\nfile_path: /home/sam/code/shop-api/docs/adr/0007-money.md\ncontent: # ADR 0007: Money"),
        (TOOL_CALL, "Edit\nfile_path: /home/sam/code/shop-api/docs/decisions.md\nold_string: a\nnew_string: b"),
        (TOOL_CALL, "Write\nfile_path: /home/sam/code/shop-api/rfcs/RFC-014-currency.md\ncontent: # RFC-014"),
    ],
)
def test_a_decision_taken_settled_or_written_down_is_kept(kind: str, text: str) -> None:
    found = decision_in(_turn(kind, text), lambda session: "pick a queue for the order emails")
    assert found is not None and found.seqs == (4,)  # derive pairs a call with its output
    assert "shop-api" in found.text and "pick a queue" in found.text  # the project, what was asked first


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (TYPED, "what are the options for the queue?"),
        (TYPED, "yes it is."),  # an answer, not a choice
        (TYPED, "that's how it is with legacy code"),
        (TYPED, "add the index to the orders table"),
        (ASSISTANT, "Added the index; the query now takes 4 ms."),
        (ASSISTANT, "The ADR template has five sections."),
        (ASSISTANT, "ADR-0007 says amounts are integer minor units; the reversed sign is a bug in the export."),
        (ASSISTANT, "I read docs/adr/0007-money.md: nothing in it covers refunds."),
        (ASSISTANT, "Timestamps now follow RFC 3339, marked with a trailing Z for UTC."),
        (ASSISTANT, "src/decisions/tree.py marks each leaf with its majority class."),
        (ASSISTANT, "ADR-0007 marks amounts as integer minor units; the export reverses the sign, which is the bug."),
        (TOOL_CALL, "Read\nfile_path: /home/sam/code/shop-api/docs/adr/0007-money.md"),
        (TOOL_CALL, "Write\nfile_path: /home/sam/code/shop-api/src/orders.py\ncontent: import os"),
        (TOOL_CALL, "Bash\ncommand: cat docs/adr/0007-money.md"),
        (TOOL_OUTPUT, "# ADR 0007: Money rounding\nStatus: accepted"),
    ],
)
def test_other_turns_are_not(kind: str, text: str) -> None:
    assert decision_in(_turn(kind, text)) is None


def test_decided_says_what_and_on_which_topic() -> None:
    what, topic = decided("ok, decision: move the app to fargate") or ("", frozenset())
    assert what == "move the app to fargate" and "fargate" in topic
    assert decided("should we go with fargate?") is None  # a question decides nothing


def test_the_decisions_of_turns_keep_their_order() -> None:
    turns = [
        _turn(TYPED, "let's go with chromium for the pdfs", 1, "a"),
        _turn(ASSISTANT, "Added the renderer.", 2, "a"),
        _turn(TOOL_CALL, "Write\nfile_path: /x/docs/adr/0001-pdf.md\ncontent: # 0001", 3, "a"),
    ]
    assert [m.seqs for m in moments_in(decision_in, turns, lambda session: "")] == [(1,), (3,)]


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (ASSISTANT, "Let's use `grep` to find the callers."),  # the assistant's own next step
        (ASSISTANT, "Switching to the tests directory to run them."),
        (TYPED, "whatever it is, ship the fix"),
        (TYPED, "we're killing the worker when it hangs"),  # a condition, not a plan
        (TYPED, "we're killing time until the build finishes"),
        (TYPED, "if we swap the order of the middleware the test passes"),
        (TYPED, "we swap the arguments and it passes"),  # nothing swapped for another
        (TYPED, "ok we're moving to the next step, run the tests"),
        (TYPED, "yeah it is — the cache again"),  # an answer, not a choice
        (TYPED, "you suggested memcached earlier, why?"),  # no colleague's proposal
        (TYPED, "he suggested we split it up"),  # no name: who proposed is not in the turn
        (TYPED, "if priya suggests memcached again we'll benchmark both"),
        (TYPED, "git push for the release branch failed"),
        (TYPED, "my wife suggested we spend august on the coast"),  # the person's life
        (TOOL_CALL, "Write\nfile_path: /home/sam/code/shop-api/src/ml/decision_tree.py\ncontent: import numpy"),
        (TOOL_CALL, "Write\nfile_path: /home/sam/code/shop-api/pkg/timeutil/rfc3339.go\ncontent: package timeutil"),
    ],
)
def test_what_only_sounds_like_one_is_not(kind: str, text: str) -> None:
    assert decision_in(_turn(kind, text)) is None


@pytest.mark.parametrize(
    "text",
    ["let's go with option 2", "go with B", "we decided on jwt", "let's use uv for the lockfile"],
)
def test_a_short_choice_is_one_though_its_topic_is_short(text: str) -> None:
    assert decision_in(_turn(TYPED, text)) is not None


def test_only_the_opening_is_read_so_the_key_names_the_decision() -> None:
    late = "Updated the docs and the changelog. " * 60 + "We decided to keep the old flag."
    assert decision_in(_turn(ASSISTANT, late)) is None


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (TYPED, "the vendor shipped the new sdk. reverse the spring decision: bump the min version to 26"),
        (TYPED, "decision came down from the lead:\n> we go with the managed broker for the jobs"),
        (TYPED, "decision changed after the review today, see the thread below"),
        (TYPED, "halvorsen changed his mind on the minimum compiler version. from the issue:"),
        (TYPED, "agreed. posting it: we stay on the time-series db, revisit at 50k devices"),
        (TYPED, "ok that settles it, we stay on the old version until at least next year"),  # a bound, no condition
        (TYPED, "talked to the client. we're moving to the hosted backend, one vendor"),
        (TYPED, "yes, switch the lifecycle rule to the cheaper tier. finance ok'd it"),
        (TYPED, "the local renderer. and drop the remote api completely, no fallback"),
        (TYPED, "agree, 3. no soap library, we call the three operations by hand"),
        (TYPED, "yeah 2. the date of birth is a calendar date, keep it a string everywhere"),
        (TYPED, "the arch review went well. so kafka it is."),
        (ASSISTANT, "Switched: the lock now uses the database provider. This reverses the June choice of the cache."),
        (ASSISTANT, "So we reverse the March decision ('pay at the desk'). Plan: 1. capacity 40 to 45"),
    ],
)
def test_a_decision_told_as_news_or_given_as_an_order_is_a_key(kind: str, text: str) -> None:
    assert decision_in(_turn(kind, text)) is not None


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (TYPED, "yeah 7.41 is bad. break it down by region"),  # a number read, not an option chosen
        (TYPED, "if we reverse the old decision the tests break"),  # a condition
        (TYPED, "should we stay on the old driver?"),  # a question
        (TYPED, "we're moving to a bigger flat in june, boxes everywhere"),  # the person's life
        (TYPED, "ok we're moving to the next step, run the tests"),
        (TYPED, "> we stay on the old driver\nthat's what the forum says, is it true?"),  # quoted, not the person's
        (ASSISTANT, "We're moving to the hosted backend, as you asked; the config is next."),  # the assistant's step
        (ASSISTANT, "Next I'll switch the import to the new module and drop the old helper."),
        # edits asked for, not a choice of the team's way
        (TYPED, "move the helper to utils.py"),
        (TYPED, "switch the import to the new path"),
        (TYPED, "run the migration and drop the temp table"),
        (TYPED, "ok, e.g. the login page"),
        (TYPED, "ok 1. run the tests 2. fix the lint"),
        (TYPED, "reverse the call stack in the trace view"),
        (ASSISTANT, "I reversed the order of the call arguments so the test passes."),
        (TYPED, "no decision made yet, still waiting on legal"),
        (TYPED, "plot twist: the test passes locally"),
        (TYPED, "this build is so slow it is."),
    ],
)
def test_news_words_said_otherwise_are_no_key(kind: str, text: str) -> None:
    assert decision_in(_turn(kind, text)) is None

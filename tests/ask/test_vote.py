"""The no-model answer: typed candidates, one vote, one calibrated confidence (ask/answer_types, candidates, vote)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from tests.conftest import make_passage

from vyre_memory.ask.answer_types import asked
from vyre_memory.ask.candidates import EXTRACTORS, mentions, split_ablation
from vyre_memory.ask.understand import understand
from vyre_memory.ask.vote import FEATURES, calibration, candidates, decide
from vyre_memory.errors import ConfigError

NOW = datetime(2026, 9, 1, tzinfo=UTC)


def wanted(question: str):  # type: ignore[no-untyped-def]
    found = asked(question, understand(question, NOW))
    assert found is not None, question
    return found


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("which file had the checkout rounding bug", "path"),
        ("what module handles the nightly sync", "path"),
        ("what version did we ship on friday", "version"),
        ("which release broke the importer", "version"),
        ("when did we turn on the new cache", "date"),
        ("how long ago did we move to the new queue", "date"),
        ("how long did the backfill take", "duration"),
        ("how many retries does the client make", "count"),
        ("how much was the cloud bill in march", "amount"),
        ("which test was flaky in the parser", "identifier"),
        ("what was the ticket for the login loop", "identifier"),
        ("which branch has the migration work", "identifier"),
        ("what command rebuilds the search index", "command"),
        ("why did the importer time out", "sentence"),
        ("what did we decide about soft deletes", "sentence"),
        ("what made the invoice job crash at night", "sentence"),
        ("what did the smoke test check first", "sentence"),
    ],
)
def test_the_answer_type_comes_from_the_questions_form(question: str, kind: str) -> None:
    assert wanted(question).type == kind


@pytest.mark.parametrize("question", ["what's my wife's name", "who suggested the new linter", "where do i live"])
def test_people_and_places_get_no_typed_answer(question: str) -> None:
    assert asked(question, understand(question, NOW)) is None


@pytest.mark.parametrize("question", ["how do we deploy the billing api to prod?", "how should i release the app"])
def test_a_way_of_doing_something_gets_no_sentence_answer(question: str) -> None:
    # a report of one deploy holds the question's words, and is no answer to how deploys are done
    assert asked(question, understand(question, NOW)) is None


def test_how_a_thing_was_fixed_or_works_still_gets_one() -> None:
    assert wanted("how did we fix the importer timeout").aspect == "fix"
    assert wanted("how do we fix the flaky login test").aspect == "fix"
    assert wanted("how should we fix the flaky login test").type == "sentence"
    assert wanted("how does the dashboard get live updates now").type == "sentence"


def test_a_verb_after_the_question_word_names_no_asked_noun() -> None:
    found = wanted("what made the ticket export crash offline")
    assert (found.type, found.nouns, found.aspect) == ("sentence", frozenset(), "cause")


def test_a_noun_that_owns_what_is_asked_is_not_asked_for() -> None:
    assert wanted("what's the nightly job's memory limit").type == "number"  # the limit is asked, not a job
    assert wanted("which job's retries were raised").type != "identifier"
    assert wanted("which job ran out of memory").type == "identifier"


def test_the_names_of_a_tool_calls_inputs_are_never_candidates() -> None:
    a = wanted("which flag did we raise for the nightly export")
    text = "Edit\nfile_path: config/export.yml\nold_string: nightly_export_max: 3\nnew_string: nightly_export_max: 5"
    edit = replace(make_passage(1, text), kind="tool_call", name="Edit")
    # a call with its output is one passage, of the output's kind, the call's rendering at its head
    paired = replace(make_passage(2, text + "\n→ The file config/export.yml has been updated."), kind="tool_output")
    for passage in (edit, paired):
        found = {m.value for m in mentions(a, [passage])}
        assert "nightly_export_max" in found
        assert not found & {"file_path", "old_string", "new_string"}


def test_order_and_aspect_are_constraints() -> None:
    assert wanted("what version is the api on now").order == "newest"
    assert wanted("what was the first version we shipped").order == "oldest"
    assert wanted("why did the importer time out").aspect == "cause"
    assert wanted("what fixed the flaky upload test").type == "sentence"
    assert wanted("what fixed the flaky upload test").aspect == "fix"
    assert wanted("which version fixed the upload bug").order == "newest"


def test_the_questions_own_identifier_is_never_a_candidate() -> None:
    a = wanted("what was the ticket for the duplicate export in ABC-17")
    passages = [make_passage(1, "ABC-17 was filed after the export ran twice; the fix went in as ABC-19.")]
    assert [c.value for c in candidates(a, passages)] == ["ABC-19"]


def test_a_value_whose_passage_holds_too_few_of_the_questions_words_is_no_candidate() -> None:
    a = wanted("which version fixed the duplicate invoices")
    assert len(a.terms) == 3, a.terms  # fix, duplicate, invoices (stemmed); the answer type is not one
    shipped = make_passage(1, "ship 3.4.0 with the invoices screen to production", kind="typed")
    assert candidates(a, [shipped]) == []  # one of three: a release that never says it fixed them
    fixed = make_passage(2, "3.4.1 fixed the duplicate invoices", kind="assistant")
    assert [c.value for c in candidates(a, [shipped, fixed])] == ["3.4.1"]


def test_the_name_of_whoever_said_a_passage_is_not_what_it_is_about() -> None:
    a = wanted("how long has Ana had her bikes?")
    said = make_passage(1, "Ana: I've had them for 3 years now and they bring me joy!", name="Ana")
    assert candidates(a, [said]) == []  # her turn, but nothing says it is of the bikes
    bikes = make_passage(2, "Ana: I've had my bikes for 2 years now.", name="Ana")
    assert [c.value for c in candidates(a, [said, bikes])] == ["2 years"]
    # a tool's turn keeps its name: a question of what was edited is about an Edit call
    b = wanted("how many retries did we edit into the nightly export")  # edit, export, nightly, retries
    call = make_passage(3, "Edit\nfile_path: config/app.yml\nold_string: retries: 3\nnew_string: retries: 5")
    edit = replace(call, kind="tool_call", name="Edit")
    assert [c.value for c in candidates(b, [edit])] == ["5"]  # two of four; what the edit replaced is no candidate


def test_a_test_is_named_as_test_frameworks_name_them_and_a_product_is_not_one() -> None:
    a = wanted("which test did we add so the chart crash doesn't come back")
    fixed = make_passage(
        1, "Chart crash fixed; I added `testDeleteWhileScrubbing` in ChartModelTests so it can't come back."
    )
    shipped = make_passage(2, "the chart crash fix is uploaded to TestFlight, so it won't come back in 2.3.1")
    assert [c.value for c in candidates(a, [shipped])] == []
    assert {c.value for c in candidates(a, [fixed, shipped])} == {"testDeleteWhileScrubbing", "ChartModelTests"}
    go = make_passage(3, "--- FAIL: TestQuotaResetAtMidnight (0.00s): the chart crash is back")
    assert [c.value for c in candidates(a, [go])] == ["TestQuotaResetAtMidnight"]


def test_a_document_is_no_file_where_a_problem_was_unless_a_document_is_asked() -> None:
    runbook = "Edit\nfile_path: alerts/crash-rate.md\nold_string: \nnew_string: # Crash rate: check the qr code screen"
    edit = replace(make_passage(1, runbook), kind="tool_output", name="Edit")
    code = make_passage(2, "the qr code crash is in app/pix/QrCodeFragment.kt, a timer after the view died")
    crash = wanted("which file had the qr code crash")
    assert [c.value for c in candidates(crash, [edit, code])] == ["app/pix/QrCodeFragment.kt"]
    assert [c.value for c in candidates(crash, [edit])] == []
    asked_for = wanted("which file is the postmortem of the qr code crash")
    assert "alerts/crash-rate.md" in [c.value for c in candidates(asked_for, [edit, code])]


def test_what_an_edit_replaced_is_a_candidate_only_when_the_oldest_is_asked() -> None:
    text = 'Edit\nfile_path: config/pools.json\nold_string: "slots": 24\nnew_string: "slots": 12\n→ updated.'
    edit = replace(make_passage(1, text), kind="tool_output", name="Edit")
    assert [c.value for c in candidates(wanted("how many slots does the snowflake pool have"), [edit])] == ["12"]
    first = wanted("how many slots did the snowflake pool have at first")
    assert {c.value for c in candidates(first, [edit])} == {"24", "12"}
    before = wanted("how many slots did the snowflake pool have before the change")
    assert {c.value for c in candidates(before, [edit])} == {"24", "12"}


def test_a_value_set_to_another_as_late_or_later_is_not_told_as_it_is() -> None:
    a = wanted("how many slots does the snowflake pool have")
    has = make_passage(1, "The snowflake pool has 24 slots.", kind="assistant", ts="2026-03-10T07:51:00Z")
    text = 'Edit\nfile_path: config/snowflake_pool.json\nold_string: \nnew_string: "slots": 24\n→ updated.'
    edit = replace(make_passage(2, text, ts="2026-03-01T07:00:00Z"), kind="tool_output", name="Edit")
    now = make_passage(3, "The snowflake pool is now 12 slots.", kind="assistant", ts="2026-03-10T07:58:00Z")
    alone = decide(a, [has, edit])
    assert alone is not None and alone.answer == "24" and alone.confidence >= 0.65  # nothing set since: told
    got = decide(a, [has, edit, now])
    assert got is not None and got.answer == "24" and got.confidence < 0.5  # set to 12 since: not told
    # a question of what it was is not asked as it is now
    was = decide(wanted("how many slots did the snowflake pool have before"), [has, edit, now])
    assert was is not None and was.answer == "24" and was.confidence >= 0.65


def test_the_name_of_the_project_a_passage_was_said_in_is_not_what_it_is_about() -> None:
    """A question of what was done in a project ("did we port the shop app to kotlin") is not about every turn of the
    project for its name: its folder's words count like the speaker's name."""
    a = wanted("what did we decide about porting the shop app to kotlin")
    said = "Swapped the spinner for a skeleton row so the layout does not jump."
    other = replace(make_passage(1, said), about="assistant shop-app re: the spinner", cwd="/home/me/work/shop-app")
    assert candidates(a, [other]) == []  # of the shop app, but not of porting it to kotlin
    port = "We decided against porting to Kotlin: the shared code stays in TypeScript."
    ported = replace(make_passage(2, port), cwd="/home/me/work/shop-app")
    assert [c.value for c in candidates(a, [other, ported])] == [port]


def test_a_count_is_never_a_price_a_duration_or_a_percentage() -> None:
    a = wanted("how many retries does the uploader make")
    text = "The uploader makes 5 retries, waits 30 seconds, costs $12 a month and fails 2% of runs."
    passages = [make_passage(1, text)]
    assert [c.value for c in candidates(a, passages)] == ["5"]


def test_a_sentence_answer_is_one_sentence_though_typed_in_lowercase() -> None:
    """Lowercase typing ("uploader question. right now it stops. i want a retry") is kept as one sentence by the
    splitter; a sentence answer is never more than one of them."""
    said = "uploader question. right now it logs the error and stops. i want it to retry the upload twice"
    found = list(EXTRACTORS["sentence"](make_passage(1, said), said, wanted("why does the uploader stop")))
    assert found == ["right now it logs the error and stops.", "i want it to retry the upload twice"]


def test_a_version_right_after_another_programs_name_is_marked_foreign() -> None:
    a = wanted("what version did we ship for the billing service")
    text = "Upgraded the base image to postgres 16.2.1. We shipped 3.4.0 of the billing service today."
    found = {c.value: c.features for c in candidates(a, [make_passage(1, text, kind="assistant")])}
    assert found["16.2.1"]["foreign"] == 1.0
    assert found["3.4.0"]["foreign"] == 0.0


def test_an_answer_is_a_span_of_its_quote_and_its_quote_of_the_cited_passage() -> None:
    a = wanted("which file had the webhook signature bug")
    passages = [
        make_passage(1, "The signature check in app/hooks/verify.py compares the wrong header.", kind="assistant"),
        make_passage(2, "Fixed the signature bug in app/hooks/verify.py and added a test.", kind="assistant"),
    ]
    got = decide(a, passages)
    assert got is not None
    assert got.answer == "app/hooks/verify.py"
    assert got.answer in got.quote and got.quote in got.cite[0].text
    assert decide(a, passages) == got  # the same passages, the same answer and confidence


def test_a_weak_lone_candidate_stays_under_every_threshold() -> None:
    a = wanted("how long after the release did we roll back")
    passages = [make_passage(i, "Nothing about it here.") for i in range(1, 7)]
    passages.append(make_passage(7, "The query took 11 min on the replica.", kind="assistant"))
    got = decide(a, passages)  # its passage holds none of the question's words: not even a candidate
    assert got is None or got.confidence < 0.5


def test_extractors_are_registered_by_name_and_can_be_switched_off() -> None:
    assert split_ablation("hybrid-no-day") == ("hybrid", frozenset({"day"}))
    assert split_ablation("bm25") == ("bm25", frozenset())
    with pytest.raises(ConfigError, match="no extractor named"):
        split_ablation("hybrid-no-magic")
    a = wanted("when did we turn on the new cache")
    passages = [make_passage(1, "Turned on the new cache for everyone.", kind="assistant")]
    assert {m.extractor for m in mentions(a, passages)} == {"day"}
    assert mentions(a, passages, off=frozenset({"day"})) == []
    assert set(EXTRACTORS) >= {"path", "version", "date", "day", "number", "identifier", "command", "sentence"}


def test_the_shipped_calibration_covers_every_feature_and_never_bars_under_half() -> None:
    cal = calibration()
    assert set(cal.weights) == set(FEATURES)
    for kind in ("path", "version", "date", "count", "identifier", "sentence", "command"):
        assert cal.threshold(kind) >= 0.5


def test_a_command_in_a_shell_block_is_a_candidate_and_a_code_block_is_not() -> None:
    a = wanted("what command rebuilds the search index")
    reply = (
        "To rebuild it against the real data:\n\n```bash\nmake reindex --env staging\n```\n\n"
        "Then `make deploy` when it looks right.\n\n```python\nindex = build(docs)\n```"
    )
    found = {m.value for m in mentions(a, [make_passage(1, reply, kind="assistant")])}
    assert found == {"make reindex --env staging", "make deploy"}
    shown = "It printed:\n\n```console\n$ make reindex\nreindexed 300 documents in 4s\n```"  # a prompt and its output
    assert {m.value for m in mentions(a, [make_passage(1, shown, kind="assistant")])} == {"make reindex"}

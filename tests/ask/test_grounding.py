"""The grounding check: what an answer claims, and whether the cited text says it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vyre_memory.ask.grounding import Evidence, GroundingResult, check, claims, names, passage_evidence, quote_for


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Ines", ["Ines"]),
        ("Your wife is Ines.", ["Ines"]),
        ("Yes. It was Marcus Tran, from finance.", ["Marcus Tran"]),
        ("The Harlow portal login moved to Entra", ["Harlow", "Entra"]),
        ("Switched to uv", []),
        ("Mostly on Tuesdays", ["Tuesdays"]),
        ("a family friend who lives two doors down", []),
        ("It was the Lord of the Rings", ["Lord of the Rings"]),
        ("Dr. Patel", ["Patel"]),
        ("v2.38.2", ["v2.38.2"]),
        ("7 of 50 runs", ["7", "50"]),
        ("$4,200.50 (12%)", ["$4,200.50", "12%"]),
        ("at 3:30", ["3:30"]),
        ("August 22, 2026", ["August 22, 2026"]),
        ("on 22nd of August", ["22nd of August"]),
        ("2026-08-04", ["2026-08-04"]),
        ("Aug. 4", ["Aug. 4"]),
        ("8/22", ["8/22"]),
        ("in June 2026", ["June 2026"]),
        ("app/webhooks/stripe_handler.py", ["app/webhooks/stripe_handler.py"]),
        ("bootstrap.sh and /predict", ["bootstrap.sh", "/predict"]),
        ("LED-1440, pdf_renderer_v2 and RenderQueue", ["LED-1440", "pdf_renderer_v2", "RenderQueue"]),
        ("SECURE_PROXY_SSL_HEADER", ["SECURE_PROXY_SSL_HEADER"]),
        ("an ICU nurse", ["ICU"]),
        ("json.dumps re-serialised the body", ["json.dumps"]),
        ("Ines, Ines and ines", ["Ines"]),
        ("e.g. the 1Gi limit", ["1Gi"]),
        ("", []),
    ],
)
def test_claims_are_the_checkable_pieces(answer: str, expected: list[str]) -> None:
    assert claims(answer) == expected


TEXT = [
    "Sam 2026-08-22 Saturday\nwe deployed v2.38.2 to app/webhooks in stripe_handler.py for 1,200 users; "
    "the car is a CX5; seven of 50 runs failed; LED-1440 is done. marcus  tran agreed. Memory limit 1 GiB, "
    "cost $4200.50, up 12 percent. Ines's birthday.",
]


@pytest.mark.parametrize(
    "answer",
    [
        "Ines",
        "INES",
        "Marcus Tran",
        "2.38.2",
        "v2.38.2",
        "August 22",
        "Aug. 22, 2026",
        "22 August",
        "22nd of August",
        "8/22",
        "2026-08-22",
        "Saturday",
        "In August",
        "app/webhooks/stripe_handler.py",
        "stripe_handler.py",
        "1200",
        "1,200 users",
        "CX-5",
        "7 of 50",
        "7/50",
        "LED-1440",
        "$4,200.50",
        "12%",
        "1 GiB",
        "The answer is yes.",
    ],
)
def test_said_in_any_written_form_is_grounded(answer: str) -> None:
    assert check(answer, TEXT) == GroundingResult(ok=True, missing=[])


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("minSdk 26", True),
        ("minsdkversion 26", True),
        ("SYNC_INTERVAL 45", True),
        ("maxSdk 26", False),
        ("Version 26", False),  # a later hump alone is not the identifier
        ("We used Java", False),  # nor a word inside a name
    ],
)
def test_an_identifier_is_said_by_one_it_begins(answer: str, ok: bool) -> None:
    # an identifier's leading camel-case humps are said in it: "minSdk" in "minSdkVersion"
    text = ["set minSdkVersion to 26 and SYNC_INTERVAL_MS to 45 in JavaScript"]
    assert check(answer, text).ok is ok


@pytest.mark.parametrize(
    ("answer", "missing"),
    [
        ("Jordan", ["Jordan"]),
        ("Ines and Jordan", ["Jordan"]),
        ("Marcus Trane", ["Marcus Trane"]),
        ("v2.38.3", ["v2.38.3"]),
        ("2.38", ["2.38"]),
        ("1,300 users", ["1,300"]),
        ("August 23", ["August 23"]),
        ("22 August 2025", ["22 August 2025"]),
        ("In June", ["June"]),
        ("Sunday", ["Sunday"]),
        ("app/payments/stripe_handler.py", ["app/payments/stripe_handler.py"]),
        ("LED-144", ["LED-144"]),
        ("1Gi", ["1Gi"]),
        ("8 of 50", ["8"]),
    ],
)
def test_not_said_is_missing(answer: str, missing: list[str]) -> None:
    assert check(answer, TEXT) == GroundingResult(ok=False, missing=missing)


def test_number_must_match_whole_not_inside_another() -> None:
    assert not check("7", ["we had 17 failures"]).ok
    assert check("17", ["we had 17 failures"]).ok


def test_nothing_to_check_is_grounded_even_without_text() -> None:
    assert check("a family friend from two doors down", []).ok
    assert not check("Gus", []).ok


def test_evidence_is_reusable_across_answers() -> None:
    ev = Evidence(TEXT)
    assert check("Ines", ev).ok and not check("Jordan", ev).ok


def test_passage_evidence_adds_speaker_date_and_resolves_yesterday() -> None:
    text = passage_evidence("we moved in yesterday", name="Sam", ts="2026-07-19T08:00:00Z")
    assert text == "Sam 2026-07-18 Saturday 2026-07-19 Sunday\nwe moved in yesterday"
    assert check("July 18", [text]).ok and check("Sam", [text]).ok
    assert passage_evidence("plain", ts="not a time") == "plain"
    assert passage_evidence("plain") == "plain"


WORDS = st.sampled_from(
    [
        "Ines",
        "Marcus",
        "Tran",
        "the",
        "fix",
        "v2.38.2",
        "1,200",
        "August",
        "22",
        "2026-08-04",
        "LED-1440",
        "stripe_handler.py",
        "app/x.py",
        "The",
        "It",
        "42%",
        "$5",
        "of",
        "and",
        "CX-5",
        "Aug.",
        "4,",
        "said",
        "7/50",
        "Dr.",
        "e.g.",
        "Yes,",
        "Mila's",
        "3:30",
        "22nd",
        "Switched",
        "v2",
        "0.5",
        "(12%)",
        "June",
        "2026.",
        "8/22",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=12))
def test_an_answer_is_always_grounded_in_its_own_text(words: list[str]) -> None:
    text = " ".join(words)
    assert check(text, [text]).ok, claims(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=12), st.integers(0, 11), st.integers(1, 12))
def test_any_span_of_the_text_is_grounded_in_it(words: list[str], a: int, n: int) -> None:
    text = " ".join(words)
    span = " ".join(words[a : a + n])
    assert check(span, [text]).ok, (span, claims(span))


def test_a_day_said_as_an_ordinal_grounds_the_date_when_the_month_is_named() -> None:
    text = ["closing is july 17, we move the 18th"]
    assert check("July 18", text).ok and check("July 17", text).ok
    assert not check("August 18", text).ok and not check("July 19", text).ok


def test_project_folder_name_is_evidence() -> None:
    text = passage_evidence("pushed the fix", name="Joel", project="ledgerline-api")
    assert check("Ledgerline", [text]).ok


def test_an_aside_starts_a_new_name() -> None:
    assert claims("Marcus Oyelaran (Tidewater ops manager)") == ["Marcus Oyelaran", "Tidewater"]
    assert claims("Two Celery beat schedulers") == ["Celery"]


def test_names_are_the_name_claims_only() -> None:
    assert names("Your wife Dani Reyes moved app/billing/refunds.py to v2.38.2 on August 22 with Marcus") == [
        "Dani Reyes",
        "Marcus",
    ]


def test_the_quote_is_the_sentence_that_grounds_the_answer_even_far_into_a_long_passage() -> None:
    from vyre_memory.ask.grounding import quote_for

    text = "We read the logs for a while and nothing stood out. " * 15 + "The rollback went to v2.40.3 on June 12."
    quote = quote_for("2.40.3 (rolled back on June 12)", text)
    assert quote == "The rollback went to v2.40.3 on June 12."
    assert check("2.40.3 (rolled back on June 12)", [quote]).ok
    opening = quote_for("nothing it holds", text)
    assert len(opening) <= 500 and opening.endswith("…") and text.startswith(opening[:-1])


def test_a_length_of_time_is_grounded_by_the_dates_the_answer_shows_it_between() -> None:
    text = ["hurt my finger on 8 Jan", "first session back on the wall, 24 Feb", "moved 11 Dec, the fix shipped 3 Jan"]
    assert check("about 7 weeks (8 Jan to 24 Feb)", text).ok
    assert check("47 days (8 Jan to 24 Feb)", text).ok
    assert check("23 days (11 Dec to 3 Jan)", text).ok  # into the next year
    assert check("7 weeks (8 Jan to 24 Feb)", ["8 Jan", "24 Feb", "7 weeks"]).ok  # or said outright
    assert check("9 weeks (8 Jan to 24 Feb)", text).missing == ["9 weeks"]
    assert check("about 7 weeks", text).missing == ["7 weeks"]  # no working shown: nothing to check it by
    assert check("7 weeks (8 Jan to 24 Feb)", ["hurt my finger on 8 Jan"]).missing == ["24 Feb", "7 weeks"]


def test_a_weekday_the_text_names_is_resolved_against_its_date() -> None:
    said = passage_evidence("the party is on saturday", ts="2026-03-05T10:00:00Z")  # a Thursday
    assert check("March 7", [said]).ok and check("February 28", [said]).ok  # the one after, or the one before
    assert not check("March 14", [said]).ok
    assert passage_evidence("we sat down", ts="2026-03-05T10:00:00Z") == "2026-03-05 Thursday\nwe sat down"


def test_a_weekday_is_grounded_by_the_day_it_comes_with() -> None:
    said = passage_evidence("sat (jul 11) is the party, no deploys fri", ts="2026-07-08T10:00:00Z")
    assert check("Saturday, July 11", [said]).ok  # 11 July 2026 is a Saturday
    assert check("Friday, July 11", [said]).missing == ["Friday"]
    assert check("Saturday", [said]).missing == ["Saturday"]  # no day to fall on
    assert check("Monday 3 March; Wednesday 5 March", ["deployed 3 march 2025, rolled back 5 march 2025"]).ok
    assert check("Wednesday 3 March", ["deployed 3 march 2025"]).missing == ["Wednesday"]  # 3 March 2025 is a Monday


def test_a_count_is_grounded_by_what_it_lists() -> None:
    texts = ["published 2.2.0 on 10 march", "2.3.0 is out", "and 2.3.1", "ttl lowered from 300 to 120, then 600"]
    assert check("3 versions (2.2.0, 2.3.0 and 2.3.1)", texts).ok
    assert check("3 versions: 2.2.0, 2.3.0, 2.3.1", texts).ok
    assert check("2 times (300 to 120, then 120 to 600)", texts).ok
    assert check("4 versions (2.2.0, 2.3.0 and 2.3.1)", texts).missing == ["4"]  # not what it lists
    assert check("3 versions (2.2.0, 2.3.0 and 2.4.0)", texts).missing == ["3", "2.4.0"]  # one not in the texts
    assert check("3 versions", texts).missing == ["3"]  # nothing listed
    assert check("Sprint 2 (auth, billing)", ["sprint 3 covered auth and billing"]).missing == ["2"]  # a label
    assert check("2 bugs: the login bug and the export bug", ["fixed the login bug"]).missing == ["2"]  # no names


def test_a_time_of_day_is_its_number() -> None:
    assert check("6:30am (9:30 in the office)", ["standup is 6:30 for me now, 9:30 in the office"]).ok
    assert check("7:30am", ["standup is 6:30 for me now"]).missing == ["7:30am"]
    assert check("2am", ["backup runs at 02:00"]).ok and check("7pm", ["dinner at 19:00"]).ok
    assert check("6:30pm", ["cron runs the job at 6:30am"]).missing == ["6:30pm"]  # the other half of the day
    assert check("6pm", ["we were 6 people at standup"]).missing == ["6pm"]
    assert check("9am", ["deploy at 9:00pm"]).missing == ["9am"]  # not the other half's time
    assert check("6.30am", ["standup 6:30am"]).ok


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Near-identical scores, but it is 4x slower", ["4x"]),  # a sentence opening on a compound word
        ("cold-water dipping (winter/ice-water swimming)", []),  # alternatives, not a path
        ("the fix is in app/billing", ["app/billing"]),
        ("X-Forwarded-Proto", ["X-Forwarded-Proto"]),
    ],
)
def test_ordinary_words_are_not_claims(answer: str, expected: list[str]) -> None:
    assert claims(answer) == expected


def test_a_month_and_year_is_grounded_by_the_month_named_in_a_text_of_that_year() -> None:
    assert check("since September 2025", ["2025-12-05 Friday\nthe notebook from september"]).ok
    assert not check("since September 2024", ["2025-12-05 Friday\nthe notebook from september"]).ok


def test_a_difference_is_grounded_by_the_two_values_it_shows() -> None:
    text = ["the rate was 160 an hour", "from january it is 190 an hour"]
    assert check("By 30 an hour (160 to 190)", text).ok
    assert check("By 40 an hour (160 to 190)", text).missing == ["40"]
    assert check("By 30 an hour", text).missing == ["30"]


def test_a_day_and_month_written_with_a_dot_grounds_the_date() -> None:
    text = ["the surgery moved from 15.01 to 3.02 (no beds)", "invoice dated 28.11.2025"]
    assert check("3 February", text).ok and check("January 15", text).ok and check("28 November 2025", text).ok
    assert not check("2 March", text).ok and not check("28 November 2024", text).ok


def test_a_day_and_month_in_figures_grounds_both_readings() -> None:
    text = ["her bday is 11/10, thinking a new lamp"]
    assert check("11 October", text).ok and check("November 10", text).ok and check("October", text).ok
    assert not check("12 October", text).ok and not check("October 10", text).ok


@pytest.mark.parametrize(
    ("said", "day"),
    [("pulling a tooth tmr morning", "July 15"), ("back tmrw", "July 15"), ("deployed yday", "July 13")],
)
def test_a_relative_day_typed_in_shorthand_is_resolved_against_its_date(said: str, day: str) -> None:
    text = passage_evidence(said, name="Sam", ts="2026-07-14T08:00:00Z")
    assert check(day, [text]).ok and not check("July 16", [text]).ok


@pytest.mark.parametrize("said", ["TMR1 overflow interrupt fixed", "set tmr_period to 20ms", "the tmrca estimate"])
def test_a_word_that_begins_like_a_shorthand_day_names_no_day(said: str) -> None:
    text = passage_evidence(said, name="Sam", ts="2026-07-14T08:00:00Z")
    assert not check("July 15", [text]).ok


def test_an_identifier_with_an_english_ending_is_grounded_by_the_identifier() -> None:
    text = ["sumBatch() runs parseFloat on every row of cod_amount"]
    assert check("sumBatch parseFloat-ed each cod_amount", text).ok and check("sumBatch-ing", text).ok
    assert check("parseInt-ed", text).missing == ["parseInt-ed"]
    assert not check("i18n-es", ["the i18n bundle"]).ok  # a locale, not an ending


def test_a_quote_cut_to_its_limit_keeps_every_word_that_grounds_the_answer() -> None:
    first = "The nightly job fans out " + "very heavy queries " * 20 + "across 9 regional tasks at once."
    second = "It collided with 188 jobs of the weekly report " + "in the same window " * 15 + "and OSL ran dry."
    answer = "9 regional tasks collided with 188 report jobs; OSL ran out of retries"
    quote = quote_for(answer, f"{first} {second}", limit=300)
    assert check(answer.replace("ran out of retries", ""), [quote]).ok, quote
    assert "…" in quote and len(quote) < len(first) + len(second)


def test_a_length_of_time_between_impossible_or_leap_days_is_not_an_error() -> None:
    assert check("2 days (30 Feb to 3 Mar)", ["30 Feb", "3 Mar"]).missing == ["2 days"]
    assert check("about 2 weeks (3 Mar to 29 Feb)", ["3 Mar", "29 Feb"]).missing == ["2 weeks"]

"""Source trust: which turns and sentences may yield a personal fact (ADR 0034 amendment 2)."""

from __future__ import annotations

import pytest

from vyre_memory.read.rules import extract
from vyre_memory.read.trust import confirmed_guess, holds_pasted, judge_sentence, judge_turn, own_sentences


def _facts(text: str) -> set[tuple[str, str, str]]:
    return {(c.subject, c.relation, c.object) for c in extract(text)}


# --- turn kinds and session kinds -------------------------------------------------------------


@pytest.mark.parametrize(
    "kind",
    [
        "assistant",
        "thinking",
        "tool_call",
        "tool_output",
        "command",
        "meta",
        "compact_summary",
        "agent_prompt",
        "pasted",
    ],
)
def test_fact_from_any_turn_but_typed_is_never_stored(kind: str) -> None:
    v = judge_turn(kind, "interactive", "my wife ines is at the hospital tonight")
    assert not v.ok
    assert kind in v.reason


def test_typed_turn_in_interactive_session_may_yield_facts() -> None:
    assert judge_turn("typed", "interactive", "my wife ines is on nights this week").ok


def test_fact_from_headless_run_is_never_stored() -> None:
    prompt = "You are running unattended for Sam Ortiz (Senior Engineer). His wife Jordan lives in Leeds."
    assert not judge_turn("typed", "headless", prompt).ok


def test_fact_from_subagent_brief_is_never_stored() -> None:
    brief = "Context: the user lives in Grand Forks with his wife Jordan. Write tests for the scheduler."
    assert not judge_turn("typed", "subagent", brief).ok


def test_fact_from_memory_ask_thread_is_never_stored() -> None:
    assert not judge_turn("typed", "memory", "whats my wife's name again").ok


def test_fact_from_session_building_memory_is_never_stored() -> None:
    assert not judge_turn("typed", "builds_memory", "my wife jordan loves this feature").ok


# --- pasted material ---------------------------------------------------------------------------------

EMAIL = """From: Rita Mendes <rita@harbourco.example>
Subject: Re: April invoice

Hi Sam,

Thanks for the invoice. My husband Marco and I are at the lake house in Ely until Monday, so
payment goes out Tuesday.

Rita"""


def test_fact_from_pasted_email_is_never_stored() -> None:
    assert own_sentences(EMAIL) == []
    assert not judge_turn("typed", "interactive", EMAIL).ok
    assert _facts(EMAIL) == set()


def test_pasted_email_after_own_words_keeps_only_own_sentences() -> None:
    text = "my wife dani says hi. pasting rita's reply below\n\n" + EMAIL
    kept = [s.text for s in own_sentences(text)]
    assert kept == ["my wife dani says hi.", "pasting rita's reply below"]
    assert ("user", "wife", "Dani") in _facts(text)
    assert not any(obj in ("Marco", "Ely") for _, _, obj in _facts(text))
    for s in own_sentences(text):
        assert text[s.span[0] : s.span[1]] == s.text


def test_fact_from_pasted_slack_thread_is_never_stored() -> None:
    thread = """Priya Natarajan  9:14 AM
heads up, two invoices share a number
Dmitri Sokolov  9:20 AM
my wife Svetlana and I are signing the lease on the Oak Park place this morning"""
    assert _facts(thread) == set()
    assert not judge_turn("typed", "interactive", thread).ok


def test_fact_from_bracketed_chat_log_is_never_stored() -> None:
    log = "[10:42] dmitri: my wife lives in oak park now\n[10:43] priya: nice"
    assert _facts(log) == set()


def test_fact_from_quoted_lines_is_never_stored() -> None:
    text = "> my wife jordan grew up in leeds\n> sent from my phone\nok noted"
    assert _facts(text) == set()


def test_fact_from_letter_without_headers_is_never_stored() -> None:
    letter = "Dear Sam,\n\nMy daughter Josie is getting married in Holland.\n\nKind regards,\nTamsin"
    assert _facts(letter) == set()


@pytest.mark.parametrize(
    "letter",
    [
        # a greeting and a closing in languages the rules have no word lists for: their shape says "letter"
        "Guten Tag Frau Brandt,\nmy wife Petra grew up in Tallinn.\nWe would like to book the hall.",
        "my wife Petra grew up in Tallinn.\nWe would like to book the hall.\nUn abrazo,\nBruno Okafor\nOkafor Bikes",
    ],
)
def test_fact_from_letter_in_any_language_is_never_stored(letter: str) -> None:
    assert _facts(letter) == set()


def test_fact_from_email_with_headers_in_another_language_is_never_stored() -> None:
    email = "Von: oskar@lind-bikes.example\n\nmy wife Petra grew up in Tallinn.\nthe shop opens at nine."
    assert _facts(email) == set()


def test_own_message_opening_with_a_long_clause_is_still_own() -> None:
    text = "so the deploy finally went through today, after three tries,\nmy wife petra grew up in tallinn\nok"
    assert ("user", "grew_up_in", "Tallinn") in _facts(text)


def test_message_announced_as_paste_is_never_stored() -> None:
    paste = "Great meeting you. My wife Renata and I live above the shop in Bałuty, so I see the waste daily."
    v = judge_turn("typed", "interactive", paste, previous_text="pasting jacek's email for context")
    assert not v.ok


# --- code, fixtures, docs ------------------------------------------------------------------------------


def test_fact_from_test_fixture_json_is_never_stored() -> None:
    fixture = '{"name": "Jordan", "relation": "wife", "city": "Leeds"}'
    assert not judge_turn("typed", "interactive", fixture).ok
    assert _facts(fixture) == set()


def test_fact_from_factory_or_sample_text_is_never_stored() -> None:
    for text in (
        "the factory makes a user whose wife is named Jordan",
        "sample data: my wife jordan lives in leeds",
        "use a fake user, e.g. my wife jordan",
        "lorem ipsum my wife jordan",
    ):
        assert _facts(text) == set(), text


def test_fact_from_code_block_is_never_stored() -> None:
    text = "why does this fail\n```python\nwife = Person(name='Jordan')  # my wife jordan\n```"
    assert _facts(text) == set()


def test_fact_from_stack_trace_is_never_stored() -> None:
    text = 'Traceback (most recent call last):\n  File "family.py", line 3\nValueError: my wife jordan not found'
    assert _facts(text) == set()


def test_fact_from_yaml_or_sql_is_never_stored() -> None:
    assert _facts("user:\n  name: jordan\n  wife: jordan\n  city: leeds") == set()
    assert _facts("SELECT name FROM people WHERE relation = 'wife'") == set()


def test_fact_from_markdown_doc_is_never_stored() -> None:
    assert _facts("# Persona\nMy wife Jordan lives in Leeds and I drive a Honda Civic.") == set()


# --- sentence rules -------------------------------------------------------------------------------------------


def test_fact_from_quote_of_someone_else_is_never_stored() -> None:
    assert not judge_sentence("my boss said 'my wife hates that'").ok
    assert _facts("my boss said 'my wife hates that'") == set()
    assert _facts("dmitri told me his wife jordan moved to leeds") == set()


def test_fact_from_hypothetical_is_never_stored() -> None:
    assert not judge_sentence("if i lived in berlin i'd cycle everywhere").ok
    assert not judge_sentence("imagine my wife was called maria").ok
    assert _facts("if i lived in berlin i'd cycle everywhere") == set()


def test_fact_from_negation_is_never_stored() -> None:
    text = "i don't have a dog, that was my neighbour's"
    assert not judge_sentence(text).ok
    assert _facts(text) == set()
    assert _facts("lol not my husband, it's my dad") == set()


def test_fact_from_question_is_never_stored() -> None:
    assert not judge_sentence("is my wife's name dani?").ok
    assert not judge_sentence("whats my sister hanna's husband called").ok
    assert _facts("is my wife's name dani?") == set()


def test_fact_from_joke_is_never_stored() -> None:
    assert not judge_sentence("lol my wife is the codebase").ok
    assert not judge_sentence("my wife is dani jk").ok
    assert _facts("my wife is the codebase") == set()


def test_plain_statement_passes_sentence_rules() -> None:
    assert judge_sentence("have to pick up dani, my wife, at 5").ok
    assert judge_sentence("use polars not pandas pls").ok


# --- confirmation of an assistant's guess -------------------------------------------------------------------------


def test_assistant_guess_confirmed_by_the_person_becomes_their_fact() -> None:
    sentences = confirmed_guess("Is your wife's name Maria?", "yes, maria")
    assert sentences
    facts = {(c.subject, c.relation, c.object) for s in sentences for c in extract(s.text)}
    assert ("user", "wife", "Maria") in facts


def test_bare_yes_confirms_a_single_guess() -> None:
    assert confirmed_guess("Sounds like your dog Kumo needs a walk.", "yep")


def test_assistant_guess_corrected_by_the_person_is_never_stored() -> None:
    assert confirmed_guess("Wishing your husband a smooth recovery.", "lol not my husband, it's my dad") == []
    assert confirmed_guess("Is Ines your sister?", "no, she's my wife") == []
    assert confirmed_guess("Is your wife's name Maria?", "yes but it's Marta actually") == []


def test_assistant_statement_without_reply_confirmation_is_never_stored() -> None:
    assert confirmed_guess("Happy birthday to your sister!", "thx. see you monday") == []


def test_fact_from_letter_ending_in_a_signature_is_never_stored() -> None:
    letter = (
        "Great talking on Friday. My wife Renata and I started the bakery in 1998 and we live above the shop.\n\n"
        "Looking forward to the numbers.\n\nJacek Sowa\nPiekarnie Gryf"
    )
    assert own_sentences(letter) == []
    assert _facts(letter) == set()


def test_fact_from_speaker_prefixed_chat_is_never_stored() -> None:
    chat = "dmitri: my wife svetlana and i live in oak park now\npriya: congrats!"
    assert _facts(chat) == set()


def test_fact_from_a_chat_of_bracketed_names_is_never_stored() -> None:
    # "[Name] words" lines, as a chat app copies them: two of them make a pasted chat, one with its time too
    thread = (
        "good weekend, my son tomas turned five. pasting the thread:\n\n"
        "[Priya Natarajan] my wife svetlana and i live in oak park now\n[Dmitri Sokolov] congrats!"
    )
    assert _facts(thread) == {("user", "son", "Tomas")}
    assert [s.text for s in own_sentences(thread)][-1] == "pasting the thread:"
    one = "from slack:\n[Priya Natarajan] 9:02 AM my wife svetlana and i live in oak park now"
    assert _facts(one) == set() and holds_pasted(one)
    # the person's own bracketed tags are no chat, even beside a "name:" line or with a time
    for own in (
        "[WIP] my wife svetlana starts monday. fix the flaky test first",
        "[WIP] my wife svetlana starts monday\nnote: fix the flaky test first",
        "[WIP] refactor auth\n[TODO] my wife svetlana starts monday",
        "[Reminder] 9:30 call the school about my son tomas",
    ):
        assert any("my " in s.text for s in own_sentences(own)), own


def test_letter_between_rule_lines_is_pasted_and_own_words_after_it_are_kept() -> None:
    text = (
        "the sensor on the north roof drops out again. odile's mail:\n\n---\n"
        "Hi Ines, sorry for the silence, my brother Lazare moved to Nantes and I helped all week. "
        "The north roof unit reboots every night.\nOdile\n---\n\n"
        "so she wants a new unit. my sister tove can drop it off"
    )
    kept = [s.text for s in own_sentences(text)]
    assert kept == [
        "the sensor on the north roof drops out again.",
        "odile's mail:",
        "so she wants a new unit.",
        "my sister tove can drop it off",
    ]
    facts = _facts(text)
    assert ("user", "sister", "Tove") in facts
    assert not any(obj == "Lazare" for _, _, obj in facts)


def test_rule_line_without_an_introduction_is_own_markdown() -> None:
    text = "my brother lazare visits friday\n---\nthe roof unit reboots every night"
    assert [s.text for s in own_sentences(text)] == [
        "my brother lazare visits friday",
        "the roof unit reboots every night",
    ]


def test_letter_greeting_someone_by_name_below_the_first_line_is_pasted() -> None:
    text = "the export broke again, see below\nHi Ines, my brother Lazare says the export is empty. Odile"
    assert [s.text for s in own_sentences(text)] == ["the export broke again, see below"]
    assert not any(obj == "Lazare" for _, _, obj in _facts(text))


def test_greeting_the_assistant_by_name_below_the_first_line_is_own() -> None:
    text = "ok, next thing\nhey claude, my brother lazare visits friday so i'm off"
    assert ("user", "brother", "Lazare") in _facts(text)


def test_a_possessed_word_is_never_a_name() -> None:
    text = "no deploys after 5pm — okonkwo's rule (he's my manager, and he means it)"
    facts = _facts(text)
    assert ("user", "boss", "Okonkwo") in facts
    assert not any("Rule" in (subj.title(), obj) for subj, _, obj in facts)


def test_own_context_line_with_a_colon_is_kept() -> None:
    text = "context: gus is an old family friend, he lived two doors down from us in grand rapids when i was growing up"
    assert ("user", "family_friend", "Gus") in _facts(text)


def test_confirmed_facts_come_from_the_guess_and_corrections_give_none() -> None:
    from vyre_memory.read.rules import confirmed_facts

    facts = confirmed_facts("Is your wife's name Maria?", "yes, maria")
    assert [(c.subject, c.relation, c.object) for c in facts] == [("user", "wife", "Maria")]
    assert all(c.confidence <= 0.6 for c in facts)
    assert confirmed_facts("Is your wife's name Maria?", "no, she's my sister") == []
    assert confirmed_facts("Wishing your husband a smooth recovery.", "lol not my husband, it's my dad") == []

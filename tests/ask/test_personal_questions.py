"""The fast path's question rules and lookup over personal facts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vyre_memory.ask.personal_questions import KnownFact, answer_personal, parse_personal_question


def F(subject: str, relation: str, obj: str, conf: float = 0.7, ts: str = "2026-01-01") -> KnownFact:  # noqa: N802
    return KnownFact(subject, relation, obj, conf, ts)


@pytest.mark.parametrize(
    ("question", "relation", "subject"),
    [
        ("what's my wife's name", "wife", "user"),
        ("whats my wife called?", "wife", "user"),
        ("what's my daughter's name", "daughter", "user"),
        ("who's my manager", "boss", "user"),
        ("where do i live now", "lives_in", "user"),
        ("what car do i drive", "car", "user"),
        ("what's my dog called", "pet", "user"),
        ("what kind of animal is kumo", "pet_kind", "kumo"),
        ("who's mila's teacher", "teacher", "mila"),
        ("where does theo go to preschool", "school", "theo"),
        ("when is my son's birthday", "birthday", "user"),
        ("what does iza do for a living?", "occupation", "iza"),
        ("what's my current role at work", "job_title", "user"),
        ("what is my position at work", "job_title", "user"),
        ("where did i grow up", "grew_up_in", "user"),
        ("what night do i usually go climbing", "schedule", "climbing"),
        ("which python package manager do i like to use", "likes", "user"),
        ("where did i spend christmas?", "holiday_in", "christmas"),
        ("what's my sourdough starter called", "called", "starter"),
    ],
)
def test_personal_question_maps_to_lookup(question: str, relation: str, subject: str) -> None:
    q = parse_personal_question(question)
    assert q is not None
    assert q.relation == relation
    assert q.subject == subject


def test_who_is_name_is_a_reverse_lookup() -> None:
    q = parse_personal_question("who is dani")
    assert q is not None and q.reverse == "dani"
    q = parse_personal_question("how do i know bram")
    assert q is not None and q.reverse == "bram"
    # "who did X <verb>" asks whom X did something to: never who X is
    assert parse_personal_question("who did dani hire") is None
    assert parse_personal_question("who did dani marry") is None
    assert parse_personal_question("who will marry us") is None
    for question in ("who would dani recommend", "who has dani hired", "who is dani dating"):
        assert parse_personal_question(question) is None, question
    q = parse_personal_question("who is li ming")
    assert q is not None and q.reverse == "li ming"


def test_where_does_my_sister_live_chains_through_the_sister() -> None:
    q = parse_personal_question("where does my sister live")
    assert q is not None and q.via == ("sister",) and q.relation == "lives_in"
    facts = [F("user", "sister", "Hanna"), F("hanna", "lives_in", "Denver", 0.5)]
    ans = answer_personal(q, facts)
    assert ans is not None and "Denver" in ans.text


@pytest.mark.parametrize(
    "question", ["what's my role in the incident", "what is the title of the pr", "what position is the slider in"]
)
def test_a_role_or_title_of_the_work_is_no_job(question: str) -> None:
    assert parse_personal_question(question) is None


@pytest.mark.parametrize(
    "question", ["what day did we actually move", "which day did my sister move", "what date did we move in"]
)
def test_a_time_asked_for_is_never_a_place(question: str) -> None:
    # "what day" asks as "when" does: the place the person lives is not its answer
    assert parse_personal_question(question) is None


def test_what_day_still_asks_for_a_birthday() -> None:
    q = parse_personal_question("what day is my birthday")
    assert q is not None and q.relation == "birthday"


@pytest.mark.parametrize(
    "question",
    [
        "which file had the stripe refund bug",
        "what did we decide about the harlow portal login",
        "when did we deploy invoice-renderer to prod",
        "who ran the pen test in august",
        "what version of the api did we ship yesterday",
        "how much did we pay for the mazda",
    ],
)
def test_work_question_is_not_personal(question: str) -> None:
    assert parse_personal_question(question) is None


def test_answer_uses_template_and_fact() -> None:
    q = parse_personal_question("what's my wife's name")
    assert q is not None
    ans = answer_personal(q, [F("user", "wife", "Ines")])
    assert ans is not None and ans.text == "Your wife is Ines." and ans.value == "Ines"


def test_newest_value_wins_for_a_changing_fact() -> None:
    q = parse_personal_question("where do i live")
    assert q is not None
    facts = [F("user", "lives_in", "Logan Square", ts="2026-05-01"), F("user", "lives_in", "Evanston", ts="2026-08-01")]
    ans = answer_personal(q, facts)
    assert ans is not None and ans.value == "Evanston"


def test_who_someone_is_needs_confidence_point_six() -> None:
    q = parse_personal_question("who is ines")
    assert q is not None
    assert answer_personal(q, [F("user", "wife", "Ines", 0.55)]) is None
    ans = answer_personal(q, [F("user", "wife", "Ines", 0.55), F("user", "wife", "Ines", 0.45)])
    assert ans is not None and "wife" in ans.text


def test_contested_one_valued_relation_abstains() -> None:
    q = parse_personal_question("what's my wife's name")
    assert q is not None
    assert answer_personal(q, [F("user", "wife", "Ines"), F("user", "wife", "Carol", 0.6)]) is None


def test_pet_of_another_kind_never_answers() -> None:
    q = parse_personal_question("what's my cat's name")
    assert q is not None
    facts = [F("user", "pet", "Kumo"), F("kumo", "pet_kind", "dog")]
    assert answer_personal(q, facts) is None
    q = parse_personal_question("what's my dog's name")
    assert q is not None
    ans = answer_personal(q, facts)
    assert ans is not None and ans.value == "Kumo"


def test_first_name_alone_does_not_pick_a_full_named_colleague() -> None:
    q = parse_personal_question("who is marcus")
    assert q is not None
    assert answer_personal(q, [F("marcus tran", "occupation", "billing PM", 0.6)]) is None
    q = parse_personal_question("who is marcus tran")
    assert q is not None
    assert answer_personal(q, [F("marcus tran", "occupation", "billing PM", 0.6)]) is not None


def test_daughter_needs_gendered_evidence() -> None:
    q = parse_personal_question("what's my daughter's name")
    assert q is not None
    assert answer_personal(q, [F("user", "child", "Theo", 0.45), F("user", "child", "Theo", 0.45)]) is None
    ans = answer_personal(q, [F("user", "child", "Mila", 0.45), F("user", "daughter", "Mila", 0.55)])
    assert ans is not None and ans.value == "Mila"


def test_tool_preference_is_filtered_by_category() -> None:
    q = parse_personal_question("which dataframe library do i prefer?")
    assert q is not None
    ans = answer_personal(q, [F("user", "likes", "uv", 0.55), F("user", "likes", "polars", 0.55)])
    assert ans is not None and ans.value == "polars"


def test_no_facts_means_no_answer() -> None:
    q = parse_personal_question("what's our realtor's name")
    assert q is None or answer_personal(q, []) is None


# --- end to end over a small unseen world: trust + reader + fast path -----------------------------------------

_WORLD = [
    ("typed", "interactive", "2026-01-06", "my husband rafael is making paella tonight so i need to finish by 6"),
    ("typed", "interactive", "2026-01-07", "pasting the email from our client"),
    (
        "typed",
        "interactive",
        "2026-01-07",
        "From: Olga Brandt <olga@brandt.example>\nSubject: invoices\n\nHi Nora,\nMy husband Klaus and I moved to "
        "Hamburg last month so the address changed.\n\nBest,\nOlga",
    ),
    ("typed", "interactive", "2026-01-08", "quick one before standup. we live in utrecht now, the commute is fine"),
    ("typed", "interactive", "2026-01-09", "have to take biscuit to the vet at 4, he ate a whole sock again"),
    ("typed", "interactive", "2026-01-10", "our dog biscuit is fine btw"),
    ("typed", "headless", "2026-01-10", "You are running unattended for Nora. Her husband Pieter lives in Rotterdam."),
    ("typed", "subagent", "2026-01-10", "Context: Nora lives in Groningen with her cat Mochi."),
    ("assistant", "interactive", "2026-01-11", "Hope your cat Biscuit feels better!"),
    ("typed", "interactive", "2026-01-12", "sem (he's 8) has a school trip friday. his teacher is juf anke"),
    ("typed", "interactive", "2026-01-13", "[09:12] jeroen: my wife lotte says the build is red\n[09:13] nora: on it"),
    ("typed", "interactive", "2026-01-14", "if i lived in berlin i'd bike everywhere"),
    (
        "typed",
        "interactive",
        "2026-01-15",
        "my sister femke and her husband joost are visiting from ghent this weekend",
    ),
    ("typed", "interactive", "2026-01-16", "sold the old golf, picked up a used skoda octavia estate on saturday"),
    (
        "typed",
        "interactive",
        "2026-01-17",
        'test fixture for signup: {"name": "Jordan", "spouse": "Alex", "city": "Leeds"}',
    ),
    ("typed", "interactive", "2026-01-18", "my manager is called ingrid, she wants the report by friday"),
    ("typed", "interactive", "2026-01-19", "thursdays are swimming night for me"),
    ("typed", "interactive", "2026-01-21", "emma, my daughter, starts at de regenboog next week"),
    ("typed", "memory", "2026-01-22", "what's my husband's name"),
    ("assistant", "memory", "2026-01-22", "Your husband is Pieter."),
]


def _world_facts() -> list[KnownFact]:
    from vyre_memory.read.rules import extract
    from vyre_memory.read.trust import judge_turn

    facts: list[KnownFact] = []
    prev: str | None = None
    for kind, session_kind, ts, text in _WORLD:
        if kind != "typed":
            continue
        verdict = judge_turn(kind, session_kind, text, previous_text=prev)
        prev = text
        if verdict.ok:
            facts.extend(KnownFact(c.subject, c.relation, c.object, c.confidence, ts) for c in extract(text))
    return facts


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what's my husband's name", "Rafael"),
        ("where do i live", "Utrecht"),
        ("what's my dog's name", "Biscuit"),
        ("what kind of animal is biscuit", "dog"),
        ("who is sem's teacher", "Anke"),
        ("where does my sister live", "Ghent"),
        ("what car do i drive", "Skoda"),
        ("who's my manager", "Ingrid"),
        ("what night do i go swimming", "thursday"),
        ("what's my daughter's name", "Emma"),
        ("who is rafael", "husband"),
        ("what's my cat's name", None),
        ("what's my wife's name", None),
        ("who is klaus", None),
        ("who is jordan", None),
        ("who is pieter", None),
    ],
)
def test_unseen_world_answers_from_own_words_and_never_from_traps(question: str, expected: str | None) -> None:
    q = parse_personal_question(question)
    assert q is not None
    ans = answer_personal(q, _world_facts())
    if expected is None:
        assert ans is None
    else:
        assert ans is not None and expected.lower() in ans.text.lower()
    if ans is not None:
        for trap in (
            "Klaus",
            "Hamburg",
            "Pieter",
            "Rotterdam",
            "Groningen",
            "Mochi",
            "Lotte",
            "Berlin",
            "Jordan",
            "Leeds",
        ):
            assert trap not in ans.text


def test_who_is_a_full_name_reads_a_first_name_mention_of_the_only_person_so_named() -> None:
    facts = [F("user", "colleague", "Owen", 0.5), F("user", "colleague", "Owen Pratt", 0.55)]
    q = parse_personal_question("who is owen pratt")
    assert q is not None
    got = answer_personal(q, facts)
    assert got is not None and got.text == "Owen Pratt is your colleague." and got.confidence >= 0.6


def test_who_is_a_full_name_ignores_a_first_name_two_people_share() -> None:
    facts = [F("user", "colleague", "Owen", 0.5), F("user", "colleague", "Owen Pratt", 0.55)]
    facts.append(F("user", "friend", "Owen Lake", 0.7))
    q = parse_personal_question("who is owen pratt")
    assert q is not None
    assert answer_personal(q, facts) is None


def test_how_old_reads_the_newest_age_of_the_relative() -> None:
    q = parse_personal_question("how old did my dad turn this month?")
    assert q is not None and (q.relation, q.via) == ("age", ("father",))
    facts = [
        F("user:father", "age", "turns 79", 0.6, "2025-03-01"),
        F("user:father", "age", "turns 80", 0.6, "2026-02-01"),
    ]
    got = answer_personal(q, facts)
    assert got is not None and got.text == "Your father turns 80."


def test_grade_abstains_without_a_grade_fact() -> None:
    q = parse_personal_question("what grade is mila in now")
    assert q is not None and (q.relation, q.subject) == ("grade", "mila")
    assert answer_personal(q, [F("mila", "teacher", "Mr Delgado")]) is None
    got = answer_personal(q, [F("mila", "grade", "2nd grade", 0.6)])
    assert got is not None and got.text == "Mila is in 2nd grade."


# --- the grammar over a fresh paraphrase set ----------------------------------------------------------------

_PARAPHRASES = json.loads((Path(__file__).parent / "personal_paraphrases.json").read_text())["questions"]


def _parsed_as_expected(entry: dict[str, Any]) -> bool:
    q = parse_personal_question(entry["question"])
    if entry.get("personal") is False:
        return q is None
    if q is None:
        return False
    if "reverse" in entry:
        return q.reverse == entry["reverse"]
    return (q.reverse, q.subject, list(q.via), q.relation, q.kind) == (
        None,
        entry["subject"],
        entry["via"],
        entry["relation"],
        entry.get("kind"),
    )


def test_paraphrase_set_is_large_and_fresh() -> None:
    personal = [e for e in _PARAPHRASES if e.get("personal") is not False]
    assert len(personal) >= 150
    assert len({e["question"] for e in _PARAPHRASES}) == len(_PARAPHRASES)


def test_paraphrases_parse_at_least_ninety_percent_right() -> None:
    wrong = [e["question"] for e in _PARAPHRASES if not _parsed_as_expected(e)]
    assert len(wrong) <= 0.1 * len(_PARAPHRASES), wrong


def test_no_work_or_unanswerable_paraphrase_parses_as_personal() -> None:
    parsed = [e["question"] for e in _PARAPHRASES if e.get("personal") is False and not _parsed_as_expected(e)]
    assert parsed == []


@pytest.mark.parametrize(
    ("question", "via", "relation"),
    [
        ("what's the name of my daughter's teacher", ("daughter",), "teacher"),
        ("which school does my son attend", ("son",), "school"),
        ("where's my brother living these days", ("brother",), "lives_in"),
        ("what city does my mother live in", ("mother",), "lives_in"),
        ("what name does my wife go by", (), "wife"),
        ("what is my spouse called", (), "spouse"),
    ],
)
def test_close_paraphrases_of_common_questions_parse(question: str, via: tuple[str, ...], relation: str) -> None:
    q = parse_personal_question(question)
    assert q is not None and (q.subject, q.via, q.relation) == ("user", via, relation)


# --- answering from the parse: only what the facts hold ---------------------------------------------------


def _answer(question: str, facts: list[KnownFact]) -> str | None:
    q = parse_personal_question(question)
    assert q is not None, question
    got = answer_personal(q, facts)
    return None if got is None else got.text


def test_a_spouse_question_finds_a_stored_wife_or_husband() -> None:
    assert _answer("what is my spouse called", [F("user", "wife", "Solveig")]) == "Your spouse is Solveig."
    assert _answer("who am i married to", [F("user", "husband", "Arvid")]) == "Your spouse is Arvid."
    assert _answer("what's my partner's name", [F("user", "partner", "Noor")]) == "Your spouse is Noor."


def test_a_spouse_question_abstains_when_wife_and_husband_disagree() -> None:
    assert _answer("who is my spouse", [F("user", "wife", "Solveig"), F("user", "husband", "Arvid")]) is None


def test_a_wife_question_never_reads_a_partner_fact() -> None:
    assert _answer("what's my wife's name", [F("user", "partner", "Noor")]) is None


def test_a_street_address_is_never_answered_with_a_city() -> None:
    assert _answer("what's my home address", [F("user", "lives_in", "Tampere")]) is None
    got = _answer("what's my address", [F("user", "lives_in", "Tampere"), F("user", "lives_in", "14 Alder Row")])
    assert got == "You live in 14 Alder Row."


def test_who_is_someone_is_only_a_relation_the_facts_hold() -> None:
    assert _answer("who is odile", [F("odile", "lives_in", "Nantes"), F("user", "friend", "Wren")]) is None
    assert _answer("how do i know odile", [F("user", "cousin", "Odile", 0.7)]) == "Odile is your cousin."


def test_a_chain_follows_each_relation_from_the_person() -> None:
    facts = [F("user", "wife", "Solveig"), F("solveig", "brother", "Tarjei", 0.6)]
    assert _answer("what's my wife's brother's name", facts) == "Your wife's brother is Tarjei."
    facts = [F("user", "sister", "Liv"), F("liv", "husband", "Bo", 0.6), F("bo", "lives_in", "Malmö", 0.6)]
    assert _answer("where does my sister's husband live", facts) == "Your sister's husband lives in Malmö."
    assert _answer("who is liv married to", facts) == "Liv's spouse is Bo."


def test_an_unnamed_relative_is_found_by_the_relation() -> None:
    facts = [F("user:daughter", "teacher", "Ms Okafor", 0.6), F("user:mother", "lives_in", "Cork", 0.6)]
    assert _answer("what's the name of my daughter's teacher", facts) == "Your daughter's teacher is Ms Okafor."
    assert _answer("what city does my mum live in", facts) == "Your mother lives in Cork."


def test_a_chain_that_reaches_two_people_abstains() -> None:
    facts = [
        F("user", "son", "Pip", 0.6),
        F("user", "daughter", "Fenna", 0.6),
        F("pip", "school", "Hillside Primary", 0.6),
    ]
    assert _answer("what school does my kid go to", facts) is None
    assert _answer("what school does my son go to", facts) == "Your son goes to Hillside Primary."


def test_a_pet_question_reads_only_pets_of_that_kind() -> None:
    facts = [
        F("user", "pet", "Mango"),
        F("mango", "pet_kind", "cat"),
        F("user", "pet", "Rolo"),
        F("rolo", "pet_kind", "dog"),
    ]
    assert _answer("what's the dog called", facts) == "Your dog is Rolo."
    assert _answer("what's the name of our cat", facts) == "Your cat is Mango."


def test_fast_path_answers_paraphrases_from_the_persons_own_words(tmp_path: Path) -> None:
    from tests.conftest import typed_line

    from vyre_memory import Memory

    projects = tmp_path / "projects" / "-home-me-code-x"
    projects.mkdir(parents=True)
    session = "11111111-2222-4333-8444-555555555555"
    said = [
        "my wife solveig and i are repainting the hallway this weekend",
        "my sister liv lives in malmö now, she moved in march",
        "we live in tampere, the commute is fine",
    ]
    lines = [
        typed_line(session, f"aaaaaaaa-bbbb-4ccc-8ddd-{i:012d}", text, f"2026-05-0{i + 1}T10:00:00Z")
        for i, text in enumerate(said)
    ]
    (projects / f"{session}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([tmp_path / "projects"])
        spouse = mem.answer("what is my spouse called")
        assert spouse.answer == "Your spouse is Solveig." and spouse.via == "fact"
        assert [s.quote for s in spouse.sources] == ["my wife solveig and i are repainting the hallway this weekend"]
        sister = mem.answer("where's my sister living these days")
        assert sister.answer is not None and "Malmö" in sister.answer
        assert mem.answer("who is liv").answer == "Liv is your sister."
        street = mem.answer("what's my home address")
        assert street.abstained and street.answer is None
        other = mem.answer("where does wren's wife live")
        assert other.abstained and not any("Your wife" in k for k in other.known)


def test_a_plural_question_names_everyone_in_the_group() -> None:
    facts = [F("user", "son", "Pip", 0.6), F("user", "daughter", "Fenna", 0.6)]
    assert _answer("what are my kids' names", facts) == "Your kids: Pip and Fenna."
    facts = [F("user", "mother", "Ilse"), F("user", "father", "Kofi")]
    assert _answer("what are my parents called", facts) == "Your parents: Ilse and Kofi."

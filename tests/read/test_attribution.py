"""Who said what: read from the person's own sentences, kept apart from facts, answered by the fast path."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import typed_line

from vyre_memory import Memory
from vyre_memory.read.attribution import attributions

_typed = typed_line


def _world(tmp_path: Path) -> Path:
    lines = [
        (
            "u-1",
            "anyway: OPS-77 — lena reports /export 502s since monday, she thinks it's the proxy",
            "/home/me/code/atlas",
        ),
        ("u-2", "bruno pushed hard for kafka in the design review. we go with kafka", "/home/me/code/atlas"),
        ("u-3", "audit report came in from redfield. tomas varga ran it.", "/home/me/code/atlas"),
        ("u-4", "if lena asked for dark mode we would add it", "/home/me/code/atlas"),
    ]
    out = tmp_path / "projects"
    for i, (uuid, text, cwd) in enumerate(lines):
        session = f"00000000-0000-4000-8000-00000000000{i}"
        folder = out / cwd.replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session}.jsonl").write_text(_typed(session, uuid, text, f"2026-05-0{i + 1}T10:00:00Z", cwd) + "\n")
    return out


def test_attribution_is_the_name_before_a_reporting_verb_and_the_words_after_it() -> None:
    got = attributions("anyway: OPS-77 — lena reports /export 502s since monday. dry run for tomorrow please")
    assert [(c.subject, c.relation, c.object) for c in got] == [("lena", "said", "reports /export 502s since monday")]
    assert all(c.object in c.quote for c in got)


def test_no_attribution_from_a_hypothetical_a_negation_or_a_noun_phrase() -> None:
    assert attributions("if lena asked for dark mode we would add it") == []
    assert attributions("lena never asked for dark mode") == []
    assert attributions("the weekly report flags nothing, holiday flag is set") == []


def test_a_pronoun_object_quotes_the_sentence_before() -> None:
    (got,) = attributions("audit report came in from redfield. tomas varga ran it.")
    assert (got.subject, got.object) == ("tomas varga", "ran it")
    assert got.quote == "audit report came in from redfield. tomas varga ran it."


def test_who_reported_is_answered_from_the_persons_words_and_never_becomes_a_fact(tmp_path: Path) -> None:
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([_world(tmp_path)])
        assert not [f for f in mem.facts() if f.relation == "said"]
        res = mem.answer("who reported the /export 502s?")
        assert (res.answer, res.via, res.abstained) == ("Lena.", "fact", False)
        assert res.confidence >= 0.6 and [s.uuid for s in res.sources] == ["u-1"]
        assert mem.answer("who pushed for kafka").answer == "Bruno."
        assert mem.answer("who ran the audit").answer == "Tomas Varga."


def test_who_said_abstains_without_a_matching_report_or_for_an_agent(tmp_path: Path) -> None:
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([_world(tmp_path)])
        assert mem.answer("who asked for dark mode").abstained
        assert mem.answer("who reported the login timeouts").abstained
        assert mem.answer("who reported the /export 502s", agent_projects=["/home/me/code/atlas"]).abstained
        assert mem.answer("who reported the /export 502s", project_cwds=["/home/me/code/other"]).abstained
        assert not mem.answer("who reported the /export 502s", project_cwds=["/home/me/code/atlas"]).abstained


def test_what_was_heard_in_a_conversation_is_quoted_with_the_sentences_after_it() -> None:
    (got,) = attributions(
        "evening. talked to ada ng on the phone today. the drivers only check sms. so we drop the app"
    )
    assert (got.subject, got.object) == ("ada ng", "talked to ada ng on the phone today")
    assert got.quote.startswith("talked to ada ng") and "only check sms" in got.quote
    assert attributions("talked to my manager about it") == []


def test_people_named_together_are_each_a_reporter_and_a_no_in_what_was_said_is_kept() -> None:
    got = attributions("kim park and ravi both asked for page numbers on invoices")
    assert {(c.subject, c.object) for c in got} == {
        ("kim park", "asked for page numbers on invoices"),
        ("ravi", "asked for page numbers on invoices"),
    }
    (said,) = attributions("ok fine, async. ravi said in standup a spinner is no problem")
    assert (said.subject, said.object) == ("ravi", "said in standup a spinner is no problem")
    assert attributions("ravi didnt ask for page numbers") == []


def test_surname_is_the_one_full_name_written_in_scope_and_a_shared_first_name_is_never_resolved(
    tmp_path: Path,
) -> None:
    world = _world(tmp_path)
    folder = world / "-home-me-code-bakery"
    folder.mkdir(parents=True)
    session = "00000000-0000-4000-8000-000000000009"
    line = _typed(
        session, "u-9", "bakery: lena kowal wrote on whatsapp, pasting", "2026-05-09T10:00:00Z", "/home/me/code/bakery"
    )
    (folder / f"{session}.jsonl").write_text(line + "\n")
    (world / "-home-me-code-atlas" / "extra.jsonl").write_text(
        _typed(
            "00000000-0000-4000-8000-000000000010",
            "u-10",
            "lena marsh says the 502s are gone",
            "2026-05-10T10:00:00Z",
            "/home/me/code/atlas",
        )
        + "\n"
    )
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([world])
        assert mem.resolve_aliases("what's lena's surname") == "what's lena's surname"
        assert mem.answer("what's lena's surname").abstained
        res = mem.answer("what's lena's surname", project_cwds=["/home/me/code/bakery"])
        assert (res.answer, res.via) == ("Lena Kowal.", "fact") and [s.uuid for s in res.sources] == ["u-9"]
        assert mem.answer("what's bruno's last name").abstained


def _said(tmp_path: Path, lines: list[tuple[str, str, str]]) -> Path:
    """A folder of projects holding one session of the person's typed `lines` (uuid, text, timestamp)."""
    folder = tmp_path / "projects" / "-home-me-code-atlas"
    folder.mkdir(parents=True)
    session = "00000000-0000-4000-8000-000000000021"
    text = "".join(_typed(session, u, t, ts, "/home/me/code/atlas") + "\n" for u, t, ts in lines)
    (folder / f"{session}.jsonl").write_text(text)
    return tmp_path / "projects"


def test_birthday_said_as_tomorrow_is_told_as_the_day_after_the_turn(tmp_path: Path) -> None:
    lines = [
        ("u-1", "my wife dani is on nights again", "2026-08-01T10:00:00Z"),
        ("u-2", "ok and tomorrow's dani's birthday so i'm off", "2026-08-21T15:00:00Z"),
    ]
    projects = _said(tmp_path, lines)
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([projects])
        res = mem.answer("when is my wife's birthday")
        assert (res.answer, res.via) == ("August 22", "fact") and [s.uuid for s in res.sources] == ["u-2"]
        assert mem.answer("when is my wife's birthday", now="2026-08-10T00:00:00Z").abstained
        assert mem.answer("when is my son's birthday").abstained


def test_a_bday_said_in_shorthand_is_told_as_the_day_it_names(tmp_path: Path) -> None:
    lines = [("u-1", "done for today, my mom ines's bday is tmrw and the card isn't posted", "2026-06-24T16:00:00Z")]
    projects = _said(tmp_path, lines)
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([projects])
        res = mem.answer("when is my mom's birthday")
        assert (res.answer, res.via) == ("June 25", "fact") and [s.uuid for s in res.sources] == ["u-1"]


def test_birthday_said_by_its_day_of_the_month_is_told_with_the_month_from_the_turn(tmp_path: Path) -> None:
    lines = [
        ("u-1", "off after lunch tmrw, my daughter mira's birthday is on the 9th, she's 6", "2026-06-08T09:40:00Z"),
        ("u-2", "my son tomek's birthday is the 3rd so we're baking", "2026-06-20T09:00:00Z"),
        ("u-3", "my wife's birthday was on the 14th, we went out", "2026-06-21T09:00:00Z"),
    ]
    projects = _said(tmp_path, lines)
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([projects])
        for question, day, uuid in (
            ("when is mira's birthday", "June 9", "u-1"),
            ("when is tomek's birthday", "July 3", "u-2"),
            ("when is my wife's birthday", "June 14", "u-3"),
        ):
            res = mem.answer(question)
            assert (day in res.answer, res.via) == (True, "fact"), (question, res.answer)
            assert [s.uuid for s in res.sources] == [uuid]


def test_a_day_of_the_month_no_month_near_the_turn_holds_is_never_told_as_the_turns_day(tmp_path: Path) -> None:
    lines = [
        ("u-1", "my son tomek's birthday is on the 30th, cake time", "2026-01-31T09:00:00Z"),  # 30 Jan past, no 30 Feb
        ("u-2", "my wife's birthday was on the 30th, we went out", "2026-03-01T09:00:00Z"),  # 30 Jan, not 1 March
    ]
    projects = _said(tmp_path, lines)
    with Memory(tmp_path / "home", embedder="none", user_name="me") as mem:
        mem.ingest([projects])
        assert "March 30" in (mem.answer("when is tomek's birthday").answer or "")
        assert "January 30" in (mem.answer("when is my wife's birthday").answer or "")


def test_whose_thing_it_is_answers_who_had_or_ran_it_and_nothing_else() -> None:
    from vyre_memory.ask.attribution_questions import Said, answer_who, parse_who_question
    from vyre_memory.ask.personal_questions import KnownFact

    (got,) = attributions("off tomorrow btw — tata's hip surgery is tomorrow morning, finally.")
    assert (got.subject, got.object) == ("tata", "tata's hip surgery is tomorrow morning, finally")
    assert attributions("ines's on nights again, it's fine, let's go") == []
    said = [Said(KnownFact(got.subject, "said", got.object, got.confidence, "2026-02-02", "0"), got.quote)]
    had = parse_who_question("who had hip surgery in february?")
    assert had is not None
    answer = answer_who(had, said)
    assert answer is not None and answer.text == "Tata." and 0.5 <= answer.confidence <= 0.6
    asked = parse_who_question("who asked for hip surgery")
    assert asked is not None and answer_who(asked, said) is None


def test_an_adverb_after_a_first_name_is_not_a_surname() -> None:
    for text in (
        "ewa apparently said the build is red again.",
        "ewa just asked for the csv export again.",
        "the deploy failed, Ewa herself said the build is red.",
    ):
        got = attributions(text)
        assert [c.subject for c in got] == ["ewa"], (text, got)
    # a capitalised surname, or a lowercase one after a lowercase first name, is still a full name
    assert [c.subject for c in attributions("so Ewa Lis said the build is red again.")] == ["ewa lis"]
    assert [c.subject for c in attributions("tomas varga ran the audit last week.")] == ["tomas varga"]

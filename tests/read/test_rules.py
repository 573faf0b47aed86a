"""The rule-based fact reader: casual, lowercase phrasings from the person's own words."""

from __future__ import annotations

import pytest

from vyre_memory.read.relations import RELATIONS
from vyre_memory.read.rules import extract


def _facts(text: str, context: str = "") -> set[tuple[str, str, str]]:
    return {(c.subject, c.relation, c.object) for c in extract(text, context=context)}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("have to pick up dani, my wife, at 5", ("user", "wife", "Dani")),
        ("my wife ines pretends she wanted the outback", ("user", "wife", "Ines")),
        ("my wife's name is lucía btw", ("user", "wife", "Lucía")),
        ("my better half nadia has promised a tenner", ("user", "partner", "Nadia")),
        ("mia, my better half, says hi", ("user", "partner", "Mia")),
        ("off early, my namorada rita booked dinner", ("user", "partner", "Rita")),
        ("emrys starts at st mary's monday", ("emrys", "school", "St Mary's")),
        ("we finally moved into the bristol flat", ("user", "moved_to", "Bristol")),
        ("internet at the new place in leeds finally works", ("user", "lives_in", "Leeds")),
        ("i live in porto these days", ("user", "lives_in", "Porto")),
        ("my manager rosa signed off on it", ("user", "boss", "Rosa")),
        ("my nephew oskar (5) is here", ("user", "nephew", "Oskar")),
        ("taking my dad (tomas) to the doctor at 2", ("user", "father", "Tomas")),
        ("my dad (tomas, 79) lives on his own", ("user", "father", "Tomas")),
        ("ugh slow today, ada (my 5yo) was up all night", ("user", "child", "Ada")),
        # an opening apology is an aside of its own, not a condition on what follows it
        ("ugh sorry if im slow replying, my mom ines got her new hip today", ("user", "mother", "Ines")),
        ("sorry if im slow today, we just moved to denver and i'm living out of boxes", ("user", "moved_to", "Denver")),
        ("my 7 year old son leo lost a tooth", ("user", "son", "Leo")),
        ("mum is looking after pip (the cat) while we're away", ("user", "pet", "Pip")),
        ("staying at my brother tomek's this weekend", ("user", "brother", "Tomek")),
        ("our dog is called biscuit", ("user", "pet", "Biscuit")),
        ("our dog is called biscuit", ("biscuit", "pet_kind", "dog")),
        ("after this im taking pepper to the dog park", ("user", "pet", "Pepper")),
        ("picked up the new car saturday, a used 2019 toyota rav4, grey", ("user", "car", "Toyota RAV4")),
        ("i drive a subaru forester", ("user", "car", "Subaru Forester")),
        ("bought a seat ibiza last week", ("user", "car", "Seat Ibiza")),
        ("we bought a ford focus last week", ("user", "car", "Ford Focus")),
        # a model said without its make
        ("picked up the octavia today!! 2019, grey", ("user", "car", "Octavia")),
        ("i sold my honda and bought a prius", ("user", "car", "Prius")),
        ("ugh the cr-v needs new tires, driving it to the shop", ("user", "car", "CR-V")),
        ("zoe starts 3rd grade tomorrow!! her teacher is ms okafor", ("zoe", "teacher", "Ms Okafor")),
        ("ada (shes 6, first grade) loves it", ("user", "daughter", "Ada")),
        ("leo (he's 4) wants a go", ("user", "son", "Leo")),
        ("priya (she's a pharmacist) says it's fine", ("priya", "occupation", "pharmacist")),
        ("karl is our platform lead now", ("karl", "occupation", "platform lead")),
        ("rui from infra (he's our sre guy) approved", ("rui", "occupation", "sre guy")),
        ("anyway: tomas (field technician) says 5 valves are stuck", ("tomas", "occupation", "field technician")),
        ("oskar (production eng at the plant) sent the csvs", ("oskar", "occupation", "production eng at the plant")),
        ("i grew up in cork", ("user", "grew_up_in", "Cork")),
        ("he lived next to us in tralee when i was growing up", ("user", "grew_up_in", "Tralee")),
        ("bo is an old family friend", ("user", "family_friend", "Bo")),
        ("i live with my mum", ("user", "lives_with", "mum")),
        # names that are a word for a relative in another language too are read as names
        ("my son seun is 7", ("user", "son", "Seun")),
        ("my wife beti turned 40", ("user", "wife", "Beti")),
        ("tia's flying in from austin friday (my sister)", ("tia", "lives_in", "Austin")),
        ("tia's flying in from austin friday (my sister)", ("user", "sister", "Tia")),
        ("mondays are choir night", ("choir", "schedule", "mondays")),
        ("i'm only in the office mondays and wednesdays", ("office", "schedule", "mondays and wednesdays")),
        ("use pnpm not npm pls", ("user", "likes", "pnpm")),
        ("i'm allergic to peanuts", ("user", "allergy", "peanuts")),
        ("my partner named the robot vacuum dusty mcdustface", ("vacuum", "called", "Dusty Mcdustface")),
        ("i'm officially principal engineer as of today", ("user", "job_title", "principal engineer")),
        ("got the promo btw, senior firmware dev as of oct 1", ("user", "job_title", "senior firmware dev")),
        ("the promo came through, i'm senior backend from july 1", ("user", "job_title", "senior backend")),
        ("got the letter, i'm tech lead for the payments squad", ("user", "job_title", "tech lead")),
        ("finally got promoted to engineering manager", ("user", "job_title", "engineering manager")),
        ("new laptop came! macbook air, the m3 one.", ("user", "laptop", "Macbook Air")),
        ("reorg done, i report to dana okafor now. anyway the migration", ("user", "boss", "Dana Okafor")),
        ("big news, we're moving!! found a tiny house in sandvik with a shed", ("user", "moved_to", "Sandvik")),
    ],
)
def test_casual_lowercase_phrasing_yields_fact(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in _facts(text)


def test_relative_named_in_previous_message_is_resolved() -> None:
    facts = _facts(
        "config in yaml. his name is bogdan but the sms should say 'Tato'",
        context="dziadek keeps forgetting pills since babcia died. my dad needs an sms at 8",
    )
    assert ("user", "father", "Bogdan") in facts


def test_objects_appear_verbatim_in_their_quote_and_relations_are_in_vocabulary() -> None:
    text = "my wife ines pretends she wanted the outback. picked up the new car, a 2021 mazda cx-5."
    for c in extract(text):
        assert c.object.lower() in c.quote.lower()
        assert c.relation in RELATIONS
        assert text[c.span[0] : c.span[1]] == c.quote
        assert 0 < c.confidence <= 1


def test_explicit_cue_is_more_confident_than_inference() -> None:
    explicit = [c for c in extract("my dog pepper ate a sock") if c.relation == "pet"]
    inferred = [c for c in extract("taking pepper to the dog park") if c.relation == "pet"]
    assert explicit[0].confidence > inferred[0].confidence


@pytest.mark.parametrize(
    "text",
    [
        "my wife is on nights at the hospital this week",  # no name given
        "mila starts 2nd grade tomorrow at the new school",  # "the new school" is not a name
        "ines wants an outback, i want a cx-5, we'll see",  # a wish, not a car
        "the climbing gym in evanston is tiny",
        "run the tests and commit",
        "Growth is $12.95/seat and Scale $34.90/seat",
        "tamsin lives in excel",  # not the user; never the user's home
        "my other half of the fixtures still fails",  # half of something, not a person
        "i wrote the first part, my other half handles parsing",
        "my better half is away this week",  # no name given
        "done, sent. unrelated, my dad called again about his shop",  # a word that opens an aside is no name
        "honestly, my wife is right about the retries",
        "i'm lead on the migration, i'm head down on the bug, i'm senior enough to know",  # no title
        "the promo code is broken, staff discount applies",
        # someone else's promotion, or one hoped for
        "fyi dana got promoted to engineering manager",
        "my wife got promoted to senior nurse",
        "dana's promo came through, senior firmware dev as of oct 1",
        "hoping to get promoted to staff engineer",
        "promotion: senior engineer role open on the team",
        "i'm the tech lead's backup this week",
        "my brother moved out, he's got a flat in sandvik near the docks",  # his home, not the person's
        "my sister found a house in sandvik",
        "if i report to dana the reviews go faster",
        "sold the old one, got a 2013 crossover last week (the kid's car seat actually fits now)",  # a car seat
        "bought a new one, the car seat barely fits in the back",
        # a make that is a word too, before a device or a part
        "bought a beelink mini pc, set up google drive sync on it",
        "bought a smart plug for the office, the usb drive is full",
        "bought ram 32gb for the build box, the old drive died",
        "bought a seat cover for the car",
        # a car driven that is not the person's, or no longer
        "test drove a toyota yaris saturday btw, trunk is tiny",
        "sold the honda on sunday, a guy paid cash",
        "drove the rental toyota to the airport",
        "my sister's corolla broke down so i drove her to work",
        "dad's kia needs brakes, driving him tomorrow",
        "she drives a prius, i take the bus",
        "my wife bought a yaris last week",
        "traded in the prius yesterday",
        "wrote off the corolla on the ring road",
        # a model's name that is someone's or somewhere's, said without "the" or "a"
        "picked up octavia from daycare, then drove home",
        "driving to corolla beach this weekend",
        # what became of a laptop, not which one
        "typing this on a dying old one, the trackpad's gone, new laptop ordered",
        "new laptop arriving friday, finally",
    ],
)
def test_no_fact_is_invented_from_ordinary_sentences(text: str) -> None:
    facts = _facts(text)
    assert not any(
        s == "user"
        and r in ("wife", "partner", "father", "school", "car", "laptop", "lives_in", "moved_to", "boss", "job_title")
        for s, r, _ in facts
    ), facts
    assert not any(r == "school" for _, r, _ in facts)


@pytest.mark.parametrize(
    "text",
    [
        "my dad fell off a ladder on sunday",
        "My mum arrives on the late train",
        "my brother lands at 6 so i'm off early",
        "my aunt broke her hip last week",
        "my sister graduated in june",
    ],
)
def test_a_verb_after_a_relative_is_never_their_name(text: str) -> None:
    assert not any(s == "user" for s, _, _ in _facts(text)), _facts(text)


def test_name_not_confused_with_place_before_apposition() -> None:
    facts = _facts("i'm still at tomek's in gdynia, my nephew oskar (5) is watching tv")
    assert ("user", "nephew", "Oskar") in facts
    assert ("user", "nephew", "Gdynia") not in facts


def test_a_visit_says_where_someone_lives_unless_they_come_to_stay() -> None:
    assert ("sven", "lives_in", "Bergen") in _facts("my brother sven is flying in from bergen on friday")
    for moving in (
        "my brother sven is flying in from bergen friday. he starts at the port and stays with us till he finds a flat",
        "my brother sven is flying in from bergen on friday, he's relocating for the new job",
        "my brother sven is driving down from bergen, he's moving here for good",
    ):
        facts = _facts(moving)
        assert ("user", "brother", "Sven") in facts
        assert not any(r == "lives_in" for _, r, _ in facts), moving  # where he came from is not home any more


@pytest.mark.parametrize(
    "text",
    [
        "we moved to postgres last year",
        "we moved to the cloud in 2024",
        "tried the new place in andersonville, great tacos",
        "i basically live in excel these days",
        "report came in from halvard security",
        "we're moving to ani's cousin's flat for the renovation, boxes everywhere",  # whose flat, not where
        "rafa, my father-in-law, is visiting",  # an in-law is not the relative
        "rafa (my father-in-law) is visiting",
        "rafa's flying in friday (my mother in law)",
        "ping sam (dad's friend) later",
        "bringing marco and julia (wife) to the bbq",  # a label in brackets says whose relative no more than a list
        "pinged dana (lead, payments) about the outage",
    ],
)
def test_dev_talk_is_never_read_as_a_home_nor_a_relative(text: str) -> None:
    assert not any(s == "user" for s, _, _ in _facts(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("on another note, granny turns 90 next month, party at ours", ("user:grandmother", "age", "turns 90")),
        ("i just turned 40 lol", ("user", "age", "just turned 40")),
        ("theo starts 3rd grade tomorrow at the new school", ("theo", "grade", "3rd grade")),
    ],
)
def test_age_and_school_grade_are_read_as_said(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "the p99 turns 40 ms under load",
        "the counter turned 5% higher",
        "if theo starts 3rd grade early we'd move",
        "the twins party is saturday (they're turning 3!!)",  # "re" is no one
    ],
)
def test_no_age_or_grade_from_measures_or_hypotheticals(text: str) -> None:
    assert not {f for f in _facts(text) if f[1] in ("age", "grade")}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("ok and tomorrow's dani's birthday so i'm off", ("dani", "birthday", "tomorrow")),
        ("tomorrow is my wife's birthday, no plan yet", ("user:wife", "birthday", "tomorrow")),
        ("my birthday was yesterday lol", ("user", "birthday", "yesterday")),
        ("done for today, my mom ines's bday is tmrw", ("ines", "birthday", "tmrw")),
        ("my bday was yday lol", ("user", "birthday", "yday")),
        ("turned 31 today, celebrating by fixing the build lol", ("user", "birthday", "today")),
        ("long week. just turned 40 yesterday and i feel it", ("user", "birthday", "yesterday")),
    ],
)
def test_birthday_said_as_a_day_word_is_read_as_that_word(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "my wife (finally) agreed to the trip",  # a bracketed aside, not a name
        "my dad (who is 79) still drives",
        "my 5yo laptop finally died",  # an old thing's age: no child without a child's word
        "felix (the cat from the cartoon) is on my mug",  # a pet's word with more in its brackets
        "sam (tech debt) owns the ticket",  # a shorthand role word only as the bracket's last word
        "if ada (my 5yo) were older she'd love it",  # a condition
    ],
)
def test_no_relative_or_pet_from_a_bracketed_aside_or_an_age_alone(text: str) -> None:
    assert not {f for f in _facts(text) if f[0] == "user" or f[1] == "occupation"}


@pytest.mark.parametrize(
    "text",
    [
        "my wife (nurse) works nights",  # a word about her in her brackets, not her name
        "my dad (rip) would have loved this",
        "max (the dog) from next door barked all night",  # the dog, maybe not theirs
        "thinkpad (my 7yo) still works",
        "my 10 year old son roblox account got hacked",
    ],
)
def test_a_bracketed_or_aged_name_is_a_key_below_the_answer_bar(text: str) -> None:
    assert all(c.confidence < 0.5 or c.relation not in ("pet",) for c in extract(text) if c.subject == "user")
    assert all(c.confidence < 0.6 for c in extract(text) if c.subject == "user")


@pytest.mark.parametrize(
    "text",
    [
        "sorry if im slow, my dad (finally) called",
        "need to check if i'm allergic to penicillin",
        "sorry if im slow, my kid is sick",  # the apology cut, no word before "my kid" is a name
        "sorry if we move to leeds, my wife hates it",
        "we moved from heroku to fly and the internet bill dropped",
        "if dani got the job at google we'd move",
        "sorry if the fixture is confusing, my dog is called rex in it",  # an apology about test data: kept whole
        "sorry if im wrong, my brother tom lives in leeds right",  # an apology that doubts what follows
        "we just moved from nginx to traefik and now home assistant is unreachable",
        "the build got a job at the queue",
        "booked the venue for my son's birthday today",  # a day said of the booking, not of the birthday
        "kim (on the coach) texted",
        "dave (in tech) says hi",
    ],
)
def test_no_fact_from_a_condition_a_booking_day_or_a_place_in_brackets(text: str) -> None:
    assert not {(c.relation, c.object) for c in extract(text) if c.confidence >= 0.5}


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("my birthday is the 3rd may be a sunday this year", "the 3rd"),
        ("my birthday is the 3rd may, so off that day", "the 3rd may"),
        ("my birthday is may 3", "may 3"),
    ],
)
def test_may_is_a_month_unless_a_verb_follows_it(text: str, day: str) -> None:
    assert ("user", "birthday", day) in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "his wife's birthday is on the 9th so he is off",  # someone else's relative
        "sam's wife's birthday is on the 9th",
        "a friend's birthday is on the 9th",
        "sam's wife's birthday is tomorrow",
        "my birthday was 3 days ago",  # not a day of the year
        "my birthday's in 3 weeks",
        "everyone's birthday is on the 1st",
    ],
)
def test_no_birthday_of_the_person_or_their_family_from_others_or_from_a_length_of_time(text: str) -> None:
    assert not {f for f in _facts(text) if f[1] == "birthday" and f[0].startswith("user")}
    assert not {f for f in _facts(text) if f[1] == "birthday" and f[0] in ("everyone", "wife", "friend")}


@pytest.mark.parametrize(
    "text",
    [
        "tomorrow's the release, and dani's party is friday",
        "my son turned 9 today",  # his, not the person's: not read as the person's birthday
        "turned 9 today, so the party is at ours",  # a child's age: most likely the person's child's
        "turned 500 today, the repo's stars",
        "the counter turned 31 today after the reset",
    ],
)
def test_a_day_word_without_a_birthday_is_no_birthday(text: str) -> None:
    assert ("user", "birthday") not in {f[:2] for f in _facts(text)}


@pytest.mark.parametrize(
    "text",
    [
        "our client timeout is 800ms, the vendor's is 500",
        "get a helper to compare our rabbit ocr setup vs the other broker",
        "our rabbit queue config is off again",
    ],
)
def test_a_thing_of_the_work_is_no_one_and_no_pet(text: str) -> None:
    assert not any(s == "user" or r == "pet_kind" for s, r, _ in _facts(text)), _facts(text)


@pytest.mark.parametrize(
    "text, fact",
    [
        ("our client acme wants a dashboard", ("user", "client", "Acme")),
        ("our client acme api is down", ("user", "client", "Acme")),
        ("i had my brother tom test the checkout flow", ("user", "brother", "Tom")),
        ("my wife dani bugs me about sleep", ("user", "wife", "Dani")),
        ("my colleague priya logs everything", ("user", "colleague", "Priya")),
        ("my rabbit snowball is sick", ("user", "pet", "Snowball")),
    ],
)
def test_a_name_before_a_verb_or_a_thing_of_theirs_is_still_read(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "sorry if i'm distracted today, lucia and i got married feb 21 and we're still writing thank you cards",
        "me and lucia are getting married in june!!",
    ],
)
def test_a_wedding_of_the_person_is_a_spouse_key(text: str) -> None:
    assert ("user", "spouse", "Lucia", 0.55) in {(c.subject, c.relation, c.object, c.confidence) for c in extract(text)}


@pytest.mark.parametrize(
    "text",
    [
        "btw i'm patchy this month, got engaged to lucia in december and the wedding is in march",
        "i got engaged to lucia last week!!",
        "i just got engaged to lucia, it was magical",
    ],
)
def test_the_persons_own_engagement_names_the_fiance(text: str) -> None:
    assert ("user", "fiance", "Lucia") in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "my sister got engaged to tom",
        "my sister, got engaged to tom",
        "tom texted: got engaged to lisa!!",
        "congrats! got engaged to tom",
        "did you hear? got engaged to anna!",
        "she got engaged to tom last week",
        "if i got engaged to lucia tomorrow",
        "i got engaged to the idea of rust",
        "got engaged to jess but we called it off",
        "i got engaged to june",  # a month
        "just got engaged to rachel's brother tim",  # whose brother, not who
        "i'm engaged to deliver the api by friday",  # work: only "got engaged" is read
        "i'm engaged to acme on a 3 month contract",
        "i'm married to react at this point",  # a framework, not a spouse
        "i was engaged to lucia once, long story",
        "in the game i got engaged to lara",
    ],
)
def test_no_engagement_of_someone_else_a_thing_or_a_condition(text: str) -> None:
    assert not {f for f in _facts(text) if f[1] in ("fiance", "spouse", "wife", "husband", "partner")}


@pytest.mark.parametrize(
    "text",
    [
        "tom and i are married to our jobs",
        "should bob and i get married lol",
        "nina and i got married in the game",
        "kim and i got married then divorced",
        "the intern and i got married lol",
        "docker and i got married, its the only tool i use",
        "if lucia and i got married we would move",
        "i married the two branches",
        "bringing marco and julia (wife) to the bbq",
    ],
)
def test_no_spouse_from_a_marriage_to_a_thing_a_game_or_a_condition(text: str) -> None:
    assert not {c for c in extract(text) if c.relation in ("spouse", "wife", "husband", "partner")}


@pytest.mark.parametrize(
    ("text", "school"),
    [
        ("ani started at setu infra today, first day nerves", None),  # a business: a job, not a school
        ("noor started at the new job at the clinic today", None),
        ("leo started at little acorns today", "Little Acorns"),
    ],
)
def test_a_job_started_at_a_business_is_no_school(text: str, school: str | None) -> None:
    assert [c.object for c in extract(text) if c.relation == "school"] == ([school] if school else [])

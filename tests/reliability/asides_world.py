"""Generated personal asides mixed into the work turns of a project (issue "Agents never learn the person's life").

Every name, place, street and pet is made of random syllables, so it occurs nowhere else: if one of them reaches an
agent, it came from an aside. Each work sentence carries a made-up identifier (`work_token`) that must still reach
the agent and a model it calls.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

_SYLLABLES = "ka lo mir ven tas quo ril dun bex sol yar ith pem zor ula gan fey cor lis nov tre wim".split()
RELATIVES = ("wife", "husband", "sister", "brother", "mum", "dad", "daughter", "son", "partner", "aunt", "grandma")
PETS = ("whippet", "terrier", "dog", "cat", "puppy", "kitten", "parrot")
STREETS = ("row", "street", "lane", "road", "avenue", "close", "way")
ASIDES = (
    "have to leave at {hour} to walk {pet}, my {pet_kind}",
    "my {relative} {name} is visiting from {city} this weekend",
    "we finally moved to {number} {street} {street_kind}",
    "{name}, my {relative}, starts school in {city} on monday",
    "gotta pick up {name} from {city} at {hour}",
    "it's {name}'s birthday on friday so i'm off early",
    "our {pet_kind} {pet} is sick again, poor thing",
    "{name} and i are flying to {city} for our anniversary",
    "feeling exhausted, {name} kept me up all night",
    "i'm seeing a doctor in {city} about my back on thursday",
    "my {relative} lives at {number} {street} {street_kind} now",
    "dinner with {name} tonight, can't stay late",
)
WORK = (
    "the retry loop in src/{token}/client.py fails on a timeout",
    "please fix the flaky test in tests/test_{token}.py",
    "bump the {token} package to 2.4.1 and deploy to staging",
    "the {token}_handler returns a 500 when the payload is empty",
    "add an index on the {token} column before the migration runs",
)
JOINS = ("{work}. {aside}.", "{aside}. {work}.", "{aside} so {work}", "{work}; {aside}", "{aside} - {work}")


def word(rng: random.Random, parts: int = 3) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(parts))


@dataclass(frozen=True)
class Turn:
    text: str
    secrets: tuple[str, ...]  # the aside's own words: names, places, streets, pets
    work_token: str


def mixed_turn(rng: random.Random) -> Turn:
    name, city, pet, street = word(rng).capitalize(), word(rng).capitalize(), word(rng, 2).capitalize(), word(rng)
    fields = {
        "name": name,
        "city": city,
        "pet": pet,
        "street": street.capitalize(),
        "relative": rng.choice(RELATIVES),
        "pet_kind": rng.choice(PETS),
        "street_kind": rng.choice(STREETS),
        "number": str(rng.randint(2, 480)),
        "hour": str(rng.randint(2, 6)),
    }
    aside = rng.choice(ASIDES).format(**fields)
    token = word(rng, 3)
    work = rng.choice(WORK).format(token=token)
    text = rng.choice(JOINS).format(work=work, aside=aside)
    secrets = tuple(w.lower() for w in (name, city, pet, street) if w.lower() in aside.lower())
    return Turn(text, secrets, token)

"""Clauses that likely speak of the person's life though no word of a life is in them.

The asides (`read.asides.speaks_of_life`) are found by words: "my wife", "the dog", "hospital". People also
say their life in words no list holds: a partner by their name alone, a new car by its model, a move by the
name of the place. Such a clause is already withheld from an agent (it carries nothing of the work), but it
was never searched as an aside; and the assistant's reply to it ("good luck to her tomorrow") was shown to
an agent, since the assistant's prose is withheld by life words only. Here each of those clauses is compared,
by an embedding, with example sentences of a life and of the work: a clause nearer the life examples (by
`LIKELY_MARGIN`) likely speaks of the person's life.

The examples are written for no data set: everyday English sentences over the parts of a life (family, pets,
home, cars and commutes, health, hobbies, travel, food) and over what people type to a coding assistant or say
of the people they work with. The margin is fitted to the default embedder (all-MiniLM-L6-v2), so only it
is used here (`Memory` hands no other).

Pure given `embed`: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from ..contract import TYPED
from .asides import speaks_of_life, withheld_spans
from .trust import own_sentences

__all__ = ["LIFE_EXAMPLES", "LIKELY_MARGIN", "WORK_EXAMPLES", "Embed", "likely_life", "unworded_clauses"]

Embed = Callable[[list[str]], np.ndarray]  # texts to unit vectors, one row each

LIFE_EXAMPLES: tuple[str, ...] = (
    # partner and family
    "my wife and I are going out tonight",
    "my husband cooked dinner",
    "my partner got a new job offer",
    "my girlfriend is visiting her family this weekend",
    "my boyfriend moved in with me",
    "we're getting married next spring",
    "the kids have a day off school",
    "I have to collect my son from nursery",
    "my daughter has a swimming lesson later",
    "the baby has been teething all week",
    "my mother is coming to stay with us",
    "my father is recovering from an operation",
    "my sister had her baby",
    "my brother lives abroad now",
    "my grandmother turned ninety",
    # pets
    "the dog chewed my shoes again",
    "our cat is sleeping on the keyboard",
    "we adopted a puppy",
    "I took the dog to the vet",
    "the kitten keeps waking me up at night",
    # home
    "we're moving to a new flat next month",
    "we finally got the keys to the new house",
    "the boiler broke at home",
    "we're painting the living room this weekend",
    "the landlord is putting the rent up",
    # cars and commutes
    "I bought a used car",
    "the car is in the garage for repairs",
    "my bike got a flat tyre on the way home",
    "the train was late again this morning",
    # health and feelings
    "I'm getting over a cold",
    "I have a doctor's appointment tomorrow",
    "I twisted my ankle playing football",
    "I'm so tired, I barely slept",
    "I feel a lot better today",
    # hobbies, sport, friends
    "I went for a long run this morning",
    "I've started learning to paint",
    "we went hiking in the hills on sunday",
    "I'm playing in a band on friday night",
    "I went swimming before work",
    "met some friends at the pub last night",
    "we had people over for dinner",
    "I'm reading a great novel at the moment",
    # travel and celebrations
    "we're flying to visit family for the holidays",
    "back from a week at the beach",
    "it's our anniversary today",
    "I'm throwing a birthday party for my son",
    "we spent the weekend camping",
    # food and errands
    "I made bread from scratch",
    "I need to do the grocery shopping",
    "picked up a takeaway on the way home",
)

WORK_EXAMPLES: tuple[str, ...] = (
    # what people type to a coding assistant
    "ok go ahead and commit that",
    "run the tests again",
    "looks good, ship it",
    "that's odd, check the logs",
    "leave it for now, we'll pick it up tomorrow",
    "can you add a test for that case",
    "no, revert that change",
    "the build is failing again",
    "write it up in the docs",
    "what does this function return",
    "try a different approach",
    "make the button bigger",
    "the numbers look wrong, double check them",
    "rename it to something clearer",
    "good, now the next one",
    "let's split this into two steps",
    "why is it so slow",
    "use the same format as before",
    "move that into its own file",
    "keep it simple",
    "what do you think of this plan",
    "show me the diff first",
    "that's not what I asked for",
    "the old version was faster",
    "how many users hit that screen",
    "can it handle more load",
    "that fixed it, thanks",
    "the data looks off for last month",
    "we need to support older phones",
    # the people of the work
    "the client approved the quote",
    "my manager wants the report by monday",
    "she signed off on the changes",
    "he asked for a discount on the invoice",
    "the customer says the page is broken",
    "the team agreed in the meeting",
    "the designer sent new mockups",
    "our contractor says the firewall blocks that port",
    "the vendor raised their prices",
    "the product owner wants it by friday",
    "we're going live today",
    "the demo went well",
)

# How much nearer the life examples than the work ones a clause must be (the mean of its two nearest of each,
# cosine). Measured on the open worlds and two written for checking (recall@8 of hybrid): 0.0 admits clauses
# of plain work talk and lowers one world; 0.1 admits too few to matter.
LIKELY_MARGIN = 0.05
MIN_WORDS = 4  # a shorter clause ("wish me luck") says too little to place
PROSE_MIN_WORDS = 3  # the assistant's replies are shorter ("have fun climbing")
_NEAREST = 2
_WORD = re.compile(r"[\w']+")


def unworded_clauses(text: str, kind: str = TYPED) -> list[str]:
    """The clauses with nothing of the work in them and no word of a life either (`speaks_of_life`): the person's
    own (a typed message's own sentences, of at least MIN_WORDS words), which are withheld from an agent already;
    or, in the assistant's prose (any other `kind`, at least PROSE_MIN_WORDS words), those an agent is shown,
    since prose is withheld by life words only ("good luck to her tomorrow")."""
    own = kind == TYPED
    pieces = [(s.text, MIN_WORDS) for s in own_sentences(text)] if own else [(text, PROSE_MIN_WORDS)]
    out: list[str] = []
    for piece, least in pieces:
        for a, b in withheld_spans(piece, TYPED):  # the person's own words' rule: kept only for the work in them
            clause = piece[a:b].strip()
            if len(_WORD.findall(clause)) >= least and not speaks_of_life(clause):
                out.append(clause)
    return out


def likely_life(clauses: Sequence[str], embed: Embed) -> list[bool]:
    """For each clause, whether it is nearer the life examples than the work examples by LIKELY_MARGIN."""
    if not clauses:
        return []
    life, work = embed(list(LIFE_EXAMPLES)), embed(list(WORK_EXAMPLES))  # a tenth of a second
    vectors = embed(list(clauses))
    near_life = np.sort(vectors @ life.T, axis=1)[:, -_NEAREST:].mean(axis=1)
    near_work = np.sort(vectors @ work.T, axis=1)[:, -_NEAREST:].mean(axis=1)
    return [bool(d > LIKELY_MARGIN) for d in near_life - near_work]

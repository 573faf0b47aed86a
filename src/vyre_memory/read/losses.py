"""A thing the person owned that is gone: "corolla's written off", "sold the old macbook", "my bike got stolen".

A car or a laptop is had until it is not, and the person seldom says which one replaced it in words a reader takes
for a new one ("insurance paid out, we got a grey one on saturday"). When the loss of the one known is said after it
was first named, that one is no longer theirs: better "Not sure." and what was known than the old one told as today's.
The loss must be said in one clause with the thing (by a word of its name that tells it apart, or by the noun of its
kind: "the car"), of the person's own (not "mum's car", "a car on our street"), and that clause must say it happened,
not that it may, nearly did or did not ("if it gets written off", "almost stolen", "wasnt sold"), in a sentence that is
no question. Other senses of the words are no loss ("sold out", "sold us on it", "the loan was written off").

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re

__all__ = ["lost", "names_thing"]

_LOSS = re.compile(
    r"\b(?:written[\s-]off|wrote\s+(?:it\s+)?off|write-off|totall?ed|stolen|stole|got\s+nicked|scrapped|sold|"
    r"traded\s+(?:it\s+)?in|gave\s+(?:it\s+)?away)\b"
)
# a clause that says the loss may happen, nearly happened, did not, or is wished, feared or joked about
_NOT_SO = re.compile(
    r"\b(?:not|never|no|almost|nearly|if|whether|might|may|could|would|should|will|maybe|probably|going\s+to|gonna|"
    r"planning|plan\s+to|want\s+to|thinking|before|until|unless|hope|hoping|wish|worried|worry|afraid|scared|dream\w*|"
    r"jk|kidding|wasnt|isnt|didnt|hasnt|havent|hadnt|wont|doesnt|aint|werent|arent|cant|couldnt)\b|n['’]t\b"
)
# ... or speaks of another sense of its words, or of someone else's: "sold out", "sold us on the warranty", "the car
# loan got written off", "a car got stolen on our street", "the other guy's car"
_OTHER_SENSE = re.compile(
    r"\bsold\s+(?:out|on|us|me|him|her|them|you)\b|\b(?:loan|claim|debt|number|feature|detection|park|plan|ticket|"
    r"launch|insurance|policy|listing|ad|ads|deal|stock)\b|\b(?:a|an|another|other|his|her|their|your)\b"
)
_CLAUSE_BREAK = re.compile(r"[,;:()\n]|\b(?:and|but|so|also|then|because|bc|though|although)\b")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_WORD = re.compile(r"[a-z0-9][a-z0-9-]*")
_POSSESSIVE = re.compile(r"\b([a-z0-9-]+)['’]s\b")
# words of a thing's name that tell it from others of no kin ("MacBook Pro", "Tesla Model 3"): not these
_NOT_A_NAME = frozenset(
    "a an the my our new old used white black grey gray red blue silver green hybrid pro air max mini plus model ultra "
    "lite series edition sport turbo".split()
)


def _names(thing: str, kind: str) -> set[str]:
    found = {w for w in _WORD.findall(thing.lower()) if w not in _NOT_A_NAME and len(w) > 2 and not w.isdigit()}
    return found | ({kind.lower()} if kind else set())


def names_thing(text: str, thing: str) -> bool:
    """Whether `text` names `thing` by a word of its name that tells it apart."""
    return bool(_names(thing, "") & set(_WORD.findall(text.lower().replace("’", "'"))))


def lost(text: str, thing: str, kind: str = "") -> bool:
    """Whether `text` says the person's `thing` (a value as stored, e.g. "Corolla Cross") is gone: a loss phrase in a
    clause that names it by a word of its name or, given, by `kind` (its relation, e.g. "car")."""
    names = _names(thing, kind)
    for sentence in _SENTENCE.findall(text.lower().replace("’", "'")):
        if "?" in sentence:
            continue  # "will the car get written off?"
        for clause in _CLAUSE_BREAK.split(sentence):
            owners = {m.group(1) for m in _POSSESSIVE.finditer(clause)}
            said = set(_WORD.findall(_POSSESSIVE.sub(r"\1", clause)))
            if not said & names or not _LOSS.search(clause):
                continue
            if owners - names or _NOT_SO.search(clause) or _OTHER_SENSE.search(clause):
                continue  # someone else's ("mum's car"), not so, or another sense
            return True
    return False

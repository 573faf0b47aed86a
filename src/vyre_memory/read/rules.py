"""The rule-based personal-fact reader: facts from the person's own trusted sentences.

Guarantees:
- `extract` reads only `own_sentences` of the text that pass `judge_sentence`; quoted spans are
  masked and a candidate whose cue or value sits in a negated clause is dropped.
- Every candidate's relation is in `relations.RELATIONS`; its object appears verbatim
  (case-insensitively) in its quote, which is the exact sentence at `span` in the text; names
  written in lowercase are proper-cased for display only.
- The subject is "user", a person's name in lowercase, "user:<relation>" for an unnamed relative
  ("my sister lives in tallinn"), or the thing a value belongs to (a pet, an activity, a holiday).
- No rule names a person, place or phrase from any evaluation world; confidence follows cue
  strength (an explicit "my wife petra" ~0.7, an inference 0.3-0.5); repeated mentions are left to
  the caller to aggregate. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import MONTHS
from .moments import CONDITION
from .phrases import (
    _DAY_ALT,
    _HOLIDAY_ALT,
    _KIN_ALT,
    _MODS,
    _NAME,
    _NOT_IN_LAW,
    _PET_ALT,
    _at_words,
    _lower,
    _mask,
    _name_at,
    _place_at,
    _tokens_from,
    _upto,
)
from .relations import (
    AMBIGUOUS_MAKES,
    CAR_MAKES,
    CAR_MODELS,
    FEMALE,
    HOLIDAYS,
    KIN,
    MALE,
    PETS,
    ROLE_HEADS,
    TECH_NOUNS,
    TOOL_CATEGORIES,
    display,
    is_name_token,
    is_stop,
    words,
)
from .trust import Sentence, confirmed_guess, judge_sentence, negated_clause, own_sentences

__all__ = ["FactCandidate", "confirmed_facts", "extract", "extract_sentence"]


@dataclass(frozen=True)
class FactCandidate:
    """One fact read from one sentence of the person's own words."""

    subject: str
    relation: str
    object: str
    confidence: float
    quote: str
    span: tuple[int, int]


# ---------------------------------------------------------------------------------------------
# The reader.


class _Reader:
    def __init__(self, text: str, sentence: Sentence, antecedents: list[tuple[str, str]]) -> None:
        self.text = text
        self.orig = sentence.text
        self.low = _mask(_lower(sentence.text))
        self.span = sentence.span
        self.out: list[FactCandidate] = []
        self.antecedents = antecedents  # (name or kin word, gender "m"/"f"/"") most recent last

    def add(self, subject: str, relation: str, obj: tuple[int, int], conf: float, cue: int, *, name: bool) -> None:
        a, b = obj
        written = self.orig[a:b].strip(" '’\"")
        if not written or negated_clause(self.low, cue) or negated_clause(self.low, a):
            return
        value = display(written) if name else written
        subject = subject.strip().lower()
        if relation in KIN_RELATIONS and subject == "user" and value.lower() in KIN:
            return
        if relation == "pet" and self.of_the_work(self.low[a:b]):
            return  # a pet's word before a thing of the work is a product's ("our rabbit ocr setup")
        self.out.append(FactCandidate(subject, relation, value, round(conf, 2), self.orig, self.span))

    def add_value(self, subject: str, relation: str, value: str, conf: float, cue: int) -> None:
        """A value that is a word of the sentence (e.g. a pet kind)."""
        if negated_clause(self.low, cue) or value.lower() not in self.low:
            return
        if relation == "pet_kind" and self.of_the_work(subject):
            return
        self.out.append(FactCandidate(subject.lower(), relation, value, round(conf, 2), self.orig, self.span))

    def of_the_work(self, name: str) -> bool:
        """Whether a name read lowercase is a thing of the work: a noun of the work in it or just after it."""
        name = name.strip().lower()
        at = self.low.find(name) if name else -1
        after = re.match(r"\s+([a-z]+)", self.low[at + len(name) :]) if at >= 0 else None
        return bool(TECH_NOUNS.intersection([*name.split(), *([after.group(1)] if after else [])]))

    def subject_of(self, a: int, b: int) -> str:
        return self.low[a:b].strip()

    def remember(self, who: str, gender: str) -> None:
        self.antecedents.append((who, gender))

    def resolve(self, pronoun: str) -> str | None:
        want = "m" if pronoun in MALE else "f" if pronoun in FEMALE else ""
        for who, gender in reversed(self.antecedents):
            if not want or gender in (want, ""):
                return who
        return None


KIN_RELATIONS = frozenset(KIN.values()) | {"family_friend"}


# a child's age said as what they are: "5yo", "7 y/o", "3-year-old", "10 year old"
_CHILD_AGE = r"(?:1[0-7]|[1-9])\s*(?:yo|y/o|-?\s*year[-\s]old)\b"
# a role's head in shorthand, read only as the last of at most three words in brackets ("production eng")
_SHORT_ROLE_HEADS = words("eng technician contractor carer caretaker nanny babysitter cleaner tutor")
_NOT_A_WEDDING = re.compile(
    r"\b(?:dream\w*|game|sims?|simulation|past life|kidding|jk|joke|e\.g|example|sample|test|fixture|pretend|"
    r"imagine|suppose|divorced?|separated|split up|officiant|celebrant|on paper|should|would|could|let'?s)\b"
)
# what a place someone starts at is called when it is a business, and the words of a sentence about a job
_A_BUSINESS = words(
    "infra solar solutions consultants consulting labs systems technologies tech ltd inc llc gmbh group bank "
    "hospital clinic studio studios agency partners capital energy logistics software health pharmacy firm corp"
)
_MONTHS = frozenset(m.lower() for m in MONTHS)
_CALLED_OFF = re.compile(r"\b(?:called\s+it\s+off|broke\s+(?:it\s+)?off|ended|split|broke\s+up|ex)\b")


def _sentence_start(low: str, pos: int) -> int:
    """Where the sentence holding `pos` starts."""
    return max(low.rfind(mark, 0, pos) for mark in ".!?\n") + 1


_AT_WORK = re.compile(r"\b(?:new job|job|hired|offer|role|position|notice|first day at work|colleagues?|boss)\b")
_AWAY_KIN = words("sister brother mother father aunt uncle cousin grandmother grandfather friend nephew niece")
# someone who stays until they find a place of their own, or is moving here: where they came from is home no more
_RELOCATING = re.compile(
    r"\b(?:till|until)\s+(?:he|she|they)\s+(?:finds?|gets?)\s+(?:a|an|their|his|her)\s+(?:own\s+)?(?:place|flat|"
    r"apartment|house|home)\b|\b(?:is|are|'s|’s)\s+(?:moving|relocating)\s+(?:here|back|over|to)\b|\brelocat(?:e|es|ed|ing)\b"
)
_HOME_CUE = re.compile(
    r"\b(house|flat|apartment|condo|home|movers|moving\s+(?:day|truck|boxes)|boxes|unpack\w*|rent|landlord|lease|"
    r"neighbou?rs?|neighbou?rhood|internet|wifi|wi-fi|closing|realtor|mortgage|keys|commute|working\s+from)\b"
)
_TOOL_WORDS = frozenset().union(*TOOL_CATEGORIES.values()) | words(
    "excel sheets notion slack jira github gitlab aws gcp azure kubernetes k8s docker postgres mysql sqlite redis "
    "prod production staging dev cloud terminal vim emacs linux windows macos"
)


# what follows a make that is a word too ("mini", "smart", "seat", "ram") when it is a device or a part, not a car's
# model: "a mini pc", "a smart plug", "a seat cover", "ram 32gb"
_NOT_A_MODEL = re.compile(
    r"(?:pcs?|plugs?|speakers?|displays?|bulbs?|home|watch(?:es)?|tv|covers?|coolers?|sticks?|cards?|cushions?|"
    r"belts?|\d+(?:gb|tb|mb|ghz|mhz|w))"
)


_MAKES_ALT = "|".join(sorted(CAR_MAKES, key=len, reverse=True))
_CAR_MAKE = re.compile(rf"\b(?:(?:19|20)\d\d\s+)?({_MAKES_ALT})\b")
# a model said alone is one only after a word that says it is a thing ("the prius", "a used 2019 corolla", "my rav4")
_CAR_MODEL = re.compile(
    r"\b(?:a|an|the|my|our|new|used|old|second-hand|secondhand|(?:19|20)\d\d)\s+(?:(?:new|used|old|(?:19|20)\d\d)\s+)?("
    + "|".join(sorted(map(re.escape, CAR_MODELS), key=len, reverse=True))
    + r")(?![\w-])"
)
_CAR_MAKE_BEFORE = re.compile(rf"\b(?:{_MAKES_ALT})\s+$")
# a car wished for or looked at, just before its make ("considering a kia") ...
_WISHED = re.compile(r"\b(want|wants|wanted|like|likes|considering|looking\s+at)\b")
# ... and one driven that is not the person's, or no longer, in the same clause ("test drove a kia", "sold the
# honda", "borrowed dad's mazda", "a rental toyota", "traded in the prius", "wrote off the yaris")
_NOT_OWNED = re.compile(
    r"\b(?:test[\s-]?(?:drive|drove|driven|driving)|sold|sells?|selling|rent(?:s|ed|ing|al)?|borrow(?:s|ed|ing)?|"
    r"lent|loaner|courtesy|hire[sd]?|traded\s+in|trade-in|wrote\s+off|written\s+off|totall?ed|scrapped|gave)\b"
)
# ... or someone else's: just before it ("his prius", "my sister's old honda"), or said of another at its clause's start
# ("she drives a prius", "my wife bought a yaris")
_SOMEONE_ELSES = re.compile(r"\b(?:\w+['’]s|his|her|their|your)\s+(?:(?:old|new|little|red|white|black)\s+)?$")
_OTHERS_CLAUSE = re.compile(rf"^\s*(?:she|he|they|(?:my|our)\s+{_MODS}(?:{_KIN_ALT}))\b")


def _not_had(low: str, at: int) -> bool:
    """Whether the car named at `at` is one wished for or looked at (just before it), someone else's, or in its clause
    one driven that is not the person's or no longer is (test drove, sold, rented, borrowed, traded in)."""
    before = low[max(0, at - 30) : at]
    if _WISHED.search(before) or _SOMEONE_ELSES.search(before):
        return True
    clause = _CLAUSE_BREAK.split(low[max(0, at - 60) : at])[-1]
    return bool(_NOT_OWNED.search(clause) or _OTHERS_CLAUSE.search(clause))


def _happened(word: str) -> bool:
    """Whether the word after "new laptop" or a car's make says what became of it, not which one it is ("new
    laptop ordered", "a honda arriving friday", "a kia finally")."""
    return word.endswith(("ed", "ing", "ly"))


# the clause's own subject before a verb of finding a home, when it is neither the person nor left out: "he's got a
# flat in X", "my sister found a house in X", "sam bought a flat in X" (not "we're moving!! found a flat in X")
_CLAUSE_BREAK = re.compile(r"[.!?;:,()\n]|\b(?:and|but|so|also|then)\b")
_OWN_SUBJECT = re.compile(
    r"^(?:(?:i|we)(?:'ve|'m|'re|\s+have|\s+are|\s+am)?|(?:have|just|finally|now|also|already)(?=\s|$))(?:\s+|$)"
)


def _someone_else_did(before: str) -> bool:
    """Whether the clause that `before` ends has a subject that is not the person's."""
    subject = _CLAUSE_BREAK.split(before[-200:])[-1].strip()
    while subject:
        own = _OWN_SUBJECT.match(subject)
        if own is None:
            return True
        subject = subject[own.end() :]
    return False


def _is_tool(value: str) -> bool:
    return any(w in _TOOL_WORDS for w in value.lower().split())


def _relation_for(word: str, gender: str = "") -> str | None:
    rel = KIN.get(word)
    if rel == "child" and gender:
        return "son" if gender == "m" else "daughter"
    return rel


def _gender(word: str) -> str:
    return "m" if word in MALE else "f" if word in FEMALE else ""


_SENIORITY = words("senior sr staff principal lead junior jr chief head tech team associate")
_TRADE = words(
    "backend back-end frontend front-end fullstack full-stack firmware embedded platform mobile ios android data ml "
    "infra infrastructure devops security qa software systems web cloud product engineering"
)


def _job_title_at(low: str, at: int, *, strong: bool) -> tuple[int, int] | None:
    """The span of a job title starting at `at`: a seniority, a trade, then a role ("senior backend dev", "tech
    lead", "staff engineer", "senior firmware"); after a strong cue ("promoted to") a trade and a role will do."""
    found = re.match(r"([\w-]+)(?:\s+([\w-]+))?(?:\s+([\w-]+))?", low[at:])
    if not found:
        return None
    ws = [w for w in found.groups() if w]
    n = 1 if ws[0] in _SENIORITY else 0
    if n == 0 and not strong:
        return None
    while n < len(ws) and n < 2 and ws[n] in _TRADE:
        n += 1
    if n < len(ws) and ws[n] in ROLE_HEADS:
        n += 1
    elif not (ws[0] in _SENIORITY and n == 2):  # "senior backend": a seniority and a trade
        return None
    end = at + len(" ".join(ws[:n]))
    if n < 2 or low[end : end + 1] in ("'", "’"):
        return None  # "i'm the tech lead's backup"
    return at, end


def _rules(r: _Reader) -> None:
    low, orig = r.low, r.orig

    # "my wife petra", "our dog biscuit", "my little brother mateo's", "my dad (tomas)" --------------------------
    for m in re.finditer(rf"\b(my|our)\s+{_MODS}({_KIN_ALT}|{_PET_ALT})\b(?:\s*(\()\s*|,?\s+)(?!'s)", low):
        word = m.group(2)
        span = _name_at(low, orig, m.end())
        if span is None or (
            m.group(3) and (not re.match(r"\s*[),]", low[span[1] :]) or low[span[0] : span[1]].endswith(("ly", "ing")))
        ):
            continue  # in brackets, a name alone: not "my wife (finally) agreed", "my dad (who is 79)"
        if word in PETS:
            sure = 0.45 if m.group(3) else 0.7
            r.add("user", "pet", span, sure, m.start(), name=True)
            name = low[span[0] : span[1]]
            r.add_value(name, "pet_kind", PETS[word] if word not in ("pup", "puppy") else "dog", sure, m.start())
            continue
        rel = _relation_for(word)
        if rel:
            # a bracket may hold a word about them as well as their name ("my wife (nurse)"): a key, never an answer
            r.add("user", rel, span, 0.55 if m.group(3) else 0.7, m.start(), name=True)
            r.remember(low[span[0] : span[1]], _gender(word))

    # "i report to dana now", "i'm reporting to sam okafor from monday": the person's manager ------------------
    for m in re.finditer(r"\bi(?:'m|\s+am)?\s+(?:now\s+)?(?:report|reporting)\s+(?:directly\s+)?(?:in\s+)?to\s+", low):
        span = _name_at(low, orig, m.end())
        if span is not None and not CONDITION.search(low[max(0, m.start() - 30) : m.start()]):
            r.add("user", "boss", span, 0.6, m.start(), name=True)

    # "my kids, ada and leo," / "our daughters mia and zoe" -----------------------------------
    for m in re.finditer(
        rf"\b(?:my|our)\s+(?:two\s+|three\s+)?(kids|children|sons|daughters|twins|boys|girls)\s*[,:(]?\s*({_NAME})"
        rf"(?:\s*,\s*({_NAME}))?\s*(?:,\s*|\s+)(?:and|&)\s+({_NAME})\b",
        low,
    ):
        rel = {"sons": "son", "boys": "son", "daughters": "daughter", "girls": "daughter"}.get(m.group(1), "child")
        for gi in (2, 3, 4):
            if m.group(gi):
                span = _name_at(low, orig, m.start(gi), max_tokens=1)
                if span:
                    r.add("user", rel, span, 0.6, m.start(), name=True)

    # a child by their age: "ada (my 5yo)", "my 7 year old leo" --------------------------------------------------
    in_brackets = _at_words(rf"({_NAME})\s*\(\s*(?:my|our)\s+{_CHILD_AGE}\s*\)", low)
    aged = [(m.start(1), "child", m.start()) for m in in_brackets]  # (where the name is, relation, where said)
    for m in re.finditer(rf"\b(?:my|our)\s+{_CHILD_AGE}\s+(son|daughter|boy|girl|kid)\s+({_NAME})", low):
        rel = {"son": "son", "boy": "son", "daughter": "daughter", "girl": "daughter"}.get(m.group(1), "child")
        aged.append((m.start(2), rel, m.start()))
    for at, rel, cue_at in aged:
        span = _name_at(low, orig, at, max_tokens=1)
        if span and not r.of_the_work(low[span[0] : span[1]]):
            r.add("user", rel, span, 0.55, cue_at, name=True)  # "thinkpad (my 7yo)": a key, never an answer

    # "petra, my wife", "marisol (my sister", "petra is my wife" ---------------------------------------------
    for m in _at_words(
        rf"({_NAME})(?:,\s*|\s*\(\s*|\s+is\s+|'s\s+|’s\s+)(?:(?:she|he)'?s\s+)?(my|our)\s+{_MODS}"
        rf"({_KIN_ALT}|{_PET_ALT})\b(?!'s|’s){_NOT_IN_LAW}",
        low,
    ):
        span = _name_at(low, orig, m.start(1), max_tokens=1)
        if span is None or _name_at(low, orig, m.end()) is not None:
            continue
        word = m.group(3)
        if word in PETS:
            r.add("user", "pet", span, 0.65, m.start(2), name=True)
            r.add_value(low[span[0] : span[1]], "pet_kind", PETS[word], 0.65, m.start(2))
            continue
        rel = _relation_for(word)
        if rel:
            r.add("user", rel, span, 0.65, m.start(2), name=True)

    # "lucia and i got married", "me and sam are getting married": the person's spouse, a key. Not "married to our
    # jobs", not "should we get married", nor married in a game, a dream, an example or a joke
    if not _NOT_A_WEDDING.search(low):
        for m in re.finditer(
            rf"\b(?:me\s+(?:and|&)\s+({_NAME})|({_NAME})\s+(?:and|&)\s+(?:i|me))\s+(?:just\s+|finally\s+)?"
            rf"(?:got|are\s+getting|'re\s+getting)\s+married\b(?!\s+to\b)",
            low,
        ):
            span = _name_at(low, orig, m.start(1) if m.group(1) else m.start(2), max_tokens=1)
            if (
                span
                and not re.search(r"\b(?:the|a|an|my|our|his|her|their|your)\s+$", low[: span[0]])
                and not (r.of_the_work(low[span[0] : span[1]]) or _is_tool(low[span[0] : span[1]]))
                and not CONDITION.search(low[max(0, m.start() - 30) : m.start()])
            ):
                r.add("user", "spouse", span, 0.55, m.start(), name=True)

    # "i got engaged to ketaki", "patchy this month, got engaged to ketaki in december": the person's own engagement,
    # said by "i", or with no subject in a sentence the person is the subject of ("my sister, got engaged to tom" and
    # "tom texted: got engaged to lisa" are someone else's). Not "engaged to deliver", "engaged to acme on a contract"
    # (work: only "got engaged" is read), nor one called off, "engaged to june", "engaged to rachel's brother", "if
    # i got engaged to", a game or a joke. "married to" is not read: "i'm married to react" is a framework
    if not _NOT_A_WEDDING.search(low):
        for m in re.finditer(
            r"(?:(?:^|[,;(]\s*)(?=(?:just\s+|finally\s+)*got\b)|\bi\s+)(?:(?:just|finally|officially)\s+)*"
            r"got\s+engaged\s+to\s+",
            low,
        ):
            span = _name_at(low, orig, m.end(), max_tokens=1)
            before = low[_sentence_start(low, m.start()) : m.start()]  # the sentence up to it
            said_by_me = low[m.start() : m.start() + 2] == "i " or re.search(
                r"\b(?:i|i['’]?m|im|i['’]ve|i['’]ll)\b", before
            )
            if (
                span
                and said_by_me
                and not re.search(r"[:?]", before)
                and not re.match(r"['’]s\b", low[span[1] :])
                and low[span[0] : span[1]] not in _MONTHS
                and not _CALLED_OFF.search(low[span[1] :])
                and not (r.of_the_work(low[span[0] : span[1]]) or _is_tool(low[span[0] : span[1]]))
                and not CONDITION.search(low[max(0, m.start() - 30) : m.start() + 1])
            ):
                r.add("user", "fiance", span, 0.55, m.start(), name=True)

    # "marisol's flying in from lisbon friday (my sister, ...)" ----------------------------------------------
    for m0 in _at_words(
        rf"({_NAME})(?:'s|’s|\s+is|\s+was)\s+[^()]{{0,80}}\(\s*(?:(?:she|he)'?s\s+)?my\s+({_KIN_ALT})\b{_NOT_IN_LAW}",
        low,
    ):
        span = _name_at(low, orig, m0.start(1), max_tokens=1)
        rel = _relation_for(m0.group(2))
        if span and rel:
            r.add("user", rel, span, 0.6, m0.start(2), name=True)

    # "my wife's name is petra", "my dog is called biscuit", "our dog is also called basil" ------------------
    for m in re.finditer(
        rf"\b(my|our)\s+{_MODS}({_KIN_ALT}|{_PET_ALT})(?:'s|’s)?\s+(?:name\s+is|is\s+(?:also\s+)?(?:called|named))\s+",
        low,
    ):
        span = _name_at(low, orig, m.end())
        if span is None:
            continue
        word = m.group(2)
        if word in PETS:
            r.add("user", "pet", span, 0.75, m.start(), name=True)
            r.add_value(low[span[0] : span[1]], "pet_kind", PETS[word], 0.75, m.start())
        elif _relation_for(word):
            r.add("user", _relation_for(word) or "", span, 0.75, m.start(), name=True)

    # "his name is henryk" (a relative named in this or the previous message) ----------------
    for m in re.finditer(r"\b(his|her)\s+name\s*(?:is|'s)\s+", low):
        who = r.resolve(m.group(1))
        span = _name_at(low, orig, m.end())
        if who and span and who in KIN:
            rel = _relation_for(who, _gender(m.group(1)))
            if rel:
                r.add("user", rel, span, 0.6, m.start(), name=True)

    # pets: "basil (grandpa's corgi)", "pip (the cat)", "take biscuit to the vet", "walk biscuit" --------------
    for m in _at_words(rf"({_NAME})\s*\(\s*(?:({_NAME})(?:'s|’s)\s+|our\s+|my\s+|(the)\s+)({_PET_ALT})\b\s*\)?", low):
        span = _name_at(low, orig, m.start(1), max_tokens=1)
        if span:
            owner = m.group(2)
            if m.group(3):  # "(the cat)": the household's, said without whose, and so only in its own brackets
                if m.group(0).endswith(")"):  # maybe a neighbour's or a cafe's: a key, never an answer
                    r.add("user", "pet", span, 0.45, m.start(4), name=True)
                    r.add_value(low[span[0] : span[1]], "pet_kind", PETS[m.group(4)], 0.45, m.start(4))
                continue
            if owner is None:  # "(our dog)"
                r.add("user", "pet", span, 0.6, m.start(4), name=True)
            elif owner in KIN:  # "(grandpa's corgi)": the household's pet, said less directly
                r.add("user", "pet", span, 0.4, m.start(4), name=True)
            r.add_value(low[span[0] : span[1]], "pet_kind", m.group(4), 0.6, m.start(4))
    for m in re.finditer(
        rf"\b(?:take|taking|took|walk|walking|walked)\s+({_NAME})\s+(?:to\s+the\s+dog\s+park|to\s+the\s+vet|"
        r"round\s+the\s+block|around\s+the\s+block|for\s+a\s+walk|to\s+the\s+groomer)",
        low,
    ):
        span = _name_at(low, orig, m.start(1), max_tokens=1)
        if span:
            r.add("user", "pet", span, 0.45, m.start(), name=True)
            if "dog park" in m.group(0):
                r.add_value(low[span[0] : span[1]], "pet_kind", "dog", 0.5, m.start())
            elif re.search(r"walk|block", m.group(0)):
                r.add_value(low[span[0] : span[1]], "pet_kind", "dog", 0.35, m.start())

    # child: "ottilie (shes 6, year one)", "ferdinand starts at st brigid's monday" --------------------------
    for m in _at_words(rf"({_NAME})\s*[(,]\s*(she|he)(?:'s|’s|s)?\s+(\d{{1,2}})\b", low):
        span = _name_at(low, orig, m.start(1), max_tokens=1)
        if span and int(m.group(3)) < 18:
            grade = re.search(r"\b(grade|preschool|kindergarten|school|class|nursery|daycare)\b", low)
            rel = "daughter" if m.group(2) == "she" else "son"
            r.add("user", rel, span, 0.55 if grade else 0.45, m.start(), name=True)
            r.remember(low[span[0] : span[1]], "f" if m.group(2) == "she" else "m")
    for m in _at_words(
        rf"({_NAME})\s+(?:starts|started|starting|start)\s+(?:(\w+)\s+grade|preschool|kindergarten|nursery|"
        r"daycare|school|year\s+\d)\b",
        low,
    ):
        span = _name_at(low, orig, m.start(1), max_tokens=1)
        if span:
            after = low[m.end() :]
            g = re.search(r"\b(she|her|he|his|him)\b", after)
            rel = "child" if not g else ("daughter" if g.group(1) in ("she", "her") else "son")
            r.add("user", rel, span, 0.45, m.start(), name=True)
            r.remember(low[span[0] : span[1]], "" if not g else _gender(g.group(1)))

    # school: "mateo started at willow lane", "ferdinand starts at st brigid's monday" -----------------------
    for m in _at_words(
        rf"({_NAME})(?:,\s*(?:my|our)\s+\w+,)?\s+(?:starts|started|starting)\s+"
        r"(?:(?:school|preschool|kindergarten|nursery|daycare)\s+)?at\s+",
        low,
    ):
        subj = _name_at(low, orig, m.start(1), max_tokens=1)
        place = _place_at(low, orig, m.end())
        if subj and place and low[subj[0] : subj[1]] not in ("i", "we"):
            if words(low[place[0] : place[1]]) & _A_BUSINESS or _AT_WORK.search(low):
                continue  # "ani started at setu infra today": a job, not a school
            r.add(low[subj[0] : subj[1]], "school", place, 0.5, m.start(), name=True)

    # teacher: "her teacher is mr okafor", "ottilie's teacher is ms brandt" ----------------------------------
    for m in re.finditer(rf"\b(?:({_NAME})(?:'s|’s)|(her|his))\s+(?:new\s+)?teacher\s+(?:is|this\s+year\s+is)\s+", low):
        who = m.group(1) or r.resolve(m.group(2) or "")
        span = _name_at(low, orig, m.end())
        if who and span and not is_stop(who):
            r.add(who, "teacher", span, 0.6, m.start(), name=True)

    for m in re.finditer(rf"\bmy\s+({_KIN_ALT})(?:'s|’s)\s+(?:new\s+)?teacher\s+is\s+", low):
        span = _name_at(low, orig, m.end())
        rel = _relation_for(m.group(1))
        if span and rel:
            r.add(f"user:{rel}", "teacher", span, 0.6, m.start(), name=True)

    # a relative's relative: "my sister marisol and her husband anselm" ---------------------------------------
    for m in re.finditer(rf"\b(her|his)\s+({_KIN_ALT})\s+", low):
        who = r.resolve(m.group(1))
        span = _name_at(low, orig, m.end())
        rel = _relation_for(m.group(2))
        if who and span and rel and who not in KIN and not is_stop(who):
            r.add(who, rel, span, 0.55, m.start(), name=True)

    # named things: "petra named the kettle sir boilsalot", "my bike is called zippy" ------------------------
    for m in re.finditer(r"\bnamed\s+(?:the|my|our|his|her)\s+(\w+)\s+", low):
        thing = m.group(1)
        span = _name_at(low, orig, m.end(), max_tokens=3)
        if span and len(low[span[0] : span[1]].split()) == 3:  # "the robot vacuum dusty mcdustface"
            thing, rest = low[span[0] : span[1]].split(" ", 1)
            span = (span[1] - len(rest), span[1])
        if span and thing not in KIN:
            r.add(thing, "called", span, 0.6, m.start(), name=True)
    for m in re.finditer(r"\b(?:my|our)\s+(\w+(?:\s+\w+)?)\s+is\s+(?:also\s+)?(?:called|named)\s+", low):
        thing = m.group(1).split()[-1]
        span = _name_at(low, orig, m.end(), max_tokens=3)
        if span and thing not in KIN and thing not in PETS:
            r.add(thing, "called", span, 0.65, m.start(), name=True)

    # where the user lives ------------------------------------------------------------------
    home_cue = _HOME_CUE.search(low) is not None
    for pat, rel, conf, needs_home, subject_left_out in (
        (
            r"\b(?:i|we)\s+(?:now\s+|still\s+)?(?:live|living|'re\s+living|'m\s+living)\s+in\s+",
            "lives_in",
            0.7,
            False,
            False,
        ),
        (r"\b(?:i|we)\s+(?:just\s+|finally\s+)?moved\s+(?:in\s*to|to)\s+", "moved_to", 0.65, True, False),
        (r"\b(?:our|my)\s+new\s+(?:place|house|flat|apartment|home|condo)\s+in\s+", "lives_in", 0.6, False, False),
        (r"\bthe\s+new\s+(?:house|flat|apartment|home|condo)\s+in\s+", "lives_in", 0.55, False, False),
        (r"\bthe\s+new\s+place\s+in\s+", "lives_in", 0.55, True, False),
        (
            r"\b(?:found|bought|rented|got)\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,3}(?:flat|house|apartment|condo)\s+in\s+",
            "moved_to",
            0.5,
            False,
            True,  # "found a flat in X": whose find is the clause's subject, when one is said
        ),
        (r"\b(?:we're|we\s+are|i'm|i\s+am)\s+moving\s+to\s+", "moved_to", 0.5, True, False),
        (r"\boffer\s+accepted\s+on\s+the\s+", "moved_to", 0.45, True, False),
    ):
        if needs_home and not home_cue:
            continue
        for m in re.finditer(pat, low):
            span = _place_at(low, orig, m.end(), max_tokens=3)
            if (
                span
                and not _is_tool(low[span[0] : span[1]])
                and not low[span[0] : span[1]].endswith(("'s", "’s"))  # "moving to ani's cousin's flat": whose
                and not (subject_left_out and _someone_else_did(low[: m.start()]))
            ):
                r.add("user", rel, span, conf, m.start(), name=True)
    for m in re.finditer(r"\bmoved\s+into\s+the\s+", low):
        span = _place_at(low, orig, m.end(), max_tokens=2)
        if span and re.match(r"\s+(?:flat|house|apartment|place|condo|home)\b", low[span[1] :]):
            r.add("user", "moved_to", span, 0.6, m.start(), name=True)
    for m in re.finditer(r"\bback\s+(?:home\s+)?in\s+", low):
        span = _place_at(low, orig, m.end(), max_tokens=2)
        if span and re.match(r"\s+(?:tomorrow|tonight|on\s+\w+day|next\s+week|by\s+\w+)\b", low[span[1] :]):
            r.add("user", "home_city", span, 0.4, m.start(), name=True)
    for pat in (
        r"\bgrew\s+up\s+in\s+",
        r"\bgrowing\s+up\s+in\s+",
        r"\bborn\s+and\s+raised\s+in\s+",
        r"\bmy\s+home\s*town\s+(?:is\s+|of\s+)?",
    ):
        for m in re.finditer(pat, low):
            span = _place_at(low, orig, m.end(), max_tokens=3)
            if span:
                r.add("user", "grew_up_in", span, 0.7, m.start(), name=True)
    for m in re.finditer(r"\bin\s+", low):
        span = _place_at(low, orig, m.end(), max_tokens=3)
        if span and re.match(r"\s+when\s+i\s+was\s+(?:growing\s+up|a\s+kid|little|young)", low[span[1] :]):
            r.add("user", "grew_up_in", span, 0.6, m.start(), name=True)
    for m in re.finditer(r"\bi\s+live\s+with\s+(?:my\s+)?", low):
        span = _upto(low, m.end(), max_words=2)
        if span:
            word = low[span[0] : span[1]].split()[0]
            if word in KIN or is_name_token(word):
                end = span[0] + len(word)
                r.add("user", "lives_with", (span[0], end), 0.65, m.start(), name=word not in KIN)

    # where other people live -----------------------------------------------------------------
    for m in _at_words(
        rf"({_NAME})(?:(?:,\s*{_NAME})*(?:,?\s+and\s+{_NAME}))?(?:'s|’s|\s+is|\s+are)?\s+(?:(?:flying|flew|driving|drove)"
        r"\s+(?:in\s+|up\s+|down\s+|over\s+)?|(?:coming|came)\s+(?:up|down|over)\s+|visiting\s+)from\s+",
        low,
    ):
        place = _place_at(low, orig, m.end(), max_tokens=3)
        if not place or _is_tool(low[place[0] : place[1]]) or _RELOCATING.search(_lower(r.text), r.span[0]):
            continue
        for c in list(r.out):  # "my sister femke and her husband joost are visiting from ghent"
            if c.subject == "user" and c.relation in _AWAY_KIN and c.object.lower() in low[: m.start()]:
                r.add(c.object.lower(), "lives_in", place, 0.5, m.start(), name=True)
        for nm in re.finditer(_NAME, m.group(0)[: m.group(0).find(" from")]):
            tok = nm.group(0)
            if is_name_token(tok) and tok not in ("and",):
                r.add(tok, "lives_in", place, 0.5, m.start(), name=True)
    for m in re.finditer(
        rf"\b(?:at\s+)?({_NAME})(?:'s|’s)\s+(?:(?:place|flat|house|apartment|stairs|home)\s+)?in\s+", low
    ):
        who = m.group(1)
        place = _place_at(low, orig, m.end(), max_tokens=3)
        if place and is_name_token(who) and not _is_tool(low[place[0] : place[1]]):
            r.add(who, "lives_in", place, 0.45, m.start(), name=True)
    for m in re.finditer(rf"\b(?:my\s+({_KIN_ALT})|({_NAME}))\s+(?:still\s+|now\s+)?lives\s+in\s+", low):
        place = _place_at(low, orig, m.end(), max_tokens=3)
        if not place or _is_tool(low[place[0] : place[1]]):
            continue
        if m.group(1) and KIN.get(m.group(1)):
            r.add(f"user:{KIN[m.group(1)]}", "lives_in", place, 0.6, m.start(), name=True)
        elif m.group(2) and is_name_token(m.group(2)):
            r.add(m.group(2), "lives_in", place, 0.6, m.start(), name=True)

    # holidays: "taking the train to tallinn, christmas at my brother's" -------------------------------------
    hm = re.search(rf"\b({_HOLIDAY_ALT})\b", low)
    if hm:
        holiday = HOLIDAYS[hm.group(1)]
        for m in re.finditer(
            r"\b(?:train|flight|flying|fly|drive|driving|going|heading|off)\s+(?:up\s+|down\s+)?to\s+"
            r"|\b(?:spend(?:ing)?|spent)\s+(?:\w+\s+){0,2}in\s+",
            low,
        ):
            place = _place_at(low, orig, m.end(), max_tokens=2)
            if place:
                r.add(holiday, "holiday_in", place, 0.5, m.start(), name=True)
                break

    # car -----------------------------------------------------------------------------------
    if re.search(r"\b(car|drive|drives|driving|drove|bought|picked\s+up|leased|traded\s+in)\b", low):
        for m in _CAR_MAKE.finditer(low):
            if _not_had(low, m.start()):
                continue
            if m.group(1) in AMBIGUOUS_MAKES and re.search(r"\bcar\s+$", low[: m.start()]):
                continue  # a car seat, not a Seat
            end, model = m.end(), ""
            for a, b in _tokens_from(low, m.end()):
                tok = low[a:b]
                if any(c.isdigit() for c in tok) or (is_name_token(tok) and not _happened(tok)):
                    end, model = b, tok
                break
            if m.group(1) in AMBIGUOUS_MAKES and (not model or _NOT_A_MODEL.fullmatch(model)):
                continue  # "a mini pc" bought is no car
            r.add("user", "car", (m.start(1), end), 0.6, m.start(), name=True)
        for m in _CAR_MODEL.finditer(low):  # a model said alone: "picked up the prius today"
            if not _CAR_MAKE_BEFORE.search(low[: m.start(1)]) and not _not_had(low, m.start(1)):
                model = m.group(1)
                shown = model.upper() if len(model) <= 3 or re.search(r"[\d-]", model) else model.title()
                r.add_value("user", "car", shown, 0.6, m.start(1))

    # laptop --------------------------------------------------------------------------------
    for m in re.finditer(
        r"\bnew\s+(?:work\s+)?laptop(?:\s+(?:came|arrived|is\s+here|just\s+came))?[!.:,]*\s+"
        r"(?:(?:a|an|the|it's\s+a|its\s+a)\s+)?",
        low,
    ):
        span = _upto(low, m.end(), max_words=3)
        said = low[span[0] : span[1]].split()[0] if span else ""
        if span and is_name_token(said) and not _happened(said):
            r.add("user", "laptop", span, 0.55, m.start(), name=True)

    # job title / employer --------------------------------------------------------------------
    # "i'm now a senior engineer", "i'm tech lead for the squad", "promoted to staff engineer", "got the promo,
    # senior backend dev as of july 1"
    # (the person's own promotion: said by "i" or with no one else as its subject, not "dana got promoted to")
    own = r"(?:^|[,.;:!?(]\s*|\bi\s+|\bi'?ve\s+)(?:(?:just|finally|officially)\s+)*"
    for cue in (
        r"\bi'?m\s+(?:now\s+|officially\s+|finally\s+)*(?:a|an|the)?\s*",
        rf"{own}(?:got\s+|been\s+|was\s+|have\s+been\s+)?promoted\s+to\s+(?:a|an|the)?\s*",
        rf"(?:{own}got\s+(?:the|a|my)\s+promo(?:tion)?|\b(?:my|the)\s+promo(?:tion)?\s+(?:came|went)\s+through"
        r"|\bmy\s+promo(?:tion)?\s+is\s+official)\b(?:\s+btw)?[,:!]+\s*(?:i'?m\s+)?",
    ):
        for m in re.finditer(cue, low):
            span = _job_title_at(low, m.end(), strong=not cue.startswith(r"\bi'?m"))
            if span:
                r.add("user", "job_title", span, 0.6, m.start(), name=False)
    for m in re.finditer(r"\bi\s+(?:now\s+)?work\s+(?:at|for)\s+", low):
        span = _place_at(low, orig, m.end(), max_tokens=3)
        if span:
            r.add("user", "employer", span, 0.6, m.start(), name=True)

    # occupation of others: "birgit (she's a pharmacist)", "dagny wenzel (our team lead)" --------------------
    for m in _at_words(
        rf"({_NAME}(?:\s+{_NAME})?)(?:\s+from\s+\w+)?\s*\(\s*(?:(?:she|he|they)(?:'s|’s|s|\s+is)\s+)?"
        r"(?:(?:our|my|the|a|an|their|his|her)\s+)?([^()]{2,60}?)(?:[),]|\s+so\b|$)",
        low,
    ):
        span = _name_at(low, orig, m.start(1), max_tokens=2)
        role = m.group(2).strip()
        heads = [] if re.search(r"[:\d#@/]", role) else role.split()
        # the role's own last word, before where or whom it is for: "field technician", "production eng at the plant"
        core = re.split(r"\s+(?:at|for|of|in|on|from|with)\s+", role)[0].split()
        if (
            span
            and heads
            and (
                set(heads) & ROLE_HEADS
                or heads[-1].endswith(("ist", "ian"))
                or (len(core) <= 3 and not is_stop(core[0]) and core[-1] in _SHORT_ROLE_HEADS)
            )
        ):
            who = low[span[0] : span[1]]
            if not is_stop(who.split()[0]) and who.split()[0] not in KIN:
                r.add(who, "occupation", (m.start(2), m.start(2) + len(role)), 0.6, m.start(2), name=False)
    for m in re.finditer(
        r"\b(?:she|he)(?:'s|’s|s)\s+(?:the\s+)?((?:pm|product\s+manager|head|lead|manager)\s+(?:for|of)\s+[^(),.;]{2,40})",
        low,
    ):
        who = r.resolve("she" if low[m.start()] == "s" else "he")
        if who and not is_stop(who) and who not in KIN:
            r.add(who, "occupation", m.span(1), 0.5, m.start(), name=False)
    for m in _at_words(
        rf"({_NAME}(?:\s+{_NAME})?)\s+is\s+(?:now\s+)?(?:(?:our|my|the)\s+(?:new\s+)?)?((?:[\w-]+\s+){{0,3}}"
        r"(?:lead|head|manager|director|pm|cto|ceo|founder|owner)(?:\s+(?:of|for)\s+[\w\s+-]{2,40}?)?)(?=\s*[,.;()!]|\s+and\b|\s+(?:now|too|btw|again)\b|\s*$)",
        low,
    ):
        span = _name_at(low, orig, m.start(1), max_tokens=2)
        if span and low[span[0] : span[1]] not in ("i", "it", "he", "she", "this", "that", "there"):
            who = low[span[0] : span[1]]
            if who.split()[0] not in KIN and not is_stop(who.split()[0]):
                r.add(who, "occupation", m.span(2), 0.6, m.start(2), name=False)

    # colleagues and friends -------------------------------------------------------------------
    for m in _at_words(
        rf"({_NAME}(?:\s+{_NAME})?)\s+(?:starts|started|is\s+starting)\s+(?:on\s+)?(?:{_DAY_ALT}|"
        r"today|tomorrow|next\s+week|this\s+week)\b[^.]{0,30}\b(?:onboarding\s+buddy|mentor|new\s+hire)",
        low,
    ):
        span = _name_at(low, orig, m.start(1), max_tokens=2)
        if span:
            r.add("user", "colleague", span, 0.55, m.start(), name=True)
    for m in _at_words(rf"({_NAME})(?:'s|’s|\s+is)\s+pairing\s+with\s+me\b", low):
        span = _name_at(low, orig, m.start(1), max_tokens=1)
        if span:
            r.add("user", "colleague", span, 0.5, m.start(), name=True)
    for m in _at_words(rf"({_NAME})\s+is\s+(?:an?\s+)?(old\s+)?(family\s+)?friend\b", low):
        span = _name_at(low, orig, m.start(1), max_tokens=1)
        if span:
            rel = "family_friend" if m.group(2) else "friend"
            r.add("user", rel, span, 0.65, m.start(), name=True)
    for m in _at_words(
        rf"({_NAME})\s+(?:is|was)\s+(?:my|our)\s+(?:next[- ]door\s+)?neighbou?r\b"
        rf"|\b({_NAME})\s+lived\s+(?:two|three|a\s+few|\w+)\s+doors\s+down",
        low,
    ):
        which = 1 if m.group(1) else 2
        span = _name_at(low, orig, m.start(which), max_tokens=1)
        if span:
            r.add("user", "neighbour", span, 0.55, m.start(), name=True)

    # occupation: "iza, she's a physio" (pronoun after a name) ------------------------------------
    for m in _at_words(rf"({_NAME})\s*[(,]\s*(?:she|he)(?:'s|’s|s|\s+is)\s+an?\s+([\w-]+)\b", low):
        span = _name_at(low, orig, m.start(1), max_tokens=1)
        role = m.group(2)
        if span and (role in ROLE_HEADS or role.endswith(("ist", "ian"))):
            r.add(low[span[0] : span[1]], "occupation", m.span(2), 0.6, m.start(2), name=False)

    # schedule: "tuesdays are climbing night", "i'm only in the office tuesdays and thursdays" -----
    for m in re.finditer(
        rf"\b({_DAY_ALT})\s+(?:is|are)\s+(?:my\s+|our\s+)?([\w-]+)\s+(?:night|day|evening|morning)s?\b", low
    ):
        r.add(m.group(2), "schedule", m.span(1), 0.6, m.start(), name=False)
    for m in re.finditer(
        rf"\b(?:i'?m|i\s+am|i\s+work)\s+(?:only\s+|now\s+)?in\s+the\s+office\s+(?:on\s+)?((?:{_DAY_ALT})"
        rf"(?:\s*(?:and|&|/|-|–|to)\s*(?:{_DAY_ALT}))*)",
        low,
    ):
        r.add("office", "schedule", m.span(1), 0.6, m.start(), name=False)
    for m in re.finditer(rf"\b([\w-]+)\s+(?:is|are)\s+(?:on\s+)?({_DAY_ALT})\b", low):
        if m.group(1) in (
            "practice",
            "climbing",
            "bouldering",
            "yoga",
            "soccer",
            "football",
            "swimming",
            "gym",
            "choir",
            "band",
            "league",
            "class",
            "lesson",
            "lessons",
            "training",
            "run",
            "running",
        ):
            r.add(m.group(1), "schedule", m.span(2), 0.5, m.start(), name=False)

    # preferences: "use polars not pandas", "uv first, always", "i prefer x" ------------------
    for m in re.finditer(
        r"\b(?:i\s+(?:really\s+)?(?:prefer|love|like)|always\s+use|i\s+always\s+use|i\s+use)\s+"
        r"([\w+-]+(?:\.\w+)?)",
        low,
    ):
        if not is_stop(m.group(1)):
            r.add("user", "likes", m.span(1), 0.5, m.start(), name=False)
    for m in re.finditer(r"\buse\s+([\w.+-]+)\s+(?:not|instead\s+of|over|rather\s+than)\s+([\w.+-]+)", low):
        if not is_stop(m.group(1)):
            a, b = m.span(1)
            r.out.append(FactCandidate("user", "likes", orig[a:b], 0.55, orig, r.span))
    for m in re.finditer(r"\b([\w.+-]+)\s+first,?\s+always\b|\buse\s+([\w.+-]+)\s+(?:there\s+)?too\b", low):
        gi = 1 if m.group(1) else 2
        if not is_stop(m.group(gi)):
            r.add("user", "likes", m.span(gi), 0.5, m.start(), name=False)

    # allergy, birthday --------------------------------------------------------------------------
    for m in re.finditer(r"\b(i'?m|i\s+am|(\w+)\s+is)\s+allergic\s+to\s+", low):
        span = _upto(low, m.end(), max_words=3)
        if span:
            allergic = "user" if m.group(1).startswith("i") else (m.group(2) or "user")
            r.add(allergic, "allergy", span, 0.65, m.start(), name=False)
    for m in re.finditer(rf"\b(?:{_WHOSE}|(her|his))\s+{_BIRTHDAY}(?:\s+is|\s+was|'s|’s)\s+(?:on\s+)?", low):
        mine, kin, name, pronoun = m.group(1, 2, 3, 4)
        who = _whose_birthday(mine, kin, name) or r.resolve(pronoun or "")
        # the day ("the 9th so we're off": not the words after it), or a month ("in march"); never "3 days ago"
        day = _BIRTHDAY_DAY.match(low, m.end())
        span = day.span() if day else _upto(low, m.end(), max_words=3)
        if who and span and (day or re.search(rf"\b{_MONTH_WORD}\b", low[span[0] : span[1]])):
            r.add(who, "birthday", span, 0.6, m.start(), name=False)

    # age and school grade: "grandpa turns 91 next month", "ottilie starts 3rd grade tomorrow" ---------------
    _age_and_grade(r)
    _birthday_on_day(r)

    # remember names for pronouns in later sentences: a sentence that opens with a name -------
    first = next(_tokens_from(low, 0), None)
    if first:
        tok = low[first[0] : first[1]]
        if tok in KIN:
            r.remember(tok, _gender(tok))
        elif is_name_token(tok) and re.match(r"\s+\w+s\b", low[first[1] :]):
            pron = re.search(r"\b(she|her|he|his|him)\b", low[first[1] :])
            r.remember(tok, _gender(pron.group(1)) if pron else "")
    for m in re.finditer(rf"\b({_KIN_ALT})\b", low):
        if m.group(1) in MALE | FEMALE:
            r.remember(m.group(1), _gender(m.group(1)))


_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
_AGE = re.compile(
    rf"\b(?:(?:my|our)\s+)?(i|{_KIN_ALT}|{_NAME})\s+((?:just\s+)?(?:turns|turned|turn|is\s+turning|"
    r"will\s+turn|turning)\s+(\d{1,3}))\b(?!\s*(?:%|percent|degrees|times|minutes|hours|days|weeks|months|"
    r"ms|s\b|k\b))"
)
_GRADE = re.compile(
    rf"\b(?:(?:my|our)\s+)?({_KIN_ALT}|{_NAME})\s+(?:starts|started|is\s+starting|is\s+in|is\s+now\s+in|"
    rf"will\s+start|goes\s+into|went\s+into|moves\s+up\s+to|moved\s+up\s+to)\s+(?:the\s+)?"
    rf"((?:{_ORDINAL})\s+grade)\b"
)


_MONTH_WORD = (
    # "may" is the month unless a verb follows it ("the 3rd may be a sunday")
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may(?!\s+(?:be|have|not|need|want|get|also|well)\b)|june?"
    r"|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?"
    r"|nov(?:ember)?|dec(?:ember)?)"
)
_BIRTHDAY_DAY = re.compile(
    rf"(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?(?:\s+of)?\s+{_MONTH_WORD}\b|{_MONTH_WORD}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    r"|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b"
)
_DAY_WORD = r"(today|tomorrow|tmrw?|2moro|yesterday|yday)"  # as typed in full or in shorthand
_BIRTHDAY = r"(?:birthday|bday|b-day)"
# whose birthday: mine, a relative's ("my wife's", "mom's"; not "his wife's", "sam's wife's", "a friend's"), a name's
_WHOSE = (
    rf"(?:(my)|(?:(?:my|our)\s+|(?<!his )(?<!her )(?<!their )(?<!\ba )(?<!the )(?<!'s )(?<!’s ))({_KIN_ALT})(?:'s|’s)"
    rf"|({_NAME})(?:'s|’s))"
)


def _whose_birthday(mine: str | None, kin: str | None, name: str | None) -> str | None:
    """The subject of a birthday `_WHOSE` matched: the person, their relative, or someone named (never a relative's
    word or a function word read as a name: "his wife's", "everyone's")."""
    if mine:
        return "user"
    if kin:
        return f"user:{KIN[kin]}"
    return name if name and name not in KIN and not is_stop(name) else None


_BIRTHDAY_ON_DAY = (
    re.compile(rf"\b{_DAY_WORD}(?:'s|’s|\s+is|\s+was)\s+{_WHOSE}\s+{_BIRTHDAY}\b"),
    re.compile(rf"\b{_WHOSE}\s+{_BIRTHDAY}\s+(?:is|was)\s+{_DAY_WORD}\b"),
)


# "turned 31 today", "just turned 40 yesterday": the person's own birthday, said with no subject as a sentence's start,
# at an adult's age (a child's "turned 9 today" is more likely the person's child's, "turned 500" a count's)
_TURNED_ON_DAY = re.compile(r"^(?:i\s+)?(?:just\s+)?turned\s+(?:1[6-9]|[2-9]\d)\s+(today|yesterday)\b")


def _birthday_on_day(r: _Reader) -> None:
    """ "tomorrow's petra's birthday", "turned 31 today": the birthday is a day word, made a date from the turn's day
    when asked."""
    for m in _TURNED_ON_DAY.finditer(r.low):
        r.add("user", "birthday", m.span(1), 0.6, m.start(), name=False)
    for i, pattern in enumerate(_BIRTHDAY_ON_DAY):
        for m in pattern.finditer(r.low):
            day_group, first = (1, 2) if i == 0 else (4, 1)
            who = _whose_birthday(m.group(first), m.group(first + 1), m.group(first + 2))
            if who:
                r.add(who, "birthday", m.span(day_group), 0.6, m.start(), name=False)


def _person_subject(word: str) -> str | None:
    """The subject a person word stands for: "user", "user:<relation>" for a kin word, or the name."""
    if word == "i":
        return "user"
    if word in KIN:
        return f"user:{KIN[word]}"
    return word if is_name_token(word) else None


def _age_and_grade(r: _Reader) -> None:
    for m in _AGE.finditer(r.low):
        who = _person_subject(m.group(1))
        if who and 0 < int(m.group(3)) <= 120:
            r.add(who, "age", m.span(2), 0.6, m.start(), name=False)
    for m in _GRADE.finditer(r.low):
        who = _person_subject(m.group(1))
        if who and who != "user":
            r.add(who, "grade", m.span(2), 0.6, m.start(), name=False)


def extract_sentence(
    text: str, sentence: Sentence, antecedents: list[tuple[str, str]] | None = None
) -> list[FactCandidate]:
    """Facts from one own sentence of `text` (which must already have passed `judge_sentence`)."""
    reader = _Reader(text, sentence, antecedents if antecedents is not None else [])
    _rules(reader)
    seen: set[tuple[str, str, str]] = set()
    out: list[FactCandidate] = []
    for c in reader.out:
        key = (c.subject, c.relation, c.object.lower())
        if key in seen or c.object.lower() not in c.quote.lower():
            continue
        seen.add(key)
        out.append(c)
    return out


def extract(text: str, *, context: str = "") -> list[FactCandidate]:
    """Facts the person states about their life in a typed message.

    `context` is optional: the person's previous own message in the same session, used only to
    resolve "his name is ..." to a relative named there. It never yields facts itself.
    """
    antecedents: list[tuple[str, str]] = []
    if context:
        for s in own_sentences(context):
            low = _lower(s.text)
            for m in re.finditer(rf"\b({_KIN_ALT})\b", low):
                if m.group(1) in MALE | FEMALE:
                    antecedents.append((m.group(1), _gender(m.group(1))))
    out: list[FactCandidate] = []
    announced: str | None = None
    for s in own_sentences(text):
        if not judge_sentence(s.text).ok:
            announced = None
            continue
        out.extend(extract_sentence(text, s, antecedents))
        if announced:
            out.extend(_announced_value(announced, s))
        arrived = _ARRIVED.search(_lower(s.text))
        announced = arrived.group(1) if arrived else None
    return out


_ARRIVED = re.compile(
    r"\bnew\s+(?:work\s+)?(laptop|phone|car)\s+(?:came|arrived|is\s+here|showed\s+up|got\s+here)[!.\s]*$"
)


def _announced_value(thing: str, s: Sentence) -> list[FactCandidate]:
    """ "new work laptop came! framework 13, amd one." -> laptop = the next sentence's first phrase."""
    low = _mask(_lower(s.text))
    span = _upto(low, 0, max_words=3)
    if span is None or not is_name_token(low[span[0] : span[1]].split()[0]) or negated_clause(low, 0):
        return []
    if thing == "car" and low[span[0] : span[1]].split()[0] not in CAR_MAKES:
        return []
    value = display(s.text[span[0] : span[1]])
    return [FactCandidate("user", thing, value, 0.5, s.text, s.span)]


def confirmed_facts(assistant_text: str, reply: str) -> list[FactCandidate]:
    """Facts in the assistant's guess that the person's very next reply confirms ("yes, maria").

    A reply that corrects the guess ("no, she's my sister") confirms nothing. The quote is the
    guess restated in the person's voice; the span is the guess's span in `assistant_text`; the
    confidence is capped at 0.6, since the words were the assistant's and the person only agreed.
    """
    out: list[FactCandidate] = []
    for g in confirmed_guess(assistant_text, reply):
        for c in extract(g.text):
            out.append(FactCandidate(c.subject, c.relation, c.object, min(c.confidence, 0.6), c.quote, g.span))
    return out

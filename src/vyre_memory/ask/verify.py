"""The second look: for answers about people and relations, a strict verify prompt rereads the cited turns.

Guarantees:
- `needs_second_look(qclass, answer)` is pure: true for the person, relation and who-said classes, or when the
  answer names a relation between people ("wife", "my manager", "neighbour", "sister-in-law" ...).
- `verify(...)` never raises for anything a model does: an error, a timeout, unreadable output, no backend or no
  cited passage all count as not agreeing, with the reason. Only `ModelCallsForbidden` propagates.
- the pipeline (`pipeline.py`, stage 6) calls `verify` for an answer that `needs_second_look`: one that is not
  agreed with becomes an abstention.
- Deterministic: the same inputs make the same request (the same request key).
- `own_words_check(...)` is the code trust rule, no model: an answer that tells who someone is to the person
  ("Your wife is Dani"; "Dani" to "what's my wife's name"; see `user_relations`) agrees only when each name and
  relation it tells is a stored personal fact, or is said in an own sentence of a cited turn the person typed in
  a session they ran (the trust rules of `read/`: not a question, quote, paste, joke or negation), in a turn
  that carries no injection and a sentence that is no instruction to an AI (`injection`): "my wife dani", or a
  bare family word set right by the name ("dani (wife)", "dani, thats mum"; `_bare_names_it` lists the guards);
  or the person's fiance in what memory knows, once an own sentence says they married. Tool
  output, assistant turns, pasted mail and an obliging verify model never make one. An answer that tells no such
  relation agrees.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from vyre_memory.contract import TYPED, Passage
from vyre_memory.errors import ModelCallsForbidden, ModelError, ModelOutputError, ModelTimeout
from vyre_memory.models.base import ModelBackend
from vyre_memory.read.relations import KIN, PARTNER_RELATIONS, PEOPLE_RELATIONS
from vyre_memory.read.rules import extract
from vyre_memory.read.trust import judge_sentence, judge_turn, own_sentences

from ..models.base import complete
from ..text import names_match
from . import grounding
from .injection import carries_injection, is_instruction
from .personal_questions import parse_personal_question
from .prompts import verify as prompt

__all__ = [
    "SECOND_LOOK_CLASSES",
    "UserRelation",
    "VerifyResult",
    "needs_second_look",
    "own_words_check",
    "user_relations",
    "verify",
]

DEFAULT_TIMEOUT_S = 0.7
SECOND_LOOK_CLASSES = frozenset({"person", "relation", "who-said"})

_RELATION = re.compile(
    r"\b(?:wife|husband|spouse|partner|fianc[eé]e?|boyfriend|girlfriend|ex|married|dad|father|mom|mum|mother|"
    r"parents?|sons?|daughters?|sisters?|brothers?|siblings?|twins?|kids?|child|children|baby|nephew|niece|cousin|"
    r"aunt|uncle|grand\w+|step\w+|god(?:son|daughter|father|mother)|\w+-in-law|in-laws|boss|manager|"
    r"report|teacher|doctor|dentist|therapist|landlord|neighbou?rs?|friends?|colleagues?|co-?workers?|"
    r"roommates?|flatmates?|mentor|relatives?|related|family)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class VerifyResult:
    agrees: bool
    reason: str
    cost_usd: float = 0.0
    latency_ms: float = 0.0


def needs_second_look(qclass: str, answer: str | None) -> bool:
    """Whether an answer says who someone is to the user, or a relation between people."""
    return qclass in SECOND_LOOK_CLASSES or bool(answer and _RELATION.search(answer))


def verify(
    question: str,
    answer: str,
    cited: Sequence[Passage],
    backend: ModelBackend | None,
    *,
    now: datetime,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    model: str = "",
    user_name: str = "",
    later: Sequence[Passage] = (),
) -> VerifyResult:
    """Whether a strict reread of `cited` supports `answer` (and, with `later`, whether a newer passage about the
    question has changed it); anything short of a clear yes is a disagreement."""
    start = time.perf_counter()

    def done(agrees: bool, reason: str, cost: float = 0.0) -> VerifyResult:
        return VerifyResult(agrees, reason, cost, (time.perf_counter() - start) * 1000)

    if backend is None:
        return done(False, "no model for the second look")
    if not cited:
        return done(False, "nothing cited to verify")
    req = prompt.request(
        question, answer, cited, now=now, timeout_s=timeout_s, model=model, user_name=user_name, later=later
    )
    try:
        response = complete(backend, req)
    except ModelCallsForbidden:
        raise
    except ModelTimeout:
        return done(False, "model timeout")
    except ModelError as exc:  # a failed second look is a disagreement (a bug is raised)
        return done(False, f"model error: {type(exc).__name__}: {exc}")
    try:
        out = prompt.parse(response.text)
    except ModelOutputError:
        return done(False, "unparseable output", response.cost_usd)
    reason = out.reason or ("supported" if out.supported else "not supported")
    return done(out.supported, reason, response.cost_usd)


# ---------------------------------------------------------------- the code trust rule for who someone is to the user
#
# A model answer that says who someone is to the person ("Your wife is Dani", "Dani" to "what's my wife's
# name") is told only when what memory knows from the person's own words agrees: a stored personal fact (the
# fact store holds only what the trust rules read in the person's own typed words), or a cited turn the person
# typed, in a session they ran, whose own sentence (not a question, quote, paste, joke or an instruction to an
# AI) names that person with that relation. A model, an assistant turn, tool output or pasted mail never makes
# one; neither does a verify model that agrees.

_RELATION_WORDS: dict[str, str] = {w: r for w, r in KIN.items() if r in PEOPLE_RELATIONS}
# A relation word also covers the narrower ones: "your partner" is told by a fact "wife". A wife or husband is
# told by a spouse too ("sam and i got married" says who, not which word the person would use).
_COVERS: dict[str, frozenset[str]] = {
    "partner": PARTNER_RELATIONS | {"spouse"},
    "wife": frozenset({"wife", "spouse"}),
    "husband": frozenset({"husband", "spouse"}),
    "child": frozenset({"child", "son", "daughter"}),
    "son": frozenset({"son", "child"}),
    "daughter": frozenset({"daughter", "child"}),
    "friend": frozenset({"friend", "family_friend"}),
    "family_friend": frozenset({"family_friend", "friend"}),
    "spouse": frozenset({"wife", "husband", "partner", "spouse"}),
}
_REL_ALT = "|".join(sorted((re.escape(w) for w in _RELATION_WORDS), key=len, reverse=True))
_CHAIN = rf"(?:(?:{_REL_ALT})(?:'s|’s)\s+(?:[\w-]+\s+){{0,2}}?)*"
_NEAR_WORDS = 3  # a name within three words of the relation word is the one it names


@dataclass(frozen=True)
class UserRelation:
    """One relation an answer tells of the person: the related person's name, the relation, and whether it
    is reached through someone else ("your wife's sister"), so its subject is not the person."""

    name: str
    relation: str
    chained: bool = False


# words between an owner and a relation that make it one no longer, or not the owner's ("my ex wife", "my former
# manager", "my friend's wife")
_NOT_BETWEEN = r"(?!(?:ex|ex-\w+|former|previous|his|her|their|its)\b)"


def _mention(owner: str, between: int = 2) -> re.Pattern[str]:
    """'<owner> [up to `between` words] [relation's ...] relation', e.g. 'your older sister', 'my wife's brother'."""
    return re.compile(
        rf"(?<![\w'’]){owner}\s+(?:{_NOT_BETWEEN}[\w-]+\s+){{0,{between}}}?(?P<chain>{_CHAIN})(?P<rel>{_REL_ALT})"
        rf"(?P<in_law>[-\s]+in[-\s]+law)?(?:s|'s|’s)?\b",
        re.IGNORECASE,
    )


def _relation_of(m: re.Match[str]) -> str:
    """The relation a mention names: "your father-in-law" is not "your father", but a relation of its own."""
    rel = _RELATION_WORDS[m.group("rel").lower()]
    return f"{rel}_in_law" if m.group("in_law") else rel


_MARRIED = re.compile(r"\byou(?:'re|’re|\s+are|\s+were|\s+got)\s+(?P<rel>married|engaged)\s+to\b", re.IGNORECASE)
# "my", "our", and as a person who writes some of their life in another language types them ("camille is ma fiancée",
# "mi esposa", "meine frau"; the kinship words read are in several languages too, read.relations.KIN), those right
# before the relation word only ("mi presenta il marito" is "introduces me to her husband")
_OWN_MENTIONS = (
    _mention(r"(?:my|our)"),
    _mention(
        r"(?:ma|mon|mes|notre|mi|mis|nuestra|nuestro|minha|meu|nossa|nosso|mio|mein|meine|unsere?|mijn|onze|moja|mój|moj)",
        between=0,
    ),
)


def _your(user_name: str) -> re.Pattern[str]:
    owner = r"(?:your|the\s+user['’]s"
    if user_name.strip():
        owner += rf"|{re.escape(user_name.strip())}['’]s"
    return _mention(owner + ")")


def _word_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"[\w'’-]+", text)]


def _words_between(spans: list[tuple[int, int]], a: int, b: int) -> int:
    """How many words lie between character offsets a <= b."""
    return sum(1 for s, e in spans if s >= a and e <= b)


def _nearest(text: str, start: int, end: int, candidates: Sequence[str]) -> str | None:
    """The candidate name said nearest the span [start, end) of `text`, within `_NEAR_WORDS` words."""
    spans = _word_spans(text)
    best: tuple[int, int, str] | None = None
    low = text.lower()
    for name in candidates:
        for m in re.finditer(rf"(?<![\w]){re.escape(name.lower())}(?![\w])", low):
            if m.start() >= end:
                gap, side = _words_between(spans, end, m.start()), 0
            elif m.end() <= start:
                gap, side = _words_between(spans, m.end(), start), 1
            else:
                continue
            if gap <= _NEAR_WORDS and (best is None or (gap, side) < best[:2]):
                best = (gap, side, name)
    return best[2] if best else None


def user_relations(question: str, answer: str, *, user_name: str = "") -> list[UserRelation]:
    """The relations `answer` tells of the person, each with the name it gives: from the answer's own words
    ("Your wife is Dani", "Dani, your wife", "you're married to Dani") or, when it names no relation, from a
    question that asks for one ("what's my wife's name" answered "Dani"). Empty when it tells none."""
    user = user_name.strip().lower()
    people = [n for n in grounding.names(answer) if n.lower() != user and n.lower() not in _RELATION_WORDS]
    out: list[UserRelation] = []
    mentioned = False
    for m in _your(user_name).finditer(answer):
        mentioned = True
        name = _nearest(answer, m.start(), m.end(), people)
        if name is not None:
            out.append(UserRelation(name, _relation_of(m), bool(m.group("chain"))))
    for m in _MARRIED.finditer(answer):
        mentioned = True
        name = _nearest(answer, m.start(), m.end(), people)
        if name is not None:
            out.append(UserRelation(name, "spouse" if m.group("rel").lower() == "married" else "fiance"))
    if mentioned:
        return out
    query = parse_personal_question(question)
    if query is not None and query.reverse is None and query.relation in PEOPLE_RELATIONS:
        chained = bool(query.via) or query.subject != "user"
        out.extend(UserRelation(n, query.relation, chained) for n in people)
    return out


def _fact_agrees(rel: UserRelation, facts: Sequence[tuple[str, str, str]]) -> bool:
    covers = _COVERS.get(rel.relation, frozenset({rel.relation}))
    return any(
        relation in covers and (rel.chained or subject == "user") and names_match(rel.name, obj)
        for subject, relation, obj in facts
    )


def _own_sentences_of(cited: Sequence[Passage]) -> list[str]:
    """The sentences of cited turns that are the person's own words stating something (trust rules of read/),
    without any turn that carries an injection or any sentence that instructs an AI."""
    out: list[str] = []
    for p in cited:
        if p.kind != TYPED or not judge_turn(p.kind, p.session_kind, p.text).ok or carries_injection(p.text):
            continue
        out.extend(s.text for s in own_sentences(p.text) if judge_sentence(s.text).ok and not is_instruction(s.text))
    return out


def _sentence_agrees(rel: UserRelation, sentence: str) -> bool:
    covers = _COVERS.get(rel.relation, frozenset({rel.relation}))
    for c in extract(sentence):
        if c.relation in covers and (rel.chained or c.subject == "user") and names_match(rel.name, c.object):
            return True
    names = [rel.name, *rel.name.split()[:1]]
    for m in (m for mention in _OWN_MENTIONS for m in mention.finditer(sentence)):
        if _relation_of(m) not in covers or (bool(m.group("chain")) and not rel.chained):
            continue
        if m.group(0).endswith(("'s", "’s")) and not re.match(r"\s+name\b", sentence[m.end() :], re.IGNORECASE):
            continue  # "jordan is my sister's friend": whose, not who ("my wife's name is dani" names her)
        if _names_it(sentence, m.start(), m.end(), names):
            return True
    return not rel.chained and _bare_names_it(sentence, names, covers)


# Bare, only a family word says whose it is ("jordan (wife)"); "ma", "pop", "bro", "mate" or a job word do not.
_BARE_RELATIONS = frozenset(
    "wife husband partner fiance son daughter child mother father sister brother grandmother grandfather".split()
)
_NOT_BARE = frozenset("ma pa pop bro sis mate pal kid kiddo baby gf bf mann mari frau femme".split())
_BARE_WORDS = (re.escape(w) for w, r in _RELATION_WORDS.items() if r in _BARE_RELATIONS and w not in _NOT_BARE)
_BARE_ALT = "|".join(sorted(_BARE_WORDS, key=len, reverse=True))
# Before the name: someone else's family, another relation or role, a wedding, or what is no family at all ("tom's
# family is visiting: rita (wife)", "he brought his kid leo (son)", "jen married mark (husband)", "my brother and kate
# (wife)", "seed jo (wife) and al (husband)"); anywhere: an end ("jordan (wife) and i split up") or a pair
_SOMEONE_ELSES = re.compile(
    rf"\b(?:his|her|their|its|couple|coworkers?|colleagues?|friends?|clients?|customers?|users?|boss|manager|ceo|"
    rf"cto|vp|lead|team|landlord|neighbou?rs?|cat|dog|pet|{_REL_ALT})\b|"
    r"\b(?!(?:it|that|let|what|there|here|who|where|how)['’]s\b)\w+['’]s\b",
    re.IGNORECASE,
)
_NO_LONGER = re.compile(
    r"\b(?:married|divorced?|separated|split|broke\s+up|left\s+me|late|rip|ex|wedding|congrats|"
    r"character|persona|mascot|bot|game|series|show|film|movie|book|novel|plot|story|screenplay|script|scene|episode|"
    r"ticket|demo|seeds?|fixtures?|mock|sample|example|placeholder|enum|class|tests?|chart|say|suppose|imagine)\b|"
    r"\(\s*(?:wife|husband)\s*\).*\(\s*(?:wife|husband)\s*\)",
    re.IGNORECASE,
)
# After the name: that it is no person of the family ("luna (wife) is our cat", "max (husband) is a character")
_NOT_A_PERSON = re.compile(
    r"^\W*(?:is|was|are)\s+(?:just\s+)?(?:our|my|a|an|the)\s+(?:\w+\s+)?(?:cat|dog|pet|mascot|bot|character|persona|"
    r"fixture|sample|placeholder|test|user|customer|tenant|node)\b|\b\w+['’]s\s+(?:" + _REL_ALT + r")\b",
    re.IGNORECASE,
)
# a name said after another person or after what someone else did: "paul and jordan (wife)", "dave brought jordan"
_JOINED = re.compile(
    r"(?:(?<!\bme\s)\band|&|\+|\bn|\by|\bund|\bet|\bbrought|\bmet|\bmeets|\bsaid|\bfrom|:|\bwith|"
    r"\b(?:came|come|comes|arrived|showed\s+up|turned\s+up)\s+w)\s*$",
    re.I,
)


def _bare_names_it(sentence: str, names: Sequence[str], covers: frozenset[str]) -> bool:
    """Whether a family word with no owner, set right by a name, names it: "ani (husband)", "(husband, ani)",
    "rosa, thats mum." Said so in the person's own words, the relation is theirs; not when someone else's family,
    another relation or role comes before the name (`_SOMEONE_ELSES`) or the name comes after another person
    (`_JOINED`), nor when the sentence says it ended or is a story, ticket or fixture (`_NO_LONGER`) or what follows
    says it is no person (`_NOT_A_PERSON`). One with an owner ("her husband"), a chain ("husband's", "husband of"),
    an in-law or more words in its brackets ("(wife, not mine)") is not read here."""
    for name in dict.fromkeys(n for n in names if n.strip()):
        n = re.escape(name)
        for pattern in (
            rf"(?<![\w'’]){n}\s*\(\s*(?P<rel>{_BARE_ALT})\s*\)",
            rf"(?<!\w)\(\s*(?P<rel>{_BARE_ALT})\s*[,:]?\s*{n}\s*\)",
            rf"(?<![\w'’]){n}['’\"]?\s*[,;-]?\s*(?:that['’]?s|this\s+is)\s+(?P<rel>{_BARE_ALT})"
            r"(?=\s*(?:[.!,;)]|$|\s+(?:lol|haha)\b))",
        ):
            for m in re.finditer(pattern, sentence, re.IGNORECASE):
                before, after = sentence[: m.start()], sentence[m.end() :]
                if (
                    _RELATION_WORDS[m.group("rel").lower()] in covers
                    and not _SOMEONE_ELSES.search(before)
                    and not _NO_LONGER.search(sentence)
                    and not _NOT_A_PERSON.search(after)
                    and not _JOINED.search(before)
                ):
                    return True
    return False


def _names_it(sentence: str, start: int, end: int, names: Sequence[str]) -> bool:
    """Whether the mention `sentence[start:end]` ("my wife") names one of `names` by apposition or copula:
    "my wife Dani", "my wife, Dani", "my wife is Dani", "my wife's name is Dani", "Dani, my wife", "Dani (my wife",
    "Dani is my wife", "Dani is officially my fiancée", "with Dani as my manager". A name merely near it ("my wife
    hates Dani", "my wife and Dani") is not named by it."""
    before, after = sentence[:start], sentence[end:]
    for name in dict.fromkeys(n for n in names if n.strip()):
        n = re.escape(name)
        if re.match(
            rf"(?:['’]s)?(?:\s*,\s*|\s+|\s+name\s+(?:is|was)\s+|\s+(?:is|was)\s+(?:called\s+|named\s+)?|"
            rf"\s*['’]s\s+(?:called\s+|named\s+)?){n}(?![\w'’])",
            after,
            re.IGNORECASE,
        ):
            return True
        if re.search(
            rf"(?<![\w'’]){n}(?:\s*,\s*|\s*\(\s*|\s+(?:is|was|as)\s+(?:(?:now|officially|finally|still)\s+)?|\s*['’]s\s+)$",
            before,
            re.IGNORECASE,
        ):
            return True
    return False


# "officially married now", "we got married on saturday", "married man now": the person says they married, naming no
# one (not "am married to this bug", "my sister got married", "dani and i got married": that names whom; not "married
# couple in the story", "married man in the novel")
_GOT_MARRIED = re.compile(
    r"(?:\b(?:we|i)(?:['’](?:re|m|ve))?\s+(?:(?:just|finally|officially)\s+)?(?:got\s+|are\s+|am\s+|have\s+been\s+)?"
    r"|^\W*(?:(?:officially|finally|just)\s+)?(?:got\s+)?)married\b(?:\s+(?:man|woman)(?=\s+now\b))?"
    r"(?=\s*(?:$|[.!,;:)]|now\b|today\b|yesterday\b|last\b|on\b|this\b|lol\b|haha\b|at\b|in\s+(?:the|a)\b))",
    re.IGNORECASE,
)
# a wedding to come: "once we're married", "we're married in 3 weeks", "we are married next saturday"
_TO_COME = re.compile(
    r"\b(?:once|when|will|['’]ll|gonna|going\s+to|next|soon|until|till|in\s+\d+|planning|plan)\b", re.IGNORECASE
)
_NAMES_WHOM = re.compile(r"\b(?:and\s+i|and\s+me|me\s+and|with)\b", re.IGNORECASE)


def _married_since(rel: UserRelation, facts: Sequence[tuple[str, str, str]], sentences: Sequence[str]) -> bool:
    """Whether a wife, husband or spouse told is the person's fiance in what memory knows, and an own sentence of a
    cited turn says the person has married since ("officially married now lol")."""
    return (
        not rel.chained
        and rel.relation in ("wife", "husband", "spouse", "partner")
        and any(s == "user" and r == "fiance" and names_match(rel.name, o) for s, r, o in facts)
        and any(_GOT_MARRIED.search(s) and not _NAMES_WHOM.search(s) and not _TO_COME.search(s) for s in sentences)
    )


def own_words_check(
    question: str,
    answer: str,
    cited: Sequence[Passage],
    facts: Sequence[tuple[str, str, str]],
    *,
    user_name: str = "",
) -> VerifyResult:
    """The code trust rule: an answer telling who someone is to the person agrees with the person's own words.

    `facts` are (subject, relation, object) of stored personal facts the asker may see (none for an agent).
    Agrees when the answer tells no such relation, or when every relation it tells (name and relation) is a
    stored fact or is stated in an own sentence of a cited typed turn. Pure; no model.
    """
    start = time.perf_counter()
    told = user_relations(question, answer, user_name=user_name)
    sentences = _own_sentences_of(cited) if told else []
    for rel in told:
        if not (
            _fact_agrees(rel, facts)
            or any(_sentence_agrees(rel, s) for s in sentences)
            or _married_since(rel, facts, sentences)
        ):
            reason = f"not in the person's own words: {rel.relation.replace('_', ' ')} {rel.name}"
            return VerifyResult(False, reason, 0.0, (time.perf_counter() - start) * 1000)
    return VerifyResult(
        True,
        "agrees with the person's own words" if told else "tells no relation to the person",
        0.0,
        (time.perf_counter() - start) * 1000,
    )

"""The diagnosis: for "why did X happen" / "what caused X", what the assistant found before it proposed a fix.

An assistant turn that settles a bug has a shape: it opens with a finding ("Found it", "Confirmed:",
"That confirms it", "There it is") or it goes on to a proposal ("Fix:", "Proposed fix:", "Suggested
fix:"). The text before the proposal is the cause as found. Guarantees: the answer is the first
sentences of one cited assistant passage (the quote is the answer itself), so it is grounded by
construction; it is told only from one of the top five passages whose turn (and what was asked of it)
names a third of the question's words, in the top passage's session or one holding two of the top five;
otherwise None.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from ..contract import Passage
from ..read.trust import judge_sentence, judge_turn
from .extract import _SENTENCE, _VERSION, Extracted, _overlap, _terms
from .understand import Understanding

DIAGNOSIS_CONFIDENCE = 0.55
CAUSE_QUESTION = re.compile(
    r"^(?:why\b|what (?:caused|broke|went wrong)\b|what was wrong\b|what happened (?:with|to|during)\b)"
    r"|\bwhat was the \w+(?: \w+){0,4} (?:problem|issue)\b"
)
_OPENER = re.compile(
    r"^\W*(?:found it|confirmed|that confirms it|there it is)\b|^\W*(?:the )?root cause\W*(?::|is\b|was\b)", re.I
)
_PROPOSAL = re.compile(r"(?:^|\n)\W*(?:proposed |suggested |the )?fix(?:es)?\W*:", re.I)
_QUESTION_WORDS = frozenset({"caus", "cause", "wrong", "broke", "why", "problem", "issue", "happen", "get", "gett"})
_REASON = re.compile(r"\b(?:because|due to|caused by)\b", re.I)
_MIN_ANSWER = 120
_MAX_ANSWER = 400


def diagnosis(u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    """The first sentences of the top assistant turn that states a finding, up to its proposed fix."""
    terms = _terms(u) - _QUESTION_WORDS
    top = passages[:5]
    for p in top:
        if p.kind != "assistant" or not terms or _overlap(p.about or p.text, terms) < 1 / 3:
            continue
        # the finding is in the episode retrieval ranks first, or in one that holds two of its top five:
        # a lone turn of another session found a different bug in the same code
        if p.session != top[0].session and sum(q.session == p.session for q in top) < 2:
            continue
        proposal = _PROPOSAL.search(p.text)
        if not (_OPENER.search(p.text) or proposal):
            continue
        finding = p.text[: proposal.start()] if proposal else p.text
        answer = _first_sentences(finding)
        if answer:
            return Extracted(answer, DIAGNOSIS_CONFIDENCE, (p,), answer, "diagnosis")
    return _because(u, terms, passages) if u.question.lower().startswith("why") else None


def _because(u: Understanding, terms: set[str], passages: Sequence[Passage]) -> Extracted | None:
    """For "why": an assistant sentence of the top four that gives a reason ("because", "due to") and
    names three quarters of the question's words, every version it names included."""
    versions = [v.lstrip("vV") for v in _VERSION.findall(" ".join(u.terms))]
    for p in passages[:4]:
        if p.kind != "assistant":
            continue
        for sentence in _SENTENCE.split(p.text):
            sentence = sentence.strip(" -*>\t")
            if not 40 <= len(sentence) <= _MAX_ANSWER or not _REASON.search(sentence):
                continue
            if all(v in sentence for v in versions) and _overlap(sentence, terms) >= 0.75:
                return Extracted(sentence, DIAGNOSIS_CONFIDENCE, (p,), sentence, "because")
    return None


def _first_sentences(text: str) -> str:
    """Whole sentences from the start until there is enough to say what was found (at most 400 characters)."""
    out = ""
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip(" -*>\t")
        if not sentence:
            continue
        if out and len(out) + len(sentence) + 1 > _MAX_ANSWER:
            break
        out = f"{out} {sentence}".strip()
        if len(out) >= _MIN_ANSWER:
            break
    return out[:_MAX_ANSWER]


HAPPENED_QUESTION = re.compile(r"^what happened (?:to|with)\b")
_CLAUSE = re.compile(r"(?<=[.!?:;])\s+|\n+")
_MIN_CLAUSE_WORDS = 6
_ASKS_WHAT_HAPPENED = re.compile(r"\bwhat(?:'s| has| had)? happen(?:ed|s|ing)?\b", re.I)
_ADDRESSED = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)  # "sorry to hear about your job": no account


def happened(u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    """ "What happened to X in September": the person's own clause about X, said inside the question's window.

    Told (0.55) only when exactly one substantive clause (six words or more) of the person's typed turns
    in the window names every word of the question; several such clauses leave it under every threshold.
    A clause said to someone ("sorry to hear about your job, John") is a reply, not an account."""
    window, terms = u.window, _terms(u) - {"happen", "happened"}
    if window is None or not terms:
        return None
    found: dict[str, Passage] = {}
    for p in passages[:8]:
        when = _moment(p.ts)
        if p.kind != "typed" or when is None or not window.contains(when):
            continue
        if not judge_turn(p.kind, p.session_kind, p.text).ok:  # the person's own words, in a session they ran
            continue
        for clause in _CLAUSE.split(p.text):
            clause = clause.strip(" -*>\t")
            # a question ("can you find out what happened to …?") or a hypothetical ("if … goes down") is no account
            if not judge_sentence(clause).ok or _ASKS_WHAT_HAPPENED.search(clause) or _ADDRESSED.search(clause):
                continue
            if len(clause.split()) >= _MIN_CLAUSE_WORDS and _overlap(clause, terms) >= 0.999:
                found.setdefault(clause[:_MAX_ANSWER], p)
    if not found:
        return None
    clause, p = next(iter(found.items()))
    confidence = DIAGNOSIS_CONFIDENCE if len(found) == 1 else 0.4
    return Extracted(clause, confidence, (p,), clause, "happened")


def _moment(ts: str | None) -> datetime | None:
    if not ts:
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None

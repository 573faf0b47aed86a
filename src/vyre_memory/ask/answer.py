"""The model answer step: the question and the top passages in, a cited answer or an abstention out.

Guarantees:
- Never raises for anything a model does (errors, timeouts, garbage): every failure is an abstention with a
  `reason`. Only `ModelCallsForbidden` (a real call under tests) propagates, because it is a bug, not weather.
- Code checks, not the model, decide whether an answer is told: every cite must be one of the passages given
  (1..N), and every name, number, date, file name and identifier in the answer must appear in the cited passages
  (`grounding.check`). A failed check means abstain. A cited passage that gives instructions to an AI
  (`injection.carries_injection`: "ignore previous instructions", a fake answer JSON, "NOTE TO ANY AI: say …")
  is untrusted: it grounds nothing and is dropped from the sources, so an answer cited only to such text
  abstains, and each claim must be in a clean cited passage.
- An aside that names only the value an answer replaced ("1Gi (raised from 512Mi)") is dropped before the checks:
  a question about a value is told the value, not its history; the working of a change ("(from 160 to 190)") stays
  only when the value alone is not grounded, and a value asked for is told without its bracketed detail
  or a clause after its first comma that names another value.
- Output that does not parse is retried once (a request with a note, so its own key); a second failure abstains.
  A timeout is not retried. Each call is bounded by `timeout_s`, so the step takes at most `2 * timeout_s`
  (and only `timeout_s` when the first call times out).
- An abstention has `answer=None`, `confidence=0.0` and no citations except when the model itself abstained;
  `known` keeps only the model's facts whose names and numbers are found in the passages.
- Deterministic: the same inputs make the same requests (the same request keys); no clock but `perf_counter`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from vyre_memory.contract import Passage
from vyre_memory.errors import ModelCallsForbidden, ModelError, ModelOutputError, ModelTimeout
from vyre_memory.models.base import ModelBackend, ModelRequest

from ..models.base import complete
from . import grounding
from .injection import carries_injection
from .prompts import answer as prompt
from .prompts import project_of

__all__ = ["AnswerResult", "answer_with_model", "check_answer", "evidence"]

DEFAULT_TIMEOUT_S = 1.5


@dataclass(frozen=True)
class AnswerResult:
    answer: str | None
    confidence: float
    abstained: bool
    cite: list[Passage] = field(default_factory=list)
    known: list[str] = field(default_factory=list)
    reason: str = ""  # why it abstained; "" when it answered
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    calls: int = 0


def evidence(p: Passage) -> str:
    """What a cited passage grounds: its text, its speaker, its project and its date (all shown to the model)."""
    return grounding.passage_evidence(p.text, name=p.name, ts=p.ts, project=project_of(p.cwd))


def _abstain(reason: str, *, known: Sequence[str] = (), cite: Sequence[Passage] = ()) -> AnswerResult:
    return AnswerResult(answer=None, confidence=0.0, abstained=True, cite=list(cite), known=list(known), reason=reason)


def _grounded_known(known: Sequence[str], passages: Sequence[Passage]) -> list[str]:
    ev = grounding.Evidence(evidence(p) for p in passages if not carries_injection(p.text))
    return [k for k in known if grounding.check(k, ev).ok]


# "1Gi (raised from 512Mi)", "3 May (moved from 15 April)": an aside naming only what a value replaced is history,
# not the answer (a question about the value now must not be told the old one); the working of a change,
# "(from 160 to 190)", "(160 → 190)", stays
_CHANGED = (
    r"raised|lowered|increased|decreased|reduced|bumped|moved|changed|switched|migrated|upgraded|downgraded"
    r"|rescheduled|postponed|pushed|renamed|resized|swapped|reverted|returned|back|up|down"
)
# a day or a deadline moved: "December 5, extended from Nov 28" (not "MyError, extended from ValueError")
_MOVED_DAY = (
    r"(?:extended|delayed|brought\s+forward|pushed\s+back)\s+from\s+(?=\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov"
    r"|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*\b)"
)
_HISTORY_ASIDE = re.compile(
    rf"\s*\((?:(?:was|previously|formerly|replacing|instead\s+of)\s|[^()]*\b(?:{_CHANGED})\s+from\s"
    r"|[^()]*\breplac(?:ed|ing)\s+(?!by\b)"  # "(set up in june; replaced the old runner)"
    r"|[^()]*\b(?:swapped|traded|exchanged)\s[^()]*\bfor\b"  # "(swapped the old lease for it)"
    # "(she left the pharmacy)", "(quit the gym)"; not "(left of the avatar)", "(quit and save)"
    r"|(?:(?:he|she|they|i|we|you)\s+)?(?:left|quit)\s+"
    r"(?!(?:and|or|without|of|to|for|over|outer|join|side|hand|click|the\s+keys)\b)"
    r"|(?:[^()]*\s)?after\s+leaving\s"
    # "(self-hosted runners dropped on 9 April)": what was given up, and when (not "(dropped on 9 April)": that is the
    # answer's own)
    r"|\s*[\w-][^()]*\s(?:dropped|retired|decommissioned|abandoned|phased\s+out|ditched)\s+(?:on|in|since|after|back|last)\s"
    r")[^()]*\)"
    # "8 GB, resized from 4 GB in may", "2 GB; raised from 1 GB", "slog, replacing zap since 1.0", "(since 3.5; was 15)"
    rf"|[,;]\s+(?:was\s+(?=(?:[\w.-]+\s+)?[$€£]?\d)|(?:previously|formerly)\s|(?:[\w-]+\s+){{0,2}}?(?:{_CHANGED})\s+from\s"
    rf"|{_MOVED_DAY}"
    r"|replac(?:ed|ing)\s+(?!by\b))[^,;()]*",
    re.I,
)
_WORKING = re.compile(r"\sto\s|→|->", re.I)
# A question asking for a value as it was before ("how many replicas before the migration", "what was the quota at
# the start") is not told the value that came after it: an aside saying what it is now or was changed to goes
# ("1 (now 2)", "1800 a month (raised to 2600 in november)", "one replica; now there are two").
_EARLIER = re.compile(
    r"\b(?:before|originally|original|initially|at first|at the (?:start|beginning)|used to|previously|first)\b", re.I
)
_LATER_ASIDE = re.compile(
    rf"\s*\([^()]*\b(?:now|currently|today|(?:{_CHANGED})\s+to)\b[^()]*\)"
    rf"|[,;]\s+(?:(?:and|but)\s+)?(?:now|currently|today|(?:[\w-]+\s+){{0,2}}?(?:{_CHANGED})\s+to)\b[^,;()]*",
    re.I,
)
# "Postgres, not MySQL", "async (not a synchronous call)": an aside naming what the answer is not, the alternative
# passed over, is not the answer either. It ends where its clause does; a "not" that qualifies ("not until friday",
# "not counting the intern", "no, not anymore") is no alternative and stays.
_QUALIFIER = (
    r"(?:until|till|yet|any\s?more|anymore|before|after|since|counting|including|only|just|always|quite|really|"
    r"sure|much|many|for|in|at|on|all|every|exactly|necessarily)\b"
)
# ... and so is one naming what it is compared with ("0.829, vs 0.824 for the last model")
_NOT = (
    r"(?:not|rather than|instead of|(?:chosen|picked|preferred|taken)\s+over|vs\.?|versus|compared\s+(?:with|to))"
    rf"\s(?!{_QUALIFIER})"
)
# ... and so is a bracketed reason the alternative lost ("Meilisearch (the hosted one was too expensive)")
_PASSED_OVER = r"\s*\([^()]*\b(?:was|were|is|are)\s+(?:too\b|ruled\s+out|rejected|dropped)[^()]*\)"
_IN_CLAUSE = r"(?:[^,;()—–]|,(?=\d))"  # a clause's text, a number's thousands comma ("$1,600") in it
_CONTRAST_ASIDE = re.compile(
    rf"{_PASSED_OVER}|\s*\({_NOT}[^()]*\)|(?:,|\s[—–-])\s+{_NOT}{_IN_CLAUSE}*?(?=\s*(?:[;)—–]|,(?!\d))|\.(?:\s|$)|$)",
    re.I,
)
_YES_NO = re.compile(r"\W*(?:yes|no|yeah|nope|yep)\W*", re.I)
# A value asked for is not told with what it is measured against ("$1,420, under the $1,600 estimate"); to a question
# asking why, or of the measure or the difference ("what is our target", "how far over budget"), that is the answer.
_AGAINST = r"(?:under|over|above|below|within)\s+(?:the|our|its|their)\s"
_MEASURE = r"\b(?:estimate|budget|target|forecast|projection)\b"
_MEASURED = re.compile(rf"{_MEASURE}|\b(?:over|under|above|below|vs\.?|versus|compared)\b", re.I)  # asked of it
_COMPARED_ASIDE = re.compile(
    rf"(?:,|\s[—–-])\s+{_AGAINST}{_IN_CLAUSE}*?{_MEASURE}{_IN_CLAUSE}*?(?=\s*(?:[;)—–]|,(?!\d))|\.(?:\s|$)|$)"
    rf"|\s*\({_AGAINST}[^()]*{_MEASURE}[^()]*\)",
    re.I,
)


# "when did we deploy 0.7.0" answered "not deployed yet": a question of when told that it has not happened has no
# answer; what the model said is what memory knows
_WHEN = re.compile(r"^\W*(?:and |so )?(?:when\b|what (?:date|day)\b)", re.I)
_NOT_HAPPENED = re.compile(
    r"^\W*(?:not|no|never|none|(?:it |that )?(?:has|have|had|is|was|did|does)(?:n'?t| not))\b", re.I
)


# "which version shipped the redis adapter" answered "None: it was declined": a question asking which thing or who
# told that there is none has no answer either (not "how many", where none is a count, nor a yes or no question)
_WHICH = re.compile(r"^\W*(?:and |so )?(?:which|what|who|whose|where)\b(?!\s+(?:many|much)\b)", re.I)
_NONE = re.compile(r"^\W*(?:none|nothing|nobody|no\s+one)\b(?!\s+(?:of|until|before|more|less)\b)", re.I)
# ... when what follows says it did not happen ("None: the store was declined"), not when none is the value ("None,
# all tests passed", "None (no timeout unless you pass one)")
_DID_NOT = re.compile(
    r"\b(?:declined|dropped|rejected|cancell?ed|abandoned|reverted|scrapped|turned\s+down|called\s+off|no\s+such|"
    r"never\s+(?:shipped|happened|released|existed|built|made|merged|published|fixed|done)|"
    r"(?:not|n['’]t)\s+(?:\w+\s+)?(?:shipped|released|built|merged|published|deployed|exist)\b)",
    re.I,
)
_A_VALUE_OF_NONE = re.compile(r"\b(?:return\w*|default\w*|type|value|set\s+to|null)\b", re.I)


def not_happened(question: str, answer: str) -> bool:
    """Whether `answer` to a question of when says it has not happened, its first clause naming no day ("not
    deployed yet: planned for march, nothing went out on 1 feb"; not "not until 3 march"), or `answer` to a question
    of which thing, who or where says there is none ("None: the store was declined")."""
    head = re.split(r"[:;,(—–]|\s-\s", answer, maxsplit=1)[0]
    if _WHICH.match(question) and not _A_VALUE_OF_NONE.search(question) and (none := _NONE.match(answer)):
        return bool(_DID_NOT.search(answer, none.end()))
    return bool(_WHEN.match(question) and _NOT_HAPPENED.match(answer) and not grounding.named_dates(head))


def without_later(question: str, answer: str) -> str:
    """`answer` to a question asking for an earlier value without asides telling the value that came after it."""
    return _LATER_ASIDE.sub("", answer).strip() if _EARLIER.search(question) else answer


def without_measure(question: str, answer: str) -> str:
    """`answer` to a question asking for a value without an aside naming what the value is measured against, unless
    the question asks of the measure or the difference."""
    return answer if _MEASURED.search(question) else _COMPARED_ASIDE.sub("", answer).strip() or answer


def without_history(answer: str) -> str:
    """`answer` without asides that name only the value it replaced, or the alternative it is not."""
    kept = _HISTORY_ASIDE.sub(lambda m: m.group(0) if _WORKING.search(m.group(0)) else "", answer)
    return _CONTRAST_ASIDE.sub(lambda m: m.group(0) if _YES_NO.fullmatch(kept[: m.start()]) else "", kept).strip()


# What follows an answer's value: an aside in brackets, after a semicolon or a dash, or after a comma
_DETAIL = re.compile(r"\s+\(|;\s|\s[—–-]\s|,\s")


def _cuts(text: str) -> list[int]:
    """Where `text`'s asides begin (`_DETAIL`), never inside a date written with commas ("Sunday, August 2, 2026")."""
    dates = grounding.date_spans(text)
    return [m.start() for m in _DETAIL.finditer(text) if not any(a <= m.start() < b for a, b in dates)]


_VALUE_WORDS = 8  # the most words a value is told in (`check_answer`)
_ONE_NAME = frozenset({"who-said"})  # question classes whose answer is one name
# Questions that ask for a value (understand's classes), not for a cause, a reason or a way ("why", "how did we fix"):
# their answer is the value, and what a model adds in brackets or after a semicolon is detail its sources carry. Such
# detail often names another value ("2500 ms (1500 to 2500 on 12 April)", "88 (51 belongs to the other pair)",
# "in the old flat; you move on 5 june"), which a reader takes for the answer.
_VALUE_CLASSES = frozenset("number date deploy place person relation tool thing file preference who-said other".split())
_EXPLAINS = re.compile(r"^\W*(?:and |so |but )?(?:why|how)\b(?!\s+(?:many|much|long|old|far|often|big|fast))", re.I)
_YES_NO_FIRST = re.compile(r"\W*(?:yes|no|yeah|nope|yep)\b", re.I)
# a no answering a yes or no question names what it denies as the question does: that name stands in the question
_NO_FIRST = re.compile(r"\W*(?:no|nope)\b", re.I)
_IDENTIFIER = re.compile(r"\w[-_.]\w|\d")  # a value grounding does not check: "time-machine", "pg_dump"
_BRACKETED = re.compile(r"\s+\([^()]*\)")  # an aside; "numeric(19,4)" and "f()" are values
_AFTER_SEMICOLON = re.compile(r";\s.*$", re.S)
# an aside after a dash starts with a word or a quote, in lower case; a range does not ("2 – 3 days", "Aug 2 – Aug 5",
# "v1.2 – v1.4")
_DASH_ASIDE = re.compile(r"\s[—–-]\s+(?=[a-z\"'“‘])(?!v\d)")
# A clause after the value's first comma that says what it replaced, when it was set or what else holds ("900 seconds,
# set in february and not changed to 420 until may", "ADR 15, which supersedes ADR 11"); never a list ("Ana, Bram").
_AFTER_CLAUSE = re.compile(
    r",\s+(?:which|who|whose|set|not|since|until|after|before|replacing|replaced|superseding|supersedes|superseded|"
    r"up from|down from|was|were|previously|formerly|then|changed|raised|lowered|moved)\b.*$",
    re.I | re.S,
)
# "who is dani", "who's marc aubry": what someone is, not a name (an answer told whole); "who is my manager" and "who
# was at the standup" ask for one
_WHO_IS = re.compile(r"^\W*(?:and |so )?who(?:'s|’s| is| was) (?!(?:my|our)\b)[\w'’.-]+(?: [\w'’.-]+)?\W*$", re.I)
_NUMBER = re.compile(r"\d[\d.:,]*")


# a day named in part: by its number ("the 19th"), its weekday, or day and month in figures that may be either ("11/10")
_PART_OF_DAY = re.compile(
    rf"\b(?:(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}/\d{{1,2}}|{'|'.join(grounding.WEEKDAYS)})\b", re.I
)


# "list the queues and their limits", "which files did we touch", "every server type in order": a question asking for
# several things is answered by all of them, never by the first of its list
_MANY = re.compile(
    r"^\W*(?:and |so )?(?:list|name (?:all|every|each))\b|\bin order\b(?!\s+to\b)|"
    r"^\W*(?:what|which|give|show|list)\b.*\ball the\b|"
    r"\band (?:their|its)\b|^\W*(?:and |so )?(?:what|which)\s+(?:are|were)\s+(?:the|all)\b|"
    r"^\W*(?:and |so )?(?:which|what)\s+(?!(?:did|does|do|is|was|are|were|has|had|have|will|would|can|could)\b)"
    r"(?!of\b)(?:[a-z0-9][\w-]*\s+){0,2}?(?<!\bof\s)"
    r"(?!(?:does|goes|has|this|yes|postgres|kubernetes|jenkins|dns|cors|aws|redis|ios|macos|windows|news)\b|[\w-]*js\b)"
    r"[a-z][\w-]*[^suia\W]s\s+"
    r"(?:did|do|does|have|has|had|were|are|am|got|went|failed|broke|changed|need|needed|use|used|run|ran|support)\b",
    re.I,
)


def asks_many(question: str) -> bool:
    """Whether `question` asks for several things (`_MANY`): its answer is told whole, not cut to its first value."""
    return bool(_MANY.search(question)) and not _EXPLAINS.match(question)


def asks_value(question: str, qclass: str) -> bool:
    """Whether `question` asks for a value (its answer is told without bracketed or trailing detail)."""
    return qclass in _VALUE_CLASSES and not _EXPLAINS.match(question) and not _WHO_IS.match(question)


def bare(answer: str) -> str:
    """`answer` without its asides in brackets (but the whole day beside a value that names it in part,
    `_PART_OF_DAY`), what follows a semicolon, a dash's aside and a clause after its first comma (`_AFTER_CLAUSE`)
    that name another value; a yes or no answer is kept whole (its detail is the answer)."""
    if _YES_NO_FIRST.match(answer):
        return answer
    value = _BRACKETED.sub("", answer)
    if not value.strip():
        return answer
    # "the 19th (19 August)", "11/10 (11 October)": the one day a bracket names, kept when it turns nothing
    day = ""
    if _PART_OF_DAY.search(value) and not grounding.named_dates(value):
        days = (m.group(0) for m in _BRACKETED.finditer(answer) if len(grounding.named_dates(m.group(0))) == 1)
        day = next((d for d in days if not _TURN.search(d)), "")
    plain = _AFTER_SEMICOLON.sub("", value).strip()
    dash = _DASH_ASIDE.search(plain)  # "7 July — 'yesterday' in your 8 July message"
    if dash is not None and _values(plain[dash.end() :]) - _values(plain[: dash.start()]):
        plain = plain[: dash.start()].strip()
    comma = next((c for c in _cuts(plain) if plain.startswith(", ", c)), None)
    clause = _AFTER_CLAUSE.match(plain, comma) if comma is not None else None
    if comma is not None and clause is not None and _values(clause.group(0)) - _values(plain[:comma]):
        plain = plain[:comma].strip()
    return plain + day


def _values(text: str) -> set[str]:
    """The names and numbers `text` says."""
    return set(grounding.claims(text)) | set(_NUMBER.findall(text))


# words that turn or narrow what was said before them: an aside or a tail holding one may reverse the answer ("... (only
# on staging)", "..., then moved it back", "..., but it was rolled back"), so it is never cut away from it
_TURN = re.compile(
    r"\b(?:not|never|no\s+longer|only|except|but|however|though|although|until|unless|later|then|yet|reverted|"
    r"rolled\s+back|vetoed|undone|cancell?ed)\b",
    re.I,
)


# a part that ends in a word that needs what follows it: the aside cut away was inside a phrase
_DANGLING = re.compile(
    r"\b(?:a|an|the|no|not|of|to|for|with|by|from|in|on|at|into|via|as|than|and|or|but|because|so|my|our|your|their|"
    r"its|his|her|this|that|these|those|is|are|was|were|be|been)$",
    re.I,
)


def _grounded_part(answer: str, texts: Sequence[str]) -> tuple[str, grounding.GroundingResult] | None:
    """The most of `answer` the texts ground, with its check: the answer without its bracketed asides, else the longest
    part of it before one of its asides (`_DETAIL`); None when no such part is grounded, for a yes or no (what follows
    it says what holds), or when what would be cut away turns the answer (`_TURN`). A cause told whole may name what
    its sources do not ("X used 600MB on the box (a host no passage names) and got killed, so ..."; "...; the
    FooController bailed out"): what it says around that is still the answer, not only its first clause."""
    if _YES_NO_FIRST.match(answer):
        return None
    plain = _BRACKETED.sub(lambda m: m.group(0) if _TURN.search(m.group(0)) else "", answer)
    parts = [plain] if plain != answer else []
    for whole in dict.fromkeys([plain, answer]):
        for cut in reversed(_cuts(whole)):
            part = whole[:cut].strip(" .;,")
            if _TURN.search(whole[cut:]):
                break  # a shorter part would drop the turn too
            # not inside an aside ("shipped (v2.38.2, by ..."), nor cut inside a phrase ("because there was no")
            if part.count("(") == part.count(")") and not _DANGLING.search(part):
                parts.append(part)
    for part in dict.fromkeys(parts):
        if part and grounding.claims(part) and (found := grounding.check(part, texts)).ok:
            return part, found
    return None


def value_first(answer: str) -> str:
    """The answer's value alone: what comes before its first aside (the prompt asks for the value first, so an
    aside is detail). '' when there is no aside, or when the aside is inside a phrase ("there was no (a, b) index")."""
    cuts = _cuts(answer)
    head = (answer[: cuts[0]] if cuts else answer).strip(" .")
    return head if head != answer.strip(" .") and not _DANGLING.search(head) else ""


def check_answer(
    out: prompt.AnswerOutput,
    passages: Sequence[Passage],
    *,
    current: bool = False,
    one_name: bool = False,
    value: bool = False,
    many: bool = False,
    asked: frozenset[str] = frozenset(),
) -> AnswerResult:
    """Turn what the model said into a result, by the code checks (citations, grounding); no model involved.
    An answer whose aside the cited text does not hold is told without its bracketed asides, or up to the last of its
    asides, whichever is grounded (`_grounded_part`: a cause keeps its "so ..."); a value asked for (`value`,
    `asks_value`), as its value alone (`value_first`) when that is grounded. So is a value asked for as it is now
    (`current`: an aside beside it may name the value it replaced), and a name asked for (`one_name`: who said or did
    something) whose aside names someone else. Any other value asked for is told without its bracketed and trailing
    detail (`bare`) when that is grounded; a value is a few words (`_VALUE_WORDS`), and an answer whose value part is
    longer is told as an answer to any other question. A yes or no answer is cut so only when it is not grounded
    whole: what follows it says what holds instead. An answer to a question asking for several things (`many`,
    `asks_many`) is never cut to its first value: told whole, or up to one of its asides, or not at all. A "No"
    may name what it denies as the question does (`asked`, the question's claims in lower case) though no passage
    writes it so ("are we on fly.io now": "No, the Fly.io move was called off" where the texts say "fly")."""
    known = _grounded_known(out.known, passages)
    valid = [i for i in dict.fromkeys(out.cite) if 1 <= i <= len(passages)]
    if out.abstain or out.answer is None:
        return _abstain("model says not sure", known=known, cite=[passages[i - 1] for i in valid])
    bad = [i for i in dict.fromkeys(out.cite) if not 1 <= i <= len(passages)]
    if bad:
        return _abstain(f"bad citation: {bad[0]} is not one of 1..{len(passages)}", known=known)
    if not valid:
        return _abstain("bad citation: none given", known=known)
    cited = [passages[i - 1] for i in valid]
    # text that gives instructions to an AI is untrusted: it grounds nothing, and is not a source
    clean = [p for p in cited if not carries_injection(p.text)]
    if not clean:
        return _abstain("untrusted: the cited text gives instructions to an AI", known=known)
    answer = without_history(out.answer) or out.answer
    # a value is a few words: an answer whose value part is a sentence describes ("drivers saw delivery windows 2h
    # off (the cut-off was built in UTC)"), and what it says in brackets is part of the description
    value = value and len(bare(answer).split()) <= _VALUE_WORDS
    texts = [evidence(p) for p in clean]
    result = grounding.check(answer, texts)
    if not result.ok and _NO_FIRST.match(answer) and all(m.lower() in asked for m in result.missing):
        result = grounding.GroundingResult(ok=True, missing=[])  # "No, the move to X was called off" to "are we on X"
    head = "" if many else value_first(answer)
    alone_asked = current or (one_name and bool(set(grounding.names(answer)) - set(grounding.names(head))))
    # a yes or no is not a value: what follows it says what holds instead ("No: since 18 May, events go over X"),
    # so it is cut only when the whole is not grounded
    alone_asked = alone_asked and not _YES_NO_FIRST.match(answer)
    if not result.ok and not alone_asked and not value and (longest := _grounded_part(answer, texts)) is not None:
        answer, result = longest
    # the head is checked again: a worked-out value keeps its working (alone it is not grounded)
    elif (
        head
        and grounding.claims(head)
        and (alone_asked or not result.ok)
        and (alone := grounding.check(head, texts)).ok
    ):
        answer, result = head, alone
    elif (
        value
        and (plain := bare(answer)) != answer
        and (grounding.claims(plain) or _IDENTIFIER.search(plain))  # it still names something: "88", "time-machine"
        and (alone := grounding.check(plain, texts)).ok
    ):
        answer, result = plain, alone
    if not result.ok:
        where = "clean cited text" if len(clean) < len(cited) else "cited text"
        return _abstain(f"ungrounded: {result.missing[0]!r} not in {where}", known=known)
    return AnswerResult(answer=answer, confidence=out.confidence, abstained=False, cite=clean, known=known)


def answer_with_model(
    question: str,
    passages: Sequence[Passage],
    backend: ModelBackend | None,
    *,
    now: datetime,
    qclass: str,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    model: str = "",
    user_name: str = "",
    current: bool = False,
) -> AnswerResult:
    """Ask `backend` to answer `question` from `passages`, all of them (the caller bounds what is read: the
    pipeline hands over as many as fill the reading budget, configs.answer_chars), then check what it says.
    `current`: the question asks for a value as it is now (its value alone is told, `check_answer`)."""
    start = time.perf_counter()
    shown = list(passages)
    cost, calls = 0.0, 0

    def done(result: AnswerResult) -> AnswerResult:
        return replace(result, cost_usd=cost, calls=calls, latency_ms=(time.perf_counter() - start) * 1000)

    if not shown:
        return done(_abstain("no passages"))
    if backend is None:
        return done(_abstain("no model"))
    req: ModelRequest = prompt.request(
        question, shown, now=now, qclass=qclass, timeout_s=timeout_s, model=model, user_name=user_name
    )
    for attempt in (1, 2):
        calls += 1
        try:
            response = complete(backend, req)
        except ModelCallsForbidden:
            raise
        except ModelTimeout:
            return done(_abstain("model timeout"))
        except ModelError as exc:  # a backend's failure is an abstention (a bug in our code is raised)
            return done(_abstain(f"model error: {type(exc).__name__}: {exc}"))
        cost += response.cost_usd
        try:
            out = prompt.parse(response.text)
        except ModelOutputError:
            if attempt == 1:
                req = prompt.retry_request(req)
                continue
            return done(_abstain("unparseable output"))
        if out.answer and not out.abstain and not_happened(question, out.answer):
            known = _grounded_known([out.answer, *out.known], shown)
            return done(_abstain("it has not happened", known=known))
        many = asks_many(question)
        one_name, value = qclass in _ONE_NAME and not many, asks_value(question, qclass) and not many
        if value and out.answer:
            out = replace(out, answer=without_measure(question, without_later(question, out.answer) or out.answer))
        asked = frozenset(c.lower() for c in grounding.claims(question))
        return done(
            check_answer(
                out, shown, current=current and not many, one_name=one_name, value=value, many=many, asked=asked
            )
        )
    raise AssertionError("unreachable")  # pragma: no cover

"""Question understanding without a model: time window, question class, search terms, entities.

Guarantees:
- Pure and deterministic: no I/O, no clock, no model, no global state changes. ``now`` (the question's time)
  is always passed in; the same (question, now) always gives the same ``Understanding``.
- Fast: precompiled regular expressions, about 0.2 ms per question (``bench/understand.py``); only the first
  ``MAX_CHARS`` characters are read, so even a pasted blob takes a few milliseconds at most. A question in
  another language has its time words translated by dateparser (its first question in that language loads
  the translator, tens of milliseconds once per process).
- ``window`` is a half-open UTC interval [start, end) or ``None``; see ``timewords`` for what each phrase means.
  A time still ahead of ``now`` (or, in a question about what is ahead, not yet over) is no window: it says when
  something will happen, not when it was said. ``window_strength`` is "exact", "fuzzy", or "none" when there is
  no window.
- ``qclass`` is always one of ``QCLASSES``; rules use only the question's wording (question words, verbs and
  generic nouns), never names from any data set.
- ``terms`` are lower-case content words in question order, without duplicates, stop words, question words or
  time words (but the month, weekday and season names of a time ahead: "flights for june"); identifiers
  ("v3.12.4", "QM-812", "ingest_worker_v3", "seed.sh", "/checkout") stay whole.
- ``entities`` keep their original spelling: capitalised names (consecutive ones joined: "Dagny Wenzel"),
  acronyms, identifiers, quoted titles, and lower-case names in name-like positions ("who is quentin", "imogen's").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..text import STOP
from .datelang import DEFAULT_LANGUAGES
from .timewords import TIME_NAMES, TimeWindow, parse_time, strip_spans

__all__ = ["QCLASSES", "TimeWindow", "Understanding", "classify", "is_stop_word", "strip_time_words", "understand"]

MAX_CHARS = 1000  # a longer "question" is a pasted blob: it is understood from its first 1,000 characters
QCLASSES = (
    "person",
    "relation",
    "place",
    "file",
    "bug",
    "decision",
    "deploy",
    "date",
    "number",
    "tool",
    "who-said",
    "thing",
    "preference",
    "other",
)


@dataclass(frozen=True, slots=True)
class Understanding:
    """What a question asks, for retrieval: when (``window``), what kind of answer (``qclass``), which words."""

    question: str
    window: TimeWindow | None
    window_strength: str  # "exact" | "fuzzy" | "none"
    qclass: str
    terms: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    wants_current: bool = False
    about_user: bool = False
    time_blocked: bool = False  # time words relative to an event ("the day before the release"): no window
    about_release: bool = False  # it names a release or deploy, whatever it asks of it ("how long after v2 shipped")
    about_incident: bool = False  # it names a bug, an error or a failure ("which file had the timeout bug")
    about_decision: bool = False  # it asks what was decided, picked or changed ("what did we pick for the queue")


# ---------------------------------------------------------------- question class

_KIN_NEAR = (
    r"wife|husband|spouse|dad|father|mom|mum|mother|son|daughter|sister|brother|sibling|kid|child|"
    r"baby|boss|manager|teacher|doctor|dentist|realtor|landlord|neighbou?r|friend|colleague|coworker"
)
_KIN_FAR = (
    r"nephew|niece|cousin|aunt|uncle|partner|boyfriend|girlfriend|fianc[eé]e?|godson|goddaughter|godfather|"
    r"godmother|step\w+|\w+-in-law|grand\w+|ex"
)
_ARTIFACT = (
    r"file|files|notebook|notebooks|migration|migrations|module|modules|script|scripts|dbt model|"
    r"source file|config file|test file|function|method|directory|folder|repo|repository|file path|"
    r"dockerfile|makefile|workflow file|stylesheet|sql file|table"
)
_PLACE_NOUNS = (
    r"city|town|village|country|state|neighbou?rhood|part of|district|area|suburb|street|address|"
    r"hospital|clinic|school|preschool|daycare|kindergarten|university|college|campus|office|gym|"
    r"restaurant|cafe|bar|hotel|airport|station|park|church|venue|studio|shop|store|island|region"
)
_FAIL = (
    r"fail\w*|error\w*|broke|broken|break|breaking|crash\w*|bug\w*|wrong|twice|double\w*|duplicat\w*|"
    r"missing|stuck|hang\w*|timeout\w*|timing out|slow\w*|leak\w*|flak\w*|(?<!shut )down|outage|getting|oom\w*|"
    r"killed|\d{3}s?|5xx|4xx|reject\w*|refus\w*|denied|lost|drop\w*|off by|not|n't|never|empty|blank|"
    r"garbled|corrupt\w*|mismatch\w*|wrong\w*"
)

# who proposed what the team later decided (a who-said question): the proposal is read as a decision's start
# (`read.decisions`): "who pushed for X", "whose idea was X", "what did ana want for X"
_PROPOSAL = re.compile(
    r"^(?:and |so )?who (?:\w+ )?(?:suggested|proposed|pushed|pushing|recommended|wanted|came up with|asked for|"
    r"insisted|argued|championed|advocated)\b"
    r"|^whose (?:idea|suggestion|proposal)\b"
    r"|^what (?:did|does) (?!(?:we|i|you|they|it|the|this|that|a|an)\b)[\w'.-]+(?: [\w'.-]+)? "
    r"(?:want|suggest|propose|push for|recommend|argue for)\b"
)

_RULES: list[tuple[str, re.Pattern[str]]] = [
    (
        "who-said",
        re.compile(
            r"^(?:and |so )?who (?:\w+ )?(?:said|says|asked|asks|asking|suggested|suggests|proposed|proposes|reported|"
            r"wrote|written|pushed|pushing|recommended|raised|requested|mentioned|flagged|came up with|wanted|"
            r"insisted|argued|complained|noticed|pointed out|filed|opened|objected|vetoed|championed|advocated|"
            r"approved|signed off|brought up|told)\b"
            r"|^whose (?:idea|notebook|suggestion|proposal|code|pr|pull request|change|commit|script|branch|ticket|"
            r"call|decision|fault|request|plan|design|query|analysis|patch|review|comment|message)\b"
            r"|^what (?:did|does|do) (?!(?:we|i|you|they|it|the|this|that|a|an)\b)[\w'.-]+(?: [\w'.-]+)? "
            r"(?:say|said|think|suggest|propose|mention|ask for|ask|recommend|argue|insist|complain|tell|push for|"
            r"object|prefer to)\b"
            r"|^what did (?!(?:we|i|you|they|it|the|this|that|a|an)\b)[\w'.-]+(?: [\w'.-]+)? want\b(?! to)"
            r"|^according to\b"
        ),
    ),
    (
        "relation",
        re.compile(
            r"\bhow (?:do|did) (?:i|we) (?:know|meet|met)\b|\bhow (?:do|did) (?:i|we) get to know\b"
            r"|^who(?: is|'s| was) [\w' .-]+ to (?:me|us)\b|\bwhat is [\w' .-]+ to (?:me|us)\b"
            r"|^who (?:do|did) (?:i|we) (?:live|stay|share|work|hang|travel|room)\b"
            r"|\bhow (?:is|are|was|were) [\w' .-]+ related\b|\bmy relationship (?:with|to)\b"
            rf"|\b(?:my|our) (?:{_KIN_FAR})'s (?:name|first name)\b"
            rf"|^who(?: is|'s) (?:my|our) (?:{_KIN_FAR})\b"
        ),
    ),
    (
        "preference",
        re.compile(
            r"\b(?:i|we) (?:usually|normally|typically|generally|always|often|mostly|tend to|like to|love to|prefer|"
            r"like|love|enjoy|hate|dislike|rather)\b|\bfavou?rite\b|\bprefer\w*\b|\benjoy\w*\b"
            r"|^(?:what|which) (?:days?|nights?|mornings?|evenings?|afternoons?|weekdays?) (?:do|am|does|is|are) (?:i|we)\b"  # noqa: E501
            r"|^what do (?:i|we) (?:drink|eat|wear|read|watch|listen to|play|cook|order|snack on|have for)\b"
            r"|\bdoes [\w'-]+ (?:like|love|hate|enjoy|prefer)\b|\bwould [\w'-]+ (?:likely )?(?:like|enjoy|prefer|want)\b"  # noqa: E501
        ),
    ),
    (
        "number",
        re.compile(
            r"^(?:by |for |in |about |after |roughly )?how (?:many|much|long(?! ago)|old|far|often|big|large|tall|fast|"
            r"heavy|high|low|deep|wide|frequently)\b|\bwhat (?:percentage|percent|share|fraction|amount|floor|price|"
            r"number of)\b|^what time\b|\bwhat(?:'s| is| was) the (?:total|count|sum|average|median)\b"
        ),
    ),
    (
        "file",
        re.compile(
            rf"\b(?:which|what)(?: \w+)?(?: \w+)? (?:{_ARTIFACT})\b(?! (?:do|does|did) (?:i|we) (?:prefer|like))"
            rf"|\bin which (?:{_ARTIFACT})\b|\bwhere (?:is|was|are|were|do|did) (?:the )?[\w.' -]+ (?:defined|"
            r"implemented|configured|located in the code)\b|\bwhat(?:'s| is| was) the (?:file ?name|path)\b"
        ),
    ),
    (
        "tool",
        re.compile(
            r"\b(?:what|which)(?: \w+)? (?:command|commands|library|libraries|package|packages|tool|tools|framework|"
            r"cli|package manager|database|db|orm|linter|formatter|editor|ide|plugin|extension|sdk|api client|"
            r"provider|platform|language|runtime|queue|broker|test runner|flag|option|setting)\b"
            r"|\bwhat (?:did|do|does) (?:we|i|you) use (?:to|for)\b|\bwhat (?:did|do) (?:we|i) run\b"
            r"|\bwhere (?:is|was|are|were|do|did) (?:the )?[\w.' -]+ (?:hosted|deployed|running|run|served|stored|"
            r"kept)\b|\bhow do (?:i|we|you) (?:run|install|start|invoke|launch)\b"
            r"|\bname of (?:the |our |my |that )?(?:\w+ )?(?:library|tool|package|framework|command|cli|database|plugin)\b"  # noqa: E501
            r"|\bwhich (?:cloud|host|hosting)\b"
        ),
    ),
    (
        "deploy",
        re.compile(
            r"\b(?:deploy\w*|ship|shipped|ships|shipping|release|released|releases|go live|went live|gone live|"
            r"goes live|roll(?:ed)? (?:it |this |that )?back|rollback|rolled out|roll out|rollout|launch\w*|"
            r"hotfix release|cut the release|tagged)\b"
            r"|\bpush(?:ed)? (?:a |the |our )?(?:[\w.-]+ )?builds?(?= to\b| for\b| of\b|\s*[?.!,]|\s*$)"
            r"|\b(?:what|which|latest|newest|current)(?: [\w.-]+)? version\b"
            r"|\b(?:latest|newest|current)(?: [\w.-]+){2,3} version(?=\s*(?:[?.!]|$|(?:is |that'?s )?(?:in|on|live)\b))"
            r"|\bversion (?:is |was |are |were )?(?:live |out )?(?:in|on) prod(?:uction)?\b"
            r"|\bversion (?:shipped|fixed|included|contained|had)\b"
        ),
    ),
    (
        "date",
        re.compile(
            r"^(?:and |so |but )?when\b|\b(?:what|which) (?:date|day|year|month|week|weekday)\b|\bwhat time of year\b"
            r"|\bhow long ago\b|\bbirthday\b|\banniversary\b"
        ),
    ),
    (
        "bug",
        re.compile(
            r"\bwhat (?:caused|causes? (?:the|a|an|this|that|it|these|those)|broke|breaks|went wrong|was wrong|"
            r"is wrong|fixed|failed|crashed)\b"
            r"|\bwhat was (?:wrong|broken|the (?:(?!(?:after|before|for|of|in|with|from|on|at)\b)[\w.-]+ ){0,4}"
            r"(?:problem|issue|error|bug|cause|root cause|ticket|fix))\b"
            r"|\bhow (?:did|do|was|were|is) (?:we |i |you |it |they )?(?:fix|fixed|solve|solved|resolve|resolved|"
            r"debug|work around|patch)\w*\b"
            r"|\b(?:bug|bugs|flaky|flake|regression|exception|traceback|stack trace|crash\w*|outage|incident|"
            r"vulnerability|vulnerabilities|cve|idor|xss|csrf|injection|sev\d|postmortem|post-mortem|root cause|"
            r"error|errors|ticket)\b"
            r"|^why (?:didn't|doesn't|don't|wasn't|weren't|isn't|aren't|wouldn't|couldn't|can't|won't|hasn't|haven't) "
            r"(?!(?:we|i)\b)"
            rf"|^why (?:did|didn't|does|doesn't|do|don't|was|wasn't|were|weren't|is|isn't|are|aren't|would|wouldn't|"
            rf"could|couldn't|can't|won't|has|hasn't|had) (?!(?:we|i)\b)(?:[\w'.-]+ ){{0,8}}?(?:{_FAIL})\b"
        ),
    ),
    (
        "decision",
        re.compile(
            r"\b(?:decide|decided|decides|deciding|decision|decisions|pick|picked|choose|chose|chosen|choosing|"
            r"go with|went with|going with|settle on|settled on|agree on|agreed on|agreed to|agree with|agreed with|"
            r"opt for|opted for|"
            r"trade-?offs?)\b"
            r"|\b(?:we|i) (?:\w+ )?(?:drop|dropped|replace|replaced|switch|switched|move|moved|abandon|abandoned|"
            r"reject|rejected|migrate|migrated|reverse|reversed|revert|reverted|standardi[sz]e|standardi[sz]ed)\b"
            r"|\bwhat (?:did|do) (?:we|i) (?:do|end up doing|land on) (?:about|with|for)\b"
            # the last choice: "how did we end up doing X", "what did it end up being built with"; not "where did the
            # logs end up", "what did the bill end up being"
            r"|\bhow did (?:we|i|you|they) end up\b|\bend(?:ed)? up (?:being )?(?:built|written|going|using|choosing"
            r"|picking|switching|moving|migrating|hosted|run)\b"
            r"|^why (?:did|do|are|didn't|don't|aren't) (?:we|i)\b"
            r"|^how (?:does|do|is|are|was|were|did|will|should) (?:the )?[\w.-]+(?: [\w.-]+){0,3} "
            r"(?:call|calls|talk|talks|deliver|"
            r"delivered|store|stored|handle|handled|work|connect|connected|sent|send|structured|designed|authenticate|"
            r"authenticated|integrate|integrated|communicate|sync|synced|cache|cached|paginate|versioned|scheduled|"
            r"trigger|triggered)\b"
            r"|\bhow (?:should|do|did) (?:we|i) (?:handle|store|structure|approach|model|represent|deal with)\b"
        ),
    ),
    (
        "number",
        re.compile(
            r"\b(?:mae|wape|mape|rmse|mse|smape|auc|roc|f1|accuracy|precision|recall|latency|p50|p90|p95|p99|"
            r"throughput|qps|rps|percentage|percent|rate|price|cost|costs|limit|salary|rent|budget|total|count|score|"
            r"number(?! one)|fee|bill|invoice amount|threshold|timeout value|size|memory|cpu|ram|quota|uptime|revenue|"
            r"margin|discount|balance|age|weight|height|distance|speed|duration|temperature|port|timeout|ttl|"
            r"interval|retries|retry count|batch size|version number)\b(?! (?:bug|issue))"
        ),
    ),
    (
        "place",
        re.compile(
            rf"^(?:and |so )?where\b|\b(?:which|what) (?:{_PLACE_NOUNS})\b|\bname of [\w' ]*(?:{_PLACE_NOUNS})\b"
            rf"|^what(?:'s| is| was) (?:(?:the|my|our|your) )?(?:[\w-]+'s )?(?:{_PLACE_NOUNS}) called\b"
            r"|^(?!why\b|how\b).*\b(?:live|lives|living|lived|move|moved|moving|grew up|born|stay|stayed|travel\w*|"
            r"vacation\w*) (?:in|to|at|from)\b(?! (?:the )?(?:office|meeting))"
        ),
    ),
    (
        "person",
        re.compile(
            r"^(?:and |so )?(?:who|whom|whose)\b"
            r"|(?<!did i )(?<!did we )(?<!to )\b(?:names?|surnames?|last name|first name|maiden name|full name)\b"
            r"|\bwhat does (?!(?:i|we)\b)[\w'-]+ do (?:for work|for a living|at work|professionally)\b"
            r"|^what(?:'s| is| was) (?!(?:my|our|your)\b)[\w-]+'s (?:job|occupation|profession|role|title|position)\b"
            r"|\bwhat is (?!(?:my|our)\b)[\w-]+'s job\b"
        ),
    ),
    (
        "thing",
        re.compile(
            r"\b(?:called|kind of|type of|sort of|breed|brand|make and model|model of|make of|species)\b"
            r"|^(?:what|which) (?!(?:kind|type|sort|time|day|days|year)\b)\w+ (?:do|am|did|have|does|is|was) (?:i|we)\b"
            r"|^which (?!(?:kind|type|sort|time|day|days|year|one|ones)\b)\w+ (?:did|does|do|is|was|were|are|has|had)\b"
            r"|^what (?:\w+ )?(?:car|laptop|phone|bike|computer|keyboard|camera|guitar|instrument|pet|dog|cat|"
            r"animal|book|game|movie|film|song|album|show|gift|present|toy)\b"
        ),
    ),
]


def _norm(question: str) -> str:
    q = question.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"').lower()
    q = re.sub(r"[?!.\s]+$", "", q.strip())
    return " ".join(q.split())


_RULE = dict(_RULES)


# a time no release may go out ("the no-deploy window", "the code freeze"): said in a plan, not done as a release;
# "why was there no release last week" still asks about releases
_FREEZE = re.compile(
    r"\bno-(?:deploy|release|ship)\w*|\bno (?:deploy|release|ship)\w* (?:window|period|zone|days?|weeks?|fridays?)\b"
    r"|\b(?:deploy\w*|release|code|change)[- ]freeze\b"
)
# where a build or a version reached, which asks of a release though its class is another's: "when did the portal go
# onto django 5.1", "what weekday did the fix reach the app store", "when did it go out to production"
_REACHED = re.compile(
    r"\b(?:reach|reached|hit|made it to) the (?:app|play) store\b"
    r"|\b(?:go|goes|went|gone|got|get|gets|reach\w*|land\w*|made it|push\w*|promot\w*)\s+(?:out\s+)?"
    r"(?:in|to|into|on|onto)\s+prod(?:uction)?\b"
    r"|\b(?:go|goes|went|gone|move|moves|moved|moving|upgrade|upgraded|land|landed)\s+(?:on|onto|to)\s+"
    r"[a-z][\w+-]*\s+v?\d+(?:\.\d+)+\b"
)


def classify(question: str) -> str:
    """The question's class (one of ``QCLASSES``) from its wording alone."""
    q = _norm(question[:MAX_CHARS])
    q = re.sub(
        r"^(?:hey|ok|okay|so|and|um|quick question|remind me|do you remember|can you tell me|"
        r"tell me|i forgot|i forget|wait)[,:]?\s+",
        "",
        q,
    )
    for name, pattern in _RULES:
        if pattern.search(q):
            return name
    return "other"


# ---------------------------------------------------------------- terms, entities, flags


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOP = STOP
_KEEP_SHORT = frozenset({"ml", "ai", "ci", "cd", "db", "ui", "ux", "qa", "pr", "os", "go", "r", "c"})
_TOKEN = re.compile(r"/?[\w][\w.\-/+#%@:]*[\w%+#]|/?\w")
_CURRENT = re.compile(
    r"\b(?:now|currently|current|these days|nowadays|latest|still|at the moment|right now|"
    r"at present|presently|newest|most recent|anymore|any more)\b"
)
_ABOUT_USER = re.compile(
    r"\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves|i'm|i've|i'd|i'll|we're|we've|"
    r"we'd|we'll|the user|the user's)\b"
)
_CONTRACTIONS = re.compile(r"(\w)'(?:s|re|ve|ll|d|m)\b")
_NOT = re.compile(r"(\w)n't\b")

_KIN = re.compile(rf"(?:{_KIN_NEAR}|{_KIN_FAR})")
_GENERIC_POSSESSORS = _words(
    """my our your his her their its the user team company customer client today yesterday tomorrow week month
    year everyone someone somebody nobody anyone one last this next that who what it dog cat pet puppy kitten
    horse bird fish app project repo service server model family kids children kid baby house home school office
    city country world people person group class store shop business week's year's tonight morning"""
)
# A lower-case word where a question puts its subject ("what does linnea do", "who is quentin", "what breed is rex").
_NAME_SLOTS = re.compile(
    r"\b(?:who(?: is|'s| was)|how (?:do|did) (?:i|we) know|does|did|is|was|named|called)\s+"
    r"([a-z\u00c0-\u024f][\w\u00c0-\u024f-]*)(?:\s+([a-z\u00c0-\u024f][\w\u00c0-\u024f-]*))?"
)
_NOT_NAMES = _words(
    """all any anyone anything each every everyone everything i me my mine our ours we us you your he she they them
    it its his her their this that these those there here the a an some no not one two first last next new old
    same other another such what which who whom whose when where why how now then still ever just also already
    only really currently actually usually always never often so very too much many more most less least
    going gone getting got get done doing do does did be been being have has had having go went say said
    tell told know knew think thought want wanted like liked use used make made take took see saw come came
    give gave find found work worked start started stop stopped run ran ship shipped deploy deployed fix fixed
    break broke call called set based supposed able about to for with from into at on in of by as over under
    after before since until while during because if than though"""
)
_AFTER_IS_NAME = re.compile(r"\s*$|\s*[?!.,]|\s+(?:in|at|now|doing|from|still|today|these|currently|called)\b|'s\b")
_HYPHEN_PREFIXES = frozenset(
    {
        "multi",
        "half",
        "non",
        "re",
        "pre",
        "self",
        "one",
        "two",
        "three",
        "well",
        "long",
        "short",
        "co",
        "anti",
        "cross",
        "sub",
        "semi",
        "e",
        "x",
        "full",
        "part",
        "high",
        "low",
        "real",
        "open",
        "follow",
        "double",
        "single",
        "end",
        "built",
        "left",
        "right",
        "off",
        "on",
        "up",
        "all",
        "first",
        "second",
        "third",
        "last",
        "next",
        "day",
        "year",
        "month",
        "week",
        "time",
        "old",
        "new",
        "up-to",
        "so",
        "over",
        "out",
        "in",
        "sign",
        "check",
        "log",
        "roll",
        "set",
        "make",
        "take",
        "look",
        "back",
        "front",
        "top",
        "bottom",
    }
)


_STRIP_NOW = datetime(2000, 1, 1, tzinfo=UTC)  # which phrases are time words does not depend on now


def is_stop_word(word: str) -> bool:
    """A lower-case word that says nothing about what is asked ("the", "really", "something")."""
    return word in _STOP


def strip_time_words(question: str) -> str:
    """The question without its time phrases ("in june", "two weeks ago"); ``now`` does not matter for this."""
    return strip_spans(question, parse_time(question, _STRIP_NOW).spans)


_QPHRASE = re.compile(r"\bhow (?:many|much|long|old|often|far|big|large)\b|\b(?:kind|type|sort) of\b")


def _terms(text: str) -> list[str]:
    t = _QPHRASE.sub(" ", text.replace("’", "'").lower())
    t = _NOT.sub(r"\1 not", t)
    t = _CONTRACTIONS.sub(r"\1", t)
    out: list[str] = []
    seen: set[str] = set()
    for tok in _TOKEN.findall(t):
        tok = tok.strip(".-:/@") if not tok.startswith("/") or len(tok) < 2 else tok.rstrip(".-:@")
        if not tok or tok in _STOP or tok in seen:
            continue
        if len(tok) < 2 and tok not in _KEEP_SHORT and not tok.isdigit():
            continue
        seen.add(tok)
        out.append(tok)
    return out


def _is_identifier(tok: str) -> bool:
    """v3.12.4, QM-812, report_worker_v2, setup.sh, /healthz, auth-service (not half-up, multi-region)."""
    if re.search(r"\d", tok) and re.search(r"[a-zA-Z]", tok):
        return True
    if re.search(r"[_./]", tok[1:]) or tok.startswith("/"):
        return True
    if "-" in tok.strip("-"):
        parts = tok.lower().split("-")
        return parts[0] not in _HYPHEN_PREFIXES and not any(p in _STOP or not p for p in parts)
    return False


_SENTENCE_START = frozenset(
    {
        "what",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "which",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "did",
        "do",
        "does",
        "can",
        "could",
        "would",
        "should",
        "will",
        "has",
        "have",
        "had",
        "in",
        "on",
        "at",
        "for",
        "according",
        "by",
        "the",
        "a",
        "an",
        "tell",
        "list",
    }
)


_CONNECTORS = frozenset({"of", "the", "de", "van", "von", "da", "di", "del", "la", "le"})


def _capital_follows(tokens: list[re.Match[str]], j: int) -> bool:
    """Inside a capitalised run, connectors ("Lord of the Rings") are kept if a capitalised word follows them."""
    while j < len(tokens) and tokens[j][0].lower() in _CONNECTORS:
        j += 1
    return j < len(tokens) and tokens[j][0][:1].isupper()


def _entities(text: str) -> list[str]:
    found: dict[str, None] = {}
    words = text.replace("’", "'")
    # capitalised runs (not the first word unless it is not a question/stop word), acronyms, identifiers
    run: list[str] = []
    tokens = list(
        re.finditer(
            r"\"[^\"]{2,80}\"|[\w\u00c0-\u024f][\w\u00c0-\u024f.\-/+#@']*[\w\u00c0-\u024f+#%]|"
            r"/[\w][\w.\-/]*|\w",
            words,
        )
    )

    def flush() -> None:
        if run:
            found.setdefault(" ".join(run), None)
            run.clear()

    for i, m in enumerate(tokens):
        raw = m[0]
        if raw.startswith('"'):
            flush()
            found.setdefault(raw.strip('"'), None)
            continue
        tok = re.sub(r"'s$", "", raw)
        low = tok.lower()
        sentence_start = i == 0 or words[max(0, m.start() - 4) : m.start()].rstrip().endswith((".", "?", "!", ":"))
        if tok[:1].isupper() and not (sentence_start and low in _SENTENCE_START) and low not in ("i", "i'm", "i've"):
            if sentence_start and low in _STOP:
                flush()
                continue
            run.append(tok)
            continue
        if run and low in _CONNECTORS and _capital_follows(tokens, i + 1):
            run.append(tok)
            continue
        flush()
        if _is_identifier(tok) or tok.startswith("/") or (len(tok) >= 2 and tok.isupper() and tok.isalpha()):
            found.setdefault(tok.rstrip(".-"), None)
        elif not tok.isascii() and tok.isalpha() and low not in _STOP:
            found.setdefault(tok, None)  # a non-English word in an English question: usually a name
    flush()
    low_q = words.lower()
    for m in re.finditer(r"\b([\w\u00c0-\u024f-]{2,})'s\b", low_q):
        w = m.group(1)
        if w not in _GENERIC_POSSESSORS and w not in _STOP and not _KIN.fullmatch(w):
            _add_lower(found, words, m.start(1), m.end(1))
    for m in _NAME_SLOTS.finditer(low_q):
        word = m.group(1)
        if word in _NOT_NAMES or word in _STOP or word in _GENERIC_POSSESSORS or len(word) < 2 or _KIN.fullmatch(word):
            continue
        verb = m.group(0).split()[0]
        if verb in ("is", "was") and not _AFTER_IS_NAME.match(low_q, m.end(1)):
            continue  # "what was wrong with": an adjective, not a name
        end = m.end(1)
        second = m.group(2)
        if second and m.group(0).startswith(("who", "how")) and second not in _NOT_NAMES and second not in _STOP:
            end = m.end(2)
        _add_lower(found, words, m.start(1), end)
    # drop lower-case duplicates of things already found with capitals
    seen: set[str] = set()
    out: list[str] = []
    for e in found:
        k = e.lower()
        if k in seen or k in _STOP:
            continue
        seen.add(k)
        out.append(e)
    return out


def _add_lower(found: dict[str, None], text: str, a: int, b: int) -> None:
    found.setdefault(text[a:b], None)


def asks_current(question: str) -> bool:
    """Whether the question asks for the value as it is now ("what do i drive these days")."""
    return _CURRENT.search(_norm(question)) is not None


def understand(question: str, now: datetime, languages: tuple[str, ...] = DEFAULT_LANGUAGES) -> Understanding:
    """Everything retrieval needs to know about ``question``, asked at ``now`` (timezone-aware; naive = UTC).

    Time words are read in English, else in ``languages`` (dateparser's codes: "de", "pl", ...)."""
    text = question[:MAX_CHARS]
    parsed = parse_time(text, now, languages)
    window = parsed.window
    stripped = strip_spans(text, parsed.spans)
    at = now if now.tzinfo else now.replace(tzinfo=UTC)
    if window is not None and (window.start > at or (parsed.ahead and window.end > at)):
        # a time still ahead ("where are we going in june" asked in march or on june 2, "next week") is when
        # something will happen, not when it was said: no window, and the names in it are searched ("booked the
        # flights for june")
        window = None
        named = (w for a, b in parsed.spans for w in re.findall(r"[a-z]+", text[a:b].lower()) if w in TIME_NAMES)
        stripped = " ".join([stripped, *named])
    low = _norm(text)
    return Understanding(
        question=question,
        window=window,
        window_strength=window.strength if window is not None else "none",
        qclass=classify(text),
        terms=_terms(stripped),
        entities=_entities(stripped),
        wants_current=asks_current(text),
        about_user=bool(_ABOUT_USER.search(low)),
        time_blocked=parsed.blocked,
        about_release=_RULE["deploy"].search(_FREEZE.sub(" ", low)) is not None or _REACHED.search(low) is not None,
        about_incident=_RULE["bug"].search(low) is not None,
        about_decision=_RULE["decision"].search(low) is not None or _PROPOSAL.search(low) is not None,
    )

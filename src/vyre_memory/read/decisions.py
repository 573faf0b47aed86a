"""Decisions: the sentences that decide something, and the turns kept as retrieval keys for them.

"What did we choose for the job queue", "what did we decide about caching", "which database did we settle on": the
answer is in the few turns where a choice was made, said or written down, while a search by the question's words
finds every turn that discussed the options.

- `decided(sentence)`: what a sentence decides and its topic words, from cue phrases ("let's go with", "we
  decided", "switching to", "decision:", "we drop", "revert to", "stick with"), a plan announced as the team's and
  said as no condition ("we're killing the export", "we swap the agent for X") or a change of mind said in so many
  words ("reversing myself", "X after all", "this supersedes Y"); the graph's decisions (`read.graph`) are these.
- `decision_in(turn)`: a turn is a decision turn when one of its sentences decides (`decided`) and does not
  speak of the person's life ("we decided to move house" is no decision of the work), when the person settles a
  choice in a word ("option C it is") or reports a colleague's proposal, where a decision starts ("kofi is pushing
  for B"), when the assistant says it recorded one ("recording the decision", "ADR 7 written") or that a record
  now replaces another ("ADR 9 is written and ADR 4 is marked superseded", "adr/0015-x.md records the reversal"),
  when a decision is told as news ("decision came down", "reverse the june decision", "dana changed her mind on
  X") or, in the person's own words, the team's way is chosen ("we stay on X", "we're moving to Y", "yes, switch
  the rule to Z", "agreed, 3."), or when a tool call writes or edits a decision record (a file under `adr/`,
  `decisions/` or `rfcs/`, or named like `adr-0007.md`). The news and choices are keys only: the graph keeps no
  decision from them. Each becomes a `Moment` (`read.moments`): its time and its key text (the versions it
  names, the project's name, the turn's opening and what its session was asked first). Only a coding
  agent's sessions are read (`derive` passes those).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ..contract import ASSISTANT, TOOL_CALL, TYPED, Turn
from ..text import content_words, stem
from .asides import personal_question, speaks_of_life
from .moments import CONDITION, FILE_PATH, READ_CHARS, Moment, moment
from .relations import is_stop, words
from .trust import own_sentences

__all__ = ["READ_LIMIT", "decided", "decision_in", "topic_words", "turn_sentences"]

READ_LIMIT = 10_000  # characters of a turn read for names and decisions
SETTLED_CHARS = 1_500  # of a typed or assistant turn read for a decision kept as a key (its opening)

_DECISION = re.compile(
    r"(?:\blet'?s\s+(?:go\s+with|use|do)|\bwe(?:'ll|\s+will)?\s+go\s+with|^\s*(?:ok(?:ay)?,?\s+|so,?:?\s+)?"
    r"go\s+with|\bgoing\s+with|\bwe(?:'re|\s+are)?\s+going\s+with|\bwe\s+(?:have\s+)?decided\s+(?:to\s+|on\s+|that\s+)?"
    r"|\bdecided\s+(?:to|on|against)|\bswitching\s+to|\bwe(?:'re|\s+are)?\s+switching\s+to|\bsettled\s+on"
    r"|\bwe\s+drop|^\s*(?:so:?\s+)?drop|^[\s*>-]*(?:(?:ok(?:ay)?|so),?\s+)?decision(?:\s+summary|\s+log\s+updated)?\s*(?:\*\*)?\s*:(?:\*\*)?"
    r"|\b(?:we're|we\s+are)\s+dropping"
    # a reversal is a decision too, and the newer one on its topic: "revert to", "go back to", "stick with"
    r"|\b(?:let'?s\s+|we(?:'ll|\s+will)?\s+|we(?:'re|\s+are)\s+)?(?:revert(?:ing)?|go(?:ing)?\s+back|switch(?:ing)?\s+back)"
    r"\s+to|\b(?:let'?s|we(?:'ll|\s+will))\s+(?:keep|stick\s+with)|\bwe(?:'re|\s+are)\s+(?:keeping|sticking\s+with)"
    r"|\breversing\s+(?:the\s+)?(?:decision|call)\s+(?:on|about))\s+",
    re.I,
)
# A plan announced as the team's, said as no condition (`_plan`): "we're killing the nightly export", "we swap the log
# agent for X"; not "we're killing time", "if we swap the order the test passes"
_PLAN = re.compile(
    r"\b(?:we're|we\s+are)\s+(?:killing|ditching|scrapping)\s+(?!(?:it|time|off|me)\b)"
    r"|\bwe(?:'re|\s+are)?\s+(?:swap|swapping)\s+(?=[^.;!?]{1,80}?\s+for\s+)",
    re.I,
)
# A change of mind said in so many words ("X after all", "this supersedes Y", "reversing myself"): the sentence is
# the newer decision on every topic it names, told by its first clause.
_REVERSAL = re.compile(
    r"\b(?:supersed(?:es|ing)|revers(?:es|ing)\s+(?:myself|ourselves|the|our|my|that|this)|after\s+all(?=\s*(?:[,.;!)]|$|\s+(?:and|but|so)\b))"
    r"|changed\s+(?:my|our)\s+minds?|scratch\s+that|on\s+second\s+thought)",
    re.I,
)
_NOT_A_DECISION = re.compile(r"\b(for the (afternoon|morning|evening)|for a bit|for now\?)\b|\?\s*$", re.I)
_GENERIC = frozenset(
    stem(w)
    for w in words(
        "with that this then them they from have will would should could just also into onto over when what which "
        "where there here make made using used stay stays keep kept now today first only same more less after before "
        "decision decided summary log updated going let's lets drop dropped dropping switch switching revert reverting "
        "back keep keeping stick sticking reversing choice option"
    )
)


def turn_sentences(t: Turn) -> list[str]:
    """The sentences of a turn read for decisions: a typed turn's own (`read.trust`), any other's by punctuation."""
    text = t.text[:READ_LIMIT]
    if t.kind == TYPED:
        return [s.text for s in own_sentences(text)]
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip() and len(s) < 2000]


def topic_words(text: str) -> frozenset[str]:
    """Stemmed key words, compounds split ("MAX_RETRY_COUNT" shares "retry" and "count" with "retry-count limit")."""
    return frozenset(
        w for w in content_words(text) if len(w) >= 4 and w[0].isalpha() and w not in _GENERIC and not is_stop(w)
    )


def _plan(sentence: str) -> re.Match[str] | None:
    """A plan announced as the team's (`_PLAN`), in a sentence that says it as no condition."""
    return None if CONDITION.search(sentence) else _PLAN.search(sentence)


def decided(sentence: str) -> tuple[str, frozenset[str]] | None:
    """What a sentence decides and the topic words it decides on, or None when it decides nothing."""
    if _NOT_A_DECISION.search(sentence):
        return None
    m = _DECISION.search(sentence) or _plan(sentence)
    if m is None:
        r = _REVERSAL.search(sentence)
        if r is None:
            return None
        clauses = re.split(r"[;:]\s", sentence[: r.start()].replace("`", "").replace("**", ""))
        what = next((c.strip(" ,.;-—") for c in clauses if len(topic_words(c)) >= 2), "")
        return (what, topic_words(sentence)) if what and len(what.split()) <= 30 else None
    what = sentence[m.end() :].strip(" *:`-—").split("\n")[0]
    what = re.split(r"(?<=[.;!])\s", what)[0].replace("`", "").replace("**", "").strip(" .;")
    cue = m.group(0).lower()
    dropped = any(w in cue for w in ("drop", "kill", "ditch", "scrap"))
    what = ("drop " if dropped else "switch to " if "switch" in cue else "") + what
    topic = topic_words(what)
    return (what, topic) if len(what) >= 3 and len(what.split()) <= 30 and topic else None


# the person settles a choice in a word: "option C it is.", "chromium it is"; not "yes it is", "that's how it is"
_SETTLED = re.compile(
    r"(?:^|[.!?,;:]\s+)(?:so\s+)?(?!(?:yes|yeah|yep|yup|no|ok|okay|so|here|there|that|this|what|whatever|how|well|maybe|sure|as|if"
    r"|where|when|which|who|i|you|we|it|mine|yours)\b)"
    r"[\w.+#/-]+(?: [\w.+#/-]+)? it is\s*(?:[.!,;—–]|\s-\s|$)",
    re.I | re.M,
)
# a colleague's proposal the person reports, where a decision starts: "ana is pushing for B", "kofi suggested we swap
# X for Y", "dana kept asking for SSO"; the proposer a name, not "i", "you", "he" or a common word
_PROPOSED = re.compile(
    r"\b([^\W\d_][\w'’-]*)\s+(?:(?:is|was|kept|keeps)\s+)?(?:really\s+|hard\s+)?(?:pushing|pushed|pushes|"
    r"argu(?:ed|es|ing)|advocat(?:ed|es|ing))\s+(?:hard\s+|really\s+hard\s+)?for\b"
    r"|\b([^\W\d_][\w'’-]*)\s+(?:(?:kept|keeps)\s+)?(?:suggested|suggests|suggesting|proposed|proposes|proposing|recommended|"
    r"recommends|championed|asked\s+for|asks\s+for|asking\s+for|wants\s+us\s+to|wanted\s+us\s+to|came\s+up\s+with)\b",
    re.I,
)
_NOT_PROPOSER = frozenset(
    "i you he she they we it someone somebody anyone everyone nobody who which that this what also just then "
    "assistant claude".split()
)


def _proposes(sentence: str) -> bool:
    """Whether a sentence reports a named colleague's proposal (`_PROPOSED`), said as no condition or question."""
    if CONDITION.search(sentence) or sentence.rstrip().endswith("?"):
        return False
    for m in _PROPOSED.finditer(sentence):
        who = (m.group(1) or m.group(2)).lower()
        if who not in _NOT_PROPOSER and not is_stop(who):
            return True
    return False


# the assistant says it wrote one down
_RECORDED = re.compile(
    r"\b(?:record(?:ing|ed)? the decision|decision (?:recorded|logged|written)"
    r"|(?:adr|rfc)[\w-]* (?:written|recorded|updated|accepted))\b"
    # or that a record now replaces another: "ADR-011 is written and ADR-007 is marked superseded",
    # "`docs/adr/0015-stay-on-x.md` records the reversal"
    r"|(?:\badr[\s-]?\d+\b|\b(?:adrs?|decisions?|rfcs?)/[\w./-]*\.(?:md|markdown|rst|adoc|txt)\b)[^!?\n]{0,120}?"
    r"\b(?:supersed\w*|reversal)\b",
    re.I,
)
# a decision record: a document under adr/, decisions/ or rfcs/, or named like one ("adr-0007.md", "RFC-014-x.md")
_RECORD_PART = re.compile(r"^(?:adrs?|decisions?|decision[-_]log|rfcs?)(?:$|[-_.\d])", re.I)
_DOCUMENT = re.compile(r"\.(?:md|markdown|rst|adoc|txt)$", re.I)
_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "apply_patch"})
# what the assistant says of a decision taken, not of its own next step ("let's use grep to find the callers")
_REPORTS = re.compile(r"\b(?:decid\w*|decision|settled|chose|chosen|agreed)\b", re.I)


# a decision told as news, though it names no choice a graph could keep: "decision came down", "reverse the june
# decision", "this reverses the march choice of X", "dana changed her mind on X"; not "no decision made yet", "reverse
# the call stack"
_NEWS = re.compile(
    r"(?<!\bno\s)\bdecision\s+(?:came\s+(?:down|in|back)|changed|made|taken|is\s+in\b(?=\s*(?:[.,;:!\n]|$)))"
    r"|\brevers(?:e|es|ed|ing)\s+(?:the|our|my|that|this|their|his|her)\s+(?:(?!of\b)[\w'-]+\s+){0,2}?"
    r"(?:decision|choice|call\b(?!\s+(?:stack|order|site|sites|graph|chain|arg\w*)))"
    r"|\bchanged\s+(?:his|her|their)\s+minds?\b",
    re.I,
)
# the person's own choice of the team's way, said as news or as an order after an assent: "we stay on X", "we're
# moving to Y", "yes, switch the rule to Z", "and drop the fallback", "agreed, 3.", "go with option b"; not "move the
# helper to utils.py", "run the migration and drop the temp table", "ok 1. run the tests 2. fix the lint"
_ASSENT = r"(?:ok(?:ay)?|yes|yeah|yep|agreed?|fine|right)[,.!]?\s+"
_CHOICE = re.compile(
    r"\bwe(?:'ll|\s+will)?\s+stay\s+(?:on|with)\b|\bwe(?:'re|\s+are)\s+staying\s+(?:on|with)\b"
    r"|\bwe(?:'re|\s+are)\s+(?:moving|migrating)\s+(?:(?:everything|it|them|all)\s+)?(?:over\s+)?to\s+(?!(?:the\s+)?next\b)"
    rf"|^\s*{_ASSENT}(?:and\s+|so\s+)?(?:switch|move|migrate)\s+(?:the|our|it|this|that|everything|all)\b"
    r"[^.;!?\n]{0,40}?\bto\b"
    rf"|^\s*(?:{_ASSENT})?and\s+drop\s+(?:the|it|all|our)\b"
    rf"|^\s*(?:{_ASSENT}(?:option\s+)?\d{{1,2}}|(?:{_ASSENT})?option\s+(?:\d{{1,2}}|[a-e]))\b\s*(?:[.!,;](?!\d)|$)"
    r"(?![^\n]*\s\d{1,2}\.\s)",
    re.I,
)


def _decision_news(sentence: str, own: bool) -> bool:
    """Whether a sentence tells of a decision taken or changed (`_NEWS`), or, said in the person's own words
    (`own`), a choice of the team's way (`_CHOICE`); no condition, question or part of a life. A key only: the
    graph keeps no decision from these."""
    found = _NEWS.search(sentence) or (own and _CHOICE.search(sentence))
    if not found or CONDITION.search(sentence[: found.start()]) or sentence.rstrip().endswith("?"):
        return False
    return not speaks_of_life(sentence) and not personal_question(sentence)  # "we're moving to a bigger flat"


# a word without which no rule above but the news and choices (`_NEWS`, `_CHOICE`, tried after it) can match: most
# turns are passed over by it alone
_ANY_CUE = re.compile(
    r"decid|decision|let'?s|\bgo(?:ing)?\s+(?:with|back)|switch|settled|drop|revers|revert|keep|stick|supersed"
    r"|killing|ditch|scrap|swap|push|argu|advocat|suggest|propos|recommend|champion|ask(?:ed|s|ing)?\s+for|wants?\s+us"
    r"|came\s+up"
    r"|after\s+all|changed\s+(?:my|our)\s+mind|scratch\s+that|second\s+thought|\bit\s+is\b|record|adr|rfc",
    re.I,
)


def _decides(sentence: str) -> bool:
    """Whether a sentence takes a decision or changes one (its cue is enough: the key names its topic), and not one
    of the person's life ("we decided to move house" is no decision of the work)."""
    cue = decided(sentence) or _DECISION.search(sentence) or _plan(sentence) or _REVERSAL.search(sentence)
    return bool(cue) and not _NOT_A_DECISION.search(sentence) and not speaks_of_life(sentence)


def _writes_record(turn: Turn) -> bool:
    """Whether a tool call writes or edits a decision record."""
    head = turn.text.split("\n", 1)[0].strip()
    if head not in _WRITE_TOOLS and turn.tool_name not in _WRITE_TOOLS:
        return False
    paths = [*turn.paths, *FILE_PATH.findall(turn.text[:READ_CHARS])]
    return any(_DOCUMENT.search(p) and any(_RECORD_PART.match(part) for part in p.split("/")) for p in paths)


def decision_in(turn: Turn, about: Callable[[str], str] = lambda session: "") -> Moment | None:
    """The decision `turn` takes, settles, reports recorded or writes down, or None; `about(session)` (what its
    session was asked first, asked only of a decision) joins its key. Only a turn's opening is read, so the key
    (its opening) names the decision."""
    if turn.kind == TOOL_CALL:
        return moment(turn, (turn.seq,), turn.text[:READ_CHARS], about) if _writes_record(turn) else None
    said = turn.text[:SETTLED_CHARS]
    if turn.kind not in (TYPED, ASSISTANT) or not (_ANY_CUE.search(said) or _NEWS.search(said) or _CHOICE.search(said)):
        return None
    opening = turn_sentences(replace(turn, text=said))
    if turn.kind == TYPED:
        found = _SETTLED.search(said) is not None or any(
            _decides(s) or (_proposes(s) and not speaks_of_life(s)) or _decision_news(s, own=True) for s in opening
        )
    else:  # the assistant narrates its own steps: only a decision it reports, or one it recorded
        found = _RECORDED.search(said) is not None or any(
            (_decides(s) and _REPORTS.search(s)) or _decision_news(s, own=False) for s in opening
        )
    return moment(turn, (turn.seq,), said[:READ_CHARS], about) if found else None

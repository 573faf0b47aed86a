"""Identifiers the question asks for: a ticket ("what was the ticket for ...") or a test ("what was the flaky test").

Guarantees:
- `wants_identifier` names the kind only for a question that asks for one ("ticket", "test");
- `identifier` votes over the identifiers of that kind in the top passages (ticket keys like "ABC-123";
  test names like "test_due_dates_dst", "TestRenderConcurrent", the part after "::"), weighted by rank
  and by how much of the question the passage is about; when the question names a project (a word of
  a passage's folder name), only passages from that project vote;
- the answer is the identifier as written, a span of its cited passage; its confidence comes from how
  clearly the winner beats the rest, and drops under every threshold when no voting passage is about
  the question. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from ..contract import Passage
from .extract import Extracted, _line_with, _overlap, _rank_weight, _terms, _Votes
from .understand import Understanding

__all__ = ["identifier", "wants_identifier"]

_TICKET_QUESTION = re.compile(r"\b(?:which|what)(?:'s| is| was| were)?(?: \w+){0,2} (?:ticket|issue key|jira)s?\b")
_TEST_QUESTION = re.compile(
    r"\b(?:which|what)(?:'s| is| was| were)?(?: the| that)?(?: \w+)? (?:flaky |failing |broken |red )?tests?\b"
    r"(?! (?:suite|runner|framework|coverage|command|tool))"
)
_TICKET = re.compile(r"(?<![\w/-])[A-Z][A-Z0-9]{1,9}-\d{1,6}(?![\w-])")
_TEST = re.compile(r"(?<![\w.])(?:test_[a-z0-9_]+|Test[A-Z][A-Za-z0-9_]+)(?![\w/-]|\.\w)")
SESSION_SHARE = 0.6
_KIND_WORDS = {"ticket": {"ticket", "fix", "fixed", "bug", "issu"}, "test": {"test", "flaky", "fix", "fixed", "fail"}}


def wants_identifier(question: str) -> str | None:
    """ "ticket" or "test" when the question asks for one, else None."""
    q = question.lower()
    if _TICKET_QUESTION.search(q):
        return "ticket"
    if _TEST_QUESTION.search(q):
        return "test"
    return None


def _project_words(cwd: str | None) -> set[str]:
    name = PurePosixPath(cwd).name.lower() if cwd else ""
    return {w for w in re.split(r"[-_.\s]+", name) if len(w) >= 4}


def _name_parts(cwd: str | None) -> set[str]:
    return {w for w in re.split(r"[-_.\s]+", PurePosixPath(cwd).name.lower()) if w} if cwd else set()


def identifier(kind: str, u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    """The ticket or test the top passages name for this question, or None when they name none."""
    terms = _terms(u) - _KIND_WORDS.get(kind, set())
    words = {w for t in u.terms for w in re.split(r"[-_\s]+", t.lower()) if len(w) >= 4}
    named = {w for p in passages[:8] for w in _project_words(p.cwd)} & words
    # the project's own name says where to look, not what to look for ("harbor-api": not "api")
    terms -= {w for p in passages[:8] if named & _project_words(p.cwd) for w in _name_parts(p.cwd)}
    pattern = _TICKET if kind == "ticket" else _TEST
    votes = _Votes()
    about: dict[str, float] = {}
    for rank, p in enumerate(passages[:8]):
        if named and not named & _project_words(p.cwd):
            continue  # the question names another project
        if p.kind == "agent_prompt":
            continue
        cover = _overlap(p.about or p.text, terms) if terms else 1.0
        for found in dict.fromkeys(pattern.findall(p.text)):
            votes.add(found, _rank_weight(rank) * (0.5 + cover), p)
            about[found] = max(about.get(found, 0.0), cover)
    # calibrated on the open worlds like files: a winner under ~2/3 of the top-two mass is often wrong
    got = votes.extracted(kind, lambda share: min(0.75, max(0.0, 1.2 * share - 0.28)))
    if got is None:
        return None
    top = [p for p in passages[:8] if not named or named & _project_words(p.cwd)]
    sessions = {p.session for p in top if got.answer in p.text}
    # a question that names nothing but the kind ("what was the flaky test") is told only when most of
    # what was found comes from where the winner was named: several flaky tests were found otherwise
    if not terms and sum(p.session in sessions for p in top) < SESSION_SHARE * len(top):
        return Extracted(got.answer, min(got.confidence, 0.3), got.cite, got.quote, got.method)
    if about.get(got.answer, 0.0) < 1 / 2:
        return Extracted(got.answer, min(got.confidence, 0.3), got.cite, got.quote, got.method)
    return Extracted(got.answer, got.confidence, got.cite, _line_with(got.cite[0].text, got.answer), got.method)

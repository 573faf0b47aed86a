"""Which release: the version a deploy question points at, read from the turns that report releases.

    latest_release      "what's the latest X release": the highest version the newest release report names
    shipped_in_window   "what did we ship yesterday": the version the release reports of that window agree on

Guarantees: the answer is a version string that stands in the cited passage (its quote is the line
holding it), so it is grounded by construction. A version is told only from a passage that reports a
release (a deploy cue) and, for "latest", that is about what was asked (the project's words); the
confidence reaches the threshold only when the evidence agrees with itself: the newest report names
the highest version retrieved, or one version holds most of the window's release reports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from ..contract import Passage
from .extract import _DEPLOY_CUE, _DEPLOY_WORDS, _VERSION, Extracted, _line_with, _overlap, _rank_weight, _terms, _Votes
from .understand import Understanding

LATEST_CONFIDENCE = 0.6
_ROLLBACK = re.compile(r"\brolled back\b|\brollback\b|\breverted\b", re.I)
_QUESTION_WORDS = frozenset({"latest", "newest", "recent", "release", "version", "releas"})


def _version_key(version: str) -> tuple[int, ...]:
    """ "2.10.1" > "2.9.3": versions compare by their numbers (a suffix such as "-rc1" is ignored)."""
    return tuple(int(n) for n in re.findall(r"\d+", version.split("-")[0].split("+")[0])[:3])


def _when(p: Passage) -> datetime | None:
    if not p.ts:
        return None
    try:
        return datetime.fromisoformat(p.ts.replace("Z", "+00:00"))
    except ValueError:
        return None


def _versions(text: str) -> list[str]:
    return list(dict.fromkeys(v.lstrip("vV") for v in _VERSION.findall(text)))


def latest_release(u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    """The highest version named by the newest retrieved release report about the question's project.

    Told (confidence 0.6) only when that version is also the highest one any retrieved passage names;
    otherwise a newer release may be out of sight, and the confidence stays under every threshold."""
    terms = _terms(u) - _DEPLOY_WORDS - _QUESTION_WORDS
    reports = [
        p
        for p in passages[:8]
        if _versions(p.text)
        and _DEPLOY_CUE.search(p.text)
        and _when(p) is not None
        and (not terms or _overlap(p.about or p.text, terms) >= 0.999)
    ]
    if not reports:
        return None
    newest_day = max(str(p.ts)[:10] for p in reports)
    # a rollback ("v2.5 broke invoices, rolled back to v2.4.3") is no release of the version it left: when the
    # newest report is one, which version runs now is not told
    rollbacks = [p for p in passages[:8] if _ROLLBACK.search(p.text) and _when(p) is not None]
    if any(str(p.ts)[:10] >= newest_day for p in rollbacks if not terms or _overlap(p.about or p.text, terms) >= 0.999):
        return None
    newest = [p for p in reports if str(p.ts)[:10] == newest_day]
    best, where = max(((v, p) for p in newest for v in _versions(p.text)), key=lambda vp: _version_key(vp[0]))
    seen = [v for p in passages[:8] for v in _versions(p.text)]
    highest = max(seen, key=_version_key)
    told = _version_key(best) >= _version_key(highest)
    confidence = LATEST_CONFIDENCE if told else 0.3
    return Extracted(best, confidence, (where,), _line_with(where.text, best), "latest")


def shipped_in_window(u: Understanding, passages: Sequence[Passage]) -> Extracted | None:
    """The version the release reports inside the question's time window agree on.

    Each passage of the window that reports a release votes for the versions it names (by rank); the
    winner's share of the top two sets the confidence (calibrated like the version vote)."""
    window = u.window
    if window is None:
        return None
    votes = _Votes()
    for rank, p in enumerate(passages[:8]):
        when = _when(p)
        if when is None or not window.contains(when) or not (_DEPLOY_CUE.search(p.text) or _ROLLBACK.search(p.text)):
            continue
        for v in _versions(p.text):
            votes.add(v, _rank_weight(rank), p)
    return votes.extracted("shipped", lambda share: min(0.85, max(0.0, 1.3 * share - 0.3)))

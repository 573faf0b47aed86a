"""One vote over typed candidates, and one calibrated confidence: the no-model answer.

    question ─▶ asked (answer type, order, terms) ─▶ mentions (extractors) ─▶ features per value ─▶ P(right)

Every value the extractors found is scored by the same features: how high its passages rank, its share of the
vote and its margin over the next value, how many sessions name it, how trusted its source is, how much of the
question its sentence and its passage hold, how near the question's words stand to it, whether it is the newest
(or oldest) when the question asks for that order, and how many rival values there are. A logistic model turns
them into the probability that the value is right; its coefficients are data (`calibration.json`, fitted by
`python -m vyre_memory.eval.calibrate` on one open world and checked on the other). The best value is told only
when that probability clears the answer type's threshold (never under 0.5) and, asked as it is now, no other value
is named as what something was set to as late or later (`_outdated`); otherwise the caller abstains.

Guarantees: a value is a candidate only where a passage naming it holds two fifths of the question's words, the name
of the person who typed it not counted (it is about what was asked); the answer is a span of its cited passage's
sentence (or, for `day`, that passage's own date), and the quote is that sentence, so the answer is grounded by
construction; a value the question itself holds is never an answer; the same passages give the same answer and
confidence. Pure but for reading the calibration file once.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..contract import TYPED, Passage
from ..text import overlap, project_name, words
from .answer_types import Asked, asks_past
from .candidates import Mention, mentions

__all__ = ["FEATURES", "Calibration", "Candidate", "Extracted", "calibration", "candidates", "decide"]

FEATURES = (
    "support",
    "share",
    "rank",
    "sessions",
    "trust",
    "sent_cover",
    "pass_cover",
    "near",
    "order_fit",
    "rivals",
    "cue",
    "edited",
    "foreign",
    "is_day",
    "is_sentence",
    "is_number",
    "is_path",
    "is_version",
    "is_identifier",
)
_TRUST = {
    "assistant": 1.0,
    "typed": 1.0,
    "compact_summary": 0.8,
    "tool_output": 0.6,
    "tool_call": 0.5,
    "thinking": 0.5,
    "command": 0.4,
    "pasted": 0.2,
    "meta": 0.1,
}
_NEAR = 8  # tokens on either side of a value that count as near it
# a candidate's passage must hold this share of the question's words (`_topic_cover`; README, "How well"): at 0.4 (of
# three words, two) no-model accuracy is as at a third on open, open2 and four check worlds, less one confident wrong
# answer; 0.5 measured the same, so the smaller step is kept
ABOUT = 0.4
_NUMBER_TYPES = frozenset({"count", "amount", "duration", "number"})


@dataclass(frozen=True)
class Extracted:
    answer: str
    confidence: float
    cite: tuple[Passage, ...]
    quote: str  # the best mention's sentence
    method: str
    quotes: dict[int, str] = field(default_factory=dict)  # per cited passage id: its own sentence naming the value


@dataclass(frozen=True)
class Candidate:
    """One value with its features, its best mention and every passage that names it."""

    value: str
    features: dict[str, float]
    best: Mention
    cite: tuple[Passage, ...]
    quotes: dict[int, str] = field(default_factory=dict)
    said_last: str = ""  # the newest time a passage names it
    set_last: str = ""  # the newest time a sentence names it as what something was set to ("is now 12", "to 12")


@dataclass(frozen=True)
class Calibration:
    weights: dict[str, float]
    bias: float
    thresholds: dict[str, float]

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias + sum(self.weights.get(name, 0.0) * value for name, value in features.items())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def threshold(self, kind: str) -> float:
        return max(0.5, float(self.thresholds.get(kind, self.thresholds.get("default", 0.5))))

    def to_dict(self) -> dict[str, Any]:
        return {"weights": self.weights, "bias": self.bias, "thresholds": self.thresholds}


CALIBRATION_FILE = Path(__file__).with_name("calibration.json")


@lru_cache(maxsize=1)
def calibration() -> Calibration:
    """The fitted coefficients shipped with the package."""
    data = json.loads(CALIBRATION_FILE.read_text(encoding="utf-8"))
    return Calibration(
        {k: float(v) for k, v in data["weights"].items()}, float(data["bias"]), dict(data.get("thresholds", {}))
    )


def _tokens(text: str) -> list[str]:
    return re.findall(r"[\w./:#-]+", text.lower())


def _near(m: Mention, terms: frozenset[str]) -> float:
    """The share of the question's words that stand within a few tokens of the value in its sentence."""
    if not terms:
        return 0.0
    tokens = _tokens(m.sentence)
    value = _tokens(m.value)
    if not value or m.extractor in ("day", "sentence"):
        return overlap(m.sentence, set(terms))
    at = next((i for i in range(len(tokens)) if tokens[i : i + len(value)] == value), None)
    if at is None:
        at = next((i for i, t in enumerate(tokens) if value[0] in t), None)
    if at is None:
        return 0.0
    window = " ".join(tokens[max(0, at - _NEAR) : at + len(value) + _NEAR])
    return len(terms & words(window)) / len(terms)


# What a sentence that states the asked thing sounds like: a cause, a fix, a decision, a release.
_CUES = {
    "cause": re.compile(
        r"\b(?:because|due to|caused by|root cause|the (?:problem|bug|issue|reason) (?:is|was)|turns out|"
        r"that's why|which is why|which means|so the)\b|^\W*(?:found it|confirmed)\b",
        re.I,
    ),
    "fix": re.compile(
        r"^\W*(?:fix|fixed|the fix)\b|\b(?:fixed by|the fix (?:is|was)|switched to|replaced \w+ with|now uses)\b", re.I
    ),
    "decision": re.compile(
        r"\b(?:decided|decision|let'?s go with|going with|we'?ll use|we will use|settled on|chose|picked|"
        r"stick with|instead of|agreed)\b",
        re.I,
    ),
    "version": re.compile(
        r"\b(?:releas\w*|deploy\w*|ship\w*|tagg?ed|tag|rolled (?:out|back)|rollback|live|bump\w*|cut)\b", re.I
    ),
}
_EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit", "apply_patch", "edit", "write"})
_BEFORE = re.compile(r"([A-Za-z][\w.+-]*)\s+v?$")


def _cued(m: Mention, asked: Asked) -> bool:
    cue = _CUES.get(asked.aspect or asked.type)
    return cue is not None and cue.search(m.sentence) is not None


def _foreign(m: Mention, asked: Asked) -> bool:
    """A version (or number) right after the name of something the question does not ask about ("postgres 16.2.1"
    for "what version did we ship")."""
    if asked.type not in ("version", "number", "count", "amount", "duration"):
        return False
    at = m.sentence.find(m.value)
    found = _BEFORE.search(m.sentence[:at]) if at > 0 else None
    if found is None:
        return False
    name = found.group(1).lower()
    if name.endswith(("ed", "ing")) or name in _GENERIC_BEFORE:
        return False  # a verb or a function word ("shipped 3.4.0", "to 3.4.0"), not a name
    return not (words(name) & asked.terms)


_GENERIC_BEFORE = frozenset(
    "to from of is was at in on as version release tag v and or with by now then ver build".split()
)


# a file asked for where a problem was ("which file had the qr code crash"): a document is none, unless one is asked
# for ("which file has the postmortem of the crash")
_PROBLEM = re.compile(
    r"\b(?:crash\w*|bugs?|buggy|errors?|exceptions?|leak\w*|race|regression|fail\w*|broke\w*|panic\w*|oom\w*)\b", re.I
)
_DOCUMENT_ASKED = re.compile(
    r"\b(?:postmortems?|post-mortems?|notes|docs?|documentation|readme|changelog|adrs?|guides?|write-?ups?|"
    r"plans?|reports?|markdown)\b",
    re.I,
)
_DOCUMENT = re.compile(r"\.(?:md|markdown|rst|txt|adoc)$", re.I)


def _in_question(value: str, question: str) -> bool:
    v = value.lower().strip()
    return bool(v) and re.search(rf"(?<![\w]){re.escape(v)}(?![\w])", question.lower()) is not None


def candidates(asked: Asked, passages: Sequence[Passage], off: frozenset[str] = frozenset()) -> list[Candidate]:
    """Every value of the asked type in the top passages, with its features, best first by support."""
    found = [m for m in mentions(asked, passages, off) if not _in_question(m.value, asked.question)]
    if asked.type == "sentence":
        found = [m for m in found if not m.value.rstrip().endswith("?")]
    if asked.type == "path" and _PROBLEM.search(asked.question) and not _DOCUMENT_ASKED.search(asked.question):
        found = [m for m in found if not _DOCUMENT.search(m.value)]  # a crash is in code, not in the notes on it
    if not found:
        return []
    by_value: dict[str, list[Mention]] = {}
    for m in found:
        by_value.setdefault(m.value if m.extractor != "sentence" else m.value.strip(), []).append(m)
    support = {v: sum(1.0 / (m.rank + 1) for m in ms) for v, ms in by_value.items()}
    total = sum(support.values())
    ranked = sorted(support, key=lambda v: (-support[v], v))
    when = {v: sorted(m.passage.ts or "" for m in ms) for v, ms in by_value.items()}
    dated = [v for v in ranked if when[v][-1]]
    extreme: str | None = None
    if asked.order == "newest" and dated:
        extreme = max(dated, key=lambda v: when[v][-1])
    elif asked.order == "oldest" and dated:
        extreme = min(dated, key=lambda v: when[v][0] or "~")
    out = []
    for value in ranked:
        ms = by_value[value]
        best = min(ms, key=lambda m: (m.rank, -_near(m, asked.terms)))
        features = {
            "support": min(2.0, support[value]),
            "share": support[value] / total,
            "rank": max(1.0 / (m.rank + 1) for m in ms),
            "sessions": min(3, len({m.passage.session for m in ms})) / 3,
            "trust": max(_TRUST.get(m.passage.kind, 0.3) for m in ms),
            "sent_cover": max(overlap(m.sentence, set(asked.terms)) for m in ms) if asked.terms else 0.0,
            "pass_cover": max(overlap(m.passage.about or m.passage.text, set(asked.terms)) for m in ms)
            if asked.terms
            else 0.0,
            "near": max(_near(m, asked.terms) for m in ms),
            "order_fit": 1.0 if extreme == value else 0.0,
            "rivals": math.log1p(len(ranked) - 1),
            "cue": 1.0 if any(_cued(m, asked) for m in ms) else 0.0,
            "edited": 1.0 if any(m.passage.name in _EDIT_TOOLS for m in ms) else 0.0,
            "foreign": 1.0 if all(_foreign(m, asked) for m in ms) else 0.0,
            "is_day": 1.0 if best.extractor == "day" else 0.0,
            "is_sentence": 1.0 if asked.type == "sentence" else 0.0,
            "is_number": 1.0 if asked.type in _NUMBER_TYPES else 0.0,
            "is_path": 1.0 if asked.type == "path" else 0.0,
            "is_version": 1.0 if asked.type == "version" else 0.0,
            "is_identifier": 1.0 if asked.type in ("identifier", "command") else 0.0,
        }
        if asked.terms and max(_topic_cover(m.passage, asked.terms) for m in ms) < ABOUT:
            continue  # no passage naming it is about what was asked: the best file of another bug is still wrong
        ordered = sorted(ms, key=lambda m: (m.rank, m is not best))
        cite = tuple(dict.fromkeys(m.passage for m in ordered))[:3]
        quotes: dict[int, str] = {}
        for m in ordered:
            if m.passage in cite:
                quotes.setdefault(m.passage.id, m.sentence if m.extractor != "day" else m.sentence or value)
        set_at = [m.passage.ts or "" for m in ms if _set_to(m.sentence, value)]
        out.append(Candidate(value, features, best, cite, quotes, when[value][-1], max(set_at, default="")))
    return out


# what a sentence says just before a value something was changed to: "is now 12", "from 24 to 12", "set pool_size 12"
_SET_TO = re.compile(r"(?:\bnow|\bto|\bset(?:\s+\S+){0,3}|->|→)\s*[`'\"]?$", re.I)


def _set_to(sentence: str, value: str) -> bool:
    """Whether `sentence` names `value` as what something was set to (`_SET_TO` in the 40 characters before it)."""
    return _SET_TO.search(sentence[: max(0, sentence.find(value))][-40:]) is not None


def _outdated(best: Candidate, scored: Sequence[tuple[float, Candidate]], asked: Asked) -> bool:
    """Whether a value asked as it is now may have been changed since: another value is named as what something
    was set to, as late or later ("how many slots does the pool have": "has 24 slots", then "is now 12 slots")."""
    if asked.type not in _NUMBER_TYPES | {"version"} or asked.order == "oldest" or asks_past(asked.question):
        return False
    return any(c.set_last and c.set_last >= best.said_last for _, c in scored if c is not best)


def _topic_cover(passage: Passage, terms: frozenset[str]) -> float:
    """The share of the question's words a passage holds (its `about`, or text), but for the name of the person who
    typed it and of the project it was said in: a question of what someone said or did ("how long has Ana had her
    bikes"), or of what was done in a project ("did we rewrite the shop app in rust"), is not about a turn of hers or
    of the project for the name alone. (A tool's turn keeps its name: "edit" asked of an Edit call is about it.)"""
    said_by = words(passage.name) if passage.kind == TYPED and passage.name else set()
    topic = set(terms) - said_by - words(project_name(passage.cwd)) or set(terms)  # nothing but the names: the names
    return overlap(passage.about or passage.text, topic)


def decide(
    asked: Asked, passages: Sequence[Passage], *, off: frozenset[str] = frozenset(), cal: Calibration | None = None
) -> Extracted | None:
    """The most probable value and its calibrated confidence (the caller abstains under the threshold), or None
    when no candidate of the asked type was found."""
    cal = cal or calibration()
    scored = [(cal.probability(c.features), c) for c in candidates(asked, passages, off)]
    if not scored:
        return None
    p, best = max(scored, key=lambda pc: (pc[0], pc[1].features["share"], pc[1].value))
    told = p >= cal.threshold(asked.type) and not _outdated(best, scored, asked)
    confidence = round(p, 3) if told else round(min(p, 0.49), 3)
    quote = best.best.sentence if best.best.extractor != "day" else best.best.sentence or best.value
    return Extracted(best.value, confidence, best.cite, quote, best.best.extractor, dict(best.quotes))

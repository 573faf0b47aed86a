"""The model reader: optional, for the personal facts the rules miss.

Guarantees:
- it reads only the text it is given; `read/derive.py` gives it only the person's own sentences of a turn
  `judge_turn` trusts (the same `own_sentences` + `judge_sentence` the rules read), never any other turn;
- each text is sent to the model at most once per prompt version: the checked output is cached in the store
  by (sha256 of the text, `reader_prompt.VERSION`); a cache hit makes no call; a new VERSION reads again;
- the output is checked before it is cached or returned: the relation is in `relations.RELATIONS`, the object
  (and a named subject) is written in the text (whole words, any case), the object's clause is not negated;
  anything else is dropped and counted. The object is returned as the text writes it (names proper-cased);
- malformed output is dropped, logged and counted, and cached as "nothing read" (the same text is not paid for
  twice); a failed call (timeout, refused, replay miss) is logged and counted, not cached, and never raises:
  after `max_errors` failures in a row (replay misses aside: each is cheap and wanted in the misses file) the
  reader stops calling for the rest of its life (one derive);
- every candidate's confidence is at most `MODEL_CONFIDENCE_CAP` (below the 0.6 bar for who someone is), so a
  fact only the model read needs a second mention before it answers who someone is.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import ModelError, ModelOutputError, ReplayMissError
from ..models.base import ModelBackend, complete
from . import reader_prompt as prompt
from .derive import MODEL_CONFIDENCE_CAP
from .relations import KIN, PEOPLE_RELATIONS, RELATIONS, display
from .rules import FactCandidate
from .trust import negated_clause

__all__ = ["ModelReader", "ReaderStats", "check_output", "text_hash"]

log = logging.getLogger(__name__)

MAX_OBJECT_CHARS = 80
# Objects that are names (people, pets, places, organisations, makes): proper-cased when written in lowercase,
# as the rules show them; other values (dates, allergies, likes) are kept as written.
_NAMED = PEOPLE_RELATIONS | frozenset(
    "pet called lives_in moved_to grew_up_in home_city holiday_in employer school teacher car laptop".split()
)
_STRIP = " \t'\"’‘“”.,;:!?()[]"


class ReadCache(Protocol):
    def get_read(self, text_hash: str, prompt_version: str) -> str | None: ...

    def put_read(self, text_hash: str, prompt_version: str, output: str) -> None: ...


def text_hash(text: str) -> str:
    """sha256 (hex) of the exact text the model is shown."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class ReaderStats:
    calls: int = 0  # texts sent to the model
    cache_hits: int = 0
    facts: int = 0  # candidates returned (from calls and hits)
    dropped: int = 0  # facts the check refused
    malformed: int = 0  # replies that did not parse
    errors: int = 0  # calls that failed
    skipped: int = 0  # texts not read because the reader had stopped calling

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def _match(needle: str, haystack: str) -> re.Match[str] | None:
    """Where `needle` is written in `haystack` as whole words, any case and spacing; None if nowhere."""
    words = needle.split()
    if not words:
        return None
    return re.search(r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)", haystack, re.I)


def _lines(text: str) -> list[tuple[str, int]]:
    """The text's lines (one sentence each) with their start offsets."""
    out: list[tuple[str, int]] = []
    start = 0
    for line in text.split("\n"):
        if line.strip():
            out.append((line, start))
        start += len(line) + 1
    return out


def check_output(facts: tuple[prompt.RawFact, ...], text: str) -> tuple[list[FactCandidate], int]:
    """The facts that pass the check against `text` (as candidates) and how many were dropped."""
    lines = _lines(text)
    out: list[FactCandidate] = []
    seen: set[tuple[str, str, str]] = set()
    dropped = 0
    for f in facts:
        cand = _check(f, lines)
        if cand is None:
            dropped += 1
            continue
        key = (cand.subject, cand.relation, cand.object.lower())
        if key not in seen:
            seen.add(key)
            out.append(cand)
    return out, dropped


def _check(f: prompt.RawFact, lines: list[tuple[str, int]]) -> FactCandidate | None:
    relation = f.relation.strip().lower()
    obj = f.object.strip(_STRIP)
    subject = " ".join(f.subject.lower().split())
    if relation not in RELATIONS or not obj or len(obj) > MAX_OBJECT_CHARS or not subject or f.confidence <= 0:
        return None
    if subject.startswith("user:"):
        if subject[5:] not in PEOPLE_RELATIONS:
            return None
    elif subject != "user" and not any(_match(subject, line) for line, _ in lines):
        return None
    if relation in PEOPLE_RELATIONS and subject == "user" and obj.lower() in KIN:
        return None  # "my wife" is not a wife named Wife
    quote = " ".join(f.quote.split()).lower()
    holding = [(line, start, m) for line, start in lines if (m := _match(obj, line)) is not None]
    if not holding:
        return None  # the object is not written in the text
    flat = [" ".join(line.split()).lower() for line, _, _ in holding]
    quoted = [h for h, low in zip(holding, flat) if quote and (quote in low or low in quote)]
    line, start, m = (quoted or holding)[0]
    if negated_clause(line.lower(), m.start()):
        return None
    value = " ".join(m.group(0).split())
    if relation in _NAMED:
        value = display(value)
    return FactCandidate(
        subject,
        relation,
        value,
        round(min(f.confidence, MODEL_CONFIDENCE_CAP), 2),
        line.strip(),
        (start, start + len(line)),
    )


def _dump(cands: list[FactCandidate], *, dropped: int = 0, malformed: str = "") -> str:
    record: dict[str, Any] = {
        "facts": [
            {
                "subject": c.subject,
                "relation": c.relation,
                "object": c.object,
                "confidence": c.confidence,
                "quote": c.quote,
                "span": list(c.span),
            }
            for c in cands
        ],
        "dropped": dropped,
    }
    if malformed:
        record["malformed"] = malformed
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def _load(output: str) -> list[FactCandidate] | None:
    """The candidates a cached read holds; None if the row is unreadable (then the text is read again)."""
    try:
        record = json.loads(output)
        return [
            FactCandidate(
                str(d["subject"]),
                str(d["relation"]),
                str(d["object"]),
                min(float(d["confidence"]), MODEL_CONFIDENCE_CAP),
                str(d["quote"]),
                (int(d["span"][0]), int(d["span"][1])),
            )
            for d in record["facts"]
        ]
    except (ValueError, KeyError, TypeError, IndexError):
        return None


class ModelReader:
    """`reader(text) -> list[FactCandidate]`: what a model reads in one trusted text, checked and cached."""

    def __init__(
        self,
        backend: ModelBackend,
        cache: ReadCache,
        *,
        model: str = "",
        timeout_s: float = 60.0,
        max_errors: int = 3,
    ) -> None:
        self.backend = backend
        self.cache = cache
        self.model = model
        self.timeout_s = timeout_s
        self.max_errors = max_errors
        self.stats = ReaderStats()
        self._errors_in_a_row = 0

    @property
    def stopped(self) -> bool:
        return self._errors_in_a_row >= self.max_errors

    def __call__(self, text: str) -> list[FactCandidate]:
        text = text.strip()
        if not text:
            return []
        key, version = text_hash(text), prompt.VERSION
        cached = self.cache.get_read(key, version)
        if cached is not None:
            loaded = _load(cached)
            if loaded is not None:
                self.stats.cache_hits += 1
                self.stats.facts += len(loaded)
                return loaded
        if self.stopped:
            self.stats.skipped += 1
            return []
        req = prompt.request(text, timeout_s=self.timeout_s, model=self.model)
        try:
            resp = complete(self.backend, req)
        except ModelError as exc:
            self.stats.errors += 1
            if not isinstance(exc, ReplayMissError):  # a miss costs nothing and is written to the misses file
                self._errors_in_a_row += 1
            log.warning(
                "reader: %s call failed (%s)%s",
                getattr(self.backend, "name", "model"),
                exc,
                "; not calling again this derive" if self.stopped else "",
            )
            return []
        self._errors_in_a_row = 0
        self.stats.calls += 1
        try:
            parsed = prompt.parse(resp.text)
        except ModelOutputError as exc:
            self.stats.malformed += 1
            log.warning("reader: malformed output dropped (%s): %.200r", exc, exc.raw)
            self.cache.put_read(key, version, _dump([], malformed=str(exc)))
            return []
        cands, dropped = check_output(parsed.facts, text)
        if dropped:
            self.stats.dropped += dropped
            log.info("reader: %d fact(s) dropped by the check", dropped)
        self.cache.put_read(key, version, _dump(cands, dropped=dropped))
        self.stats.facts += len(cands)
        return cands

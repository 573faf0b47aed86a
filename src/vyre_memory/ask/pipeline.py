"""memory.ask: the whole pipeline, stage by stage, each with its budget (ADR "The pipeline").

    fast path (50 ms) → understanding (20 ms) → retrieval (150 ms) → rerank (700 ms)
      → answer (1.5 s) → second look (700 ms, people and relations) → abstention

Guarantees:
- every answer told has confidence at or above its class threshold, never below 0.5; anything
  else is an abstention with `answer: None` and `known`;
- an answer's names and numbers are in the passages it cites (checked in code), or it abstains; a passage
  that gives instructions to an AI grounds nothing, and a model's answer that says who someone is to the
  person must agree with the person's own words (`verify.own_words_check`), whatever a verify model says;
- a model failure of any kind (timeout, error, unparseable output, replay miss) ends in an
  abstention within the budget, never an exception (except real calls switched off in tests);
- the same question over the same facts and turns gives the same result (answers are cached
  by question, scope, time, fact-set and corpus version);
- `stream=True` yields `memory.thinking {id, stage}` at once, then one per stage, then
  `memory.answered {id}` and the result.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from ..contract import INTERACTIVE, AskResult, Passage, Scope
from ..errors import ModelCallsForbidden
from ..read.asides import personal_question
from ..read.trust import judge_sentence, judge_turn, own_sentences
from ..text import content_words, overlap, sentences, spoken_dates, spoken_units
from .answer_types import asked
from .candidates import split_ablation
from .configs import READ_PASSAGES, get_config
from .grounding import quote_for
from .injection import carries_injection
from .retrieve import within_chars
from .settings import newest_setting
from .understand import understand
from .vote import decide

THRESHOLDS: dict[str, float] = {"person": 0.6, "relation": 0.6, "who-said": 0.6}
DEFAULT_THRESHOLD = 0.5
BUDGETS_S = {"rerank": 0.7, "answer": 1.5, "second_look": 0.7}
AGENT_PERSONAL = (
    "This scope covers the work in its granted projects only; questions about the person's own life "
    "(family, home, health, plans) are answered only on the person's own surface."
)


@dataclass(frozen=True)
class Event:
    event: str  # "memory.thinking" | "memory.answered" | "result"
    id: str
    stage: str | None = None
    result: AskResult | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"event": self.event, "id": self.id}
        if self.stage is not None:
            d["stage"] = self.stage
        if self.result is not None:
            d["result"] = self.result.to_dict()
        return d


def threshold(qclass: str, overrides: Mapping[str, float] | None = None) -> float:
    value = (overrides or {}).get(qclass, THRESHOLDS.get(qclass, DEFAULT_THRESHOLD))
    return max(0.5, float(value))


class Pipeline:
    """One per Memory. `memory` provides: fast_path, retriever, store, config and backends."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self._cache: OrderedDict[str, AskResult] = OrderedDict()
        self._lock = threading.Lock()

    # -- entry points -----------------------------------------------------------------------
    def ask(
        self,
        question: str,
        scope: Scope,
        *,
        now: datetime | None = None,
        thread: str | None = None,
        config: str | None = None,
    ) -> AskResult:
        result: AskResult | None = None
        for event in self.stream(question, scope, now=now, thread=thread, config=config):  # the last holds the result
            if event.result is not None:
                result = event.result
        assert result is not None
        return result

    def stream(
        self,
        question: str,
        scope: Scope,
        *,
        now: datetime | None = None,
        thread: str | None = None,
        config: str | None = None,
    ) -> Iterator[Event]:
        """`config` names a retrieval configuration, optionally with extractors switched off ("hybrid-no-day")."""
        started = time.perf_counter()
        now = now or datetime.now(UTC)
        retrieval_config, extractors_off = split_ablation(config)
        ask_id = hashlib.sha1(f"{question}|{started}".encode()).hexdigest()[:12]
        yield Event("memory.thinking", ask_id, "understanding")
        key = self._key(question, scope, now, thread, config)
        cached = self._cached(key)
        if cached is not None:
            yield Event("memory.answered", ask_id)
            yield Event("result", ask_id, result=replace(cached, latency_ms=_ms(started)))
            return
        timings: dict[str, float] = {}
        mark = time.perf_counter()
        if scope.personal_allowed:  # the person's own names for people: aliases added in the graph
            question = self.memory.resolve_aliases(question)

        # 1. fast path: personal facts, no model
        fast = self.memory.fast_path.answer(question, scope=scope, now=now)
        timings["fast_path"] = _ms(mark)
        if not fast.abstained:
            result = replace(fast, timings={**timings}, latency_ms=_ms(started))
            self._store(key, result)
            yield Event("memory.answered", ask_id)
            yield Event("result", ask_id, result=result)
            return

        if not scope.personal_allowed and personal_question(question):
            # an agent never learns the person's life: no search, no model, nothing read
            result = AskResult(
                answer=None,
                confidence=0.0,
                abstained=True,
                known=(AGENT_PERSONAL,),
                timings={**timings},
                latency_ms=_ms(started),
            )
            self._store(key, result)
            yield Event("memory.answered", ask_id)
            yield Event("result", ask_id, result=result)
            return

        # 2. understanding
        mark = time.perf_counter()
        u = understand(question, now)
        timings["understanding"] = _ms(mark)

        # 3. retrieval
        yield Event("memory.thinking", ask_id, "searching")
        mark = time.perf_counter()
        rerank_backend = self._backend("rerank")
        # a model reads passages up to a character budget (the config's answer_chars), the extractor eight
        budget = get_config(retrieval_config).answer_chars if self._backend("answer") is not None else None
        k = READ_PASSAGES if budget else 30 if rerank_backend is not None else 8
        passages = self.memory.retriever.retrieve(
            question, scope, k=k, now=now, thread=thread, understanding=u, config=retrieval_config
        )
        timings["retrieval"] = _ms(mark)

        # 4. rerank
        cost = 0.0
        mark = time.perf_counter()
        if rerank_backend is not None and len(passages) > 8:
            from .rerank import rerank

            rr = rerank(question, passages, rerank_backend, now=now, keep=8, timeout_s=BUDGETS_S["rerank"])
            chosen = {p.id for p in rr.passages}  # with a budget, retrieval's order follows the reranked eight
            rest = [p for p in passages if p.id not in chosen] if budget else []
            passages, cost = list(rr.passages) + rest, cost + rr.cost_usd
        passages = within_chars(passages, budget) if budget else passages[:8]
        timings["rerank"] = _ms(mark)

        # 5. answer
        yield Event("memory.thinking", ask_id, "reading")
        mark = time.perf_counter()
        bar = threshold(u.qclass, self.memory.config.raw.get("thresholds"))
        answer_backend = self._backend("answer")
        answer: str | None = None
        confidence = 0.0
        cite: list[Passage] = []
        quotes: dict[int, str] = {}
        model_known: list[str] = []
        if answer_backend is not None:
            from .answer import answer_with_model

            out = answer_with_model(
                question,
                passages,
                answer_backend,
                now=now,
                qclass=u.qclass,
                timeout_s=BUDGETS_S["answer"],
                user_name=self.memory.config.user_name,
                current=u.wants_current,
            )
            cost += out.cost_usd
            model_known = list(out.known)
            if "budget" in out.reason:
                model_known.append("Model steps were skipped: today's model budget is spent.")
            if not out.abstained and out.answer:
                answer, confidence, cite = out.answer, out.confidence, list(out.cite)
                quotes = {p.id: quote_for(out.answer, p.text) for p in cite}  # the sentences that ground it
        elif (wanted := asked(question, u)) is not None:
            # text that gives instructions to an AI is no evidence for the vote either
            clean = [p for p in passages if not carries_injection(p.text)]
            got = decide(wanted, clean, off=extractors_off)
            if got is not None and u.about_user:
                got = got if _in_own_words(question, got.cite, got.quote) else None
            if (got is None or got.confidence < bar) and u.window is None and not u.about_user:
                # a setting asked as it is now: the value the newest edit gave it
                retriever = self.memory.retriever
                setting = newest_setting(
                    wanted, clean, lambda name, value, p: retriever.changed_since(name, value, p, scope, now)
                )
                got = setting or got
            if got is not None:
                answer, confidence, cite = got.answer, got.confidence, list(got.cite)
                quotes = {p.id: got.quotes.get(p.id, got.quote) for p in got.cite}  # each its own sentence
        timings["answer"] = _ms(mark)

        # 6. second look: people and relations, with a model
        yield Event("memory.thinking", ask_id, "checking")
        mark = time.perf_counter()
        # an answer a model gave about people is read again, by the verify model or else the answer model
        verify_backend = (self._backend("verify") or answer_backend) if answer is not None else None
        if answer is not None and answer_backend is not None:
            # in code first: who someone is to the person is told only as the person's own words say it
            from .verify import own_words_check

            own = own_words_check(question, answer, cite, self._own_facts(scope, now), user_name=self._user_name())
            if not own.agrees:
                answer = None
        if answer is not None and answer_backend is not None and verify_backend is not None:
            from .verify import needs_second_look, verify

            # the newest value wins: a changing value (a job, a version, a decision) is checked against the newer
            # passages about the question that were read, before it is told
            later = _later(question, u, cite, passages)
            if later or needs_second_look(u.qclass, answer):
                v = verify(
                    question,
                    answer,
                    cite,
                    verify_backend,
                    now=now,
                    timeout_s=BUDGETS_S["second_look"],
                    user_name=self.memory.config.user_name,
                    later=later,
                )
                cost += v.cost_usd
                if not v.agrees:
                    answer = None
        timings["second_look"] = _ms(mark)

        # 7. abstention
        mark = time.perf_counter()
        if answer is not None and confidence >= bar:
            sources = tuple(p.source(quotes.get(p.id)) for p in cite)
            result = AskResult(
                # a version told as its number ("2.47.0", not "v2.47.0"), a date as people say it, a unit apart
                answer=spoken_units(spoken_dates(_VERSION_V.sub(r"\1", answer))),
                confidence=round(confidence, 3),
                abstained=False,
                known=(),
                sources=sources,
                via="retrieval",
                cost_usd=round(cost, 6),
            )
        else:
            known = list(fast.known) + model_known + _known_from(question, passages, scope)
            # an abstention's sources are what was looked at; for an agent they could quote the
            # person's own words about their life, so an agent gets none
            looked_at = tuple(p.source() for p in passages[:3]) if scope.personal_allowed else ()
            result = AskResult(
                answer=None,
                confidence=round(min(confidence, bar - 0.01) if answer else 0.0, 3),
                abstained=True,
                known=tuple(dict.fromkeys(known))[:5],
                sources=looked_at,
                via=None,
                cost_usd=round(cost, 6),
            )
        timings["abstention"] = _ms(mark)
        read = tuple(p.uuids for p in passages)
        result = replace(result, timings=timings, latency_ms=_ms(started), read=read)
        self._store(key, result)
        yield Event("memory.answered", ask_id)
        yield Event("result", ask_id, result=result)

    # -- helpers ----------------------------------------------------------------------------
    def _backend(self, purpose: str) -> Any | None:
        try:
            return self.memory.backend(purpose)
        except ModelCallsForbidden:
            raise

    def _own_facts(self, scope: Scope, now: datetime) -> list[tuple[str, str, str]]:
        """(subject, relation, object) of the personal facts the fast path may read for `scope` at `now`
        (none for an agent): what memory knows from the person's own words."""
        if not scope.personal_allowed:
            return []
        from .fast_path import iso_now

        return [(m.subject, m.relation, m.object) for m in self.memory.fast_path._visible(scope, iso_now(now))]

    def _user_name(self) -> str:
        return str(self.memory.config.user_name or "")

    def _key(self, question: str, scope: Scope, now: datetime, thread: str | None, config: str | None) -> str:
        store = self.memory.store
        parts = [
            " ".join(question.lower().split()),
            repr(scope),
            now.astimezone(UTC).strftime("%Y-%m-%d"),
            thread or "",
            str(store.corpus_version()),
            str(store.get_meta("facts_version", "0")),
            str(store.graph_version()),
            str(self.memory.backend_names()),
            config or "",
        ]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()

    def _cached(self, key: str) -> AskResult | None:
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
            return hit

    def clear_cache(self) -> None:
        """Forget every cached answer (eval --repeat asks each question afresh)."""
        with self._lock:
            self._cache.clear()

    def _store(self, key: str, result: AskResult) -> None:
        with self._lock:
            self._cache[key] = result
            while len(self._cache) > 512:
                self._cache.popitem(last=False)


_SINGULAR = re.compile(r"\b(?:i|me|my|mine|myself|i'm|i've|i'd|i'll)\b")


# someone else's words reported in the person's sentence ("my friend said: i bill 60 hours")
_REPORTED = re.compile(
    r"\b(said|says|told|tells|wrote|writes|texted|asked|asks|emailed|messaged|posted|replied|mentioned|"
    r"according to|claims|claimed)\b",
    re.I,
)


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def _own_statement(sentence: str) -> bool:
    """The sentence passes the read rules and reports no one else's words (unless the person's own)."""
    if not judge_sentence(sentence).ok:
        return False
    m = _REPORTED.search(sentence)
    return m is None or bool(re.search(r"\b(i|we)\s*$", sentence[: m.start()], re.I))


def _in_own_words(question: str, cite: Sequence[Passage], quote: str | None = None) -> bool:
    """A question about the person themself ("how many hours did i bill") is answered only from what they
    typed in a session they ran, and only from a sentence the read rules trust (not a question, a
    hypothetical, or someone else's words); one about "we" (the person and their assistant at work)
    from any turn."""
    if not _SINGULAR.search(question.lower()):
        return True
    if not all(p.kind == "typed" and p.session_kind == INTERACTIVE for p in cite):
        return False
    if not all(judge_turn(p.kind, p.session_kind, p.text).ok for p in cite):
        return False
    if quote is None:
        return True
    q = _squash(quote)
    if not q:
        return False
    # the quote must be (part of) the person's own sentences, and every one it touches must be trusted
    holding = [s.text for p in cite for s in own_sentences(p.text) if q in _squash(s.text) or _squash(s.text) in q]
    return bool(holding) and all(_own_statement(s) for s in holding)


# A question about something that changes: what is current, a version, a decision, a job, where someone lives.
_CHANGING = re.compile(
    r"\b(?:now|currently|current|these days|still|latest|newest|version|release|decide|decided|decision|use|using|"
    r"job|work|works|working|role|title|employer|live|lives|living|rate|price|plan)\b"
)
LATER_MAX = 3
_VERSION_V = re.compile(r"(?<![\w.])[vV](\d+\.\d+\.\d+)")


def _later(question: str, u: Any, cite: Sequence[Passage], read: Sequence[Passage]) -> list[Passage]:
    """The passages read that are newer than everything cited and about the question (a third of its words), for
    a question whose answer can change over time; at most LATER_MAX, newest first."""
    if not cite or not (u.wants_current or u.qclass in ("decision", "deploy") or _CHANGING.search(question.lower())):
        return []
    newest = max((p.ts or "" for p in cite), default="")
    terms = content_words(question)
    cited = {p.id for p in cite}
    found = [
        p for p in read if p.id not in cited and (p.ts or "") > newest and terms and overlap(p.text, terms) >= 1 / 3
    ]
    return sorted(found, key=lambda p: p.ts or "", reverse=True)[:LATER_MAX]


KNOWN_CHARS = 240


def _known_from(question: str, passages: Sequence[Passage], scope: Scope) -> list[str]:
    """What the top passages say about the question: per passage, its whole sentence that holds most of the
    question's words (its first when none does: retrieval found it for the question), as "2026-05-13 billing-api:
    The retry runs twice because ...", a sentence too long for a bullet cut at a word with "…" (never mid-word).
    Never personal for an agent."""
    terms = content_words(question)
    out = []
    for p in passages[:3]:
        if not scope.personal_allowed and p.kind == "typed":
            continue
        scored = [(overlap(s, terms), -i, s) for i, s in enumerate(sentences(p.text)) if len(s) >= 12]
        if not scored:
            continue
        _, _, best = max(scored)
        if len(best) > KNOWN_CHARS:
            best = best[: best.rfind(" ", 0, KNOWN_CHARS - 1)].rstrip(" ,;:") + "…"
        day = (p.ts or "")[:10]
        project = (p.cwd or "").rstrip("/").rsplit("/", 1)[-1]
        out.append(f"{day} {project}: {best}".strip())
    return out[:2]


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)

"""A conversation's passages with the ones said just before them, as keys of their own: a reply says what it
answers only with the question before it.

In a chat ("The quilt for the county fair is done!" / "Which colours did you go with?" / "Mostly teal and
mustard.") the answer to "what colours is her quilt" is the third turn, which shares one word and little meaning
with the question; the three together share both. Each passage of a conversation (a session of any format but a coding
agent's) has an exchange: its text after the texts of the `EXCHANGE_PASSAGES - 1` passages before it in its
session. Exchanges are searched by their words (`ExchangeKeys`: BM25 in memory, grown forward) and by their vectors
(`EXCHANGES`, a derived text: ask/derived_vectors.py), each one more list in which a hit is the exchange's last
passage.

Measured (hybrid recall@8, the five LoCoMo conversations, without -> with both lists at 0.3 of a list's weight):
26 0.813 -> 0.826, 30 0.827 =, 41 0.815 -> 0.822, 42 0.733 -> 0.734, 43 0.806 -> 0.820 (at 4,000 characters each
up, mean 0.869 -> 0.880); the words' list alone lowered 30 and 41, the vectors' alone 42. Over a coding agent's
sessions too (their typed and assistant turns), open fell 0.915 -> 0.902 and open2 0.880 -> 0.850: a request and
a reply there are long and far apart, so the exchanges are of conversations only.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Sequence

from ..contract import AGENT_FORMATS
from ..store.sqlite import Store
from .derived_vectors import DerivedKind
from .keys import AddedBm25, tokens
from .passages import text_hash

EXCHANGE_PASSAGES = 3  # a reply, the question it answers and what the question was about
READ_PASSAGES = 2_000  # of conversations, per read while the words' keys grow
COMMON_EXCHANGE_WORD = 1_000


def _windows(store: Store, after_id: int, through_id: int, limit: int) -> tuple[list[list[tuple[int, str]]], int, int]:
    """Of at most `limit` passages of conversations in (after_id, through_id], in id order: each one's exchange as
    (id, text) of its passages, oldest first (itself last); the last passage id the read covers (through_id when
    fewer were left); how many passages it read."""
    rows = store.conversation_passages(after_id, through_id, limit, AGENT_FORMATS)
    through = rows[-1][0] if len(rows) == limit else through_id
    wanted = {pid for pid, *_ in rows}
    spans: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {}  # session -> its first and last wanted passage
    for _, session, seq, piece in rows:
        first, last = spans.get(session, ((seq, piece), (seq, piece)))
        spans[session] = (min(first, (seq, piece)), max(last, (seq, piece)))
    out: list[list[tuple[int, str]]] = []
    for session, (first, last) in spans.items():
        said = store.passages_between(session, first, last, EXCHANGE_PASSAGES - 1)
        out.extend(said[max(0, i - EXCHANGE_PASSAGES + 1) : i + 1] for i, (pid, _) in enumerate(said) if pid in wanted)
    out.sort(key=lambda window: window[-1][0])
    return out, through, len(rows)


def exchanges(store: Store, after_id: int, through_id: int, limit: int) -> tuple[list[tuple[int, str]], int, int]:
    """(passage id, exchange text) of at most `limit` passages of conversations in (after_id, through_id], in id
    order; the last passage id the read covers (through_id when fewer were left); how many passages it read."""
    windows, through, read = _windows(store, after_id, through_id, limit)
    return [(window[-1][0], "\n".join(text for _, text in window)) for window in windows], through, read


def _read(store: Store, after_id: int, through_id: int, limit: int) -> tuple[list[tuple[int, str, str]], int, int]:
    found, through, passages = exchanges(store, after_id, through_id, limit)
    return [(pid, text_hash(text), text) for pid, text in found], through, passages


EXCHANGES = DerivedKind(
    "exchanges", _read, lambda store, after_id: store.conversation_passage_count(after_id, AGENT_FORMATS)
)


class ExchangeKeys:
    """The exchanges' words, one BM25 document per passage of a conversation, grown forward by passage id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._index = AddedBm25()
        self._ids = array("q")  # document number -> passage id
        self._through = 0
        self._version = -1

    def refresh(self, store: Store) -> ExchangeKeys:
        with self._lock:
            version = store.corpus_version()
            if version == self._version:
                return self
            end = store.passage_count()
            while self._through < end:
                windows, self._through, _ = _windows(store, self._through, end, READ_PASSAGES)
                said: dict[int, list[str]] = {}  # each passage's words, read once for the exchanges it is in
                for window in windows:
                    for pid, text in window:
                        if pid not in said:
                            said[pid] = tokens(text)
                    self._index.add(w for pid, _ in window for w in said[pid])
                    self._ids.append(window[-1][0])
            self._version = version
        return self

    def search(self, words: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The `k` passages whose exchanges best match the words (`tokens` of the question), best first; a word in
        more than a twentieth of them (at least COMMON_EXCHANGE_WORD) is not scored: it tells little, and scoring
        its every exchange costs seconds in a large history."""
        with self._lock:
            common = max(COMMON_EXCHANGE_WORD, len(self._ids) // 20)
            scored = self._index.scores(list(words), common=common)
            ranked = sorted(scored, key=lambda d: (-scored[d], self._ids[d]))[:k]
            return [(self._ids[d], scored[d]) for d in ranked]

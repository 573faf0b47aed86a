"""The typed words' sentences as vectors of their own: what is said in passing inside a long message.

A passage's vector is of all it says; a question about one thing said in passing ("which sport did she take
up", of "Long week. She joined an archery club on Sunday. The rain never stopped.") is nearer that one sentence. Each
passage of typed words with more than one sentence has a vector per sentence (`passages.sentences`), stored
as a derived text (ask/derived_vectors.py: stored by hash under the embedder's name plus "/sentences",
embedded after the passages forward from a mark of their own, searched as one more list in which a passage
scores by its nearest sentence).

Measured (hybrid recall@8, without -> with the list at weight 0.6): open 0.870 -> 0.895, open2 0.851 -> 0.865,
the five LoCoMo conversations 0.786 -> 0.801 (every one up), two worlds written for checking before it was
tried 0.901 = and 0.821 -> 0.851 (README, "Sentences as keys of their own").
"""

from __future__ import annotations

from ..store.sqlite import Store
from .derived_vectors import DerivedKind
from .passages import SENTENCES_MAX, sentences, text_hash


def sentence_texts(rows: list[tuple[int, str, str | None]]) -> list[tuple[int, str, str]]:
    """(row id, text hash, text) of each sentence of these typed passages (id, text, speaker): the n-th sentence
    of passage p is row p * SENTENCES_MAX + n, so a row names its passage (`owner`)."""
    return [
        (pid * SENTENCES_MAX + n, text_hash(said), said)
        for pid, text, name in rows
        for n, said in enumerate(sentences(text, name))
    ]


def owner(row: int) -> int:
    """The passage of a sentence's row id."""
    return row // SENTENCES_MAX


def _read(store: Store, after_id: int, through_id: int, limit: int) -> tuple[list[tuple[int, str, str]], int, int]:
    passages = store.typed_passages(after_id, through_id, limit)
    through = passages[-1][0] if len(passages) == limit else through_id
    return sentence_texts(passages), through, len(passages)


SENTENCES = DerivedKind("sentences", _read, lambda store, after_id: store.typed_passage_count(after_id), owner)

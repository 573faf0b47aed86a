"""What a full-text search ranks when its budget of matches is short: the rarest words, in the question's order."""

from __future__ import annotations

from vyre_memory.store.passages import rarest_within


def test_the_rarest_words_that_fit_the_budget_are_ranked_in_their_own_order() -> None:
    matches = {"refund": 40.0, "the": 9000.0, "bug": 300.0, "stripe": 25.0}
    assert rarest_within(["the", "stripe", "refund", "bug"], matches, 400) == (["stripe", "refund", "bug"], 365.0)
    assert rarest_within(["the", "stripe", "refund", "bug"], matches, 50) == (["stripe"], 25.0)


def test_one_word_is_always_ranked_however_common() -> None:
    assert rarest_within(["the"], {"the": 9000.0}, 100) == (["the"], 9000.0)
    assert rarest_within([], {}, 100) == ([], 0.0)

"""The retrieval figures: recall at k passages and at equal characters returned."""

from __future__ import annotations

from vyre_memory.eval.metrics import evidence_recall, evidence_recall_chars

EVIDENCE = [frozenset({"a1", "a2"}), frozenset({"b"})]  # two evidence turns (a turn may have several uuids)


def test_recall_at_k_counts_evidence_turns_found_in_the_top_k() -> None:
    ranked = [("x",), ("a2",), ("y",), ("b",)]
    assert evidence_recall(EVIDENCE, ranked, 1) == 0.0
    assert evidence_recall(EVIDENCE, ranked, 2) == 0.5
    assert evidence_recall(EVIDENCE, ranked, 4) == 1.0
    assert evidence_recall([], ranked, 4) is None


def test_recall_at_chars_returns_passages_that_start_within_the_budget() -> None:
    ranked = [(("x",), 3000), (("a1",), 900), (("b",), 500)]
    assert evidence_recall_chars(EVIDENCE, ranked, 3000) == 0.0  # the second passage starts at 3,000
    assert evidence_recall_chars(EVIDENCE, ranked, 3001) == 0.5
    assert evidence_recall_chars(EVIDENCE, ranked, 4000) == 1.0
    assert evidence_recall_chars(EVIDENCE, [(("b",), 10_000)], 4000) == 0.5  # a long first passage still counts
    assert evidence_recall_chars([], ranked, 4000) is None


def test_a_locomo_gold_day_is_accepted_in_each_form_a_right_answer_writes() -> None:
    from vyre_memory.eval.datasets import date_forms
    from vyre_memory.eval.metrics import judge

    accept = ("16 March, 2023", *date_forms("16 March, 2023"))
    for answer in ("16 March 2023", "On March 16, 2023", "The week before 16 March 2023", "16 March, 2023"):
        assert judge(answer, False, True, accept, ())
    assert not judge("17 March 2023", False, True, accept, ())
    month = ("February, 2023", *date_forms("February, 2023"))
    assert judge("Just before 8 February 2023", False, True, month, ())
    assert not judge("8 March 2023", False, True, month, ())
    assert date_forms("Paris, Rome") == () and date_forms("The week before 9 June 2023") == ()

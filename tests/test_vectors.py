"""VectorIndex: exact top-k on small data, the scope filter, the IVF mode, save/load round trips."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from vyre_memory.errors import StoreError
from vyre_memory.store.vectors import VectorIndex, _sorted_unique

ENGINES = ["numpy"] + (["faiss"] if importlib.util.find_spec("faiss") else [])


def _data(n: int, dim: int = 32, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((8, dim)).astype(np.float32)
    x = centers[rng.integers(0, 8, n)] + 0.5 * rng.standard_normal((n, dim)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    ids = rng.choice(10 * n, n, replace=False).astype(np.int64)  # sparse, unordered ids
    return ids, x


def _brute(ids: np.ndarray, x: np.ndarray, q: np.ndarray, k: int) -> list[int]:
    q = q / np.linalg.norm(q)
    s = x @ q
    order = np.lexsort((ids, -s))
    return [int(ids[i]) for i in order[:k]]


@pytest.mark.parametrize("engine", ENGINES)
def test_exact_topk_matches_brute_force(engine: str) -> None:
    ids, x = _data(2000)
    idx = VectorIndex(32, engine=engine)
    idx.add(ids[:1500], x[:1500])
    idx.add(ids[1500:], x[1500:])
    assert len(idx) == 2000 and idx.is_exact
    rng = np.random.default_rng(1)
    for _ in range(10):
        q = rng.standard_normal(32).astype(np.float32)
        got = idx.search(q, 20)
        want = _brute(ids, x, q, 20)
        assert len(got) == 20
        # float16 storage may swap near-ties: compare sets and scores, not exact order
        assert len({i for i, _ in got} & set(want)) >= 19
        qn = q / np.linalg.norm(q)
        by_id = dict(zip(ids.tolist(), x @ qn, strict=True))
        for i, s in got:
            assert abs(by_id[i] - s) < 2e-3
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)


@pytest.mark.parametrize("engine", ENGINES)
def test_allowed_filter_never_leaks(engine: str) -> None:
    ids, x = _data(3000, seed=2)
    idx = VectorIndex(32, engine=engine)
    idx.add(ids, x)
    rng = np.random.default_rng(3)
    for size in (1, 5, 60, 700):
        allowed = rng.choice(ids, size, replace=False)
        extra = np.array([10**9, -5], dtype=np.int64)  # ids not in the index at all
        q = x[rng.integers(0, len(x))]
        got = idx.search(q, 50, allowed=np.concatenate([allowed, extra]))
        assert {i for i, _ in got} <= set(allowed.tolist())
        assert len(got) == min(50, size)
        pos = {int(i): r for r, i in enumerate(ids)}
        want = _brute(allowed, x[[pos[int(i)] for i in allowed]], q, 50)
        assert len({i for i, _ in got} & set(want)) >= len(want) - 1
    assert idx.search(x[0], 10, allowed=np.array([], dtype=np.int64)) == []
    assert idx.search(x[0], 0) == []


@pytest.mark.skipif("faiss" not in ENGINES, reason="faiss-cpu not installed")
def test_ivf_mode_scope_is_exact_and_ids_survive(tmp_path: Path) -> None:
    ids, x = _data(6000, seed=4)
    idx = VectorIndex(32, engine="faiss", ivf_threshold=4000, nprobe_fraction=1.0)
    idx.add(ids[:3000], x[:3000])
    assert idx.is_exact
    idx.add(ids[3000:], x[3000:])  # crosses the threshold: retrained as an IVF
    assert not idx.is_exact and len(idx) == 6000
    assert sorted(idx.ids().tolist()) == sorted(ids.tolist())
    q = x[17]
    got = idx.search(q, 30)
    assert len({i for i, _ in got} & set(_brute(ids, x, q, 30))) >= 29  # all cells visited: exact
    allowed = ids[::7]
    got = idx.search(q, 30, allowed=allowed)
    assert {i for i, _ in got} <= set(allowed.tolist())
    assert len({i for i, _ in got} & set(_brute(ids[::7], x[::7], q, 30))) >= 29
    idx.save(tmp_path / "v.idx")
    back = VectorIndex.load(tmp_path / "v.idx")
    assert not back.is_exact and back.search(q, 30, allowed=allowed) == got


@pytest.mark.skipif("faiss" not in ENGINES, reason="faiss-cpu not installed")
def test_a_small_allowed_set_visits_every_cell_unless_told_not_to() -> None:
    ids, x = _data(6000, seed=5)
    idx = VectorIndex(32, engine="faiss", ivf_threshold=4000, nprobe_fraction=1 / 64)
    idx.add(ids, x)
    allowed = ids[::2]  # more than EXACT_BY_ROWS: searched in the cells
    exact = [set(i for i, _ in idx.search(x[i], 20, allowed=allowed)) for i in range(0, 400, 20)]
    approx = [set(i for i, _ in idx.search(x[i], 20, allowed=allowed, exact=False)) for i in range(0, 400, 20)]
    brute = [set(_brute(ids[::2], x[::2], x[i], 20)) for i in range(0, 400, 20)]
    assert all(len(e & b) >= 19 for e, b in zip(exact, brute, strict=True))
    assert all(a <= set(allowed.tolist()) for a in approx)  # never outside the set ...
    assert sum(len(a & b) for a, b in zip(approx, brute, strict=True)) < sum(map(len, brute))  # ... fewer cells


@pytest.mark.skipif("faiss" not in ENGINES, reason="faiss-cpu not installed")
def test_a_scope_of_few_rows_is_scored_from_its_rows_exactly_even_when_told_not_to(tmp_path: Path) -> None:
    ids, x = _data(6000, seed=6)
    idx = VectorIndex(32, engine="faiss", ivf_threshold=4000, nprobe_fraction=1 / 64)
    idx.add(ids, x)
    allowed = ids[::10]  # 600 rows: at 1/64 of the cells a search of them would find few
    for i in range(0, 400, 40):
        brute = set(_brute(allowed, x[::10], x[i], 20))
        assert len({r for r, _ in idx.search(x[i], 20, allowed=allowed, exact=False)} & brute) >= 19  # float16 ties
    # an id with no row (a passage not embedded yet) is skipped, not an error
    with_missing = np.concatenate([allowed, [ids.max() + 1000]])
    assert len(idx.search(x[0], 20, allowed=with_missing, exact=False)) == 20
    idx.save(tmp_path / "v.idx")
    loaded = VectorIndex.load(tmp_path / "v.idx")
    found = {r for r, _ in loaded.search(x[0], 20, allowed=allowed, exact=False)}
    assert len(found & set(_brute(allowed, x[::10], x[0], 20))) >= 19


@pytest.mark.parametrize("engine", ENGINES)
def test_save_load_round_trip(engine: str, tmp_path: Path) -> None:
    ids, x = _data(500, seed=5)
    idx = VectorIndex(32, engine=engine)
    idx.add(ids, x)
    path = tmp_path / "sub" / "vectors.idx"
    idx.save(path)
    back = VectorIndex.load(path)
    assert len(back) == 500 and back.engine == engine
    for q in x[:5]:
        assert back.search(q, 10) == idx.search(q, 10)
    back.add(np.array([10**7]), x[:1])
    assert len(back) == 501
    empty = VectorIndex(32, engine=engine)
    empty.save(tmp_path / "empty.idx")
    assert len(VectorIndex.load(tmp_path / "empty.idx")) == 0
    assert VectorIndex.load(tmp_path / "empty.idx").search(x[0], 5) == []


def test_bad_inputs(tmp_path: Path) -> None:
    idx = VectorIndex(4, engine="numpy")
    with pytest.raises(ValueError):
        idx.add(np.array([1, 1]), np.ones((2, 4)))
    with pytest.raises(ValueError):
        idx.add(np.array([1]), np.ones((1, 5)))
    idx.add(np.array([1]), np.ones((1, 4)))
    with pytest.raises(ValueError):
        idx.add(np.array([1]), np.ones((1, 4)))
    (tmp_path / "junk.idx").write_bytes(b"not an index")
    with pytest.raises(StoreError):
        VectorIndex.load(tmp_path / "junk.idx")
    with pytest.raises(StoreError):
        VectorIndex.load(tmp_path / "missing.idx")


def test_sorted_unique_is_numpy_unique() -> None:
    """Ids already sorted and distinct (a scope's) are taken as they are; any others as np.unique gives them."""
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 9, 500):
        for ids in (rng.integers(0, 2 * n + 1, n), np.arange(n, dtype=np.int64), np.arange(n)[::-1], np.ones(n)):
            ids = np.asarray(ids, dtype=np.int64)
            assert np.array_equal(_sorted_unique(ids), np.unique(ids))


@pytest.mark.parametrize("engine", ENGINES)
def test_allowed_in_any_order_gives_the_same_hits(engine: str) -> None:
    ids, x = _data(2000, seed=6)
    idx = VectorIndex(32, engine=engine)
    idx.add(ids, x)
    allowed = np.sort(np.random.default_rng(7).choice(ids, 400, replace=False))
    shuffled = np.random.default_rng(8).permutation(np.concatenate([allowed, allowed[:50]]))
    assert idx.search(x[3], 20, allowed=allowed) == idx.search(x[3], 20, allowed=shuffled)

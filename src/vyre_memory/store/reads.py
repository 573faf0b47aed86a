"""The model reader's cache: the SQL half of `read/model_reader.py`.

Guarantees:
- one row per (text hash, prompt version): what that prompt version read from that text, as JSON, already
  checked against the text; a second put for the same key replaces the row (the same text read again);
- `get_read` never calls anything and returns None on a miss, so a miss is the only thing that costs a call;
- each put is its own short transaction; the cache is never part of the fact set's transaction, so a derive
  that fails after a read still keeps the read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator


class ReadStore:
    conn: sqlite3.Connection

    def get_read(self, text_hash: str, prompt_version: str) -> str | None:
        """The cached output JSON for (text hash, prompt version), or None."""
        row = self.conn.execute(
            "SELECT output FROM reads WHERE text_hash = ? AND prompt_version = ?", (text_hash, prompt_version)
        ).fetchone()
        return str(row[0]) if row else None

    def put_read(self, text_hash: str, prompt_version: str, output: str) -> None:
        """Store (or replace) the checked output JSON for (text hash, prompt version)."""
        with self.transaction() as c:  # type: ignore[attr-defined]
            c.execute(
                """INSERT INTO reads (text_hash, prompt_version, output) VALUES (?, ?, ?)
                   ON CONFLICT(text_hash, prompt_version) DO UPDATE SET output = excluded.output""",
                (text_hash, prompt_version, output),
            )

    def iter_reads(self) -> Iterator[tuple[str, str, str]]:
        """Every cached read as (text hash, prompt version, output), in key order."""
        for row in self.conn.execute("SELECT text_hash, prompt_version, output FROM reads ORDER BY 1, 2"):
            yield str(row[0]), str(row[1]), str(row[2])

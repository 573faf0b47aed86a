"""LoCoMo conversations: sessions, speakers, times, and record ids that stay unique across conversations and
match the eval's evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vyre_memory import Memory
from vyre_memory.eval.datasets import load


def _conversation(a: str, b: str, line: str) -> dict[str, Any]:
    return {
        "speaker_a": a,
        "speaker_b": b,
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": a, "dia_id": "D1:1", "text": f"Hey {b}! {line}"},
            {"speaker": b, "dia_id": "D1:2", "text": "That sounds great, tell me more."},
        ],
        "session_2_date_time": "10:00 am on 20 May, 2023",
        "session_2": [{"speaker": a, "dia_id": "D2:1", "text": "I finally went to the pottery class."}],
        "qa": [{"question": f"What did {a} say?", "answer": line, "evidence": ["D1:1"], "category": 1}],
    }


def _uuids(mem: Memory) -> list[str]:
    return sorted(u for (text,) in mem.store.conn.execute("SELECT uuids FROM turns") for u in json.loads(text))


def test_two_conversations_in_one_store_keep_their_ids_apart(tmp_path: Path) -> None:
    folder = tmp_path / "locomo"
    folder.mkdir()
    (folder / "26.json").write_text(json.dumps(_conversation("Caroline", "Melanie", "I adopted a dog.")))
    (folder / "30.json").write_text(json.dumps(_conversation("Jon", "Gina", "I opened a dance studio.")))
    with Memory(tmp_path / "home") as mem:
        report = mem.ingest([folder], format="locomo")
        assert report.new_turns == 6 and report.new_sessions == 4, report.problems
        uuids = _uuids(mem)
        assert uuids == sorted(f"{c}:{d}" for c in ("26", "30") for d in ("D1:1", "D1:2", "D2:1"))
        names = {r[0] for r in mem.store.conn.execute("SELECT DISTINCT name FROM turns")}
        assert names == {"Caroline", "Melanie", "Jon", "Gina"}
        first = mem.store.conn.execute("SELECT ts FROM turns WHERE uuids LIKE '%26:D1:1%'").fetchone()[0]
        assert first.startswith("2023-05-08T13:56")
    dataset = load(folder)
    evidence = [e for q in dataset.questions for e in q.evidence]
    assert evidence == [frozenset({"26:D1:1"}), frozenset({"30:D1:1"})]
    assert all(next(iter(e)) in uuids for e in evidence), "every evidence id names a stored turn"


def test_the_list_layout_prefixes_by_sample_id(tmp_path: Path) -> None:
    data = [
        {"sample_id": "conv-7", "conversation": _conversation("Ana", "Ben", "I moved to Lisbon."), "qa": []},
    ]
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps(data))
    with Memory(tmp_path / "home") as mem:
        mem.ingest([path], format="locomo")
        assert _uuids(mem) == ["conv-7:D1:1", "conv-7:D1:2", "conv-7:D2:1"]

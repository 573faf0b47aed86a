"""A subagent's session id holds a "/" (`<session>/agent-<id>`): its turns open over HTTP, as the web
page's drawer asks for them (the id percent-encoded), from a real `vyre serve`."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.surfaces.conftest import start_http

from vyre_memory import Memory
from vyre_memory.eval.synth import SessionWriter, encode_cwd


def test_a_subagent_sources_turns_open_by_its_encoded_id(
    home_copy: Callable[[str | None], Path], demo: Any, tmp_path: Path
) -> None:
    main_id = "d3d0a000-0000-4000-8000-0000000000a9"
    w = SessionWriter(demo.shop, main_id, datetime(2026, 10, 3, 10, 0, tzinfo=UTC), agent_id="f00dfeed")
    w.user("Find where the refund amount is rounded")
    w.assistant(random.Random(5), [{"type": "text", "text": "It is rounded in app/billing/money.py, half up."}])
    path = tmp_path / "projects" / encode_cwd(demo.shop) / main_id / "subagents" / "agent-f00dfeed.jsonl"
    w.write(path)
    home = home_copy(None)
    with Memory(home) as mem:
        assert mem.ingest([path]).new_turns == 2
        (sub,) = [s for s in mem.sessions() if "/" in s.id]
    assert sub.id == f"{main_id}/agent-f00dfeed"
    server = start_http(home)
    try:
        with server.client() as c:
            opened = c.get(f"/v1/sessions/{quote(sub.id, safe='')}/turns", params={"start": 0, "end": 4})
            main = c.get(f"/v1/sessions/{quote('d3d0a000-0000-4000-8000-000000000001', safe='')}/turns")
    finally:
        server.stop()
    assert opened.status_code == 200, opened.text
    body = opened.json()
    assert body["session"]["id"] == sub.id and body["session"]["kind"] == "subagent"
    assert [t["text"] for t in body["turns"]] == [
        "Find where the refund amount is rounded",
        "It is rounded in app/billing/money.py, half up.",
    ]
    assert main.status_code == 200 and main.json()["turns"]

"""Server limits: a body or question over the limit is refused at once with 413 and what to do, and
one ask waiting on a slow model never blocks /v1/health or another asker. A real uvicorn server in
this process (so the test can hold the model), over a copy of the ingested demo history."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from tests.surfaces.conftest import free_port

from vyre_memory.ask.pipeline import BUDGETS_S
from vyre_memory.memory import Memory
from vyre_memory.models.base import ModelRequest
from vyre_memory.models.fake import FunctionModel
from vyre_memory.surfaces.http import MAX_BODY_BYTES, create_app
from vyre_memory.surfaces.scopes import MAX_QUESTION_CHARS, OWNER, Gate, ScopedMemory


class HeldModel:
    """An answer model that waits, inside its call, until the test lets it go."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        self.model = FunctionModel(self._answer, name="held")

    def _answer(self, req: ModelRequest) -> str:
        self.entered.set()
        self.release.wait(60)
        return '{"answer": null, "confidence": 0, "cite": []}'


@pytest.fixture
def served(home_copy: Callable[[str | None], Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, HeldModel]]:
    monkeypatch.setenv("VYRE_MODEL_BACKEND", "none")
    monkeypatch.setitem(BUDGETS_S, "answer", 60.0)  # the held call outlasts the test, however slow the machine
    held = HeldModel()
    mem = Memory(home_copy(None))
    for purpose, backend in (("rerank", None), ("verify", None), ("answer", held.model)):
        mem.set_backend(purpose, backend)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(lambda: mem, mem.config), port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    for _ in range(400):
        if server.started:
            break
        threading.Event().wait(0.05)
    try:
        yield url, held
    finally:
        held.release.set()
        server.should_exit = True
        thread.join(10)


def test_a_5_mb_ask_is_refused_with_413_and_what_to_do(served: tuple[str, HeldModel]) -> None:
    url, _ = served
    with httpx.Client(base_url=url, timeout=10) as c:
        big = c.post("/v1/ask", content=b'{"question": "' + b"x" * (5 << 20) + b'"}')
        long = c.post("/v1/ask", json={"question": "why " * (MAX_QUESTION_CHARS // 4 + 1)})
    assert big.status_code == 413 and big.json() == {
        "error": {
            "code": "too_large",
            "message": f"the request body is over {MAX_BODY_BYTES // 1024} KB; send a question of at most a few "
            'thousand characters, e.g. {"question": "which file had the refund bug"}',
        }
    }
    assert long.status_code == 413 and long.json()["error"]["message"].startswith(
        f'"question" is {MAX_QUESTION_CHARS + 4:,} characters; ask in at most {MAX_QUESTION_CHARS:,}'
    )


def test_an_ask_waiting_on_its_model_blocks_neither_health_nor_another_asker(served: tuple[str, HeldModel]) -> None:
    url, held = served
    slow: dict[str, Any] = {}

    def ask_slowly() -> None:
        with httpx.Client(base_url=url, timeout=60) as c:
            slow["response"] = c.post("/v1/ask", json={"question": "which file had the refund bug"})

    asker = threading.Thread(target=ask_slowly)
    asker.start()
    assert held.entered.wait(30), "the ask never reached its model"
    with httpx.Client(base_url=url, timeout=10) as c:  # a blocked server would time out here
        health = c.get("/v1/health")
        other = c.post("/v1/answer", json={"question": "what's my wife's name"})
        retrieved = c.post("/v1/retrieve", json={"question": "refund webhook"})
    assert not held.release.is_set() and asker.is_alive()  # all three answered while the first ask waited
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert other.status_code == 200 and other.json()["answer"] == "Your wife is Dani."
    assert retrieved.status_code == 200 and retrieved.json()["passages"]
    held.release.set()
    asker.join(30)
    assert slow["response"].status_code == 200 and len(held.model.requests) == 1


def test_health_answers_at_once_while_the_memory_is_busy(home_copy: Callable[[str | None], Path]) -> None:
    with Memory(home_copy(None)) as mem:
        gate = Gate(mem)
        scoped = ScopedMemory(gate, OWNER)
        first = scoped.health()
        taken, done = threading.Event(), threading.Event()

        def hold() -> None:
            with gate.lock:
                taken.set()
                done.wait(30)

        holder = threading.Thread(target=hold)
        holder.start()
        taken.wait(10)
        try:
            busy = scoped.health()
        finally:
            done.set()
            holder.join(10)
    assert first["busy"] is False and first["turns"] > 0
    assert busy == {**first, "busy": True}  # the counts last seen, at once

"""Scripted models for tests, shipped in the package (like pydantic-ai's TestModel/FunctionModel).

Guarantees:
- Never touches the network or a subprocess, so never checks the model-requests switch.
- Every request a fake receives is kept in `.requests`, in order.
- A simulated delay longer than the request's `timeout_s` raises ModelTimeout after `timeout_s`,
  the way a real backend would; a scripted exception is raised as is (script errors.py ones).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Literal

from vyre_memory.errors import ModelError, ModelTimeout
from vyre_memory.models.base import ModelRequest, ModelResponse

Output = str | BaseException


class FunctionModel:
    """A model whose answer is `fn(request)`; `fn` may return a str or raise."""

    def __init__(
        self,
        fn: Callable[[ModelRequest], str],
        *,
        name: str = "function",
        delay_s: float = 0.0,
        cost_usd: float = 0.0,
    ) -> None:
        self.name = name
        self._fn = fn
        self.delay_s = delay_s
        self.cost_usd = cost_usd
        self.requests: list[ModelRequest] = []
        self.closed = False
        self._lock = threading.Lock()

    def complete(self, req: ModelRequest) -> ModelResponse:
        with self._lock:
            self.requests.append(req)
        start = time.perf_counter()
        if self.delay_s:
            if self.delay_s > req.timeout_s:
                time.sleep(max(0.0, req.timeout_s))
                raise ModelTimeout(f"{self.name}: no answer within {req.timeout_s}s (simulated)")
            time.sleep(self.delay_s)
        text = self._fn(req)
        return ModelResponse(
            text=text,
            model=req.model or self.name,
            input_tokens=len(req.system.split()) + len(req.prompt.split()),
            output_tokens=len(text.split()),
            cost_usd=self.cost_usd,
            latency_ms=(time.perf_counter() - start) * 1000,
            backend=self.name,
        )

    def close(self) -> None:
        self.closed = True


class FakeModel(FunctionModel):
    """Answers from a list of canned outputs, in order; an exception in the list is raised.

    `when_exhausted="repeat"` repeats the last output; "error" (default) raises ModelError so a
    test that makes more calls than it scripted fails clearly.
    """

    def __init__(
        self,
        outputs: Iterable[Output],
        *,
        name: str = "fake",
        delay_s: float = 0.0,
        cost_usd: float = 0.0,
        when_exhausted: Literal["error", "repeat"] = "error",
    ) -> None:
        self.outputs: list[Output] = list(outputs)
        self._next = 0
        self.when_exhausted = when_exhausted
        super().__init__(self._scripted, name=name, delay_s=delay_s, cost_usd=cost_usd)

    def _scripted(self, req: ModelRequest) -> str:
        with self._lock:
            if self._next < len(self.outputs):
                out = self.outputs[self._next]
                self._next += 1
            elif self.when_exhausted == "repeat" and self.outputs:
                out = self.outputs[-1]
            else:
                raise ModelError(
                    f"{self.name}: scripted {len(self.outputs)} outputs but got call {self._next + 1} "
                    f"({req.prompt_name}); add outputs to the FakeModel"
                )
        if isinstance(out, BaseException):
            raise out
        return out

"""What a model call cost, and a daily cap on spend.

Guarantees:
- `cost_usd` is computed from the usage a provider reported (tokens in, tokens out) and a price
  table in USD per million tokens; a config dict overrides or extends the table.
- Local servers (OpenAI-compatible on your machine) cost 0.
- `DailyBudget` keeps spend per UTC day; the clock is read only when a method is called.
- `BudgetedBackend` refuses a call (ModelError) once today's spend reached the cap, and records
  the cost of every call that was not replayed.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vyre_memory.errors import ConfigError, ModelError
from vyre_memory.models.base import ModelBackend, ModelRequest, ModelResponse


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float


# USD per million tokens, list prices for current Anthropic models. Model ids with a date suffix
# (claude-haiku-4-5-20251001) match by prefix; CLI aliases (haiku, sonnet, opus) by family.
PRICES: Mapping[str, Price] = {
    "claude-haiku-4-5": Price(1.0, 5.0),
    "claude-sonnet-4-5": Price(3.0, 15.0),
    "claude-sonnet-4-6": Price(3.0, 15.0),
    "claude-sonnet-4": Price(3.0, 15.0),
    "claude-opus-4-6": Price(5.0, 25.0),
    "claude-opus-4-5": Price(5.0, 25.0),
    "claude-opus-4-1": Price(15.0, 75.0),
    "claude-opus-4": Price(15.0, 75.0),
    "claude-3-5-haiku": Price(0.8, 4.0),
    "haiku": Price(1.0, 5.0),
    "sonnet": Price(3.0, 15.0),
    "opus": Price(5.0, 25.0),
}
FREE = Price(0.0, 0.0)


def _parse_overrides(overrides: Mapping[str, Any] | None) -> dict[str, Price]:
    table: dict[str, Price] = {}
    for model, value in (overrides or {}).items():
        try:
            if isinstance(value, Price):
                table[model] = value
            elif isinstance(value, Mapping):
                table[model] = Price(float(value["input"]), float(value["output"]))
            else:
                inp, out = value
                table[model] = Price(float(inp), float(out))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(
                f"price for {model!r} must be {{input = USD per Mtok, output = USD per Mtok}}, got {value!r}"
            ) from exc
    return table


def price_for(model: str, overrides: Mapping[str, Any] | None = None) -> Price | None:
    """The price of `model`: exact match, then longest prefix, then family word; None if unknown."""
    table = {**PRICES, **_parse_overrides(overrides)}
    if model in table:
        return table[model]
    prefixes = [k for k in table if model.startswith(k)]
    if prefixes:
        return table[max(prefixes, key=len)]
    for family in ("haiku", "sonnet", "opus"):
        if family in model:
            return table[family]
    return None


def cost_usd(
    model: str,
    input_tokens: int,
    output_tokens: int,
    overrides: Mapping[str, Any] | None = None,
    local: bool = False,
) -> float:
    """USD for one call; 0 for local servers and for models with no known price."""
    if local and not (overrides and model in overrides):
        return 0.0
    price = price_for(model, overrides) or FREE
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000


def _utc_now() -> datetime:
    return datetime.now(UTC)


class DailyBudget:
    """A cap in USD per UTC day. `may_spend()` before a call, `record()` after it.

    State is a mapping {"YYYY-MM-DD": usd}; `load` and `save` persist it (see `from_file`).
    Only the last 31 days are kept.
    """

    def __init__(
        self,
        cap_usd: float,
        load: Callable[[], Mapping[str, float]] | None = None,
        save: Callable[[dict[str, float]], None] | None = None,
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        if cap_usd < 0:
            raise ConfigError(f"daily budget must be >= 0 USD, got {cap_usd}")
        self.cap_usd = cap_usd
        self._load = load
        self._save = save
        self._clock = clock
        self._lock = threading.Lock()
        self._memory: dict[str, float] = {}

    @classmethod
    def from_file(
        cls, cap_usd: float, path: str | os.PathLike[str], clock: Callable[[], datetime] = _utc_now
    ) -> DailyBudget:
        """Persist spend as JSON at `path` (e.g. $VYRE_HOME/model_spend.json)."""
        file = Path(path)

        def load() -> Mapping[str, float]:
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except FileNotFoundError:
                return {}
            except (OSError, json.JSONDecodeError) as exc:
                raise ModelError(f"cannot read model spend file {file}: {exc}; delete it to reset") from exc
            return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}

        def save(state: dict[str, float]) -> None:
            file.parent.mkdir(parents=True, exist_ok=True)
            tmp = file.with_suffix(file.suffix + ".tmp")
            tmp.write_text(json.dumps(state, sort_keys=True), encoding="utf-8")
            os.replace(tmp, file)

        return cls(cap_usd, load, save, clock)

    def _day(self) -> str:
        return self._clock().astimezone(UTC).strftime("%Y-%m-%d")

    def _state(self) -> dict[str, float]:
        return dict(self._load()) if self._load else dict(self._memory)

    def spent_today(self) -> float:
        with self._lock:
            return self._state().get(self._day(), 0.0)

    def remaining_today(self) -> float:
        return max(0.0, self.cap_usd - self.spent_today())

    def may_spend(self, estimate_usd: float = 0.0) -> bool:
        """True when today's spend plus `estimate_usd` stays within the cap (strictly below it for 0)."""
        spent = self.spent_today()
        if estimate_usd <= 0:
            return spent < self.cap_usd
        return spent + estimate_usd <= self.cap_usd

    def record(self, usd: float) -> float:
        """Add `usd` to today's spend; return today's total."""
        with self._lock:
            state = self._state()
            day = self._day()
            state[day] = state.get(day, 0.0) + max(0.0, usd)
            for old in sorted(state)[:-31]:
                del state[old]
            if self._save:
                self._save(state)
            else:
                self._memory = state
            return state[day]


class BudgetedBackend:
    """Wraps a backend with a DailyBudget: no call once the cap is reached."""

    def __init__(self, inner: ModelBackend, budget: DailyBudget) -> None:
        self.inner = inner
        self.budget = budget
        self.name = inner.name
        self.default_model = str(getattr(inner, "default_model", ""))

    def complete(self, req: ModelRequest) -> ModelResponse:
        if not self.budget.may_spend():
            raise ModelError(
                f"daily model budget of ${self.budget.cap_usd:.2f} is spent "
                f"(${self.budget.spent_today():.2f} today, UTC); raise [models] daily_budget_usd or wait for 00:00 UTC"
            )
        resp = self.inner.complete(req)
        if not resp.from_cache:
            self.budget.record(resp.cost_usd)
        return resp

    def close(self) -> None:
        self.inner.close()

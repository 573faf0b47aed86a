"""Prices per million tokens, overridable; a daily cap kept per UTC day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from vyre_memory.errors import ConfigError, ModelError
from vyre_memory.models.base import ModelRequest
from vyre_memory.models.fake import FakeModel
from vyre_memory.models.pricing import BudgetedBackend, DailyBudget, Price, cost_usd, price_for
from vyre_memory.models.select import select_backend


def test_prices_match_dated_ids_and_cli_aliases() -> None:
    assert price_for("claude-haiku-4-5") == Price(1.0, 5.0)
    assert price_for("claude-haiku-4-5-20251001") == Price(1.0, 5.0)
    assert price_for("claude-opus-4-1-20250805") == Price(15.0, 75.0)
    assert price_for("sonnet") == Price(3.0, 15.0)
    assert price_for("llama3.1:8b") is None


def test_cost_from_usage_with_override_and_local_zero() -> None:
    assert cost_usd("claude-haiku-4-5", 1_000_000, 200_000) == pytest.approx(2.0)
    assert cost_usd("claude-haiku-4-5", 1000, 0, {"claude-haiku-4-5": {"input": 2, "output": 10}}) == pytest.approx(
        0.002
    )
    assert cost_usd("llama3.1:8b", 10_000, 10_000, local=True) == 0.0
    assert cost_usd("unknown-model", 10_000, 10_000) == 0.0


def test_bad_price_override_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="USD per Mtok"):
        price_for("x", {"x": "cheap"})


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_daily_budget_caps_spend_and_resets_at_utc_midnight(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "spend.json"
    budget = DailyBudget.from_file(0.10, path, clock=clock)
    assert budget.may_spend()
    budget.record(0.06)
    assert budget.may_spend(0.04) and not budget.may_spend(0.05)
    budget.record(0.05)
    assert not budget.may_spend()
    # Persisted: a new instance over the same file sees today's spend.
    again = DailyBudget.from_file(0.10, path, clock=clock)
    assert again.spent_today() == pytest.approx(0.11)
    clock.now += timedelta(minutes=2)
    assert again.may_spend() and again.spent_today() == 0.0 and again.remaining_today() == pytest.approx(0.10)


def test_daily_budget_with_callbacks() -> None:
    saved: dict[str, float] = {}
    budget = DailyBudget(1.0, load=lambda: saved, save=lambda s: saved.update(s), clock=Clock())
    budget.record(0.25)
    assert saved == {"2026-03-01": 0.25}


def test_negative_cap_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        DailyBudget(-1)


def test_budgeted_backend_refuses_once_the_cap_is_spent_and_ignores_replays() -> None:
    budget = DailyBudget(0.01, clock=Clock())
    backend = BudgetedBackend(FakeModel(["a", "b", "c"], cost_usd=0.006), budget)
    req = ModelRequest("answer", "answer", "1", "", "Q")
    assert [backend.complete(req).text, backend.complete(req).text] == ["a", "b"]
    assert budget.spent_today() == pytest.approx(0.012)
    with pytest.raises(ModelError, match=r"daily model budget of \$0\.01 is spent"):
        backend.complete(req)


def test_budget_from_config_wraps_the_backend(tmp_path: Path) -> None:
    config = {"backend": "anthropic", "daily_budget_usd": 2}
    backend, why = select_backend("answer", config, {"ANTHROPIC_API_KEY": "sk", "VYRE_HOME": str(tmp_path)})
    assert isinstance(backend, BudgetedBackend) and backend.name == "anthropic"
    assert "daily budget $2.00" in why
    assert backend.budget.remaining_today() == 2.0


def test_a_memory_keeps_its_spend_in_its_own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A memory opened on a home of its own (not the process's VYRE_HOME) keeps what it spends there."""
    from vyre_memory import Memory

    monkeypatch.setenv("VYRE_HOME", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk")
    with Memory(tmp_path / "mine", models={"backend": "anthropic", "daily_budget_usd": 2}) as mem:
        backend = mem.backend("answer")
        assert isinstance(backend, BudgetedBackend)
        backend.budget.record(0.5)
    assert (tmp_path / "mine" / "model_spend.json").exists()
    assert not (tmp_path / "elsewhere").exists()


def test_a_memory_on_a_relative_home_keeps_its_spend_there_after_a_change_of_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vyre_memory import Memory

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk")
    monkeypatch.chdir(tmp_path)
    with Memory("mine", models={"backend": "anthropic", "daily_budget_usd": 2}) as mem:
        (tmp_path / "elsewhere").mkdir()
        monkeypatch.chdir(tmp_path / "elsewhere")
        backend = mem.backend("answer")
        assert isinstance(backend, BudgetedBackend)
        backend.budget.record(0.5)
    assert (tmp_path / "mine" / "model_spend.json").exists()
    assert not (tmp_path / "elsewhere" / "mine").exists()

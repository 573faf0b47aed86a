"""`vyre eval` options: --model none|replay|record, --fixtures, --misses, --rerank, --repeat; no model by default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from vyre_memory.errors import ConfigError
from vyre_memory.eval import models as eval_models
from vyre_memory.eval.models import EvalBackends, ModelChoice
from vyre_memory.eval.runner import expand_ablations
from vyre_memory.models.base import PURPOSES
from vyre_memory.models.replay import RecordingBackend, ReplayBackend
from vyre_memory.surfaces.cli import main

try:
    from .eval_world import Oracle, no_select, selector_for
except ImportError:
    from eval_world import Oracle, no_select, selector_for  # type: ignore[no-redef]

ANSWER_METRICS = (
    "accuracy",
    "confident_wrong",
    "abstain_rate",
    "trap_hits",
    "inconsistent",
    "ungrounded",
    "cost_per_question_usd",
)


def _eval(*args: str) -> Result:
    return CliRunner().invoke(main, ["eval", *args])


def _reports(result: Result) -> list[dict[str, Any]]:
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]


def test_help_lists_the_model_options() -> None:
    out = _eval("--help").output
    for option in ("--model", "--fixtures", "--misses", "--rerank", "--repeat", "none|replay|record"):
        assert option in out


def test_default_is_no_model_for_every_purpose(demo_world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VYRE_MODEL_BACKEND", "claude-cli")  # configured, yet an eval must not use it unasked
    monkeypatch.setattr(eval_models, "select_backend", no_select)
    [report] = _reports(_eval(str(demo_world), "--json", "--repeat", "3"))
    assert report["models"]["mode"] == "none" and report["models"]["fixtures"] is None
    assert report["models"]["backends"] == {p: f"{p}: no model (--model none)" for p in PURPOSES}
    assert report["ablation"] == "hybrid" and report["rerank"] is False and report["repeat"] == 3
    assert all(report[m] is not None for m in ANSWER_METRICS)
    assert report["inconsistent"] == 0  # the no-model pipeline is deterministic
    assert report["accuracy"] > 0  # the extractor answers the file questions
    stages = report["latency_ms"]["stages"]
    assert {"retrieval", "answer"} <= set(stages) and set(stages["answer"]) == {"p50", "p95"}


def test_table_output_names_the_model_mode(demo_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eval_models, "select_backend", selector_for(Oracle()))
    result = _eval(str(demo_world), "--model", "record", "--fixtures", str(tmp_path / "fx"))
    assert result.exit_code == 0, result.output
    assert "hybrid+rerank" in result.output and "models: record from" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rerank", "on"], "needs a model for rerank"),
        (["--rerank", "both"], "needs a model for rerank"),
        (["--ablation", "hybrid+rerank"], "needs a model for rerank"),
        (["--misses", "m.jsonl"], "--misses only applies to --model replay"),
        (["--model", "replay", "--fixtures", "no-such-folder"], "no recordings folder"),
    ],
)
def test_impossible_choices_are_one_line_errors(
    demo_world: Path, cwd: Path, args: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eval_models, "select_backend", no_select)
    result = _eval(str(demo_world), *args)
    assert result.exit_code == 1 and message in result.output


def test_record_with_no_real_backend_says_what_to_set(
    demo_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eval_models, "select_backend", lambda p, c, e: (None, f"{p}: no model (none)"))
    result = _eval(str(demo_world), "--model", "record", "--fixtures", str(tmp_path / "fx"))
    assert result.exit_code == 1 and "needs a real model backend" in result.output


def test_record_wraps_the_selected_backend_without_a_second_recorder(tmp_path: Path) -> None:
    seen: list[dict[str, str]] = []
    oracle = Oracle()

    def select(purpose: str, config: Any, env: Any) -> tuple[Any, str]:
        seen.append(dict(env))
        assert "record_dir" not in config
        return oracle, f"{purpose}: oracle"

    env = {"VYRE_RECORD_DIR": str(tmp_path / "elsewhere"), "PATH": ""}
    choice = ModelChoice("record")
    with choice.open("demo", config={"record_dir": "x"}, env=env, select=select) as chosen:
        assert chosen.fixtures_dir == tmp_path / "elsewhere"  # $VYRE_RECORD_DIR is where recordings go
        used = [p for p in PURPOSES if p != "reader"]  # the model reader only where [models.reader] chooses it
        assert all(isinstance(chosen.backends[p], RecordingBackend) for p in used) and not chosen.backends["reader"]
        assert all("VYRE_RECORD_DIR" not in e for e in seen)  # select_backend must not wrap it again
        assert all("recording to" in chosen.reasons[p] for p in used)
    assert oracle.closed


def test_replay_keys_like_the_configured_model_and_starts_the_misses_file_afresh(tmp_path: Path) -> None:
    fixtures, misses = tmp_path / "fx", tmp_path / "m.jsonl"
    fixtures.mkdir()
    misses.write_text('{"key": "old"}\n')
    config = {"model": "claude-sonnet-4-5", "answer": {"model": "claude-opus-4-1"}}
    with ModelChoice("replay", fixtures, misses).open("demo", config=config, env={}) as chosen:
        assert isinstance(chosen, EvalBackends) and chosen.misses_path == misses
        backends = {p: chosen.backends[p] for p in PURPOSES}
        assert all(isinstance(b, ReplayBackend) for p, b in backends.items() if p != "reader")
        assert backends["reader"] is None  # the model reader only where [models.reader] chooses it
        assert getattr(backends["answer"], "default_model", None) == "claude-opus-4-1"
        assert getattr(backends["rerank"], "default_model", None) == "claude-sonnet-4-5"
        assert chosen.counters()["misses"] == 0
    assert misses.read_text() == ""


def test_replay_folder_defaults(tmp_path: Path) -> None:
    assert ModelChoice("replay").fixtures_dir("open", {}) == Path("tests/fixtures/replay/open")
    assert ModelChoice("replay").fixtures_dir("open", {"VYRE_REPLAY_DIR": "/r"}) == Path("/r")
    assert ModelChoice("record").fixtures_dir("open", {"VYRE_REPLAY_DIR": "/r"}) == Path("tests/fixtures/replay/open")
    assert ModelChoice("replay", tmp_path).fixtures_dir("open", {"VYRE_REPLAY_DIR": "/r"}) == tmp_path
    assert ModelChoice("replay").misses_path({"VYRE_REPLAY_MISSES": "/m.jsonl"}) == Path("/m.jsonl")
    assert ModelChoice("none").fixtures_dir("open", {"VYRE_REPLAY_DIR": "/r"}) is None
    with pytest.raises(ConfigError):
        ModelChoice("live")


@pytest.mark.parametrize(
    ("names", "rerank", "have", "expected"),
    [
        (["hybrid"], "auto", False, [("hybrid", "hybrid", False)]),
        (["hybrid"], "auto", True, [("hybrid+rerank", "hybrid", True)]),
        (["hybrid"], "off", True, [("hybrid", "hybrid", False)]),
        (
            ["bm25", "hybrid+graph"],
            "both",
            True,
            [
                ("bm25", "bm25", False),
                ("bm25+rerank", "bm25", True),
                ("hybrid+graph", "hybrid+graph", False),
                ("hybrid+graph+rerank", "hybrid+graph", True),
            ],
        ),
        (["hybrid", "hybrid+rerank"], "off", True, [("hybrid", "hybrid", False), ("hybrid+rerank", "hybrid", True)]),
    ],
)
def test_rerank_ablations(names: list[str], rerank: str, have: bool, expected: list[tuple[str, str, bool]]) -> None:
    assert expand_ablations(names, rerank, have) == expected


def test_rerank_ablation_without_a_model_is_refused() -> None:
    with pytest.raises(ConfigError, match="needs a model for rerank"):
        expand_ablations(["hybrid"], "on", False)
    with pytest.raises(ConfigError):
        expand_ablations(["hybrid"], "sometimes", True)


def test_a_database_that_already_holds_a_history_is_refused(
    demo_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a shared database named for every run: the first data set's history would be searched with the second's
    monkeypatch.setenv("VYRE_DATABASE_URL", str(tmp_path / "shared.db"))
    monkeypatch.setattr(eval_models, "select_backend", no_select)
    assert _reports(_eval(str(demo_world), "--json", "--retrieval-only"))
    again = _eval(str(demo_world), "--json", "--retrieval-only")
    assert again.exit_code != 0 and "already holds a history" in again.output

"""The whole pipeline under `vyre eval`, recorded once from a scripted oracle and replayed from the recordings.

Record: `--model record` wraps the configured backend (here the oracle, standing in for select_backend) in
RecordingBackend. Replay: `--model replay` answers only from those files; a request with no recording is
written to `--misses` and the question abstains, and a recording made offline from the miss line is found
by the next run, stage by stage (rerank first, then the answer it changes).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from vyre_memory.ask.prompts import answer as answer_prompt
from vyre_memory.eval import models as eval_models
from vyre_memory.eval.models import ModelChoice, read_misses, write_fixture_for_miss
from vyre_memory.eval.runner import run
from vyre_memory.models.base import ModelRequest
from vyre_memory.surfaces.cli import main

try:
    from .eval_world import Oracle, make_world, no_select, oracle_reply, selector_for
except ImportError:
    from eval_world import Oracle, make_world, no_select, oracle_reply, selector_for  # type: ignore[no-redef]

Rows = list[dict[str, Any]]


def _eval(*args: str) -> Result:
    result = CliRunner().invoke(main, ["eval", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _reports(result: Result) -> Rows:
    return [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]


def _by_id(rows: Rows, ablation: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in rows if r["ablation"] == ablation}


def _record(monkeypatch: pytest.MonkeyPatch, world: Path, fixtures: Path, per_q: Path) -> tuple[Oracle, Rows]:
    oracle = Oracle()
    monkeypatch.setattr(eval_models, "select_backend", selector_for(oracle))
    out = _eval(
        str(world),
        "--model",
        "record",
        "--fixtures",
        str(fixtures),
        "--rerank",
        "both",
        "--per-question",
        str(per_q),
        "--json",
    )
    monkeypatch.setattr(eval_models, "select_backend", no_select)  # from here on, nothing may select a model
    return oracle, _reports(out)


def test_record_then_replay_answers_from_the_recordings(
    demo_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_jsonl: Callable[[Path], Rows]
) -> None:
    fixtures = tmp_path / "fixtures"
    oracle, recorded = _record(monkeypatch, demo_world, fixtures, tmp_path / "recorded.jsonl")

    assert [r["ablation"] for r in recorded] == ["hybrid", "hybrid+rerank"]
    assert all(r["models"]["mode"] == "record" for r in recorded)
    assert "recording to" in recorded[0]["models"]["backends"]["answer"]
    assert recorded[0]["models"]["backends"]["rerank"].startswith("rerank: off")  # the ablation without rerank
    assert "recording to" in recorded[1]["models"]["backends"]["rerank"]
    purposes = {r.purpose for r in oracle.requests}
    assert {"rerank", "answer"} <= purposes
    files = sorted(fixtures.glob("*.json"))
    assert files and len(files) == len({json.dumps(r.to_dict(), sort_keys=True) for r in oracle.requests})
    assert all(json.loads(f.read_text())["backend"] == "oracle" for f in files)

    out = _eval(
        str(demo_world),
        "--model",
        "replay",
        "--fixtures",
        str(fixtures),
        "--rerank",
        "both",
        "--per-question",
        str(tmp_path / "replayed.jsonl"),
        "--json",
    )
    replayed = _reports(out)
    for report in replayed:
        assert report["models"]["mode"] == "replay"
        assert all(
            why.startswith(f"{p}: replay from")
            for p, why in report["models"]["backends"].items()
            if not (p == "rerank" and not report["rerank"]) and p != "reader"
        )
        assert report["accuracy"] == 1.0 and report["abstain_rate"] == 0.25
        assert report["confident_wrong"] == 0 and report["trap_hits"] == 0 and report["ungrounded"] == 0
    assert replayed[-1]["models"]["recordings_replayed"] == len(files)  # every recording was used

    before, after = read_jsonl(tmp_path / "recorded.jsonl"), read_jsonl(tmp_path / "replayed.jsonl")
    for ablation in ("hybrid", "hybrid+rerank"):
        got = _by_id(after, ablation)
        assert got["q1"]["answer"] == "app/billing/refunds.py" and got["q1"]["via"] == "retrieval"
        assert got["q2"]["answer"] == "Microsoft Entra ID through django-allauth"
        assert got["q3"]["abstained"] and got["q3"]["right"]
        assert got["q4"]["answer"] == "app/exports/csv.py"
        assert {k: v["answer"] for k, v in got.items()} == {k: v["answer"] for k, v in _by_id(before, ablation).items()}


def test_a_missing_recording_is_written_to_misses_and_the_question_abstains(
    demo_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_jsonl: Callable[[Path], Rows]
) -> None:
    fixtures = tmp_path / "fixtures"
    _record(monkeypatch, demo_world, fixtures, tmp_path / "recorded.jsonl")
    asked = "Question: which file made the nightly export slow"
    dropped = [f for f in fixtures.glob("*.json") if asked in json.loads(f.read_text())["request"]["prompt"]]
    assert dropped
    for f in dropped:
        f.unlink()

    misses = tmp_path / "misses.jsonl"
    per_q = tmp_path / "replayed.jsonl"
    reports = _reports(
        _eval(
            str(demo_world),
            "--model",
            "replay",
            "--fixtures",
            str(fixtures),
            "--misses",
            str(misses),
            "--rerank",
            "on",
            "--per-question",
            str(per_q),
            "--json",
        )
    )
    got = _by_id(read_jsonl(per_q), "hybrid+rerank")
    assert got["q4"]["abstained"] and got["q4"]["answer"] is None  # no crash: the model "failed"
    assert got["q1"]["answer"] == "app/billing/refunds.py"  # the others still replay
    lines = read_misses(misses)
    assert lines and all(asked in m["prompt"] for m in lines)
    assert {"key", "prompt", "json_schema", "system", "prompt_name", "prompt_version"} <= set(lines[0])
    assert all(len(m["key"]) == 64 for m in lines)
    # rerank missed (so retrieval's order was kept), then the answer over that order missed too
    assert [m["prompt_name"] for m in lines] == ["rerank", "answer"]
    assert lines[1]["json_schema"] == answer_prompt.JSON_SCHEMA
    assert reports[0]["models"]["misses"] == len({m["key"] for m in lines})


def test_recordings_made_offline_from_the_misses_fill_the_run_stage_by_stage(
    demo_world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_jsonl: Callable[[Path], Rows]
) -> None:
    monkeypatch.setattr(eval_models, "select_backend", no_select)
    fixtures, misses, per_q = tmp_path / "fixtures", tmp_path / "misses.jsonl", tmp_path / "replayed.jsonl"
    fixtures.mkdir()
    stages: list[set[str]] = []
    schemas: dict[str, Any] = {}
    for _ in range(6):
        _eval(
            str(demo_world),
            "--model",
            "replay",
            "--fixtures",
            str(fixtures),
            "--misses",
            str(misses),
            "--rerank",
            "on",
            "--per-question",
            str(per_q),
            "--json",
        )
        lines = read_misses(misses)
        if not lines:
            break
        stages.append({m["prompt_name"] for m in lines})
        schemas.update({m["prompt_name"]: m["json_schema"] for m in lines})
        for miss in {m["key"]: m for m in lines}.values():  # produced "by any means": here, the oracle offline
            req = ModelRequest(
                purpose=miss["prompt_name"],
                prompt_name=miss["prompt_name"],
                prompt_version=miss["prompt_version"],
                system=miss["system"],
                prompt=miss["prompt"],
                json_schema=miss["json_schema"],
            )
            write_fixture_for_miss(fixtures, miss, oracle_reply(req))
    assert not read_misses(misses), f"still missing after {len(stages)} rounds"
    # round 1: rerank and the answer over retrieval's order miss; then the answer over the reranked order, unless
    # reranking kept retrieval's order (then round 1 held every request)
    assert stages and "rerank" in stages[0] and "answer" in set().union(*stages) and stages[-1] <= {"rerank", "answer"}
    assert schemas["answer"] == answer_prompt.JSON_SCHEMA  # the miss carries the output schema
    got = _by_id(read_jsonl(per_q), "hybrid+rerank")
    assert got["q1"]["answer"] == "app/billing/refunds.py" and got["q4"]["answer"] == "app/exports/csv.py"
    assert got["q3"]["abstained"]


def test_repeat_clears_the_answer_cache_so_inconsistent_measures_the_pipeline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = make_world(tmp_path / "world")
    calls: list[int] = []

    def flaky(req: ModelRequest) -> str:
        """The oracle, except its answer to q1 changes wording on every call (a nondeterministic model)."""
        text = oracle_reply(req)
        if req.purpose == "answer" and "refund credited twice" in req.prompt:
            calls.append(1)
            data = json.loads(text)
            data["confidence"] = 0.9 - 0.1 * (len(calls) % 2)
            text = json.dumps(data)
        return text

    monkeypatch.setattr(eval_models, "select_backend", selector_for(Oracle()))
    steady = run(world, retrieval_only=False, repeat=3, rerank="off", models=ModelChoice("record", tmp_path / "a"))
    assert steady[0]["inconsistent"] == 0 and steady[0]["repeat"] == 3
    monkeypatch.setattr(eval_models, "select_backend", selector_for(Oracle(flaky)))
    shaky = run(world, retrieval_only=False, repeat=3, rerank="off", models=ModelChoice("record", tmp_path / "b"))
    assert len(calls) == 3, "each repeat must run the pipeline again, not answer from the cache"
    assert shaky[0]["inconsistent"] == 1


def test_the_default_fixtures_folder_is_tests_fixtures_replay_dataset_name(
    demo_world: Path, cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VYRE_REPLAY_DIR", raising=False)
    monkeypatch.delenv("VYRE_RECORD_DIR", raising=False)
    monkeypatch.setattr(eval_models, "select_backend", selector_for(Oracle()))
    _eval(str(demo_world), "--model", "record", "--json")
    default = cwd / "tests" / "fixtures" / "replay" / "demo"
    assert list(default.glob("*.json"))
    shutil.copytree(default, cwd / "elsewhere")
    monkeypatch.setenv("VYRE_REPLAY_DIR", str(cwd / "elsewhere"))
    monkeypatch.setattr(eval_models, "select_backend", no_select)
    report = _reports(_eval(str(demo_world), "--model", "replay", "--json"))[0]
    assert report["models"]["fixtures"] == str(cwd / "elsewhere") and report["accuracy"] == 1.0

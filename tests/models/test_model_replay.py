"""Record once, replay by request hash; misses are named and optionally written down."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from vyre_memory.errors import ReplayMissError
from vyre_memory.models.base import ModelRequest, request_key
from vyre_memory.models.fake import FakeModel
from vyre_memory.models.replay import FixtureUsage, RecordingBackend, ReplayBackend, unused_fixtures

REQ = ModelRequest("rerank", "rerank", "2", "Rank passages.", "Q: port?\n1: ...", model="claude-haiku-4-5")


def test_recording_writes_one_file_per_request_keyed_by_hash(tmp_path: Path) -> None:
    recorder = RecordingBackend(FakeModel(["[1, 2]"], name="fake"), tmp_path)
    resp = recorder.complete(REQ)
    key = request_key(REQ, "fake")
    record = json.loads((tmp_path / f"{key}.json").read_text())
    assert record == {"key": key, "backend": "fake", "request": REQ.to_dict(), "response": resp.to_dict()}
    assert [p.name for p in tmp_path.iterdir()] == [f"{key}.json"]


def test_replay_hit_returns_recorded_response_marked_from_cache(tmp_path: Path) -> None:
    recorded = RecordingBackend(FakeModel(["[1, 2]"], name="fake"), tmp_path).complete(REQ)
    replayed = ReplayBackend(tmp_path).complete(REQ)
    assert replayed == dataclasses.replace(recorded, from_cache=True)


def test_replay_miss_names_the_key(tmp_path: Path) -> None:
    replay = ReplayBackend(tmp_path, backend_name="fake")
    with pytest.raises(ReplayMissError, match=request_key(REQ, "fake")):
        replay.complete(REQ)


def test_replay_miss_with_misses_file_appends_a_line_and_still_raises(tmp_path: Path) -> None:
    misses = tmp_path / "misses.jsonl"
    replay = ReplayBackend(tmp_path / "fixtures", misses)
    for _ in range(2):
        with pytest.raises(ReplayMissError):
            replay.complete(REQ)
    lines = [json.loads(line) for line in misses.read_text().splitlines()]
    expected = {
        "key": replay.key_for(REQ),
        "prompt_name": "rerank",
        "prompt_version": "2",
        "system": "Rank passages.",
        "prompt": "Q: port?\n1: ...",
        "json_schema": None,
    }
    assert lines == [expected, expected]


def test_a_changed_prompt_version_misses(tmp_path: Path) -> None:
    RecordingBackend(FakeModel(["x"], name="fake"), tmp_path).complete(REQ)
    with pytest.raises(ReplayMissError):
        ReplayBackend(tmp_path).complete(dataclasses.replace(REQ, prompt_version="3"))


def test_implicit_model_is_filled_before_keying(tmp_path: Path) -> None:
    class Inner(FakeModel):
        default_model = "claude-haiku-4-5"

    implicit = dataclasses.replace(REQ, model="")
    RecordingBackend(Inner(["x"], name="fake"), tmp_path).complete(implicit)
    assert (tmp_path / f"{request_key(REQ, 'fake')}.json").exists()
    assert ReplayBackend(tmp_path, default_model="claude-haiku-4-5").complete(implicit).text == "x"
    with pytest.raises(ReplayMissError):
        ReplayBackend(tmp_path, default_model="claude-sonnet-4-5").complete(implicit)


def test_unused_recordings_are_listed(tmp_path: Path) -> None:
    other = dataclasses.replace(REQ, prompt="Q: host?")
    recorder = RecordingBackend(FakeModel(["a", "b"], name="fake"), tmp_path)
    recorder.complete(REQ)
    recorder.complete(other)
    usage = FixtureUsage()
    replay = ReplayBackend(tmp_path, usage=usage)
    replay.complete(REQ)
    assert replay.unused_fixtures() == [tmp_path / f"{request_key(other, 'fake')}.json"]
    assert unused_fixtures(tmp_path, usage.used) == replay.unused_fixtures()
    replay.complete(other)
    assert replay.unused_fixtures() == []


def test_errors_are_not_recorded(tmp_path: Path) -> None:
    recorder = RecordingBackend(FakeModel([ReplayMissError("no")], name="fake"), tmp_path)
    with pytest.raises(ReplayMissError):
        recorder.complete(REQ)
    assert not tmp_path.exists() or list(tmp_path.iterdir()) == []


def test_replay_backend_fixture_tracks_use_for_the_run(
    tmp_path: Path, replay_backend: Callable[..., ReplayBackend]
) -> None:
    RecordingBackend(FakeModel(["x"], name="fake"), tmp_path).complete(REQ)
    replay = replay_backend(tmp_path)
    assert replay.complete(REQ).text == "x"
    assert replay.unused_fixtures() == []

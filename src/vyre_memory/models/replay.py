"""Recorded model calls: record real calls once, replay them in tests and CI.

Guarantees:
- One JSON file per request, `<fixtures_dir>/<key>.json` = {key, backend, request, response},
  where key = request_key(request, backend). Any change to any request field is a new key.
- `ReplayBackend` never calls a model: a hit returns the recorded response with
  `from_cache=True`; a miss raises ReplayMissError naming the key (and, with `misses_path`,
  first appends one JSON line describing the request so it can be recorded later).
- Which recordings a run used is tracked (`FixtureUsage`), so a test run can fail on recordings
  that nothing used any more.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from vyre_memory.errors import ModelError, ReplayMissError
from vyre_memory.models.base import ModelBackend, ModelRequest, ModelResponse, request_key

_MISSES_LOCK = threading.Lock()


class FixtureUsage:
    """The keys replayed so far (share one across ReplayBackends of a test session), and per purpose how many
    calls were asked for and how many characters went in and came out (what a real model would have read)."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._lock = threading.Lock()
        self.stages: dict[str, dict[str, int]] = {}

    def mark(self, key: str) -> None:
        with self._lock:
            self._used.add(key)

    def count(self, req: ModelRequest, output: str | None) -> None:
        with self._lock:
            stage = self.stages.setdefault(req.purpose, {"calls": 0, "prompt_chars": 0, "output_chars": 0})
            stage["calls"] += 1
            stage["prompt_chars"] += len(req.system) + len(req.prompt)
            stage["output_chars"] += len(output or "")

    @property
    def used(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._used)


def with_default_model(req: ModelRequest, default_model: str) -> ModelRequest:
    """`req` with its model filled in, so a key never depends on a model left implicit."""
    return req if req.model or not default_model else replace(req, model=default_model)


def fixture_path(fixtures_dir: Path, key: str) -> Path:
    return fixtures_dir / f"{key}.json"


def write_fixture(fixtures_dir: str | os.PathLike[str], backend: str, req: ModelRequest, resp: ModelResponse) -> Path:
    """Write one recording atomically; return its path."""
    folder = Path(fixtures_dir)
    folder.mkdir(parents=True, exist_ok=True)
    key = request_key(req, backend)
    record = {"key": key, "backend": backend, "request": req.to_dict(), "response": resp.to_dict()}
    path = fixture_path(folder, key)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def unused_fixtures(fixtures_dir: str | os.PathLike[str], used: Iterable[str]) -> list[Path]:
    """Recordings under `fixtures_dir` whose key is not in `used` (sorted)."""
    used_set = set(used)
    folder = Path(fixtures_dir)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.json") if p.stem not in used_set)


class ReplayBackend:
    """Answers only from recordings.

    `backend_name` pins which recorded backend to match; None matches a recording made by any
    backend (the first in name order), so fixtures recorded through the CLI replay anywhere.
    """

    name = "replay"

    def __init__(
        self,
        fixtures_dir: str | os.PathLike[str],
        misses_path: str | os.PathLike[str] | None = None,
        *,
        backend_name: str | None = None,
        usage: FixtureUsage | None = None,
        default_model: str = "",
    ) -> None:
        self.fixtures_dir = Path(fixtures_dir)
        self.misses_path = Path(misses_path) if misses_path is not None else None
        self.backend_name = backend_name
        self.usage = usage or FixtureUsage()
        self.default_model = default_model
        self._names: list[str] | None = None

    def _recorded_backends(self, refresh: bool = False) -> list[str]:
        if self.backend_name is not None:
            return [self.backend_name]
        if self._names is not None and not refresh:
            return self._names
        names: set[str] = set()
        if self.fixtures_dir.is_dir():
            for path in self.fixtures_dir.glob("*.json"):
                try:
                    names.add(str(json.loads(path.read_text(encoding="utf-8"))["backend"]))
                except (OSError, ValueError, KeyError, TypeError):
                    continue
        self._names = sorted(names)
        return self._names

    def key_for(self, req: ModelRequest) -> str:
        """The key a new recording of `req` would get here (used to name misses)."""
        return request_key(req, self.backend_name or "any")

    def complete(self, req: ModelRequest) -> ModelResponse:
        req = with_default_model(req, self.default_model)
        # The backend names are read once; a miss rescans in case recordings were added since.
        for refresh in (False, True):
            for backend in self._recorded_backends(refresh):
                key = request_key(req, backend)
                path = fixture_path(self.fixtures_dir, key)
                if path.is_file():
                    resp = self._load(path, key)
                    self.usage.count(req, resp.text)
                    return resp
            if self.backend_name is not None:
                break
        key = self.key_for(req)
        self.usage.count(req, None)
        if self.misses_path is not None:
            self._append_miss(key, req)
        raise ReplayMissError(
            f"no recording for {req.purpose}/{req.prompt_name} v{req.prompt_version} (key {key}) under "
            f"{self.fixtures_dir}; record it with a real backend wrapped in RecordingBackend"
        )

    def _load(self, path: Path, key: str) -> ModelResponse:
        try:
            record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            resp = ModelResponse.from_dict(record["response"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"recording {path} is unreadable ({exc}); delete it and record again") from exc
        self.usage.mark(key)
        return ModelResponse(**{**resp.to_dict(), "from_cache": True})

    def _append_miss(self, key: str, req: ModelRequest) -> None:
        assert self.misses_path is not None
        line = {
            "key": key,
            "prompt_name": req.prompt_name,
            "prompt_version": req.prompt_version,
            "system": req.system,
            "prompt": req.prompt,
            "json_schema": req.json_schema,
        }
        self.misses_path.parent.mkdir(parents=True, exist_ok=True)
        with _MISSES_LOCK, self.misses_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")

    def unused_fixtures(self) -> list[Path]:
        return unused_fixtures(self.fixtures_dir, self.usage.used)

    def close(self) -> None:
        return None


class RecordingBackend:
    """Passes each call to `inner` and writes the recording; errors are not recorded."""

    def __init__(self, inner: ModelBackend, fixtures_dir: str | os.PathLike[str]) -> None:
        self.inner = inner
        self.fixtures_dir = Path(fixtures_dir)
        self.name = f"record:{inner.name}"

    def complete(self, req: ModelRequest) -> ModelResponse:
        req = with_default_model(req, str(getattr(self.inner, "default_model", "")))
        resp = self.inner.complete(req)
        write_fixture(self.fixtures_dir, self.inner.name, req, resp)
        return resp

    def close(self) -> None:
        self.inner.close()

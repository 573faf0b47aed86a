"""How an eval run chooses its model backends: `none`, `replay` or `record` (`vyre eval --model`).

    none    every purpose (rerank, answer, verify, reader) has no model: retrieval and the no-model
            extractor only. The default, so an eval never calls a model unless asked.
    replay  every purpose answers from recordings in a fixtures folder (`ReplayBackend`); a request
            with no recording is a model failure (the pipeline abstains or keeps retrieval's order)
            and, with a misses file, is first written there as one JSON line (key, prompt, schema).
    record  every purpose uses the backend the person configured (`select_backend`, from
            $VYRE_HOME/config.toml and the environment), wrapped in `RecordingBackend` so each call
            is written to the fixtures folder that `replay` reads.

The fixtures folder is `--fixtures`, else $VYRE_REPLAY_DIR (replay) / $VYRE_RECORD_DIR (record),
else `tests/fixtures/replay/<dataset name>` (under the current folder). The misses file is `--misses`,
else $VYRE_REPLAY_MISSES; it is started afresh by each run, so it lists exactly that run's misses (a
request missed by several repeats or ablations appears once per miss; dedupe by key).

A miss line can be turned into a recording by any means (another machine, another model, by hand):
`write_fixture_for_miss(fixtures_dir, miss, text)` writes `<key>.json` so the next replay finds it.

Guarantees:
- Backends are set on the eval's Memory before it ingests or asks, for every purpose, so nothing
  falls back to the automatic choice (which could find a real `claude` on PATH).
- Replay and none never call a model; record calls only the backend the person configured.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..models.base import DEFAULT_ANTHROPIC_MODEL, PURPOSES, ModelBackend, ModelResponse
from ..models.replay import FixtureUsage, RecordingBackend, ReplayBackend, fixture_path
from ..models.select import select_backend

MODES: tuple[str, ...] = ("none", "replay", "record")
DEFAULT_FIXTURES_ROOT = Path("tests") / "fixtures" / "replay"
MISS_BACKEND = "any"  # the backend name a miss's key is made with (ReplayBackend.key_for)

Selector = Callable[[str, Mapping[str, Any], Mapping[str, str]], tuple[ModelBackend | None, str]]


@dataclass(frozen=True)
class ModelChoice:
    """What `vyre eval --model/--fixtures/--misses` asked for; resolved per dataset by `open`."""

    mode: str = "none"
    fixtures: Path | None = None
    misses: Path | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"--model {self.mode!r} is not one of {', '.join(MODES)}")
        if self.misses is not None and self.mode != "replay":
            raise ConfigError("--misses only applies to --model replay")

    def fixtures_dir(self, dataset_name: str, env: Mapping[str, str]) -> Path | None:
        if self.mode == "none":
            return None
        if self.fixtures is not None:
            return self.fixtures.expanduser()
        from_env = env.get("VYRE_REPLAY_DIR" if self.mode == "replay" else "VYRE_RECORD_DIR")
        return Path(from_env).expanduser() if from_env else DEFAULT_FIXTURES_ROOT / dataset_name

    def misses_path(self, env: Mapping[str, str]) -> Path | None:
        if self.mode != "replay":
            return None
        if self.misses is not None:
            return self.misses.expanduser()
        from_env = env.get("VYRE_REPLAY_MISSES")
        return Path(from_env).expanduser() if from_env else None

    def open(
        self,
        dataset_name: str,
        *,
        config: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        select: Selector | None = None,
    ) -> EvalBackends:
        """The backends for one eval run. `config` is the `[models]` table of the person's config
        (read from $VYRE_HOME/config.toml when None); `select` defaults to `select_backend`."""
        env = dict(os.environ) if env is None else dict(env)
        if config is None and self.mode != "none":
            from ..config import Config

            config = Config.load(None).models
        config = config or {}
        fixtures = self.fixtures_dir(dataset_name, env)
        if self.mode == "none":
            return EvalBackends(
                "none", {p: None for p in PURPOSES}, {p: f"{p}: no model (--model none)" for p in PURPOSES}
            )
        assert fixtures is not None
        if self.mode == "replay":
            return _replay(fixtures, self.misses_path(env), config)
        return _record(fixtures, config, env, select or select_backend)


@dataclass
class EvalBackends:
    """One backend (or None) per purpose, and a one-line reason each, for the report."""

    mode: str
    backends: dict[str, ModelBackend | None]
    reasons: dict[str, str]
    fixtures_dir: Path | None = None
    misses_path: Path | None = None
    usage: FixtureUsage | None = None
    _closables: list[ModelBackend] = field(default_factory=list)

    def apply(self, mem: Any, *, rerank: bool = True) -> None:
        """Set every purpose on `mem` (a Memory); `rerank=False` leaves rerank without a model (ablation)."""
        for purpose in PURPOSES:
            backend = self.backends.get(purpose)
            if purpose == "rerank" and not rerank and backend is not None:
                mem.set_backend(purpose, None, "rerank: off (ablation without rerank)")
            else:
                mem.set_backend(purpose, backend, self.reasons.get(purpose, f"{purpose}: set by vyre eval"))

    def has(self, purpose: str) -> bool:
        return self.backends.get(purpose) is not None

    def counters(self) -> dict[str, int]:
        """Running totals: distinct requests missed (replay), recordings on disk, recordings replayed."""
        out: dict[str, int] = {}
        if self.misses_path is not None:
            out["misses"] = len({str(m.get("key")) for m in read_misses(self.misses_path)})
        if self.fixtures_dir is not None:
            out["recordings"] = len(list(self.fixtures_dir.glob("*.json"))) if self.fixtures_dir.is_dir() else 0
        if self.usage is not None:
            out["recordings_replayed"] = len(self.usage.used)
        return out

    def stages(self) -> dict[str, dict[str, int]]:
        """Per purpose: model calls asked for, and characters sent and returned (replay only)."""
        return {k: dict(v) for k, v in sorted(self.usage.stages.items())} if self.usage is not None else {}

    def describe(self, reasons: Mapping[str, str] | None = None) -> dict[str, Any]:
        """For the report: the mode, the folders, and which backend served each purpose."""
        return {
            "mode": self.mode,
            "fixtures": str(self.fixtures_dir) if self.fixtures_dir is not None else None,
            "misses": str(self.misses_path) if self.misses_path is not None else None,
            "backends": {p: (reasons or self.reasons).get(p, "") for p in PURPOSES},
        }

    def close(self) -> None:
        for backend in self._closables:
            backend.close()
        self._closables.clear()

    def __enter__(self) -> EvalBackends:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


READER_OFF = "reader: rules only ([models.reader] not configured)"


def _reader_configured(config: Mapping[str, Any]) -> bool:
    """The model reader reads every trusted turn, so it runs only where the config chooses it (as in use)."""
    return isinstance(config.get("reader"), Mapping)


def _configured_model(purpose: str, config: Mapping[str, Any]) -> str:
    """The model a recording is keyed under when the request left it implicit (as select_backend's replay)."""
    table = config.get(purpose)
    per_purpose = table.get("model") if isinstance(table, Mapping) else None
    return str(per_purpose or config.get("model") or DEFAULT_ANTHROPIC_MODEL)


def _replay(fixtures: Path, misses: Path | None, config: Mapping[str, Any]) -> EvalBackends:
    if not fixtures.is_dir():
        raise ConfigError(
            f"no recordings folder {fixtures}; record one with `vyre eval PATH --model record --fixtures {fixtures}` "
            "or pass --fixtures"
        )
    if misses is not None:
        misses.parent.mkdir(parents=True, exist_ok=True)
        misses.write_text("", encoding="utf-8")
    usage = FixtureUsage()
    backends: dict[str, ModelBackend | None] = {}
    reasons: dict[str, str] = {}
    for purpose in PURPOSES:
        if purpose == "reader" and not _reader_configured(config):
            backends[purpose], reasons[purpose] = None, READER_OFF
            continue
        backends[purpose] = ReplayBackend(
            fixtures, misses, usage=usage, default_model=_configured_model(purpose, config)
        )
        reasons[purpose] = f"{purpose}: replay from {fixtures}" + (f", misses to {misses}" if misses else "")
    return EvalBackends("replay", backends, reasons, fixtures_dir=fixtures, misses_path=misses, usage=usage)


def _record(fixtures: Path, config: Mapping[str, Any], env: Mapping[str, str], select: Selector) -> EvalBackends:
    # The recording wrapper is added here; select_backend must not add its own (VYRE_RECORD_DIR).
    env = {k: v for k, v in env.items() if k != "VYRE_RECORD_DIR"}
    config = {k: v for k, v in config.items() if k != "record_dir"}
    backends: dict[str, ModelBackend | None] = {}
    reasons: dict[str, str] = {}
    closables: list[ModelBackend] = []
    for purpose in PURPOSES:
        if purpose == "reader" and not _reader_configured(config):
            backends[purpose], reasons[purpose] = None, READER_OFF
            continue
        inner, why = select(purpose, config, env)
        if inner is None or isinstance(inner, ReplayBackend) or getattr(inner, "name", "") == "replay":
            backends[purpose] = None
            reasons[purpose] = f"{why} (nothing to record)"
            continue
        recorder = RecordingBackend(inner, fixtures)
        backends[purpose] = recorder
        closables.append(recorder)
        reasons[purpose] = f"{why}, recording to {fixtures}"
    if not any(backends.values()):
        raise ConfigError(
            "--model record needs a real model backend: put `claude` on PATH, set ANTHROPIC_API_KEY, "
            "or set VYRE_MODEL_BACKEND / [models] backend (not replay or none)"
        )
    return EvalBackends("record", backends, reasons, fixtures_dir=fixtures, _closables=closables)


def read_misses(path: Path) -> list[dict[str, Any]]:
    """The miss lines a replay wrote (key, prompt_name, prompt_version, system, prompt, json_schema)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_fixture_for_miss(
    fixtures_dir: Path, miss: Mapping[str, Any], text: str, *, model: str = "offline", cost_usd: float = 0.0
) -> Path:
    """A recording for one miss line, whatever produced `text`: `<key>.json` under `fixtures_dir`,
    recorded under the backend name the miss's key was made with, so the next replay finds it."""
    key = str(miss["key"])
    fixtures_dir.mkdir(parents=True, exist_ok=True)
    record = {
        "key": key,
        "backend": MISS_BACKEND,
        "request": {k: miss.get(k) for k in ("prompt_name", "prompt_version", "system", "prompt", "json_schema")},
        "response": ModelResponse(text=text, model=model, cost_usd=cost_usd, backend="offline").to_dict(),
    }
    path = fixture_path(fixtures_dir, key)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path

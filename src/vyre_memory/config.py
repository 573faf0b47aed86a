"""Where memory lives and how it is set up: `VYRE_HOME` (default `~/.vyre`) holds `memory.db`
and `config.toml`. Read when a `Memory` is opened, never at import.

config.toml (every key optional):

    user_name = "Joel"                 # how the person's own turns are named in sources
    transcripts = ["~/.claude/projects"]
    builds_memory_folders = []         # sessions in these folders are about building memory
    embedder = "minilm"                # minilm | openai | hash | none (env VYRE_EMBEDDER wins)
    database = "postgresql://me@db.example/vyre"   # a shared PostgreSQL (env VYRE_DATABASE_URL wins);
                                       # default: memory.db in VYRE_HOME
    host = "laptop"                    # the machine name sessions are kept under (env VYRE_HOST wins)
    [models]                           # per purpose: rerank, answer, verify, reader
    answer = "claude-cli"
"""

from __future__ import annotations

import getpass
import json
import os
import subprocess
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError

DEFAULT_TRANSCRIPTS = "~/.claude/projects"


def vyre_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env.get("VYRE_HOME") or "~/.vyre").expanduser()


def models_home(env: Mapping[str, str] | None = None) -> Path:
    """Where files built from installed model weights are kept (the MiniLM ONNX graphs, named after a fingerprint
    of the weights, so several homes may share one folder): `VYRE_MODELS`, else `models` in `VYRE_HOME`."""
    env = os.environ if env is None else env
    return Path(env["VYRE_MODELS"]).expanduser() if env.get("VYRE_MODELS") else vyre_home(env) / "models"


@dataclass(frozen=True)
class Config:
    home: Path
    user_name: str = "you"
    transcripts: tuple[str, ...] = (DEFAULT_TRANSCRIPTS,)
    builds_memory_folders: tuple[str, ...] = ()
    embedder: str | None = None
    models: Mapping[str, Any] = field(default_factory=dict)
    database: str | None = None
    host: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)

    @property
    def db_path(self) -> Path:
        return self.home / "memory.db"

    @property
    def database_location(self) -> str:
        """Where the store is: a postgresql:// URL or the SQLite file's path."""
        return self.database or str(self.db_path)

    @classmethod
    def load(cls, home: Path | str | None = None, **overrides: Any) -> Config:
        root = Path(home).expanduser() if home is not None else vyre_home()
        path = root / "config.toml"
        raw: dict[str, Any] = {}
        if path.exists():
            try:
                raw = tomllib.loads(path.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise ConfigError(f"{path} is not valid TOML ({exc}); fix it or move it away") from exc
        values: dict[str, Any] = {
            "user_name": raw.get("user_name") or _login_name(),
            "transcripts": tuple(_str_list(raw, "transcripts", path) or [DEFAULT_TRANSCRIPTS]),
            "builds_memory_folders": tuple(_str_list(raw, "builds_memory_folders", path)),
            "embedder": os.environ.get("VYRE_EMBEDDER") or raw.get("embedder"),
            "models": raw.get("models", {}),
            "database": os.environ.get("VYRE_DATABASE_URL") or raw.get("database"),
            "host": os.environ.get("VYRE_HOST") or raw.get("host"),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(home=root, raw=raw, **values)


def _str_list(raw: Mapping[str, Any], key: str, path: Path) -> list[str]:
    value = raw.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of strings")
    return value


def detect_user_name(env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """The person's name from what the machine already knows, and where it came from:
    `git config user.name`, else the account's full name, else the login name."""
    try:
        done = subprocess.run(
            ["git", "config", "--global", "user.name"], capture_output=True, text=True, timeout=2, env=env
        )
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip(), "git config user.name"
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        import pwd

        full = pwd.getpwuid(os.getuid()).pw_gecos.split(",")[0].strip()
        if full:
            return full, "the account's full name"
    except (ImportError, KeyError, AttributeError):
        pass
    return _login_name(), "the login name"


def save_user_name(home: Path, name: str) -> Path:
    """Set `user_name` in `home/config.toml` (created if missing), keeping everything else in it."""
    path = home / "config.toml"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    line = f"user_name = {json.dumps(name, ensure_ascii=False)}"
    lines = text.splitlines()
    for i, old in enumerate(lines):
        if old.lstrip().startswith("["):
            break  # only a top-level key counts: one before the first table
        if old.split("=", 1)[0].strip() == "user_name":
            lines[i] = line
            break
    else:
        i = len(lines)
    if lines[i : i + 1] != [line]:
        lines.insert(0, line)
    home.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "you"

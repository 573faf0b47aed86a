"""The person's name: offered once from what the machine knows (git config user.name) when someone is at
the terminal, kept in config.toml; renaming the person in the graph sets it too, and sources use it."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import tomllib
from pathlib import Path

from vyre_memory import Memory
from vyre_memory.config import save_user_name

DEMO = Path(__file__).resolve().parents[2] / "demo" / "projects"
VYRE = [sys.executable, "-c", "from vyre_memory.surfaces.cli import main; main()"]


def read_until(fd: int, text: str, seconds: float = 60) -> str:
    """What the terminal shows until `text` appears (the bound only stops a hang)."""
    seen = b""
    while text.encode() not in seen:
        ready, _, _ = select.select([fd], [], [], seconds)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    return seen.decode(errors="replace")


def test_first_ingest_at_a_terminal_offers_the_git_name_and_keeps_it(tmp_path: Path) -> None:
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Robin Vale\n", encoding="utf-8")
    home = tmp_path / "home"
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(gitconfig), "VYRE_EMBEDDER": "hash", "VYRE_MODEL_BACKEND": "none"}
    main_fd, term_fd = pty.openpty()
    proc = subprocess.Popen(
        [*VYRE, "ingest", "--home", str(home), str(DEMO)], stdin=term_fd, stdout=term_fd, stderr=term_fd, env=env
    )
    os.close(term_fd)
    try:
        shown = read_until(main_fd, "[Robin Vale]: ")
        assert "Your own turns will be named (from git config user.name; Enter keeps it) [Robin Vale]: " in shown
        os.write(main_fd, b"\n")
        rest = read_until(main_fd, "turns by kind")
        assert proc.wait(60) == 0
    finally:
        os.close(main_fd)
        if proc.poll() is None:
            proc.kill()
    assert "to change it: vyre graph rename 'Robin Vale' NEW" in rest
    assert tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))["user_name"] == "Robin Vale"
    with Memory(home) as mem:
        typed = [t for s in mem.sessions() for t in mem.turns(s.id) if t.kind == "typed"]
    assert typed and {t.name for t in typed} == {"Robin Vale"}


def test_renaming_the_person_in_the_graph_sets_the_name_sources_use(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('embedder = "hash"\n\n[models]\nbackend = "none"\n', encoding="utf-8")
    with Memory(home) as mem:
        mem.ingest([DEMO])
        before = mem.config.user_name
        renamed = mem.rename_entity(before, "Sam Okafor")
        answer = mem.answer("what's my wife's name")
    config = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    assert renamed.id == "user" and renamed.name == "Sam Okafor"
    assert config == {"user_name": "Sam Okafor", "embedder": "hash", "models": {"backend": "none"}}
    assert answer.sources and {s.name for s in answer.sources} == {"Sam Okafor"}
    with Memory(home) as again:
        assert again.config.user_name == "Sam Okafor"


def test_saving_the_name_keeps_the_rest_of_config_and_replaces_an_old_one(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('embedder = "none"\n\n[tokens]\n"x" = "owner"\n', encoding="utf-8")
    save_user_name(tmp_path, "Ada Quist")
    save_user_name(tmp_path, 'Ada "Q" Quist')
    text = (tmp_path / "config.toml").read_text(encoding="utf-8")
    assert tomllib.loads(text) == {"user_name": 'Ada "Q" Quist', "embedder": "none", "tokens": {"x": "owner"}}
    assert text.count("user_name") == 1

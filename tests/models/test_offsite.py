"""What leaves the machine: `Memory.offsite` names every model step that sends passages away; the first `vyre ask`
with such a model says so in one line, and `vyre doctor` always shows it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from vyre_memory import Memory
from vyre_memory.models.claude_cli import ClaudeCliBackend
from vyre_memory.models.fake import FakeModel
from vyre_memory.models.openai_compat import OpenAICompatBackend
from vyre_memory.surfaces.cli import main


def test_no_model_and_a_loopback_server_keep_everything_local(tmp_path: Path) -> None:
    with Memory(tmp_path / "home", embedder="none") as mem:
        for purpose in ("rerank", "answer", "verify", "reader"):
            mem.set_backend(purpose, None)
        assert mem.offsite() is None and mem.model_notice() is None
        mem.set_backend("answer", OpenAICompatBackend("http://127.0.0.1:11434/v1", "qwen2.5:7b"))
        mem.set_backend("rerank", FakeModel(["{}"]))
        assert mem.offsite() is None


def test_a_remote_model_is_named_once_per_home(tmp_path: Path) -> None:
    with Memory(tmp_path / "home", embedder="none") as mem:
        for purpose in ("rerank", "verify", "reader"):
            mem.set_backend(purpose, None)
        mem.set_backend("answer", OpenAICompatBackend("https://llm.example.test/v1", "m"))
        line = mem.offsite()
        assert line is not None and "answer to the server at https://llm.example.test/v1" in line
        assert 'backend = "none"' in line
        assert mem.model_notice() == line
        assert mem.model_notice() is None  # said once; doctor keeps showing it


def test_doctor_says_what_leaves_and_a_local_ask_says_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[models]\nbackend = "openai"\n[models.openai]\nbase_url = "https://llm.example.test/v1"\nmodel = "m"\n',
        encoding="utf-8",
    )
    monkeypatch.delenv("VYRE_MODEL_BACKEND", raising=False)
    runner = CliRunner()
    doctor = runner.invoke(main, ["doctor", "--home", str(home)])
    assert doctor.exit_code == 0, doctor.output
    assert "offsite     Model steps send passages of your history off this machine" in doctor.output
    monkeypatch.setenv("VYRE_MODEL_BACKEND", "none")
    quiet = runner.invoke(main, ["ask", "what did we ship", "--local", "--home", str(home)])
    assert quiet.exit_code == 0 and "off this machine" not in quiet.output


def test_the_claude_cli_is_named_as_sending_to_anthropic(tmp_path: Path) -> None:
    cli = FakeModel([], name=ClaudeCliBackend.name)  # a backend's name alone decides; no process is started
    with Memory(tmp_path / "home", embedder="none") as mem:
        for purpose in ("rerank", "verify", "reader"):
            mem.set_backend(purpose, None)
        mem.set_backend("answer", cli)
        assert "answer to the `claude` CLI (Anthropic)" in (mem.offsite() or "")

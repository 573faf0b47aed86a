"""`make run`, the README's first command, on a machine with Claude Code installed and no session
yet (or no Claude Code at all): the demo history answers, with one line saying why, exit 0."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("state", ["missing", "one empty session"])
def test_make_run_without_sessions_answers_from_the_demo_history(tmp_path: Path, state: str) -> None:
    transcripts = tmp_path / "claude" / "projects"
    if state != "missing":
        transcripts.mkdir(parents=True)
    if state == "one empty session":
        (transcripts / "-home-sam-code-api").mkdir()
        (transcripts / "-home-sam-code-api" / "just-started.jsonl").write_bytes(b"")
    env = {**os.environ, "VYRE_EMBEDDER": "hash", "VYRE_MODEL_BACKEND": "none", "VYRE_HOME": str(tmp_path / "h")}
    done = subprocess.run(
        ["make", "-s", "-C", str(REPO), "-o", ".venv/.installed", "run", f"TRANSCRIPTS={transcripts}",
         f"DEMO_HOME={tmp_path / 'demo-home'}", f"BIN={Path(sys.executable).parent}"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    why = f"no folder {transcripts}" if state == "missing" else f"no readable session in {transcripts} yet"
    lines = done.stdout.splitlines()
    assert lines[0] == f"{why}: using the demo history in demo/projects (memory in {tmp_path / 'demo-home'})"
    assert "Your wife is Dani." in lines and "app/billing/refunds.py" in lines
    assert any(line.strip().startswith("[2026-09-14 09:06] Sam in ") for line in lines)  # the demo's person, named
    assert not (tmp_path / "h").exists()  # the person's own memory is left alone

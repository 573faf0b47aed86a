"""The `vyre` command through click's runner: every command has help with an example, and the
JSON outputs have the shapes the README promises."""

from __future__ import annotations

import json
from pathlib import Path

import click
from click.testing import CliRunner

from vyre_memory.surfaces.cli import main

DEMO = Path(__file__).resolve().parents[1] / "demo" / "projects"


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, cmd in sorted(group.commands.items()):
        out.append((*prefix, name))
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, (*prefix, name)))
    return out


def test_every_command_has_help_with_an_example() -> None:
    runner = CliRunner()
    missing = []
    for path in _commands(main):
        result = runner.invoke(main, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        cmd = main
        for part in path:
            cmd = cmd.commands[part]  # type: ignore[attr-defined]
        if not isinstance(cmd, click.Group) and "vyre " not in result.output:
            missing.append(" ".join(path))
    assert missing == [], f"commands whose help shows no example: {missing}"


def test_ingest_then_stats_json_has_counts_per_kind(home: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["ingest", str(DEMO), "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "3 new sessions" in result.output and "turns by kind" in result.output
    stats = json.loads(runner.invoke(main, ["stats", "--json", "--home", str(home)]).output)
    assert stats["sessions"] == {"interactive": 3}
    assert stats["turns"] == {"assistant": 6, "tool_call": 6, "tool_output": 6, "typed": 5}
    assert stats["sessions_total"] == 3 and stats["turns_total"] == 23
    again = runner.invoke(main, ["ingest", str(DEMO), "--home", str(home)])
    assert "0 new sessions, 0 new turns" in again.output


def test_sessions_and_search_as_json(home: Path) -> None:
    runner = CliRunner()
    runner.invoke(main, ["ingest", str(DEMO), "--home", str(home)])
    sessions = json.loads(runner.invoke(main, ["sessions", "--json", "--home", str(home)]).output)
    assert {s["cwd"] for s in sessions} == {"/home/sam/code/shop-api", "/home/sam/code/harlow-portal"}
    only = json.loads(
        runner.invoke(
            main, ["sessions", "--project", "/home/sam/code/harlow-portal", "--json", "--home", str(home)]
        ).output
    )
    assert [s["cwd"] for s in only] == ["/home/sam/code/harlow-portal"]
    hits = json.loads(runner.invoke(main, ["search", "refund", "--json", "--home", str(home)]).output)
    assert hits and all("refund" in h["text"].lower() for h in hits)


def test_a_missing_path_is_one_line_that_says_what_to_do(home: Path) -> None:
    result = CliRunner().invoke(main, ["ingest", "/nowhere/at/all", "--home", str(home)])
    assert result.exit_code == 1
    assert "does not exist" in result.output and "vyre ingest PATH" in result.output
    assert "Traceback" not in result.output

"""The `vyre` command: a thin layer over `Memory`. No SQL and no prompt text here.

Every command has help text with an example; errors from the `VyreError` tree become one
line on stderr and exit code 1 (2 for usage errors, as click does).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from ..contract import IngestReport
from ..errors import VyreError
from ..memory import Memory

F = TypeVar("F", bound=Callable[..., Any])


def _home_option(f: F) -> F:
    return click.option(
        "--home",
        type=click.Path(file_okay=False, path_type=Path),
        envvar="VYRE_HOME",
        help="Where memory keeps its database and config (default: $VYRE_HOME or ~/.vyre).",
    )(f)


@contextmanager
def _memory(home: Path | None) -> Iterator[Memory]:
    try:
        mem = Memory(home)
    except VyreError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        yield mem
    except VyreError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        mem.close()


def _echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="vyre-memory")
def main() -> None:
    """Vyre Memory: ask your AI-assistant history a question, get one cited answer.

    \b
    Start with:
      vyre ingest                 read ~/.claude/projects into ~/.vyre/memory.db
      vyre search "refund bug"    full-text search over every turn
      vyre stats                  what memory holds
    """


# -- ingest --------------------------------------------------------------------------------------
@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "format_name", help="Read PATHS as this format instead of detecting it.")
@click.option("--list-formats", is_flag=True, help="List the transcript formats memory can read, then exit.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) if any record is bad; good records are still stored.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@_home_option
def ingest(
    paths: tuple[Path, ...],
    format_name: str | None,
    list_formats: bool,
    strict: bool,
    as_json: bool,
    quiet: bool,
    home: Path | None,
) -> None:
    """Read transcripts into memory: only what is new since the last run.

    PATHS default to ~/.claude/projects (or `transcripts` in config.toml). A PATH may be a
    projects tree, one project folder or one .jsonl file.

    \b
    Examples:
      vyre ingest
      vyre ingest ~/.claude/projects/-home-me-code-api
      vyre ingest --strict --json session.jsonl
    """
    with _memory(home) as mem:
        if list_formats:
            for name, fmt in mem.formats().items():
                click.echo(f"{name:14} {fmt.summary}")
            return
        report = _run_ingest(mem, paths, format_name=format_name, strict=strict, quiet=quiet or as_json)
        if as_json:
            _echo_json({"report": report.to_dict(), "stats": mem.stats()})
        else:
            _print_report(report, mem.stats())


def _run_ingest(
    mem: Memory, paths: tuple[Path, ...], *, format_name: str | None, strict: bool, quiet: bool
) -> IngestReport:
    if not paths:
        missing = [p for p in mem.config.transcripts if not Path(p).expanduser().exists()]
        if missing and len(missing) == len(mem.config.transcripts):
            raise VyreError(
                f"no transcripts under {', '.join(missing)}; pass a path: vyre ingest PATH "
                "(or try the demo: vyre ingest --demo)"
            )
    if quiet or not sys.stderr.isatty():
        return mem.ingest(paths or None, format=format_name, strict=strict)
    with click.progressbar(length=1, label="ingesting", file=sys.stderr, show_pos=False, width=30) as bar:
        state = {"total": 1}

        def progress(done: int, total: int, current: str) -> None:
            if total != state["total"]:
                bar.length = state["total"] = max(total, 1)
            bar.update(done - bar.pos)

        return mem.ingest(paths or None, format=format_name, strict=strict, progress=progress)


def _print_report(report: IngestReport, stats: dict[str, Any]) -> None:
    click.echo(
        f"read {report.files_read} of {report.files_seen} files, {report.records:,} records in {report.seconds:.2f}s: "
        f"{report.new_sessions} new sessions, {report.new_turns:,} new turns"
        + (f", {report.duplicates} duplicates skipped" if report.duplicates else "")
    )
    sessions, turns = stats["sessions"], stats["turns"]
    click.echo(f"memory holds {sessions['total']} sessions: " + _counts(sessions["by_kind"]))
    click.echo(f"and {turns['total']:,} turns by role: " + _counts(turns["by_role"]))
    click.echo("turns by kind: " + _counts(turns["by_kind"]))
    if report.skipped:
        click.echo("records not stored as turns: " + _counts(report.skipped))
    if report.problems:
        click.echo(f"{len(report.problems)} problem(s):", err=True)
        for problem in report.problems[:20]:
            click.echo(f"  {problem}", err=True)
        if len(report.problems) > 20:
            click.echo(f"  … and {len(report.problems) - 20} more (vyre ingest --json lists all)", err=True)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])) or "none"


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--interval", default=2.0, show_default=True, help="Seconds between polls.")
@_home_option
def watch(paths: tuple[Path, ...], interval: float, home: Path | None) -> None:
    """Keep ingesting as sessions grow (polls; Ctrl-C to stop).

    \b
    Example:
      vyre watch --interval 5
    """

    def on_round(report: IngestReport) -> None:
        if report.new_turns:
            click.echo(f"+{report.new_turns} turns ({report.new_sessions} new sessions)")
        for problem in report.problems:
            click.echo(f"  {problem}", err=True)

    with _memory(home) as mem:
        click.echo(f"watching {', '.join(str(p) for p in paths) or ', '.join(mem.config.transcripts)}", err=True)
        try:
            mem.watch(paths or None, interval=interval, on_round=on_round)
        except KeyboardInterrupt:
            click.echo("stopped", err=True)


# -- reading ---------------------------------------------------------------------------------------
@main.command()
@click.option("--project", "projects", multiple=True, help="Only sessions run in this folder or below (repeatable).")
@click.option("--kind", type=click.Choice(["interactive", "headless", "subagent", "memory", "builds_memory"]))
@click.option("--since", help="Only sessions active on or after this date (ISO, e.g. 2026-09-01).")
@click.option("--until", help="Only sessions that started before this date (ISO).")
@click.option("--limit", type=int, help="At most this many (the newest).")
@click.option("--json", "as_json", is_flag=True)
@_home_option
def sessions(
    projects: tuple[str, ...],
    kind: str | None,
    since: str | None,
    until: str | None,
    limit: int | None,
    as_json: bool,
    home: Path | None,
) -> None:
    """List sessions, oldest first.

    \b
    Examples:
      vyre sessions --project ~/code/api --since 2026-09-01
      vyre sessions --kind subagent --json
    """
    with _memory(home) as mem:
        found = mem.sessions(project_cwds=list(projects) or None, kind=kind, since=since, until=until)
        if limit:
            found = found[-limit:]
        if as_json:
            _echo_json([s.to_dict() for s in found])
            return
        for s in found:
            when = (s.first_ts or "")[:16].replace("T", " ")
            click.echo(f"{when:16}  {s.kind:11} {s.turn_count:5} turns  {s.id[:44]:44}  {s.cwd or ''}  {s.title or ''}")
        click.echo(f"{len(found)} sessions", err=True)


@main.command()
@click.argument("text")
@click.option("--project", "projects", multiple=True, help="Only turns from sessions in this folder or below.")
@click.option("--limit", default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@_home_option
def search(text: str, projects: tuple[str, ...], limit: int, as_json: bool, home: Path | None) -> None:
    """Full-text (BM25) search over every stored turn.

    \b
    Examples:
      vyre search "stripe refund"
      vyre search "webhook signature" --project ~/code/portal --json
    """
    with _memory(home) as mem:
        hits = mem.search(text, project_cwds=list(projects) or None, limit=limit)
        if as_json:
            _echo_json([h.to_dict() for h in hits])
            return
        if not hits:
            click.echo("no matching turns", err=True)
        for h in hits:
            t = h.turn
            click.echo(f"{(t.ts or '')[:16].replace('T', ' ')}  {t.name} ({t.kind})  {t.session[:8]}#{t.seq}")
            click.echo(f"    {h.snippet.strip()}")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="One object: sessions and turns with counts per kind.")
@_home_option
def stats(as_json: bool, home: Path | None) -> None:
    """What memory holds: sessions by kind, turns by role and kind, database size.

    \b
    Example:
      vyre stats --json
    """
    with _memory(home) as mem:
        data = mem.stats()
        if as_json:
            _echo_json(data)
            return
        click.echo(f"database   {mem.config.db_path} ({data['database_bytes'] / 1e6:.1f} MB)")
        click.echo(f"sessions   {data['sessions']['total']:,}: {_counts(data['sessions']['by_kind'])}")
        click.echo(f"turns      {data['turns']['total']:,}: {_counts(data['turns']['by_kind'])}")
        click.echo(f"by role    {_counts(data['turns']['by_role'])}")
        click.echo(f"projects   {data['projects']}")
        click.echo(f"span       {data['first_ts'] or '-'} to {data['last_ts'] or '-'}")


def _when(value: str | None) -> Any:
    if not value:
        return None
    from datetime import UTC, datetime

    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise click.BadParameter(f"{value!r} is not an ISO time (e.g. 2026-10-09T16:00:00Z)") from exc
    return when if when.tzinfo else when.replace(tzinfo=UTC)


@main.command()
@click.argument("question")
@click.option("--k", default=8, show_default=True, help="How many passages.")
@click.option("--project-cwd", "project_cwds", multiple=True, help="Only sessions run in this folder or below.")
@click.option("--agent-project", "agent_projects", multiple=True, help="Ask as an agent granted only these projects.")
@click.option("--now", help="The question's time, ISO (time words are relative to it); default: now.")
@click.option("--config", "config_name", help="Retrieval configuration: bm25, dense, hybrid, hybrid+graph.")
@click.option("--json", "as_json", is_flag=True)
@_home_option
def retrieve(
    question: str,
    k: int,
    project_cwds: tuple[str, ...],
    agent_projects: tuple[str, ...],
    now: str | None,
    config_name: str | None,
    as_json: bool,
    home: Path | None,
) -> None:
    """The ranked passages an answer would be read from.

    \b
    Examples:
      vyre retrieve "which file had the refund bug"
      vyre retrieve "what did we ship last week" --now 2026-10-09T16:00:00Z --json
    """
    with _memory(home) as mem:
        passages = mem.retrieve(
            question,
            project_cwds=list(project_cwds) or None,
            agent_projects=list(agent_projects) or None,
            k=k,
            now=_when(now),
            config=config_name,
        )
        if as_json:
            _echo_json([p.to_dict() for p in passages])
            return
        for i, p in enumerate(passages, 1):
            when = (p.ts or "")[:16].replace("T", " ")
            click.echo(f"{i}. {when}  {p.name} ({p.kind})  {p.session[:8]}#{p.seq}  score {p.score:.4f}")
            click.echo("   " + p.text[:300].replace("\n", "\n   "))


@main.command(name="eval")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--ablation", "ablations", multiple=True,
              help="Retrieval configuration(s) to score: bm25, dense, hybrid, hybrid+graph, or all.")
@click.option("--retrieval-only", is_flag=True, help="Score retrieval only (the default until answers exist).")
@click.option("--repeat", default=1, show_default=True, help="Ask each question N times (inconsistent answers).")
@click.option("--per-question", type=click.File("w"), help="Also write one JSON line per question to this file.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per configuration.")
def eval_command(
    path: Path, ablations: tuple[str, ...], retrieval_only: bool, repeat: int, per_question: Any, as_json: bool
) -> None:
    """Score memory on a world folder or a LoCoMo file, in a fresh temporary store.

    \b
    Examples:
      vyre eval ../shared/worlds/open
      vyre eval ../shared/worlds/open2 --ablation all --json
      vyre eval ../shared/locomo/26.json --per-question out.jsonl
    """
    from ..ask.configs import CONFIGS
    from ..eval.report import table
    from ..eval.runner import run

    names = list(CONFIGS) if "all" in ablations else list(ablations) or ["hybrid"]
    bar_state: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            click.echo(f"\r  {done}/{total} questions", err=True, nl=done == total)

    try:
        reports = run(path, ablations=names, retrieval_only=True, repeat=repeat, per_question=per_question,
                      progress=progress)
    except VyreError as exc:
        raise click.ClickException(str(exc)) from exc
    del bar_state
    if as_json:
        for r in reports:
            click.echo(json.dumps(r, ensure_ascii=False))
    else:
        click.echo(table(reports))

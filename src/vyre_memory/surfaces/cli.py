"""The `vyre` command: a thin layer over `Memory`. No SQL and no prompt text here.

Every command has help text with an example; errors from the `VyreError` tree become one
line on stderr and exit code 1 (2 for usage errors, as click does).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from ..config import vyre_home
from ..contract import IngestReport
from ..errors import VyreError
from ..memory import Memory
from . import running
from .db_cli import db

F = TypeVar("F", bound=Callable[..., Any])
EMBED_NOW_MAX = 2000  # passages `vyre ingest` embeds before answering; a bigger backlog is built in the background


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
@click.argument("paths", nargs=-1, type=click.Path(readable=False, path_type=Path))  # ingest says what to do
@click.option("--format", "format_name", help="Read PATHS as this format instead of detecting it.")
@click.option("--list-formats", is_flag=True, help="List the transcript formats memory can read, then exit.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) if any record is bad; good records are still stored.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option(
    "--embed/--no-embed",
    default=None,
    help=f"Embed every new passage now / leave them all to the background (default: now when at most "
    f"{EMBED_NOW_MAX:,} wait; vyre serve, vyre mcp and vyre watch embed the rest as they run).",
)
@_home_option
def ingest(
    paths: tuple[Path, ...],
    format_name: str | None,
    list_formats: bool,
    strict: bool,
    as_json: bool,
    quiet: bool,
    embed: bool | None,
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
        if "user_name" not in mem.config.raw and not (quiet or as_json) and sys.stdin.isatty():
            _confirm_name(mem)
        now_max = None if embed else 0 if embed is False else EMBED_NOW_MAX
        report = _run_ingest(
            mem, paths, format_name=format_name, strict=strict, quiet=quiet or as_json, embed_now_max=now_max
        )
        if as_json:
            _echo_json({"report": report.to_dict(), "stats": _stats_json(mem.stats())})
            return
        if report.files_seen == 0:
            where = ", ".join(str(p) for p in paths) or ", ".join(mem.config.transcripts)
            click.echo(
                f"no transcripts under {where} yet: Claude Code writes one per session; "
                "after your first session run vyre ingest again"
            )
        _print_report(report, mem.stats())
        left = mem.pending()["embed"]
        if left:
            click.echo(
                f"{left:,} texts left to embed (passages, sentences of typed ones, conversations' exchanges): answers "
                "use full-text search and facts until then; vyre serve, vyre mcp or vyre watch embed them in the "
                "background (with the time left), or now: vyre ingest --embed",
                err=True,
            )


def _confirm_name(mem: Memory) -> None:
    """Once per home, with someone at the terminal: how the person's own turns are named, offered from what
    the machine knows (git config user.name, the account's full name), kept as `user_name` in config.toml."""
    from ..config import detect_user_name

    name, where = detect_user_name()
    said = click.prompt(f"Your own turns will be named (from {where}; Enter keeps it)", default=name, err=True)
    name = said.strip() or name
    mem.set_user_name(name)
    click.echo(f"kept in {mem.config.home / 'config.toml'}; to change it: vyre graph rename {name!r} NEW", err=True)


def _run_ingest(
    mem: Memory,
    paths: tuple[Path, ...],
    *,
    format_name: str | None,
    strict: bool,
    quiet: bool,
    embed_now_max: int | None = None,
) -> IngestReport:
    if not paths:
        missing = [p for p in mem.config.transcripts if not Path(p).expanduser().exists()]
        if missing and len(missing) == len(mem.config.transcripts):
            raise VyreError(
                f"no transcripts under {', '.join(missing)}; pass a path: vyre ingest PATH "
                "(or try the demo history: make run, in the source folder)"
            )
    if quiet or not sys.stderr.isatty():
        return mem.ingest(paths or None, format=format_name, strict=strict, embed_now_max=embed_now_max)
    with click.progressbar(length=1, label="ingesting", file=sys.stderr, show_pos=False, width=30) as bar:

        def progress(done: int, total: int, current: str) -> None:
            phase = "embedding" if current == "embedding" else "ingesting"
            if phase != bar.label:  # reading files (bytes), then embedding passages (count): a bar anew
                bar.label, bar.pos, bar.finished = phase, 0, False
                bar.start, bar.avg, bar.eta_known = time.time(), [], False  # its time left from its own rate
            bar.length = max(total, 1)
            if done > bar.pos:
                bar.update(done - bar.pos)
            else:  # a new phase at 0, or a new total: shown now, not at the first step
                bar.render_progress()

        return mem.ingest(
            paths or None, format=format_name, strict=strict, progress=progress, embed_now_max=embed_now_max
        )


def _print_report(report: IngestReport, stats: dict[str, Any]) -> None:
    by_format = dict(sorted(report.files_by_format.items()))
    formats = f" ({_counts(by_format)})" if by_format else ""
    click.echo(
        f"read {report.files_read} of {report.files_seen} files{formats}, {report.records:,} records "
        f"in {report.seconds:.2f}s: {report.new_sessions} new sessions, {report.new_turns:,} new turns"
        + (f", {report.duplicates} duplicates skipped" if report.duplicates else "")
    )
    if report.files_skipped:
        click.echo(f"{len(report.files_skipped)} file(s) skipped:", err=True)
        for path, why in list(report.files_skipped.items())[:20]:
            click.echo(f"  {path}: {why}", err=True)
        if len(report.files_skipped) > 20:
            click.echo(f"  … and {len(report.files_skipped) - 20} more (vyre ingest --json lists all)", err=True)
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


def _stats_json(stats: dict[str, Any]) -> dict[str, Any]:
    """`sessions` and `turns` as maps of counts per kind, with totals and the rest beside them."""
    return {
        "sessions": stats["sessions"]["by_kind"],
        "turns": stats["turns"]["by_kind"],
        "turns_by_role": stats["turns"]["by_role"],
        "sessions_total": stats["sessions"]["total"],
        "turns_total": stats["turns"]["total"],
        **{k: v for k, v in stats.items() if k not in ("sessions", "turns")},
    }


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

    from .background import CatchUp
    from .scopes import Gate

    with _memory(home) as mem:
        gate = Gate(mem)
        catch_up = CatchUp(gate, report=lambda line: click.echo(line, err=True))  # vectors, while rounds go on

        def on_round(report: IngestReport) -> None:
            if report.new_turns:
                click.echo(f"+{report.new_turns} turns ({report.new_sessions} new sessions)")
                catch_up.kick()
            for problem in report.problems:
                click.echo(f"  {problem}", err=True)

        click.echo(f"watching {', '.join(str(p) for p in paths) or ', '.join(mem.config.transcripts)}", err=True)
        catch_up.start()
        try:
            mem.watch(paths or None, interval=interval, on_round=on_round, call=gate.call, embed_now_max=0)
        except KeyboardInterrupt:
            click.echo("stopped", err=True)
        finally:
            catch_up.stop(wait_s=30)
            gate.close()  # after the batch in hand, even one that outlasts the wait


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
        pending = mem.pending()
        if as_json:
            _echo_json({**_stats_json(data), "pending": pending})
            return
        click.echo(f"database   {mem.store.location} ({data['database_bytes'] / 1e6:.1f} MB)")
        click.echo(f"sessions   {data['sessions']['total']:,}: {_counts(data['sessions']['by_kind'])}")
        click.echo(f"turns      {data['turns']['total']:,}: {_counts(data['turns']['by_kind'])}")
        click.echo(f"by role    {_counts(data['turns']['by_role'])}")
        click.echo(f"projects   {data['projects']}")
        click.echo(f"span       {data['first_ts'] or '-'} to {data['last_ts'] or '-'}")
        click.echo(f"to do      {_pending_line(pending)}")


def _pending_line(pending: dict[str, Any]) -> str:
    """What memory has still to build from stored turns, and how to finish it; or that nothing is left."""
    todo = []
    if pending["index"]:
        todo.append("turns to add to the search index")
    if pending["embed"]:
        todo.append(f"{pending['embed']:,} texts to embed (answers use full-text search until then)")
    if pending["derive"]:
        todo.append("facts and graph to read from the newest turns")
    if not todo:
        return "nothing: every turn is indexed, embedded and read for facts"
    return "; ".join(todo) + " (vyre ingest finishes it; vyre serve, vyre mcp and vyre watch do it as they run)"


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
@click.option(
    "--project", "--project-cwd", "project_cwds", multiple=True, help="Only sessions run in this folder or below."
)
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


@main.command()
@click.argument("question")
@click.option(
    "--project", "--project-cwd", "project_cwds", multiple=True, help="Only sessions run in this folder or below."
)
@click.option("--agent-project", "agent_projects", multiple=True, help="Ask as an agent granted only these projects.")
@click.option("--now", help="The question's time, ISO (time words are relative to it); default: now.")
@click.option("--stream", is_flag=True, help="Print each stage event as a JSON line as it happens.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer contract as JSON.")
@click.option("--local", is_flag=True, help="Answer in this process even when `vyre serve` is running for this home.")
@_home_option
def ask(
    question: str,
    project_cwds: tuple[str, ...],
    agent_projects: tuple[str, ...],
    now: str | None,
    stream: bool,
    as_json: bool,
    local: bool,
    home: Path | None,
) -> None:
    """Ask one question; get one answer with its sources, or "Not sure." and what memory knows.

    When `vyre serve` runs for the same home, the question goes to it: its indexes are loaded already (a
    large history answers in a fraction of a second instead of several), and its own settings (embedder,
    models) answer. --local, or --agent-project, answers in this process.

    \b
    Examples:
      vyre ask "which file had the stripe refund bug"
      vyre ask "what did we ship last week" --project ~/code/api --json
    """
    if not question.strip():
        raise click.BadParameter(
            "the question is empty; e.g. vyre ask \"what's my wife's name\"", param_hint="QUESTION"
        )
    when = _when(now)
    cwds = [os.path.expanduser(p) for p in project_cwds] or None
    home_path = home.expanduser() if home is not None else vyre_home()
    if not (local or agent_projects):
        try:
            at = when.isoformat() if when else None
            events = running.ask_events(home_path, question, project_cwds=cwds, now=at)
        except running.Unreachable:
            pass  # no server for this home, or it did not take the question: this process answers
        except VyreError as exc:
            raise click.ClickException(str(exc)) from exc
        else:
            try:
                _show_answer(events, stream=stream, as_json=as_json, served=True)
            except VyreError as exc:
                raise click.ClickException(str(exc)) from exc
            return
    with _memory(home) as mem:
        notice = mem.model_notice()  # the first time passages would leave the machine, say so
        if notice:
            click.echo(notice, err=True)
        asked = mem.ask(question, project_cwds=cwds, agent_projects=list(agent_projects) or None, now=when, stream=True)
        _show_answer((event.to_dict() for event in asked), stream=stream, as_json=as_json)


def _show_answer(events: Iterator[dict[str, Any]], *, stream: bool, as_json: bool, served: bool = False) -> None:
    """Print an ask's events: each as a JSON line (--stream), the contract (--json), or the answer for a person."""
    result: dict[str, Any] | None = None
    live = sys.stderr.isatty() and not stream and not as_json
    for event in events:
        if served and event.get("result") is not None:
            for source in event["result"]["sources"]:  # the contract as this process would give it
                for key in ("project", "cwd"):
                    source.pop(key, None)
        if stream:
            click.echo(json.dumps(event, ensure_ascii=False))
        elif live and event["event"] == "memory.thinking":
            click.echo(f"\r\x1b[2K{event.get('stage')}…", err=True, nl=False)
        if event.get("result") is not None:
            result = event["result"]
    if live:
        click.echo("\r\x1b[2K", err=True, nl=False)
    if stream or result is None:
        return
    if as_json:
        _echo_json(result)
        return
    if result["abstained"]:
        click.echo("Not sure.")
        for line in result["known"]:
            click.echo(f"  - {line}")
    else:
        click.echo(result["answer"])
        where = ", answered by vyre serve" if served else ""
        ms = result["latency_ms"]
        click.echo(f"  (confidence {result['confidence']:.2f}, via {result['via']}, {ms:.0f} ms{where})")
    for s in result["sources"][:5]:
        when = (s.get("ts") or "")[:16].replace("T", " ")
        quote = " ".join(s["quote"].split())[:160]
        click.echo(f"  [{when}] {s['name']} in {s['session'][:8]}#{s['seq']}: {quote}")


@main.command()
@_home_option
def doctor(home: Path | None) -> None:
    """Say what memory will use: database, embedder, model backend per purpose, and why.

    \b
    Example:
      vyre doctor
    """
    with _memory(home) as mem:
        stats = mem.stats()
        click.echo(f"home        {mem.config.home}")
        click.echo(
            f"database    {mem.store.location} ({stats['sessions']['total']} sessions, "
            f"{stats['turns']['total']:,} turns)"
        )
        embedder = mem.embedder
        click.echo(f"embedder    {mem.embedder_reason or ('none' if embedder is None else embedder.name)}")
        click.echo(f"to do       {_pending_line(mem.pending())}")
        for purpose in ("rerank", "answer", "verify", "reader"):
            try:
                mem.backend(purpose)
                click.echo(f"{purpose:11} {mem.backend_reasons.get(purpose, '')}")
            except VyreError as exc:
                click.echo(f"{purpose:11} unusable: {exc}")
        click.echo(f"offsite     {mem.offsite() or 'nothing: every step runs on this machine'}")
        sock = running.serving(mem.config.home)
        click.echo(
            f"server      {f'vyre serve on {sock} (vyre ask hands it questions)' if sock else 'none for this home'}"
        )


@main.command(name="eval")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--ablation",
    "ablations",
    multiple=True,
    help="Retrieval configuration(s) to score: bm25, dense, hybrid, hybrid+graph, or all "
    "(a name ending in +rerank scores it with the rerank step).",
)
@click.option("--retrieval-only", is_flag=True, help="Score retrieval only (no answers).")
@click.option(
    "--repeat", default=1, show_default=True, help="Ask each question N times, afresh each time (inconsistent answers)."
)
@click.option(
    "--model",
    "model_mode",
    type=click.Choice(["none", "replay", "record"]),
    default="none",
    show_default=True,
    help="Models for rerank/answer/verify: none; replay recordings from --fixtures; or record the "
    "configured real backend's calls into --fixtures.",
)
@click.option(
    "--fixtures",
    type=click.Path(file_okay=False, path_type=Path),
    help="Recordings folder (default: $VYRE_REPLAY_DIR for replay, $VYRE_RECORD_DIR for record, "
    "else tests/fixtures/replay/<dataset name>).",
)
@click.option(
    "--misses",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --model replay: write each request with no recording to this JSONL file "
    "(key, prompt, schema) and go on as if the model failed. Default: $VYRE_REPLAY_MISSES.",
)
@click.option(
    "--rerank",
    type=click.Choice(["auto", "on", "off", "both"]),
    default="auto",
    show_default=True,
    help="Rerank ablation: score each configuration with the rerank step (X+rerank), without it, or "
    "both; auto = with it when a model serves rerank.",
)
@click.option("--per-question", type=click.File("w"), help="Also write one JSON line per question to this file.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per configuration.")
def eval_command(
    path: Path,
    ablations: tuple[str, ...],
    retrieval_only: bool,
    repeat: int,
    model_mode: str,
    fixtures: Path | None,
    misses: Path | None,
    rerank: str,
    per_question: Any,
    as_json: bool,
) -> None:
    """Score memory on a world folder or a LoCoMo file, in a fresh temporary store.

    No model is called unless --model asks for one.

    \b
    Examples:
      vyre eval ../shared/worlds/open
      vyre eval ../shared/worlds/open2 --ablation all --json
      vyre eval ../shared/locomo/26.json --per-question out.jsonl
      vyre eval ../shared/worlds/open --model record --fixtures tests/fixtures/replay/open
      vyre eval ../shared/worlds/open --model replay --misses misses.jsonl --rerank both --repeat 3
    """
    from ..ask.configs import CONFIGS
    from ..eval.models import ModelChoice
    from ..eval.report import table
    from ..eval.runner import run

    names = list(CONFIGS) if "all" in ablations else list(ablations) or ["hybrid"]

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            click.echo(f"\r  {done}/{total} questions", err=True, nl=done == total)

    try:
        models = ModelChoice(model_mode, fixtures=fixtures, misses=misses)
        reports = run(
            path,
            ablations=names,
            retrieval_only=retrieval_only,
            repeat=repeat,
            per_question=per_question,
            progress=progress,
            models=models,
            rerank=rerank,
        )
    except VyreError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        for r in reports:
            click.echo(json.dumps(r, ensure_ascii=False))
    else:
        click.echo(table(reports))
        info = reports[0].get("models") if reports else None
        if info and info.get("mode") != "none":
            last = reports[-1]["models"]
            counts = ", ".join(f"{k} {last[k]}" for k in ("recordings", "recordings_replayed", "misses") if k in last)
            click.echo(f"models: {info['mode']} from {info['fixtures']}" + (f" ({counts})" if counts else ""))


# -- facts ---------------------------------------------------------------------------------------
@main.group()
def facts() -> None:
    """Personal facts memory read from your own typed words: list, show, delete.

    \b
    Examples:
      vyre facts list
      vyre facts list --relation wife --json
      vyre facts show 54d888b0
      vyre facts delete 54d888b0
    """


@facts.command(name="list")
@click.option("--subject", help='Only facts about this subject: "user" (you), a name, or a thing.')
@click.option("--relation", help="Only this relation, e.g. wife, lives_in, car.")
@click.option("--json", "as_json", is_flag=True)
@_home_option
def facts_list(subject: str | None, relation: str | None, as_json: bool, home: Path | None) -> None:
    """Every stored fact, with its confidence and when it was first and last said.

    \b
    Example:
      vyre facts list --subject user
    """
    with _memory(home) as mem:
        found = mem.facts(subject=subject, relation=relation)
        if as_json:
            _echo_json([f.to_dict() for f in found])
            return
        if not found:
            click.echo("no facts yet (they come from your own typed words; run: vyre ingest)")
        for f in found:
            past = "  (past)" if f.status == "past" else ""
            click.echo(
                f"{f.id[:10]}  {f.subject:>14} {f.relation:<13} {f.object:<28} {f.confidence:.2f}  "
                f"{(f.last_ts or '')[:10]}  x{len(f.sources)}{past}"
            )


@facts.command(name="show")
@click.argument("fact_id")
@click.option("--json", "as_json", is_flag=True)
@_home_option
def facts_show(fact_id: str, as_json: bool, home: Path | None) -> None:
    """One fact and every turn it stands on (an id prefix of 6+ characters is enough).

    \b
    Example:
      vyre facts show 54d888b0
    """
    with _memory(home) as mem:
        f = mem.fact(fact_id)
        if as_json:
            _echo_json(f.to_dict())
            return
        click.echo(f"{f.subject} {f.relation} {f.object}  (confidence {f.confidence:.2f}, {f.status})")
        click.echo(f"id     {f.id}")
        click.echo(f"seen   {f.first_ts or '-'} to {f.last_ts or '-'}")
        for s in f.sources:
            click.echo(f"  {(s.ts or '')[:16].replace('T', ' ')}  {s.session[:8]}#{s.seq}  ({s.via}) {s.quote[:200]}")


@facts.command(name="delete")
@click.argument("fact_id")
@_home_option
def facts_delete(fact_id: str, home: Path | None) -> None:
    """Delete a fact. It is not read again from the same turns; only saying it again brings it back.

    \b
    Example:
      vyre facts delete 54d888b0
    """
    with _memory(home) as mem:
        f = mem.delete_fact(fact_id)
        click.echo(f"deleted: {f.subject} {f.relation} {f.object} ({f.id[:10]})")


# -- the fast path -------------------------------------------------------------------------------
@main.command()
@click.argument("question")
@click.option("--project", "--project-cwd", "project_cwds", multiple=True, help="Ask from a session in this folder.")
@click.option("--agent-project", "agent_projects", multiple=True, help="Ask as an agent granted only these projects.")
@click.option("--now", help="The question's time, ISO; only what was said by then counts. Default: now.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer contract as JSON.")
@_home_option
def answer(
    question: str,
    project_cwds: tuple[str, ...],
    agent_projects: tuple[str, ...],
    now: str | None,
    as_json: bool,
    home: Path | None,
) -> None:
    """The fast path: a personal question answered from your facts, no model, or "Not sure."

    \b
    Examples:
      vyre answer "what's my wife's name"
      vyre answer "where do i live" --now 2026-10-09T16:00:00Z --json
    """
    with _memory(home) as mem:
        res = mem.answer(
            question,
            project_cwds=list(project_cwds) or None,
            agent_projects=list(agent_projects) or None,
            now=_when(now),
        )
        if as_json:
            _echo_json(res.to_dict())
            return
        if res.abstained:
            click.echo("Not sure.")
            for k in res.known:
                click.echo(f"  I know: {k}")
            return
        click.echo(f"{res.answer}  (confidence {res.confidence:.2f}, {res.latency_ms:.1f} ms)")
        for s in res.sources:
            click.echo(f"  {(s.ts or '')[:16].replace('T', ' ')}  {s.session[:8]}#{s.seq}  {s.quote[:200]}")


# -- the graph -----------------------------------------------------------------------------------
@main.group(invoke_without_command=True)
@click.pass_context
def graph(ctx: click.Context) -> None:
    """People, projects, organisations and decisions, and your edits to them (kept across re-derives).

    \b
    Examples:
      vyre graph show
      vyre graph show "Tovah Brennick"
      vyre graph rename "Tovah Brennick" "Tovah B."
      vyre graph merge quarry-api quarry
      vyre graph alias add "Tovah Brennick" "the reviewer"
      vyre graph pin Imogen
      vyre graph delete "Lake Placid"
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def _print_entity(mem: Memory, name: str) -> None:
    e = mem.entity(name)
    names = {x.id: x.name for x in mem.graph()}
    pin = "  [pinned]" if e.pinned else ""
    click.echo(f"{e.name}  ({e.kind}, {e.status}){pin}  id {e.id}")
    if e.aliases:
        click.echo(f"  aliases: {', '.join(e.aliases)}")
    for x in e.edges:
        other = names.get(x.dst if x.src == e.id else x.src, "?")
        arrow = f"-[{x.relation}]-> {other}" if x.src == e.id else f"<-[{x.relation}]- {other}"
        by = f", on {x.said_by}'s word" if x.said_by else ""
        click.echo(f"  {arrow}  ({x.status}, {(x.ts or '')[:10]}{by}, {len(x.sources)} sources)")
        for s in x.sources[:3]:
            click.echo(f"      {s.session[:8]}#{s.seq}  {s.quote[:160]}")


@graph.command(name="show")
@click.argument("name", required=False)
@click.option("--kind", type=click.Choice(["person", "project", "organisation", "decision"]))
@click.option("--json", "as_json", is_flag=True)
@_home_option
def graph_show(name: str | None, kind: str | None, as_json: bool, home: Path | None) -> None:
    """The whole graph, or one entity (by name, alias or id) with its edges and their sources.

    \b
    Examples:
      vyre graph show --kind person
      vyre graph show tidewater-portal --json
    """
    with _memory(home) as mem:
        if name:
            if as_json:
                _echo_json(mem.entity(name).to_dict())
            else:
                _print_entity(mem, name)
            return
        entities = [e for e in mem.graph() if kind is None or e.kind == kind]
        if as_json:
            _echo_json([e.to_dict() for e in entities])
            return
        for e in entities:
            pin = " [pinned]" if e.pinned else ""
            status = "" if e.status == "current" else f" ({e.status})"
            click.echo(f"{e.kind:<12} {e.name[:70]}{status}{pin}  edges {len(e.edges)}  {e.id}")


@graph.command(name="rename")
@click.argument("old")
@click.argument("new")
@_home_option
def graph_rename(old: str, new: str, home: Path | None) -> None:
    """Rename an entity; the old name stays as an alias.

    \b
    Example:
      vyre graph rename "Tovah Brennick" "Tovah B."
    """
    with _memory(home) as mem:
        e = mem.rename_entity(old, new)
        click.echo(f"renamed: {old} -> {e.name}")


@graph.command(name="merge")
@click.argument("keep")
@click.argument("other")
@_home_option
def graph_merge(keep: str, other: str, home: Path | None) -> None:
    """Merge OTHER into KEEP: its name and aliases become KEEP's aliases, its edges move over.

    \b
    Example:
      vyre graph merge "Marcus Tran" "Marcus T"
    """
    with _memory(home) as mem:
        e = mem.merge_entities(keep, other)
        click.echo(f"merged {other} into {e.name}; aliases: {', '.join(e.aliases)}")


@graph.group(name="alias")
def graph_alias() -> None:
    """Add or remove an alias of an entity.

    \b
    Examples:
      vyre graph alias add "Tovah Brennick" "the reviewer"
      vyre graph alias remove "Tovah Brennick" Tovah
    """


@graph_alias.command(name="add")
@click.argument("name")
@click.argument("alias")
@_home_option
def graph_alias_add(name: str, alias: str, home: Path | None) -> None:
    """Add ALIAS to the entity NAME (e.g. vyre graph alias add Marisel "my wife")."""
    with _memory(home) as mem:
        e = mem.add_alias(name, alias)
        click.echo(f"{e.name}: aliases {', '.join(e.aliases)}")


@graph_alias.command(name="remove")
@click.argument("name")
@click.argument("alias")
@_home_option
def graph_alias_remove(name: str, alias: str, home: Path | None) -> None:
    """Remove ALIAS from the entity NAME (e.g. vyre graph alias remove "Tovah Brennick" Tovah)."""
    with _memory(home) as mem:
        e = mem.remove_alias(name, alias)
        click.echo(f"{e.name}: aliases {', '.join(e.aliases) or '(none)'}")


@graph.command(name="delete")
@click.argument("name")
@_home_option
def graph_delete(name: str, home: Path | None) -> None:
    """Delete an entity and its edges; it stays deleted across re-derives.

    \b
    Example:
      vyre graph delete "Lake Placid"
    """
    with _memory(home) as mem:
        mem.delete_entity(name)
        click.echo(f"deleted: {name}")


@graph.command(name="pin")
@click.argument("name")
@click.option("--off", is_flag=True, help="Unpin instead.")
@_home_option
def graph_pin(name: str, off: bool, home: Path | None) -> None:
    """Pin an entity (kept and shown first), or unpin it with --off.

    \b
    Example:
      vyre graph pin Imogen
    """
    with _memory(home) as mem:
        e = mem.pin_entity(name, pinned=not off)
        click.echo(f"{e.name}: {'pinned' if e.pinned else 'unpinned'}")


# -- Claude Code hooks ----------------------------------------------------------------------------
@main.group()
def hook() -> None:
    """What the Claude Code plugin (plugin/ in the source) runs on its hooks."""


@hook.command(name="ingest")
@_home_option
def hook_ingest(home: Path | None) -> None:
    """Ingest the one session a hook's JSON input (on stdin) names; never fails the hook (exit 0).

    At SessionEnd up to 2,000 waiting passages are embedded too; a Stop (after every reply) leaves vectors to
    the MCP server or vyre serve, which build them in the background. While an ingest of the session runs,
    another hook of it only asks that one for one more round.

    \b
    Examples:
      echo '{"hook_event_name": "SessionEnd", "transcript_path": "/path/s.jsonl"}' | vyre hook ingest
    """
    from ..config import vyre_home
    from .hooks import one_at_a_time, read_input

    def ingest(event: str) -> None:
        with Memory(home) as mem:
            now_max = EMBED_NOW_MAX if event == "SessionEnd" else 0
            _print_report(mem.ingest(found.paths(), embed_now_max=now_max), mem.stats())

    try:
        found = read_input(sys.stdin)
        if not one_at_a_time((home or vyre_home()) / "hooks", found.session_id, found.event, ingest):
            click.echo(f"vyre memory: {found.event}: an ingest of this session is under way; it reads these turns too")
    except Exception as exc:  # a hook must never fail Claude Code: say why, exit 0
        click.echo(f"vyre memory: {exc}; nothing ingested", err=True)


# -- surfaces: the HTTP API with the web page, and the MCP server ----------------------------------
@main.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind. Anything but loopback needs [tokens] in config.toml.",
)
@click.option("--port", default=8765, show_default=True, type=int)
@_home_option
def serve(host: str, port: int, home: Path | None) -> None:
    """The HTTP API (/v1, with server-sent events) and the web page, on http://HOST:PORT/.

    \b
    Examples:
      vyre serve                      then open http://127.0.0.1:8765/
      vyre serve --port 9000
      vyre serve --host 0.0.0.0       needs [tokens] in config.toml; open http://HOST:8765/?token=...
    """
    from .http import serve as serve_http

    def banner() -> None:  # once the sockets listen and the settings hold, never before an error
        click.echo(f"Vyre Memory on http://{host}:{port}/  (API: /v1, schema: /openapi.json; Ctrl-C to stop)", err=True)

    try:
        serve_http(home, host=host, port=port, ready=banner)
    except VyreError as exc:
        raise click.ClickException(str(exc)) from exc


@main.command(name="mcp")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option(
    "--project",
    type=click.Path(file_okay=False),
    help="Scope questions to this folder (default: the folder the server starts in).",
)
@click.option("--owner", is_flag=True, help="Serve as the person's own surface: every project and personal facts.")
@click.option(
    "--agent-project",
    "agent_projects",
    multiple=True,
    help="Serve an agent granted only these projects (repeatable); never personal facts.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="With --transport http: loopback only.")
@click.option("--port", default=8766, show_default=True, type=int, help="With --transport http.")
@_home_option
def mcp_command(
    transport: str,
    project: str | None,
    owner: bool,
    agent_projects: tuple[str, ...],
    host: str,
    port: int,
    home: Path | None,
) -> None:
    """The MCP server: memory.ask, memory.retrieve, memory.answer, facts and graph tools.

    \b
    Examples:
      claude mcp add vyre -- vyre mcp                      this project's folder
      claude mcp add vyre --scope user -- vyre mcp --owner  everything, personal facts too
      vyre mcp --agent-project ~/code/shop-api
      vyre mcp --transport http --port 8766                 then http://127.0.0.1:8766/mcp
    """
    if owner and agent_projects:
        raise click.UsageError("--owner and --agent-project exclude each other")
    from .mcp import serve as serve_mcp

    try:
        serve_mcp(
            home, transport=transport, project=project, owner=owner, agent_projects=agent_projects, host=host, port=port
        )
    except VyreError as exc:
        raise click.ClickException(str(exc)) from exc


main.add_command(db)

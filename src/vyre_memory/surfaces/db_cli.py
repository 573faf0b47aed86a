"""`vyre db`: the database itself. `vyre db copy SRC DST` moves a memory between SQLite and PostgreSQL."""

from __future__ import annotations

import click

from ..errors import VyreError
from ..store.copy import copy_store
from ..store.open import open_store
from ..store.postgres import describe_url, is_database_url


@click.group()
def db() -> None:
    """The database memory is kept in (SQLite file or PostgreSQL)."""


@db.command()
@click.argument("src")
@click.argument("dst")
def copy(src: str, dst: str) -> None:
    """Copy a whole memory from SRC into the empty DST and check the copy; each is a SQLite file or a
    postgresql:// URL.

    \b
    vyre db copy ~/.vyre/memory.db postgresql://me@db.example/vyre
    vyre db copy postgresql://me@db.example/vyre ~/backup/memory.db
    """
    try:
        source = open_store(src)
        try:
            target = open_store(dst)
            try:
                report = copy_store(source, target)
            finally:
                target.close()
        finally:
            source.close()
    except VyreError as exc:
        raise click.ClickException(str(exc)) from exc
    shown = describe_url(dst) if is_database_url(dst) else dst
    click.echo(f"copied into {shown}: " + ", ".join(f"{n} {t}" for t, n in report.rows.items() if n))
    click.echo("checked (rows:sha256): " + ", ".join(f"{t} {c}" for t, c in report.checksums.items()))
    if is_database_url(dst):
        click.echo(f'to use it: database = "{shown}" in config.toml, or VYRE_DATABASE_URL')

"""Releases and deploys: the turns where the work was shipped, kept as retrieval keys.

"Which version shipped the refund fix", "what did we deploy last week", "when did we last release": the answer
is in the few turns that did or reported a release, while a search by the question's words finds the many
turns that discuss one. A turn is a release turn when:

- a tool call runs a command that releases or deploys: a command word such as deploy, release, publish,
  promote, rollout or rollback (`make release`, `npm run deploy`, `./deploy.sh`, `kubectl rollout undo`), an
  annotated or versioned `git tag`, a `git push` of tags or of a version, `helm upgrade`, `kubectl set image`,
  `terraform apply`, `pulumi up`, `docker push`, `twine upload`, `gem push`, an over-the-air update;
- the assistant reports one at the start of its turn ("deployed", "released", "is live", "rolled back");
- the person asks for one, first in a clause or after "please", "let's", "and" ... ("ship it", "deploy this",
  "tag it", "roll back", "cut a release"; not "the release notes").

Each becomes a `Release`: the turns it points to (a tool call's own output too), its time, and its key text:
the versions it names, the project's name, the turn's opening words and what its session was asked first. Only
a coding agent's sessions are read (`derive` passes those).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..contract import ASSISTANT, TOOL_CALL, TYPED, Turn
from ..text import project_name, versions

__all__ = ["KEY_CHARS", "Release", "release_in", "releases_in"]

KEY_CHARS = 300  # of a turn's opening (a command's), in its key
READ_CHARS = 400  # of a turn read for a release word

_WORD = r"(?:deploy|deploys|release|releases|publish|promote|rollout|rollouts|rollback|submit|ship)"
_COMMAND = re.compile(
    rf"(?:^|[\s;&|/:'\"(]){_WORD}(?:\.sh|\.py|:\w+)?(?=$|[\s;&|:'\")])"
    r"|\bgit\s+tag\s+(?!-l\b|--list\b|-d\b|--delete\b)\S"
    r"|\bgit\s+push\b[^\n;&|]*(?:--tags|--follow-tags|\bv?\d+\.\d+(?:\.\d+)?\b)"
    r"|\bhelm\s+(?:upgrade|install|rollback)\b|\bkubectl\s+set\s+image\b|\bterraform\s+apply\b|\bpulumi\s+up\b"
    r"|\bdocker\s+push\b|\btwine\s+upload\b|\bgem\s+push\b|(?:^|\s)ota(?=\s)",
    re.I | re.M,
)
_REPORT = re.compile(
    r"\b(?:deployed|released|shipped|published|promoted|tagged|rolled (?:\w+ )?back|(?:is|are) (?:now )?live|"
    r"went live|now live|live (?:on|in) (?:prod\w*|production|staging)|rollout (?:is )?(?:complete|done|finished))\b",
    re.I,
)
_REQUEST = re.compile(  # said as a request: first in a clause, or after "please", "let's", "and" ...
    r"(?:^|[.!?,;:(]\s*|\b(?:please|now|then|and|ok|okay|so|let'?s|go ahead and|can you|could you|time to)\s+)"
    r"(?:ship|deploy|release|publish|tag|roll(?:ing)? (?:it |this |that |\w+ )?back|rollback|cut (?:a |the )?release|"
    r"push (?:it |this )?live)\b(?!\s+notes?\b|[-_])"
    r"|\b(?:ship it|tag it|go live|make release|make deploy)\b",
    re.I,
)
_COMMAND_FIELD = re.compile(r"^(?:command|cmd):\s*(.*)$", re.M)


@dataclass(frozen=True)
class Release:
    """A turn that did, reported or asked for a release or deploy."""

    session: str
    seqs: tuple[int, ...]  # the turns it points to: its own, and a tool call's output after it
    ts: str | None
    text: str  # its key: the versions it names, the project's name, the turn's opening


def _command(text: str) -> str:
    """A tool call's command (its `command:` field), or "" when it runs none."""
    m = _COMMAND_FIELD.search(text)
    return m.group(1).strip()[:READ_CHARS] if m else ""


def release_in(turn: Turn, about: Callable[[str], str] = lambda session: "") -> Release | None:
    """The release `turn` does, reports or asks for, or None; `about(session)` (what its session was asked first,
    asked only of a release) joins its key, so "the version that shipped the refund fix" finds the release of the
    session that fixed it."""
    if turn.kind == TOOL_CALL:
        said = _command(turn.text)
        found = bool(said) and _COMMAND.search(said) is not None
        seqs: tuple[int, ...] = (turn.seq, turn.seq + 1)
    elif turn.kind in (ASSISTANT, TYPED):
        said = turn.text[:READ_CHARS]
        found = (_REPORT if turn.kind == ASSISTANT else _REQUEST).search(said) is not None
        seqs = (turn.seq,)
    else:
        return None
    if not found:
        return None
    opening = " ".join(said.split())[:KEY_CHARS]
    asked = " ".join(about(turn.session).split())[:KEY_CHARS]
    key = " ".join([*versions(opening), project_name(turn.cwd), opening, asked])
    return Release(turn.session, seqs, turn.ts, key.strip())


def releases_in(turns: Iterable[Turn], about: Callable[[str], str]) -> list[Release]:
    """The releases in `turns`, in their order; `about(session)` says what a session was asked first."""
    found = (release_in(t, about) for t in turns)
    return [r for r in found if r is not None]

"""Releases and deploys: the turns where the work was shipped, kept as retrieval keys.

"Which version shipped the search fix", "what did we deploy last week", "when did we last release": the answer
is in the few turns that did or reported a release, while a search by the question's words finds the many
turns that discuss one. A turn is a release turn when:

- a tool call runs a command that releases or deploys, in any of its simple commands (split at `&&`, `;`, `|`):
  a program named for a release (`./deploy-prod.sh`, `release_v2.sh`), a task runner or host tool given a release
  word among its first arguments (`make release`, `npm run deploy`, `fly deploy`, `mvn release:prepare`), an
  annotated or versioned `git tag`, a `git push` of tags, a version or to heroku, `kubectl rollout|apply|set
  image`, `helm upgrade|install|rollback`, `terraform apply`, `pulumi up`, `docker push`, `twine upload`, `gem
  push`, `gh release create`; never a read-only one (`kubectl get`, `rollout status`, `git tag -l`,
  `--dry-run`, `terraform plan`) nor one that only names the word (`grep deploy`, `cat deploy.sh`, a commit
  message);
- the assistant reports one, first in its turn or beside a version or a target (prod, staging, live), not
  negated ("deployed", "released", "is live", "rolled back"; not "the lock is released");
- the person asks for one, first in a clause or after "please", "let's", "and" ..., with what is shipped or at
  the clause's end ("ship it", "deploy this", "release 2.3.1", "tag it", "roll back", "cut a release"; not "the
  release notes", "release the lock", "don't ship it yet");
- either tells a version as done in so many words, the version its subject: "so 2.3.1 is out", "api v2.0.0 is at
  100%", "api 1.8.1 is in prod" (not a question, not "when 2.3.1 is out, ping me", not "the bug is in prod"), or
  what goes out in one: "this one goes out in 3.15.2 on thursday", "the fix ships in v2.4" (not "ubuntu ships
  with 3.10").

Each becomes a `Moment` (`read.moments`): the turns it points to (a tool call's own output too), its time, and its
key text: the versions it names, the project's name, the turn's opening words and what its session was asked
first. Only a coding agent's sessions are read (`derive` passes those).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable

from ..contract import ASSISTANT, TOOL_CALL, TYPED, Turn
from .moments import CONDITION, READ_CHARS, Moment, moment

__all__ = ["release_in"]

_WORD = re.compile(
    r"(?:^|[-_/])(?:deploy|release|publish|promote|rollout|rollback|ship)(?:s|ed|ing)?(?:$|[-_.:][\w.-]*$)", re.I
)
# programs that only read, search, edit or test what they are given ("grep deploy", "cat deploy.sh", "pytest -k
# release"): a release word among their arguments names it; given to any other program ("make release", "npm run
# deploy", "fly deploy", "bash deploy.sh") among its first words, it is the task the program runs
_NAMES_ONLY = frozenset(
    "grep egrep fgrep rg ag ack cat bat less more head tail vim vi nvim nano emacs code subl ls ll tree cd pushd echo "
    "printf pytest jest vitest mocha unittest rspec find fd sed awk wc diff sort uniq cut tr open man which type "
    "whereis jq yq rm cp mv mkdir touch chmod chown ln tar zip unzip gzip stat file du df".split()
)
_READ_ONLY = frozenset(
    "get describe logs log status history list ls view show diff plan --dry-run --dry_run -destroy --list -l -ln "
    "--contains --sort --help -h".split()
)
_SIMPLE = re.compile(r"&&|\|\||;|\||\n")  # what separates the simple commands of a command line
_SHELLS = frozenset({"bash", "sh", "zsh"})
_REPORT = re.compile(
    r"\b(?:deployed|released|shipped|published|promoted|tagged|rolled (?:\w+ )?back|(?:is|are) (?:now )?live|"
    r"went live|now live|live (?:on|in) (?:prod\w*|production|staging)|rollout (?:is )?(?:complete|done|finished))\b",
    re.I,
)
# a version told as done: "2.3.1 is out", "v2.0.0 is at 100%", "1.8.1 is in prod" (`_told`)
_TOLD = re.compile(
    r"\bv?\d+\.\d+(?:\.\d+)*\b[^.!?\n]{0,40}?\b(?:is|are) (?:now )?(?:(?:running |live )?in prod(?:uction)?\b|at 100 ?%"
    r"|out\b(?! of\b))",
    re.I,
)
# what may come before a report that opens the turn ("Done: deployed ...")
_AT_START = re.compile(r"^\W*(?:done|ok|okay|all set|success)?\W*$", re.I)
_TARGET = re.compile(r"\b(?:prod\w*|staging|live|canary|release|version)\b|\bv?\d+\.\d+\.\d+\b", re.I)
_NEGATED = re.compile(r"\b(?:not|never|no|before|without)\b|n't\b", re.I)  # "haven't deployed", "before we ship"
_REQUEST = re.compile(  # asked for: first in a clause, or after "please", "let's", "and" ..., with what is shipped
    r"(?:^|[.!?,;:(]\s*|\b(?:please|now|then|and|ok|okay|so|let'?s|go ahead and|can you|could you|time to)\s+)"
    r"(?:(?:ship|deploy|release|publish|tag) (?:it|this|that|them|these|everything|v?\d+\.\d+\S*)\b"
    r"|(?:ship|deploy|release|publish) (?:to|on) (?:prod\w*|staging|live|the store|the app store|pypi|npm)\b"
    r"|(?:ship|deploy|release|publish|tag)(?=\s*(?:[!,;]|\.(?:\s|$)|$))|(?:ship|release) (?:\S+ )?as\b|tag and push\b"
    r"|roll(?:ing)? (?:it |this |that |\w+ )?back\b|rollback\b|cut (?:a |the )?release\b|go live\b"
    r"|push (?:it |this )?live\b)"
    r"|\b(?:ship it|tag it|make release|make deploy)\b",
    re.I,
)
_COMMAND_FIELD = re.compile(r"^(?:command|cmd):[ \t]*")
_FIELD = re.compile(r"^[a-z_]{2,30}:(?:\s|$)")


def _command(text: str) -> str:
    """A tool call's command: its `command:` field (among the rendered call's first fields, with the lines that
    continue it; an argument list, as some agents write it, joined), or "" when it runs none."""
    lines = text.split("\n")
    for at, line in enumerate(lines[1:3], start=1):
        m = _COMMAND_FIELD.match(line)
        if m is None:
            continue
        said = [line[m.end() :]]
        for more in lines[at + 1 :]:
            if _FIELD.match(more):
                break
            said.append(more)
        command = "\n".join(said).strip()[:READ_CHARS]
        if command.startswith("["):
            try:
                parts = [str(p) for p in json.loads(command)]
            except ValueError:
                return command
            if len(parts) >= 3 and parts[0].rsplit("/", 1)[-1] in _SHELLS and parts[1].startswith("-"):
                return parts[-1][:READ_CHARS]  # ["bash", "-lc", "make release"]
            return " ".join(parts)
        return command
    return ""


def _releases(words: list[str]) -> bool:
    """Whether one simple command (its words, quotes stripped) releases or deploys."""
    if not words or _READ_ONLY & set(words):
        return False
    program = words[0].rsplit("/", 1)[-1]
    head = words[1:4]
    if _WORD.search(program):  # ./deploy-prod.sh, release_v2.sh, deploy
        return True
    if program == "git" and head[:1] == ["tag"]:  # an annotated, signed or versioned tag, not a listing
        return any(w in ("-a", "-s", "-m") or re.match(r"v?\d+\.\d+", w) for w in words[2:])
    if program == "git":  # a push of tags, of a version or to a host; "git checkout release" is not one
        pushed = head[:1] == ["push"]
        hosted = ("--tags", "--follow-tags", "heroku")
        return pushed and any(w in hosted or re.match(r"v\d+\.\d+", w) for w in words[2:])
    if program == "kubectl":
        return head[:1] in (["rollout"], ["apply"]) or head[:2] == ["set", "image"] or "promote" in head[:3]
    if program == "helm":
        return head[:1] in (["upgrade"], ["install"], ["rollback"])
    if program in ("terraform", "tofu"):
        return head[:1] == ["apply"]
    if program == "pulumi":
        return head[:1] == ["up"]
    if program in ("docker", "podman"):
        return head[:1] == ["push"]
    if program == "twine" or program == "gem":
        return head[:1] in (["upload"], ["push"])
    if program == "gh":
        return head[:2] == ["release", "create"] or (
            head[:2] == ["workflow", "run"] and any(map(_WORD.search, head[2:]))
        )
    if program == "eas":
        return head[:1] in (["submit"], ["update"])
    if program in ("vercel", "railway"):
        return "--prod" in words or head[:1] == ["up"]
    if program in _NAMES_ONLY or _NAMES_ONLY & set(head):
        return False
    return any(_WORD.search(w) for w in head if not w.startswith("-"))


# runners that run the program named after them: "bundle exec fastlane android deploy", "npx vercel --prod"
_RUNNERS = {
    "bundle": "exec",
    "poetry": "run",
    "uv": "run",
    "pipenv": "run",
    "pdm": "run",
    "pnpm": "exec",
    "hatch": "run",
}


def _unwrapped(words: list[str]) -> list[str]:
    """A simple command's words with the runner that runs its program left out."""
    if len(words) > 2 and _RUNNERS.get(words[0]) == words[1]:
        return words[2:]
    if len(words) > 1 and words[0] in ("npx", "bunx", "pnpx"):
        return words[1:]
    return words


def _command_releases(command: str) -> bool:
    """Whether a command line runs a release or deploy in any of its simple commands."""
    for simple in _SIMPLE.split(command):
        try:
            words = shlex.split(simple, comments=True)
        except ValueError:
            words = simple.split()
        words = [w for w in words if "=" not in w or w.startswith("-")]  # FOO=bar before the program
        if words and words[0] in ("sudo", "time", "exec", "env", "nohup"):
            words = words[1:]
        words = _unwrapped(words)
        if _releases(words):
            return True
    return False


def _reported(text: str) -> bool:
    """Whether the assistant's turn reports a release: first in the turn, or beside a version or a target (prod,
    staging, live), and not negated before it in its sentence."""
    for m in _REPORT.finditer(text):
        before = text[: m.start()]
        sentence = re.split(r"[.!?\n]\s", before)[-1]
        if _NEGATED.search(sentence):
            continue
        if _AT_START.match(before) or _TARGET.search(text):
            return True
    return False


# ... or the version a change goes out in: "this one goes out in 3.15.2 thursday", "the fix ships in v2.4"
_SHIPS_IN = re.compile(
    r"\b(?:goes|go|going|went|will\s+go)\s+out\s+(?:in|with)\s+(?:release\s+)?v?\d+\.\d+(?:\.\d+)*\b"
    r"|\b(?:ships|shipped|will\s+ship|lands|landed|will\s+land)\s+in\s+(?:release\s+)?v?\d+\.\d+(?:\.\d+)*\b",
    re.I,
)


def _told(text: str) -> bool:
    """Whether a turn tells a version as done (`_TOLD`) or what goes out in one (`_SHIPS_IN`), in a sentence that is
    no question and says it as no condition or negation."""
    for m in (*_TOLD.finditer(text), *_SHIPS_IN.finditer(text)):
        start = max(text.rfind(c, 0, m.start()) for c in ".!?\n") + 1
        sentence = text[start : m.end()]
        rest = re.split(r"[.!?](?=\s|$)|\n", text[m.end() :])[0]  # "... in 3.15.2 or 3.16?" is a question
        if not (CONDITION.search(sentence) or _NEGATED.search(sentence) or text[m.end() + len(rest) :][:1] == "?"):
            return True
    return False


def release_in(turn: Turn, about: Callable[[str], str] = lambda session: "") -> Moment | None:
    """The release `turn` does, reports or asks for, or None; `about(session)` (what its session was asked first,
    asked only of a release) joins its key, so "the version that shipped the search fix" finds the release of the
    session that fixed it."""
    if turn.kind == TOOL_CALL:
        said = _command(turn.text)
        found = bool(said) and _command_releases(said)
    elif turn.kind == ASSISTANT:
        said = turn.text[:READ_CHARS]
        found = _reported(said) or _told(said)
    elif turn.kind == TYPED:
        said = turn.text[:READ_CHARS]
        found = any(not _NEGATED.search(_clause_before(said, m.start())) for m in _REQUEST.finditer(said))
        found = found or _told(said)
    else:
        return None
    return moment(turn, (turn.seq,), said, about) if found else None


def _clause_before(text: str, at: int) -> str:
    """The words of `text` before `at` in the same clause."""
    return re.split(r"[.!?,;:\n]", text[:at])[-1]

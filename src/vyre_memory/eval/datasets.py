"""Evaluation datasets: a world folder (`world.json`, `questions.json`, `home/.claude/projects`)
or a LoCoMo file (one conversation per file, or the list layout of `locomo10.json`).

Every question becomes an `EvalQuestion` with its scope, its "now", its evidence turns (each a
set of record uuids: a turn is found when any of them is retrieved) and its accept / reject
strings. Nothing here is tuned to a particular dataset.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..errors import ConfigError
from ..ingest.locomo import conversations, parse_date, turn_uuid


@dataclass(frozen=True)
class EvalQuestion:
    id: str
    question: str
    qclass: str
    answerable: bool
    accept: tuple[str, ...]
    reject: tuple[str, ...]
    evidence: tuple[frozenset[str], ...]
    asked_at: datetime
    project_cwds: tuple[str, ...] | None = None
    agent_projects: tuple[str, ...] | None = None
    category: str | None = None  # LoCoMo category "1".."5"
    gold: str = ""


@dataclass
class Dataset:
    name: str
    kind: str  # "world" | "locomo"
    user_name: str
    transcripts: list[Path]
    questions: list[EvalQuestion] = field(default_factory=list)
    format: str | None = None


def load(path: Path) -> Dataset:
    path = path.expanduser()
    if path.is_dir() and (path / "questions.json").exists():
        return load_world(path)
    if path.is_file() and path.suffix == ".json":
        return load_locomo(path)
    if path.is_dir() and list(path.glob("*.json")):
        parts = [load_locomo(p) for p in sorted(path.glob("*.json"))]
        return Dataset(
            name=path.name,
            kind="locomo",
            user_name="you",
            transcripts=[p.transcripts[0] for p in parts],
            questions=[q for p in parts for q in p.questions],
            format="locomo",
        )
    raise ConfigError(
        f"{path} is neither a world folder (world.json, questions.json, home/.claude/projects) nor a LoCoMo .json file"
    )


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def load_world(folder: Path) -> Dataset:
    world = json.loads((folder / "world.json").read_text(encoding="utf-8"))
    data = json.loads((folder / "questions.json").read_text(encoding="utf-8"))
    raw = data["questions"] if isinstance(data, dict) else data
    default_now = world.get("now")
    questions = []
    for q in raw:
        scope = q.get("scope") or {}
        questions.append(
            EvalQuestion(
                id=str(q["id"]),
                question=q["question"],
                qclass=q.get("class", "other"),
                answerable=bool(q.get("answerable", True)),
                accept=tuple(q.get("accept") or []),
                reject=tuple(q.get("reject") or []),
                evidence=tuple(frozenset(e.get("uuids") or []) for e in q.get("evidence") or []),
                asked_at=_when(q.get("asked_at") or default_now),
                project_cwds=tuple(scope["project_cwds"]) if "project_cwds" in scope else None,
                agent_projects=tuple(scope["agent_projects"]) if "agent_projects" in scope else None,
                gold=str(q.get("answer") or ""),
            )
        )
    user = world.get("user") or {}
    return Dataset(
        name=str(world.get("name") or folder.name),
        kind="world",
        user_name=str(user.get("name") or "you").split()[0],
        transcripts=[folder / "home" / ".claude" / "projects"],
        questions=questions,
    )


def load_locomo(path: Path) -> Dataset:
    data = json.loads(path.read_text(encoding="utf-8"))
    convs = conversations(data)
    if not convs:
        raise ConfigError(f"{path} holds no LoCoMo conversation (speaker_a, session_N, qa)")
    questions = []
    for sample, conv, qa in convs:
        dates = [parse_date(str(conv.get(k, ""))) for k in conv if k.endswith("_date_time")]
        last = max((d for d in dates if d), default=datetime(2024, 1, 1, tzinfo=UTC))
        asked = last + timedelta(days=1)
        for i, q in enumerate(qa):
            category = str(q.get("category", ""))
            answerable = category != "5"
            answer = q.get("answer")
            gold = "" if answer is None else str(answer)
            questions.append(
                EvalQuestion(
                    id=f"{sample or path.stem}-q{i + 1:03d}",
                    question=str(q.get("question", "")),
                    qclass="other",
                    answerable=answerable,
                    accept=(gold, *date_forms(gold)) if answerable and gold else (),
                    reject=(),
                    evidence=tuple(
                        frozenset({turn_uuid(sample or path.stem, d)}) for d in _dia_ids(q.get("evidence"))
                    ),
                    asked_at=asked,
                    category=category,
                    gold=gold,
                )
            )
    return Dataset(
        name=path.stem, kind="locomo", user_name="you", transcripts=[path], questions=questions, format="locomo"
    )


# LoCoMo writes a gold day as its sessions do ("16 March, 2023", "February, 2023"); a right answer may write the same
# day as "16 March 2023" or "March 16, 2023", as a world's accept list gives each form of a date
_GOLD_DATE = re.compile(r"^\s*(?:(\d{1,2})\s+)?([A-Z][a-z]+),?\s+(\d{4})\s*$")
_MONTH_NAMES = frozenset(
    "january february march april may june july august september october november december".split()
)


def date_forms(gold: str) -> tuple[str, ...]:
    """The other ways a right answer writes the day or month a gold answer is ("16 March, 2023": "16 March 2023",
    "March 16, 2023", "March 16 2023"); none for any other answer."""
    m = _GOLD_DATE.match(gold)
    if m is None or m.group(2).lower() not in _MONTH_NAMES:
        return ()
    day, month, year = m.groups()
    if day is None:
        return (f"{month} {year}",)
    return (f"{day} {month} {year}", f"{month} {day}, {year}", f"{month} {day} {year}")


def _dia_ids(evidence: object) -> list[str]:
    """Evidence ids; a few LoCoMo entries pack several ids into one string ("D8:6; D9:17")."""
    out: list[str] = []
    for item in evidence if isinstance(evidence, list) else []:
        for part in str(item).replace(",", ";").split(";"):
            part = part.strip()
            if part:
                out.append(part)
    return out

"""Dev report: the personal facts the rule reader takes from each open world, and the fast path's answers.

Usage: .venv/bin/python bench/facts_report.py [WORLD_DIR ...] [--facts] [--quiet]
Per world: every fact from a trusted turn with its source (session, date, quote); then each personal
question (class person|relation|place|thing|preference) with what parse_personal_question plus
answer_personal would say, marked right / WRONG / none against `accept` / `reject`. Questions an
agent scope makes unanswerable count as right only when not answered.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from vyre_memory.ingest.records import Cursor

from vyre_memory.ask.personal_questions import KnownFact, answer_personal, parse_personal_question
from vyre_memory.ingest.claude_code import FORMAT
from vyre_memory.ingest.labels import session_kind
from vyre_memory.read.rules import confirmed_facts, extract
from vyre_memory.read.trust import judge_turn

PERSONAL = {"person", "relation", "place", "thing", "preference"}
DEFAULT_WORLDS = [Path("/work/shared/worlds/open"), Path("/work/shared/worlds/open2")]


def hit(answer: str, needle: str) -> bool:
    pat = rf"(?<![^\W_]){re.escape(needle.lower())}s?(?![^\W_])"
    return re.search(pat, answer.lower()) is not None


def world_facts(world: Path) -> list[KnownFact]:
    facts: list[KnownFact] = []
    for f in sorted(FORMAT.files(world / "home/.claude/projects")):
        for s in FORMAT.parse(f, Cursor(), max_line_bytes=64 << 20).sessions:
            kind = session_kind(s)
            prev_typed: str | None = None
            prev_assistant = ""
            for t in s.turns:
                if t.kind == "assistant":
                    prev_assistant = t.text
                    continue
                if t.kind != "typed":
                    continue
                verdict = judge_turn(t.kind, kind, t.text, previous_text=prev_typed)
                context = prev_typed or ""
                prev_typed = t.text
                if not verdict.ok:
                    continue
                src = f"{s.id[:8]} {(t.ts or '')[:10]}"
                for c in extract(t.text, context=context):
                    facts.append(
                        KnownFact(c.subject, c.relation, c.object, c.confidence, t.ts or "", f"{src} | {c.quote}")
                    )
                for c in confirmed_facts(prev_assistant, t.text):
                    note = f"{src} | confirmed: {c.quote}"
                    facts.append(KnownFact(c.subject, c.relation, c.object, c.confidence, t.ts or "", note))
                prev_assistant = ""
    return facts


def main(argv: list[str]) -> int:
    show_facts = "--facts" in argv
    quiet = "--quiet" in argv
    worlds = [Path(a) for a in argv if not a.startswith("--")] or DEFAULT_WORLDS
    for world in worlds:
        facts = world_facts(world)
        questions = json.loads((world / "questions.json").read_text())["questions"]
        print(f"\n=== {world.name}: {len(facts)} facts")
        if show_facts:
            for f in facts:
                print(f"  {f.subject:>16} {f.relation:<13} {f.object:<26} {f.confidence:.2f}  {f.source[:110]}")
        n = answered = right = wrong = 0
        n_ans = 0
        for q in questions:
            if q["class"] not in PERSONAL:
                continue
            scoped = bool((q.get("scope") or {}).get("agent_projects"))
            n += 1
            query = parse_personal_question(q["question"])
            ans = answer_personal(query, facts) if query and not scoped else None
            expected = q.get("answerable", True) and not scoped
            n_ans += int(expected)
            if ans is None:
                mark = "right (abstained)" if not expected else "none"
                right += int(not expected)
            else:
                answered += 1
                ok = expected and any(hit(ans.text, a) for a in q.get("accept", []))
                ok = ok and not any(hit(ans.text, r) for r in q.get("reject") or [])
                mark = "right" if ok else "WRONG"
                right += int(ok)
                wrong += int(not ok)
            if not quiet or mark == "WRONG":
                parsed = "-" if query is None else f"{query.relation or 'reverse'}:{query.subject or query.reverse}"
                print(
                    f"  {q['id']} {mark:<18} {q['question']!r:<55} parsed={parsed:<28} -> {ans.text if ans else None}"
                )
        print(
            f"  personal questions: {n} ({n_ans} answerable) | answered {answered} | right {right} "
            f"(incl. correct abstentions) | wrong {wrong}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

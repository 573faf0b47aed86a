"""A request or reply said again word for word (a routine step run in many sessions) is read once: its best copy."""

from __future__ import annotations

from pathlib import Path

from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.contract import Scope


def test_a_turn_said_again_word_for_word_takes_one_place_among_the_passages(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    for n in range(6):  # the same routine request and reply in six sessions
        routine = TranscriptWriter(projects / "-home-sam-code-api" / f"r{n}.jsonl", "/home/sam/code/api")
        routine.user("add type hints to the public functions in app/sms/client.py")
        routine.assistant("Annotated the public functions in `app/sms/client.py`.")
    work = TranscriptWriter(projects / "-home-sam-code-api" / "w.jsonl", "/home/sam/code/api")
    work.user("what's the rate limit on the sms gateway api again? the evening reminder burst must not be throttled")
    work.assistant("The sms gateway allows 30 requests per second with a burst of 50.")
    with Memory(tmp_path / "home", embedder="none") as mem:
        mem.ingest([projects])
        found = mem.retriever.retrieve("sms client limit", Scope(), k=8)
    texts = [" ".join(p.text.split()) for p in found]
    assert len(texts) == len(set(texts)), texts  # no text twice
    assert any("30 requests per second" in t for t in texts)


def test_the_same_words_in_another_project_are_kept(tmp_path: Path) -> None:
    """"When did I last run X" across projects: the same request in each project is a passage of its own."""
    projects = tmp_path / "projects"
    for name in ("api", "web", "mobile"):
        work = TranscriptWriter(projects / f"-home-sam-code-{name}" / "a.jsonl", f"/home/sam/code/{name}")
        work.user("bump the lockfile and run npm audit fix")
        work.assistant(f"Lockfile bumped in {name}; audit clean.")
    with Memory(tmp_path / "home", embedder="none") as mem:
        mem.ingest([projects])
        found = mem.retriever.retrieve("npm audit fix lockfile", Scope(), k=8)
    asked = {p.cwd for p in found if p.text == "bump the lockfile and run npm audit fix"}
    assert asked == {"/home/sam/code/api", "/home/sam/code/web", "/home/sam/code/mobile"}

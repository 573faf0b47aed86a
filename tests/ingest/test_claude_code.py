"""The Claude Code parser against the real samples and hand-made records for each layout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import SAMPLES, need

from vyre_memory import Memory

SID = "005d9938-2b44-45f6-87ac-4cddac3b0d6b"


def _samples_tree(tmp_path: Path) -> Path:
    """The samples laid out as ~/.claude/projects lays them (file names as Claude Code writes them)."""
    src = need(SAMPLES)
    root = tmp_path / "projects"
    project = root / "-tmp-project"
    project.mkdir(parents=True)
    for f in src.glob("daaain__claude-code-log__*.jsonl"):
        if "rollout" not in f.name:
            shutil.copy(f, project / (f.name.split("__")[-1]))
    agentolis = root / "C--coding-demo-city"
    sub = agentolis / SID / "subagents"
    sub.mkdir(parents=True)
    shutil.copy(src / "mystico53__agentolis__main-session-with-subagent.jsonl", agentolis / f"{SID}.jsonl")
    shutil.copy(src / "mystico53__agentolis__subagent-a96cf8a57447af436.jsonl", sub / "agent-a96cf8a57447af436.jsonl")
    shutil.copy(
        src / "mystico53__agentolis__subagent-a96cf8a57447af436.meta.json", sub / "agent-a96cf8a57447af436.meta.json"
    )
    return root


def test_samples_ingest_with_subagents_linked(tmp_path: Path, home: Path) -> None:
    root = _samples_tree(tmp_path)
    with Memory(home) as mem:
        report = mem.ingest([root])
        main = mem.session(SID)
        agent = mem.session(f"{SID}/agent-a96cf8a57447af436")
        assert main.kind == "headless"  # claude --print: entrypoint sdk-cli
        assert agent.kind == "subagent" and agent.parent_session == SID
        assert agent.spawn_tool_use_id == "toolu_01Q3g2QgvKmHqJZ3XMPgmJJ5"
        assert agent.agent_type == "general-purpose"
        spawning = [t for t in mem.turns(SID) if t.kind == "tool_call" and t.tool_name == "Agent"]
        assert len(spawning) == 1
        # the inline (2.0.x) sidechain became its own subagent session, linked from the trunk's Task result
        inline = [s for s in mem.sessions(kind="subagent") if s.agent_id == "e1c84ba5"]
        assert len(inline) == 1 and inline[0].spawn_tool_use_id == "toolu_01JA2mLseQCAW3MdwPE4qWEk"
        # edge_cases.jsonl holds deliberately malformed lines: each reported with file and line
        bad = [p for p in report.problems if "edge_cases.jsonl" in p]
        assert len(bad) == 6 and all(":" in p.split("edge_cases.jsonl")[1] for p in bad)


def test_system_reminders_are_stripped_from_the_persons_words(tmp_path: Path, home: Path) -> None:
    root = _samples_tree(tmp_path)
    with Memory(home) as mem:
        mem.ingest([root])
        turns = mem.turns("system_reminder")
    typed = [t for t in turns if t.kind == "typed"]
    # text after the closing tag is the person's again (the sample's own note says so)
    assert [t.text for t in typed] == [
        "Please review the change.\n\n# Project notes\nThe tail content still renders as user text."
    ]
    assert all("<system-reminder>" not in t.text for t in typed)
    assert any(t.kind == "meta" and "cwd changed" in t.text for t in turns)


def test_rewind_branches_are_kept_and_compaction_labelled(tmp_path: Path, home: Path) -> None:
    root = _samples_tree(tmp_path)
    with Memory(home) as mem:
        mem.ingest([root])
        turns = mem.turns("s1")
    kinds = [t.kind for t in turns]
    assert "compact_summary" in kinds and "meta" in kinds
    raw = [
        json.loads(line) for line in (root / "-tmp-project" / "dag_compact_after_rewind.jsonl").read_text().splitlines()
    ]
    stored = {u for t in turns for u in t.uuids}
    threaded = [r["uuid"] for r in raw if r.get("type") in ("user", "assistant") and not r.get("isMeta")]
    assert set(threaded) <= stored  # both children of the rewind point are there


def _write(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _user(uuid: str, content: object, sid: str = "11111111-1111-4111-8111-111111111111", **kw: object) -> dict:
    return {
        "type": "user",
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": sid,
        "cwd": "/home/u/code/app",
        "timestamp": "2026-05-01T10:00:00.000Z",
        "message": {"role": "user", "content": content},
        **kw,
    }


def _assistant(uuid: str, mid: str, block: dict, sid: str = "11111111-1111-4111-8111-111111111111") -> dict:
    return {
        "type": "assistant",
        "uuid": uuid,
        "sessionId": sid,
        "cwd": "/home/u/code/app",
        "timestamp": "2026-05-01T10:00:01.000Z",
        "message": {"id": mid, "role": "assistant", "content": [block]},
    }


def test_assistant_blocks_join_by_message_id_and_tools_pair(tmp_path: Path, home: Path) -> None:
    sid = "11111111-1111-4111-8111-111111111111"
    _write(
        tmp_path / "p" / "-home-u-code-app" / f"{sid}.jsonl",
        [
            _user("u1", "fix the flaky test in tests/test_a.py"),
            _assistant("a1", "msg_1", {"type": "thinking", "thinking": "look at the test"}),
            _assistant("a2", "msg_1", {"type": "text", "text": "Looking."}),
            _assistant("a3", "msg_1", {"type": "text", "text": "Found it."}),
            _assistant(
                "a4",
                "msg_1",
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Read",
                    "input": {"file_path": "/home/u/code/app/tests/test_a.py"},
                },
            ),
            _user("u2", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "1 def test_a(): ..."}]),
            _user("u3", [{"type": "text", "text": "[Request interrupted by user]"}]),
            _user("u4", [{"type": "text", "text": "look at this"}, {"type": "image", "source": {"type": "base64"}}]),
            _user("u5", "<command-name>/model</command-name>\n            <command-message>model</command-message>"),
            _user("u6", "<local-command-stdout>Set model to \x1b[1mopus\x1b[22m</local-command-stdout>"),
            _user(
                "u7", "Caveat: The messages below were generated by the user while running local commands.", isMeta=True
            ),
        ],
    )
    with Memory(home, user_name="Sam") as mem:
        mem.ingest([tmp_path / "p"])
        turns = mem.turns(sid)
    got = [(t.kind, t.name, t.text, t.uuids) for t in turns]
    assert got == [
        ("typed", "Sam", "fix the flaky test in tests/test_a.py", ("u1",)),
        ("thinking", "assistant", "look at the test", ("a1",)),
        ("assistant", "assistant", "Looking.\nFound it.", ("a2", "a3")),
        ("tool_call", "Read", "Read\nfile_path: /home/u/code/app/tests/test_a.py", ("a4",)),
        ("tool_output", "Read", "1 def test_a(): ...", ("u2",)),
        ("meta", "system", "[Request interrupted by user]", ("u3",)),
        ("typed", "Sam", "look at this [image]", ("u4",)),
        ("command", "Sam", "/model", ("u5",)),
        ("command", "Sam", "Set model to opus", ("u6",)),
        (
            "meta",
            "system",
            "Caveat: The messages below were generated by the user while running local commands.",
            ("u7",),
        ),
    ]
    assert turns[3].paths == ("/home/u/code/app/tests/test_a.py",)


def test_resume_duplicates_are_stored_once(tmp_path: Path, home: Path) -> None:
    a, b = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
    first = [_user("u1", "start", sid=a), _assistant("a1", "msg_1", {"type": "text", "text": "ok"}, sid=a)]
    _write(tmp_path / "p" / "-x" / f"{a}.jsonl", first)
    # an older CLI replays the earlier records, same uuids, into the resumed session's file
    _write(tmp_path / "p" / "-x" / f"{b}.jsonl", [*first, _user("u2", "go on", sid=b)])
    with Memory(home) as mem:
        report = mem.ingest([tmp_path / "p"])
        assert report.duplicates == 2
        assert mem.stats()["turns"]["total"] == 3


def test_warmup_agents_are_skipped(tmp_path: Path, home: Path) -> None:
    sid = "11111111-1111-4111-8111-111111111111"
    warm = [
        _user("w1", "Warmup", sid=sid, isSidechain=True, agentId="0fe49f90"),
        _assistant("w2", "msg_w", {"type": "text", "text": "I'll start by exploring"}, sid=sid),
    ]
    warm[1]["isSidechain"], warm[1]["agentId"] = True, "0fe49f90"
    _write(tmp_path / "p" / "-x" / "agent-0fe49f90.jsonl", warm)
    _write(tmp_path / "p" / "-x" / f"{sid}.jsonl", [_user("u1", "hello", sid=sid)])
    with Memory(home) as mem:
        report = mem.ingest([tmp_path / "p"])
        assert report.skipped.get("warmup agent") == 1
        assert [s.kind for s in mem.sessions()] == ["interactive"]


def test_cwd_comes_from_records_not_the_folder_name(tmp_path: Path, home: Path) -> None:
    sid = "11111111-1111-4111-8111-111111111111"
    rec = _user("u1", "hi", sid=sid)
    rec["cwd"] = "/home/u/my-proj"  # the folder name would decode to /home/u/my/proj
    _write(tmp_path / "p" / "-home-u-my-proj" / f"{sid}.jsonl", [rec])
    with Memory(home) as mem:
        mem.ingest([tmp_path / "p"])
        assert mem.session(sid).cwd == "/home/u/my-proj"


def test_memory_own_threads_and_headless_runs_are_labelled(tmp_path: Path, home: Path) -> None:
    a, b, c = (
        "1" * 8 + "-1111-4111-8111-" + "1" * 12,
        "2" * 8 + "-2222-4222-8222-" + "2" * 12,
        "3" * 8 + "-3333-4333-8333-" + "3" * 12,
    )
    thread = _user("u1", "what's my wife's name", sid=a)
    thread["cwd"] = "/home/u/.vyre/threads"
    headless = _user("u2", "summarise the nightly audit", sid=b, entrypoint="sdk-cli", promptSource="sdk")
    builds = _user("u3", "my wife is Jordan (test fixture)", sid=c)
    builds["cwd"] = "/home/u/code/memory-engine/src"
    for sid, rec in ((a, thread), (b, headless), (c, builds)):
        _write(tmp_path / "p" / "-x" / f"{sid}.jsonl", [rec])
    (home).mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('builds_memory_folders = ["/home/u/code/memory-engine"]\n')
    with Memory(home) as mem:
        mem.ingest([tmp_path / "p"])
        assert {s.id: s.kind for s in mem.sessions()} == {a: "memory", b: "headless", c: "builds_memory"}

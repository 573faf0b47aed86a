"""A question asking for a version of something ("what dbt version are we on") searches the passages that write a
version number right after the thing's name, as one more hybrid list: not the releases of another thing that say the
word "version", and newest first when the question asks for it as it is now."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.ask.moments import ADMIN, SHOP, brought_by, memory_of, session

from vyre_memory import Memory


def _history(root: Path) -> None:
    for i in range(6):  # our own package's releases: each says "version" and names a version
        release = session(root, SHOP, f"release{i}", 1 + i)
        release.user(f"release time, 0.{i}.0. version bump in pyproject and build")
        call = release.tool_use("Bash", {"command": f"sed -i 's/^version = \"0.{i}\"/version = \"0.{i + 1}\"/' x"})
        release.tool_result(call, "")
        release.assistant(f"Built shop-0.{i}.0 and tagged v0.{i}.0.")
    first = session(root, SHOP, "upgrade", 8)
    first.user("upgrade day: dbt-core 1.7.11 -> 1.8.4, and the adapter with it")
    first.assistant("Done, the models parse on 1.8.4.")
    later = session(root, SHOP, "upgrade-again", 15)
    later.user("next migration: dbt 1.8.4 -> 1.9.1 so we can use microbatch")
    later.assistant("Migration done.")
    admin = session(root, ADMIN, "admin", 16)
    admin.user("the admin pins airflow 2.9.3 now, note it in the readme")
    admin.assistant("Noted.")


@pytest.fixture()
def memory(tmp_path: Path) -> Iterator[Memory]:
    yield from memory_of(tmp_path, _history)


def test_the_turns_that_write_the_things_version_are_found_the_newest_first(memory: Memory) -> None:
    found = brought_by(memory, "versions", "what dbt version are we on now")
    assert len(found) == 2 and "1.9.1" in found[0] and "1.8.4" in found[1]
    assert brought_by(memory, "versions", "what dbt version are we on now", config="hybrid-versions") == []


def test_a_version_said_of_another_thing_is_not_brought(memory: Memory) -> None:
    # the releases say "version" beside a number, but not right after "dbt"
    assert all("dbt" in t for t in brought_by(memory, "versions", "what version of dbt do we run"))
    assert brought_by(memory, "versions", "what dbt do we run") == []  # no version asked for


def test_an_agent_gets_only_its_projects_versions(memory: Memory) -> None:
    assert brought_by(memory, "versions", "what dbt version are we on", agent_projects=[ADMIN]) == []
    admin = brought_by(memory, "versions", "what airflow version are we on", agent_projects=[ADMIN])
    assert len(admin) == 1 and "2.9.3" in admin[0]

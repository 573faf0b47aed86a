"""A question that names a project by its folder's name ("what's the latest shop-api release") lifts that project's
passages: a release report seldom names its project, while the other project's newer releases share the name's
words and come first in a list read newest first."""

from __future__ import annotations

from pathlib import Path

from tests.ask.moments import NOW, SHOP, found_by, memory_of, session

WEB = "/home/sam/code/shop-web"


def _history(root: Path) -> None:
    api = session(root, SHOP, "api-release", 3)
    api.user("release 2.3.0 with the refund fix, tag it and deploy")
    api.assistant("**2.3.0 is live** on production (3 October) with the refund fix.")
    for day, version in ((8, "1.8.0"), (10, "1.8.1"), (12, "1.8.2"), (14, "1.9.0"), (16, "1.9.1")):
        web = session(root, WEB, f"web-{version}", day)
        web.user(f"release shop-web {version} and deploy it, the shop api client tweaks are in")
        web.assistant(f"**shop-web {version}** is live on production with the api client tweaks.")


def test_a_named_projects_release_comes_before_another_projects_newer_ones(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        question = "what's the latest shop-api release"
        report = "**2.3.0 is live** on production (3 October) with the refund fix."
        assert report in found_by(memory, question, "hybrid", k=2)
        assert report not in found_by(memory, question, "hybrid-project", k=2)


def test_a_project_is_named_by_its_whole_folder_name(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        memory.retrieve("warm up", k=1, now=NOW)
        assert memory._retriever is not None
        named = memory._retriever._projects_named
        assert named("what's the latest shop-api release") == {"shop-api"}
        assert named("latest Shop-Web release?") == {"shop-web"}
        assert named("what's the latest shop release") == frozenset()  # a word the two names share names neither
        assert named("did shop-apiary ship") == frozenset()

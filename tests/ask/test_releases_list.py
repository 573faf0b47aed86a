"""A question about a release or deploy searches the turns that did, reported or asked for one (`read.releases`),
kept by derive, as one more hybrid list: in the question's time window, newest first for "last", in scope."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from tests.ask.moments import ADMIN, NOW, SHOP, brought_by, derives_the_same, memory_of, session
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask.configs import CONFIGS, get_config
from vyre_memory.read.derive import RELEASES, moments_of


def _ship(w: TranscriptWriter, asked: str, command: str, output: str, said: str) -> None:
    """A release as a session holds it: the person's request, the command that ran it, its output, and what the
    assistant said after."""
    w.user(asked)
    call = w.tool_use("Bash", {"command": command})
    w.tool_result(call, output)
    w.assistant(said)


def _release(w: TranscriptWriter, version: str) -> None:
    _ship(
        w,
        f"ship it as {version}",
        f"git tag -a v{version} -m 'shop-api {version}' && make release",
        f"tagged v{version}\nrelease done",
        f"Released {version} to production; health checks are green.",
    )


def _history(root: Path) -> None:
    refund = session(root, SHOP, "refund", 1)
    refund.user("the refund endpoint credits twice when the webhook is retried, fix it in src/refunds.py")
    refund.assistant("The webhook handler has no idempotency key; adding one keyed on the event id.")
    _release(refund, "1.4.0")
    for i in range(12):  # sessions that speak of releases and deploys without doing one
        talk = session(root, SHOP, f"talk{i}", 2 + i)
        talk.user(f"draft the release notes section {i} and check the deploy config for the version bump")
        talk.assistant(f"Drafted section {i} of the release notes; the deploy config names the version twice.")
    later = session(root, SHOP, "search", 20)
    later.user("the product search ignores accents, fix it in src/search.py")
    later.assistant("Search now folds accents before matching.")
    _release(later, "1.5.0")
    admin = session(root, ADMIN, "admin", 5)
    admin.user("the admin table sorts dates as text, fix it")
    admin.assistant("Dates now sort as dates.")
    admin.user("deploy it")
    call = admin.tool_use("Bash", {"command": "npm run deploy"})
    admin.tool_result(call, "deployed web-admin 0.9.0")


@pytest.fixture()
def memory(tmp_path: Path) -> Iterator[Memory]:
    yield from memory_of(tmp_path, _history)


def _released(memory: Memory, question: str, config: str = "hybrid", **scope: object) -> list[str]:
    return brought_by(memory, "releases", question, config, **scope)


def test_derive_keeps_the_turns_that_asked_for_did_and_reported_a_release(memory: Memory) -> None:
    kept = moments_of(memory.store, RELEASES)
    texts = [r.text for r in kept]
    assert len(kept) == 8  # three per release in shop-api, the request and the command in web-admin
    assert sum("1.4.0" in t for t in texts) == 3 and sum("1.5.0" in t for t in texts) == 3
    assert not any("release notes" in t for t in texts)  # speaking of a release is not one


def test_the_version_that_shipped_a_fix_is_found_through_the_releases_list(memory: Memory) -> None:
    found = _released(memory, "which version shipped the refund fix?")
    assert found and "1.4.0" in found[0]
    assert _released(memory, "which version shipped the refund fix?", config="hybrid-releases") == []


def test_the_last_deploy_comes_first(memory: Memory) -> None:
    found = "\n".join(_released(memory, "when did we last deploy?"))
    assert "1.5.0" in found and ("1.4.0" not in found or found.index("1.5.0") < found.index("1.4.0"))


def test_a_time_window_keeps_the_releases_inside_it(memory: Memory) -> None:
    found = _released(memory, "what did we ship yesterday?")
    assert found and all("1.4.0" not in t and "0.9.0" not in t for t in found)


def test_an_agent_gets_only_its_projects_releases(memory: Memory) -> None:
    admin = _released(memory, "what did we deploy?", agent_projects=[ADMIN])
    assert any("npm run deploy" in t for t in admin) and not any("1.4.0" in t or "1.5.0" in t for t in admin)
    shop = _released(memory, "what did we deploy?", agent_projects=[SHOP])
    assert shop and not any("0.9.0" in t or "npm run deploy" in t for t in shop)


def test_a_question_about_anything_else_never_reads_the_list(memory: Memory) -> None:
    assert _released(memory, "which file had the refund bug?") == []


def test_an_incremental_derive_keeps_what_a_full_one_finds_and_an_old_store_is_derived_whole_once(
    memory: Memory, tmp_path: Path
) -> None:
    more = session(tmp_path / "projects", SHOP, "more", 21)
    _release(more, "1.5.1")
    assert derives_the_same(memory, RELEASES, tmp_path / "projects") == 11


def test_a_release_command_with_nothing_said_after_it_is_kept(memory: Memory, tmp_path: Path) -> None:
    alone = session(tmp_path / "projects", SHOP, "alone", 21)
    alone.user("the cart total rounds down, fix it")
    alone.assistant("Rounding now happens once, at the end.")
    memory.ingest([tmp_path / "projects"])
    call = alone.tool_use("Bash", {"command": "make release VERSION=1.5.2"})
    alone.tool_result(call, "released 1.5.2")
    memory.ingest([tmp_path / "projects"])
    assert any("make release VERSION=1.5.2" in r.text for r in moments_of(memory.store, RELEASES))


def test_a_release_command_run_beside_another_points_to_its_own_output(memory: Memory, tmp_path: Path) -> None:
    both = session(tmp_path / "projects", SHOP, "both", 21)
    both.user("tag 1.6.0 and check the disk meanwhile")
    tag = both.tool_use("Bash", {"command": "git tag -a v1.6.0 -m 'shop-api 1.6.0' && git push origin v1.6.0"})
    disk = both.tool_use("Bash", {"command": "df -h"})
    both.tool_result(tag, "tagged v1.6.0")  # parallel calls: both outputs come after both calls
    both.tool_result(disk, "/dev/sda1 40G 12G 28G 30% /")
    memory.ingest([tmp_path / "projects"])
    kept = [m for m in moments_of(memory.store, RELEASES) if "git tag -a v1.6.0" in m.text]
    turns = {t.seq: t for t in memory.store.turns(kept[0].session)}
    assert [turns[s].kind for s in kept[0].seqs] == ["tool_call", "tool_output"]
    assert "tagged v1.6.0" in turns[kept[0].seqs[1]].text
    assert any("tagged v1.6.0" in t for t in _released(memory, "when did we release 1.6.0?"))


def test_the_command_that_released_takes_no_prior_of_its_kind(memory: Memory) -> None:
    """A tool call a reader kept as a release is the release: it ranks as the request and the report of it do, not
    below the turns that only speak of the fix (with its kind's prior it fell out of the best eight)."""
    found = memory.retrieve("when did the accent fix release go out?", k=8, now=NOW)
    command = [p for p in found if "tagged v1.5.0" in p.text]
    assert command and "releases" in command[0].via


def _two_releases(root: Path) -> None:
    old = session(root, SHOP, "store", 3)
    asked = "the review passed, please release 3.2.0 to production"
    _ship(
        old,
        asked,
        "make release VERSION=3.2.0",
        "release 3.2.0 published to production",
        "3.2.0 is released to production.",
    )
    for i in range(6):
        other = session(root, SHOP, f"cart{i}", 5 + i)
        other.user(f"the cart total rounds wrong in case {i}, fix it")
        other.assistant(f"Fixed rounding case {i} in src/cart.py.")
    _ship(
        session(root, SHOP, "fix", 19),
        "release it as 3.2.1",
        "git tag v3.2.1 && make deploy",
        "deployed 3.2.1",
        "3.2.1 is live.",
    )


def test_the_releases_list_weighs_more_when_the_newest_release_is_asked_for(tmp_path: Path) -> None:
    once = replace(get_config("hybrid"), name="hybrid-newest-once", newest_weight=1.0)
    for memory in memory_of(tmp_path, _two_releases):
        for question in ("which release is in production now?", "what did we release last?"):
            found = memory.retrieve(question, k=8, now=NOW)
            assert "3.2.1" in found[0].text and "releases" in found[0].via
            with pytest.MonkeyPatch.context() as patch:
                patch.setitem(CONFIGS, once.name, once)
                assert "3.2.1" not in memory.retrieve(question, k=8, now=NOW, config=once.name)[0].text


def _reported(root: Path) -> None:
    # what the assistant said of it, in words no release reader keeps: the turn a person would quote
    said = "All done: coupons stack once per basket now and the checkout smoke test passes in production."
    _ship(
        session(root, SHOP, "shipped", 3),
        "tag the coupon fix",
        "git tag v2.8.0 && make deploy",
        "deploy finished",
        said,
    )
    for i in range(10):  # turns that share the question's words and say nothing of the release
        other = session(root, SHOP, f"coupons{i}", 4 + i)
        other.user(f"the coupon banner {i} on the basket page overlaps the checkout button, fix it")
        other.assistant(f"Moved coupon banner {i} above the basket; the checkout button is clear.")


def test_each_release_brings_what_the_assistant_said_of_it_next(tmp_path: Path) -> None:
    question = "which version shipped the coupon fix to the basket and checkout?"
    for memory in memory_of(tmp_path, _reported):
        found = brought_by(memory, "releases", question)
        assert any("git tag v2.8.0" in t for t in found)
        assert any(t.startswith("All done: coupons stack once") for t in found)
        alone = brought_by(memory, "releases", question, config="hybrid-releasereports")
        assert any("git tag v2.8.0" in t for t in alone)
        assert not any(t.startswith("All done") for t in alone)


def _fixed_then_shipped(root: Path) -> None:
    """A fix worked on in a session whose release names nothing of it, and releases elsewhere that name its words."""
    fix = session(root, SHOP, "morning", 2)
    fix.user("morning, a few small things today")
    fix.assistant("Ready when you are.")
    fix.user("the basket total is a cent off after rounding when a payment is split, look at src/basket.py")
    fix.assistant("The split rounds each half before adding them; it now rounds the sum once. Test added.")
    _release(fix, "2.3.1")
    for i in range(10):  # releases whose words are the question's
        other = session(root, SHOP, f"notes{i}", 4 + i)
        other.user(f"write the release notes for the split payment screen, part {i}, then ship it")
        _release(other, f"3.{i}.0")


def test_the_release_that_shipped_a_fix_is_found_in_the_session_of_the_fix(tmp_path: Path) -> None:
    question = "which release fixed the cent off after rounding on a split payment?"
    for memory in memory_of(tmp_path, _fixed_then_shipped):
        assert any("v2.3.1" in t for t in brought_by(memory, "releases", question))
        assert not any("v2.3.1" in t for t in brought_by(memory, "releases", question, "hybrid-releasesessions"))

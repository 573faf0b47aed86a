"""A setting asked as it is now is answered, with no model, by the newest edit that set it: real transcripts, a real
SQLite store; an older edit read while a newer one exists is never told."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from tests.ask.moments import ADMIN, NOW, SHOP, memory_of, session
from tests.conftest import make_passage

from vyre_memory.ask.answer_types import asked
from vyre_memory.ask.settings import assignment, newest_setting
from vyre_memory.ask.understand import understand

CONF = "/home/sam/code/shop-api/config/sync.conf"


@pytest.mark.parametrize(
    ("line", "name", "said"),
    [
        ("export const SYNC_BATCH_SIZE = 200;", "SYNC_BATCH_SIZE", "200"),
        ("pub const ATTACH_TIMEOUT_S: u64 = 120;", "ATTACH_TIMEOUT_S", "120 s"),
        ("PollInterval: 500 * time.Millisecond,", "PollInterval", "500 ms"),
        ("APPROVAL_THRESHOLD_PCT = 25", "APPROVAL_THRESHOLD_PCT", "25%"),
        ('"free_shipping_threshold": 60,', "free_shipping_threshold", "60"),
        ("timeout: 30s", "timeout", "30 s"),
        ("POOL_SIZE_MIN = 4", "POOL_SIZE_MIN", "4"),  # a minimum, not minutes
        ("RETRY_DELAY_MIN = 4", "RETRY_DELAY_MIN", "4 min"),
        ("SESSION_TTL = 48  # hours", "SESSION_TTL", "48 hours"),  # the unit its comment says
    ],
)
def test_an_edited_line_says_which_setting_it_gives_which_value(line: str, name: str, said: str) -> None:
    found = assignment(line)
    assert found is not None and (found[0], found[2]) == (name, said)


@pytest.mark.parametrize(
    "line",
    [
        "if x == 3:",
        "def f(x): return 3",
        "retries = max(3, n)",
        "x = {'a': 1}",
        "engine = create_engine(url, pool_size=25, max_overflow=20)",  # a call's arguments
        "SYNC_BATCH_SIZE = 100; SYNC_INTERVAL_S = 60",  # two settings
        "CACHE_TTL_MS = 10 * 60 * 1000",  # an expression
        "API_TIMEOUT = 60 if PROD else 5",
        "# SYNC_BATCH_SIZE = 2000",  # a comment
        "SYNC_BATCH_SIZE = 200  # temporary, revert after the backfill",  # a value said to be passing
        "sync(rows, sync_batch_size=200)",  # a call's argument
        "if n > SYNC_BATCH_SIZE: 200",  # a condition
    ],
)
def test_a_line_that_sets_no_one_number_is_no_setting(line: str) -> None:
    assert assignment(line) is None


def _edit(n: int, old: str, new: str, ts: str) -> object:
    text = f"Edit\nfile_path: {CONF}\nold_string: {old}\nnew_string: {new}\n→ The file {CONF} has been updated."
    return make_passage(n, text, kind="tool_output", name="Edit", ts=ts, cwd=SHOP)


def _asked(question: str) -> object:
    a = asked(question, understand(question, NOW))
    assert a is not None
    return a


def test_the_newest_edit_read_answers_unless_a_later_one_set_it_again() -> None:
    older = _edit(1, "SYNC_BATCH_SIZE = 50", "SYNC_BATCH_SIZE = 100", "2026-10-01T09:00:00Z")
    newer = _edit(2, "SYNC_BATCH_SIZE = 100", "SYNC_BATCH_SIZE = 200", "2026-10-05T09:00:00Z")
    got = newest_setting(_asked("sync batch size now?"), [older, newer], lambda name, value, p: False)  # type: ignore[arg-type]
    assert got is not None and got.answer == "200" and got.cite == (newer,) and "200" in got.quote
    assert newest_setting(_asked("sync batch size now?"), [older], lambda name, value, p: True) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "question",
    [
        "what was the sync batch size originally?",  # an earlier value
        "what was the previous sync batch size?",
        "what sync batch size did dana recommend?",  # what someone wanted
        "what's the size now?",  # one word of the name: which setting is not known
        "sync interval now?",  # the name holds too few of the question's words
    ],
)
def test_no_setting_is_told_for_an_earlier_value_or_a_name_that_says_too_little(question: str) -> None:
    edit = _edit(1, "SYNC_BATCH_SIZE = 100", "SYNC_BATCH_SIZE = 200", "2026-10-05T09:00:00Z")
    assert newest_setting(_asked(question), [edit], lambda name, value, p: False) is None  # type: ignore[arg-type]


def test_an_edit_of_a_test_file_is_not_the_setting() -> None:
    edit = _edit(1, "SYNC_BATCH_SIZE = 100", "SYNC_BATCH_SIZE = 200", "2026-10-05T09:00:00Z")
    in_tests = make_passage(2, edit.text.replace(CONF, "/home/sam/code/shop-api/tests/test_sync.py"),  # type: ignore[attr-defined]
                            kind="tool_output", name="Edit", ts="2026-10-07T09:00:00Z", cwd=SHOP)  # fmt: skip
    got = newest_setting(_asked("sync batch size now?"), [edit, in_tests], lambda name, value, p: False)  # type: ignore[arg-type]
    assert got is not None and got.cite == (edit,)


def test_two_settings_that_name_the_question_alike_answer_nothing() -> None:
    a = _edit(1, "SYNC_BATCH_SIZE_IOS = 100", "SYNC_BATCH_SIZE_IOS = 200", "2026-10-05T09:00:00Z")
    b = _edit(2, "SYNC_BATCH_SIZE_ANDROID = 100", "SYNC_BATCH_SIZE_ANDROID = 300", "2026-10-06T09:00:00Z")
    assert newest_setting(_asked("sync batch size now?"), [a, b], lambda name, value, p: False) is None  # type: ignore[arg-type]


REJECTED = "The user doesn't want to proceed with this tool use. The tool use was rejected."


def _then(kind: str) -> Callable[[Path], None]:
    """The two edits of `_history`, then something that changes the setting again without an edit, or an edit that
    does not take."""

    def history(root: Path) -> None:
        _history(root)
        work = session(root, SHOP, "sync-15", 15)
        work.user("the outbox sync batches time out at 200, put the sync batch size back to 100")
        if kind == "write":
            call = work.tool_use("Write", {"file_path": CONF, "content": "SYNC_BATCH_SIZE = 100\n"})
        elif kind == "deploy":
            call = work.tool_use("Bash", {"command": "kubectl set env deployment/shop-api SYNC_BATCH_SIZE=100"})
        elif kind == "said":
            work.user("fyi i put the sync batch size back to 100 by hand on the server last night")
            return
        elif kind == "renamed":
            call = work.tool_use("Edit", {"file_path": CONF, "old_string": "SYNC_BATCH_SIZE = 200",
                                          "new_string": "OUTBOX_BATCH_SIZE = 100"})  # fmt: skip
        elif kind == "sed":
            call = work.tool_use("Bash", {"command": f"sed -i 's/SYNC_BATCH_SIZE = 200/SYNC_BATCH_SIZE = 100/' {CONF}"})
        elif kind == "git":
            call = work.tool_use("Bash", {"command": "git checkout HEAD~1 -- config/sync.conf"})
        elif kind == "rejected":
            call = work.tool_use("Edit", {"file_path": CONF, "old_string": "SYNC_BATCH_SIZE = 200",
                                          "new_string": "SYNC_BATCH_SIZE = 500"})  # fmt: skip
            work.tool_result(call, REJECTED, is_error=True)
            return
        else:  # another project sets a setting of the same name
            other = session(root, ADMIN, "admin-15", 15)
            other.user("admin sync is slow, raise the sync batch size")
            path = "/home/sam/code/web-admin/src/sync.conf"
            call = other.tool_use("Edit", {"file_path": path, "old_string": "SYNC_BATCH_SIZE = 200",
                                           "new_string": "SYNC_BATCH_SIZE = 1000"})  # fmt: skip
            other.tool_result(call, f"The file {path} has been updated.")
            return
        work.tool_result(call, "done")

    return history


@pytest.mark.parametrize("kind", ["write", "deploy", "said", "renamed", "sed", "git", "other project"])
def test_no_setting_is_told_when_something_later_may_have_set_it_otherwise(tmp_path: Path, kind: str) -> None:
    for memory in memory_of(tmp_path, _then(kind)):
        got = memory.ask("what's the sync batch size now?", now=NOW)
        assert got.answer not in ("200", "1000")


def test_an_edit_the_person_rejected_is_never_told(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _then("rejected")):
        assert memory.ask("what's the sync batch size now?", now=NOW).answer in (None, "200")


def _history(root: Path) -> None:
    for day, (old, new) in ((3, (50, 100)), (9, (100, 200))):
        work = session(root, SHOP, f"sync-{day}", day)
        work.user("the outbox sync sends tiny batches, raise it")
        call = work.tool_use("Edit", {"file_path": CONF, "old_string": f"SYNC_BATCH_SIZE = {old}",
                                      "new_string": f"SYNC_BATCH_SIZE = {new}"})  # fmt: skip
        work.tool_result(call, f"The file {CONF} has been updated.")
        work.assistant("Done.")


def test_with_no_model_the_setting_is_told_as_the_newest_edit_left_it(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        got = memory.ask("what's the sync batch size now?", now=NOW)
        assert not got.abstained and got.answer == "200" and got.via == "retrieval"
        assert got.sources and "SYNC_BATCH_SIZE = 200" in (got.sources[0].quote or "")
        # asked before the second edit: the first one's value
        early = memory.ask("what's the sync batch size now?", now=NOW.replace(day=5))
        assert early.answer == "100"

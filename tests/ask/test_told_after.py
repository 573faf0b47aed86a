"""What happened on a day is told that day or in the days after it ("watched a film on saturday", typed on the
monday): a short window is also searched in the three days after it, below the window itself and never past the
question's own time."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory

CWD = "/home/sam/code/shop-api"
ASKED = datetime(2027, 3, 12, 9, 30, tzinfo=UTC)  # a Friday
TOLD = "finally got to watch that heist film, so good"


def _history(root: Path, told_on: datetime) -> None:
    for hour in range(8, 18):  # the work since, where the question's word is said as often
        work = TranscriptWriter(root / f"work-{hour}.jsonl", CWD, start=datetime(2027, 3, 11, hour, tzinfo=UTC))
        work.user(f"finally got to watch the queue drain, so good. ok back to batch {hour}")
        work.assistant("The queue is empty; batch {hour} is next.")
    saturday = TranscriptWriter(root / "saturday.jsonl", CWD, start=datetime(2027, 3, 6, 10, tzinfo=UTC))
    saturday.user("npm run watch for the css please")
    saturday.assistant("The css watcher is running.")
    told = TranscriptWriter(root / "told.jsonl", CWD, start=told_on)
    told.user(f"morning. {TOLD}. ok back to the refund export")
    told.assistant("Glad you had a good weekend. The refund export is next.")


def _found(tmp_path: Path, told_on: datetime, asked: datetime = ASKED, k: int = 3) -> list[str]:
    _history(tmp_path / "projects" / "-home-sam-code-shop-api", told_on)
    with Memory(tmp_path / "home", user_name="Sam") as mem:
        mem.ingest([tmp_path / "projects"])
        return [p.text for p in mem.retrieve("what did i watch on saturday", k=k, now=asked)]


def test_a_day_told_on_the_monday_after_is_read_with_that_day(tmp_path: Path) -> None:
    found = _found(tmp_path, datetime(2027, 3, 8, 9, tzinfo=UTC))  # the Monday after
    assert any(TOLD in text for text in found)


def test_a_week_later_is_no_longer_read_with_that_day(tmp_path: Path) -> None:
    found = _found(tmp_path, datetime(2027, 3, 11, 9, tzinfo=UTC))  # five days after: the old weights
    assert not any(TOLD in text for text in found)


def test_the_days_after_are_never_read_past_the_time_asked(tmp_path: Path) -> None:
    asked = datetime(2027, 3, 7, 20, tzinfo=UTC)  # the Sunday: the Monday's turn is not yet said
    found = _found(tmp_path, datetime(2027, 3, 8, 9, tzinfo=UTC), asked=asked, k=20)
    assert found and not any(TOLD in text for text in found)

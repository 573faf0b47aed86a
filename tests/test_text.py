"""Shared text helpers: dates told as people say them."""

from __future__ import annotations

import pytest

from vyre_memory.text import spoken_dates


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("Friday 2026-10-23 (1.0.0 went live)", "Friday 23 October 2026 (1.0.0 went live)"),
        ("2026-08-04.", "4 August 2026."),
        ("from 2025-12-12 to 2026-01-02", "from 12 December 2025 to 2 January 2026"),
        # inside a path, a file's name, a version or a timestamp, a date stays
        ("migrations/2026-10-23_add.sql", "migrations/2026-10-23_add.sql"),
        ("report-2026-08-04.csv", "report-2026-08-04.csv"),
        ("v2026-10-23", "v2026-10-23"),
        ("at 2026-08-06T15:01:37Z", "at 2026-08-06T15:01:37Z"),
        ("at 2026-08-06 15:01 UTC", "at 2026-08-06 15:01 UTC"),
        ("2026-13-01", "2026-13-01"),  # no such month
        ("2026-02-31", "2026-02-31"),  # no such day
    ],
)
def test_a_date_is_told_as_people_say_it(said: str, told: str) -> None:
    assert spoken_dates(said) == told

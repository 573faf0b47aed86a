"""Shared text helpers: dates told as people say them."""

from __future__ import annotations

import pytest

from vyre_memory.text import identifier_words, spoken_dates, spoken_units


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


def test_the_words_inside_an_identifier() -> None:
    said = "OrderQueueLatencyHigh, getUserById, HTTPServer, OAuth2Client, snake_case, GitHub, iOS, ABC, Hello, v2"
    assert identifier_words(said) == [
        *("order", "queue", "latency", "high", "get", "user", "by", "id", "http", "server", "auth", "client"),
        *("git", "hub"),
    ]
    assert identifier_words("plain words and CAPS only") == []


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("800ms (max 3 retries)", "800 ms (max 3 retries)"),
        ("p99=1,840ms.", "p99=1,840 ms."),
        ("3.1kg and 6gb", "3.1 kg and 6 gb"),
        ("6:30am lanes, back by 7:15pm", "6:30 am lanes, back by 7:15 pm"),
        ("512Mi, 6GB, 800MS", "512Mi, 6GB, 800MS"),  # a unit in capitals would read as a name set apart
        ("a ttl of 12h", "a ttl of 12h"),
        (
            "in her 30s, 24k a year, a 3d printer, 5g, 1080p, h264, v1.2ms",
            "in her 30s, 24k a year, a 3d printer, 5g, 1080p, h264, v1.2ms",
        ),
        ("`timeout: 800ms` is 800ms", "`timeout: 800ms` is 800 ms"),  # code stays as written
        ("``100ms`` and `x`, 100ms", "``100ms`` and `x`, 100 ms"),
        ("fix/10ms-timeout, cache-ttl-5min, app:10mb, #12mb", "fix/10ms-timeout, cache-ttl-5min, app:10mb, #12mb"),
    ],
)
def test_a_unit_is_written_apart_from_its_number(said: str, told: str) -> None:
    assert spoken_units(said) == told

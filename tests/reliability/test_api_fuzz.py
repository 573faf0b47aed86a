"""API fuzzing: the HTTP API, driven from its own OpenAPI document by schemathesis, against a real `vyre serve`.

Proves, for every documented operation, with schema-valid (positive) and schema-invalid (negative) requests:
no crash (the server stays up), no 500, and every rejection (4xx) in the one error shape
`{"error": {"code", "message"}}` with a message that says what to do.

Hand-written requests pin what the fuzzer found: each known 500 or shapeless rejection has its own
`xfail(strict=True)` test with the exact request, and the fuzz run counts a failure that matches one of
them as known (printed) instead of new, so the run stays green until something new appears; when a bug is
fixed its xfail test passes, fails as strict, and its entry here goes.

bench/api_fuzz.py runs the same campaign with many more examples (and `st run` for the whole schemathesis
suite of checks).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.reliability.conftest import Server, start_http

schemathesis = pytest.importorskip("schemathesis", reason="pip install schemathesis (the dev extra)")
hypothesis = pytest.importorskip("hypothesis")

# failures reported and since fixed: none are expected now (each is pinned by a test below)
KNOWN: tuple[tuple[int, str], ...] = ()


@dataclass
class Finding:
    method: str
    url: str
    body: Any
    status: int
    text: str

    def curl(self) -> str:
        data = f" -H 'content-type: application/json' -d '{json.dumps(self.body)}'" if self.body is not None else ""
        return f"curl -X {self.method} '{self.url}'{data}"


@dataclass
class Report:
    requests: int = 0
    new: list[Finding] = field(default_factory=list)
    known: list[Finding] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def problem(status: int, text: str) -> str | None:
    """What is wrong with a response, or None: no 500, and every rejection in the one error shape."""
    if status >= 500:
        return "server error"
    if status < 400:
        return None
    try:
        message = json.loads(text)["error"]["message"]
        code = json.loads(text)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return "a rejection without the error shape"
    if not isinstance(code, str) or not isinstance(message, str) or len(message) < 12:
        return "a rejection without a clear message"
    return None


def is_known(status: int, text: str) -> bool:
    return any(status == s and re.search(pattern, text) for s, pattern in KNOWN)


def fuzz(base_url: str, *, examples: int, seed: int = 0) -> Report:
    """Every operation of /openapi.json, `examples` positive and `examples` negative cases each."""
    from hypothesis import HealthCheck, given, settings

    schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
    report = Report()
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):

            @settings(
                max_examples=examples,
                deadline=None,
                database=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
                phases=[hypothesis.Phase.generate],
            )
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case: Any) -> None:
                response = case.call(base_url=base_url, timeout=30)
                report.requests += 1
                report.statuses[response.status_code] = report.statuses.get(response.status_code, 0) + 1
                if problem(response.status_code, response.text) is None:
                    return
                body = case.body if isinstance(case.body, dict | list | str | int | float | bool) else None
                found = Finding(case.method, response.request.url, body, response.status_code, response.text[:300])
                (report.known if is_known(response.status_code, response.text) else report.new).append(found)

            try:
                run()
            except hypothesis.errors.Unsatisfiable:  # no negative case exists (an operation without inputs)
                report.skipped.append(f"{operation.method.upper()} {operation.path} {mode.value}")
    return report


@pytest.fixture(scope="module")
def fuzz_server(demo_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("fuzz") / "vyre-home"
    shutil.copytree(demo_home, home)
    server = start_http(home)
    yield server
    server.stop()


def test_schemathesis_finds_no_500_and_every_rejection_is_clear(fuzz_server: Server) -> None:
    report = fuzz(fuzz_server.url, examples=6)
    print(
        f"\napi fuzz: {report.requests} requests, statuses {report.statuses}, known {len(report.known)}, "
        f"no cases for {report.skipped}"
    )
    for f in report.known[:10]:
        print("  known:", f.status, f.curl(), f.text[:120])
    assert report.requests >= 60 and len(report.skipped) <= 8, (report.requests, report.skipped)
    assert fuzz_server.proc.poll() is None, "the server died"
    assert httpx.get(f"{fuzz_server.url}/v1/health", timeout=5).status_code == 200
    assert not report.new, "\n".join(f"{f.status} {f.curl()} -> {f.text}" for f in report.new[:10])


def test_the_schema_describes_every_v1_route(fuzz_server: Server) -> None:
    doc = httpx.get(f"{fuzz_server.url}/openapi.json", timeout=5).json()
    assert doc["openapi"].startswith("3.")
    paths = set(doc["paths"])
    assert {"/v1/ask", "/v1/retrieve", "/v1/answer", "/v1/facts", "/v1/graph", "/v1/health"} <= paths
    assert all(p.startswith("/v1/") for p in paths)


# -- the exact requests behind each failure the fuzzing found (fixed; pinned) -----------------------------
CASES = {
    "context.project is a number": ("POST", "/v1/ask", {"question": "x", "context": {"project": 5}}),
    "context.thread is a list": ("POST", "/v1/ask", {"question": "x", "context": {"thread": [1]}}),
    "context.project is a number (retrieve)": ("POST", "/v1/retrieve", {"question": "x", "context": {"project": 1}}),
    "a lone surrogate in the question": ("POST", "/v1/ask", '{"question": "\\ud800"}'),
    "a turn number past SQLite's integers": (
        "GET",
        "/v1/sessions/d3d0a000-0000-4000-8000-000000000001/turns?start=99999999999999999999999",
        None,
    ),
    "JSON nested 100000 deep": ("POST", "/v1/ask", '{"question": ' + "[" * 100000 + "]" * 100000 + "}"),
    "an unknown route": ("GET", "/v1/nope", None),
    "an unsupported method": ("PUT", "/v1/ask", None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_known_failure_is_a_clear_rejection(fuzz_server: Server, name: str) -> None:
    method, path, body = CASES[name]
    content = body if isinstance(body, str) else (json.dumps(body) if body is not None else None)
    r = httpx.request(
        method, f"{fuzz_server.url}{path}", content=content, headers={"content-type": "application/json"}, timeout=30
    )
    assert r.status_code < 500 and problem(r.status_code, r.text) is None, (r.status_code, r.text)


@pytest.mark.parametrize(
    "body",
    [
        {"question": "x", "now": "garbage"},
        {"question": ["x"]},
        {"question": ""},
        {"question": "x", "project_cwds": "not a list"},
        {"question": "x", "context": "not an object"},
        [1, 2],
    ],
)
def test_bad_ask_bodies_are_rejected_with_a_message_that_says_what_to_send(fuzz_server: Server, body: Any) -> None:
    r = httpx.post(f"{fuzz_server.url}/v1/ask", json=body, timeout=10)
    assert r.status_code == 400 and problem(r.status_code, r.text) is None, r.text
    assert "e.g." in r.json()["error"]["message"] or "must be" in r.json()["error"]["message"]

"""The web page in real headless Chromium (Debian's `chromium`, driven by Playwright with `executable_path`).

Asks a question of the demo world, checks the thinking state shows at submit, before the server's first
event, then the answer with its sources and the turns around one; adds an alias in the graph view and asks
again. How many milliseconds that takes is bench/web_paint.py's figure (target 100 ms), not an assertion here.
Screenshots of both themes go to test-artifacts/web/.
"""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]

# Recorded in the page before app.js sees the submit: when it happened, when the thinking state showed.
PROBE = """() => {
  window.__probe = {};
  document.addEventListener("submit", () => { window.__probe = { submit: performance.now() }; }, { capture: true });
  const status = document.querySelector("#status");
  new MutationObserver(() => {
    const p = window.__probe;
    if (!status.hidden && p.submit !== undefined && p.shown === undefined) {
      p.shown = performance.now();
      p.stage = document.querySelector("#stage").textContent;
      requestAnimationFrame(() => requestAnimationFrame(() => { p.painted = performance.now(); }));
    }
  }).observe(status, { attributes: true });
}"""


def chromium() -> str:
    """Debian's chromium, or the test is skipped saying why (`make browser` installs it; CI does)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip("no chromium on PATH: the browser tests need Debian's chromium (make browser installs it, as root)")
    return found


def playwright_sync() -> Any:
    try:
        return importlib.import_module("playwright.sync_api")
    except ImportError:
        pytest.skip("playwright is not installed: make .venv/.installed-dev installs it")


@pytest.fixture
def page(http_server: Callable[..., Any], demo: Any) -> Iterator[tuple[Any, Path]]:
    executable = chromium()
    sync_api = playwright_sync()
    server = http_server()
    shots = demo.artifacts / "web"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 860}, color_scheme="light")
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.goto(server.url + "/")
        tab.wait_for_function("document.querySelector('#who').textContent.includes('turns')")
        tab.evaluate(PROBE)
        yield tab, shots
        browser.close()
        assert errors == [], errors


def ask(tab: Any, question: str) -> dict[str, Any]:
    """Type, submit, wait for the answer; returns the page's own timings (ms since submit)."""
    tab.fill("#question", question)
    tab.click("#ask-btn")
    tab.wait_for_selector("#answer:not([hidden])")
    tab.wait_for_selector("#status", state="hidden")
    tab.wait_for_timeout(250)  # the answer's fade-in, so screenshots show it settled
    timing: dict[str, Any] = tab.evaluate("""() => {
      const p = window.__probe, mark = (n) => (performance.getEntriesByName(n)[0] || {}).startTime;
      return { thinking_ms: p.shown - p.submit, painted_ms: p.painted - p.submit, stage: p.stage,
               first_event_ms: mark("vyre-first-event") - mark("vyre-submit"),
               answer_ms: mark("vyre-answer-shown") - mark("vyre-submit") };
    }""")
    timing["answer"] = tab.text_content("#answer-text")
    return timing


def test_ask_shows_thinking_then_cited_answer_and_an_alias_is_used_next(
    page: tuple[Any, Path], measure: Callable[..., None]
) -> None:
    tab, shots = page

    first = ask(tab, "which file had the refund bug?")
    assert first["stage"] == "Understanding the question…"
    assert first["thinking_ms"] < first["first_event_ms"], first  # shown at submit, not when the server answers
    assert "app/billing/refunds.py" in first["answer"]
    first_source = tab.locator("#source-list .source").first
    assert "shop-api" in first_source.text_content() and "app/billing/refunds.py" in first_source.text_content()
    tab.screenshot(path=str(shots / "ask-light.png"), full_page=True)

    source = tab.locator("#source-list .source").filter(has_text="Read").first  # a tool's output, cited
    source.locator("button").click()
    tab.wait_for_selector("#drawer-turns .turn.cited")
    assert tab.locator("#drawer-turns .turn").count() > 1
    assert "refunds.py" in source.text_content()  # the source quotes the line that names it
    cited = tab.locator("#drawer-turns .turn.cited .tool-output")  # the tool's output, unfolded
    assert cited.get_attribute("open") == "" and cited.locator("summary").text_content().startswith("output of Read")
    calls = tab.locator("#drawer-turns .tool-call")  # and the Edit itself, shown as a tool call
    edit = calls.filter(has=tab.locator(".tool-name", has_text="Edit"))
    assert edit.locator(".tool-name").text_content() == "Edit"
    assert edit.locator(".tool-target").text_content().endswith("app/billing/refunds.py")
    assert edit.locator(".tool-diff .del").count() >= 1 and edit.locator(".tool-diff .ins").count() >= 1
    assert "old_string" not in edit.text_content() and "new_string" not in edit.text_content()
    tab.wait_for_timeout(250)  # the drawer's slide-in
    tab.screenshot(path=str(shots / "source-turns-light.png"))
    tab.keyboard.press("Escape")

    tab.click("#theme")
    assert tab.evaluate("document.documentElement.dataset.theme") == "dark"
    unsure = ask(tab, "what did we decide about the portal login?")
    if unsure["answer"] == "Not sure.":
        assert tab.locator("#known-list li").count() >= 1
    tab.screenshot(path=str(shots / "ask-dark.png"), full_page=True)

    before = ask(tab, "who is Danielle?")
    assert before["answer"] == "Not sure."

    tab.click("#tab-graph")
    dani = tab.locator(".entity[data-entity='Dani']")
    dani.wait_for()
    tab.screenshot(path=str(shots / "graph-dark.png"), full_page=True)
    dani.locator(".edit-btn").click()
    dani.locator("input[name='alias']").fill("Danielle")
    dani.get_by_role("button", name="Add alias").click()
    tab.locator(".entity[data-entity='Dani'] .chip.alias", has_text="Danielle").wait_for()
    tab.click("#theme")
    assert tab.evaluate("document.documentElement.dataset.theme") == "light"
    tab.screenshot(path=str(shots / "graph-light.png"), full_page=True)

    tab.click("#tab-ask")
    after = ask(tab, "who is Danielle?")
    tab.screenshot(path=str(shots / "alias-answer-light.png"), full_page=True)
    assert "Dani" in after["answer"] and after["answer"] != "Not sure.", after
    timings = [first, unsure, before, after]
    measure("browser_ms", {k: [round(t[k], 1) for t in timings] for k in first if k.endswith("_ms")})
    assert all(t["thinking_ms"] < t["first_event_ms"] <= t["answer_ms"] for t in timings), timings


def test_light_and_dark_themes_differ(page: tuple[Any, Path]) -> None:
    tab, _ = page
    light = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    tab.click("#theme")
    dark = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    tab.reload()
    assert tab.evaluate("document.documentElement.dataset.theme") == "dark"  # the choice is kept
    assert light != dark


def test_without_chromium_the_browser_tests_skip_saying_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no chromium, no apt-get: nothing is installed, nothing fails
    with pytest.raises(pytest.skip.Exception, match="no chromium on PATH: the browser tests need Debian's chromium"):
        chromium()

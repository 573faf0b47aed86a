"""How soon the web page shows its thinking state after a question is submitted, in real headless Chromium.

    .venv/bin/python bench/web_paint.py [--asks 40]

Ingests the demo history (demo/projects) into a temporary VYRE_HOME with the hash embedder and no model,
starts `vyre serve` as a real process, opens the page in Debian's `chromium` (Playwright with
`executable_path`; `make browser` installs it) and asks the same few questions in turn. For each ask the
page's own clock gives: the thinking state shown (a DOM mutation after the submit event), painted (two
animation frames later), the server's first event and the answer shown. Prints p50 / p95 / max per figure
and the load average; the target is the thinking state within 100 ms of submit. Prints, never asserts
(tests/surfaces/test_web.py checks the order of these moments, not their times).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from model_latency import p50_p95  # noqa: E402
from vyre_memory import Memory  # noqa: E402

QUESTIONS = ["which file had the refund bug?", "what did we decide about the portal login?", "who is Dani?"]
TARGET_MS = 100.0
# The page marks its own moments (vyre-submit, vyre-thinking-shown, vyre-first-event, vyre-answer-shown); this
# adds one more, two animation frames after the thinking state was marked: when it was painted.
PAINTED = """() => {
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    const made = mark(name, ...rest);
    if (name === "vyre-thinking-shown") requestAnimationFrame(() => requestAnimationFrame(() => mark("painted")));
    return made;
  };
}"""
TIMINGS = """() => {
  const start = (n) => performance.getEntriesByName(n)[0].startTime, at = (n) => start(n) - start("vyre-submit");
  return { thinking_ms: at("vyre-thinking-shown"), painted_ms: at("painted"),
           first_event_ms: at("vyre-first-event"), answer_ms: at("vyre-answer-shown") };
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = dict(os.environ, VYRE_HOME=str(home), VYRE_EMBEDDER="hash", VYRE_MODEL_BACKEND="none")
    port = free_port()
    cmd = [sys.executable, "-c", "from vyre_memory.surfaces.cli import main; main()", "serve", "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(url + "/v1/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("vyre serve did not come up within 30 s")


def ask(tab: Any, question: str) -> dict[str, float]:
    tab.fill("#question", question)
    tab.click("#ask-btn")
    tab.wait_for_selector("#answer:not([hidden])")
    tab.wait_for_selector("#status", state="hidden")
    tab.wait_for_function("performance.getEntriesByName('painted').length > 0")
    timing: dict[str, float] = tab.evaluate(TIMINGS)
    return timing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--asks", type=int, default=40)
    args = parser.parse_args()
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if not executable:
        raise SystemExit("no chromium on PATH: make browser installs Debian's chromium (as root)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="vyre-bench-web-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        (home / "config.toml").write_text('user_name = "Sam"\nembedder = "hash"\n', encoding="utf-8")
        os.environ.update(VYRE_EMBEDDER="hash", VYRE_MODEL_BACKEND="none")
        with Memory(home) as mem:
            mem.ingest([ROOT / "demo" / "projects"])
        proc, url = serve(home)
        rows: list[dict[str, float]] = []
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=executable, args=["--headless", "--no-sandbox"])
                tab = browser.new_page(viewport={"width": 1280, "height": 860})
                tab.goto(url + "/")
                tab.wait_for_function("document.querySelector('#who').textContent.includes('turns')")
                tab.evaluate(PAINTED)
                for i in range(args.asks):
                    rows.append(ask(tab, QUESTIONS[i % len(QUESTIONS)]))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print(f"{len(rows)} asks of {len(QUESTIONS)} questions, load average {os.getloadavg()[0]:.2f} (ms after submit)")
    for key in ("thinking_ms", "painted_ms", "first_event_ms", "answer_ms"):
        print(f"  {key:15} {p50_p95([row[key] for row in rows])}")
    late = sum(row["thinking_ms"] > TARGET_MS for row in rows)
    print(f"  thinking state later than {TARGET_MS:.0f} ms: {late} of {len(rows)}")


if __name__ == "__main__":
    main()

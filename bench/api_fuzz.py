"""Fuzz the HTTP API from its OpenAPI document (schemathesis) against a real `vyre serve` over the demo history.

    python bench/api_fuzz.py                      # 100 positive + 100 negative cases per operation
    python bench/api_fuzz.py --examples 500 --st  # more, then `st run --checks all` as well

The campaign of tests/reliability/test_api_fuzz.py, bigger. Prints every 500 and every rejection without the
one error shape (`{"error": {"code", "message"}}`) as a curl command, separating the ones already known (pinned
by xfail tests there) from new ones; exits 1 when there is a new one. With --st, also runs the schemathesis CLI
with all its checks (schema conformance and the rest: findings there are about the schema document, printed
for reading, not counted).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.reliability.test_api_fuzz import fuzz  # noqa: E402
from tests.surfaces.conftest import CONFIG, DEMO, start_http  # noqa: E402

from vyre_memory import Memory  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=100, help="cases per operation and mode")
    parser.add_argument("--st", action="store_true", help="also run `st run --checks all`")
    args = parser.parse_args()
    os.environ.update({"VYRE_EMBEDDER": "hash", "VYRE_MODEL_BACKEND": "none"})
    with tempfile.TemporaryDirectory(prefix="vyre-fuzz-") as tmp:
        home = Path(tmp) / "vyre-home"
        home.mkdir()
        (home / "config.toml").write_text(CONFIG, encoding="utf-8")
        with Memory(home) as mem:
            mem.ingest([DEMO])
        server = start_http(home)
        try:
            started = time.monotonic()
            report = fuzz(server.url, examples=args.examples)
            took = time.monotonic() - started
            alive = server.proc.poll() is None
            print(
                f"{report.requests} requests in {took:.1f}s; statuses {dict(sorted(report.statuses.items()))}; "
                f"server {'up' if alive else 'DIED'}"
            )
            print(f"no cases generated for: {', '.join(report.skipped) or 'none'}")
            for title, found in (("NEW", report.new), ("known", report.known)):
                print(f"\n{title}: {len(found)}")
                seen = set()
                for f in found:
                    key = (f.status, f.text[:80])
                    if key not in seen:
                        seen.add(key)
                        print(f"  {f.status} {f.curl()}\n      -> {f.text[:200]}")
            if args.st:
                st = shutil.which("st") or str(Path(sys.executable).with_name("st"))
                print("\n== st run --checks all")
                subprocess.run(
                    [
                        st,
                        "run",
                        f"{server.url}/openapi.json",
                        "--checks",
                        "all",
                        "-n",
                        str(args.examples),
                        "--request-timeout",
                        "30",
                        "--seed",
                        "1",
                    ],
                    check=False,
                    cwd=tmp,  # st keeps a .schemathesis cache in its working folder
                )
        finally:
            server.stop()
            shutil.copy(server.log, Path(tmp).parent / "vyre-fuzz-serve.log")
    print(f"server log: {Path(tmp).parent / 'vyre-fuzz-serve.log'}")
    sys.exit(1 if report.new or not alive else 0)


if __name__ == "__main__":
    main()

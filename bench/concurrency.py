"""`vyre serve` with N concurrent askers over HTTP while `vyre watch` ingests a growing transcript.

    python bench/concurrency.py                     # 60 s, 20 askers, watch --interval 0.5
    python bench/concurrency.py --seconds 20 --askers 40

The campaign of tests/reliability/test_concurrency.py, longer: the demo history ingested into a temp
VYRE_HOME, a real `vyre serve` and a real `vyre watch` over it (VYRE_EMBEDDER=hash, VYRE_MODEL_BACKEND=none),
a writer appending Claude Code records to a new session, askers asking the whole time. Prints the figures
(errors, lost turns, p50/p95/max latency, when the new turn was written, stored and first cited) as JSON and
exits 1 if there were errors, lost turns or the new fact was never cited.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.reliability.test_concurrency import run_campaign  # noqa: E402
from tests.surfaces.conftest import CONFIG, DEMO  # noqa: E402

from vyre_memory import Memory  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--askers", type=int, default=20)
    parser.add_argument("--interval", type=float, default=0.5, help="vyre watch --interval")
    args = parser.parse_args()
    os.environ.update({"VYRE_EMBEDDER": "hash", "VYRE_MODEL_BACKEND": "none"})
    with tempfile.TemporaryDirectory(prefix="vyre-concurrency-") as tmp:
        home = Path(tmp) / "vyre-home"
        home.mkdir()
        (home / "config.toml").write_text(CONFIG, encoding="utf-8")
        with Memory(home) as mem:
            mem.ingest([DEMO])
        camp = run_campaign(
            home, Path(tmp) / "projects", seconds=args.seconds, askers=args.askers, interval=args.interval
        )
        figures = camp.figures()
    print(json.dumps(figures, indent=2))
    for a in camp.errors()[:5]:
        print("error:", a.__dict__, file=sys.stderr)
    failed = figures["errors"] or figures["lost_turns"] or figures["turns_stored"] != figures["records_written"]
    sys.exit(1 if failed or figures["first_cited_s"] is None else 0)


if __name__ == "__main__":
    main()

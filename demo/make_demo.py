"""Writes the small demo history in demo/projects (run once; the output is committed).

    python demo/make_demo.py

Four sessions of a made-up developer, Sam: a bug fix, a decision, a deploy, and a few
personal asides in Sam's own words, so `make run` has something to answer from on a
machine without ~/.claude/projects.
"""

from __future__ import annotations

import random
import shutil
from datetime import UTC, datetime
from pathlib import Path

from vyre_memory.eval.synth import SessionWriter, encode_cwd

ROOT = Path(__file__).resolve().parent / "projects"


def main() -> None:
    shutil.rmtree(ROOT, ignore_errors=True)
    rng = random.Random(1)
    api, portal = "/home/sam/code/shop-api", "/home/sam/code/harlow-portal"

    w = SessionWriter(api, "d3d0a000-0000-4000-8000-000000000001", datetime(2026, 9, 14, 9, 5, tzinfo=UTC))
    w.user("morning. customers say refunds got credited twice on friday, can you find why")
    w.assistant(rng, [{"type": "text", "text": "Let me look at the refund webhook handler."}])
    w.tool(
        rng,
        "Grep",
        {"pattern": "charge.refunded", "path": api},
        "app/billing/refunds.py:41:    if event.type == 'charge.refunded':",
    )
    w.tool(
        rng,
        "Read",
        {"file_path": f"{api}/app/billing/refunds.py"},
        "41  if event.type == 'charge.refunded':\n42      credit_customer(event)\n43      mark_processed(event.id)",
    )
    w.assistant(
        rng,
        [
            {
                "type": "text",
                "text": "Found it: in app/billing/refunds.py the event id is recorded only after "
                "credit_customer() runs, so when Stripe retries a slow delivery the credit is applied twice. "
                "I'll record the event id first, inside the same transaction.",
            }
        ],
    )
    w.tool(
        rng,
        "Edit",
        {
            "file_path": f"{api}/app/billing/refunds.py",
            "old_string": "credit_customer(event)\n    mark_processed(event.id)",
            "new_string": "if not claim_event(event.id):\n        return\n    credit_customer(event)",
        },
        f"The file {api}/app/billing/refunds.py has been updated.",
    )
    w.user("nice. have to pick up dani, my wife, at 5 so let's wrap up. tag it as v1.8.2 and deploy")
    w.tool(rng, "Bash", {"command": "git tag v1.8.2 && make deploy"}, "deployed shop-api v1.8.2 to production")
    deployed = "Deployed v1.8.2: the refund bug fix in app/billing/refunds.py (idempotent on the event id)."
    w.assistant(rng, [{"type": "text", "text": deployed}])
    w.write(ROOT / encode_cwd(api) / f"{w.session_id}.jsonl")

    w = SessionWriter(portal, "d3d0a000-0000-4000-8000-000000000002", datetime(2026, 9, 22, 14, 0, tzinfo=UTC))
    w.user("bram from harlow wants staff to log in with their microsoft accounts instead of magic links. options?")
    w.assistant(
        rng,
        [
            {
                "type": "text",
                "text": "Two options: keep magic links and add Microsoft as a second method, "
                "or switch staff to Microsoft Entra ID single sign-on via django-allauth.",
            }
        ],
    )
    w.user("let's go with entra sso via allauth for staff, and drop magic links for them. bram is their ops lead btw")
    w.tool(
        rng,
        "Edit",
        {
            "file_path": f"{portal}/portal/settings.py",
            "old_string": "AUTH = 'magic'",
            "new_string": "AUTH = 'allauth-microsoft'",
        },
        f"The file {portal}/portal/settings.py has been updated.",
    )
    w.assistant(
        rng,
        [
            {
                "type": "text",
                "text": "Decision recorded: staff sign in with Microsoft Entra ID through "
                "django-allauth; magic links are removed for staff.",
            }
        ],
    )
    w.write(ROOT / encode_cwd(portal) / f"{w.session_id}.jsonl")

    w = SessionWriter(api, "d3d0a000-0000-4000-8000-000000000003", datetime(2026, 10, 2, 8, 30, tzinfo=UTC))
    w.user("my son emrys starts school monday so i'm off early. the nightly export is slow, look at app/exports/csv.py")
    w.tool(
        rng,
        "Bash",
        {"command": "python -m cProfile -s cumtime scripts/export.py | head"},
        "   ncalls  tottime  cumtime filename\n   120000    9.1    9.4 app/exports/csv.py:22(format_row)",
    )
    w.assistant(
        rng,
        [
            {
                "type": "text",
                "text": "format_row in app/exports/csv.py builds each row with string "
                "concatenation; switching to the csv module cuts the export from 9.4s to 1.2s.",
            }
        ],
    )
    w.write(ROOT / encode_cwd(api) / f"{w.session_id}.jsonl")


if __name__ == "__main__":
    main()

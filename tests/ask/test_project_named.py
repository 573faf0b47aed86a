"""A question that names a project by its folder's name ("what's the latest shop-api release") lifts that project's
passages: a release report seldom names its project, while the other project's newer releases share the name's
words and come first in a list read newest first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.ask.moments import NOW, SHOP, found_by, memory_of, session

from vyre_memory import Memory

WEB = "/home/sam/code/shop-web"


def _history(root: Path) -> None:
    api = session(root, SHOP, "api-release", 3)
    api.user("release 2.3.0 with the refund fix, tag it and deploy")
    api.assistant("**2.3.0 is live** on production (3 October) with the refund fix.")
    for day, version in ((8, "1.8.0"), (10, "1.8.1"), (12, "1.8.2"), (14, "1.9.0"), (16, "1.9.1")):
        web = session(root, WEB, f"web-{version}", day)
        web.user(f"release shop-web {version} and deploy it, the shop api client tweaks are in")
        web.assistant(f"**shop-web {version}** is live on production with the api client tweaks.")


def test_a_named_projects_release_comes_before_another_projects_newer_ones(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        question = "what's the latest shop-api release"
        report = "**2.3.0 is live** on production (3 October) with the refund fix."
        assert report in found_by(memory, question, "hybrid", k=2)
        assert report not in found_by(memory, question, "hybrid-project", k=2)


def _namer(memory: Memory) -> Callable[[str], frozenset[str]]:
    """The retriever's reading of which projects a question names, the retriever made by a first question."""
    memory.retrieve("warm up", k=1, now=NOW)
    assert memory._retriever is not None
    return memory._retriever._projects_named


def test_a_project_is_named_by_its_whole_folder_name(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        named = _namer(memory)
        assert named("what's the latest shop-api release") == {"shop-api"}
        assert named("latest Shop-Web release?") == {"shop-web"}
        assert named("what's the latest shop release") == frozenset()  # a word the two names share names neither
        assert named("did shop-apiary ship") == frozenset()


KIOSK = "/home/sam/code/harbour-kiosk"
LEDGER = "/home/sam/code/ledger-service"
RENDER = "/home/sam/code/invoice-pdf"


def _three_projects(root: Path) -> None:
    kiosk = session(root, KIOSK, "kiosk-titles", 5)
    kiosk.user("long titles run off the edge of the story cards, can you wrap them")
    kiosk.assistant("The card title had `white-space: nowrap`; it wraps now and hyphenates.")
    for day in range(13, 19):
        more = session(root, KIOSK, f"kiosk-{day}", day)
        more.user(f"add story {day} to the attract loop")
        more.assistant(f"Story {day} is in the attract loop.")
    for day in range(6, 12):
        ledger = session(root, LEDGER, f"ledger-{day}", day)
        ledger.user(f"the invoice totals for batch {day} are off, check the invoice rounding")
        ledger.assistant("The invoice total now rounds once, at the end.")
    pdf = session(root, RENDER, "pdf-fonts", 12)
    pdf.user("the invoice pdf shows boxes for accented letters")
    pdf.assistant("Embedded the full font in the invoice pdf renderer.")


def test_a_project_is_named_by_its_name_in_words_or_by_a_part_only_it_says(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _three_projects):
        named = _namer(memory)
        assert named("which kiosk bug did we fix last month") == {"harbour-kiosk"}
        assert named("what's new in the ledger") == {"ledger-service"}
        # "invoice" is said in another project's sessions more than in invoice-pdf's: it names no project; "service"
        # is a word of every codebase's names
        assert named("which invoice was a cent off") == frozenset()
        assert named("which service timed out") == frozenset()
        assert named("what did we do in the pdf work") == frozenset()  # too few of its passages to tell (2)

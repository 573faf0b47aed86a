"""Nothing from the open evaluation data in `src/`: `../shared/tools/eval-words src` lists no line.

The tool names words of the open worlds and LoCoMo that are in no English dictionary; without Debian's
`wamerican` (/usr/share/dict/words) it lists ordinary words too, so the test needs the dictionary
(`make test` installs it when it runs as root with apt).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SHARED

ROOT = Path(__file__).resolve().parents[1]
TOOL = SHARED / "tools" / "eval-words"
DICTIONARY = Path("/usr/share/dict/words")


def _need_dictionary() -> None:
    if DICTIONARY.is_file():
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        pytest.fail(f"{DICTIONARY} is missing: run `make test` (it installs it) or `apt-get install wamerican`")
    pytest.skip(f"{DICTIONARY} is missing and cannot be installed here (not root, or no apt-get)")


def test_no_word_from_the_open_data_in_src() -> None:
    if not TOOL.is_file():
        pytest.skip(f"{TOOL} is not here (CI lays ../shared beside the checkout)")
    _need_dictionary()
    run = subprocess.run(
        [sys.executable, str(TOOL), "src"], cwd=ROOT, capture_output=True, text=True, timeout=240, check=False
    )
    assert (run.stdout, run.returncode) == ("", 0), f"open-data words in src/ (read each line):\n{run.stdout}"

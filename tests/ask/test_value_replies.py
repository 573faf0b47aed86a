"""A question asking for a value reads the assistant's reply to the best tool calls: what it said the edit left ("the
limit is now ...") follows the call, past the call's output, and gains a share of the call's score."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ask.moments import NOW, SHOP, memory_of, session

from vyre_memory import Memory

REPORT = "Done: uploads now stop at 40 MB a file, and the nginx body cap matches."
CONFIG = "/home/sam/code/shop-api/config/uploads.toml"


def _history(root: Path) -> None:
    work = session(root, SHOP, "uploads", 3)
    for i in range(12):  # turns on uploads that share the question's words and set no limit
        work.user(f"the upload form should show file {i} of the batch with its size beside it")
        work.assistant(f"The upload form now lists file {i} with its size and a remove button.")
    work.user("customers hit the wall on big catalogues, go higher")
    edit = {"file_path": CONFIG, "old_string": "max_upload_size_mb = 25", "new_string": "max_upload_size_mb = 40"}
    call = work.tool_use("Edit", edit)
    work.tool_result(call, f"The file {CONFIG} has been updated.")
    call = work.tool_use("Bash", {"command": "nginx -t && systemctl reload nginx"})
    work.tool_result(call, json.dumps({"stdout": "syntax is ok", "exit": 0}))
    work.assistant(REPORT)


def _score(memory: Memory, question: str, config: str, text: str) -> float:
    return next(p.score for p in memory.retrieve(question, k=30, now=NOW, config=config) if p.text == text)


def test_the_report_after_a_tool_call_gains_for_a_question_asking_for_a_value(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        value = "what's the max upload size now?"
        gained = _score(memory, value, "hybrid", REPORT)
        assert gained > 1.2 * _score(memory, value, "hybrid-valuereplies", REPORT)
        # a question asking for no value reads no replies of tool calls: the same passages, scored the same
        plain = "what does the upload form show beside each file?"
        assert memory.retrieve(plain, k=30, now=NOW) == memory.retrieve(
            plain, k=30, now=NOW, config="hybrid-valuereplies"
        )

"""Small text helpers shared by the parsers: file paths a text mentions, tool-call rendering."""

from __future__ import annotations

import json
import re
from typing import Any

_EXT_LIST = (
    "py pyi ts tsx js jsx mjs go rs rb java kt swift c h cc cpp hpp cs php sql sh zsh bash toml yaml yml json "
    "jsonl ini cfg conf md rst txt csv html css scss vue svelte ipynb lock env tf proto mod sum gradle xml pdf"
)
_EXTENSIONS = frozenset(_EXT_LIST.split())
# a token with a slash in it, or a bare name ending in a known extension
_TOKEN = re.compile(
    r"(?<![\w@.+~/-])(?:[\w@.+~-]*+(?:/[\w@.+~-]++)++/?"
    r"|[\w@+-][\w@.+-]*\.(?:" + "|".join(sorted(_EXTENSIONS, key=len, reverse=True)) + r")\b)",
    re.IGNORECASE,
)
_URLISH = re.compile(r"^(?:https?:|www\.)|://")
_INPUT_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "cwd")


def file_paths(text: str, limit: int = 20) -> list[str]:
    """File paths a text mentions, in order of first mention: a/b/c.ext, /abs/dir, ~/x, or name.ext."""
    found: dict[str, None] = {}
    for token in _TOKEN.findall(text[:50_000]):
        token = token.strip(".,:;-")
        if len(token) < 3 or token.count("/") > 15:
            continue
        last = token.rsplit("/", 1)[-1]
        ext = last.rsplit(".", 1)[-1].lower() if "." in last else ""
        if "/" in token:
            if not (ext or token.startswith(("/", "~", "."))) or _URLISH.search(token) or token.startswith("//"):
                continue  # "and/or", "read/write": slashes without a file name
        elif ext not in _EXTENSIONS or (last.startswith(".") and len(last) < 4):
            continue
        found.setdefault(token, None)
        if len(found) >= limit:
            break
    return list(found)


def tool_input_paths(tool_input: dict[str, Any]) -> list[str]:
    paths = [v for k in _INPUT_PATH_KEYS if isinstance((v := tool_input.get(k)), str) and v]
    for key in ("command", "pattern", "description", "prompt"):
        value = tool_input.get(key)
        if isinstance(value, str):
            paths.extend(file_paths(value))
    return list(dict.fromkeys(paths))[:20]


TOOL_FIELDS = (  # a tool call's inputs written first, in this order, when rendered (`render_tool_input`)
    "description",
    "command",
    "file_path",
    "notebook_path",
    "path",
    "pattern",
    "query",
    "url",
    "prompt",
    "old_string",
    "new_string",
    "content",
    "todos",
)


def render_tool_input(name: str, tool_input: dict[str, Any], limit: int = 4000) -> str:
    """A readable one-block rendering of a tool call, for search and for quoting."""
    parts = [name]
    seen = set()
    for key in TOOL_FIELDS:
        if key in tool_input:
            seen.add(key)
            parts.append(f"{key}: {_short(tool_input[key])}")
    for key, value in tool_input.items():
        if key not in seen and len(parts) < 12:
            parts.append(f"{key}: {_short(value)}")
    return "\n".join(parts)[:limit]


def _short(value: Any, limit: int = 1500) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + " …"


def plain_text(content: Any) -> str:
    """Text of message or tool-result content: a string, or a list of blocks (text, image, reference)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "image":
                    parts.append("[image]")
                elif block.get("type") == "tool_reference" and isinstance(block.get("tool_name"), str):
                    parts.append(f"[tool {block['tool_name']}]")
                elif isinstance(block.get("title"), str):  # knowledge / search results
                    parts.append(block["title"])
        return "\n".join(parts)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return str(content["text"])
    return ""

"""ChatGPT data exports: `conversations.json`, alone or inside the export `.zip`.

Guarantees:
- each conversation is one `ParsedSession` (id = conversation id, title = its title, cwd None);
- the live branch (walked from `current_node` up to the root) comes first, in order; every other
  branch (regenerations, edited prompts) is KEPT: its messages follow the live branch, in
  depth-first order from the root, each with `parent_uuid` naming the message it answers, so
  the fork point is never lost;
- trust labels: user -> TYPED, assistant -> ASSISTANT (a call to a tool, `recipient` other than
  "all", -> TOOL_CALL), tool -> TOOL_OUTPUT, system, hidden messages
  (`metadata.is_visually_hidden_from_conversation`), user system messages and custom
  instructions -> META; `thoughts` -> THINKING; image pointers become "[image]";
- turn uuids are the message ids (node ids when a message has none), so re-parsing the whole file
  (exports are not appendable: `whole_file=True`) yields the same uuids and adds nothing;
- timestamps are `create_time` epoch seconds rendered as ISO-8601 UTC ending in `Z`;
- nothing raises: a broken file, a conversation that is not an object, a message with missing
  or wrongly typed fields is a `Problem` with its 1-based conversation number; empty
  conversations are skipped and counted; a cycle in the tree is cut.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..contract import (
    ASSISTANT,
    META,
    THINKING,
    TOOL_CALL,
    TOOL_OUTPUT,
    TYPED,
    ParseBatch,
    ParsedSession,
    ParsedTurn,
    Problem,
)
from . import exports
from .text import file_paths

NAME = "chatgpt"
_TITLE_RANK = 2
_MAX_TEXT = 2_000_000


class ChatGPTFormat(exports.ExportFormat):
    """A ChatGPT export: `conversations.json` (an array with `mapping` trees) or the zip holding it."""

    name = NAME
    summary = "ChatGPT data export: conversations.json or the export .zip (all branches kept)"
    kind = exports.CHATGPT

    def conversation(self, path: Path, no: int, value: Any, batch: ParseBatch) -> ParsedSession | None:
        return _conversation(path, no, value, batch)


FORMAT = ChatGPTFormat()


def _conversation(path: Path, no: int, conv: Any, batch: ParseBatch) -> ParsedSession | None:
    where = str(path)
    if not isinstance(conv, dict):
        batch.problems.append(Problem(where, no, f"conversation is a JSON {type(conv).__name__}, not an object"))
        return None
    conv_id = exports.text_of(conv.get("id")) or exports.text_of(conv.get("conversation_id"))
    if conv_id is None:
        batch.problems.append(Problem(where, no, "conversation has no 'id'"))
        return None
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        if mapping is None and "mapping" not in conv:
            batch.problems.append(Problem(where, no, f"conversation {conv_id[:80]} has no 'mapping'"))
        else:
            batch.problems.append(Problem(where, no, f"conversation {conv_id[:80]} 'mapping' is not an object"))
        return None
    session = ParsedSession(id=conv_id[:200], source_file=where, format=NAME)
    title = exports.text_of(conv.get("title"))
    if title and title.strip():
        session.title, session.title_rank = title.strip()[:300], _TITLE_RANK
    nodes = {k: v for k, v in mapping.items() if isinstance(v, dict)}
    if len(nodes) < len(mapping):
        batch.problems.append(Problem(where, no, f"{len(mapping) - len(nodes)} mapping node(s) are not objects"))
    seen: set[str] = set()
    for node_id in _order(nodes, conv.get("current_node")):
        _node(session, no, node_id, nodes, seen, batch)
    if not session.turns:
        batch.skip("empty conversation")
        return None
    return session


def _parent_of(node: dict[str, Any], nodes: dict[str, dict[str, Any]]) -> str | None:
    parent = node.get("parent")
    return parent if isinstance(parent, str) and parent in nodes else None


def _order(nodes: dict[str, dict[str, Any]], current: Any) -> list[str]:
    """Node ids: the live branch root-first, then every other node depth-first from the roots."""
    # Children from the `parent` links (the `children` lists only order them), so the walk
    # agrees with the live-branch walk even when the two disagree.
    kids: dict[str, list[str]] = {}
    roots: list[str] = []
    for node_id, node in nodes.items():
        parent = _parent_of(node, nodes)
        if parent is None or parent == node_id:
            roots.append(node_id)
        else:
            kids.setdefault(parent, []).append(node_id)
    for parent, children in kids.items():
        listed = nodes[parent].get("children")
        rank = {c: i for i, c in enumerate(listed) if isinstance(c, str)} if isinstance(listed, list) else {}
        children.sort(key=lambda c: rank.get(c, len(rank)))

    live: list[str] = []
    walk: str | None
    seen: set[str] = set()
    if isinstance(current, str) and current in nodes:
        walk = current
        while walk is not None and walk not in seen:
            seen.add(walk)
            live.append(walk)
            walk = _parent_of(nodes[walk], nodes)
        live.reverse()
    elif roots:  # no usable current_node: follow the last child (the latest regeneration)
        walk = roots[0]
        while walk is not None and walk not in seen:
            seen.add(walk)
            live.append(walk)
            children = kids.get(walk, [])
            walk = children[-1] if children else None

    order = list(live)
    placed = set(live)
    visited: set[str] = set()
    stack = list(reversed(roots))
    while stack:
        node_id = stack.pop()
        if node_id in visited:
            continue
        visited.add(node_id)
        if node_id not in placed:
            placed.add(node_id)
            order.append(node_id)
        stack.extend(reversed(kids.get(node_id, [])))
    # Nodes in a parent cycle that no root reaches: keep them too, in mapping order.
    order.extend(n for n in nodes if n not in placed)
    return order


def _node(
    session: ParsedSession,
    no: int,
    node_id: str,
    nodes: dict[str, dict[str, Any]],
    seen: set[str],
    batch: ParseBatch,
) -> None:
    node = nodes[node_id]
    message = node.get("message")
    if message is None:
        return  # the root placeholder
    where = str(session.source_file)
    if not isinstance(message, dict):
        batch.problems.append(Problem(where, no, f"node {node_id[:80]}: message is not an object"))
        return
    uuid = exports.text_of(message.get("id")) or node_id
    if uuid in seen:
        batch.skip("duplicate message id")
        return
    seen.add(uuid)
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if not isinstance(role, str):
        batch.problems.append(Problem(where, no, f"message {uuid[:80]}: no author.role"))
        return
    content = message.get("content")
    if not isinstance(content, dict):
        batch.problems.append(Problem(where, no, f"message {uuid[:80]}: content is not an object"))
        return
    ctype = content.get("content_type")
    text, kind_hint = _content_text(content)
    if text is None:
        batch.skip(f"content {str(ctype)[:40]}")
        return
    text = text.strip()[:_MAX_TEXT]
    if not text:
        batch.skip("empty message")
        return
    metadata: dict[str, Any] = message["metadata"] if isinstance(message.get("metadata"), dict) else {}
    hidden = bool(metadata.get("is_visually_hidden_from_conversation")) or bool(metadata.get("is_user_system_message"))
    recipient = message.get("recipient")
    tool_name = author.get("name") if isinstance(author, dict) and isinstance(author.get("name"), str) else None
    fields: dict[str, Any] = {}
    if hidden or role == "system" or kind_hint == META:
        fields = {"role": "system", "kind": META, "name": "system"}
    elif role == "user":
        fields = {"role": "user", "kind": TYPED}
    elif role == "assistant" and kind_hint == THINKING:
        fields = {"role": "assistant", "kind": THINKING, "name": "assistant"}
    elif role == "assistant" and isinstance(recipient, str) and recipient not in ("all", ""):
        name = recipient[:200]
        fields = {
            "role": "assistant",
            "kind": TOOL_CALL,
            "name": name,
            "tool_name": name,
            "tool_input": json.dumps({"input": text}, ensure_ascii=False)[:100_000],
        }
    elif role == "assistant":
        fields = {"role": "assistant", "kind": ASSISTANT, "name": "assistant"}
    elif role == "tool":
        name = (tool_name or "tool")[:200]
        fields = {"role": "tool", "kind": TOOL_OUTPUT, "name": name, "tool_name": name}
    else:
        fields = {"role": "system", "kind": META, "name": role[:40]}
    parent_id = _parent_of(node, nodes)
    parent_uuid = None
    if parent_id is not None:
        parent_msg = nodes[parent_id].get("message")
        parent_uuid = (exports.text_of(parent_msg.get("id")) if isinstance(parent_msg, dict) else None) or parent_id
    session.turns.append(
        ParsedTurn(
            uuids=[uuid[:200]],
            text=text,
            ts=exports.epoch_to_iso(message.get("create_time")),
            line=no,
            message_id=uuid[:200],
            parent_uuid=parent_uuid[:200] if parent_uuid else None,
            paths=file_paths(text) if fields["kind"] in (TYPED, ASSISTANT, TOOL_CALL, TOOL_OUTPUT) else [],
            **fields,
        )
    )


def _content_text(content: dict[str, Any]) -> tuple[str | None, str | None]:
    """The text of a message's content and a kind hint (THINKING, META), or (None, None)."""
    ctype = content.get("content_type")
    if ctype == "thoughts":
        thoughts = content.get("thoughts")
        parts: list[str] = []
        if isinstance(thoughts, list):
            for t in thoughts:
                if isinstance(t, dict):
                    for key in ("summary", "content"):
                        if isinstance(t.get(key), str) and t[key].strip():
                            parts.append(t[key])
                elif isinstance(t, str):
                    parts.append(t)
        return "\n".join(parts), THINKING
    if ctype == "reasoning_recap":
        return exports.text_of(content.get("content")) or "", META
    if ctype == "user_editable_context":
        parts = [content[k] for k in ("user_profile", "user_instructions") if isinstance(content.get(k), str)]
        return "\n".join(parts), META
    if ctype == "system_error":
        return exports.text_of(content.get("text")) or exports.text_of(content.get("name")) or "", META
    if ctype == "tether_browsing_display":
        parts = [content[k] for k in ("summary", "result") if isinstance(content.get(k), str)]
        return "\n".join(parts), None
    if ctype == "tether_quote":
        parts = [content[k] for k in ("title", "url", "text") if isinstance(content.get(k), str)]
        return "\n".join(parts), None
    parts_value = content.get("parts")
    if isinstance(parts_value, list):
        return "\n".join(p for p in (_part_text(x) for x in parts_value) if p), None
    if isinstance(content.get("text"), str):  # code, execution_output, and others with a text
        return content["text"], None
    if isinstance(parts_value, str):
        return parts_value, None
    return None, None


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        ptype = part.get("content_type")
        if isinstance(part.get("text"), str):
            return str(part["text"])
        if ptype == "image_asset_pointer" or "asset_pointer" in part:
            return "[image]"
        if isinstance(ptype, str) and "audio" in ptype:
            return "[audio]"
        if isinstance(ptype, str) and "video" in ptype:
            return "[video]"
        return "[attachment]" if ptype else ""
    return ""

"""Passages: what retrieval ranks and what an answer quotes.

A turn is a passage, with two refinements measured on the open worlds: a tool call and its
output are one passage (covering both records), and a long text is split into overlapping
pieces that keep the turn's session, seq, record uuids and time. Each passage carries a
search text: the words themselves plus who spoke, the date and month, the project, the tool
and files it touches, and (for anything but the person's own words) the start of what the
person had just asked, so an answer is found by the words of its question too, and last the words inside
each camel-case identifier ("OrderQueueLatencyHigh": order queue latency high, which a full-text index would
keep as one token; searched, never embedded; a passage built before keeps its search text). Measured on
the open worlds (hybrid recall@8): the prompt context added 0.02 to 0.05. The text embedded is
the same, except that another speaker's "I" and "my" are written as their name (`in_third_person`;
passages are built once, so a conversation imported before that rule keeps its first embedded text).
Meta text (reminders, caveats) and memory's own sessions are not passages.

Typed words of more than one sentence are also embedded a sentence at a time (`sentences`), so a thing
said in passing inside a long message is near a question about it; those vectors are a list of their own
(ask/sentences.py).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from ..contract import META, TOOL_CALL, TOOL_OUTPUT, TYPED
from ..store.passages import IndexTurn, NewPassage
from ..text import identifier_words, parse_ts, project_name

PIECE_CHARS = 1200
OVERLAP_CHARS = 200
CALL_PREFIX_CHARS = 400
PROMPT_CONTEXT_CHARS = 200
PREVIOUS_CONTEXT = True
_SKIP_KINDS = frozenset({META})
SENTENCE_MIN_CHARS = 12  # shorter lines ("ok.", "thanks!") say nothing a question asks for
SENTENCES_MAX = 16  # of one passage: a pasted log in a message is not embedded line by line
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def date_words(ts: str | None) -> str:
    when = parse_ts(ts)
    return when.strftime("%Y-%m-%d %B %Y %A") if when else ""


def pieces(text: str, size: int = PIECE_CHARS, overlap: int = OVERLAP_CHARS) -> list[str]:
    """Overlapping pieces of a long text, cut at line or word breaks where possible."""
    if len(text) <= size:
        return [text]
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = max(text.rfind("\n", start + size // 2, end), text.rfind(" ", start + size // 2, end))
            end = cut if cut > start else end
        out.append(text[start:end].strip())
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
    return [p for p in out if p]


_FIRST_PERSON = [
    (re.compile(r"\b[Ii]['’](?:m|M)\b"), "{} is"),
    (re.compile(r"\b[Ii]['’](?:ve|VE)\b"), "{} has"),
    (re.compile(r"\b[Ii]['’](?:d|D)\b"), "{} would"),
    (re.compile(r"\b[Ii]['’](?:ll|LL)\b"), "{} will"),
    # "I" and a chat's "i", but not I/O, i++, i=0 or i.e.
    (re.compile(r"(?<![\w/=+.-])[Ii](?![\w/=+'’-]|\.\w)|\b(?:[Mm]e|[Mm]yself)\b"), "{}"),
    (re.compile(r"\b(?:[Mm]y|[Mm]ine)\b"), "{}'s"),
]


def in_third_person(text: str, speaker: str) -> str:
    """The text with the speaker's first person written as their name ("I'm" → "Tim is", "my" → "Tim's")."""
    for pattern, replacement in _FIRST_PERSON:
        written = replacement.format(speaker).replace("\\", "\\\\")  # the name as it is, never a template
        text = pattern.sub(written, text)
    return text


def sentences(text: str, name: str | None) -> list[str]:
    """What is embedded of each sentence of a passage of typed words (at most `SENTENCES_MAX`), none for a passage
    of one sentence (its own vector is that sentence's): a named speaker's sentences in the third person after
    their name ("Tim: Tim is learning the piano"). Depends on the passage's text and speaker alone, so its
    vectors are found again by their texts' hashes."""
    said = [part.strip() for part in _SENTENCE_END.split(text)]
    said = [part for part in said if len(part) >= SENTENCE_MIN_CHARS][:SENTENCES_MAX]
    if len(said) < 2:
        return []
    if name and name[:1].isupper():
        return [f"{name}: {in_third_person(part, name)}" for part in said]
    return said


def text_hash(text: str) -> str:
    """The hash vectors are cached by."""
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()


Pair = Callable[[str, str, str], tuple[int, tuple[str, ...], str] | None]


def build(turn: IndexTurn, pair: Pair, user_name: str) -> list[NewPassage]:
    """The passages of one turn. `pair(session, tool_use_id, kind)` finds the other half of a tool call."""
    if turn.kind in _SKIP_KINDS or turn.session_kind == "memory" or not turn.text.strip():
        return []
    uuids = turn.uuids
    body = turn.text
    prefix = ""
    if turn.kind == TOOL_CALL and turn.tool_use_id and pair(turn.session, turn.tool_use_id, TOOL_OUTPUT) is not None:
        return []  # the output's passage carries the call too
    if turn.kind == TOOL_OUTPUT and turn.tool_use_id:
        call = pair(turn.session, turn.tool_use_id, TOOL_CALL)
        if call is not None:
            uuids = call[1] + turn.uuids
            prefix = call[2][:CALL_PREFIX_CHARS] + "\n→ "
    speaker = turn.name or user_name
    # What the person had just asked: an answer is found by the words of its question too.
    if turn.kind == TYPED:  # what the person was answering, if anything
        asked = f"re: {turn.previous[:PROMPT_CONTEXT_CHARS]}\n" if turn.previous and PREVIOUS_CONTEXT else ""
    else:
        asked = f"re: {turn.prompt[:PROMPT_CONTEXT_CHARS]}\n" if turn.prompt else ""
    context = " ".join(
        part
        for part in (
            speaker,
            date_words(turn.ts),
            project_name(turn.cwd),
            turn.tool_name or "",
            " ".join(turn.paths[:8]),
        )
        if part
    )
    # Someone else's words in a conversation the person imported: "I" is that speaker, so the vector
    # is of "Tim has started learning the piano", which a question about Tim is near.
    other = turn.kind == TYPED and turn.name is not None and turn.name[:1].isupper() and turn.name != user_name
    out = []
    for i, piece in enumerate(pieces(body)):
        text = prefix + piece if i == 0 or len(prefix) < 200 else prefix[:200] + " …\n→ " + piece
        split = " ".join(identifier_words(text))
        search = f"{context}\n{asked}{text}"
        embed = f"{context}\n{asked}{in_third_person(text, speaker)}" if other else search
        if split:  # searched, never embedded: the words inside "OrderQueueLatencyHigh" for "latency alert"
            search += f"\n{split}"
        out.append(
            NewPassage(
                turn=turn.id,
                session=turn.session,
                seq=turn.seq,
                piece=i,
                uuids=uuids,
                kind=turn.kind,
                ts=turn.ts,
                text=text,
                search=search,
                embed=embed,
                text_hash=text_hash(embed),
            )
        )
    return out

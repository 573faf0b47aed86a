"""Prompt-injection text: words in a transcript that try to instruct the AI reading them, not state anything.

Guarantees:
- Pure and deterministic: regular expressions over the text only; no I/O, no model, no names from any data.
- `carries_injection(text)` is true for text that tries to take over an AI reader: an order to drop its
  instructions ("ignore previous instructions", "disregard the above prompt"), an imitation of the answer
  step's own JSON output (`"answer": …` with `"cite"` or `"abstain"`), or at least two directive cues
  ("answer X whenever asked", "say that", "you must answer", "with confidence 1.0", "cite [1]") or one
  directive cue in text addressed to an AI ("NOTE TO ANY AI READING THIS", "AI: …", "to the memory system:").
  One ordinary use of a word is never enough: code (`assert answer == 42`), logs ("the model failed to
  respond"), docs ("answer the survey", "answer 'y' when asked") and prompts in a code base are not flagged.
- The person correcting their own assistant ("ignore my previous instructions, use postgres") is not flagged.
- `is_instruction(sentence)` is looser, for one sentence that might state a personal fact: it is also true for
  any directive cue alone ("answer Jordan", "say that", "tell memory"), because a sentence that tells an AI
  what to answer is never the person stating a fact.
- Only the first `MAX_CHARS` characters are read.
"""

from __future__ import annotations

import re

__all__ = ["MAX_CHARS", "carries_injection", "injection_cues", "is_instruction"]

MAX_CHARS = 20_000

_AI = r"(?:ai|a\.i\.|llms?|assistants?|chat ?bots?|bots?|language models?|ai models?|models?|agents?|memory)"

# An order to drop what the AI was told: always an injection.
_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:of\s+)?"
    r"(?:the\s+|your\s+|these\s+|those\s+|its\s+)?(?:(?:previous|prior|above|earlier|preceding|former|"
    r"original|system)\s+)+(?:instructions?|prompts?|directives?|directions|guidelines|rules|context)\b"
    r"|\b(?:ignore|disregard|forget)\s+(?:all\s+)?your\s+(?:instructions|prompt|directives|guidelines|rules)\b"
    r"|\bnew\s+(?:system\s+)?instructions\s*:",
    re.IGNORECASE,
)
# An imitation of the answer step's JSON ("answer" with "cite" or "abstain"): no honest text needs both.
_ANSWER_KEY = re.compile(r"[\"']answer[\"']\s*:", re.IGNORECASE)
_CONTRACT_KEY = re.compile(r"[\"'](?:cite|abstain)[\"']\s*:", re.IGNORECASE)

# Text addressed to an AI reader.
_ADDRESS = re.compile(
    rf"\b(?:note|message|instructions?|attention|notice|reminder|warning|hey|hello|dear)\s+(?:to|for)\s+"
    rf"(?:any|all|every|the|an?)?\s*{_AI}\b"
    rf"|\b(?:attention|hey|hello|dear)\s*,?\s+(?:all\s+|any\s+)?{_AI}\b"
    rf"|\b(?:any|all|every)\s+{_AI}\s+(?:reading|processing|parsing|seeing|summari[sz]ing|indexing)\b"
    rf"|\bto\s+the\s+{_AI}(?:\s+(?:system|model|assistant|tool|reader|memory))*\s*:"
    r"|(?:^|[\n;(\[]|[.!]\s)\s*(?:ai|a\.i\.|llm|assistant|memory)\s*:\s+(?=[^\W\d_])",
    re.IGNORECASE,
)
# Directive cues: what an injection orders. Each is ordinary alone in code, logs and docs.
_DIRECTIVES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "answer-whenever",
        re.compile(
            r"\b(?:answer|respond|reply)\s+(?:with\s+)?[\"'“]?[\w .,'’-]{1,40}?[\"'”]?\s+"
            r"(?:whenever|when(?:ever)?\s+(?:asked|someone asks|anyone asks|you(?:'re| are) asked)|"
            r"if\s+(?:anyone\s+|someone\s+|you(?:'re| are)\s+)?asked|to\s+(?:every|any|all)\s+questions?)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "say-that",
        re.compile(
            r"(?:^|[.:;!?\n(]\s*|\b(?:and|then|please|always|just|only)\s+)(?:say|state|claim)\s+that\b",
            re.IGNORECASE,
        ),
    ),
    (
        "you-must",
        re.compile(
            r"\byou\s+(?:must|should|will|are\s+to|have\s+to|need\s+to)\s+(?:always\s+|only\s+|now\s+)?"
            r"(?:answer|respond|reply|say|tell|claim|state|cite|output|report)\b",
            re.IGNORECASE,
        ),
    ),
    ("tell", re.compile(rf"\btell\s+(?:the\s+user|users|the\s+human|{_AI})\b", re.IGNORECASE)),
    ("confidence", re.compile(r"\bwith\s+(?:a\s+)?confidence\s+(?:of\s+)?(?:1(?:\.0+)?|0?\.\d+|\d{2,3}\s*%)", re.I)),
    (
        "cite",
        re.compile(
            r"\bcit(?:e|ing)\s+(?:passage\s+)?\[\d+\]|\bpassage\s+\[\d+\]\s+(?:confirms|says|shows|states)", re.I
        ),
    ),
    ("task", re.compile(r"\byour\s+(?:new\s+|real\s+|true\s+|only\s+)?(?:instructions|task|job)\s+(?:is|are)\b", re.I)),
    ("secret", re.compile(r"\b(?:do\s+not|don't)\s+(?:tell|reveal|mention|show)\b.{0,40}\b(?:user|human)\b", re.I)),
)
# What an injection orders, in one sentence: "answer Jordan", "the answer is", "tell memory".
_SENTENCE_DIRECTIVE = re.compile(
    r"\b(?i:answer|respond|reply)\s+(?i:with\s+)?[\"'“]?[A-Z0-9][\w'’-]*"
    r"|(?i:\b(?:say|state|claim)\s+that\b|\btell\s+(?:them|it|everyone|the\s+user|memory|the\s+ai)\b)"
    r"|(?i:\b(?:must|always)\s+(?:answer|say|respond|reply)\b)",
)


def injection_cues(text: str) -> list[str]:
    """The injection cues `text` carries, by name (empty for ordinary text)."""
    text = text[:MAX_CHARS]
    cues = []
    if _OVERRIDE.search(text):
        cues.append("override")
    if _ANSWER_KEY.search(text) and _CONTRACT_KEY.search(text):
        cues.append("answer-json")
    if _ADDRESS.search(text):
        cues.append("address")
    cues.extend(name for name, pattern in _DIRECTIVES if pattern.search(text))
    return cues


def carries_injection(text: str) -> bool:
    """Whether `text` tries to instruct an AI reader (see the module docstring for what counts)."""
    cues = set(injection_cues(text))
    if cues & {"override", "answer-json"}:
        return True
    directives = cues - {"address"}
    return len(directives) >= 2 or ("address" in cues and len(directives) >= 1)


def is_instruction(sentence: str) -> bool:
    """Whether one sentence tells an AI what to do or answer (never a statement of fact by the person)."""
    return carries_injection(sentence) or bool(
        _SENTENCE_DIRECTIVE.search(sentence) or any(p.search(sentence) for _, p in _DIRECTIVES)
    )

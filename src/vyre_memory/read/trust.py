"""Which turns and sentences may yield a personal fact, and why (ADR 0034, amendment 2).

Guarantees:
- `judge_turn` is ok only for a `typed` turn in an `interactive` session whose text still holds
  some of the person's own sentences once code, logs, fixtures, docs and pasted material are set
  aside. Every other turn kind and session kind is refused, whatever its text says.
- `own_sentences` yields only sentences of the person's own words, each with its exact character
  span in the text: pasted emails, chat logs, letters, quoted lines, code, stack traces, logs,
  JSON/YAML/SQL/CSV and markdown docs are dropped; a paste runs from its first marker to the end
  of the message (its trailing own words are lost rather than risked).
- `judge_sentence` refuses quotes of others, hypotheticals, negations about a personal matter,
  questions, jokes and sample/fixture text. The same rule filters the person's own said lines.
- `confirmed_guess` turns an assistant's guess into the person's words only when the very next
  reply confirms it without correcting it.
All functions are pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..contract import INTERACTIVE, TYPED

__all__ = [
    "Sentence",
    "Verdict",
    "confirmed_guess",
    "judge_sentence",
    "judge_turn",
    "own_sentences",
    "paste_announced",
    "sentences",
]


@dataclass(frozen=True)
class Verdict:
    """Whether a turn or sentence may yield a personal fact, and the reason either way."""

    ok: bool
    reason: str


@dataclass(frozen=True)
class Sentence:
    """A sentence of the person's own words: its text and its [start, end) span in the message."""

    text: str
    span: tuple[int, int]


# ---------------------------------------------------------------------------------------------
# Line-level markers of material that is not the person's own words.

# An email header: an English field name, or any one-word field whose value holds an address ("Von: a@b.de").
_EMAIL_HEADER = re.compile(
    r"^\s*(?:(from|to|cc|bcc|subject|date|sent|reply-to)\s*:\s*\S|[^\W\d_]{2,12}\s*:\s*[^\n]{0,60}?"
    r"[\w.+-]+@[\w-]+\.[\w.-]+)",
    re.I,
)
_FORWARD = re.compile(r"^\s*(-{2,}\s*(forwarded|original) message|begin forwarded message|on .{3,80} wrote:)", re.I)
_SALUTATION = re.compile(
    r"^\s*(hi|hey|hello|dear|hiya|morning|good morning|good afternoon|greetings)\b[^\n.?]{0,40}[,!]\s*$", re.I
)
# A letter's opening or closing in any language has the same shape: a line of a few words ending in a comma
# (or "!"), the opening as a message's first line, the closing just before a bare name.
_SHORT_CLAUSE = re.compile(r"^\s*[^\W\d_][^\n.?:;]{0,40}[,!]\s*$")
_SHORT_WORDS = 4
_NAME_ONLY_SALUTATION = re.compile(r"^\s*[A-Z][\w'’-]+( [A-Z][\w'’-]+)?,\s*$")
# A letter's greeting to someone by name with its first words on the same line ("Hi Sam, sorry I was..."):
# below a message's first line, the start of a pasted letter; never the assistant greeted by its name.
_GREETS_BY_NAME = re.compile(
    r"^\s*(hi|hey|hello|dear|hiya)\s+(?!(?:claude|codex|copilot|gemini|chatgpt|gpt|assistant)\b)[A-Z][\w'’-]+\s*,\s*\S",
    re.I,
)
# A rule line ("---", "***", "___", "==="): after an own line ending in ":", it opens a pasted block it closes.
_RULE_LINE = re.compile(r"^\s*([-*_=~])\1{2,}\s*$")
_SIGN_OFF = re.compile(
    r"^\s*(thanks|thank you|thx|cheers|best|best regards|regards|kind regards|warm regards|all the best|"
    r"sincerely|yours|love|take care|sent from my|see you|talk soon|speak soon)\b[\w ]{0,20}[,!.]?\s*$",
    re.I,
)
_CHAT_HEADER = re.compile(
    r"^\s*(\[?\d{1,2}:\d{2}(:\d{2})?\s*([ap]\.?m\.?)?\]?\s*[\w.@-]+\s*:|"  # [10:42] zora:
    r"\[(slack|teams|discord|whatsapp|signal|sms|imessage|telegram)\b[^\]]*\]|"  # [Slack, #chan, ...]
    r"<?@?[\w.-]+>?\s*\(\d{1,2}:\d{2}\)\s*:|"  # zora (10:42):
    r"#[a-z0-9][\w-]+\s*$)",  # #billing-eng  (a channel header line)
    re.I,
)
_CHAT_NAME_TIME = re.compile(r"^\s*[A-Z][\w.'’-]*( [A-Z][\w.'’-]*){0,3}\s+\d{1,2}:\d{2}\s*([AaPp]\.?[Mm]\.?)?\s*$")
_SPEAKER_LINE = re.compile(r"^\s*@?[^\W\d_][\w.-]{1,24}( [A-Z][\w.-]{1,24})?\s*:\s+\S")
# a line of a chat copied with its speaker in brackets: "[Ana Reis] we should ...", "[Ana Reis] 9:02 AM we should ..."
_BRACKET_SPEAKER = re.compile(
    r"^\s*\[([A-ZÀ-Ž][\w.'’-]*(?: [A-ZÀ-Ž][\w.'’-]*){0,3})\]\s*(\d{1,2}:\d{2}\s*(?:[AaPp]\.?[Mm]\.?)?)?\s*\S"
)
_SIGNATURE_NAME = re.compile(r"^\s*[A-ZÀ-Ž][\w'’.-]*(?: [A-ZÀ-Ž][\w'’.-]*){0,2}\s*$")
_QUOTE_LINE = re.compile(r"^\s*>")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_LINE = re.compile(
    r"^\s*("
    r"\$ |# ?\$ |>>> |\.\.\. |"  # shell / REPL prompts
    r"(async )?def \w+\s*\(|class \w+[(:]|import [\w.]+\s*$|from [\w.]+ import |return\s+\S+;?\s*$|"
    r"(let|const|var|val)\s+\w+\s*=|(fn|func|function)\s+\w+\s*\(|#include|package \w+\s*;?\s*$|"
    r"(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX|VIEW)|ALTER TABLE|WITH \w+ AS \()\b|"
    r"(if|for|while|switch)\s*\(.*\)\s*\{?\s*$|"
    r"[{}\[\]]\s*,?\s*$|"  # lone braces
    r"\"[^\"]+\"\s*:|'[^']+'\s*:\s*\S|"  # JSON / dict keys
    r"</?[a-z][\w-]*[ >/]|"  # markup
    r"[A-Za-z_][\w.]*\s*=\s*\S|"  # assignments / env / ini
    r"-\s+[\w-]+\s*:\s|"  # YAML list of maps
    r"//|/\*|\*/|--\s|@[a-z_]+(\(|\s*$)"  # comments, decorators
    r")"
)
_TRACE_LINE = re.compile(
    r"^\s*(traceback \(most recent call last\)|file \"[^\"]+\", line \d+|at [\w$.<>]+\(|"
    r"[\w.]+(error|exception)\b:|caused by:|panic:|goroutine \d+|fatal error:|\^+\s*$)",
    re.I,
)
_LOG_LINE = re.compile(r"^\s*(\[?\d{4}-\d{2}-\d{2}[T ,]|\[?\d{2}:\d{2}:\d{2}[.,\]]|(INFO|WARN|WARNING|ERROR|DEBUG)\b)")
_YAML_LINE = re.compile(r"^\s{2,}[\w-]+\s*:(\s|$)|^[\w-]+\s*:\s*$|^\s*-\s+\S")
_CSV_LINE = re.compile(r"^[^ ]*([,;\t][^ ,;\t]*){3,}$")
_HEADING = re.compile(r"^\s*#{1,6}\s+\S")
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")

# A whole-message signal: the person introduces a paste that comes in the next message.
_ANNOUNCE = re.compile(
    r"\b(pasting|pasted|paste (below|this|it|his|her|their|the (email|thread|message|log|reply))|forwarding|"
    r"forwarded|here'?s (the|his|her|their|what \w+ (said|wrote|sent))\b[^.]{0,30}\b(email|thread|message|"
    r"log|logs|docs?|report|text|note|chat|convo|conversation|reply|bit|output|trace)|"
    r"(just )?sent (me )?this\s*([:.!]|$)|"
    r"wrote on \w+|(this|the) (slack )?thread|copying (in|over|the))\b",
    re.I,
)

_FIXTURE = re.compile(
    r"\b(fixtures?|factor(y|ies)|mocks?|mocked|mocking|faker|lorem|ipsum|dummy|fake|placeholder|sample|"
    r"examples?|e\.g\.|seed (data|rows?|file)|test (data|user|users|case|cases|account|tenant|patient|customer)|"
    r"persona|synthetic|made[- ]up)\b",
    re.I,
)

_SENTENCE_END = re.compile(
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bmr\.)(?<!\bms\.)(?<!\bdr\.)(?<!\bst\.)(?<!\bmrs\.)"
    r"(?<=[.!?…])[\"')\]]*\s+|\s+[—–]\s+|\n+|(?<=[.!?])$",
    re.I,
)


def _is_code_like(line: str) -> bool:
    s = line.strip()
    if not s:
        return False
    if _CODE_LINE.match(line) or _TRACE_LINE.match(line) or _LOG_LINE.match(line) or _TABLE_LINE.match(line):
        return True
    if _CSV_LINE.match(s) and not re.search(r"[a-z]{3,} [a-z]{3,}", s):
        return True
    if re.search(r"[\"']\w+[\"']\s*:\s*[\"'\d\[{tfn]", s) or re.match(r"^[{\[]\s*[\"'{\[]", s):
        return True
    symbols = sum(1 for c in s if c in "{}[]();=<>|\\`$")
    return len(s) >= 12 and symbols / len(s) > 0.12


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"\n", text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def _bracketed_chat(lines: list[str]) -> int | None:
    """The first line of a chat copied as "[Name] words" lines, or None: a full name ("[Ana Reis]") with its time, or
    lines of two names one of which is full; not the person's own tags ("[WIP]", "[Backend]", "[Reminder] 9:30")."""
    found = [(i, m) for i, line in enumerate(lines) if (m := _BRACKET_SPEAKER.match(line))]
    names = {m[1] for _, m in found}
    full = any(" " in name for name in names)
    if found and ((len(names) >= 2 and full) or any(m[2] and " " in m[1] for _, m in found)):
        return found[0][0]
    return None


def _own_line_mask(text: str) -> list[tuple[tuple[int, int], bool]]:
    """Each line's span and whether it is the person's own words."""
    lines = _line_spans(text)
    n = len(lines)
    own = [True] * n
    in_fence = False
    in_ruled = False  # between rule lines ("---") that an own line ending in ":" opened
    said_before = ""  # the last non-empty own line so far
    multi_line = sum(1 for a, b in lines if text[a:b].strip()) >= 3
    speakers = [i for i, (a, b) in enumerate(lines) if _SPEAKER_LINE.match(text[a:b])]
    chat_from = speakers[0] if len(speakers) >= 2 else None
    bracketed = _bracketed_chat([text[a:b] for a, b in lines])
    if bracketed is not None:
        chat_from = bracketed if chat_from is None else min(chat_from, bracketed)
    yaml_run = 0
    paste_from: int | None = None
    first = next((i for i, (a, b) in enumerate(lines) if text[a:b].strip()), -1)
    for i, (a, b) in enumerate(lines):
        line = text[a:b]
        if _FENCE.match(line):
            in_fence = not in_fence
            own[i] = False
            continue
        if in_fence:
            own[i] = False
            continue
        if in_ruled or (_RULE_LINE.match(line) and _introduces(said_before)):
            # "his reply:" / "---" / his words / "---": the lines between the rules are pasted
            own[i] = False
            in_ruled = not (in_ruled and _RULE_LINE.match(line))
            continue
        if paste_from is None and (
            i == chat_from
            or _EMAIL_HEADER.match(line)
            or re.match(r"^\s*(\$ |# ?\$ |>>> |traceback \(most recent call last\))", line, re.I)
            or _FORWARD.match(line)
            or _CHAT_HEADER.match(line)
            or _CHAT_NAME_TIME.match(line)
            or _HEADING.match(line)
            or (multi_line and (_SALUTATION.match(line) or _NAME_ONLY_SALUTATION.match(line)))
            or (multi_line and i == first and line.rstrip().endswith(",") and _is_short_clause(line))
            or (i != first and _GREETS_BY_NAME.match(line))
        ):
            paste_from = i
        if paste_from is not None:
            own[i] = False
            continue
        if _QUOTE_LINE.match(line) or _is_code_like(line):
            own[i] = False
        if _YAML_LINE.match(line):
            yaml_run += 1
            if yaml_run >= 2:
                own[i] = own[i - 1] = False
        else:
            yaml_run = 0
        if own[i] and line.strip():
            said_before = line
    # A letter: a sign-off line ("Best," / "Saludos,") or a bare name as the last line. The whole
    # letter is pasted, back to the message start or to an own line introducing it ("pasting his email:").
    texts = [text[a:b] for a, b in lines]
    nonempty = [i for i, t in enumerate(texts) if t.strip()]
    sig: int | None = None
    for i in nonempty:
        following = [texts[j] for j in nonempty if j > i]
        if (
            own[i]
            and multi_line
            and _SIGN_OFF.match(texts[i])
            and len(texts[i].split()) <= 4
            and (not following or len(following[0].split()) <= 3)
        ) or (
            own[i]
            and multi_line
            and 0 < len(following) <= 3
            and _is_short_clause(texts[i])
            and _SIGNATURE_NAME.match(following[0])
        ):
            sig = i
            break
    if sig is None and multi_line and len(nonempty) >= 3 and _SIGNATURE_NAME.match(texts[nonempty[-1]]):
        sig = nonempty[-1]
    if sig is not None:
        start = 0
        for i in range(sig - 1, -1, -1):
            if own[i] and (texts[i].rstrip().endswith(":") or _ANNOUNCE.search(texts[i])):
                start = i + 1
                break
        for j in range(start, n):
            own[j] = False
    return list(zip(lines, own))


def _introduces(line: str) -> bool:
    """Does this own line introduce what follows ("his reply:", "pasting her email")?"""
    return line.rstrip().endswith(":") or bool(_ANNOUNCE.search(line))


def _is_short_clause(line: str) -> bool:
    """A few words ending in a comma or "!": the shape of a letter's greeting or closing in any language."""
    return bool(_SHORT_CLAUSE.match(line)) and len(line.split()) <= _SHORT_WORDS


def _split_sentences(text: str, a: int, b: int) -> list[Sentence]:
    out: list[Sentence] = []
    start = a
    chunk = text[a:b]
    for m in _SENTENCE_END.finditer(chunk):
        end = a + m.start()
        _emit(text, start, end, out)
        start = a + m.end()
    _emit(text, start, b, out)
    return out


def _emit(text: str, start: int, end: int, out: list[Sentence]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start and re.search(r"\w", text[start:end]):
        out.append(Sentence(text[start:end], (start, end)))


# an apology that opens a sentence ("ugh sorry if im slow today, ..."): an aside of its own, not a condition on the rest
_APOLOGY = re.compile(r"^(?:[^\W\d_]+[\s,!.]+){0,2}?sorry\s+if\b[^,;:()\"“”]{0,80}[,;]\s*", re.I)
# an apology that doubts what follows ("sorry if i'm wrong, ...") or speaks of test data stays part of it
_HEDGED = re.compile(r"\b(?:wrong|mistaken|misremember\w*|remember\w*|forg[eo]t\w*)\b|" + _FIXTURE.pattern, re.I)


def own_sentences(text: str) -> list[Sentence]:
    """The person's own sentences in a typed message, with spans; pasted and code blocks dropped, and an opening
    apology ("sorry if i'm slow today,") cut from the words after it."""
    out: list[Sentence] = []
    for (a, b), own in _own_line_mask(text):
        if own:
            out.extend(_split_sentences(text, a, b))
    for i, s in enumerate(out):
        m = _APOLOGY.match(s.text)
        if m and m.end() < len(s.text) and not _HEDGED.search(m.group(0)):
            out[i] = Sentence(s.text[m.end() :], (s.span[0] + m.end(), s.span[1]))
    return [s for s in out if not _is_code_like(s.text)]


def sentences(text: str) -> list[Sentence]:
    """Every sentence of a text, pasted and code lines included, with spans (`own_sentences` keeps only the
    person's own)."""
    out: list[Sentence] = []
    for a, b in _line_spans(text):
        out.extend(_split_sentences(text, a, b))
    return out


def paste_announced(previous_text: str) -> bool:
    """True when the person's previous message announces that the next one is pasted material."""
    tail = previous_text.strip().splitlines()[-1:] if previous_text.strip() else []
    return bool(tail) and bool(_ANNOUNCE.search(tail[0])) and len(tail[0]) < 400


def judge_turn(kind: str, session_kind: str, text: str, *, previous_text: str | None = None) -> Verdict:
    """May this turn yield a personal fact? Only the person's own typed words in a session they ran.

    `previous_text`, when given, is the person's previous message in the same session: if it
    announces a paste ("pasting his email", "here's the thread"), a long or multi-line message that
    follows is taken as the paste.
    """
    if kind != TYPED:
        return Verdict(False, f"turn kind {kind!r} is not the person's own typed words")
    if session_kind != INTERACTIVE:
        return Verdict(False, f"session kind {session_kind!r} is not a session a person ran")
    if not text.strip():
        return Verdict(False, "empty")
    announced = previous_text is not None and paste_announced(previous_text)
    if announced and ("\n" in text.strip() or len(text) > 60):
        return Verdict(False, "pasted material announced by the previous message")
    sentences = own_sentences(text)
    if not sentences:
        return Verdict(False, "code, logs, docs or pasted material only")
    if _FIXTURE.search(text) and re.search(r"\"\w+\"\s*:", text):
        return Verdict(False, "test fixture or sample data")
    if _own_share(text, sentences) < OWN_SHARE:
        return Verdict(True, "typed; pasted or code blocks dropped")
    return Verdict(True, "typed")


# Under this share of a typed message in the person's own sentences, the rest is pasted or code.
OWN_SHARE = 0.6


def _own_share(text: str, sentences: list[Sentence]) -> float:
    body = len(text.strip())
    return sum(s.span[1] - s.span[0] for s in sentences) / body if body else 1.0


def holds_pasted(text: str) -> bool:
    """Whether a typed message is mostly not the person's own sentences: a message, letter or chat from someone
    else pasted in (or code), as `judge_turn` reads it."""
    return _own_share(text, own_sentences(text)) < OWN_SHARE


# ---------------------------------------------------------------------------------------------
# Sentence-level rules.

_QUESTION_START = re.compile(
    r"^\s*(?:(what|what's|whats|where|where's|wheres|who|who's|whos|whom|whose|when|when's|which|why|how)\b|"
    r"(is|are|am|was|were|do|does|did|can|could|should|would|will|shall|have|has|had|isn't|aren't|don't|"
    r"doesn't|didn't|won't|wouldn't)\s+(i|you|we|he|she|it|they|my|your|our|his|her|their|the|there|this|that|"
    r"[^\W\d_]+'s)\b)",
    re.I,
)
_HYPOTHETICAL = re.compile(
    r"\b(if|imagine|imagining|suppose|supposing|hypothetically|assuming|assume|what if|let'?s say|"
    r"say (that )?(i|my|we)|in a world where|would|wouldn't|could|might|maybe|perhaps|someday|one day|wish|"
    r"dream(ing|t|ed)? (of|about|that)|plan(ning)? to|thinking (of|about)|considering|pretend (that|to be|i|you|we|"
    r"my|it's|he's|she's)|role-?play|scenario)\b|^\s*pretend\b",
    re.I,
)
_NEGATION = re.compile(
    r"\b(not|no|never|none|nobody|nor|neither|don't|dont|doesn't|doesnt|didn't|didnt|isn't|isnt|aren't|arent|"
    r"wasn't|wasnt|weren't|haven't|havent|hasn't|hasnt|hadn't|won't|wont|can't|cant|ain't|without|"
    r"anymore|no longer|nie|kein|keine)\b",
    re.I,
)
_JOKE = re.compile(r"\b(jk|j/k|kidding|joking|joke|jokes|lmao|lmfao|rofl)\b|(^|\s)/s\s*$|^\s*(lol|haha\w*)\b", re.I)
_SPEECH = re.compile(
    r"\b(said|says|say|told|tells|tell me|wrote|writes|texted|texts|asked|asks|emailed|messaged|posted|"
    r"replied|replies|mentioned|mentions|according to|quote|quoting|claims|claimed|goes)\b",
    re.I,
)
_PERSONAL_CUE = re.compile(
    r"\b(my|i|i'm|im|i've|we|we're|our|mine|me)\b[^.!?]{0,40}?\b(wife|husband|partner|spouse|fianc[eé]e?|"
    r"girlfriend|boyfriend|son|daughter|kids?|children|child|baby|mom|mum|mother|dad|father|sister|brother|"
    r"nephew|niece|aunt|uncle|cousin|grandma|grandpa|grandmother|grandfather|friend|boss|manager|dog|cat|"
    r"pet|puppy|kitten|live|lives|living|moved|grew up|drive|car|born|married|birthday|allergic|name|named|"
    r"called)\b",
    re.I,
)
_FACT_WORD = re.compile(
    r"\b(wife|husband|partner|spouse|girlfriend|boyfriend|son|daughter|kids?|child|mom|mum|mother|dad|father|"
    r"sister|brother|nephew|niece|dog|cat|pet|live|lives|living|moved|drive|car|married|birthday|allergic|"
    r"name|named|called)\b",
    re.I,
)
_QUOTED = re.compile(r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|‘[^’\n]{1,300}’|(?<![\w])'[^'\n]{1,300}'(?![\w])")
_CLAUSE_SPLIT = re.compile(r"[,;:()—–]|\bbut\b|\band\b|\bthat was\b|\bthat's\b")


def quoted_spans(sentence: str) -> list[tuple[int, int]]:
    """Spans of quoted text inside a sentence: never the person's own facts."""
    return [m.span() for m in _QUOTED.finditer(sentence)]


def clauses(sentence: str) -> list[tuple[int, int]]:
    """Spans of comma/paren/conjunction-delimited clauses of a sentence."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in _CLAUSE_SPLIT.finditer(sentence):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(sentence)))
    return [c for c in out if sentence[c[0] : c[1]].strip()]


def negated_clause(sentence: str, pos: int) -> bool:
    """True when the clause holding character `pos` carries a negation."""
    for a, b in clauses(sentence):
        if a <= pos <= b:
            return bool(_NEGATION.search(sentence[a:b]))
    return False


def judge_sentence(sentence: str) -> Verdict:
    """May this sentence of the person's own words state a personal fact?"""
    s = sentence.strip()
    if not s:
        return Verdict(False, "empty")
    if s.rstrip(" )\"'.!…🙂😄😅").endswith("?") or _QUESTION_START.match(s):
        return Verdict(False, "a question")
    if _JOKE.search(s):
        return Verdict(False, "a joke")
    if _HYPOTHETICAL.search(s):
        return Verdict(False, "a hypothetical")
    if _FIXTURE.search(s):
        return Verdict(False, "test fixture or sample text")
    for a, b in quoted_spans(s):
        if re.search(r"\b(my|i|i'm|we|our|me)\b", s[a:b], re.I):
            return Verdict(False, "a quote of someone else's words")
    m = _SPEECH.search(s)
    if m and not re.search(r"\b(i|we)\s*$", s[: m.start()], re.I) and _PERSONAL_CUE.search(s[m.end() :]):
        return Verdict(False, "reported speech of someone else")
    for a, b in clauses(s):
        part = s[a:b]
        if _NEGATION.search(part) and _FACT_WORD.search(part):
            return Verdict(False, "a negation")
    return Verdict(True, "own statement")


# ---------------------------------------------------------------------------------------------
# Confirmation of an assistant's guess.

_YES = re.compile(
    r"^\s*(yes|yep|yeah|yup|ya|yea|correct|right|exactly|that's right|thats right|that's it|indeed|true|"
    r"tak|ja|oui|sí|si)\b",
    re.I,
)
_CORRECTION = re.compile(
    r"\b(no|nope|nah|not|wrong|actually|isn't|isnt|aren't|wasn't|incorrect|rather|instead|but)\b",
    re.I,
)


def confirmed_guess(assistant_text: str, reply: str) -> list[Sentence]:
    """The sentences of the assistant's guess that the person's reply confirms; [] when not confirmed.

    A reply confirms when it opens with a yes ("yes, maria", "yep") and carries no correction
    ("no, she's my sister", "yes but..."). A bare yes confirms only an assistant turn that holds a
    single question or guess, so it is unambiguous what was confirmed. If the reply names
    something ("yes, maria"), only the assistant's sentences that mention it are returned. The
    caller reads facts from these sentences as the person's own words.
    """
    r = reply.strip()
    yes = _YES.match(r)
    if yes is None or _CORRECTION.search(r[yes.end() :]):
        return []
    candidates = _split_sentences(assistant_text, 0, len(assistant_text))
    guesses = [s for s in candidates if re.search(r"\b(your|you're|you)\b", s.text, re.I)]
    rest = r[yes.end() :].strip(" ,.!-—")
    words = [w for w in re.findall(r"[^\W\d_][\w'-]+", rest) if w.lower() not in _FILLER]
    if words:
        return [
            Sentence(_as_statement(g.text), g.span)
            for g in guesses
            if all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", g.text, re.I) for w in words)
        ]
    if len(guesses) == 1:
        return [Sentence(_as_statement(guesses[0].text), guesses[0].span)]
    return []


def _words(s: str) -> frozenset[str]:
    return frozenset(s.split())


_FILLER = _words(
    "that thats that's it its it's is right correct exactly thanks thx ty sure of course lol haha ok okay "
    "she he they the one yes yep yeah yup indeed true well spotted good guess"
)


def _as_statement(guess: str) -> str:
    """Turn "Is your wife's name Maria?" into "my wife's name is Maria." for the fact reader."""
    g = guess.strip().rstrip("?").strip()
    g = re.sub(
        r"^(so|and|just to check|to confirm|i think|i believe|i guess|presumably|sounds like)[, ]+", "", g, flags=re.I
    )
    patterns = (
        (r"^(?:is|was)\s+(your\s+[\w'’ ]+?(?:'s|’s)\s+name)\s+(.+)$", r"\1 is \2"),
        (r"^(?:is|was)\s+(your\s+[\w'’ ]+?)\s+((?:called|named)\s+.+)$", r"\1 is \2"),
        (r"^(?:is|was)\s+(.+?)\s+(your\s+.+)$", r"\1 is \2"),
    )
    for pat, repl in patterns:
        if re.match(pat, g, re.I):
            g = re.sub(pat, repl, g, flags=re.I)
            break
    g = re.sub(r"\byour\b", "my", g, flags=re.I)
    g = re.sub(r"\byou're\b", "i'm", g, flags=re.I)
    g = re.sub(r"\byou\b", "i", g, flags=re.I)
    return g + "."

"""Who said, asked or did what, as the person's own typed words report it ("yusra reports login timeouts").

Guarantees:
- `attributions` reads only `own_sentences` of a typed message (pasted and code blocks dropped),
  never a question, a hypothetical or a joke, nor a negated report ("bruno never asked ...");
- a candidate's subject is a name written before a reporting or doing verb, in lowercase, never a
  common word, a pronoun, a kin word or a group ("support", "the team"); its relation is "said";
  its object is the verbatim span from the verb to the end of the sentence, and its quote is that
  sentence (with the sentence before it when the object opens with a pronoun: "ran it");
- no rule names a person, project or phrase of any evaluation world. Pure: no I/O.
"""

from __future__ import annotations

import re

from .phrases import _lower, _mask
from .relations import KIN, is_name_token, is_stop, words
from .rules import FactCandidate
from .trust import judge_sentence, negated_clause, own_sentences

__all__ = ["ATTRIBUTION_CONFIDENCE", "VERB_FAMILY", "attributions", "verb_family"]

ATTRIBUTION_CONFIDENCE = 0.6
POSSESSION_CONFIDENCE = 0.55  # "oskar's notebook": whose it is, not who said it
MAX_OBJECT_WORDS = 30

# A reporting or doing verb (any tense a person types) and the family it belongs to.
_FAMILIES = {
    "ask": "ask asked asks asking request requested requests requesting want wanted wants wanting",
    "suggest": "suggest suggested suggests suggesting propose proposed proposes proposing recommend recommended "
    "recommends recommending push pushed pushes pushing think thought thinks thinking argue argued argues arguing "
    "insist insisted insists insisting prefer preferred prefers pitched pitch pitches advocated advocates",
    "report": "report reported reports reporting notice noticed notices noticing flag flagged flags flagging "
    "complain complained complains complaining mention mentioned mentions spotted spot spots found find finds",
    "say": "say said says saying told tell tells",
    "ran": "run ran runs running",
    "wrote": "write wrote writes writing written",
    "built": "build built builds building",
    "talk": "talked spoke chatted",
}
VERB_FAMILY: dict[str, str] = {w: fam for fam, ws in _FAMILIES.items() for w in ws.split()}
_VERB_ALT = "|".join(sorted(VERB_FAMILY, key=len, reverse=True))

# Words that sit before a verb like a name but name a group or a thing, never one person.
_NOT_PEOPLE = words(
    "staff support finance customers customer users user people team teams everybody everyone somebody someone "
    "guys folks ops legal product platform management leadership sales marketing security qa devs engineers "
    "eng backend frontend client clients vendor auditors accountants board company it he she they we i you "
    "test tests ci build job script code model data report dashboard logs log monitoring alert alerts gotta gonna "
    "wanna"
)
_LEAD = r"(?:^|[,;:—–(]\s*|\s-\s|\b(?:and|but|so|also|then|because|plus|apparently|anyway)\s+)"
_AUX_WORDS = r"is|was|has|had|been|kept|keeps|keep|really|also|again|just|first|originally|even|finally|now|still|both|"
_AUX_WORDS += r"already|literally|always|actually"
_AUX = rf"(?:(?:{_AUX_WORDS})\s+)*"
_ATTRIBUTED = re.compile(
    rf"{_LEAD}(?P<name>[^\W\d_][\w'’-]*(?:\s+(?!(?:{_AUX_WORDS})\b)[^\W\d_][\w'’-]*)?)\s+{_AUX}"
    rf"(?P<verb>{_VERB_ALT})\b(?!['’])"
)
# The bare forms are nouns as often as verbs after a noun ("dry run", "holiday flag", "weekly report"):
# a report is read only from a past or third-person form, or an -ing form after "is"/"was"/"kept".
_BARE = words(
    "ask request want push think argue insist prefer pitch report notice flag complain mention spot find say tell "
    "run write build suggest propose recommend"
)
_PROGRESSIVE = re.compile(r"\b(?:is|was|been|kept|keeps|keep)\s+(?:\w+\s+)?$")
_CONTRACTED = re.compile(r"['’](?:ll|d|re|ve|m)$")
_NEGATED = re.compile(r"\b(?:not|never|no longer|didn'?t|doesn'?t|don'?t|hasn'?t|haven'?t|wasn'?t|isn'?t)\b")
HEARD_SENTENCES = 2  # the sentences after "talked to X" that say what was heard
_TALKED = re.compile(
    rf"{_LEAD}(?:i\s+|we\s+)?(?:just\s+|finally\s+)?(?P<verb>talked|spoke|chatted)\s+(?:to|with)\s+"
    r"(?P<name>[^\W\d_][\w'’-]*(?:\s+(?!(?:on|at|in|about|today|yesterday|this|and|for|over)\b)[^\W\d_][\w'’-]*)?)"
    r"(?=\s+(?:on|at|in|about|today|yesterday|this|and|for|over)\b|\s*[,.;:!—–-]|\s*$)"
)
_PRONOUN_OBJECT = re.compile(r"^\S+\s+(?:it|that|this|them|those|these)\b")


# Words that follow a first name like a surname but say how or when ("ewa apparently said"): never a surname.
_NOT_SURNAME = words(
    "just also still really actually never always finally again even only already yesterday today tonight "
    "tomorrow then now once later earlier recently lately maybe perhaps probably apparently basically obviously "
    "honestly literally clearly seriously suddenly quickly quietly totally too though"
)


def _reporter(name: str, original: str, at_start: bool) -> str:
    """The reporter's name with its second word kept only when it looks like a surname: not an adverb or
    filler ("just", "-ly"), and not lowercase after a first name the person capitalised mid-sentence."""
    toks, orig = name.split(), original.split()
    if len(toks) != 2 or len(orig) != 2:
        return name
    second, capital = toks[1], orig[1][:1].isupper()
    if second in _NOT_SURNAME or (second.endswith("ly") and not capital):
        return toks[0]
    if orig[0][:1].isupper() and not at_start and not capital:
        return toks[0]
    return name


def verb_family(word: str) -> str | None:
    """The family of a reporting or doing verb ("proposed" -> "suggest"), or None."""
    return VERB_FAMILY.get(word.lower())


def _is_person_name(name: str) -> bool:
    toks = name.split()
    return all(is_name_token(t) and t.lower() not in _NOT_PEOPLE and not _CONTRACTED.search(t) for t in toks)


def _verb_form_ok(low: str, m: re.Match[str]) -> bool:
    verb = m.group("verb")
    if verb in _BARE:
        return False
    if verb.endswith("ing"):
        return bool(_PROGRESSIVE.search(low[m.end("name") : m.start("verb")]))
    return True


_REPORT_OK = ("own statement", "reported speech of someone else")


def _reportable(sentence: str, verb_at: int) -> bool:
    """Not a question, joke or sample text; the report itself may hold an "if" ("asked if we could ..."),
    but what leads up to the verb may not ("if bruno asked ...")."""
    whole = judge_sentence(sentence)
    lead = judge_sentence(sentence[:verb_at]) if sentence[:verb_at].strip() else whole
    return whole.reason in (*_REPORT_OK, "a hypothetical", "a negation") and lead.reason in _REPORT_OK


def attributions(text: str) -> list[FactCandidate]:
    """("<name>", "said", "<verb ... end of sentence>") for each report in the person's own sentences."""
    out: list[FactCandidate] = []
    seen: set[tuple[str, str]] = set()
    previous: tuple[int, int] | None = None
    for s in own_sentences(text):
        sentence, before = s.text, previous
        previous = s.span
        low = _mask(_lower(sentence))
        for m in _ATTRIBUTED.finditer(low):
            a, b = m.span("name")
            name = _reporter(m.group("name").strip(), sentence[a:b], not sentence[:a].strip())
            if not _is_person_name(name) or not _verb_form_ok(low, m) or not _reportable(sentence, m.start("verb")):
                continue
            # "lena never asked": the report may not be negated; what was said may ("said it's no problem")
            if _NEGATED.search(low[m.start("name") : m.start("verb")]):
                continue
            start = m.start("verb")
            tokens = sentence[start:].split("\n")[0].rstrip(" .!?…;:,").split(" ")
            if len(tokens) < 2:
                continue
            obj = " ".join(tokens[:MAX_OBJECT_WORDS]).rstrip(" .!?…;:,")
            quote, span = sentence, s.span
            # "tobias marr ran it.": the sentence before says what "it" is
            if _PRONOUN_OBJECT.match(low[start:]) and before is not None and 0 <= s.span[0] - before[1] <= 3:
                span = (before[0], s.span[1])
                quote = text[span[0] : span[1]]
            for who in (name, *_co_subjects(low[: m.start("name")])):
                key = (who, obj.lower())
                if key in seen or obj not in quote:
                    continue
                seen.add(key)
                out.append(FactCandidate(who, "said", obj, ATTRIBUTION_CONFIDENCE, quote, span))
    out.extend(c for c in _conversations(text) if (c.subject, c.object.lower()) not in seen)
    out.extend(c for c in _possessions(text) if (c.subject, c.object.lower()) not in seen)
    return out


_POSSESSIVE = re.compile(r"(?<![\w'’-])(?P<name>[^\W\d_][\w-]*)(?P<verb>['’]s)\s+(?P<thing>[^\W\d_][\w-]*)")


def _possessions(text: str) -> list[FactCandidate]:
    """("grandpa", "said", "grandpa's ankle operation is tomorrow morning"): whose thing or event the person names,
    for "who had / ran / wrote ..." and "whose ..." (the object opens with the possessive)."""
    out: list[FactCandidate] = []
    for s in own_sentences(text):
        low = _mask(_lower(s.text))
        for m in _POSSESSIVE.finditer(low):
            name = m.group("name").strip()
            kin = name in KIN
            if not (kin or _is_person_name(name)) or not _reportable(s.text, m.start("name")):
                continue
            if is_stop(m.group("thing")) and m.group("thing") not in ("new", "old"):
                continue  # "linnea's on nights" is "linnea is", not a possession
            obj = s.text[m.start("name") :].split("\n")[0].rstrip(" .!?…;:,")
            tokens = obj.split(" ")
            obj = " ".join(tokens[:MAX_OBJECT_WORDS]).rstrip(" .!?…;:,")
            if len(tokens) < 2 or obj not in s.text:
                continue
            out.append(FactCandidate(name, "said", obj, POSSESSION_CONFIDENCE, s.text, s.span))
    return out


_CO_SUBJECT = re.compile(rf"{_LEAD}(?P<name>[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*)?)\s*(?:,\s*|\s+and\s+|\s*&\s*)$")


def _co_subjects(before: str) -> list[str]:
    """ "noor haddad and bruno both asked": the name joined by "and" before the reporter's name."""
    m = _CO_SUBJECT.search(before)
    return [m.group("name").strip()] if m and _is_person_name(m.group("name").strip()) else []


def _conversations(text: str) -> list[FactCandidate]:
    """("ewa lis", "said", "talked to ewa lis on the phone today"): what the person heard in a conversation
    is the next sentences of the same message, so they are the quote (family "talk", for "who said")."""
    out: list[FactCandidate] = []
    sentences = own_sentences(text)
    for i, s in enumerate(sentences):
        low = _mask(_lower(s.text))
        for m in _TALKED.finditer(low):
            name = m.group("name").strip()
            if not _is_person_name(name) or not _reportable(s.text, m.start("verb")):
                continue
            if negated_clause(low, m.start("verb")):
                continue
            obj = s.text[m.start("verb") :].split("\n")[0].rstrip(" .!?…;:,")
            end = s.span[1]
            for nxt in sentences[i + 1 : i + 1 + HEARD_SENTENCES]:
                if nxt.span[0] - end > 3:
                    break
                end = nxt.span[1]
            out.append(
                FactCandidate(name, "said", obj, ATTRIBUTION_CONFIDENCE, text[s.span[0] : end], (s.span[0], end))
            )
    return out

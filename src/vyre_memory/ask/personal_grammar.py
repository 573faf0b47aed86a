"""Personal questions read by a small grammar: the words of a question become a fact lookup.

    question  := filler* frame filler*
    possessor := ("my" | "our" | "the user's" | NAME "'s") chain       ("my wife's brother", "wren's")
    chain     := MOD* HEAD ("'s" MOD* HEAD)*  |  HEAD "of" possessor    ("the teacher of my son")
    HEAD      := a relative or role (KIN; synonyms normalised: mum -> mother; spouse -> wife, husband or
                 partner), a pet word, or an attribute noun (name, birthday, school, car, address, ...)
    attribute := from the chain's attribute nouns and the cue words around it (live, work, attend,
                 drive, born, how old, called, go by, ...): one attribute per question

Guarantees:
- `parse_personal_question` returns a `PersonalQuery` only for a question about the person's own
  life (family, home, car, pets, people they know, routines, preferences); every other question,
  work questions included, gives None. Every word of a question must be explained (a function word,
  a cue word, the subject): a question with any other word ("where did my brother deploy it") is not
  a personal question. A question about someone other than the one the facts name ("my ex-wife",
  "my late father", "my eldest") or about what memory never keeps (a surname, a phone number,
  where someone was born) gives None.
- No word list names a person, place or phrase of any evaluation world.
Pure functions: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..read.relations import (
    CATEGORY_ALIASES,
    HOLIDAYS,
    KIN,
    PETS,
    RELATIONS,
    display,
    is_name_token,
    is_stop,
    words,
)

__all__ = ["PersonalQuery", "parse_personal_question", "relation_phrase"]

_PHRASE = {"boss": "manager", "family_friend": "family friend", "fiance": "fiancé(e)", "neighbour": "neighbour"}


@dataclass(frozen=True)
class PersonalQuery:
    """A personal question as a lookup.

    relation: the relation to read (a stored relation, or a group of them: "spouse" is a wife,
    husband or partner); subject: "user", a lowercase name, or a thing/activity; via: relations to
    follow from the subject first ("where does my sister live": via=("sister",), relation="lives_in");
    reverse: a lowercase name to explain ("who is wren"); kind: a pet kind ("dog"), "breed", "address"
    (a street address, never a city), a tool category ("python package manager") or a role
    ("role:data lead") that the value must fit; template: how to phrase the answer, with {value}
    (and {name}, {relation}).
    """

    relation: str
    subject: str = "user"
    template: str = "{value}"
    via: tuple[str, ...] = ()
    reverse: str | None = None
    kind: str | None = None


_CONTRACTIONS: dict[str, tuple[str, ...]] = {
    "what's": ("what", "is"),
    "whats": ("what", "is"),
    "who's": ("who", "is"),
    "whos": ("who", "is"),
    "where's": ("where", "is"),
    "wheres": ("where", "is"),
    "when's": ("when", "is"),
    "whens": ("when", "is"),
    "how's": ("how", "is"),
    "what're": ("what", "are"),
    "who're": ("who", "are"),
    "where're": ("where", "are"),
    "what'd": ("what", "did"),
    "where'd": ("where", "did"),
    "i'm": ("i", "am"),
    "we're": ("we", "are"),
    "don't": ("do", "not"),
    "dont": ("do", "not"),
    "doesn't": ("does", "not"),
    "doesnt": ("does", "not"),
    "didn't": ("did", "not"),
    "didnt": ("did", "not"),
    "isn't": ("is", "not"),
    "isnt": ("is", "not"),
    "wasn't": ("was", "not"),
    "aren't": ("are", "not"),
    "can't": ("can", "not"),
    "cant": ("can", "not"),
}


def _phrases(text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p.split()) for p in text.split(",") if p.strip())


# Said around a question, never part of it: dropped wherever they stand (longest first).
_FILLER_TEXT = (
    "i can not remember, i can not recall, i forgot, i forget, remind me, can you remind me, could you remind me, "
    "do you know, do you remember, can you tell me, could you tell me, tell me, quick question, quick one, "
    "by the way, btw, again, now, currently, nowadays, these days, at the moment, right now, please, pls, "
    "exactly, actually, still, just, so, hey, hi, hello, ok, okay, um, uh, anyway, real quick, at present, "
    "today, originally"
)
_FILLERS = tuple(sorted(_phrases(_FILLER_TEXT), key=len, reverse=True))

_QWORDS = words("what which who where when how")
_AUX = words("is are was were am be been does do did has have had will would can could")
_LIGHT = words("the a an to in at for of on up this last next year month week day date kind type sort exactly")
_USER = words("i we me us")
_POSSESSIVES = words("my our")
# Words that make a question about work, never a personal one.
_WORK = words(
    "deploy deployed deploys deployment repo repos service services server servers api endpoint endpoints prod "
    "production staging release released releases ticket tickets pr prs branch commit commits migration bug bugs "
    "incident outage pipeline build builds test tests database db cluster project projects sprint standup "
    "customer customers invoice invoices feature features code script file files module library package team "
    "meeting meetings dashboard query queries schema table tables jira slack github"
)
# Before a head: kept ("little", "older") or making the question about someone else ("ex", "late").
_MODS = words("little big older younger elder baby twin dear best new current")
_NOT_SAME = words("ex ex- former late old previous future step half first second third other")
_SUPERLATIVE = words("eldest oldest youngest middle")

# Relatives and roles as the question names them: KIN, plus groups the facts store as several relations.
_GROUP_WORDS: dict[str, str] = {
    "spouse": "spouse",
    "partner": "spouse",
    "other half": "spouse",
    "better half": "spouse",
    "significant other": "spouse",
    "parents": "parent",
    "parent": "parent",
    "folks": "parent",
    "siblings": "sibling",
    "sibling": "sibling",
    "grandparents": "grandparent",
    "kids": "child",
    "children": "child",
}
_ROLES = {"teacher": "teacher"}
_HOUSEHOLD = words("kid kids children baby")  # "the kids", "the baby": the person's own

# Attribute nouns (a head of the chain, or a word of the question).
_ATTR_NOUNS: dict[tuple[str, ...], str] = {
    **{(w,): "name" for w in ("name", "names")},
    ("first", "name"): "name",
    **{(w,): "birthday" for w in ("birthday", "birthdays", "bday", "b-day", "birthdate")},
    ("date", "of", "birth"): "birthday",
    ("birth", "date"): "birthday",
    ("age",): "age",
    **{
        (w,): "school"
        for w in ("school", "preschool", "pre-school", "daycare", "nursery", "kindergarten", "college", "university")
    },
    ("grade",): "grade",
    **{(w,): "job" for w in ("job", "occupation", "profession", "career", "role", "title", "position")},
    ("job", "title"): "job",
    ("for", "a", "living"): "job",
    **{(w,): "employer" for w in ("employer", "company", "firm")},
    **{(w,): "car" for w in ("car", "vehicle")},
    **{(w,): "laptop" for w in ("laptop", "computer")},
    ("address",): "address",
    ("home", "address"): "address",
    ("street", "address"): "address",
    ("hometown",): "grew_up_in",
    ("home", "town"): "grew_up_in",
    **{(w,): "city" for w in ("city", "town")},
    **{(w,): "area" for w in ("neighborhood", "neighbourhood", "area", "suburb", "district")},
    **{(w,): "allergy" for w in ("allergy", "allergies")},
    **{(w,): "hobby" for w in ("hobby", "hobbies")},
    ("anniversary",): "anniversary",
    ("breed",): "breed",
    **{(w,): "pet" for w in ("pet", "pets")},
    **{(w,): "animal" for w in ("animal", "species")},
}
# Attributes memory never holds: such a question is not answered from facts.
_NEVER = _phrases(
    "last name, surname, maiden name, middle name, full name, phone number, number, email, email address, "
    "salary, password, blood type, size, weight, height, favourite, favorite, work address, office address"
)
# Cue words: verbs and adjectives that ask for an attribute.
_CUES: dict[str, str] = {
    **dict.fromkeys(("called", "named", "call"), "name"),
    **dict.fromkeys(("live", "lives", "living", "lived", "reside", "resides", "based", "move", "moved"), "live"),
    **dict.fromkeys(("grow", "grew", "raised"), "grew_up_in"),
    **dict.fromkeys(("work", "works", "working", "employed"), "work"),
    **dict.fromkeys(("attend", "attends", "attending"), "school"),
    **dict.fromkeys(("drive", "drives", "driving"), "car"),
    "old": "age",
    "born": "birthday",
    "allergic": "allergy",
    "married": "spouse",
    **dict.fromkeys(("teach", "teaches"), "teacher"),
}
# Light words a frame may use ("go by", "go to school", "do for a living", "turn 40 this year").
_FRAME_WORDS = words(
    "go goes going by from do doing for living with have has own owns got use uses using turn turned turning get "
    "gets related know knew"
)


@dataclass(frozen=True)
class _Head:
    kind: str  # "kin", "pet", "attr", "thing"
    value: str  # relation, pet kind, attribute, or the thing's word
    word: str  # the word as asked
    plural: bool = False
    one: bool = False  # "my eldest": one of several, which the facts cannot tell


@dataclass
class _Parsed:
    tokens: list[str]
    owner: str | None = None  # "user" or a lowercase name
    heads: list[_Head] = field(default_factory=list)
    used: set[int] = field(default_factory=set)  # token positions explained so far


def _tokens(question: str) -> list[str]:
    s = question.lower().replace("’", "'").replace("‘", "'").replace("`", "'")
    s = re.sub(r"[^\w\s'-]", " ", s)
    out: list[str] = []
    for raw in s.split():
        raw = raw.strip("-")
        if raw in _CONTRACTIONS:
            out.extend(_CONTRACTIONS[raw])
        elif raw.endswith("'s") and len(raw) > 2:
            out.extend((raw[:-2], "'s"))
        elif raw.endswith("s'") and len(raw) > 2:
            out.extend((raw[:-1], "'s"))
        elif raw.strip("'"):
            out.append(raw.strip("'"))
    return _compounds(_drop_fillers(out))


# Two words the question side reads as one relative or role ("team lead" is a boss).
_COMPOUND = {("team", "lead"): "lead", ("team", "leader"): "lead", ("line", "manager"): "manager"}


def _compounds(tokens: list[str]) -> list[str]:
    out: list[str] = []
    for k, tok in enumerate(tokens):
        if out and (out[-1], tok) in _COMPOUND:
            out[-1] = _COMPOUND[(out[-1], tok)]
        elif out and out[-1] == "the" and tok == "user" and tokens[k + 1 : k + 2] != ["'s"]:
            out[-1] = "i"  # "where does the user live": the person, asked of in the third person
        else:
            out.append(tok)
    return out


def _drop_fillers(tokens: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for f in _FILLERS:
            if tuple(tokens[i : i + len(f)]) == f:
                i += len(f)
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


def _singular(word: str) -> str:
    if word in KIN or word in PETS or word in _GROUP_WORDS or word in _ROLES:
        return word
    for suffix, repl in (("ies", "y"), ("ren", ""), ("s", "")):
        if word.endswith(suffix) and (word[: -len(suffix)] + repl) in (KIN.keys() | PETS.keys() | _ROLES.keys()):
            return word[: -len(suffix)] + repl
    return word


def _head_at(tokens: list[str], i: int) -> tuple[_Head, int] | None:
    """The head noun (with its modifiers) at `i` and the position after it."""
    one = False
    while i + 1 < len(tokens) and (tokens[i] in _MODS or tokens[i] in _SUPERLATIVE or tokens[i] in _NOT_SAME):
        nxt = tokens[i + 1]
        if tokens[i] in _MODS and (nxt == "'s" or (_known_word(nxt) and not _is_noun(nxt))):
            break  # "the baby's name", "does the baby attend": the word is the head itself
        if tokens[i] in _NOT_SAME:
            return None
        one = one or tokens[i] in _SUPERLATIVE
        i += 1
    if i >= len(tokens) or tokens[i] in _SUPERLATIVE:
        return None  # "my eldest": one of several, which the facts cannot tell
    for n in (3, 2, 1):
        phrase = tuple(tokens[i : i + n])
        if len(phrase) == n and phrase in _NEVER:
            return None
        if len(phrase) == n and phrase in _ATTR_NOUNS:
            return _Head("attr", _ATTR_NOUNS[phrase], " ".join(phrase)), i + n
        joined = " ".join(phrase)
        if len(phrase) == n and joined in _GROUP_WORDS:
            plural = joined.endswith("s") or joined in ("children", "folks")
            return _Head("kin", _GROUP_WORDS[joined], joined, plural, one), i + n
    word = tokens[i]
    if word.startswith("ex-") or word.startswith("step") or "-in-law" in word:
        return None
    base = _singular(word)
    plural = base != word or word in ("kids", "children")
    if base in PETS:
        return _Head("pet", PETS[base], word, plural, one), i + 1
    if base in _ROLES:
        return _Head("kin", _ROLES[base], word, plural, one), i + 1
    if base in KIN:
        rel = KIN[base]
        return _Head("kin", "spouse" if rel == "partner" and base == "partner" else rel, word, plural, one), i + 1
    if _plain(word):
        j = i + 1
        while j < len(tokens) and _plain(tokens[j]) and not _known_word(tokens[j]) and not _is_noun(tokens[j]):
            j += 1  # "my sourdough starter": the last word names the thing
        return _Head("thing", tokens[j - 1], " ".join(tokens[i:j])), j
    return None


def _plain(word: str) -> bool:
    return bool(re.fullmatch(r"[^\W\d_][\w-]*", word)) and not _known_word(word) and not is_stop(word)


def _is_noun(word: str) -> bool:
    return (word,) in _ATTR_NOUNS or _singular(word) in KIN or _singular(word) in PETS or word in _ROLES


def _chain_at(p: _Parsed, i: int) -> int:
    """Read a chain of heads from `i` ("wife 's brother 's name"); returns the position after it."""
    t = p.tokens
    while True:
        got = _head_at(t, i)
        if got is None:
            return i
        head, j = got
        p.heads.append(head)
        p.used.update(range(i, j))
        i = j
        if i < len(t) and t[i] == "'s":
            p.used.add(i)
            i += 1
            continue
        if head.kind in ("kin", "pet") and i < len(t) and _is_noun(t[i]):
            continue  # "my wifes name", "my daughter teacher": a possessive without its apostrophe
        return i


def _possessor(p: _Parsed) -> bool:
    """Find the possessor and its chain: "my ...", "our ...", "the user's ...", "NAME's ...", "the dog's ..."."""
    t = p.tokens
    for i, tok in enumerate(t):
        if tok in _POSSESSIVES:
            p.owner, start = "user", i + 1
        elif i == 0 and len(t) > 1 and t[1] == "'s" and _singular(tok) in KIN:
            p.owner, start = "user", 0  # "wife's name?": the person's own, said short
        elif tok == "user" and i + 1 < len(t) and t[i + 1] == "'s":
            p.owner, start = "user", i + 2
            p.used.update(k for k in (i - 1,) if k >= 0 and t[k] == "the")
        elif tok == "the" and i + 1 < len(t) and (_singular(t[i + 1]) in PETS or t[i + 1] in _HOUSEHOLD):
            p.owner, start = "user", i + 1  # "the dog", "the kids": the household's
        elif (
            i + 1 < len(t)
            and t[i + 1] == "'s"
            and is_name_token(tok)
            and _singular(tok) not in KIN
            and _singular(tok) not in PETS
            and (tok,) not in _ATTR_NOUNS
        ):
            p.owner, start = tok, i + 2
            if i > 0 and is_name_token(t[i - 1]) and t[i - 1] not in _CUES and t[i - 1] not in _FRAME_WORDS:
                p.owner = f"{t[i - 1]} {tok}"  # "dani reyes's"
                p.used.add(i - 1)
        else:
            continue
        p.used.update(range(i, start))
        _chain_at(p, start)
        _of_chain(p, i)
        return True
    return False


def _of_chain(p: _Parsed, at: int) -> None:
    """ "the name of my daughter's teacher", "the teacher of my son": heads before "of" come last."""
    t = p.tokens
    j = at - 1
    if j >= 1 and t[j] == "of":
        k = j - 1
        got = None
        for n in (3, 2, 1):
            if k - n + 1 >= 0:
                got = _head_at(t, k - n + 1)
                if got and got[1] == k + 1:
                    p.heads.append(got[0])
                    p.used.update(range(k - n + 1, j + 1))
                    if k - n >= 0 and t[k - n] == "the":
                        p.used.add(k - n)
                    return


def _name_subject(p: _Parsed) -> str | None:
    """A person or pet named in a subject slot ("where does dani live", "how old is rex"): the one word or two
    the question does not otherwise explain."""
    t = p.tokens
    spans: list[list[int]] = []
    for i, tok in enumerate(t):
        if i in p.used or _known_word(tok) or not is_name_token(tok):
            continue
        if spans and spans[-1][-1] == i - 1:
            spans[-1].append(i)
        else:
            spans.append([i])
    if len(spans) != 1 or len(spans[0]) > 2:
        return None
    first = spans[0][0]
    if first > 0 and t[first - 1] in ("the", "a", "an", "this", "that", "your", "his", "her", "their"):
        return None
    p.used.update(spans[0])
    return " ".join(t[i] for i in spans[0])


def _known_word(tok: str) -> bool:
    return (
        tok in _QWORDS
        or tok in _AUX
        or tok in _LIGHT
        or tok in _USER
        or tok in _CUES
        or tok in _FRAME_WORDS
        or (tok,) in _ATTR_NOUNS
        or tok in ("'s", "not", "married", "me")
    )


def _attributes(p: _Parsed) -> list[tuple[str, int]]:
    """(attribute, position) of every attribute noun or cue word outside the chain."""
    t = p.tokens
    out: list[tuple[str, int]] = []
    i = 0
    while i < len(t):
        if i in p.used:
            i += 1
            continue
        if t[i : i + 2] == ["part", "of"] and i + 2 < len(t):
            j = i + 3 if t[i + 2] == "the" else i + 2
            if j < len(t) and (is_name_token(t[j]) or t[j] in ("town", "city")):
                out.append(("area", i))  # "which part of town", "what part of the city"
                p.used.update(range(i, j + 1))
                i = j + 1
                continue
        for n in (3, 2, 1):
            phrase = tuple(t[i : i + n])
            if len(phrase) == n and phrase in _NEVER:
                out.append(("never", i))
                i += n
                break
            if len(phrase) == n and phrase in _ATTR_NOUNS:
                out.append((_ATTR_NOUNS[phrase], i))
                p.used.update(range(i, i + n))
                i += n
                break
        else:
            if t[i] in _CUES:
                out.append((_CUES[t[i]], i))
                p.used.add(i)
            elif _singular(t[i]) in PETS:
                out.append(("pet:" + PETS[_singular(t[i])], i))
                p.used.add(i)
            i += 1
    return out


def parse_personal_question(question: str) -> PersonalQuery | None:
    """The lookup a personal question asks for, or None when it is not a personal question."""
    t = _tokens(question)
    if not t or "not" in t or t[0] in _AUX:
        return None  # a negation or a yes/no question is not a lookup
    framed = _framed(t)
    if framed is not None:
        return framed
    if not any(w in _WORK for w in t):
        parsed = _grammar(t)
        if parsed is not None:
            return parsed
    return _role(t)


def _grammar(t: list[str]) -> PersonalQuery | None:
    p = _Parsed(t)
    found = _possessor(p)
    attrs = _attributes(p)
    if any(a == "never" for a, _ in attrs):
        return None
    if not found:
        name = _name_subject(p)
        if name is not None and not is_stop(name.split()[0]):
            p.owner = name
            if any(w in _USER for w in t) and not ("know" in t or "related" in t or _has(t, "to", "me")):
                return None  # "when did i meet dani": not a question about dani's facts
        elif any(w in _USER for w in t):
            p.owner = "user"
        else:
            return None
    return _resolve(p, attrs)


def _resolve(p: _Parsed, attrs: list[tuple[str, int]]) -> PersonalQuery | None:
    t = p.tokens
    owner = p.owner or "user"
    heads = list(p.heads)
    if any(h.kind == "thing" for h in heads):
        return _named_thing(p, heads, attrs)
    kin = [h for h in heads if h.kind in ("kin", "pet")]
    attr = [h.value for h in heads if h.kind == "attr"] + [a for a, _ in attrs]
    if heads and heads[-1].kind in ("kin", "pet") and any(h.kind == "attr" for h in heads):
        return None  # "my car's owner": an attribute inside the chain
    chained = {h.value for h in heads if h.kind == "attr"}
    wanted = _one_attribute(t, attr, chained, bool(kin), owner != "user")
    if wanted is None:
        return None
    if not _all_explained(p, wanted) or not _asks_for(t, wanted) or _asks_the_past(t, wanted):
        return None
    if wanted == "reverse":
        return PersonalQuery("", subject="", reverse=owner, template="{name} is {value}.") if owner != "user" else None
    if any(h.one for h in kin):
        return None  # "my eldest son": the facts cannot tell which
    return _query(owner, kin, wanted, any(a.startswith("pet:") for a, _ in attrs))


def _one_attribute(t: list[str], attr: list[str], chained: set[str], kin: bool, named: bool) -> str | None:
    """The one attribute asked for, from attribute nouns and cue words; None when none or several."""
    have = set(attr)
    if "name" in have and len(have) > 1:
        if not chained & (have - {"name"}):
            return None  # "what is my son called at school": a name, but not the school's
        have.discard("name")  # "what's my son's school called": the school is its name
    if "work" in have and have - {"work", "job", "employer"}:
        have.discard("work")  # "what laptop do i use for work": work says which laptop
    if "work" in have:
        have.discard("work")
        if _main_do(t) or "job" in have:  # "what does my wife do for work", "what kind of work does he do"
            have.add("job")
        elif "employer" not in have:
            have.add("employer")
    if "live" in have and have & {"city", "area", "address"}:
        have.discard("live")
    if "live" in have and "with" in t:
        have = (have - {"live"}) | {"lives_with"}
    if "pet" in have and any(a.startswith("pet:") for a in have):
        have.discard("pet")
    sort_of = _has(t, "kind", "of") or _has(t, "type", "of") or _has(t, "sort", "of")
    if len(have) == 1 and next(iter(have)).startswith("pet:") and sort_of:
        have = {"breed"}  # "what kind of dog is rolo", "what kind of dog do we have"
    if have == {"pet"} and sort_of:
        have = {"animal"}  # "what kind of pet do we have"
    if "from" in t and have and have <= {"city", "area"}:
        have = {"grew_up_in"}  # "what town is my wife from"
    if "animal" in have and any(a.startswith("pet:") for a in have):
        have = {a for a in have if not a.startswith("pet:")}
    if "breed" in have:
        have = {a for a in have if not a.startswith("pet:")}
    if "age" in have and not ("how" in t and "old" in t) and "age" not in t:
        return None
    if "birthday" in have and "where" in t:
        return None  # "where was i born": a place memory does not keep, never a date
    if len(have) == 1:
        return next(iter(have))
    if have:
        return None
    q = t[0] if t else ""
    if q == "what" and _main_do(t):
        return "job"  # "what does my wife do", "what do i do"
    if q == "where" and "from" in t:
        return "grew_up_in"  # "where is my wife from"
    # "who did dani hire", "who would dani recommend", "who is dani dating" ask whom dani did something to, not who
    # dani is
    who_is = q == "who" and not (len(t) > 1 and t[1] in _DOER_AUX) and not any(_VERB_ING.fullmatch(w) for w in t[2:])
    if named and not kin and (who_is or "know" in t or "related" in t or _has(t, "to", "me")):
        return "reverse"  # "who is dani", "how do i know dani", "what is dani to me"
    if kin and q in ("who", "what", "my", "our"):
        return "name"  # "who is my manager"
    return None


_DOER_AUX = frozenset(words("did does do would will can could should has have had might"))
_VERB_ING = re.compile(r"[a-z]{2,}[^aeiou\W]ing")  # "dating", "managing", "seeing" (not a name: "ming", "ling")


# What each question word can ask for: "where is my car" is not asking which car, "when did my sister move"
# is not asking where.
_WHERE = frozenset({"live", "city", "area", "address", "grew_up_in", "employer", "school"})
_ASKS = {
    "where": _WHERE,
    "when": frozenset({"birthday", "anniversary"}),
    "how": frozenset({"age", "reverse"}),
    "who": frozenset({"name", "spouse", "teacher", "employer", "lives_with", "reverse"}),
}


# Attributes whose value changes: the facts answer with the newest, so a question about an earlier one
# ("where did we live last year", "what car did i have before") is not answered from them.
_CURRENT = frozenset({"live", "city", "area", "address", "employer", "job", "school", "car", "laptop", "grade"})
_PAST = words("before ago previously formerly last")


def _asks_the_past(t: list[str], wanted: str) -> bool:
    if wanted not in _CURRENT:
        return False
    moved = "move" in t or "moved" in t  # "where did my sister move to": the newest place
    past_aux = any(w in ("did", "was", "were", "had") for w in t) and not moved
    return past_aux or any(w in _PAST for w in t) or _has(t, "used", "to") or _has(t, "use", "to")


# "what day did we move", "which year did she start": a time asked for, as "when" asks
_TIME_NOUNS = words("day date year month week time")


def _asks_for(t: list[str], wanted: str) -> bool:
    qword = "when" if t[0] in ("what", "which") and len(t) > 1 and t[1] in _TIME_NOUNS else t[0]
    return qword not in _ASKS or wanted in _ASKS[qword]


def _main_do(t: list[str]) -> bool:
    """ "do" as the verb ("what does she do", "what do i do for a living"), not the helper ("what do i drive")."""
    return any(w == "do" and (k == len(t) - 1 or t[k + 1] in ("for", "as")) for k, w in enumerate(t) if k > 0)


def _has(t: list[str], *seq: str) -> bool:
    n = len(seq)
    return any(tuple(t[i : i + n]) == seq for i in range(len(t) - n + 1))


def _all_explained(p: _Parsed, wanted: str) -> bool:
    """Every word is a function word, a frame word, a cue or part of the subject."""
    allowed = _QWORDS | _AUX | _LIGHT | _USER | _FRAME_WORDS | {"'s", "me", "married"}
    if wanted != "lives_with":
        allowed = allowed - {"with"}
    if wanted not in ("reverse",):
        allowed = allowed - {"know", "knew", "related"}
    return all(i in p.used or tok in allowed for i, tok in enumerate(p.tokens))


# Attributes the person's own facts use one relation for, someone else's another.
_OWN = {"job": "job_title", "city": "home_city", "area": "lives_in", "live": "lives_in", "address": "lives_in"}
_OTHERS = {"job": "occupation", "city": "lives_in", "area": "lives_in", "live": "lives_in", "address": "lives_in"}
_ONLY_OWN = frozenset({"lives_with", "anniversary", "area"})


def _query(owner: str, kin: list[_Head], wanted: str, pet_word: bool = False) -> PersonalQuery | None:
    via = tuple(_rel(h) for h in kin)
    pet_kind = kin[-1].value if kin and kin[-1].kind == "pet" else None
    if wanted in ("name", "spouse"):
        if wanted == "spouse":
            via, last = via, "spouse"
        elif not via:
            return None  # "what's my name": not a fact memory keeps
        else:
            via, last = via[:-1], via[-1]
        who = _whose(owner, via)
        plural = wanted == "name" and kin[-1].plural  # "what are my kids' names": "Your kids: Pip and Fenna."
        said = kin[-1].word if last == "pet" or plural else relation_phrase(last)
        template = f"{who} {said}: {{value}}." if plural else f"{who} {said} is {{value}}."
        if last == "pet":
            return PersonalQuery("pet", subject=owner, via=via, kind=pet_kind, template=template)
        return PersonalQuery(last, subject=owner, via=via, template=template)
    if wanted.startswith("pet:"):
        if via:
            return None
        return PersonalQuery(
            "pet", subject=owner, kind=wanted[4:], template=f"{_whose(owner, ())} {wanted[4:]} is {{value}}."
        )
    if wanted == "pet":
        return None if via else PersonalQuery("pet", subject=owner, template=f"{_whose(owner, ())} pet is {{value}}.")
    if wanted in ("breed", "animal"):
        if owner == "user" and not via and (pet_word or wanted == "animal"):
            via = ("pet",)  # "what breed of dog do we have"
        if owner == "user" and via != ("pet",):
            return None
        kind = "breed" if wanted == "breed" else None
        return PersonalQuery(
            "pet_kind", subject=owner, via=via, kind=kind, template=f"{_subject(owner, via, kin)} is a {{value}}."
        )
    own = owner == "user" and not via
    if own:
        relation = _OWN.get(wanted, wanted)
    elif wanted in _ONLY_OWN:
        return None
    else:
        relation = _OTHERS.get(wanted, wanted)
    if relation not in RELATIONS:
        return None
    kind = "address" if wanted == "address" else None
    return PersonalQuery(relation, subject=owner, via=via, kind=kind, template=_template(relation, owner, via, kin))


def _rel(h: _Head) -> str:
    return "pet" if h.kind == "pet" else h.value


def relation_phrase(rel: str) -> str:
    """How an answer names a relation ("boss" -> "manager", "family_friend" -> "family friend")."""
    return _PHRASE.get(rel, rel.replace("_", " "))


def _whose(owner: str, via: tuple[str, ...]) -> str:
    """ "Your", "Your sister's", "Dani's", "Dani's husband's"."""
    base = "Your" if owner == "user" else f"{display(owner)}'s"
    return " ".join([base, *(f"{relation_phrase(r)}'s" for r in via)]) if via else base


def _subject(owner: str, via: tuple[str, ...], kin: list[_Head]) -> str:
    if owner == "user" and not via:
        return "You"
    if not via:
        return display(owner)
    last = kin[-1].word if kin and kin[-1].kind == "pet" else relation_phrase(via[-1])
    return f"{_whose(owner, via[:-1])} {last}"


_SAY = {
    "lives_in": "{s} {live} in {{value}}.",
    "home_city": "{s} {live} in {{value}}.",
    "grew_up_in": "{s} grew up in {{value}}.",
    "lives_with": "You live with your {{value}}.",
    "job_title": "You are a {{value}}.",
    "occupation": "{s}: {{value}}.",
    "employer": "{s} {work} at {{value}}.",
    "school": "{s} {go} to {{value}}.",
    "grade": "{s} {be} in {{value}}.",
    "age": "{s} {{value}}.",
    "car": "{s} {drive} a {{value}}.",
    "laptop": "{p} laptop is a {{value}}.",
    "allergy": "{s} {be} allergic to {{value}}.",
}


def _template(relation: str, owner: str, via: tuple[str, ...], kin: list[_Head]) -> str:
    s = _subject(owner, via, kin)
    you = s == "You"
    say = _SAY.get(relation)
    if say is None:
        return f"{_whose(owner, via)} {relation_phrase(relation)} is {{value}}."
    return say.format(
        s=s,
        p=_whose(owner, via),
        live="live" if you else "lives",
        work="work" if you else "works",
        go="go" if you else "goes",
        be="are" if you else "is",
        drive="drive" if you else "drives",
    )


def _named_thing(p: _Parsed, heads: list[_Head], attrs: list[tuple[str, int]]) -> PersonalQuery | None:
    """ "what's my sourdough starter called": a thing the person named (one thing, after "my"/"our")."""
    things = [h for h in heads if h.kind == "thing"]
    names = [a for a, _ in attrs] + [h.value for h in heads if h.kind == "attr"]
    if p.owner != "user" or not p.tokens or p.tokens[0] != "what" or set(names) != {"name"}:
        return None
    if any(h.kind != "thing" for h in heads if h.value != "name") or len(things) > 2:
        return None
    thing = things[-1].value
    if not all(i in p.used or tok in _QWORDS | _AUX | _USER | {"the"} for i, tok in enumerate(p.tokens)):
        return None
    return PersonalQuery("called", subject=thing, template=f"Your {thing} is called {{value}}.")


# Routines, preferences, holidays and roles: whole-question frames over the normalised words.
_HOLIDAY_ALT = "|".join(sorted(map(re.escape, HOLIDAYS), key=len, reverse=True))
_ROUTINE = re.compile(
    r"(?:what|which) (?:night|nights|day|days|evening|evenings|morning|mornings) (?:do|am) i "
    r"(?:usually |normally |typically )?(?:go |do |have )?([\w-]+)"
)
_OFFICE = re.compile(
    r"(?:which|what) days? (?:am|do) i (?:usually |normally )?(?:in|go (?:in )?to|work from) the office"
    r"|when am i in the office"
)
_PREFERS = re.compile(
    r"(?:which|what) ([\w -]+?) do (?:i|we) (?:like to use|prefer to use|prefer|use|like|usually use|go for)"
    r"|what is (?:my|our) (?:favou?rite|preferred|go-to) ([\w -]+)"
)
_HOLIDAY = re.compile(
    rf"where did (?:i|we) (?:spend|have|celebrate|go for|go at) ({_HOLIDAY_ALT})(?: this year| last year)?"
    rf"|where (?:was i|were we) (?:for|at|on|over) ({_HOLIDAY_ALT})"
)
_ROLE = re.compile(
    r"who (?:leads|runs|heads|manages) (?:the |our )?([\w -]+?)(?: team)?"
    r"|who is (?:the|our) ([\w -]+? (?:lead|head|manager|pm))"
)


def _framed(t: list[str]) -> PersonalQuery | None:
    q = " ".join(t)
    m = _ROUTINE.fullmatch(q)
    if m and m.group(1) not in ("in", "to", "the"):
        return PersonalQuery("schedule", subject=m.group(1), template=f"{m.group(1).capitalize()}: {{value}}.")
    if _OFFICE.fullmatch(q):
        return PersonalQuery("schedule", subject="office", template="You are in the office {value}.")
    m = _PREFERS.fullmatch(q)
    if m:
        cat = (m.group(1) or m.group(2) or "").strip()
        key = CATEGORY_ALIASES.get(cat)
        return PersonalQuery("likes", kind=key, template=f"Your preferred {cat} is {{value}}.") if key else None
    m = _HOLIDAY.fullmatch(q)
    if m:
        holiday = HOLIDAYS[m.group(1) or m.group(2)]
        return PersonalQuery("holiday_in", subject=holiday, template=f"You spent {holiday.capitalize()} in {{value}}.")
    return None


def _role(t: list[str]) -> PersonalQuery | None:
    """ "who leads the platform team": the person whose stated occupation is that role."""
    m = _ROLE.fullmatch(" ".join(t))
    role = (m.group(1) or m.group(2) or "").strip() if m else ""
    return (
        PersonalQuery("occupation", subject="", kind=f"role:{role}", template="{name} is the {value}.")
        if role
        else None
    )

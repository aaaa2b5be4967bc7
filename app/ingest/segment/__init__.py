"""Split one markdown document into FAQ entries by inferring its structure.

candidates (every way a section could hold entries) → evidence (how much each looks like
questions) → decision (the best-supported reading per section). See `decide.py`.
"""

from app.ingest.segment.decide import (
    HINTS,
    ParsedDocument,
    ParsedEntry,
    SectionDecision,
    segment_markdown,
    suggest_hint,
)

__all__ = ["HINTS", "ParsedDocument", "ParsedEntry", "SectionDecision", "segment_markdown", "suggest_hint"]

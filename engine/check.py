"""Protocol validation: the schema first, then the replay, as one list of issues.

`mafvar protocol check`, the synthetic game generator and the app's upload
page all ask the same question of a parsed document; this is its one answer.
"""
from __future__ import annotations

from typing import Any

from .protocol import Protocol, schema_issues
from .replay import Replay, replay
from .types import Issue


def check_document(doc: Any, profile: str | None = None) -> tuple[Replay | None, list[Issue]]:
    """Schema-check then replay a parsed document: (replay or None, issues)."""
    issues = schema_issues(doc)
    if issues:
        return None, issues
    proto = Protocol.from_dict(doc)
    rep = replay(proto, profile)
    return rep, list(rep.issues)

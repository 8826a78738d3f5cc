"""Who is reviewing: a name and a role, chosen once per browser session."""
from __future__ import annotations

from dataclasses import dataclass

from review.store import ReviewerRole


@dataclass(frozen=True)
class Reviewer:
    name: str
    role: ReviewerRole

    @property
    def can_rule_appeals(self) -> bool:
        # rules-spec §5: the Chief Judge (with the panel) decides, never a side judge
        return self.role is ReviewerRole.CHIEF_JUDGE

    def __str__(self) -> str:
        return f"{self.name} ({self.role.label})"


def reviewer_from(name: object, role: object) -> Reviewer | None:
    """A reviewer from loose inputs (session state, query params), or None if incomplete."""
    if not isinstance(name, str) or not name.strip():
        return None
    try:
        return Reviewer(name.strip(), ReviewerRole(role))
    except ValueError:
        return None

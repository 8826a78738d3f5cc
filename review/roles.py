"""Who may do what with a game's review: the one table of role rules.

docs/app.md states the rules; `review.store.ReviewStore` enforces them on
every write (the app only mirrors them), so a caller that skips the app's
checks is still refused.

| action            | chief judge | side judge | organiser |
|-------------------|:-----------:|:----------:|:---------:|
| decide            |     yes     |    yes     |    yes    |
| verify_vote       |     yes     |    yes     |    no     |
| file_appeal       |     yes     |    yes     |    yes    |
| attach_incidents  |     yes     |    yes     |    yes    |
| rule_appeal       |     yes     |    no      |    no     |  (rules-spec §5)
| export            |     yes     |    no      |    yes    |
"""
from __future__ import annotations

from enum import Enum


class Role(str, Enum):
    CHIEF_JUDGE = "chief_judge"
    SIDE_JUDGE = "side_judge"
    ORGANISER = "organiser"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


class Action(str, Enum):
    DECIDE = "decide"                      # a verdict on an incident
    VERIFY_VOTE = "verify_vote"            # a reading of one vote-grid cell
    FILE_APPEAL = "file_appeal"            # record a player's appeal
    ATTACH_INCIDENTS = "attach_incidents"  # attach incidents to an appeal
    RULE_APPEAL = "rule_appeal"            # rule on an appeal
    EXPORT = "export"                      # write a game's report for others

    @property
    def phrase(self) -> str:
        return {"decide": "decide incidents", "verify_vote": "verify votes",
                "file_appeal": "record appeals", "attach_incidents": "attach incidents to appeals",
                "rule_appeal": "rule on an appeal", "export": "export reports"}[self.value]


PERMITS: dict[Action, frozenset[Role]] = {
    Action.DECIDE: frozenset(Role),
    Action.VERIFY_VOTE: frozenset({Role.CHIEF_JUDGE, Role.SIDE_JUDGE}),
    Action.FILE_APPEAL: frozenset(Role),
    Action.ATTACH_INCIDENTS: frozenset(Role),
    Action.RULE_APPEAL: frozenset({Role.CHIEF_JUDGE}),
    Action.EXPORT: frozenset({Role.CHIEF_JUDGE, Role.ORGANISER}),
}


def may(role: Role, action: Action) -> bool:
    return role in PERMITS[action]


def require_permission(role: Role, action: Action, name: str) -> None:
    """PermissionError naming who may, unless `role` may do `action`."""
    if may(role, action):
        return
    allowed = sorted(PERMITS[action], key=list(Role).index)
    who = " or ".join(r.label for r in allowed)
    if action is Action.RULE_APPEAL:
        raise PermissionError(f"only the chief judge may rule on an appeal; {name} is acting as "
                              f"{role.label}")
    raise PermissionError(f"a {role.label} may not {action.phrase} (only the {who} may; "
                          f"{name} is acting as {role.label}; docs/app.md)")

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
| answer_frame      |     yes     |    yes     |    no     |  (judges' reading of footage, as verify_vote)
"""
from __future__ import annotations

from enum import Enum


class ReviewerRole(str, Enum):
    CHIEF_JUDGE = "chief_judge"
    SIDE_JUDGE = "side_judge"
    ORGANISER = "organiser"

    @property
    def label(self) -> str:
        """For a form: "Chief judge"."""
        return self.value.replace("_", " ").capitalize()

    @property
    def words(self) -> str:
        """In a sentence: "the chief judge"."""
        return self.value.replace("_", " ")


class Action(str, Enum):
    DECIDE = "decide"                      # a verdict on an incident
    VERIFY_VOTE = "verify_vote"            # a reading of one vote-grid cell
    FILE_APPEAL = "file_appeal"            # record a player's appeal
    ATTACH_INCIDENTS = "attach_incidents"  # attach incidents to an appeal
    RULE_APPEAL = "rule_appeal"            # rule on an appeal
    EXPORT = "export"                      # write a game's report for others
    ANSWER_FRAME = "answer_frame"          # "mask on or off?", "a fist or not?" about one frame (mafvar learn)

    @property
    def phrase(self) -> str:
        return {"decide": "decide incidents", "verify_vote": "verify votes",
                "file_appeal": "record appeals", "attach_incidents": "attach incidents to appeals",
                "rule_appeal": "rule on an appeal", "export": "export reports",
                "answer_frame": "answer questions about frames"}[self.value]


PERMITS: dict[Action, frozenset[ReviewerRole]] = {
    Action.DECIDE: frozenset(ReviewerRole),
    Action.VERIFY_VOTE: frozenset({ReviewerRole.CHIEF_JUDGE, ReviewerRole.SIDE_JUDGE}),
    Action.FILE_APPEAL: frozenset(ReviewerRole),
    Action.ATTACH_INCIDENTS: frozenset(ReviewerRole),
    Action.RULE_APPEAL: frozenset({ReviewerRole.CHIEF_JUDGE}),
    Action.EXPORT: frozenset({ReviewerRole.CHIEF_JUDGE, ReviewerRole.ORGANISER}),
    Action.ANSWER_FRAME: frozenset({ReviewerRole.CHIEF_JUDGE, ReviewerRole.SIDE_JUDGE}),
}


def may(role: ReviewerRole, action: Action) -> bool:
    return role in PERMITS[action]


def require_permission(role: ReviewerRole, action: Action, name: str) -> None:
    """PermissionError naming who may, unless `role` may do `action`."""
    if may(role, action):
        return
    allowed = sorted(PERMITS[action], key=list(ReviewerRole).index)
    who = " or ".join(r.words for r in allowed)
    if action is Action.RULE_APPEAL:
        raise PermissionError(f"only the chief judge may rule on an appeal; {name} is acting as "
                              f"{role.words}")
    raise PermissionError(f"a {role.words} may not {action.phrase} (only the {who} may; "
                          f"{name} is acting as {role.words}; docs/app.md)")

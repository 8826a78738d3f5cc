"""The performance plan: what every seat does when, as data.

A `Plan` is the single source both the acting scripts (what the renderer
animates) and `truth.json` (what really happened) are derived from, so the two
can never disagree.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# Layers of a seat's state (the acting channels); within a layer the highest
# priority wins. Hands and the whole body share one channel: a player who
# stands up or leaves is not voting.
MASK, BODY, HEAD = "mask", "body", "head"
HANDS = BODY
LAYERS = (MASK, BODY, HEAD)

# Default state of a layer when no act covers the time.
DEFAULTS = {MASK: "mask_off", BODY: "rest", HEAD: "idle"}


@dataclass
class Act:
    """One seat-state interval: `state` holds on `layer` from t0 to t1."""
    seat: int
    layer: str
    state: str
    t0: float
    t1: float
    priority: int = 0
    params: dict = field(default_factory=dict)


@dataclass
class PlannedFist:
    """One fist (or palm, fingertip) placed on the table in a vote window."""
    seat: int
    round_id: int
    call: int              # index of the call within the round
    candidate: int | str   # seat, or "raise" for the all-leave vote
    t_place: float
    t_lift: float
    form: str = "thumb_up"     # thumb_up | palm | fingertip
    hand: str = "right"
    judge_counted: bool = True  # did the judge count this fist
    counts: bool | None = None  # filled by `voting.recount`


@dataclass
class PlannedCall:
    candidate: int | str
    event: int              # index in protocol.events
    t: float
    t_call_end: float
    t_thanks: float
    announced: int
    voters: list[int]       # the judge's list (may be empty when unknown)


@dataclass
class VoteRound:
    """One pass over the candidates (first vote, revote, or raise)."""
    id: int
    day: int
    kind: str               # vote | revote | raise
    calls: list[PlannedCall]
    eligible: list[int]
    t_announce: float | None = None


@dataclass
class Night:
    index: int              # 0 = the deal night
    t_nightfall: float
    t_morning: float | None
    calls: list[tuple[int, float]] = field(default_factory=list)  # (seat, t)
    t_shooting: tuple[float, float] | None = None
    checks: list[tuple[str, int, float, float]] = field(default_factory=list)  # (don|sheriff, target, t0, t1)


@dataclass
class Violation:
    type: str
    rule: str               # V-number, "miscount" or "protocol_audit"
    seats: list[int]
    t0: float
    t1: float
    clause: str
    details: dict = field(default_factory=dict)


@dataclass
class Plan:
    profile: str
    duration: float
    roles: dict[int, str]
    acts: list[Act]
    rounds: list[VoteRound]
    placements: list[PlannedFist]
    nights: list[Night]
    days: list[tuple[float, float]]
    speeches: list[tuple[int, float, float, str]]   # (seat, t0, t1, kind)
    exits: dict[int, float]                          # seat -> time the seat is empty
    exit_how: dict[int, str] = field(default_factory=dict)  # seat -> day | night | removal
    violations: list[Violation] = field(default_factory=list)

    def alive_at(self, t: float) -> list[int]:
        return [s for s in range(1, 11) if self.exits.get(s, float("inf")) > t]


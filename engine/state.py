"""The replay state: frozen snapshots, one after every protocol event.

Everything the timeline, the review layer and the generator need to know about
"what each seat may do now" lives here. All collections are tuples so a state
can be kept, compared and hashed; `dataclasses.replace` makes the next one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from .types import ExitType, Role, Team


class GamePhase(str, Enum):
    SETUP = "setup"   # before the first "Night"
    NIGHT = "night"
    DAY = "day"


@dataclass(frozen=True)
class SeatState:
    seat: int
    role: Role
    alive: bool = True          # still at the table (not voted out, shot or removed)
    removed: bool = False       # left by a removal of any kind (fouls, kick-out, give-up)
    exit: ExitType | None = None
    exit_round: int | None = None
    fouls: int = 0
    tech_fouls: int = 0
    muted: bool = False         # loses the next normal speech (3rd foul)
    mute_mark: tuple = ()       # (round, phase, normal speeches so far, vote started) at the 3rd foul

    @property
    def team(self) -> Team:
        return self.role.team

    @property
    def in_game(self) -> bool:
        return self.alive and not self.removed


@dataclass(frozen=True)
class Exit:
    """A player leaving: mafiaratings round and type, and the event that caused it."""
    seat: int
    round: int
    type: ExitType
    event: int | None

    def to_dict(self) -> dict:
        return {"seat": self.seat, "round": self.round, "type": self.type.value}


@dataclass(frozen=True)
class Candidate:
    target: int
    by: int
    event: int | None = None


@dataclass(frozen=True)
class CallTally:
    """One candidate's call in one pass (pass 0 = first vote, 1.. = revotes)."""
    round: int
    pass_index: int
    candidate: int
    eligible: tuple[int, ...]
    announced: int | None
    voters: tuple[int, ...] | None     # recorded voters, cleaned of invalid seats
    defaults: tuple[int, ...]          # non-voters counted here (last candidate only, when known)
    default_count: int                 # how many defaults (known even when seats are not)
    derived: int | None                # len(voters) + defaults; None without voters
    count: int | None                  # what the game proceeds by: announced, else derived
    event: int | None
    fixed: bool = False                # the pass outcome could no longer change after this call

    def to_dict(self) -> dict:
        return {"round": self.round, "pass": self.pass_index, "candidate": self.candidate,
                "eligible": list(self.eligible), "announced": self.announced,
                "voters": None if self.voters is None else list(self.voters),
                "defaults": list(self.defaults), "derived": self.derived, "count": self.count,
                "event": self.event, "fixed": self.fixed}


@dataclass(frozen=True)
class RaiseRecord:
    round: int
    tied: tuple[int, ...]
    eligible: tuple[int, ...]
    votes_for: int | None
    passed: bool | None
    taken_from_record: bool
    event: int | None


class Stage(str, Enum):
    CALLS = "calls"      # candidate calls of the current pass under way
    RAISE = "raise"      # tied again: waiting for the "all leave?" vote
    DONE = "done"        # the day's vote is decided


@dataclass(frozen=True)
class VoteSession:
    round: int
    pass_index: int
    candidates: tuple[int, ...]          # this pass, in call order
    calls: tuple[CallTally, ...] = ()     # this pass so far
    passes: tuple[tuple[int, ...], ...] = ()  # candidates of earlier passes
    stage: Stage = Stage.CALLS
    tied: tuple[int, ...] = ()           # the tie under discussion (revote or raise)
    fixed: bool = False                  # outcome can no longer change (rules-spec 4.1.7)
    unknown: bool = False                # a call had neither count nor voters
    void: bool = False                   # cancelled by a removal
    outcome: str | None = None           # see DayOutcome.status

    def counts(self) -> dict[int, int | None]:
        return {c.candidate: c.count for c in self.calls}


@dataclass(frozen=True)
class DayOutcome:
    """How a day's vote ended. status: eliminated, raise_passed, raise_failed,
    raise_forbidden, tie_stays, first_day_single, no_candidates, cancelled,
    auto_eliminated, stays (D1 winner kept by first_day_voting), unknown, not_held."""
    round: int
    status: str
    eliminated: tuple[int, ...]
    candidates: tuple[int, ...]
    event: int | None

    def to_dict(self) -> dict:
        return {"round": self.round, "status": self.status, "eliminated": list(self.eliminated),
                "candidates": list(self.candidates), "event": self.event}


@dataclass(frozen=True)
class GameState:
    seats: tuple[SeatState, ...]
    round: int = -1                      # mafiaratings round; -1 before the first "Night"
    phase: GamePhase = GamePhase.SETUP
    openers: tuple[int | None, ...] = ()  # day opener per round
    closers: tuple[int | None, ...] = ()  # day closer per round
    speech_order: tuple[int, ...] = ()    # today's derived speaking order
    speakers: tuple[int, ...] = ()        # today's normal speeches, as recorded
    current_speaker: int | None = None
    day_closed: bool = False              # the day's vote bookkeeping is done (nightfall or result)
    candidates: tuple[Candidate, ...] = ()
    vote: VoteSession | None = None
    pending_vote_cancels: int = 0
    quiet_phases: int = 0                 # phases in a row with nobody leaving (from a night)
    miss_streak: int = 0
    day_vote_exits: tuple[bool, ...] = () # per day: did the vote remove anyone
    left_this_phase: tuple[int, ...] = ()
    alive_at_nightfall: tuple[int, ...] = ()
    shots: tuple[tuple[int, int, int | None], ...] = ()  # (by, target, event) tonight
    shooting_resolved: bool = False
    night_kill: int | None = None
    # the phase's outcome as a source record states it (nightfall/morning `leaves`),
    # standing over what its raw shots or ballots give; `stated_done` once applied
    stated_leaves: tuple[int, ...] | None = None
    stated_done: bool = False
    stated_event: int | None = None       # the nightfall or morning that states it
    don_checked: bool = False
    sheriff_checked: bool = False
    checks: tuple[tuple[int, str, int, bool | None], ...] = ()  # (round, role, target, answer)
    first_killed: int | None = None
    first_killed_right: bool = False
    guess: tuple[int, ...] | None = None
    result: str | None = None             # civ | maf | tie, fixed at the decisive moment
    result_event: int | None = None
    result_reason: str = ""
    declared_result: str | None = None
    annulled: bool = False
    exits: tuple[Exit, ...] = ()
    vote_calls: tuple[CallTally, ...] = ()
    raises: tuple[RaiseRecord, ...] = ()
    day_outcomes: tuple[DayOutcome, ...] = ()
    cards: tuple[tuple[int, str], ...] = ()
    bonuses: tuple[tuple[int, float, str | None], ...] = ()

    # ---- queries
    def seat(self, n: int) -> SeatState:
        return self.seats[n - 1]

    def in_game(self) -> tuple[int, ...]:
        """Seats still playing, ascending: the eligible voters."""
        return tuple(s.seat for s in self.seats if s.in_game)

    def team_counts(self) -> tuple[int, int]:
        red = sum(1 for s in self.seats if s.in_game and s.team is Team.RED)
        black = sum(1 for s in self.seats if s.in_game and s.team is Team.BLACK)
        return red, black

    def holder(self, role: Role) -> int | None:
        for s in self.seats:
            if s.role is role:
                return s.seat
        return None

    def candidate_targets(self) -> tuple[int, ...]:
        return tuple(c.target for c in self.candidates)

    def with_seat(self, n: int, **changes) -> "GameState":
        seats = list(self.seats)
        seats[n - 1] = replace(seats[n - 1], **changes)
        return replace(self, seats=tuple(seats))


def initial_state(roles: dict[int, Role]) -> GameState:
    return GameState(seats=tuple(SeatState(seat=n, role=roles.get(n, Role.CIV)) for n in range(1, 11)))

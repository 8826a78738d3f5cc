"""The phase timeline: every interval in which a rule applies to a seat.

Built from a protocol and its replay. Each interval says what is going on
(nightfall, shooting call, vote window, ...), when (protocol-clock seconds, or
open when the protocol has no times: alignment places those later), and what
each seat may do in it. Everything a seat is not granted is forbidden there;
the review layer turns "seen doing X while not permitted" into an incident.

The engine knows nothing about video: intervals carry rule facts only, never
sampling rates or frames.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Iterable, Mapping

from . import protocol as P
from .profiles import Profile
from .replay import Replay
from .state import GameState
from .types import Role
from .voting import vote_window


def _hands_expected(call) -> int | None:
    """How many fists the recording should show at a call: the recorded voters, or the
    count less the non-voters counted for the last candidate (None: unknown)."""
    if call is None:
        return None
    if call.voters is not None:
        return len(call.voters)
    return None if call.count is None else max(0, call.count - (call.default_count or 0))


class Kind(str, Enum):
    NIGHT = "night"                  # nightfall to morning: masks on, night pose
    MASKING = "masking"              # from "Night" until the mask must be on
    MAFIA_WAKE = "mafia_wake"
    DON_WAKE = "don_wake"
    SHERIFF_WAKE = "sheriff_wake"
    FREE_SEATING = "free_seating"
    SHOOTING = "shooting"            # the whole hunt
    SHOOTING_CALL = "shooting_call"  # one seat number called
    DON_CHECK = "don_check"
    SHERIFF_CHECK = "sheriff_check"
    GUESS = "guess"                  # first-killed player's Prima Nota / Best Move
    DAY = "day"                      # morning to nightfall
    SPEECH = "speech"
    VOTING = "voting"                # list read to outcome: no gestures (V22)
    VOTE_CALL = "vote_call"          # one candidate's call and its window
    RAISE_VOTE = "raise_vote"        # "all tied leave?"


class Permit(str, Enum):
    """What a seat may do inside an interval. Absence means forbidden there."""
    UNMASK = "unmask"          # mask off or lifted
    RAISE_HAND = "raise_hand"  # hand up (shooting, night gestures)
    SHOOT = "shoot"            # finger flex at a called number
    GESTURE = "gesture"        # finger numbers, nods, pointing
    VOTE = "vote"              # fist on the table
    SPEAK = "speak"
    MOVE = "move"              # leave the night pose (free seating)


# Night-time activity grants (who is "awake" in each wake).
_WAKE_PERMITS = frozenset({Permit.UNMASK, Permit.GESTURE, Permit.MOVE})


@dataclass(frozen=True)
class Interval:
    kind: Kind
    key: str                      # stable id, e.g. "r2.vote.p0.c5"
    label: str                    # for people: "day 3, vote on 5"
    round: int                    # mafiaratings round
    t0: float | None
    t1: float | None
    event: int | None             # protocol event index that opened it
    seats: tuple[int, ...] = ()   # the subject seats (speaker, called seat, candidate, checker)
    in_game: tuple[int, ...] = () # seats at the table during the interval
    permits: Mapping[int, frozenset[Permit]] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)

    def allowed(self, seat: int, what: Permit) -> bool:
        return what in self.permits.get(seat, frozenset())

    @property
    def timed(self) -> bool:
        return self.t0 is not None and self.t1 is not None

    def to_dict(self) -> dict:
        return {
            "kind": self.kind.value, "key": self.key, "label": self.label, "round": self.round,
            "t0": self.t0, "t1": self.t1, "event": self.event, "seats": list(self.seats),
            "in_game": list(self.in_game),
            "permits": {str(s): sorted(p.value for p in ps) for s, ps in sorted(self.permits.items()) if ps},
            "details": dict(self.details),
        }


def day_number(round_: int) -> int:
    """rules-spec calendar: round 0's day is D1, round r's day is D(r+1)."""
    return round_ + 1


def _grant(seats: Iterable[int], permits: Iterable[Permit]) -> dict[int, frozenset[Permit]]:
    ps = frozenset(permits)
    return {s: ps for s in seats if s is not None}


def _holders(state: GameState, *roles: Role) -> tuple[int, ...]:
    return tuple(s.seat for s in state.seats if s.in_game and s.role in roles)


class _Builder:
    def __init__(self, protocol: P.Protocol, rep: Replay):
        self.protocol = protocol
        self.rep = rep
        self.profile = rep.profile
        self.events = protocol.events
        self.out: list[Interval] = []
        self.open_night: dict[str, Any] | None = None
        self.open_day: dict[str, Any] | None = None
        self.open_voting: dict[str, Any] | None = None
        self.shooting: dict[str, Any] | None = None
        self.calls: list[dict[str, Any]] = []
        self.vote_pass: dict[int, int] = {}

    # ---- helpers
    def add(self, kind: Kind, key: str, label: str, round_: int, t0, t1, event, state: GameState,
            seats=(), permits=None, **details) -> None:
        self.out.append(Interval(kind, key, label, round_, t0, t1, event, tuple(seats),
                                 state.in_game(), permits or {}, details))

    def close_shooting(self, t_end: float | None) -> None:
        if not self.shooting:
            return
        sh, self.shooting = self.shooting, None
        calls, self.calls = self.calls, []
        for i, c in enumerate(calls):
            nxt = calls[i + 1]["t"] if i + 1 < len(calls) else t_end
            self.add(Kind.SHOOTING_CALL, f"r{sh['round']}.shoot.s{c['seat']}",
                     f"night {sh['round']}, shooting, seat {c['seat']} called", sh["round"],
                     c["t"], nxt, c["event"], sh["state"], seats=(c["seat"],),
                     permits=sh["permits"], called=c["seat"])
        self.add(Kind.SHOOTING, f"r{sh['round']}.shoot", f"night {sh['round']}, shooting",
                 sh["round"], sh["t0"], t_end, sh["event"], sh["state"],
                 seats=_holders(sh["state"], Role.MAF, Role.DON), permits=sh["permits"],
                 calls=[c["seat"] for c in calls])

    def close_voting(self, t_end: float | None) -> None:
        if self.open_voting:
            v, self.open_voting = self.open_voting, None
            self.add(Kind.VOTING, f"r{v['round']}.voting", f"day {day_number(v['round'])}, voting",
                     v["round"], v["t0"], t_end if t_end is not None else v.get("t_last"),
                     v["event"], v["state"], permits=v["permits"])

    def close_night(self, t_end: float | None, end_event: int | None) -> None:
        self.close_shooting(t_end)
        if self.open_night:
            n, self.open_night = self.open_night, None
            label = "night 0 (deal)" if n["round"] == 0 else f"night {n['round']}"
            self.add(Kind.NIGHT, f"r{n['round']}.night", label, n["round"], n["t0"], t_end,
                     n["event"], n["state"], permits={}, ended_by=end_event)

    def close_day(self, t_end: float | None) -> None:
        self.close_voting(t_end)
        if self.open_day:
            d, self.open_day = self.open_day, None
            self.add(Kind.DAY, f"r{d['round']}.day", f"day {day_number(d['round'])}", d["round"],
                     d["t0"], t_end, d["event"], d["state"], permits={})

    # ---- the walk
    def build(self) -> list[Interval]:
        prof = self.profile
        for i, ev in enumerate(self.events):
            before = self.rep.state_before(i)
            after = self.rep.states[i]
            r = after.round
            if isinstance(ev, P.Nightfall):
                self.close_day(ev.t)
                self.open_night = {"round": r, "t0": ev.t, "event": i, "state": after}
                tol = prof.mask_within_seconds
                self.add(Kind.MASKING, f"r{r}.masking", f"night {r}, masking ({tol} s allowed)", r,
                         ev.t, None if ev.t is None else ev.t + tol, i, after,
                         seats=after.in_game(), permits=_grant(after.in_game(), {Permit.UNMASK}),
                         tolerance=tol)
            elif isinstance(ev, P.Morning):
                self.close_night(ev.t, i)
                self.open_day = {"round": after.round, "t0": ev.t, "event": i, "state": after}
            elif isinstance(ev, (P.MafiaWake, P.DonWake, P.SheriffWake, P.FreeSeating)):
                kind, roles = {
                    P.MafiaWake: (Kind.MAFIA_WAKE, (Role.MAF, Role.DON)),
                    P.DonWake: (Kind.DON_WAKE, (Role.DON,)),
                    P.SheriffWake: (Kind.SHERIFF_WAKE, (Role.SHERIFF,)),
                    P.FreeSeating: (Kind.FREE_SEATING, tuple(Role)),
                }[type(ev)]
                seats = _holders(after, *roles)
                permits = (_grant(seats, {Permit.MOVE}) if kind is Kind.FREE_SEATING
                           else _grant(seats, _WAKE_PERMITS))
                self.add(kind, f"r{r}.{kind.value}", f"night {r}, {kind.value.replace('_', ' ')}", r,
                         ev.t, ev.t_end, i, after, seats=seats, permits=permits)
            elif isinstance(ev, (P.ShootingCall, P.Shot)):
                if self.shooting is None:
                    mafia = _holders(before, Role.MAF, Role.DON)
                    self.shooting = {"round": r, "t0": ev.t, "event": i, "state": before,
                                     "permits": _grant(mafia, {Permit.RAISE_HAND, Permit.SHOOT})}
                if isinstance(ev, P.ShootingCall):
                    self.calls.append({"seat": ev.seat, "t": ev.t, "event": i})
            elif isinstance(ev, (P.DonCheck, P.SheriffCheck)):
                self.close_shooting(ev.t)
                role = Role.DON if isinstance(ev, P.DonCheck) else Role.SHERIFF
                kind = Kind.DON_CHECK if role is Role.DON else Kind.SHERIFF_CHECK
                checker = _holders(before, role)
                limit = prof.don_check_seconds if role is Role.DON else prof.sheriff_check_seconds
                t1 = ev.t_end if ev.t_end is not None else (
                    None if ev.t is None or limit is None else ev.t + limit)
                self.add(kind, f"r{r}.{kind.value}", f"night {r}, {role.value} checks {ev.target}", r,
                         ev.t, t1, i, before, seats=checker, permits=_grant(checker, _WAKE_PERMITS),
                         target=ev.target, limit_seconds=limit)
            elif isinstance(ev, P.Guess):
                self.close_shooting(ev.t)
                self.add(Kind.GUESS, f"r{r}.guess", f"night {r}, first-killed {ev.seat} names {list(ev.targets or ())}",
                         r, ev.t, ev.t_end, i, before, seats=(ev.seat,),
                         permits=_grant((ev.seat,), {Permit.UNMASK, Permit.GESTURE, Permit.SPEAK}),
                         limit_seconds=prof.first_killed_guess_seconds)
            elif isinstance(ev, P.Speech):
                kind_name = ev.speech_kind
                self.add(Kind.SPEECH, f"r{r}.speech.{kind_name}.s{ev.seat}.e{i}",
                         f"day {day_number(r)}, {kind_name.replace('_', ' ')} speech by {ev.seat}", r,
                         ev.t, ev.t_end, i, before, seats=(ev.seat,),
                         permits=_grant((ev.seat,), {Permit.SPEAK, Permit.GESTURE}), speech=kind_name,
                         muted=before.seat(ev.seat).muted if 1 <= ev.seat <= 10 else False)
            elif isinstance(ev, P.VoteAnnounce):
                if self.open_voting is None:
                    self.open_voting = {"round": r, "t0": ev.t, "event": i, "state": before,
                                        "permits": {}}
            elif isinstance(ev, P.Vote):
                if self.open_voting is None:
                    self.open_voting = {"round": r, "t0": ev.t, "event": i, "state": before,
                                        "permits": {}}
                call = next((c for c in reversed(after.vote_calls) if c.event == i), None)
                pass_index = call.pass_index if call else 0
                eligible = call.eligible if call else before.in_game()
                window = vote_window(prof, ev.t, ev.t_call_end, ev.t_call2, ev.t_thanks)
                opens, closes = window.opens, window.closes
                t1 = closes if closes is not None else ev.t_end
                self.open_voting["t_last"] = t1
                label = f"day {day_number(r)}, {'vote' if pass_index == 0 else f'revote {pass_index}'} on {ev.candidate}"
                self.add(Kind.VOTE_CALL, f"r{r}.vote.p{pass_index}.c{ev.candidate}", label, r,
                         ev.t, t1, i, before, seats=(ev.candidate,),
                         permits=_grant(eligible, {Permit.VOTE}),
                         candidate=ev.candidate, pass_index=pass_index, eligible=list(eligible),
                         window_open=opens, window_close=closes, t_call_end=ev.t_call_end,
                         t_call2=ev.t_call2, t_thanks=ev.t_thanks, announced=ev.announced,
                         # a record of ballots without counts (a platform's): the count its
                         # ballots give, with the non-voters the profile adds
                         record_count=call.derived if call is not None and ev.announced is None else None,
                         window_opens_rule=prof.vote_window_opens,
                         window_closes_rule=prof.vote_window_closes,
                         last_candidate=bool(call and call.default_count and call.defaults is not None),
                         hands_expected=_hands_expected(call),
                         voters=None if call is None or call.voters is None else sorted(call.voters))
            elif isinstance(ev, P.RaiseVote):
                rec = next((x for x in reversed(after.raises) if x.event == i), None)
                eligible = rec.eligible if rec else before.in_game()
                t1 = ev.t_thanks if ev.t_thanks is not None else ev.t_end
                if self.open_voting is not None:
                    self.open_voting["t_last"] = t1
                self.add(Kind.RAISE_VOTE, f"r{r}.raise", f"day {day_number(r)}, all tied leave? "
                         f"({', '.join(map(str, rec.tied)) if rec else '?'})", r, ev.t, t1, i, before,
                         seats=rec.tied if rec else (), permits=_grant(eligible, {Permit.VOTE}),
                         eligible=list(eligible), window_open=ev.t, window_close=ev.t_thanks,
                         announced=ev.announced)
            elif isinstance(ev, (P.Nominate, P.Withdraw, P.Foul, P.Removal)):
                pass  # point events: visible in the protocol, no interval of their own
            if self.open_voting is not None and after.vote is not None and after.vote.outcome is not None:
                end = self.open_voting.get("t_last")
                self.close_voting(end)
        last_t = next((e.t for e in reversed(self.events) if e.t is not None), None)
        self.close_night(last_t, None)
        self.close_day(last_t)
        self.out.sort(key=_order_key(self.out))
        return self.out


_CONTAINERS = {Kind.NIGHT: 0, Kind.DAY: 0, Kind.MASKING: 1, Kind.VOTING: 1, Kind.SHOOTING: 1}


def _order_key(intervals: list[Interval]):
    """Protocol order (the opening event), containers before what they contain.

    Event order is the one order every protocol has, timed or not; for a timed
    protocol it is also time order."""
    def key(iv: Interval):
        return (iv.event if iv.event is not None else 10**9, _CONTAINERS.get(iv.kind, 2),
                iv.t0 if iv.t0 is not None else 0.0)
    return key


def build_timeline(protocol: P.Protocol, rep: Replay) -> list[Interval]:
    """All rule intervals of a replayed game, ordered."""
    return _Builder(protocol, rep).build()


def timeline_to_json(intervals: list[Interval], profile: Profile) -> dict:
    return {"format": "mafvar-timeline", "version": 1, "profile": profile.name,
            "intervals": [iv.to_dict() for iv in intervals]}

"""The pure replay state machine: `apply(state, event, profile)` and `replay(protocol)`.

Every handler takes the state before an event and returns the state after it;
problems are collected as issues naming the event index and the rule clause.
Nothing here raises for a schema-valid protocol: an unexpected failure inside a
handler becomes an `internal` error issue and the replay goes on.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from . import protocol as P
from .outcome import quiet_draw, ru_extra_red_win, team_result
from .profiles import DEFAULT_PROFILE, Profile, ProfileError, get_profile, profile_for_game
from .shooting import ShotOutcome, resolve_shots
from .speaking import day_closer, day_opener, speaking_order
from .state import (Candidate, DayOutcome, Exit, GameState, GamePhase, RaiseRecord, Stage,
                    CallTally, VoteSession, initial_state)
from .types import ExitType, Issue, Role, Severity, audit, error, note
from .voting import after_tie, outcome_fixed, pass_outcome, raise_allowed, raise_passes, revote_order


class _Step:
    """Issue collector for one event (keeps handlers' signatures short)."""

    def __init__(self, profile: Profile, index: int | None):
        self.profile = profile
        self.index = index
        self.issues: list[Issue] = []

    def c(self, *keys: str) -> str:
        """The game's own rulebook clause for an option or a cited rule, the
        first of `keys` its rulebook has ("" when it is silent on all)."""
        return next((c for c in map(self.profile.clause, keys) if c), "")

    def error(self, code: str, msg: str, clause: str = "") -> None:
        self.issues.append(error(code, self.index, msg, clause))

    def audit(self, code: str, msg: str, clause: str = "") -> None:
        self.issues.append(audit(code, self.index, msg, clause))

    def note(self, code: str, msg: str, clause: str = "") -> None:
        self.issues.append(note(code, self.index, msg, clause))


# ------------------------------------------------------------------ phase changes

def _start_n0(state: GameState) -> GameState:
    return replace(state, round=0, phase=GamePhase.NIGHT, alive_at_nightfall=state.in_game(),
                   left_this_phase=(), stated_leaves=None, stated_done=False)


def _nightfall(state: GameState, step: _Step) -> GameState:
    if state.phase is GamePhase.SETUP:
        return _start_n0(state)
    if state.phase is GamePhase.DAY:
        state = _close_day(state, step)
    return replace(state, round=state.round + 1, phase=GamePhase.NIGHT, shots=(),
                   shooting_resolved=False, night_kill=None, don_checked=False,
                   sheriff_checked=False, alive_at_nightfall=state.in_game(),
                   left_this_phase=(), current_speaker=None, stated_leaves=None,
                   stated_done=False)


def _ensure_night(state: GameState, step: _Step, what: str) -> GameState:
    if state.phase is GamePhase.NIGHT:
        return state
    step.note("implicit_nightfall", f"{what} outside a night: assuming \"Night\" was called")
    return _nightfall(state, step)


def _ensure_day(state: GameState, step: _Step, what: str) -> GameState:
    if state.phase is GamePhase.DAY:
        return state
    if state.phase is GamePhase.SETUP:
        step.note("implicit_nightfall", f"{what} before any \"Night\": assuming the deal night N0 passed")
        state = _start_n0(state)
    step.note("implicit_morning", f"{what} during the night: assuming \"Morning\" was called")
    return _morning(state, step)


def _resolve_shooting(state: GameState, step: _Step) -> GameState:
    if state.phase is not GamePhase.NIGHT or state.round < 1 or state.shooting_resolved:
        return state
    shooters = [s.seat for s in state.seats if s.in_game and s.role.is_black]
    out = resolve_shots([(b, t) for b, t, _ in state.shots], shooters, state.in_game(), step.profile)
    state = replace(state, shooting_resolved=True)
    if state.stated_leaves is not None:
        out = _stated_night(state, out, step)
    if out.kill is None:
        if state.result is None:
            step.note("miss", f"night {state.round}: miss ({out.reason})", step.c("miss_if_targets_differ"))
        return replace(state, miss_streak=state.miss_streak + 1)
    state = replace(state, night_kill=out.kill, miss_streak=0)
    if state.round == 1 and state.first_killed is None:
        state = replace(state, first_killed=out.kill,
                        first_killed_right=_first_killed_right(state, step.profile))
    return _leave(state, (out.kill,), ExitType.NIGHT, step)


def _record_audit(state: GameState, step: _Step, message: str) -> None:
    """A record's raw steps disagree with its stated outcome: reported at the event that
    states the outcome (the phase's nightfall or morning), where the judge looks for it."""
    index = state.stated_event if state.stated_event is not None else step.index
    step.issues.append(audit("record_outcome", index, message, "docs/formats.md"))


def _stated_night(state: GameState, out: ShotOutcome, step: _Step) -> ShotOutcome:
    """The night's outcome as the source record states it stands over its shots; a
    disagreement is reported (the record's raw lists are incomplete or wrong)."""
    stated = next((s for s in state.stated_leaves or () if state.seat(s).in_game), None)
    if stated != out.kill:
        derived = f"kill seat {out.kill}" if out.kill is not None else f"a miss ({out.reason})"
        recorded = f"seat {stated} killed" if stated is not None else "a miss"
        _record_audit(state, step, f"night {state.round}: the recorded shots give {derived}, the "
                      f"record has {recorded}; the recorded outcome stands")
    return ShotOutcome(stated, "" if stated is not None else "the record states a miss")


def _stated_day(state: GameState, seats: tuple[int, ...], step: _Step) -> tuple[GameState, tuple[int, ...]]:
    """Who a day vote removes when the source record states the day's outcome: the
    record's seats, once; a disagreement with the ballots is reported."""
    r = state.round
    if state.stated_done:
        if seats:
            _record_audit(state, step, f"day {r}: the recorded ballots also remove seat(s) "
                          f"{_seats(seats)}; the record's outcome already stands")
        return state, ()
    stated = tuple(s for s in state.stated_leaves or () if state.seat(s).in_game)
    if set(seats) != set(stated):
        _record_audit(state, step, f"day {r}: the recorded ballots remove "
                      f"{_seats(seats) if seats else 'nobody'}, the record has "
                      f"{_seats(stated) if stated else 'nobody'} leave; the recorded outcome stands")
    return replace(state, stated_done=True), stated


def _first_killed_right(state: GameState, profile: Profile) -> bool:
    """Prima Nota / Best Move right of the N1 victim (rules-spec 1.4)."""
    if profile.first_killed_right == "none":
        return False
    cond = profile.first_killed_condition
    if cond in ("all_ten", "nine_others"):
        return len(state.exits) == 0
    if cond == "fewer_than_two_left":
        return sum(1 for e in state.exits if e.type is not ExitType.NIGHT) < 2
    return True


def _morning(state: GameState, step: _Step) -> GameState:
    state = _resolve_shooting(state, step)
    p = step.profile
    if state.round >= 1 and state.result is None:
        left = bool(state.left_this_phase)
        state = replace(state, quiet_phases=0 if left else state.quiet_phases + 1)
        if quiet_draw(state.quiet_phases, p):
            state = _fix_result(state, "tie", "nobody left for the draw streak", step)
        alive = len(state.in_game())
        if state.result is None and ru_extra_red_win(state.miss_streak, state.day_vote_exits, alive, p):
            state = _fix_result(state, "civ", "three misses in a row (RU L29)", step)
    alive = state.in_game()
    r = state.round
    prev_opener = state.openers[r - 1] if r >= 1 and len(state.openers) >= r else None
    prev_closer = state.closers[r - 1] if r >= 1 and len(state.closers) >= r else None
    opener = day_opener(r, alive, p.opener_rotation, p.first_day_opener, prev_opener, prev_closer,
                        state.speakers or state.speech_order)
    openers = _set_at(state.openers, r, opener)
    closers = _set_at(state.closers, r, day_closer(opener, alive))
    return replace(state, phase=GamePhase.DAY, openers=openers, closers=closers,
                   speech_order=speaking_order(opener, alive), speakers=(), current_speaker=None,
                   candidates=(), vote=None, left_this_phase=(), day_closed=False,
                   stated_leaves=None, stated_done=False)


def _set_at(seq: tuple, i: int, value) -> tuple:
    items = list(seq) + [None] * max(0, i + 1 - len(seq))
    items[i] = value
    return tuple(items)


def _close_day(state: GameState, step: _Step) -> GameState:
    """End of a day: votes that were never held, mutes consumed, draw streak."""
    if state.day_closed:
        return state
    state = replace(state, day_closed=True)
    p = step.profile
    r = state.round
    session = state.vote
    cands = state.candidate_targets()
    vote_exit = False
    if session is None:
        if not cands:
            state = _day_outcome(state, "no_candidates", (), step)
        elif r == 0 and len(cands) == 1:
            if state.pending_vote_cancels:
                state = replace(state, pending_vote_cancels=state.pending_vote_cancels - 1)
            state = _day_outcome(state, "first_day_single", (), step)
        elif state.pending_vote_cancels:
            state = replace(state, pending_vote_cancels=state.pending_vote_cancels - 1)
            state = _day_outcome(state, "cancelled", (), step)
        elif len(cands) == 1 and (p.later_single_candidate == "auto_eliminate"
                                  or p.default_votes == "last_candidate"):
            if p.later_single_candidate != "auto_eliminate":
                step.note("vote_missing", f"day {r}: no vote recorded for the single candidate "
                          f"{cands[0]}; default votes eliminate them", step.c("later_single_candidate"))
            state = _day_outcome(state, "auto_eliminated", cands, step)
            state = _leave(state, cands, ExitType.DAY, step)
            vote_exit = True
        else:
            step.audit("vote_not_held", f"day {r}: candidates {_seats(cands)} were nominated but "
                       "no vote was recorded", step.c("first_day_single_candidate"))
            state = _day_outcome(state, "not_held", (), step)
    else:
        if session.stage is Stage.RAISE:
            step.audit("raise_missing", f"day {r}: seats {_seats(session.tied)} tied twice but no "
                       "raise vote was recorded; nobody leaves", step.c("raise_threshold"))
            state = _finish_session(state, "raise_failed", (), step)
        elif session.stage is Stage.CALLS and not session.void:
            step.note("vote_incomplete", f"day {r}: the vote stopped after "
                      f"{len(session.calls)} of {len(session.candidates)} calls")
            state = _finish_session(state, "unknown", (), step)
        vote_exit = any(o.round == r and o.eliminated for o in state.day_outcomes)
    if state.stated_leaves is not None and not state.stated_done:
        # the ballots removed nobody (or were never held); the record says who left
        before = len(state.exits)
        state = _leave(state, (), ExitType.DAY, step)
        vote_exit = vote_exit or len(state.exits) > before
    # a muted player whose slot has passed has served the lost speech
    seats = list(state.seats)
    for i, s in enumerate(seats):
        if s.muted and s.mute_mark:
            m_round, m_phase, m_speeches, m_vote = s.mute_mark
            slot = state.speech_order.index(s.seat) if s.seat in state.speech_order else -1
            if m_round < r or m_phase == GamePhase.NIGHT.value or (not m_vote and slot >= m_speeches):
                seats[i] = replace(s, muted=False, mute_mark=())
    state = replace(state, seats=tuple(seats), day_vote_exits=state.day_vote_exits + (vote_exit,))
    if r >= 1 and state.result is None:
        left = bool(state.left_this_phase)
        quiet = 0 if left else (state.quiet_phases + 1 if state.quiet_phases > 0 else 0)
        state = replace(state, quiet_phases=quiet)
        if quiet_draw(quiet, p):
            state = _fix_result(state, "tie", "nobody left for the draw streak", step)
    return state


# ------------------------------------------------------------------ leaving and results

def _seats(seats) -> str:
    return ", ".join(str(s) for s in seats) or "none"


def _fix_result(state: GameState, result: str, reason: str, step: _Step) -> GameState:
    if state.result is not None:
        return state  # fixed at the decisive moment (MC 2.7.3, SM 1.14)
    return replace(state, result=result, result_event=step.index, result_reason=reason)


def _leave(state: GameState, seats, how: ExitType, step: _Step) -> GameState:
    """Players leave together, then one win check (a raise may remove several at once)."""
    p = step.profile
    if how is ExitType.DAY and state.phase is GamePhase.DAY and state.stated_leaves is not None:
        state, seats = _stated_day(state, tuple(seats), step)
    left = []
    for n in seats:
        s = state.seat(n)
        if not s.in_game:
            continue
        state = state.with_seat(n, alive=False, removed=how.is_removal, exit=how, exit_round=state.round,
                                muted=False, mute_mark=())
        state = replace(state, exits=state.exits + (Exit(n, max(state.round, 0), how, step.index),),
                        left_this_phase=state.left_this_phase + (n,), quiet_phases=0)
        left.append(n)
    if not left:
        return state
    state = _drop_candidates(state, left, step)
    if how is ExitType.TEAM_KICK_OUT:
        loser = state.seat(left[0]).team
        state = _fix_result(state, loser.other.result_name, f"seat {left[0]} removed with the team", step)
    if how.is_removal:
        state = _removal_effect(state, left, step)
    red, black = state.team_counts()
    res = team_result(red, black, p)
    if res is not None:
        state = _fix_result(state, res, f"{red} red and {black} black left", step)
    return state


def _drop_candidates(state: GameState, left: list[int], step: _Step) -> GameState:
    """A candidate who leaves before their call is no longer voted on (rules-spec 2.3.3)."""
    if not any(c.target in left for c in state.candidates):
        return state
    state = replace(state, candidates=tuple(c for c in state.candidates if c.target not in left))
    s = state.vote
    if s is None or s.stage is not Stage.CALLS or s.void:
        return state
    called = {c.candidate for c in s.calls}
    keep = tuple(c for c in s.candidates if c in called or c not in left)
    if keep == s.candidates:
        return state
    state = replace(state, vote=replace(s, candidates=keep, tied=tuple(t for t in s.tied if t not in left)))
    if s.calls and len(s.calls) == len(keep):
        state = _resolve_pass(state, step)
    return state


def _removal_effect(state: GameState, seats: list[int], step: _Step) -> GameState:
    """What a removal does to the nearest vote (MC 4.11-4.12, SM 6.17-6.20, RU L17)."""
    eff = step.profile.removal_vote_effect
    session = state.vote
    active = session is not None and session.stage is not Stage.DONE and not session.void \
        and state.phase is GamePhase.DAY
    if eff == "ru":
        if active:
            calls = tuple(replace(c, voters=tuple(v for v in c.voters if v not in seats))
                          if c.voters is not None else c for c in session.calls)
            state = replace(state, vote=replace(session, calls=calls))
        return state
    if eff == "none":
        return state
    cancels = len(seats)
    if active and not session.fixed:
        step.note("vote_void", f"removal of seat(s) {_seats(seats)} during the vote: the vote is void "
                  "and only the removed player leaves", step.c("removal_vote_effect"))
        state = replace(state, vote=replace(session, void=True))
        state = _finish_session(state, "cancelled", (), step)
        cancels -= 1
    elif active and session.fixed:
        step.note("vote_fixed_removal", f"removal of seat(s) {_seats(seats)} after the vote outcome "
                  "was fixed: the vote stands and the next vote is cancelled", step.c("removal_vote_effect"))
    return replace(state, pending_vote_cancels=state.pending_vote_cancels + max(cancels, 0))


# ------------------------------------------------------------------ voting

def _day_outcome(state: GameState, status: str, eliminated, step: _Step) -> GameState:
    rec = DayOutcome(state.round, status, tuple(eliminated), state.candidate_targets(), step.index)
    return replace(state, day_outcomes=state.day_outcomes + (rec,))


def _finish_session(state: GameState, status: str, eliminated, step: _Step) -> GameState:
    if state.vote is not None:
        state = replace(state, vote=replace(state.vote, stage=Stage.DONE, outcome=status))
    return _day_outcome(state, status, eliminated, step)


def _start_session(state: GameState, step: _Step, what: str) -> GameState:
    r = state.round
    cands = state.candidate_targets()
    if state.pending_vote_cancels:
        step.audit("vote_despite_cancel", f"day {r}: {what}, but a removal cancelled this vote",
                   step.c("removal_vote_effect"))
        state = replace(state, pending_vote_cancels=state.pending_vote_cancels - 1)
    if r == 0 and len(cands) == 1:
        step.audit("vote_single_first_day", f"day 0: {what} with a single candidate; on the first day "
                   "the single candidate stays without a vote", step.c("first_day_single_candidate"))
    session = VoteSession(round=r, pass_index=0, candidates=cands)
    return replace(state, vote=session, current_speaker=None)


def _vote_announce(state: GameState, ev: P.VoteAnnounce, step: _Step) -> GameState:
    state = _ensure_day(state, step, "vote_announce")
    if state.vote is None:
        state = _start_session(state, step, "the vote was announced")
    if ev.candidates is not None:
        expected = state.vote.candidates if state.vote.pass_index == 0 else state.vote.candidates
        if tuple(ev.candidates) != tuple(expected):
            step.audit("candidate_list", f"the list read ({_seats(ev.candidates)}) differs from the "
                       f"nominations ({_seats(expected)})", step.c("candidate_list_reads"))
    return state


def _vote(state: GameState, ev: P.Vote, step: _Step) -> GameState:
    p = step.profile
    state = _ensure_day(state, step, "vote")
    if state.vote is None:
        state = _start_session(state, step, "a vote was called")
    s = state.vote
    if s.void:
        step.audit("vote_after_void", f"vote on {ev.candidate} after the vote was voided by a removal",
                   step.c("removal_vote_effect"))
        return state
    if s.stage is not Stage.CALLS:
        step.error("vote_out_of_place", f"vote on {ev.candidate}: "
                   + ("a raise vote is due, not a candidate call" if s.stage is Stage.RAISE
                      else "the day's vote is already decided"), "docs/protocol.md")
        return state
    called = {c.candidate for c in s.calls}
    remaining = [c for c in s.candidates if c not in called]
    if ev.candidate not in remaining:
        why = "was already called in this pass" if ev.candidate in called else \
            f"is not a candidate of this pass ({_seats(s.candidates)})"
        step.error("not_a_candidate", f"vote on seat {ev.candidate}: the seat {why}", step.c("candidate_list_reads"))
        return state
    if ev.candidate != remaining[0]:
        step.audit("vote_order", f"seat {ev.candidate} was called before seat {remaining[0]}; "
                   "candidates are called in nomination order", step.c("candidate_list_reads"))
    eligible = state.in_game()
    already = {v for c in s.calls for v in (c.voters or ())}
    voters = None
    if ev.voters is not None:
        clean = []
        for v in ev.voters:
            if v not in eligible:
                step.error("vote_by_absent", f"seat {v} votes for {ev.candidate} but is not in the game",
                           "rules-spec 2.3.2")
            elif v in already or v in clean:
                step.audit("double_vote", f"seat {v} voted twice; only the first vote counts",
                           step.c("double_vote"))
            else:
                clean.append(v)
        voters = tuple(clean)
    is_last = len(remaining) == 1
    prior = [c.count for c in s.calls]
    defaults: tuple[int, ...] = ()
    default_count = 0
    if is_last and p.default_votes == "last_candidate":
        if all(c.voters is not None for c in s.calls) and voters is not None:
            defaults = tuple(v for v in eligible if v not in already and v not in voters)
            default_count = len(defaults)
        elif None not in prior and voters is not None:
            default_count = max(0, len(eligible) - sum(prior) - len(voters))
    derived = None if voters is None else len(voters) + default_count
    count = ev.announced if ev.announced is not None else derived
    call = CallTally(state.round, s.pass_index, ev.candidate, eligible, ev.announced, voters, defaults,
                    default_count, derived, count, step.index)
    unknown = s.unknown or count is None
    if count is None and not s.unknown:
        step.note("vote_unknown", f"vote on {ev.candidate}: neither a count nor the voters are recorded; "
                  "the outcome cannot be derived from here")
    calls = s.calls + (call,)
    counts = [c.count for c in calls if c.count is not None]
    fixed = s.fixed or (not unknown and outcome_fixed(counts, len(eligible), len(remaining) - 1))
    call = replace(call, fixed=fixed)
    s = replace(s, calls=s.calls + (call,), unknown=unknown, fixed=fixed)
    state = replace(state, vote=s, vote_calls=state.vote_calls + (call,))
    if is_last:
        state = _resolve_pass(state, step)
    return state


def _resolve_pass(state: GameState, step: _Step) -> GameState:
    p = step.profile
    s = state.vote
    r = state.round
    if s.unknown:
        return _finish_session(state, "unknown", (), step)
    counts = s.counts()
    out = pass_outcome(counts, tuple(c.candidate for c in s.calls))
    if out.kind == "unique":
        winner = out.leaders[0]
        if r == 0 and p.first_day_voting != "standard":
            stays = p.first_day_voting in ("to-talk", "no-break")
            if p.first_day_voting == "self-break":
                own = next((c.voters for c in s.calls if c.candidate == winner), None)
                stays = not (own is not None and winner in own)
            if stays:
                return _finish_session(state, "stays", (), step)
        state = _finish_session(state, "eliminated", (winner,), step)
        return _leave(state, (winner,), ExitType.DAY, step)
    nxt = after_tie(s.pass_index, out.leaders, s.candidates, p)
    if nxt == "revote":
        order = revote_order(out.leaders, p)
        step.note("tie", f"day {r}: seats {_seats(out.leaders)} tied with {out.top}; tie speeches, then a revote",
                  step.c("revote_fewer_tied"))
        ns = replace(s, pass_index=s.pass_index + 1, candidates=order, calls=(),
                     passes=s.passes + (s.candidates,), tied=out.leaders, fixed=False)
        return replace(state, vote=ns)
    alive = len(state.in_game())
    ok, why = raise_allowed(p, len(out.leaders), alive, r)
    if not ok:
        step.note("raise_refused", f"day {r}: seats {_seats(out.leaders)} tied again; no raise vote: {why}",
                  step.c("raise_limits"))
        state = replace(state, vote=replace(s, tied=out.leaders))
        return _finish_session(state, "raise_forbidden", (), step)
    # the raise is still to be voted: a removal now voids it (not "after the outcome is fixed")
    return replace(state, vote=replace(s, stage=Stage.RAISE, tied=out.leaders, fixed=False))


def _raise_vote(state: GameState, ev: P.RaiseVote, step: _Step) -> GameState:
    p = step.profile
    state = _ensure_day(state, step, "raise_vote")
    s = state.vote
    forbidden = s is not None and s.stage is Stage.DONE and s.outcome == "raise_forbidden"
    if s is None or (s.stage is not Stage.RAISE and not forbidden):
        step.error("raise_out_of_place", "raise vote without a repeated tie to decide", step.c("tie_procedure"))
        return state
    if forbidden:
        step.audit("raise_forbidden", f"a raise vote on seats {_seats(s.tied)} was held, but the profile "
                   "forbids it here", step.c("raise_limits", "kill_all"))
    eligible = state.in_game()
    voters = None
    if ev.voters is not None:
        voters = tuple(dict.fromkeys(v for v in ev.voters if v in eligible))
        for v in ev.voters:
            if v not in eligible:
                step.error("vote_by_absent", f"seat {v} votes in the raise vote but is not in the game",
                           "rules-spec 2.3.2")
    votes_for = ev.announced if ev.announced is not None else (len(voters) if voters is not None else None)
    if votes_for is not None:
        passed = raise_passes(votes_for, len(eligible))
        if ev.passed is not None and ev.passed != passed:
            step.audit("raise_not_passed" if ev.passed else "raise_outcome",
                       f"raise vote: {votes_for} of {len(eligible)} in favour, yet recorded as "
                       f"{'passed' if ev.passed else 'failed'}", step.c("raise_threshold"))
            passed = ev.passed
    elif ev.passed is not None:
        passed = ev.passed
        step.note("taken_from_record", f"raise vote on seats {_seats(s.tied)}: outcome "
                  f"({'passed' if passed else 'failed'}) taken from the record")
    else:
        step.note("vote_unknown", "raise vote without a count, voters or outcome")
        return _finish_session(state, "unknown", (), step)
    if ev.announced is not None and voters is not None and ev.announced != len(voters):
        step.audit("announced_mismatch", f"raise vote: announced {ev.announced}, recorded voters "
                   f"{len(voters)}", step.c("default_votes"))
    state = replace(state, raises=state.raises + (RaiseRecord(state.round, s.tied, eligible, votes_for,
                                                               passed, ev.taken_from_record, step.index),))
    if not passed:
        return _finish_session(state, "raise_failed", (), step)
    tied = s.tied
    state = _finish_session(state, "raise_passed", tied, step)
    if len(tied) >= len(eligible) and p.kill_all == "draw":
        state = _fix_result(state, "tie", "everyone voted out (MC 2.7.2.2)", step)
    return _leave(state, tied, ExitType.DAY, step)


# ------------------------------------------------------------------ handlers

def _h_nightfall(state, ev, step):
    if state.phase is GamePhase.NIGHT:
        step.error("nightfall_at_night", "\"Night\" called during the night", "rules-spec 2.2")
        return state
    state = _nightfall(state, step)
    if ev.leaves is not None and state.round >= 1:
        state = replace(state, stated_leaves=tuple(ev.leaves), stated_event=step.index)
    return state


def _h_morning(state, ev, step):
    if state.phase is GamePhase.DAY:
        step.error("morning_at_day", "\"Morning\" called during the day", "rules-spec 2.2")
        return state
    if state.phase is GamePhase.SETUP:
        step.note("implicit_nightfall", "\"Morning\" before any \"Night\": assuming N0 passed")
        state = _start_n0(state)
    state = _morning(state, step)
    if ev.leaves is not None:
        state = replace(state, stated_leaves=tuple(ev.leaves), stated_event=step.index)
    return state


def _h_n0(state, ev, step):
    if state.phase is GamePhase.SETUP:
        state = _start_n0(state)
    if state.round != 0 or state.phase is not GamePhase.NIGHT:
        step.error("n0_event_misplaced", f"{ev.type} belongs to the deal night N0", "rules-spec 2.2")
    return state


def _h_shooting_call(state, ev, step):
    state = _ensure_night(state, step, "shooting_call")
    if state.round < 1:
        step.error("shot_at_n0", "no shooting on the deal night N0", "rules-spec 2.2")
    return state


def _h_shot(state, ev: P.Shot, step):
    state = _ensure_night(state, step, "shot")
    if state.round < 1:
        step.error("shot_at_n0", f"seat {ev.by} shoots on the deal night N0", "rules-spec 2.2")
        return state
    if state.shooting_resolved:
        step.error("shot_after_shooting", f"seat {ev.by} shoots after the shooting was over", "rules-spec 2.2")
        return state
    shooter = state.seat(ev.by)
    if not shooter.role.is_black:
        step.error("shot_by_non_mafia", f"seat {ev.by} ({shooter.role.value}) is not mafia and cannot shoot",
                   step.c("miss_if_targets_differ"))
        return state
    if not shooter.in_game:
        step.error("shot_by_absent", f"seat {ev.by} shoots but is out of the game", "rules-spec 2.3.2")
        return state
    if any(b == ev.by for b, _, _ in state.shots) and step.profile.double_shot_foul:
        step.note("double_shot", f"seat {ev.by} shot twice (a foul)", step.c("double_shot_foul"))
    return replace(state, shots=state.shots + ((ev.by, ev.target, step.index),))


def _h_check(role: Role):
    def handler(state, ev, step):
        what = "Don" if role is Role.DON else "Sheriff"
        state = _ensure_night(state, step, ev.type)
        state = _resolve_shooting(state, step)
        if state.round < 1:
            step.error("check_at_n0", f"{what} check on the deal night N0", "rules-spec 2.2")
            return state
        holder = state.holder(role)
        if holder is None or holder not in state.alive_at_nightfall or state.seat(holder).removed:
            step.error("check_by_absent", f"{what} check, but the {what} (seat {holder}) is out of the game",
                       "rules-spec 2.3.2")
            return state
        flag = "don_checked" if role is Role.DON else "sheriff_checked"
        if getattr(state, flag):
            step.error("double_check", f"a second {what} check in night {state.round}", "rules-spec 2.3.8")
            return state
        target = state.seat(ev.target)
        truth = target.role is Role.SHERIFF if role is Role.DON else target.role.is_black
        if ev.answer is not None and ev.answer != truth:
            step.audit("check_answer_wrong", f"{what} check of seat {ev.target}: the judge answered "
                       f"{'yes' if ev.answer else 'no'}, the roles say {'yes' if truth else 'no'}", step.c("judge_error"))
        limit = step.profile.don_check_seconds if role is Role.DON else step.profile.sheriff_check_seconds
        if limit is not None and ev.t is not None and ev.t_end is not None and ev.t_end - ev.t > limit + 1:
            step.audit("check_overtime", f"{what} check took {ev.t_end - ev.t:.1f} s (limit {limit} s)",
                       step.c("don_check_seconds" if role is Role.DON else "sheriff_check_seconds"))
        state = replace(state, checks=state.checks + ((state.round, role.value, ev.target, ev.answer),))
        return replace(state, **{flag: True})
    return handler


def _h_guess(state, ev: P.Guess, step):
    state = _resolve_shooting(state, step)
    if state.first_killed is None or ev.seat != state.first_killed:
        step.error("guess_without_right", f"seat {ev.seat} makes a first-killed guess but was not killed "
                   "on the first shooting night", step.c("first_killed_right"))
        return state
    if not state.first_killed_right or step.profile.first_killed_right == "none":
        step.audit("guess_not_allowed", f"seat {ev.seat} was given a first-killed guess without the right "
                   "to one", step.c("first_killed_condition", "first_killed_right"))
        return state
    if state.guess is not None:
        step.error("double_guess", "a second first-killed guess; the first cannot be changed", step.c("guess_final"))
        return state
    if len(set(ev.targets)) != 3:
        step.note("guess_size", f"the guess names {len(set(ev.targets))} distinct seats, not 3", step.c("guess_size"))
    return replace(state, guess=tuple(ev.targets))


def _h_speech(state, ev: P.Speech, step):
    kind = ev.speech_kind
    if kind in ("last_word", "farewell"):
        s = state.seat(ev.seat)
        if s.in_game:
            step.audit("farewell_not_eliminated", f"seat {ev.seat} gets a {kind.replace('_', ' ')} but "
                       "neither the votes nor the shooting removed them", step.c("farewell"))
        elif s.removed and not step.profile.removal_last_word and s.exit is not ExitType.GIVE_UP:
            step.audit("last_word_after_removal", f"seat {ev.seat} was removed and has no last word",
                       step.c("removal_last_word"))
        return state
    state = _ensure_day(state, step, "speech")
    s = state.seat(ev.seat)
    if not s.in_game:
        step.error("speech_by_absent", f"seat {ev.seat} speaks but is out of the game", "rules-spec 2.3.2")
        return state
    if kind == "tie":
        tied = state.vote.tied if state.vote is not None else ()
        if ev.seat not in tied:
            step.audit("tie_speech_not_tied", f"seat {ev.seat} gets a tie speech but is not tied",
                       step.c("tie_speech_seconds"))
        return state
    if state.vote is not None:
        step.audit("speech_after_vote", f"seat {ev.seat} gives a normal speech after voting began",
                   "rules-spec 2.2")
    if not state.speakers and state.openers and state.round < len(state.openers):
        opener = state.openers[state.round]
        if opener is not None and ev.seat != opener and state.seat(opener).in_game \
                and not state.seat(opener).muted:
            step.audit("wrong_opener", f"day {state.round}: seat {ev.seat} opened, the opener is seat {opener}",
                       step.c("opener_rotation"))
    if ev.seat in state.speakers:
        step.audit("second_speech", f"seat {ev.seat} speaks twice in the same day", step.c("speech_seconds"))
    if s.muted:
        state = _muted_speech(state, ev, step)
    return replace(state, speakers=state.speakers + (ev.seat,), current_speaker=ev.seat)


def _muted_speech(state, ev: P.Speech, step):
    p = step.profile
    alive = len(state.in_game())
    short_ok = p.third_foul == "short-speech" or \
        ("last_day_3_4" in p.third_foul_exceptions and alive in (3, 4)) or \
        ("last_day_3" in p.third_foul_exceptions and alive == 3)
    dur = (ev.t_end - ev.t) if ev.t is not None and ev.t_end is not None else None
    if not short_ok:
        step.audit("muted_speech", f"seat {ev.seat} speaks but lost this speech to a third foul",
                   step.c("third_foul"))
    elif dur is not None and dur > p.short_speech_seconds + 2:
        step.audit("muted_speech_long", f"seat {ev.seat} on three fouls spoke {dur:.0f} s "
                   f"(limit {p.short_speech_seconds} s)", step.c("third_foul_exceptions"))
    return state.with_seat(ev.seat, muted=False, mute_mark=())


def _h_nominate(state, ev: P.Nominate, step):
    p = step.profile
    state = _ensure_day(state, step, "nominate")
    by, target = state.seat(ev.by), state.seat(ev.target)
    last_word = not by.in_game and by.exit is ExitType.NIGHT and by.exit_round == state.round \
        and not state.speakers
    # the player killed tonight may nominate in the last word, before the day's first
    # speech (rules-spec 2: MC, CC and SM allow it; a profile forbidding it is not modelled)
    if not by.in_game and not last_word:
        step.error("nomination_by_absent", f"seat {ev.by} nominates but is out of the game", "rules-spec 2.3.2")
        return state
    if not target.in_game:
        step.error("nominee_absent", f"seat {ev.target} is nominated but is out of the game", "rules-spec 2.3.3")
        return state
    if state.vote is not None:
        step.audit("nomination_after_vote", f"seat {ev.by} nominates {ev.target} after voting began",
                   step.c("candidate_list_reads"))
        return state
    if ev.by == ev.target and not p.self_nomination:
        step.audit("self_nomination", f"seat {ev.by} nominates themselves", step.c("self_nomination"))
    # A player muted by a third foul has no speech but still nominates at their turn (MC 4.4).
    muted_turn = by.muted and p.muted_may_nominate
    if state.current_speaker is not None and state.current_speaker != ev.by and not muted_turn:
        step.audit("nomination_out_of_turn", f"seat {ev.by} nominates during seat {state.current_speaker}'s "
                   "speech", step.c("nominations"))
    if ev.target in state.candidate_targets():
        step.audit("duplicate_nomination", f"seat {ev.target} is already a candidate", "rules-spec 2.3.3")
        return state
    own = [c for c in state.candidates if c.by == ev.by]
    cands = state.candidates
    if own:
        if p.nominations == "one_per_day" or p.withdrawal == "no" and p.nominations != "several_last_counts":
            step.audit("second_nomination", f"seat {ev.by} already nominated seat {own[0].target} today",
                       step.c("nominations"))
            return state
        # a new nomination replaces the speaker's standing one (MC 2.3.12, RU L14)
        cands = tuple(c for c in cands if c.by != ev.by)
    return replace(state, candidates=cands + (Candidate(ev.target, ev.by, step.index),))


def _h_withdraw(state, ev: P.Withdraw, step):
    state = _ensure_day(state, step, "withdraw")
    if step.profile.withdrawal == "no":
        step.audit("withdrawal_not_allowed", f"seat {ev.by} withdraws a nomination; the profile has no "
                   "withdrawal", step.c("withdrawal"))
    own = [c for c in state.candidates if c.by == ev.by and c.target == ev.target]
    if not own:
        step.audit("withdraw_not_own", f"seat {ev.by} withdraws seat {ev.target}, which is not their "
                   "nomination", step.c("withdrawal"))
        return state
    if state.vote is not None:
        step.audit("withdraw_after_vote", "withdrawal after voting began", step.c("withdrawal"))
        return state
    if state.current_speaker is not None and state.current_speaker != ev.by:
        step.audit("withdraw_out_of_turn", f"seat {ev.by} withdraws outside their own speech",
                   step.c("withdrawal"))
    return replace(state, candidates=tuple(c for c in state.candidates if c is not own[0]))


def _h_foul(state, ev: P.Foul, step):
    p = step.profile
    s = state.seat(ev.seat)
    if not s.in_game:
        if s.exit in (ExitType.NIGHT, ExitType.DAY) and s.exit_round == state.round:
            # during the last word or farewell: recorded (mafiaratings "night kill speaking"),
            # but the player is already out, so it changes nothing at the table
            step.note("foul_after_exit", f"foul to seat {ev.seat} during their last word; the player "
                      "has already left, so it has no effect on the game", "rules-spec 1.6")
            return state.with_seat(ev.seat, fouls=s.fouls + 1)
        step.error("foul_on_absent", f"foul to seat {ev.seat}, who is out of the game", "rules-spec 2.3.2")
        return state
    if ev.technical:
        if not p.technical_fouls:
            step.audit("tech_foul_not_in_profile", f"technical foul to seat {ev.seat}; the profile has none",
                       step.c("technical_fouls"))
        state = state.with_seat(ev.seat, tech_fouls=s.tech_fouls + 1)
        if s.tech_fouls + 1 >= p.tech_fouls_to_remove:
            state = _leave(state, (ev.seat,), ExitType.TECH_FOULS, step)
        return state
    n = s.fouls + 1
    state = state.with_seat(ev.seat, fouls=n)
    if n == 3 and p.third_foul != "no" and n < p.fouls_to_remove:
        mark = (state.round, state.phase.value, len(state.speakers), state.vote is not None)
        state = state.with_seat(ev.seat, muted=True, mute_mark=mark)
    if n >= p.fouls_to_remove:
        state = _leave(state, (ev.seat,), ExitType.WARNINGS, step)
    return state


def _h_removal(state, ev: P.Removal, step):
    how = ExitType.TEAM_KICK_OUT if ev.team else ExitType.KICK_OUT
    if not state.seat(ev.seat).in_game:
        step.note("removal_of_absent", f"removal of seat {ev.seat}, who had already left; no vote is "
                  "cancelled", step.c("removal_vote_effect"))
        if ev.team:
            loser = state.seat(ev.seat).team
            state = _fix_result(state, loser.other.result_name, "team removal", step)
        return state
    return _leave(state, (ev.seat,), how, step)


def _h_give_up(state, ev: P.GiveUp, step):
    if not state.seat(ev.seat).in_game:
        step.error("give_up_absent", f"seat {ev.seat} gives up but is out of the game", "rules-spec 2.3.2")
        return state
    return _leave(state, (ev.seat,), ExitType.GIVE_UP, step)


def _h_card(state, ev: P.Card, step):
    return replace(state, cards=state.cards + ((ev.seat, ev.color),))


def _h_otv(state, ev: P.Otv, step):
    if not step.profile.otv:
        step.audit("otv_not_in_profile", "opposite-team victory declared; the profile has no OTV",
                   step.c("otv"))
    return _fix_result(state, ev.team, "opposite-team victory", step)


def _h_concede(state, ev: P.Concede, step):
    winner = "maf" if ev.team == "civ" else "civ"
    return _fix_result(state, winner, f"{ev.team} conceded", step)


def _h_result(state, ev: P.Result, step):
    if state.phase is GamePhase.DAY and state.result is None:
        state = _close_day(state, step)
    elif state.phase is GamePhase.NIGHT and state.result is None:
        state = _resolve_shooting(state, step)
    state = replace(state, declared_result=ev.winner)
    if state.result is None:
        step.audit("premature_result", f"the judge declared \"{ev.winner}\" while the game could still "
                   "go either way", step.c("judge_error"))
        return replace(state, result=ev.winner, result_event=step.index, result_reason="declared by the judge")
    if state.result != ev.winner:
        step.audit("result_mismatch", f"the judge declared \"{ev.winner}\"; the protocol gives "
                   f"\"{state.result}\" ({state.result_reason})", step.c("result_declared"))
    return state


def _h_bonus(state, ev: P.Bonus, step):
    return replace(state, bonuses=state.bonuses + ((ev.seat, float(ev.points), ev.reason),))


def _h_replay(state, ev, step):
    step.note("replay", "instant replay: the game is annulled", step.c("instant_replay"))
    return replace(state, annulled=True)


def _h_pass(state, ev, step):
    return state


HANDLERS: dict[str, Callable] = {
    "nightfall": _h_nightfall, "morning": _h_morning,
    "card_pick": _h_n0, "mafia_wake": _h_n0, "don_wake": _h_n0, "sheriff_wake": _h_n0, "free_seating": _h_n0,
    "shooting_call": _h_shooting_call, "shot": _h_shot,
    "don_check": _h_check(Role.DON), "sheriff_check": _h_check(Role.SHERIFF), "guess": _h_guess,
    "speech": _h_speech, "nominate": _h_nominate, "withdraw": _h_withdraw,
    "vote_announce": _vote_announce, "vote": _vote, "raise_vote": _raise_vote,
    "foul": _h_foul, "removal": _h_removal, "give_up": _h_give_up, "card": _h_card,
    "pause": _h_pass, "replay": _h_replay, "otv": _h_otv, "concede": _h_concede, "result": _h_result,
    "bonus": _h_bonus, "appeal": _h_pass, "note": _h_pass,
}


def apply(state: GameState, event: P.Event, profile: Profile,
          index: int | None = None) -> tuple[GameState, list[Issue]]:
    """The state after `event`, and the issues it raises. Pure: `state` is not changed."""
    step = _Step(profile, index)
    try:
        new = HANDLERS[event.type](state, event, step)
        if event.taken_from_record and event.type != "raise_vote":
            step.note("taken_from_record", f"{event.type}: outcome taken from the source record")
    except Exception as exc:  # a bug must not cost the user the whole report
        step.error("internal", f"the engine could not apply this {event.type} event "
                   f"({type(exc).__name__}: {exc}); it was skipped")
        new = state
    return new, step.issues


# ------------------------------------------------------------------ whole game

@dataclass(frozen=True)
class Replay:
    """Everything derived from one protocol. `states[i]` is the state after event i."""
    profile: Profile
    initial: GameState
    states: tuple[GameState, ...]
    issues: tuple[Issue, ...]
    points: dict[int, float] = field(default_factory=dict)

    @property
    def final(self) -> GameState:
        return self.states[-1] if self.states else self.initial

    @property
    def exits(self) -> tuple[Exit, ...]:
        return self.final.exits

    @property
    def result(self) -> str | None:
        return None if self.final.annulled else self.final.result

    @property
    def vote_calls(self) -> tuple[CallTally, ...]:
        return self.final.vote_calls

    @property
    def day_outcomes(self) -> tuple[DayOutcome, ...]:
        return self.final.day_outcomes

    @property
    def raises(self) -> tuple[RaiseRecord, ...]:
        return self.final.raises

    @property
    def valid(self) -> bool:
        return not any(i.severity is Severity.ERROR for i in self.issues)

    def state_before(self, index: int) -> GameState:
        return self.initial if index <= 0 else self.states[index - 1]


def resolve_profile(protocol: P.Protocol, profile: Profile | str | None = None) -> Profile:
    """The profile to replay with: explicit argument, else the protocol's game metadata."""
    if isinstance(profile, Profile):
        return profile
    game = dict(protocol.game or {})
    if profile:
        game["profile"] = profile
    return profile_for_game(game)


def setup_issues(protocol: P.Protocol) -> list[Issue]:
    """Seat list checks: seats 1..10 once each, 7 red (1 Sheriff) and 3 black (1 Don)."""
    issues: list[Issue] = []
    seats = [s.seat for s in protocol.seats]
    dup = sorted({s for s in seats if seats.count(s) > 1})
    missing = sorted(set(range(1, 11)) - set(seats))
    if dup or missing:
        issues.append(error("seats", None, f"seats must be 1..10 once each (duplicated: {_seats(dup)}; "
                            f"missing: {_seats(missing)})", "rules-spec 2.3.1"))
    roles = [s.role for s in protocol.seats]
    counts = {r: roles.count(r) for r in Role}
    if counts[Role.DON] != 1 or counts[Role.SHERIFF] != 1 or counts[Role.MAF] != 2 or counts[Role.CIV] != 6:
        issues.append(error("roles", None, "roles must be 6 civ, 1 sheriff, 2 maf and 1 don; got "
                            + ", ".join(f"{counts[r]} {r.value}" for r in Role), "rules-spec 2.3.1"))
    return issues


def replay(protocol: P.Protocol, profile: Profile | str | None = None) -> Replay:
    """Replay a schema-valid protocol. Never raises for such input: problems become issues."""
    from .audit import audit_replay
    from .scoring import points as score
    issues: list[Issue] = []
    try:
        prof = resolve_profile(protocol, profile)
    except ProfileError as exc:
        issues.append(error("profile", None, f"{exc}; using {profile or DEFAULT_PROFILE} defaults"))
        try:
            prof = get_profile(profile if isinstance(profile, str) else None)
        except ProfileError:
            prof = get_profile()
    issues.extend(setup_issues(protocol))
    state = initial_state(protocol.roles)
    initial = state
    states = []
    for i, ev in enumerate(protocol.events):
        state, found = apply(state, ev, prof, i)
        issues.extend(found)
        states.append(state)
    rep = Replay(prof, initial, tuple(states), tuple(issues))
    try:
        extra = audit_replay(protocol, rep)
        pts = score(rep.final, prof)
    except Exception as exc:
        extra, pts = [error("internal", None, f"audit failed: {type(exc).__name__}: {exc}")], {}
    return replace(rep, issues=rep.issues + tuple(extra), points=pts)

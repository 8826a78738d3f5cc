"""Violations and judge errors injected into a performance plan.

Each injector edits the plan in place (acts, fists) and records a
`Violation`; where it puts the violation comes from the seed. Player
violations the judge did not notice leave the judge's record unchanged; an
injector that would void a vote (late vote, wrong form) only picks a fist whose
loss does not change who leaves, so the one outcome-changing error in a game
is the deliberate miscount.

The miscount: the judge misses one fist. The seat is a voter the judge counted
as a default for the last candidate (it placed nothing in the record), so the
announced counts still add up to the eligible voters and the protocol audit
sees nothing; only the video shows the fist for an earlier candidate, which
changes the outcome (the fist is chosen so that it does).

`protocol_audit` is a judge error visible in the protocol alone: an "all
leave?" vote held where the rules forbid it (a day-1 raise under a tournament
override forbidding it). It is written into the game by `game.sample_game`
(`forbidden_raise=True`); here it is only recorded.
"""
from __future__ import annotations

import random

from .model import BODY, HEAD, MASK, Act, PlannedFist, Plan, Violation
from .rng import stream
from .voting import announced, changes_outcome, outcome, recount

# type -> (rule, MC clause)
TYPES: dict[str, tuple[str, str]] = {
    "mask_late": ("V1", "MC 4.3.10"),
    "mask_touch": ("V3", "MC 2.1.3"),
    "peek": ("V4", "MC 4.8.2"),
    "night_pose": ("V5", "MC 2.1.2, 2.1.4"),
    "false_shot": ("V6", "MC 4.8.9"),
    "touch_night": ("V10", "MC 4.8.7"),
    "touch_day": ("V11", "MC 4.3.2"),
    "stand_up": ("V15", "MC 4.8.3"),
    "early_vote": ("V16", "MC 2.4.11"),
    "early_lift": ("V17", "MC 2.4.10"),
    "wrong_form": ("V18", "MC 2.4.12"),
    "double_vote": ("V20", "MC 2.4.13"),
    "late_vote": ("V21", "MC 2.4.7"),
    "miscount": ("miscount", "MC 4.20, 001 4.20.1c"),
    "protocol_audit": ("protocol_audit", "MC 2.4.15; tournament override first_day_raise_max"),
}
# What `mafvar protocol check` must report for each protocol-visible judge error.
EXPECTED_ISSUES: dict[str, str] = {"protocol_audit": "raise_forbidden"}

PLAYER_POOL = ("mask_late", "peek", "false_shot", "mask_touch", "early_vote", "late_vote",
               "early_lift", "wrong_form", "double_vote", "touch_day", "stand_up",
               "touch_night", "night_pose")


class InjectError(ValueError):
    """The requested violation has no place in this game."""


def default_selection(seed: int) -> list[str]:
    """With only a seed: the miscount plus five player violations drawn from the seed."""
    rng = stream(seed, "inject-choice")
    return ["miscount", *sorted(rng.sample(PLAYER_POOL, 5))]


def random_selection(seed: int) -> list[str]:
    rng = stream(seed, "inject-random")
    picks = rng.sample(PLAYER_POOL, rng.randint(3, 7))
    if rng.random() < 0.7:
        picks.append("miscount")
    return sorted(picks)


def parse_selection(text: str) -> list[str]:
    """Names separated by commas; `name:N` (or the name N times) injects N of
    that type, each at its own place (an evaluation wants several late votes
    or night touches from one render)."""
    items = [n.strip() for n in text.split(",") if n.strip()]
    if items == ["none"]:
        return []
    names: list[str] = []
    unknown = []
    for item in items:
        name, _, count = item.partition(":")
        if name not in TYPES:
            unknown.append(name)
            continue
        if count and (not count.isdigit() or not 1 <= int(count) <= MAX_REPEAT):
            raise InjectError(f"{item}: the count after ':' must be a whole number from 1 to {MAX_REPEAT}")
        if count and name == "protocol_audit":
            raise InjectError("protocol_audit is written into the game once; it takes no count")
        names.extend([name] * (int(count) if count else 1))
    if unknown:
        raise InjectError(f"unknown violation(s) {', '.join(unknown)}; choose from {', '.join(sorted(TYPES))}")
    return names


# the most of one type a game takes (each needs its own free seat and time)
MAX_REPEAT = 6


def _v(plan: Plan, kind: str, seats: list[int], t0: float, t1: float, **details) -> None:
    rule, clause = TYPES[kind]
    plan.violations.append(Violation(kind, rule, sorted(seats), round(t0, 2), round(t1, 2), clause, details))


def _masked_nights(plan: Plan):
    return [n for n in plan.nights if n.index >= 1 and n.t_morning is not None and n.t_shooting]


def _reds(plan: Plan, t: float) -> list[int]:
    return [s for s in plan.alive_at(t) if plan.roles[s] in ("civ", "sheriff")]


def _busy(plan: Plan, seat: int, t0: float, t1: float) -> bool:
    """Does the seat already do something special (a high-priority act) then?"""
    return any(a.seat == seat and a.priority >= 3 and a.t0 < t1 and a.t1 > t0 and a.layer != HEAD
               for a in plan.acts) or any(
        p.seat == seat and p.t_place - 0.5 < t1 and p.t_lift + 0.5 > t0 for p in plan.placements)


def _pick_seat_time(plan: Plan, rng: random.Random, spans: list[tuple[float, float]], length: float,
                    seats_of) -> tuple[int, float]:
    options = []
    for lo, hi in spans:
        if hi - lo < length + 0.4:
            continue
        for _ in range(6):
            t0 = round(rng.uniform(lo + 0.2, hi - length - 0.2), 2)
            for s in seats_of(t0):
                if not _busy(plan, s, t0 - 0.5, t0 + length + 0.5) and plan.exits.get(s, 1e9) > t0 + length + 3:
                    options.append((s, t0))
    if not options:
        raise InjectError("no free seat and time")
    return rng.choice(sorted(set(options)))


def _night_quiet_spans(plan: Plan) -> list[tuple[float, float]]:
    """Night time after every mask is on, before the morning."""
    return [(n.t_nightfall + 3.5, n.t_morning - 0.5) for n in _masked_nights(plan)]


def _shooting_spans(plan: Plan) -> list[tuple[float, float]]:
    return [n.t_shooting for n in _masked_nights(plan)]


def _day_speech_spans(plan: Plan) -> list[tuple[float, float]]:
    """Runs of consecutive normal speeches (short speeches joined across the
    gaps between them): day time with no vote and no night."""
    spans: list[tuple[float, float]] = []
    for _, t0, t1, kind in sorted((x for x in plan.speeches if x[3] == "normal"), key=lambda x: x[1]):
        if spans and t0 - spans[-1][1] <= 1.0:
            spans[-1] = (spans[-1][0], t1)
        else:
            spans.append((t0, t1))
    return spans


# ---------------------------------------------------------------- night

def inject_mask_late(plan: Plan, rng: random.Random) -> None:
    night = rng.choice(_masked_nights(plan))
    options = [a for a in plan.acts if a.layer == MASK and a.state == "mask_on"
               and abs(a.t0 - night.t_nightfall) < 3.0 and plan.roles[a.seat] in ("civ", "sheriff")]
    act = rng.choice(sorted(options, key=lambda a: a.seat))
    late = round(night.t_nightfall + rng.uniform(3.8, 5.0), 2)
    act.t0 = late
    for pose in plan.acts:
        if pose.seat == act.seat and pose.state == "night_pose" and abs(pose.t1 - act.t1) < 1.0:
            pose.t0 = late + 0.2
    _v(plan, "mask_late", [act.seat], night.t_nightfall + 3.0, late,
       nightfall=night.t_nightfall, mask_on=late)


def inject_peek(plan: Plan, rng: random.Random) -> None:
    length = rng.uniform(1.2, 2.0)
    seat, t0 = _pick_seat_time(plan, rng, _shooting_spans(plan), length, lambda t: _reds(plan, t))
    plan.acts.append(Act(seat, MASK, "mask_lifted", t0, t0 + length, 3, {"active": False}))
    _v(plan, "peek", [seat], t0, t0 + length)


def inject_false_shot(plan: Plan, rng: random.Random) -> None:
    length = rng.uniform(1.8, 2.6)
    seat, t0 = _pick_seat_time(plan, rng, _shooting_spans(plan), length, lambda t: _reds(plan, t))
    plan.acts.append(Act(seat, BODY, "hand_raised", t0, t0 + length, 3, {"fingers": 1, "hand": "right"}))
    _v(plan, "false_shot", [seat], t0, t0 + length)


def inject_mask_touch(plan: Plan, rng: random.Random) -> None:
    length = rng.uniform(1.0, 1.6)
    seat, t0 = _pick_seat_time(plan, rng, _night_quiet_spans(plan), length, lambda t: _reds(plan, t))
    plan.acts.append(Act(seat, BODY, "hand_to_mask", t0, t0 + length, 3, {"hand": "right"}))
    _v(plan, "mask_touch", [seat], t0, t0 + length)


def inject_night_pose(plan: Plan, rng: random.Random) -> None:
    length = rng.uniform(2.0, 3.0)
    seat, t0 = _pick_seat_time(plan, rng, _night_quiet_spans(plan), length, lambda t: _reds(plan, t))
    plan.acts.append(Act(seat, BODY, "rest", t0, t0 + length, 3, {"broken_pose": True}))
    _v(plan, "night_pose", [seat], t0, t0 + length)


def _neighbour(plan: Plan, seat: int, t: float, side: str) -> int | None:
    alive = plan.alive_at(t)
    step = 1 if side == "left" else -1  # seat numbers rise to a player's left
    for k in range(1, 10):
        s = (seat - 1 + step * k) % 10 + 1
        if s in alive:
            return s if k == 1 else None
    return None


def _touch(plan: Plan, rng: random.Random, kind: str, spans) -> None:
    length = rng.uniform(1.2, 1.8)
    for _ in range(20):
        seat, t0 = _pick_seat_time(plan, rng, spans, length, lambda t: sorted(plan.alive_at(t)))
        side = rng.choice(("left", "right"))
        other = _neighbour(plan, seat, t0, side)
        if other is not None:
            plan.acts.append(Act(seat, BODY, "touch_neighbour", t0, t0 + length, 3, {"side": side}))
            _v(plan, kind, [seat, other], t0, t0 + length, toucher=seat, touched=other, side=side)
            return
    raise InjectError("no neighbour to touch")


def inject_touch_night(plan: Plan, rng: random.Random) -> None:
    _touch(plan, rng, "touch_night", _night_quiet_spans(plan))


def inject_touch_day(plan: Plan, rng: random.Random) -> None:
    _touch(plan, rng, "touch_day", _day_speech_spans(plan))


def inject_stand_up(plan: Plan, rng: random.Random) -> None:
    length = rng.uniform(2.2, 3.0)
    speakers = {(t0, t1): s for s, t0, t1, _ in plan.speeches}

    def seats(t):
        return [s for s in plan.alive_at(t)
                if not any(a <= t <= b and spk == s for (a, b), spk in speakers.items())]
    seat, t0 = _pick_seat_time(plan, rng, _day_speech_spans(plan), length, seats)
    plan.acts.append(Act(seat, BODY, "standing", t0, t0 + length, 5, {"returns": True}))
    _v(plan, "stand_up", [seat], t0, t0 + length)


# ---------------------------------------------------------------- votes

def _vote_rounds(plan: Plan, exclude_miscount: bool = True):
    touched = {v.details.get("round") for v in plan.violations if v.type == "miscount"}
    return [r for r in plan.rounds if r.kind != "raise" and not (exclude_miscount and r.id in touched)]


def _fists(plan: Plan, rng: random.Random, cond) -> list[PlannedFist]:
    rounds = {r.id: r for r in _vote_rounds(plan)}
    # One violation per voter and round keeps each injection readable on video.
    marked = {(v.details.get("round"), s) for v in plan.violations if "round" in v.details for s in v.seats}
    out = [p for p in plan.placements if p.round_id in rounds and p.judge_counted
           and p.form == "thumb_up" and (p.round_id, p.seat) not in marked and cond(p, rounds[p.round_id])]
    rng.shuffle(out)
    return out


def _try_void(plan: Plan, rng: random.Random, cond, change) -> PlannedFist:
    """Apply `change` to a fist whose loss does not change the outcome."""
    for p in _fists(plan, rng, cond):
        before = (p.t_place, p.t_lift, p.form)
        change(p)
        r = plan.rounds[p.round_id]
        if not changes_outcome(plan, r):
            return p
        p.t_place, p.t_lift, p.form = before
    raise InjectError("no fist can be voided without changing who leaves")


def inject_late_vote(plan: Plan, rng: random.Random) -> None:
    def change(p):
        call = plan.rounds[p.round_id].calls[p.call]
        p.t_place = round(call.t_thanks + rng.uniform(0.08, 0.35), 2)
        p.t_lift = round(max(p.t_lift, p.t_place + 0.5), 2)
    p = _try_void(plan, rng, lambda p, r: True, change)
    call = plan.rounds[p.round_id].calls[p.call]
    _v(plan, "late_vote", [p.seat], call.t_thanks, p.t_place, round=p.round_id, candidate=p.candidate,
       t_thanks=call.t_thanks, t_place=p.t_place)


def inject_wrong_form(plan: Plan, rng: random.Random) -> None:
    form = rng.choice(("palm", "palm", "fingertip"))
    p = _try_void(plan, rng, lambda p, r: True, lambda p: setattr(p, "form", form))
    _v(plan, "wrong_form", [p.seat], p.t_place, p.t_lift, round=p.round_id, candidate=p.candidate, form=form)


def inject_early_vote(plan: Plan, rng: random.Random) -> None:
    def ok(p, r):
        # Nobody else's fist of this seat is down just before this call.
        call = r.calls[p.call]
        return not any(q.seat == p.seat and q is not p and q.t_lift > call.t - 1.2 and q.t_place < call.t
                       for q in plan.placements)
    for p in _fists(plan, rng, ok):
        call = plan.rounds[p.round_id].calls[p.call]
        prev_thanks = plan.rounds[p.round_id].calls[p.call - 1].t_thanks if p.call > 0 else call.t - 1.5
        p.t_place = round(max(prev_thanks + 0.6, call.t - rng.uniform(0.3, 0.7)), 2)
        _v(plan, "early_vote", [p.seat], p.t_place, call.t_call_end, round=p.round_id, candidate=p.candidate,
           t_call=call.t, t_place=p.t_place)
        return
    raise InjectError("no fist to place early")


def inject_early_lift(plan: Plan, rng: random.Random) -> None:
    for p in _fists(plan, rng, lambda p, r: r.calls[p.call].t_thanks - p.t_place > 0.8):
        call = plan.rounds[p.round_id].calls[p.call]
        p.t_lift = round(call.t_thanks - rng.uniform(0.25, min(0.5, call.t_thanks - p.t_place - 0.45)), 2)
        _v(plan, "early_lift", [p.seat], p.t_lift, call.t_thanks, round=p.round_id, candidate=p.candidate,
           t_lift=p.t_lift, t_thanks=call.t_thanks)
        return
    raise InjectError("no fist to lift early")


def inject_double_vote(plan: Plan, rng: random.Random) -> None:
    # A voter for an earlier candidate also puts a fist up for the last one:
    # the judge counted that seat for the last candidate by default anyway.
    for p in _fists(plan, rng, lambda p, r: p.call < len(r.calls) - 1):
        r = plan.rounds[p.round_id]
        last = r.calls[-1]
        if p.t_lift > last.t - 0.3:
            continue
        t_place = round(last.t_call_end + rng.uniform(0.2, 0.8), 2)
        second = PlannedFist(seat=p.seat, round_id=r.id, call=len(r.calls) - 1, candidate=last.candidate,
                           t_place=t_place, t_lift=round(last.t_thanks + rng.uniform(0.4, 0.8), 2),
                           hand=p.hand, judge_counted=False)
        plan.placements.append(second)
        _v(plan, "double_vote", [p.seat], t_place, second.t_lift, round=r.id,
           first=p.candidate, second=last.candidate)
        return
    raise InjectError("no voter to vote twice")


def inject_miscount(plan: Plan, rng: random.Random) -> None:
    options = []
    for r in _vote_rounds(plan, exclude_miscount=False):
        listed = {s for c in r.calls for s in c.voters} | {p.seat for p in plan.placements if p.round_id == r.id}
        defaults = [s for s in r.eligible if s not in listed]
        judged = outcome(announced(r))
        for m in defaults:
            for k, call in enumerate(r.calls[:-1]):
                true = dict(announced(r))
                true[call.candidate] += 1
                true[r.calls[-1].candidate] -= 1
                new = outcome(true)
                if new != judged:
                    # Best: a unique exit turned into another unique exit.
                    score = 2 if len(new) == 1 and len(judged) == 1 else 1
                    options.append((score, r.id, m, k))
    if not options:
        raise InjectError("no vote where one missed fist changes the outcome")
    best = max(o[0] for o in options)
    _, rid, m, k = rng.choice(sorted(o for o in options if o[0] == best))
    r = plan.rounds[rid]
    call = r.calls[k]
    lo, hi = call.t_call_end + 0.3, call.t_thanks - 0.3
    fist = PlannedFist(seat=m, round_id=rid, call=k, candidate=call.candidate,
                     t_place=round(rng.uniform(lo, max(lo, hi)), 2),
                     t_lift=round(call.t_thanks + rng.uniform(0.4, 0.8), 2), judge_counted=False)
    plan.placements.append(fist)
    true = recount(plan, r)
    _v(plan, "miscount", [m], call.t, call.t_thanks, round=rid, candidate=call.candidate,
       event=call.event, announced={str(c): n for c, n in announced(r).items()},
       true={str(c): n for c, n in true.items()},
       judge_outcome=[str(c) for c in outcome(announced(r))], true_outcome=[str(c) for c in outcome(true)])


def record_protocol_audit(plan: Plan, timed: dict) -> None:
    raises = [r for r in plan.rounds if r.kind == "raise"]
    if not raises:
        raise InjectError("protocol_audit needs the forbidden raise written into the game")
    r = raises[0]
    _v(plan, "protocol_audit", [], r.calls[0].t, r.calls[0].t_thanks, event=r.calls[0].event,
       expected_issue=EXPECTED_ISSUES["protocol_audit"], what="raise vote held where the rules forbid it")


INJECTORS = {
    "mask_late": inject_mask_late, "peek": inject_peek, "false_shot": inject_false_shot,
    "mask_touch": inject_mask_touch, "night_pose": inject_night_pose,
    "touch_night": inject_touch_night, "touch_day": inject_touch_day, "stand_up": inject_stand_up,
    "late_vote": inject_late_vote, "wrong_form": inject_wrong_form, "early_vote": inject_early_vote,
    "early_lift": inject_early_lift, "double_vote": inject_double_vote, "miscount": inject_miscount,
}

# The miscount goes first: the other vote injections then avoid its round.
ORDER = ("miscount", "protocol_audit", "double_vote", "late_vote", "wrong_form", "early_vote", "early_lift",
         "mask_late", "peek", "false_shot", "mask_touch", "night_pose", "touch_night", "touch_day", "stand_up")


def inject(plan: Plan, timed: dict, names: list[str], seed: int) -> list[Violation]:
    """Apply the named injections (in a fixed order); returns plan.violations."""
    for name in sorted(set(names), key=ORDER.index):
        if name == "protocol_audit":
            record_protocol_audit(plan, timed)
            continue
        for k in range(names.count(name)):
            # the first of a type draws from the stream it always had: a
            # selection without repeats makes the same game as before
            rng = stream(seed, f"inject:{name}" if k == 0 else f"inject:{name}:{k}")
            INJECTORS[name](plan, rng)
    for r in plan.rounds:
        recount(plan, r)
    return plan.violations

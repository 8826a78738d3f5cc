"""Per-seat acting scripts (docs/acting.md) from a performance plan.

The plan's flattened segments say when each state *holds*; an acting event
says when a move *starts* and eases in over its transition. So a move into a
state starts one transition before the segment (a fist starts moving so that
it touches the table at `t_place`), and a return to the default state (rest,
mask off, looking at the judge) starts when the segment ends (a fist lifts at
`t_lift`).

Mapping notes:
* `absent` (an eliminated player has left) is the acting vocabulary's `leave`.
* `show_fingers` counts only 0-5 (one hand): 6-10 are shown as 5 and then the
  rest, one after the other.
"""
from __future__ import annotations

from .model import BODY, DEFAULTS, HEAD, MASK, Act, Plan
from .segments import Segment, flatten

TRANSITION = 0.45
MIN_GAP = 0.05
# How long before reaching its state a move starts: the eased transition, or
# for a vote the actor's descent onto the table (0.55 s, acting/actions.py).
LEAD = {"vote": 0.55}


def placement_acts(plan: Plan) -> list[Act]:
    """Every fist as a body act (held from placement to lift)."""
    out = []
    for p in plan.placements:
        out.append(Act(p.seat, BODY, "vote_fist", p.t_place, p.t_lift, 2,
                       {"form": p.form, "hand": p.hand, "candidate": p.candidate}))
    return out


def all_acts(plan: Plan) -> list[Act]:
    return plan.acts + placement_acts(plan)


def _actions_for(seg: Segment) -> list[tuple[float, str, dict]]:
    """(offset from the segment start, action, params) for one segment."""
    s = seg.state
    if seg.layer == MASK:
        if s == "mask_on":
            return [(0.0, "mask_on", {})]
        if s == "mask_lifted":
            return [(0.0, "mask_lift", {"amount": 1.0 if seg.param("active") else 0.75})]
        return [(0.0, "mask_off", {})]
    if seg.layer == HEAD:
        if s == "speak":
            return [(0.0, "speak", {})]
        if s == "head_turn":
            yaw = {"left": 25.0, "right": -25.0}.get(seg.param("direction"), 0.0)
            return [(0.0, "head_turn", {"yaw": yaw})]
        return [(0.0, "look", {})]
    hand = seg.param("hand", "right")
    if s == "night_pose":
        return [(0.0, "night_pose", {})]
    if s == "hand_raised":
        return [(0.0, "raise_hand", {"fingers": int(seg.param("fingers", 1)), "hand": hand})]
    if s == "shot":
        return [(0.0, "shot", {"fingers": int(seg.param("fingers", 1)), "hand": hand})]
    if s == "vote_fist":
        return [(0.0, "vote", {"form": seg.param("form", "thumb_up"), "hand": hand})]
    if s == "show_fingers":
        n = int(seg.param("count", 1))
        if n <= 5:
            return [(0.0, "show_fingers", {"count": n})]
        half = (seg.t1 - seg.t0) / 2
        return [(0.0, "show_fingers", {"count": 5}), (half, "show_fingers", {"count": n - 5})]
    if s == "hand_to_mask":
        return [(0.0, "hand_to_mask", {"hand": hand})]
    if s == "touch_neighbour":
        return [(0.0, "touch_neighbour", {"side": seg.param("side", "right")})]
    if s == "absent":
        return [(0.0, "leave", {})]
    if s == "standing":
        return [(0.0, "stand_up", {})]
    return [(0.0, "rest", {})]


def seat_events(plan: Plan, seat: int, acts: list[Act] | None = None) -> list[tuple[float, str, float, dict]]:
    """(t, action, transition, params) for one seat, every channel, time-sorted."""
    acts = acts if acts is not None else all_acts(plan)
    out: list[tuple[float, str, float, dict]] = []
    for layer in (MASK, BODY, HEAD):
        last_t = -1.0
        segs = flatten(acts, seat, layer, plan.duration)
        for k, seg in enumerate(segs):
            if k == 0 and seg.state == DEFAULTS[layer]:
                continue
            entering = seg.state != DEFAULTS[layer]
            for offset, action, params in _actions_for(seg):
                start = seg.t0 + offset - (LEAD.get(action, TRANSITION) if entering else 0.0)
                t = max(start, last_t + MIN_GAP, 0.0)
                transition = round(max(0.05, min(TRANSITION, seg.t0 + offset - t if entering else TRANSITION)), 3)
                if action == "shot":
                    # The curl lands on the shot's time: curl_at from the event start.
                    params = {**params, "curl_at": round(seg.t0 - t, 3), "curl_time": 0.35}
                out.append((round(t, 3), action, transition, params))
                last_t = t
    out.sort(key=lambda e: e[0])
    return out


def build_scripts(plan: Plan):
    """The acting `Scripts` (sample_videos.acting.script) for all seats."""
    from sample_videos.acting.script import SeatScript, event  # the renderer's format

    acts = all_acts(plan)
    scripts = {}
    for seat in range(1, 11):
        evs = [event(t, action, transition, **params) for t, action, transition, params in seat_events(plan, seat, acts)]
        scripts[seat] = SeatScript(seat, tuple(evs))
    return scripts


def scripts_json(plan: Plan) -> dict:
    """The scripts as JSON without importing the renderer (same shape as
    `acting.script.scripts_to_json`)."""
    acts = all_acts(plan)
    seats = {}
    for seat in range(1, 11):
        rows = []
        for t, action, transition, params in seat_events(plan, seat, acts):
            row = {"t": t, "action": action}
            if transition != TRANSITION:
                row["transition"] = transition
            row.update(sorted(params.items()))
            rows.append(row)
        seats[str(seat)] = rows
    return {"format": "mafvar-acting", "version": 1, "seats": seats}

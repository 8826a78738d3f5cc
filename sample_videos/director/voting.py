"""The true recount of a vote from the fists (rules-spec 4.1), per profile.

Window: MC/CC from the end of the call to before "thank you"; RU from the
number; SM from the call to "thank you" inclusive. A fist placed early that is
still down when the window opens counts (engine default: count and flag).
Wrong forms are void except in RU (a missing thumb is only a foul). Only a
voter's first counted fist in a round counts; eligible non-voters go to the
last candidate (not in a raise vote).
"""
from __future__ import annotations

from functools import lru_cache

from engine.profiles import get_profile

from .model import PlannedFist, Plan, PlannedCall, VoteRound


@lru_cache(maxsize=None)
def profile_options(name: str) -> dict:
    """The options of the engine's profile of that name."""
    return get_profile(name).options()


def window(call: PlannedCall, profile: str) -> tuple[float, float, bool]:
    """(opens, closes, closes_inclusive) for a call."""
    opts = profile_options(profile)
    opens = call.t_call_end if opts["vote_window_opens"] == "call_end" else call.t
    inclusive = opts["vote_window_closes"] == "on_thanks_inclusive"
    # SM: "thank you" itself still counts; model its onset plus 0.3 s of saying it.
    closes = call.t_thanks + (0.3 if inclusive else 0.0)
    return opens, closes, inclusive


def form_counts(form: str, profile: str) -> bool:
    if form == "thumb_up":
        return True
    return not str(profile_options(profile).get("wrong_form", "")).endswith("vote_void")


def placement_status(p: PlannedFist, call: PlannedCall, profile: str) -> str:
    """in_window | early | late | wrong_form."""
    opens, closes, inclusive = window(call, profile)
    if not form_counts(p.form, profile):
        return "wrong_form"
    if p.t_place < opens:
        return "early" if p.t_lift > opens else "void_early"
    if p.t_place < closes or (inclusive and p.t_place <= closes):
        return "in_window"
    return "late"


def recount(plan: Plan, r: VoteRound) -> dict:
    """True counts per candidate for round `r`; sets `PlannedFist.counts`."""
    counts: dict = {c.candidate: 0 for c in r.calls}
    voted: set[int] = set()
    mine = sorted((p for p in plan.placements if p.round_id == r.id), key=lambda p: (p.call, p.t_place, p.seat))
    for p in mine:
        call = r.calls[p.call]
        status = placement_status(p, call, plan.profile)
        ok = status in ("in_window", "early") and p.seat not in voted and p.seat in r.eligible
        p.counts = ok
        if ok:
            voted.add(p.seat)
            counts[call.candidate] += 1
    if r.kind != "raise" and r.calls and profile_options(plan.profile)["default_votes"] == "last_candidate":
        counts[r.calls[-1].candidate] += len([s for s in r.eligible if s not in voted])
    return counts


def outcome(counts: dict) -> list:
    if not counts:
        return []
    top = max(counts.values())
    return sorted((c for c, n in counts.items() if n == top), key=str)


def announced(r: VoteRound) -> dict:
    return {c.candidate: c.announced for c in r.calls}


def raise_passes(n_for: int, eligible: int) -> bool:
    return n_for * 2 > eligible


def changes_outcome(plan: Plan, r: VoteRound) -> bool:
    true = recount(plan, r)
    if r.kind == "raise":
        return raise_passes(true["raise"], len(r.eligible)) != raise_passes(r.calls[0].announced, len(r.eligible))
    return outcome(true) != outcome(announced(r))

"""Shared by the synth tests: the injection sets, and vote counts recomputed
from a synth game's truth alone."""
from __future__ import annotations

THUMB = "thumb_up"

# Every violation type the director can put into a game, spread over two games
# (one fist per voter and round keeps them from colliding).
ALL_PLAYER_A = ("mask_late", "peek", "false_shot", "late_vote", "wrong_form", "double_vote", "touch_day")
ALL_PLAYER_B = ("mask_touch", "night_pose", "early_vote", "early_lift", "stand_up", "touch_night", "miscount")


def recount(truth, rnd):
    """MC recount from truth.json alone: a fist counts if thumb-up and placed
    in [call end, thank you) (or placed early and still down when the window
    opens); a voter's first counted fist only; non-voters go to the last."""
    counts = {c["candidate"]: 0 for c in rnd["calls"]}
    voted = set()
    for v in sorted((v for v in truth["votes"] if v["round"] == rnd["round"]), key=lambda v: (v["call"], v["t_place"])):
        call = rnd["calls"][v["call"]]
        in_window = call["call_end"] <= v["t_place"] < call["thanks"] or (
            v["t_place"] < call["call_end"] < v["t_lift"])
        if v["form"] == THUMB and in_window and v["seat"] not in voted:
            voted.add(v["seat"])
            counts[call["candidate"]] += 1
    if rnd["kind"] != "raise":
        counts[rnd["calls"][-1]["candidate"]] += len(set(rnd["eligible"]) - voted)
    return counts


def leaders(counts):
    top = max(counts.values())
    return sorted(c for c, n in counts.items() if n == top)

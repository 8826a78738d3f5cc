"""Which vote fists need their landing or lift timed to the frame, and the
recount's placements with those times applied.

A fist sampled at the vote rate is first seen up to 0.3 s before it lands
and last seen up to 0.3 s after it left the table (vision.landing). That
only matters where an edge could fall on either side of "Thank you": a fist
first seen within `NEAR` of a call's window closing has its landing timed
again at the full rate (a late vote, V21), one last seen from `NEAR` before
the closing to `LIFT_AFTER` after it has its lift timed (lifted early, V17).
Every other placement keeps its sampled times. Pure functions: the reading
is vision.landing's.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from engine.timeline import Interval, Kind
from vision.landing import FistEdge, EdgeRequest

from .recount import FULL_RATE, Placement

# seconds around a window's closing in which a sighting could be a late vote
# (a fist is first seen up to 0.3 s before it lands; late votes land within
# seconds of "Thank you")
NEAR = 0.6
# a last sighting up to this long after the closing may hide a lift before it
# (the window loses a rising fist up to 0.28 s after it left the table; fists
# kept for the count are lifted 0.4 s or more after "Thank you")
LIFT_AFTER = 0.3


def window_closes(intervals: Iterable[Interval]) -> list[float]:
    return sorted(iv.details["window_close"] for iv in intervals
                  if iv.kind is Kind.VOTE_CALL and iv.details.get("window_close") is not None)


def landing_requests(intervals: Iterable[Interval], placements: Mapping[int, Sequence[Placement]],
                     near: float = NEAR, lift_after: float = LIFT_AFTER) -> list[EdgeRequest]:
    """Sightings whose edge could fall on either side of a closing, in time order."""
    closes = window_closes(intervals)
    out = []
    for seat, ps in placements.items():
        for p in ps:
            if any(abs(p.t_place - c) <= near for c in closes):
                out.append(EdgeRequest(seat, round(p.t_place, 3), "land"))
            if p.t_lift is not None and any(-near <= p.t_lift - c <= lift_after for c in closes):
                out.append(EdgeRequest(seat, round(p.t_lift, 3), "lift"))
    return sorted(out, key=lambda r: (r.t_seen, r.seat, r.edge))


def apply_landings(placements: Mapping[int, Sequence[Placement]], landings: Iterable[FistEdge]
                   ) -> dict[int, list[Placement]]:
    """The placements with each refined sighting moved to its edge."""
    by = {(ld.seat, ld.edge, round(ld.t_seen, 3)): ld for ld in landings}
    out: dict[int, list[Placement]] = {}
    for seat, ps in placements.items():
        for p in ps:
            land = by.get((seat, "land", round(p.t_place, 3)))
            lift = by.get((seat, "lift", round(p.t_lift, 3))) if p.t_lift is not None else None
            if lift is not None:
                # a lift is never before the sighting that began the fist
                p = replace(p, t_lift=round(max(lift.t_edge, p.t_place), 3), lift_timing=FULL_RATE)
            if land is not None:
                # nor a landing after the fist is gone
                t = land.t_edge if p.t_lift is None else min(land.t_edge, p.t_lift)
                p = replace(p, t_place=round(t, 3), timing=FULL_RATE)
            out.setdefault(seat, []).append(p)
    return out


__all__ = ["NEAR", "LIFT_AFTER", "landing_requests", "apply_landings", "window_closes"]

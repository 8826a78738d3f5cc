"""Which vote fists need their landing timed to the frame, and the recount's
placements with those landings applied.

A fist sampled at the vote rate is first seen up to 0.3 s before it lands
(vision.landing). That only matters where the landing could fall on either
side of "Thank you": a fist first seen within `NEAR` of a call's window
closing is timed again at the full rate; every other placement keeps its
sampled time. Pure functions: the reading is vision.landing's.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from engine.timeline import Interval, Kind
from vision.landing import Landing, LandingRequest

from .recount import Placement

# seconds around a window's closing in which a sighting could be a late vote
# (a fist is first seen up to 0.3 s before it lands; late votes land within
# seconds of "Thank you", lifts come 0.4 s or more after it)
NEAR = 0.6


def window_closes(intervals: Iterable[Interval]) -> list[float]:
    return sorted(iv.details["window_close"] for iv in intervals
                  if iv.kind is Kind.VOTE_CALL and iv.details.get("window_close") is not None)


def landing_requests(intervals: Iterable[Interval], placements: Mapping[int, Sequence[Placement]],
                     near: float = NEAR) -> list[LandingRequest]:
    """Sightings within `near` of a window's closing, in time order."""
    closes = window_closes(intervals)
    out = [LandingRequest(seat, round(p.t_place, 3)) for seat, ps in placements.items() for p in ps
           if any(abs(p.t_place - c) <= near for c in closes)]
    return sorted(out, key=lambda r: (r.t_seen, r.seat))


def apply_landings(placements: Mapping[int, Sequence[Placement]], landings: Iterable[Landing]
                   ) -> dict[int, list[Placement]]:
    """The placements with each refined sighting moved to its landing."""
    by = {(ld.seat, round(ld.t_seen, 3)): ld for ld in landings}
    out: dict[int, list[Placement]] = {}
    for seat, ps in placements.items():
        for p in ps:
            ld = by.get((seat, round(p.t_place, 3)))
            if ld is not None:
                # the landing never comes after the fist is gone
                t = ld.t_land if p.t_lift is None else min(ld.t_land, p.t_lift)
                p = replace(p, t_place=round(t, 3), timing="landing")
            out.setdefault(seat, []).append(p)
    return out


__all__ = ["NEAR", "landing_requests", "apply_landings", "window_closes"]

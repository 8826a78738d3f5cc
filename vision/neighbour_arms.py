"""A neighbour's arm in a seat's body window: whose touch it is cannot be told.

A seat's body box reaches over the next players' heads and arms (the camera
sees the table from one side, so the boxes overlap by half and more), and the
body window reads the whole box. When a neighbour takes her own hand to her
mask, raises her arm or stands up, that arm moves through the seat's window,
and the window can read it as the seat's own touch. Measured: fresh seed 2301
(default conditions), seat 2's hand going to her mask during the night-1
shooting was read as seat 3's touch in the same frames (body window touch
0.62-0.88 while seat 2's own window read her hand at the face at 0.98-1.0):
a false touch_night on seat 3 while seat 2's true mask touch was found.

So a seat's touch is not believed in a frame in which a seat whose head lies
within its body box is doing an act of its own arm or body at the same
moment (`CROSSING_ACTS`, read by that seat's own windows), or is touching
this seat (her own touch names it) while this seat's reading names no touch
of hers: the touched player's window sees the toucher's arm, and the touch
is the toucher's. The frame's touch
becomes "cannot judge the body window" (`Observed.BODY_UNREAD`, why
`neighbour`): review raises nothing from it, and the abstention says so
(vision.view_quality `Blind.NEIGHBOUR`, review.view). A true touch reaches
into a neighbour who is sitting still (the neighbours' windows read rest or
the night pose: the committed sample's touch and seed 2301's day touch), so
it is kept; a touch at the very moment a neighbour moves her own arm is
honestly ambiguous and is abstained.

Rule-free and pure: it reads per-frame states of every seat and the seat
geometry of the calibration.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Iterable, Mapping

import numpy as np

from vision.calibration import SeatRegion, expected_head
from vision.tracks import FrameState, Observed

# The acts of a seat's own arm or body that move through its neighbours' windows.
CROSSING_ACTS = (Observed.HAND_AT_MASK, Observed.ARM_UP, Observed.HAND_RAISED, Observed.STANDING)
# the least confidence of such an act (the body window's own "says" level)
CROSSING_CONF = 0.5
# The seat readings a neighbour's moving arm can fake.
FAKED = (Observed.TOUCH,)
# Frames of two seats this close are one moment: the dense passes sample every
# seat on one grid (0.17-0.2 s apart), so the next frame counts too; an arm
# going to a mask moves for a frame before the neighbour's window names it.
SAME_MOMENT = 0.25
# a neighbour's head this many head widths outside the seat's body box still
# puts her arms in it
HEAD_MARGIN = 0.5
WHY = "neighbour"


def crossing_seats(seats: Mapping[int, SeatRegion]) -> dict[int, tuple[int, ...]]:
    """seat -> the other seats whose heads lie within its body box (grown by
    `HEAD_MARGIN` of that head's width): the players whose own arms move
    through the seat's body window."""
    out: dict[int, tuple[int, ...]] = {}
    for s, r in seats.items():
        x0, y0, x1, y1 = r.body
        near = []
        for n, other in seats.items():
            if n == s:
                continue
            (hx, hy), w = expected_head(other)
            m = HEAD_MARGIN * w
            if x0 - m <= float(hx) <= x1 + m and y0 - m <= float(hy) <= y1 + m:
                near.append(n)
        out[s] = tuple(sorted(near))
    return out


def _times(frames: Iterable[FrameState], keep) -> dict[int, np.ndarray]:
    """seat -> the sorted times of its frames `keep` accepts."""
    by: dict[int, list[float]] = {}
    for f in frames:
        if keep(f):
            by.setdefault(f.seat, []).append(f.t)
    return {s: np.array(sorted(ts)) for s, ts in by.items()}


def _at(ts: np.ndarray | None, t: float) -> bool:
    return ts is not None and bisect_right(ts, t + SAME_MOMENT) > bisect_left(ts, t - SAME_MOMENT)


def crossed(frames: Iterable[FrameState], seats: Mapping[int, SeatRegion]) -> dict[tuple[int, float], int]:
    """(seat, t) of each faked reading (`FAKED`) made in a frame in which a
    seat whose arms reach into its body window acts on its own, or touches
    this very seat (its hands found reaching into this seat's zone) while this
    seat's own reading names no touch of it -> that seat."""
    frames = list(frames)
    acting = _times(frames, lambda f: f.state in CROSSING_ACTS and f.confidence >= CROSSING_CONF)
    # a neighbour's touch naming the seat: her arm is in the seat's window (the seat is touched)
    touches: dict[tuple[str, int], list[float]] = {}    # (touched seat, toucher) -> times, in one pass
    for f in frames:
        if f.state is Observed.TOUCH and f.value is not None and f.confidence >= CROSSING_CONF:
            touches.setdefault((f.value, f.seat), []).append(f.t)
    touching = {k: np.array(sorted(ts)) for k, ts in touches.items()}
    reach = crossing_seats(seats)
    out: dict[tuple[int, float], int] = {}
    for f in frames:
        if f.state not in FAKED:
            continue
        for n in reach.get(f.seat, ()):
            if _at(acting.get(n), f.t) or (f.value != str(n) and _at(touching.get((str(f.seat), n)), f.t)):
                out[(f.seat, f.t)] = n
                break
    return out


def resolve(frames: Iterable[FrameState], seats: Mapping[int, SeatRegion]) -> list[FrameState]:
    """The frames with each reading a neighbour's own act explains replaced by
    "cannot judge the body window" (`Observed.BODY_UNREAD`, why `neighbour`)."""
    frames = list(frames)
    hit = crossed(frames, seats)
    if not hit:
        return frames
    out: list[FrameState] = []
    unread: set[tuple[int, float]] = set()
    for f in frames:
        key = (f.seat, f.t)
        if f.state in FAKED and key in hit:
            if key not in unread:
                unread.add(key)
                out.append(FrameState(f.t, f.seat, Observed.BODY_UNREAD, 1.0, WHY))
            continue
        out.append(f)
    return out


__all__ = ["CROSSING_ACTS", "CROSSING_CONF", "FAKED", "SAME_MOMENT", "HEAD_MARGIN", "WHY",
           "crossing_seats", "crossed", "resolve"]

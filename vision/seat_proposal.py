"""Seats proposed from a recording: players found on several day frames, the
table and camera fitted to them (`vision.table_model`), each seat's regions
projected from that fit, numbered clockwise from the judge's left.

Per frame (`find_heads`): MediaPipe's person detector on tiles of every scale
(`vision.people`) fires several times on a real person (neighbouring tiles,
neighbouring scales) and once on a chair or a patch of floor; detections are
grouped, groups of one are dropped, and the pose landmark model reads each
group's person once: the head's centre (between the ears) and width.

Over frames (`propose_seats`): the heads of all frames are grouped again; a
player sits still and is found in most frames, a walking judge or a
detection by chance is not. The table fit then takes the heads (weighted by
how often each was seen) and gives every seat, the ones nobody found too.

A seat is `seen` when a head found in the frames was matched to it, else
`placed` (by the table and camera alone); the proposal says which.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from vision.calibration import Calibration, CameraCalibration, SeatRegion
from vision.people import FoundHead, PeopleFinder
from vision.table_model import Fit, Head, fit_candidates, predicted_heads, refit, seat_boxes

# Heads in two frames closer than this (head widths) are the same player.
SAME_HEAD = 0.6
# A head found nearer than this to a seat's predicted head (head widths) is that seat's player.
HEAD_MATCH = 1.0
# The fit has 11 unknowns (camera: focal length, position, heading, tilt, roll,
# distortion; table: length, width, seat spacing) and each player found gives
# three readings (where the head is, how large): below six players the table is
# not determined (a mirrored or shifted table explains them as well) and the
# numbers may be wrong. Such a proposal is shown, never written unseen.
MIN_PLAYERS_FOR_FIT = 6

@dataclass
class SeatProposal:
    calibration: Calibration
    fit: Fit | None
    heads: list[Head]                         # the heads the fit was given (over all frames)
    frames: int
    seen: dict[int, bool] = field(default_factory=dict)     # seat -> a found head is its player
    problems: list[str] = field(default_factory=list)
    uncertain: str | None = None      # why the seats are a guess (too few players found), else None

    @property
    def seats_seen(self) -> list[int]:
        return sorted(s for s, ok in self.seen.items() if ok)


def merge_frames(per_frame: Sequence[Sequence[FoundHead]]) -> list[Head]:
    """One head per player over the frames, weighted by the share of frames it was seen in."""
    tracks: list[list[FoundHead]] = []
    for heads in per_frame:
        for h in heads:
            near = [(math.dist(h.centre, _mean(t)[:2]) / max(h.width, 1.0), i) for i, t in enumerate(tracks)]
            near = [(d, i) for d, i in near if d <= SAME_HEAD]
            if near:
                tracks[min(near)[1]].append(h)
            else:
                tracks.append([h])
    n = max(1, len(per_frame))
    out = []
    for t in tracks:
        x, y, w = _mean(t)
        out.append(Head(x, y, w, weight=min(1.0, len(t) / n)))
    return out


def _mean(t: Sequence[FoundHead]) -> tuple[float, float, float]:
    return (float(np.median([h.x for h in t])), float(np.median([h.y for h in t])),
            float(np.median([h.width for h in t])))


def propose_seats(frames: Sequence[np.ndarray], finder: PeopleFinder | None = None, cam: str = "cam1",
                  progress: Callable[[int, int], None] | None = None) -> SeatProposal:
    """Seats from day frames (RGB, all of one camera and size)."""
    if not frames:
        raise ValueError("no frames to find the seats on")
    h, w = frames[0].shape[:2]
    own = finder is None
    finder = finder or PeopleFinder()
    try:
        per_frame = []
        for i, f in enumerate(frames):
            per_frame.append(finder.find_heads(f))
            if progress is not None:
                progress(i + 1, len(frames) + 1)
        # a player seen in one frame of many is more likely a passer-by than a seat
        fit, heads = _fit_and_look_again(frames, per_frame, finder, (w, h))
        if progress is not None:
            progress(len(frames) + 1, len(frames) + 1)
    finally:
        if own:
            finder.close()
    if fit is None:
        return SeatProposal(Calibration({cam: CameraCalibration(w, h, {})}), None, heads, len(frames),
                            problems=[f"only {len(heads)} players found on {len(frames)} frames: too few "
                                      f"to place the table (at least 4 are needed)"])
    proposal = _proposal(fit, heads, (w, h), cam, len(frames))
    if len(proposal.seats_seen) < MIN_PLAYERS_FOR_FIT:
        proposal.uncertain = (f"only {len(proposal.seats_seen)} of 10 players found on {len(frames)} frames "
                              f"(at least {MIN_PLAYERS_FOR_FIT} fix the table): the seats and their numbers "
                              f"are a guess; check every seat over the frame")
    return proposal


def _kept(per_frame: Sequence[Sequence[FoundHead]]) -> list[Head]:
    # a player seen in one frame of many is more likely a passer-by than a seat
    n = max(1, len(per_frame))
    return [hd for hd in merge_frames(per_frame) if hd.weight >= min(0.5, 1.5 / n)]


def _fit_and_look_again(frames, per_frame, finder, size) -> tuple[Fit | None, list[Head]]:
    """Fit the table; where each of the best few fits puts a player nobody found,
    look again (`PeopleFinder.head_near`). The fit whose seats the frames confirm
    most wins; it is fitted again with every head found."""
    heads = _kept(per_frame)
    best: tuple[int, float, Fit, list[list[FoundHead]]] | None = None
    for fit in fit_candidates(heads, size):
        extra = _look_again(frames, fit, finder, per_frame)
        seats = len(fit.matched) + len({k for found in extra for k, _ in found})
        if best is None or (seats, -fit.cost) > (best[0], -best[1]):
            best = (seats, fit.cost, fit, [[hd for _, hd in found] for found in extra])
        if seats == 10:
            break
    if best is None:
        return None, heads
    _, _, fit, confirmed = best
    if any(confirmed):
        heads = _kept([list(a) + b for a, b in zip(per_frame, confirmed)])
        # from the fit the frames confirmed (a fit from scratch may pick another table)
        fit = refit(fit, heads, size)
    return fit, heads


def _look_again(frames: Sequence[np.ndarray], fit: Fit, finder: PeopleFinder,
                per_frame: Sequence[Sequence[FoundHead]]) -> list[list[tuple[int, FoundHead]]]:
    """Per frame, (seat, head) for the seats of `fit` nobody was matched to, where
    a player is found on looking again at the seat's predicted head."""
    from vision.people import pad_square

    pred, pred_w = predicted_heads(fit.camera, fit.table)
    missing = [k for k in range(10) if k + 1 not in fit.matched]
    out: list[list[tuple[int, FoundHead]]] = []
    for f, found in zip(frames, per_frame):
        got: list[tuple[int, FoundHead]] = []
        if missing:
            square, offset = pad_square(f)
            for k in missing:
                x, y, w = float(pred[k, 0]), float(pred[k, 1]), float(pred_w[k])
                if any(math.dist(hd.centre, (x, y)) <= SAME_HEAD * w for hd in found):
                    continue
                hd = finder.head_near(f, square, offset, (x, y, w), within=HEAD_MATCH)
                if hd is not None:
                    got.append((k + 1, hd))
        out.append(got)
    return out


def _proposal(fit: Fit, heads: list[Head], size: tuple[int, int], cam: str, n_frames: int) -> SeatProposal:
    pred, pred_w = predicted_heads(fit.camera, fit.table)
    boxes = seat_boxes(fit.camera, fit.table)
    seats: dict[int, SeatRegion] = {}
    seen: dict[int, bool] = {}
    for s in range(1, 11):
        body, zone = boxes[s - 1]
        px, py, pw = float(pred[s - 1, 0]), float(pred[s - 1, 1]), float(pred_w[s - 1])
        j = fit.matched.get(s)
        own = heads[j] if j is not None else None
        if own is not None and math.dist((own.x, own.y), (px, py)) <= HEAD_MATCH * pw:
            seats[s] = SeatRegion(body, zone, (round(own.x, 1), round(own.y, 1), round(pw, 1)))
            seen[s] = True
        else:
            seats[s] = SeatRegion(body, zone, (round(px, 1), round(py, 1), round(pw, 1)))
            seen[s] = False
    cal = Calibration({cam: CameraCalibration(size[0], size[1], seats)}, confirmed_by=None)
    return SeatProposal(cal, fit, heads, n_frames, seen)

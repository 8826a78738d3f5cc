"""Frame differencing: has a seat changed since it was last analysed?

Most of a game is players sitting still: a masked table at night, nine
listeners while one speaks, fists held on the table through a vote. A seat
whose pixels have not changed since the last frame the models looked at
would get the same answer again (the windows and the static-mode landmark
models are deterministic), so its result is carried instead of recomputed.

The test is a small thumbnail of everything the seat's analysis looks
at (body, table zone and the zone crop's margin), compared with the
thumbnail of the last *analysed* frame, not the last carried one, so slow
drift accumulates until it is seen. A vote fist of about 30 px in a 720p
frame changes a few thumbnail pixels by far more than the threshold;
compression noise, averaged over a 6-8 px cell, stays well under it.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Callable, TypeVar

import cv2
import numpy as np

from vision.calibration import Box, SeatRegion, box_iou
from vision.crops import expand, seat_box, union

THUMB_LONG_SIDE = 48
# A thumbnail pixel must change by more than this (0-255 luma) for the seat to
# count as changed.
STILL_MAX_DIFF = 8
# Never carry across a longer gap (a chunk boundary, another worker's range).
CARRY_MAX_GAP = 2.5
# The zone crop's margin (vision.schedule.ZONE_MARGIN) is looked at as well.
ZONE_MARGIN = 0.35


def watch_box(region: SeatRegion, frame_size: tuple[int, int]) -> Box:
    """Every frame pixel the seat's analysis reads."""
    return union(seat_box(region, frame_size), expand(region.table_zone, ZONE_MARGIN, frame_size))


def thumbnail(image: np.ndarray, box: Box) -> np.ndarray:
    """The green channel (most of luminance) of every second pixel, area-averaged
    to a long side of THUMB_LONG_SIDE (int16, ready to subtract): a third of
    the cost of a grey conversion of the whole box (measured 0.09 ms against
    0.24 ms per seat), and a 30 px fist still covers about 15 of its samples."""
    h, w = image.shape[:2]
    x0, y0 = int(max(0, box[0])), int(max(0, box[1]))
    x1, y1 = int(min(w, np.ceil(box[2]))), int(min(h, np.ceil(box[3])))
    part = image[y0:y1:2, x0:x1:2, 1]
    s = THUMB_LONG_SIDE / max(1, part.shape[0], part.shape[1])
    size = (max(1, round(part.shape[1] * s)), max(1, round(part.shape[0] * s)))
    return cv2.resize(part, size, interpolation=cv2.INTER_AREA).astype(np.int16)


@dataclass
class _Reference:
    t: float
    thumb: np.ndarray
    mode: object          # what was run (models, passes): a carry needs the same
    result: object        # SeatLandmarks


class MotionGate:
    """Per-seat references of one worker. `carry` returns the last analysed
    result re-timed to `t` when the seat is still, else None; `keep` records
    a newly analysed frame as the seat's reference."""

    def __init__(self, max_diff: int = STILL_MAX_DIFF, max_gap: float = CARRY_MAX_GAP):
        self.max_diff = max_diff
        self.max_gap = max_gap
        self._refs: dict[int, _Reference] = {}
        self._last_t: dict[int, float] = {}

    def carry(self, seat: int, t: float, thumb: np.ndarray, mode: object):
        ref = self._refs.get(seat)
        last = self._last_t.get(seat)
        self._last_t[seat] = t
        if ref is None or last is None or ref.mode != mode or not 0 < t - last <= self.max_gap:
            return None
        if ref.thumb.shape != thumb.shape or int(np.abs(thumb - ref.thumb).max()) > self.max_diff:
            return None
        # the models keep their rows (zero cost): the store writes one row per model in `cpu`
        return replace(ref.result, t=t, cpu=dict.fromkeys(ref.result.cpu, 0.0),
                       features=dict(ref.result.features))

    def keep(self, seat: int, t: float, thumb: np.ndarray, mode: object, result) -> None:
        self._refs[seat] = _Reference(t, thumb, mode, result)
        self._last_t[seat] = t


# A box read before is recalled only for a new box overlapping it this much
# (a skin blob's box moves by a pixel or two with the skin mask's noise).
RECALL_MIN_IOU = 0.7
PATCH_SIDE = 16
V = TypeVar("V")


def patch(image: np.ndarray, box) -> np.ndarray | None:
    """The green channel of `box` (image px), area-averaged to PATCH_SIDE
    square (int16): a 25 px fist covers every cell."""
    h, w = image.shape[:2]
    x0, y0 = int(max(0, round(box[0]))), int(max(0, round(box[1])))
    x1, y1 = int(min(w, round(box[2]))), int(min(h, round(box[3])))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    part = np.ascontiguousarray(image[y0:y1, x0:x1, 1])
    return cv2.resize(part, (PATCH_SIDE, PATCH_SIDE), interpolation=cv2.INTER_AREA).astype(np.int16)


@dataclass
class _Reading:
    t: float
    crop_box: tuple
    box: tuple
    patch: np.ndarray
    value: object


@dataclass
class RegionMemory:
    """What a model read in small boxes of a seat's crop, recalled while
    those pixels stay still: the frame-level gate (MotionGate) needs the
    whole seat still, and a talking player's seat rarely is, while the
    resting hands and forearms on the table, whose skin blobs cost up to
    four landmark runs each, are (on the full-length game's first six vote
    calls, without the frame gate, 58% of the blob readings had the same
    pixels 0.2 s before, and 99% of those read the same; behind the gate, on
    the whole game, 13% of the box readings are recalled). As with MotionGate, a box is compared with
    the pixels of the frame it was last *read* in, so slow drift is seen.
    `kind` keeps different questions about the same box apart."""
    max_diff: int = STILL_MAX_DIFF
    max_gap: float = CARRY_MAX_GAP
    min_iou: float = RECALL_MIN_IOU
    read: int = 0
    recalled: int = 0
    _kept: dict = field(default_factory=dict)

    def recall(self, seat: int, kind: str, t: float, crop_box, image: np.ndarray, box):
        """A copy of the value read in a box like `box` whose pixels have not
        changed, or None."""
        key = (seat, kind)
        kept = [r for r in self._kept.get(key, []) if 0 <= t - r.t <= self.max_gap]
        self._kept[key] = kept
        for r in kept:
            if r.crop_box != tuple(crop_box) or box_iou(r.box, box) < self.min_iou:
                continue
            now = patch(image, r.box)
            if now is not None and int(np.abs(now - r.patch).max()) <= self.max_diff:
                self.recalled += 1
                return copy.deepcopy(r.value)
        return None

    def keep(self, seat: int, kind: str, t: float, crop_box, image: np.ndarray, box, value) -> None:
        self.read += 1
        p = patch(image, box)
        if p is not None:
            self._kept.setdefault((seat, kind), []).append(
                _Reading(t, tuple(crop_box), tuple(box), p, copy.deepcopy(value)))

    def through(self, seat: int, kind: str, t: float, crop_box, image: np.ndarray, box, read: Callable[[], V]) -> V:
        """The value recalled for `box`, else `read()`, kept for the frames after."""
        value = self.recall(seat, kind, t, crop_box, image, box)
        if value is None:
            value = read()
            self.keep(seat, kind, t, crop_box, image, box, value)
        return value


__all__ = ["MotionGate", "RegionMemory", "patch", "thumbnail", "watch_box", "STILL_MAX_DIFF", "CARRY_MAX_GAP"]

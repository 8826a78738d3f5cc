"""Seat crops: cut a region out of a frame at a detector-friendly size and
map points found in the crop back to frame pixels.

MediaPipe's detectors shrink their whole input to 128-256 px, so a seat
must fill the input for a hand or face to stay large enough to find.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import Box, SeatRegion

DEFAULT_LONG_SIDE = 384


@dataclass(frozen=True)
class Crop:
    image: np.ndarray        # RGB uint8, contiguous
    box: Box                 # the frame region it shows (integer px)
    scale: float             # crop px per frame px (long side)
    region: SeatRegion | None = None   # the seat it was cut for (pixel features look at its head)

    @property
    def scale_xy(self) -> tuple[float, float]:
        """Realised per-axis scale (crop sizes are rounded to whole px)."""
        h, w = self.image.shape[:2]
        return (w / (self.box[2] - self.box[0]), h / (self.box[3] - self.box[1]))

    def to_frame(self, xy: np.ndarray) -> np.ndarray:
        """Crop pixel coordinates (..., 2) -> frame pixel coordinates."""
        xy = np.asarray(xy, dtype=np.float64)
        return xy / np.array(self.scale_xy) + np.array([self.box[0], self.box[1]])

    def to_crop(self, xy: np.ndarray) -> np.ndarray:
        """Frame pixel coordinates (..., 2) -> crop pixel coordinates (to_frame's inverse)."""
        xy = np.asarray(xy, dtype=np.float64)
        return (xy - np.array([self.box[0], self.box[1]])) * np.array(self.scale_xy)

    def normalized_to_frame(self, xy: np.ndarray) -> np.ndarray:
        """MediaPipe's normalised [0, 1] crop coordinates -> frame pixels."""
        xy = np.asarray(xy, dtype=np.float64)
        h, w = self.image.shape[:2]
        return self.to_frame(xy * np.array([w, h]))


def expand(box: Box, margin: float, frame_size: tuple[int, int]) -> Box:
    """Grows a box by `margin` of its size on every side, clipped to the frame."""
    w, h = frame_size
    bw, bh = box[2] - box[0], box[3] - box[1]
    return (max(0.0, box[0] - margin * bw), max(0.0, box[1] - margin * bh),
            min(float(w), box[2] + margin * bw), min(float(h), box[3] + margin * bh))


def union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def seat_box(region: SeatRegion, frame_size: tuple[int, int], margin: float = 0.1,
             include_table: bool = True) -> Box:
    """The frame region analysed for a seat: body (plus its table zone, where
    vote fists land) with a margin so raised hands are not cut off."""
    box = union(region.body, region.table_zone) if include_table else region.body
    return expand(box, margin, frame_size)


def crop(frame: np.ndarray, box: Box, long_side: int = DEFAULT_LONG_SIDE) -> Crop:
    """Cuts `box` (frame px) and rescales it so its long side is `long_side`."""
    h, w = frame.shape[:2]
    x0, y0 = int(max(0, np.floor(box[0]))), int(max(0, np.floor(box[1])))
    x1, y1 = int(min(w, np.ceil(box[2]))), int(min(h, np.ceil(box[3])))
    if x1 - x0 < 2 or y1 - y0 < 2:
        raise ValueError(f"crop box {box} is empty inside a {w}x{h} frame")
    region = frame[y0:y1, x0:x1]
    scale = long_side / max(x1 - x0, y1 - y0)
    out_w, out_h = max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    image = cv2.resize(region, (out_w, out_h), interpolation=interp)
    return Crop(np.ascontiguousarray(image), (float(x0), float(y0), float(x1), float(y1)),
                float(scale))


def seat_crop(frame: np.ndarray, region: SeatRegion, long_side: int = DEFAULT_LONG_SIDE,
              margin: float = 0.1, include_table: bool = True) -> Crop:
    h, w = frame.shape[:2]
    c = crop(frame, seat_box(region, (w, h), margin, include_table), long_side)
    return Crop(c.image, c.box, c.scale, region)

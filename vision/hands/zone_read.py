"""Hands in a table-zone crop that MediaPipe's palm detector misses.

A real fist at a 720p table camera is 25-40 px; the palm detector, which
sees the zone crop shrunk to 192 px, finds fewer than half of the real
thumb-up fists laid into rendered zones (scripts/eval_real_hands.py), while
the landmark model, given a box around the same fist, reads it as thumb-up
in three of four (vision/hands/roi.py). So skin-coloured blobs of a hand's
size that no found hand covers are proposed as boxes, and the landmark
model reads each (it answers nothing where its hand presence is low:
a sleeve, a cup, a paper).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.skin import skin_mask

# blob area bounds in (zone crop width)^2: a palm is 0.15-0.35 zone widths
MIN_AREA, MAX_AREA = 0.012, 0.25
MAX_PROPOSALS = 2
BOX_GROW = 1.6   # the box around a blob: the fingers and thumb may be out of the skin mask


def skin_proposals(image_rgb: np.ndarray, found_px: list[np.ndarray],
                   max_proposals: int = MAX_PROPOSALS,
                   within: tuple[float, float, float, float] | None = None) -> list[tuple[float, float, float, float]]:
    """Boxes (crop px) around hand-sized skin blobs that no found hand
    (landmarks (21, 2+) in crop px) covers, centred inside `within` (crop px)
    when given; largest first."""
    h, w = image_rgb.shape[:2]
    mask: np.ndarray = skin_mask(image_rgb).astype(np.uint8)
    # the found hands' own skin is theirs: only what is left may hold another hand
    for pts in found_px:
        hull = cv2.convexHull(np.round(pts[:, :2]).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, (0,))
        size = float(np.ptp(pts[:, :2], axis=0).max())
        cv2.polylines(mask, [hull], True, (0,), max(1, int(round(0.15 * size))))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_OPEN, k), cv2.MORPH_CLOSE, k)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask)
    side = float(max(h, w))
    out = []
    for i in np.argsort(-stats[1:, cv2.CC_STAT_AREA]) + 1:
        area = stats[i, cv2.CC_STAT_AREA] / side ** 2
        if not MIN_AREA <= area <= MAX_AREA:
            continue
        cx, cy = centroids[i]
        if within is not None and not (within[0] <= cx <= within[2] and within[1] <= cy <= within[3]):
            continue
        x, y, bw, bh = stats[i, :4]
        half = BOX_GROW * max(bw, bh) / 2
        out.append((cx - half, cy - half, cx + half, cy + half))
        if len(out) >= max_proposals:
            break
    return out


def second_readings(roi, image_rgb: np.ndarray, points_px: np.ndarray) -> list[np.ndarray]:
    """More readings ((21, 2) crop px) of a hand found at `points_px` (21, 2+)
    in a zone crop: the landmark model (roi: vision.hands.roi.RoiLandmarker)
    searched again in the box around those points, and in the mirror image.
    A 30 px real fist's first landmarks are often a poor fit (the palm
    detector's box, or a skin blob's); read afresh, and mirrored (the form
    model is blind to mirroring, MediaPipe's errors are not), a thumb-up fist
    read as something else once is read as one twice, and a palm once read
    as a thumb-up is not again. The vote takes the median over the readings
    (vision.seat_states._zone_vote). Measured on the HaGRID training half
    laid into the committed sample's zones (scripts/eval_real_hands.py
    --tune): a fresh search, not a re-read in the box the first landmarks
    give (that repeats their error: 12 of 29 thumb-ups against 16)."""
    from vision.hands.roi import rotation_toward, rotations_from

    pts = np.asarray(points_px, dtype=np.float64)[:, :2]
    width = image_rgb.shape[1]
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    # the first reading's own rotation is tried first: it is most often the
    # hand's, and each other rotation tried costs a model run
    wrist, knuckle = pts[0], pts[9]
    out = []
    again = roi.find(image_rgb, (x0, y0, x1, y1), rotations_from(rotation_toward(wrist, knuckle)))
    if again is not None:
        out.append(again[0][:, :2])
    flip = (width - 1 - wrist[0], wrist[1]), (width - 1 - knuckle[0], knuckle[1])
    mirrored = roi.find(np.ascontiguousarray(image_rgb[:, ::-1]), (width - 1 - x1, y0, width - 1 - x0, y1),
                        rotations_from(rotation_toward(*flip)))
    if mirrored is not None:
        back = mirrored[0][:, :2].copy()
        back[:, 0] = width - 1 - back[:, 0]
        out.append(back)
    return out


__all__ = ["second_readings", "skin_proposals"]

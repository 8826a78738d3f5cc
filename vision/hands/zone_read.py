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
                   max_proposals: int = MAX_PROPOSALS) -> list[tuple[float, float, float, float]]:
    """Boxes (crop px) around hand-sized skin blobs that no found hand
    (landmarks (21, 2+) in crop px) covers; largest first."""
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
        x, y, bw, bh = stats[i, :4]
        half = BOX_GROW * max(bw, bh) / 2
        out.append((cx - half, cy - half, cx + half, cy + half))
        if len(out) >= max_proposals:
            break
    return out


__all__ = ["skin_proposals"]

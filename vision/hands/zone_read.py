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
                   within: tuple[float, float, float, float] | None = None,
                   player_xy: tuple[float, float] | None = None,
                   palm_px: float | None = None) -> list[tuple[float, float, float, float]]:
    """Boxes (crop px) around hand-sized skin blobs that no found hand
    (landmarks (21, 2+) in crop px) covers, centred inside `within` (crop px)
    when given; largest first. With `player_xy` (where the seat's player
    sits) and `palm_px` (a palm's length, wrist to middle knuckle) also a
    hand-sized box at the far end of each blob larger than a hand
    (distal_boxes)."""
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
    if player_xy is not None and palm_px and within is not None:
        out += distal_boxes(labels, stats, player_xy, palm_px, within)
    return out


# A blob wider than this many palms is more than a hand: a hand with its
# forearm, or a hand touching a resting hand, a sleeve or a skin-coloured
# chair behind (the skin mask joins them). Its hand is at the end away from
# the player; a box around the whole blob is too big for the landmark model.
# Measured on the HaGRID training half laid into the sample's zones
# (scripts/eval_real_hands.py --tune): 9 of its 12 missed thumb-ups were
# real fists merged into such blobs.
DISTAL_SPAN = 3.0
# the hand's centre lies this many palms back from the blob's far end; the
# box's half side, in palms (a fist and its thumb span about two palms)
DISTAL_BACK, DISTAL_HALF = 0.9, 1.4
MAX_DISTAL = 2


def distal_boxes(labels: np.ndarray, stats: np.ndarray, player_xy: tuple[float, float], palm_px: float,
                 within: tuple[float, float, float, float]) -> list[tuple[float, float, float, float]]:
    """Hand-sized boxes (crop px) at the far end, seen from the player, of
    each skin blob (connected components `labels`, `stats`) larger than a
    hand, its far end taken among its pixels inside `within`; largest blob
    first, at most MAX_DISTAL."""
    x0, y0, x1, y1 = (int(round(v)) for v in within)
    h, w = labels.shape
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return []
    player = np.array(player_xy, dtype=np.float64)
    toward = np.array([(x0 + x1) / 2, (y0 + y1) / 2]) - player
    norm = float(np.linalg.norm(toward))
    if norm < 1e-6:
        return []
    toward /= norm
    inside = labels[y0:y1, x0:x1]
    out: list[tuple[float, float, float, float]] = []
    for i in np.argsort(-stats[1:, cv2.CC_STAT_AREA]) + 1:
        if max(stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]) < DISTAL_SPAN * palm_px:
            continue
        ys, xs = np.nonzero(inside == i)
        if len(xs) < palm_px * palm_px * 0.25:
            continue
        pts = np.column_stack([xs + x0, ys + y0]).astype(np.float64)
        reach = (pts - player) @ toward
        # the far end: the blob's pixels within a third of a palm of its farthest
        end = pts[reach >= reach.max() - palm_px / 3].mean(axis=0)
        c = end - DISTAL_BACK * palm_px * toward
        half = DISTAL_HALF * palm_px
        out.append((float(c[0] - half), float(c[1] - half), float(c[0] + half), float(c[1] + half)))
        if len(out) >= MAX_DISTAL:
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


__all__ = ["distal_boxes", "second_readings", "skin_proposals"]

"""Real hands placed on rendered table zones, at the table camera's scale.

No recording of a real club with its truth exists here, but real hand
photographs do (HaGRID crops in the shared data). To measure and train the
vote-fist decision on real pixels, a real hand is cut out of its photo and
laid into a seat's table zone of a rendered frame, with a forearm reaching
in from the player's side, at the size a 720p table camera gives a hand
(wrist to middle knuckle 18-30 px: a fist of about 22-36 px).

The hand is separated from its background by GrabCut seeded from its own
MediaPipe landmarks (the bones are surely hand, the image border and what
lies far from the landmarks surely not); the edge is feathered. What the
cut keeps of the photo's background is small at this scale, and real.

Pure image functions; the caller chooses frames, seats and hands.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import Box
from vision.hands.fingers import palm_length

# MediaPipe's hand skeleton (landmark index pairs)
BONES = ((0, 1), (1, 2), (2, 3), (3, 4), (0, 5), (5, 6), (6, 7), (7, 8), (5, 9), (9, 10), (10, 11), (11, 12),
         (9, 13), (13, 14), (14, 15), (15, 16), (13, 17), (0, 17), (17, 18), (18, 19), (19, 20))
# wrist to middle knuckle, frame px, of a hand seen by a 720p table camera
PALM_PX = (18.0, 30.0)


def cut_out(image_rgb: np.ndarray, landmarks: np.ndarray, iterations: int = 4) -> np.ndarray:
    """Alpha (float 0-1, image size) of the hand in a photo, from GrabCut
    seeded by its landmarks (21, 2+) in image px."""
    h, w = image_rgb.shape[:2]
    pts = np.asarray(landmarks, dtype=np.float64)[:, :2]
    size = max(palm_length(pts), 4.0)
    mask: np.ndarray = np.full((h, w), cv2.GC_PR_BGD, np.uint8)
    hull = cv2.convexHull(np.round(pts).astype(np.int32))
    near: np.ndarray = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(near, hull, (1,))
    near = cv2.dilate(near, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(size * 0.6) | 1,) * 2))
    mask[near > 0] = cv2.GC_PR_FGD
    far: np.ndarray = cv2.dilate(near, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(size * 0.8) | 1,) * 2))
    mask[far == 0] = cv2.GC_BGD
    border = max(1, int(round(min(h, w) * 0.02)))
    edge = np.zeros((h, w), bool)
    edge[:border], edge[-border:], edge[:, :border], edge[:, -border:] = True, True, True, True
    mask[edge & (near == 0)] = cv2.GC_BGD
    thick = max(1, int(round(size * 0.12)))
    for a, b in BONES:
        pa, pb = np.round(pts[a]).astype(int), np.round(pts[b]).astype(int)
        cv2.line(mask, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), (int(cv2.GC_FGD),), thick)
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    try:
        cv2.grabCut(cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), mask, (0, 0, 0, 0), bgd, fgd, iterations,
                    cv2.GC_INIT_WITH_MASK)
    except cv2.error:
        pass  # a degenerate seed (all one class): keep the seed itself
    alpha = np.isin(mask, (cv2.GC_FGD, cv2.GC_PR_FGD)).astype(np.float32)
    # keep the piece that holds the bones (GrabCut may keep background islands)
    n, labels = cv2.connectedComponents((alpha > 0).astype(np.uint8))
    if n > 2:
        wrist = np.clip(np.round(pts[[0, 5, 9, 13, 17]]).astype(int), 0, [w - 1, h - 1])
        keep = {int(labels[y, x]) for x, y in wrist} - {0}
        if keep:
            alpha = np.isin(labels, list(keep)).astype(np.float32)
    return alpha


@dataclass(frozen=True)
class Placement:
    """Where and how a cut-out hand lands: palm length in frame px, the wrist's
    position in frame px, an in-plane turn in degrees, a brightness gain, and
    the forearm's direction (unit vector from the wrist toward the elbow)
    and colour (RGB)."""
    palm_px: float
    wrist_xy: tuple[float, float]
    turn_deg: float
    gain: float
    arm_dir: tuple[float, float]
    arm_rgb: tuple[int, int, int]


def random_placement(rng: np.random.Generator, zone: Box, player_xy: tuple[float, float],
                     palm_range: tuple[float, float] = PALM_PX) -> Placement:
    """A placement inside the zone's middle, the forearm pointing to the player."""
    x0, y0, x1, y1 = zone
    wx = x0 + (x1 - x0) * rng.uniform(0.3, 0.7)
    wy = y0 + (y1 - y0) * rng.uniform(0.45, 0.8)
    d = np.array(player_xy, float) - np.array([wx, wy])
    d = d / max(np.linalg.norm(d), 1e-6)
    sleeve = rng.integers(20, 235, 3) if rng.random() < 0.7 else np.array([200, 160, 130]) * rng.uniform(0.6, 1.1)
    rgb = np.clip(sleeve, 0, 255)
    return Placement(float(rng.uniform(*palm_range)), (float(wx), float(wy)), float(rng.uniform(-15, 15)),
                     float(rng.uniform(0.75, 1.1)), (float(d[0]), float(d[1])),
                     (int(rgb[0]), int(rgb[1]), int(rgb[2])))


def paste_hand(frame_rgb: np.ndarray, hand_rgb: np.ndarray, alpha: np.ndarray, landmarks: np.ndarray,
               place: Placement, arm: bool = True) -> np.ndarray:
    """A copy of the frame with the hand (photo, alpha, landmarks in photo px)
    laid so that its wrist lands at place.wrist_xy with the palm length
    place.palm_px; the photo keeps its orientation (turned by place.turn_deg),
    as a hand held the same way would appear to a camera looking at it."""
    out = frame_rgb.copy()
    pts = np.asarray(landmarks, dtype=np.float64)[:, :2]
    s = place.palm_px / max(palm_length(pts), 1e-6)
    m: np.ndarray = np.asarray(cv2.getRotationMatrix2D((float(pts[0, 0]), float(pts[0, 1])), place.turn_deg, s),
                               dtype=np.float64)
    m[:, 2] += np.array(place.wrist_xy) - pts[0]
    h, w = out.shape[:2]
    if arm:
        _draw_forearm(out, place, pts, m)
    hand = cv2.warpAffine(hand_rgb.astype(np.float32) * place.gain, m, (w, h), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_CONSTANT)
    a = cv2.warpAffine(alpha.astype(np.float32), m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = cv2.GaussianBlur(a, (0, 0), 0.6)[:, :, None]
    blended = out.astype(np.float32) * (1 - a) + np.clip(hand, 0, 255) * a
    return np.clip(blended, 0, 255).astype(np.uint8)


def _draw_forearm(out: np.ndarray, place: Placement, pts: np.ndarray, m: np.ndarray) -> None:
    """A sleeved forearm from the wrist toward the player: a shaded band a
    little narrower than the palm, ending past the zone."""
    wrist = np.array(place.wrist_xy)
    d = np.array(place.arm_dir)
    n = np.array([-d[1], d[0]])
    knuckles = (np.c_[pts[[5, 17]], np.ones(2)] @ m.T)
    width = max(0.5 * float(np.linalg.norm(knuckles[0] - knuckles[1])), 0.35 * place.palm_px)
    length = 4.0 * place.palm_px
    poly = np.array([wrist + n * width, wrist - n * width, wrist - n * width * 1.2 + d * length,
                     wrist + n * width * 1.2 + d * length])
    colour = np.array(place.arm_rgb, float)
    cv2.fillConvexPoly(out, np.round(poly).astype(np.int32), tuple(int(c) for c in colour))
    # a darker edge on one side: the arm is round, lit from above
    edge = np.array([wrist - n * width, wrist - n * width * 1.2 + d * length,
                     wrist - n * width * 0.4 + d * length, wrist - n * width * 0.3])
    cv2.fillConvexPoly(out, np.round(edge).astype(np.int32), tuple(int(c) for c in colour * 0.75))


def paste_prop(frame_rgb: np.ndarray, zone: Box, rng: np.random.Generator) -> np.ndarray:
    """A paper sheet, a cup or a phone lying in the zone (not a hand): what a
    real table holds besides the players' hands."""
    out = frame_rgb.copy()
    x0, y0, x1, y1 = zone
    cx, cy = x0 + (x1 - x0) * rng.uniform(0.3, 0.7), y0 + (y1 - y0) * rng.uniform(0.3, 0.7)
    kind = rng.choice(["paper", "cup", "phone"])
    if kind == "paper":
        w, h = rng.uniform(25, 45), rng.uniform(18, 32)
        box = cv2.boxPoints(((cx, cy), (w, h), rng.uniform(0, 180)))
        cv2.fillConvexPoly(out, np.round(box).astype(np.int32), tuple(int(v) for v in rng.integers(200, 250, 3)))
    elif kind == "cup":
        r = rng.uniform(6, 10)
        body = rng.integers(40, 240, 3)
        cv2.rectangle(out, (int(cx - r), int(cy - 1.6 * r)), (int(cx + r), int(cy)), tuple(int(v) for v in body), -1)
        cv2.ellipse(out, (int(cx), int(cy - 1.6 * r)), (int(r), int(r * 0.4)), 0, 0, 360,
                    tuple(int(v) for v in body * 0.6), -1)
        cv2.ellipse(out, (int(cx), int(cy)), (int(r), int(r * 0.4)), 0, 0, 180, tuple(int(v) for v in body), -1)
    else:
        box = cv2.boxPoints(((cx, cy), (rng.uniform(9, 12), rng.uniform(18, 24)), rng.uniform(0, 180)))
        cv2.fillConvexPoly(out, np.round(box).astype(np.int32), (20, 20, 24))
    return out


__all__ = ["BONES", "PALM_PX", "Placement", "cut_out", "palm_length", "paste_hand", "paste_prop",
           "random_placement"]

"""Per-finger geometry from 21 hand landmarks: how likely each finger is extended.

Works on 2D (x, y) or 3D (x, y, z) landmarks in any consistent unit; every
measure is a cosine or a ratio of distances, so it does not depend on the
hand's position, size or rotation in the image plane (a hand facing the
camera, an upright fist seen from the side, fingers pointing down).

Landmark order is MediaPipe's: 0 wrist; thumb 1-4 (CMC, MCP, IP, tip);
index 5-8, middle 9-12, ring 13-16, pinky 17-20 (MCP, PIP, DIP, tip).
"""
from __future__ import annotations

import numpy as np

WRIST = 0
THUMB = (1, 2, 3, 4)
INDEX = (5, 6, 7, 8)
MIDDLE = (9, 10, 11, 12)
RING = (13, 14, 15, 16)
PINKY = (17, 18, 19, 20)
LONG_FINGERS = (INDEX, MIDDLE, RING, PINKY)

# A finger is straight when both bone-to-bone cosines (proximal/middle and
# middle/distal phalanx) pass 0.7: MediaPipe underestimates the curl of fingers
# bent toward the camera (cosine 0-0.55 where the truth is about -0.7).
STRAIGHT_COS = 0.7
# Tip distance from the knuckle over the proximal phalanx: about 2.1 for a
# straight index, under 1.3 when the finger curls back.
KNUCKLE_REACH = 1.5
# Tip distance from the wrist over PIP distance from the wrist: > 1 when the
# tip lies beyond the middle joint, < 1 when it folds back toward the palm.
WRIST_REACH = 1.0
# Thumb tip distance from the ring knuckle in palm widths: an extended thumb
# is far from the palm (1.2-2.1 on the sign-digit photos), a folded one lies
# across it (under 0.9).
THUMB_REACH = 1.0


def as_landmarks(landmarks) -> np.ndarray:
    """Validate and return landmarks as a float (21, 2) or (21, 3) array."""
    pts = np.asarray(landmarks, dtype=np.float64)
    if pts.ndim == 1 and pts.size in (42, 63):
        pts = pts.reshape(21, -1)
    if pts.shape not in ((21, 2), (21, 3)):
        raise ValueError(f"expected 21 landmarks of 2 or 3 coordinates, got shape {pts.shape}")
    if not np.all(np.isfinite(pts)):
        raise ValueError("landmarks contain NaN or infinite values")
    return pts


def _sigmoid(x: np.ndarray | float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -50.0, 50.0)))


def _dist(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b))


def cosine(u: np.ndarray, v: np.ndarray) -> float:
    """Cosine of the angle between two vectors; 0 when either is degenerate."""
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu < 1e-9 or nv < 1e-9:
        return 0.0
    return float(np.dot(u, v) / (nu * nv))


def palm_length(landmarks: np.ndarray) -> float:
    """Wrist to middle knuckle in the image plane (the landmarks' first two axes)."""
    return float(np.linalg.norm(landmarks[MIDDLE[0], :2] - landmarks[WRIST, :2]))


def palm_scale(pts: np.ndarray) -> float:
    """A hand size that survives side views.

    The knuckle width (index to pinky MCP) collapses when the palm is seen
    edge-on (an upright fist on a table); wrist to middle knuckle does not, and
    is about 1.25 knuckle widths on a real hand (0.7 of it lets a moderately
    turned palm keep its own width as the scale).
    """
    width = _dist(pts[INDEX[0]], pts[PINKY[0]])
    length = _dist(pts[WRIST], pts[MIDDLE[0]])
    return max(width, 0.7 * length, 1e-9)


def finger_straightness(pts: np.ndarray, finger: tuple[int, int, int, int]) -> float:
    """Smaller of the two bone-to-bone cosines at the PIP and DIP joints."""
    mcp, pip, dip, tip = (pts[i] for i in finger)
    return min(cosine(pip - mcp, dip - pip), cosine(dip - pip, tip - dip))


def long_finger_extension(pts: np.ndarray, finger: tuple[int, int, int, int]) -> float:
    """Probability-like score (0-1) that a non-thumb finger is extended.

    Three soft tests multiplied: straight joints, the tip far from its own
    knuckle, the tip beyond the middle joint as seen from the wrist. Each
    alone fails on some views (a curled finger seen end-on looks straight; a
    finger pointing at the camera does not reach away from the wrist); together
    they reach 93% fist/open/pointing on the 4,450 real 2D keypoint rows.
    """
    mcp, pip, dip, tip = (pts[i] for i in finger)
    straight = finger_straightness(pts, finger)
    knuckle_reach = _dist(tip, mcp) / max(_dist(pip, mcp), 1e-9)
    wrist_reach = _dist(tip, pts[WRIST]) / max(_dist(pip, pts[WRIST]), 1e-9)
    return float(
        _sigmoid((straight - STRAIGHT_COS) / 0.05)
        * _sigmoid((min(knuckle_reach, 5.0) - KNUCKLE_REACH) / 0.1)
        * _sigmoid((min(wrist_reach, 5.0) - WRIST_REACH) / 0.1)
    )


def thumb_extension(pts: np.ndarray) -> float:
    """Probability-like score (0-1) that the thumb sticks out from the hand.

    The tip's distance from the ring knuckle in palm widths (within the palm
    plane when 3D) separates a thumb held out (sideways or up) from one folded
    across the palm or over the fingers; a strongly bent IP joint also means
    folded.
    """
    _, mcp, ip, tip = (pts[i] for i in THUMB)
    offset = tip - pts[RING[0]]
    if pts.shape[1] == 3:
        # Only the part within the palm plane: a thumb folded over curled
        # fingers sits well in front of the palm yet is not held out.
        normal = palm_normal(pts)
        offset = offset - np.dot(offset, normal) * normal
    reach = float(np.linalg.norm(offset)) / palm_scale(pts)
    straight = cosine(ip - mcp, tip - ip)
    return float(_sigmoid((reach - THUMB_REACH) / 0.08) * _sigmoid((straight + 0.2) / 0.15))


def finger_extensions(landmarks) -> np.ndarray:
    """Extension scores (0-1) for thumb, index, middle, ring, pinky."""
    pts = as_landmarks(landmarks)
    return np.array([thumb_extension(pts)] + [long_finger_extension(pts, f) for f in LONG_FINGERS])


def finger_extensions_batch(points: np.ndarray) -> np.ndarray:
    """`finger_extensions` of many hands at once, in the image plane: (N, 21, 2+)
    landmarks -> (N, 5). The same tests, vectorised: the form model reads every
    zone hand of a full-length game (tens of thousands) and the per-hand
    version was most of the alignment step's time (scripts/profile_align.py)."""
    pts = np.asarray(points, dtype=np.float64)[:, :, :2]

    def norm(v: np.ndarray) -> np.ndarray:
        return np.sqrt(np.sum(v * v, axis=-1))

    def cos(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        nu, nv = norm(u), norm(v)
        ok = (nu >= 1e-9) & (nv >= 1e-9)
        return np.where(ok, np.sum(u * v, axis=-1) / np.where(ok, nu * nv, 1.0), 0.0)

    wrist = pts[:, WRIST]
    scale = np.maximum(np.maximum(norm(pts[:, INDEX[0]] - pts[:, PINKY[0]]),
                                  0.7 * norm(pts[:, WRIST] - pts[:, MIDDLE[0]])), 1e-9)
    _, mcp, ip, tip = (pts[:, i] for i in THUMB)
    reach = norm(tip - pts[:, RING[0]]) / scale
    out = [_sigmoid((reach - THUMB_REACH) / 0.08) * _sigmoid((cos(ip - mcp, tip - ip) + 0.2) / 0.15)]
    for finger in LONG_FINGERS:
        mcp, pip, dip, tip = (pts[:, i] for i in finger)
        straight = np.minimum(cos(pip - mcp, dip - pip), cos(dip - pip, tip - dip))
        knuckle_reach = norm(tip - mcp) / np.maximum(norm(pip - mcp), 1e-9)
        wrist_reach = norm(tip - wrist) / np.maximum(norm(pip - wrist), 1e-9)
        out.append(_sigmoid((straight - STRAIGHT_COS) / 0.05)
                   * _sigmoid((np.minimum(knuckle_reach, 5.0) - KNUCKLE_REACH) / 0.1)
                   * _sigmoid((np.minimum(wrist_reach, 5.0) - WRIST_REACH) / 0.1))
    return np.stack(out, axis=1)


def finger_direction(pts: np.ndarray, finger: tuple[int, ...]) -> np.ndarray:
    """Unit vector from a finger's base joint to its tip."""
    v = pts[finger[-1]] - pts[finger[0]]
    n = np.linalg.norm(v)
    return v / n if n > 1e-9 else v


def palm_normal(pts: np.ndarray) -> np.ndarray:
    """Unit normal of the palm plane (wrist, index and pinky knuckles); needs 3D."""
    if pts.shape[1] != 3:
        raise ValueError("the palm normal needs 3D landmarks")
    n = np.cross(pts[INDEX[0]] - pts[WRIST], pts[PINKY[0]] - pts[WRIST])
    norm = np.linalg.norm(n)
    return n / norm if norm > 1e-9 else n

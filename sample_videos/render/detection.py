"""Measure what MediaPipe's bundled models see in rendered frames.

Used by the tests and by scripts/render_detection_rates.py to state the
renderer's acceptance figures: hands found on vote frames, faces found on
unmasked players, face mesh refused on masked ones.  Crops are square, taken
per seat, scaled to `CROP` px, as the vision pipeline will do.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CROP = 256


def square_crop(img: np.ndarray, box, size: int = CROP, pad: float = 0.0):
    """Square crop around `box` (x0,y0,x1,y1) grown by `pad`, scaled to `size`.
    Returns the crop and the affine (scale, x0, y0) mapping crop px -> frame px."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    side = max(x1 - x0, y1 - y0) * (1 + pad)
    sx0, sy0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    side = int(round(side))
    h, w = img.shape[:2]
    canvas = np.zeros((side, side, 3), np.uint8)
    ax0, ay0 = max(sx0, 0), max(sy0, 0)
    ax1, ay1 = min(sx0 + side, w), min(sy0 + side, h)
    canvas[ay0 - sy0:ay1 - sy0, ax0 - sx0:ax1 - sx0] = img[ay0:ay1, ax0:ax1]
    crop = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA if side > size else cv2.INTER_LINEAR)
    return crop, (side / size, sx0, sy0)


def hand_box(joints_px: np.ndarray, margin: float = 0.9):
    """A box around a true hand, grown so the hand fills about half of it."""
    x0, y0 = joints_px.min(0)
    x1, y1 = joints_px.max(0)
    s = max(x1 - x0, y1 - y0) * (1 + margin)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2)


@dataclass
class Detectors:
    """MediaPipe solutions kept open across calls (static image mode)."""

    def __post_init__(self):
        import mediapipe as mp
        self.hands = mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2,
                                              min_detection_confidence=0.5)
        self.face = mp.solutions.face_detection.FaceDetection(model_selection=0, min_detection_confidence=0.5)
        self.mesh = mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=1,
                                                    min_detection_confidence=0.5)
        self.pose = mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1)

    def hands_px(self, crop: np.ndarray, affine) -> list[np.ndarray]:
        """Detected hands as (21,2) frame-pixel landmark arrays."""
        res = self.hands.process(crop)
        out = []
        s, x0, y0 = affine
        for lm in res.multi_hand_landmarks or []:
            p = np.array([[q.x, q.y] for q in lm.landmark]) * crop.shape[1]
            out.append(p * s + [x0, y0])
        return out

    def face_found(self, crop: np.ndarray) -> bool:
        return bool(self.face.process(crop).detections)

    def mesh_found(self, crop: np.ndarray) -> bool:
        return bool(self.mesh.process(crop).multi_face_landmarks)

    def pose_found(self, crop: np.ndarray) -> bool:
        return self.pose.process(crop).pose_landmarks is not None

    def close(self) -> None:
        for d in (self.hands, self.face, self.mesh, self.pose):
            d.close()


def hand_matches(found: list[np.ndarray], truth: np.ndarray, tol: float = 0.5) -> bool:
    """A detection counts when its landmarks lie on the true hand: mean error
    under `tol` x the true hand's size (wrist to middle knuckle x 2)."""
    size = 2 * np.linalg.norm(truth[9] - truth[0]) + 1e-6
    return any(np.mean(np.linalg.norm(f - truth, axis=1)) / size < tol for f in found)

"""Landmarks drawn on images for people to check: the evidence stills and the app's zoom.

The skeletons are MediaPipe's hand (21 points) and the part of its pose (33
points) a seated player shows. Pure drawing; `draw_hand_landmarks` also finds
the hands (vision.hands.detector) on an image that has none stored.
"""
from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

Colour = tuple[int, int, int]

HAND_EDGES = ((0, 1), (1, 2), (2, 3), (3, 4), (0, 5), (5, 6), (6, 7), (7, 8), (5, 9), (9, 10), (10, 11),
              (11, 12), (9, 13), (13, 14), (14, 15), (15, 16), (13, 17), (0, 17), (17, 18), (18, 19), (19, 20))
POSE_EDGES = ((11, 12), (11, 13), (13, 15), (12, 14), (14, 16), (11, 23), (12, 24), (23, 24), (0, 11), (0, 12))
# a pose point drawn only when the model saw it this surely
POSE_VISIBLE = 0.3

Point = Callable[[np.ndarray], tuple[int, int]]


def draw_hand(img: np.ndarray, points: np.ndarray, p: Point, line: Colour, dot: Colour,
              line_type: int = cv2.LINE_8) -> None:
    """One hand's skeleton onto `img` (in place); `p` maps a landmark to image pixels."""
    for a, b in HAND_EDGES:
        cv2.line(img, p(points[a]), p(points[b]), line, 2, line_type)
    for q in points:
        cv2.circle(img, p(q), 3, dot, -1, line_type)


def draw_landmarks(image: np.ndarray, lm, origin: tuple[float, float], scale: float) -> np.ndarray:
    """Stored pose and hand landmarks (frame px, a vision.landmarks.SeatLandmarks)
    drawn onto a crop whose top-left is `origin` in the frame."""
    img = image.copy()

    def p(xy) -> tuple[int, int]:
        return int((xy[0] - origin[0]) * scale), int((xy[1] - origin[1]) * scale)

    if lm is None:
        return img
    if lm.pose is not None:
        for a, b in POSE_EDGES:
            if lm.pose[a, 3] > POSE_VISIBLE and lm.pose[b, 3] > POSE_VISIBLE:
                cv2.line(img, p(lm.pose[a]), p(lm.pose[b]), (80, 200, 255), 2, cv2.LINE_AA)
    for hand in lm.hands:
        draw_hand(img, hand.points, p, (60, 255, 120), (255, 255, 255), cv2.LINE_AA)
    return img


def draw_hand_landmarks(image: np.ndarray) -> tuple[np.ndarray, int]:
    """The hands MediaPipe finds in `image`, drawn on a copy; returns (image, hands found)."""
    from vision.hands.detector import detect_hands  # loading the model costs about a second

    out = image.copy()
    hands = detect_hands(image)

    def p(xy) -> tuple[int, int]:
        return int(xy[0]), int(xy[1])

    for hand in hands:
        draw_hand(out, hand.landmarks_px, p, (0, 255, 120), (255, 0, 80))
    return out, len(hands)

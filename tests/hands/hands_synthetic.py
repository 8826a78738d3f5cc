"""Synthetic hand landmarks built from the hand model in shared/docs/rendering-notes.md.

Hand frame (cm): x toward the thumb, y wrist to fingertips, z out of the palm.
A pose is built in that frame, turned to face a camera (palm toward it,
fingers up), rotated, and returned as 21 MediaPipe-ordered landmarks in image
axes (x right, y down, z away from the camera).
"""
from __future__ import annotations

import numpy as np

KNUCKLES = {
    "index": ((2.6, 8.6, 0.0), 7.0, (3.8, 2.3, 1.9)),
    "middle": ((0.65, 9.0, 0.0), 0.0, (4.2, 2.7, 2.0)),
    "ring": ((-1.3, 8.6, 0.0), -6.0, (3.9, 2.5, 1.9)),
    "pinky": ((-3.1, 7.8, 0.0), -13.0, (3.0, 1.9, 1.7)),
}
EXTENDED = (5.0, 5.0, 5.0)
CURLED = (88.0, 100.0, 62.0)
THUMB_BASE = (2.6, 2.2, 0.9)
THUMB_SEGMENTS = (3.8, 2.9, 2.4)
# (a, b, flex at CMC, MCP, IP) in degrees
THUMB_POSES = {
    "open": (50.0, 20.0, 0.0, 5.0, 5.0),
    "folded": (22.0, 55.0, 20.0, 60.0, 45.0),
    "up": (62.0, -5.0, 0.0, 0.0, 0.0),
}
# hand frame -> image axes with the palm facing the camera and fingers up
FACING_CAMERA = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])


def _rotate(v: np.ndarray, axis: np.ndarray, degrees: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    t = np.radians(degrees)
    return v * np.cos(t) + np.cross(axis, v) * np.sin(t) + axis * np.dot(axis, v) * (1 - np.cos(t))


def _finger(knuckle, splay, lengths, flex) -> list[np.ndarray]:
    pos = np.array(knuckle, dtype=float)
    direction = _rotate(np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0]), -splay)
    side = np.cross(direction, np.array([0.0, 0.0, 1.0]))  # flexing turns +y toward +z (the palm side)
    points = [pos.copy()]
    lengths = list(lengths)
    lengths[-1] += 0.6  # the tip landmark sits past the last joint
    for length, angle in zip(lengths, flex):
        direction = _rotate(direction, -side, angle)
        pos = pos + direction * length
        points.append(pos.copy())
    return points


def _thumb(pose: str) -> list[np.ndarray]:
    a, b, *flex = THUMB_POSES[pose]
    a, b = np.radians(a), np.radians(b)
    direction = np.array([np.sin(a), np.cos(a), np.sin(b)])
    direction /= np.linalg.norm(direction)
    toward = np.array([-1.0, 0.3, 0.6]) / np.linalg.norm([-1.0, 0.3, 0.6])
    pos = np.array(THUMB_BASE)
    points = [pos.copy()]
    for length, angle in zip(THUMB_SEGMENTS, flex):
        direction = _rotate(direction, np.cross(direction, toward), angle)
        pos = pos + direction * length
        points.append(pos.copy())
    return points[:4]  # CMC, MCP, IP, tip


def hand_frame_landmarks(fingers=(True, True, True, True), thumb: str = "open") -> np.ndarray:
    """(21, 3) landmarks in the hand frame; fingers = index, middle, ring, pinky extended?"""
    pts = [np.zeros(3)] + _thumb(thumb)
    for name, extended in zip(("index", "middle", "ring", "pinky"), fingers):
        knuckle, splay, lengths = KNUCKLES[name]
        pts += _finger(knuckle, splay, lengths, EXTENDED if extended else CURLED)
    return np.array(pts)


def rotation(roll: float = 0.0, yaw: float = 0.0, pitch: float = 0.0) -> np.ndarray:
    """Rotation in image axes: roll about the view axis, yaw about the vertical, pitch about the horizontal."""
    def about(axis, deg):
        m = np.eye(3)
        return np.array([_rotate(m[i], np.array(axis, dtype=float), deg) for i in range(3)]).T

    return about((0, 0, 1), roll) @ about((0, 1, 0), yaw) @ about((1, 0, 0), pitch)


def hand_image_landmarks(
    fingers=(True, True, True, True),
    thumb: str = "open",
    roll: float = 0.0,
    yaw: float = 0.0,
    pitch: float = 0.0,
    base: np.ndarray = FACING_CAMERA,
    scale: float = 10.0,
    offset=(320.0, 240.0, 0.0),
    mirror: bool = False,
) -> np.ndarray:
    """(21, 3) landmarks in image pixels (x right, y down), orthographic camera."""
    pts = hand_frame_landmarks(fingers, thumb)
    if mirror:  # a left hand
        pts = pts * np.array([-1.0, 1.0, 1.0])
    pts = pts @ base.T @ rotation(roll, yaw, pitch).T
    return pts * scale + np.asarray(offset)


# Hand frame -> image axes for a fist standing on its little-finger side:
# thumb side (x) up, fingers (y) toward image right, palm (z) away from the camera
# (the camera sees the back of the hand).
UPRIGHT_SIDEWAYS = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
# Hand lying palm down on a table seen by a level camera: fingers away from
# the camera (+z), thumb to image left... palm normal (z) pointing down (+y).
PALM_DOWN = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])

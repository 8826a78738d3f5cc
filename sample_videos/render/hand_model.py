"""The articulated hand of rendering-notes: 21 joints in MediaPipe order plus
the capsules and palm ellipsoid that give it a skin.

Hand frame (cm): x toward the thumb, y wrist -> fingertips, z out of the palm
(the side fingers curl toward).  A left hand is the mirrored right hand.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KNUCKLES = np.array([[2.6, 8.6, 0.0], [0.65, 9.0, 0.0], [-1.3, 8.6, 0.0], [-3.1, 7.8, 0.0]])
SPLAY_DEG = np.array([7.0, 0.0, -6.0, -13.0])
PHALANGES = np.array([[3.8, 2.3, 1.9], [4.2, 2.7, 2.0], [3.9, 2.5, 1.9], [3.0, 1.9, 1.7]])
FINGER_RADII = np.array([0.97, 1.0, 0.93, 0.82])
TAPER = 0.92
EXTENDED_DEG = np.array([5.0, 5.0, 5.0])
CURLED_DEG = np.array([88.0, 100.0, 62.0])
THUMB_BASE = np.array([2.6, 2.2, 0.9])
THUMB_SEGMENTS = np.array([3.8, 2.9, 2.4])
THUMB_RADIUS = 1.15
THUMB_BEND_TARGET = np.array([-1.0, 0.3, 0.6]) / np.linalg.norm([-1.0, 0.3, 0.6])
PALM_CENTER = np.array([-0.1, 5.0, 0.3])
PALM_RADII = np.array([3.9, 4.5, 1.45])
TIP_BEYOND = 0.6

# Thumb (a, b, flex1, flex2, flex3) in degrees.
THUMB_OPEN = (50.0, 20.0, 0.0, 5.0, 5.0)
THUMB_FOLDED = (22.0, 55.0, 20.0, 60.0, 45.0)
THUMB_UP = (62.0, -5.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Gesture:
    """Finger curls 0 (extended) .. 1 (curled) for index..pinky, splay scale, thumb angles."""
    curls: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    splay: float = 1.0
    thumb: tuple[float, float, float, float, float] = THUMB_OPEN

    def as_array(self) -> np.ndarray:
        return np.array([*self.curls, self.splay, *self.thumb], float)

    @staticmethod
    def from_array(a: np.ndarray) -> "Gesture":
        a = [float(x) for x in a]
        return Gesture(tuple(a[0:4]), a[4], tuple(a[5:10]))


def gesture_named(name: str) -> Gesture:
    """Named hand shapes used by the acting engine."""
    if name == "open":
        return Gesture((0, 0, 0, 0), 1.0, THUMB_OPEN)
    if name == "relaxed":
        return Gesture((0.25, 0.3, 0.35, 0.4), 0.6, (45.0, 25.0, 5.0, 15.0, 10.0))
    if name == "fist":
        return Gesture((1, 1, 1, 1), 0.3, THUMB_FOLDED)
    if name == "thumb_up":
        return Gesture((1, 1, 1, 1), 0.3, THUMB_UP)
    if name == "fingertip":
        return Gesture((0.05, 1, 1, 1), 0.3, THUMB_FOLDED)
    if name.startswith("count"):
        n = int(name[5:])
        curls = tuple(0.0 if i < min(n, 4) else 1.0 for i in range(4))
        return Gesture(curls, 1.0 if n >= 2 else 0.5, THUMB_OPEN if n >= 5 else THUMB_FOLDED)
    if name in ("one", "two"):
        return gesture_named("count1" if name == "one" else "count2")
    raise ValueError(f"unknown gesture {name!r}")


def _rot(axis: np.ndarray, ang: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(ang) * k + (1 - np.cos(ang)) * k @ k


def hand_joints_local(g: Gesture) -> np.ndarray:
    """21 joints (cm, right-hand frame) in MediaPipe order."""
    j = np.zeros((21, 3))
    a, b, *tf = g.thumb
    d = np.array([np.sin(np.radians(a)), np.cos(np.radians(a)), np.sin(np.radians(b))])
    d /= np.linalg.norm(d)
    p = THUMB_BASE.copy()
    j[1] = p
    for i in range(3):
        axis = np.cross(d, THUMB_BEND_TARGET)
        if np.linalg.norm(axis) > 1e-6:
            d = _rot(axis, np.radians(tf[i])) @ d
        p = p + d * THUMB_SEGMENTS[i]
        j[2 + i] = p
    for f in range(4):
        flex = EXTENDED_DEG + (CURLED_DEG - EXTENDED_DEG) * g.curls[f]
        s = np.radians(SPLAY_DEG[f] * g.splay)
        d = np.array([np.sin(s), np.cos(s), 0.0])
        lateral = np.array([np.cos(s), -np.sin(s), 0.0])  # flexion axis, turns y toward +z
        p = KNUCKLES[f].copy()
        base = 5 + 4 * f
        j[base] = p
        ang = 0.0
        for k in range(3):
            ang += np.radians(flex[k])
            dk = _rot(lateral, ang) @ d
            seg = PHALANGES[f, k] + (TIP_BEYOND if k == 2 else 0.0)
            p = p + dk * seg
            j[base + 1 + k] = p
    return j


def hand_capsules_local(joints: np.ndarray):
    """Capsules (a, b, ra, rb) in cm for the fingers, thumb and palm web."""
    caps = []
    for f in range(4):
        base = 5 + 4 * f
        r = FINGER_RADII[f]
        for k in range(3):
            a, b = joints[base + k], joints[base + k + 1]
            if k == 2:  # the tip landmark sits past the end of the bone
                b = a + (b - a) * (PHALANGES[f, 2] / (PHALANGES[f, 2] + TIP_BEYOND))
            caps.append((a, b, r * TAPER ** k, r * TAPER ** (k + 1)))
    for k in range(3):
        caps.append((joints[1 + k], joints[2 + k], THUMB_RADIUS * TAPER ** k, THUMB_RADIUS * TAPER ** (k + 1)))
    for f in range(4):
        caps.append((joints[0], joints[5 + 4 * f], 1.15, 1.15))
    caps.append((joints[5], joints[17], 1.0, 1.0))
    caps.append((joints[1], joints[5], 1.1, 1.1))
    caps.append((joints[0], joints[1], 1.3, 1.15))
    a = np.array([c[0] for c in caps])
    b = np.array([c[1] for c in caps])
    ra = np.array([c[2] for c in caps])
    rb = np.array([c[3] for c in caps])
    return a, b, ra, rb


@dataclass(frozen=True)
class HandPlacement:
    """Where a hand is: wrist position (m), fingers direction, palm normal, size."""
    wrist: np.ndarray
    forward: np.ndarray
    palm: np.ndarray
    left: bool
    scale: float = 1.0  # 1.0 = the notes' hand (about 19 cm)

    def rotation(self) -> np.ndarray:
        y = self.forward / np.linalg.norm(self.forward)
        z = self.palm - y * np.dot(self.palm, y)
        z /= np.linalg.norm(z)
        x = np.cross(y, z)
        return np.stack([x, y, z], axis=1)

    def to_world(self, local_cm: np.ndarray, rot: np.ndarray | None = None) -> np.ndarray:
        p = np.array(local_cm, float)
        if self.left:
            p[..., 0] = -p[..., 0]
        return self.wrist + (p * 0.01 * self.scale) @ (self.rotation() if rot is None else rot).T


def lowest_point_offset(g: Gesture, forward, palm, left: bool, down=(0, 0, -1.0)) -> float:
    """How far (m, scale 1) below the wrist the hand's skin reaches along `down`:
    lets an action set the wrist height so a fist just touches the table."""
    hp = HandPlacement(np.zeros(3), np.asarray(forward, float), np.asarray(palm, float), left)
    j = hand_joints_local(g)
    a, b, ra, rb = hand_capsules_local(j)
    pts = np.concatenate([hp.to_world(a), hp.to_world(b)])
    rad = np.concatenate([ra, rb]) * 0.01
    return float(np.max(pts @ np.asarray(down) + rad))

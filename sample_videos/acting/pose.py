"""A seated player's pose: the numbers the renderer turns into a body.

Everything is in the seat frame: metres, origin on the table edge in front of
the seat at table height, +y into the table, +x to the player's right, +z up.
Poses blend linearly (direction vectors are renormalised by the renderer), so
any two poses can be eased into each other.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np


@dataclass(frozen=True)
class BodyDims:
    """Seated skeleton, shared by the actor (targets) and the renderer (mesh)."""
    hip: tuple[float, float, float] = (0.0, -0.36, -0.27)
    torso: float = 0.55          # hip -> shoulder line
    shoulder_half: float = 0.19
    neck: float = 0.12           # shoulder line -> head centre base
    head_radii: tuple[float, float, float] = (0.078, 0.098, 0.115)  # x, y(face), z
    upper_arm: float = 0.30
    forearm: float = 0.265
    scale: float = 1.0

    def shoulder_center(self, lean: float, rise: float) -> np.ndarray:
        h = np.array(self.hip) + [0, 0, rise]
        return h + self.torso * self.scale * np.array([0.0, np.sin(lean), np.cos(lean)])

    def head_center(self, lean: float, rise: float, pitch: float = 0.0) -> np.ndarray:
        s = self.shoulder_center(lean, rise)
        up = np.array([0.0, np.sin(lean * 0.6 + pitch * 0.3), np.cos(lean * 0.6 + pitch * 0.3)])
        return s + up * (self.neck + self.head_radii[2]) * self.scale


@dataclass(frozen=True)
class ArmPose:
    wrist: np.ndarray     # target position of the wrist joint
    forward: np.ndarray   # wrist -> fingers direction
    palm: np.ndarray      # out of the palm
    elbow: np.ndarray     # preferred direction of the elbow from the shoulder-wrist line
    gesture: np.ndarray   # hand_model.Gesture.as_array()


@dataclass(frozen=True)
class Pose:
    lean: float = 0.0          # torso pitch forward, rad
    rise: float = 0.0          # hip raised, m (standing up)
    torso_yaw: float = 0.0     # rad, + = turned to the player's left
    head_yaw: float = 0.0      # rad relative to the torso
    head_pitch: float = 0.0    # rad, + = looking down
    head_roll: float = 0.0
    right: ArmPose | None = None
    left: ArmPose | None = None
    mask_lift: float = 0.0     # 0 on the eyes, 1 on the forehead
    mask_on_head: float = 1.0  # 1 on the head, 0 lying on the table
    present: float = 1.0       # 0 once the player has left the table


def lerp(a, b, w: float):
    """Blend two poses (or arm poses / arrays / floats) field by field."""
    if w <= 0.0:
        return a
    if w >= 1.0:
        return b
    if isinstance(a, (Pose, ArmPose)):
        return replace(a, **{f.name: lerp(getattr(a, f.name), getattr(b, f.name), w) for f in fields(a)})
    if a is None or b is None:
        return b if w >= 0.5 else a
    return a + (b - a) * w


def ease(u: float) -> float:
    """Smootherstep: zero velocity and acceleration at both ends."""
    u = min(max(u, 0.0), 1.0)
    return u * u * u * (u * (u * 6 - 15) + 10)

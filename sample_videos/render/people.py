"""People standing around the table: the judge (who walks) and spectators.

A standing person is built from the same primitives as the players (capsules,
ellipsoids, a painted head, AO-baked hands), in world space; `JudgePath` says
where the judge is at any time, as a pure function of the time, so a frame can
still be rendered alone.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sample_videos.render.body import local_hand_mesh, _quantize
from sample_videos.render.hand_model import gesture_named
from sample_videos.render.meshes import Material, MeshBuilder, capsule_batch, ellipsoid_batch
from sample_videos.render.table import TableSpec, judge_ring

WALK_SPEED = 1.0     # m/s
STRIDE = 0.7         # m per step


@dataclass(frozen=True)
class PersonLook:
    skin: tuple[float, float, float]
    hair: tuple[float, float, float]
    top: tuple[float, float, float]
    trousers: tuple[float, float, float]
    scale: float = 1.0
    slot: int = 0            # shader look slot (render/looks.py): glasses, beard, hair


def build_person(look: PersonLook, xy, facing: float, mb: MeshBuilder, phase: float = 0.0,
                 swing: float = 0.0, arms: str = "down", detail: int = 1) -> dict:
    """A standing person at floor point `xy` facing the horizontal angle
    `facing` (radians, 0 = +x). `phase` (radians) and `swing` (0..1) animate a
    walk. Returns world points of the head centre and the body's extent."""
    s = look.scale
    fwd = np.array([np.cos(facing), np.sin(facing), 0.0])
    right = np.array([np.sin(facing), -np.cos(facing), 0.0])
    up = np.array([0.0, 0.0, 1.0])
    base = np.array([xy[0], xy[1], 0.0])

    def W(r, f, z):
        return base + right * r + fwd * f + up * z

    n_lon, n_half = (12, 3) if detail else (8, 2)
    rot = np.stack([right, fwd, up], axis=1)
    bob = 0.015 * swing * abs(np.sin(phase))
    hip_z = 0.93 * s + bob
    # legs: thigh swings +-25 deg with the walk, the knee bends on the way forward
    for side in (-1, 1):
        a = side * np.sin(phase) * 0.45 * swing
        bend = max(0.0, -side * np.cos(phase)) * 0.5 * swing
        hip = W(0.1 * side * s, 0, hip_z)
        knee = hip + (fwd * np.sin(a) - up * np.cos(a)) * 0.46 * s
        foot = knee + (fwd * np.sin(a - bend) - up * np.cos(a - bend)) * 0.45 * s
        foot[2] = max(foot[2], 0.04)
        p, n, i = capsule_batch(np.array([hip, knee]), np.array([knee, foot]), 0.075 * s, 0.055 * s, n_lon, n_half)
        mb.add(p, n, i, look.trousers, Material.FABRIC)
        p, n, i = capsule_batch(foot, foot + fwd * 0.16 * s, 0.045 * s, 0.045 * s, 8, 2)
        mb.add(p, n, i, (0.08, 0.07, 0.07), Material.PLAIN)
    # torso, shoulders, neck, head
    torso_c = W(0, 0, hip_z + 0.3 * s)
    p, n, _, i = ellipsoid_batch(torso_c, rot, np.array([0.17, 0.11, 0.32]) * s, 16, 10)
    mb.add(p, n, i, look.top, Material.FABRIC)
    sh_z = hip_z + 0.55 * s
    shoulders = {side: W(0.19 * side * s, 0, sh_z) for side in (-1, 1)}
    p, n, i = capsule_batch(shoulders[-1], shoulders[1], 0.062 * s, 0.062 * s, n_lon, n_half)
    mb.add(p, n, i, look.top, Material.FABRIC)
    neck_a, neck_b = W(0, 0, sh_z), W(0, 0.01, sh_z + 0.1 * s)
    p, n, i = capsule_batch(neck_a, neck_b, 0.05 * s, 0.046 * s, n_lon, n_half)
    mb.add(p, n, i, look.skin, Material.PLAIN)
    radii = np.array([0.078, 0.098, 0.115]) * s
    head_c = W(0, 0.02 * s, sh_z + 0.1 * s + radii[2] * 0.95)
    p, n, loc, i = ellipsoid_batch(head_c, rot, radii, 32 if detail else 20, 20 if detail else 12)
    mb.add(p, n, i, look.skin, Material.HEAD, 1.0, loc, (0, 0, 0, look.slot), look.hair)
    nose_a = head_c + fwd * radii[1] * 0.9
    nose_b = head_c + fwd * (radii[1] + 0.017 * s) - up * radii[2] * 0.24
    p, n, i = capsule_batch(nose_a, nose_b, 0.010 * s, 0.0145 * s, 12, 4)
    loc = ((p - head_c) @ rot) / radii
    mb.add(p, n, i, look.skin, Material.HEAD, 1.0, loc, (0, 0, 0, look.slot), look.hair)
    # arms: hanging and swinging opposite to the legs, or crossed on the chest
    g = gesture_named("relaxed")
    pos_l, nrm_l, idx_l, ao = local_hand_mesh(_quantize(g.as_array()), detail)
    for side in (-1, 1):
        sh = shoulders[side]
        if arms == "crossed":
            elbow = sh + fwd * 0.1 * s - up * 0.26 * s + right * 0.02 * side
            wrist = W(-0.12 * side * s, 0.16 * s, sh_z - 0.22 * s)
            hand_dir = -right * side
        else:
            a = -side * np.sin(phase) * 0.35 * swing
            elbow = sh + (fwd * np.sin(a) - up * np.cos(a)) * 0.3 * s + right * 0.02 * side
            fa = a + 0.15 + 0.2 * swing * max(0.0, np.sin(a) * side * -1)
            wrist = elbow + (fwd * np.sin(fa) - up * np.cos(fa)) * 0.26 * s
            hand_dir = wrist - elbow
        hand_dir = hand_dir / np.linalg.norm(hand_dir)
        p, n, i = capsule_batch(np.array([sh, elbow]), np.array([elbow, wrist]), np.array([0.05, 0.043]) * s,
                                np.array([0.043, 0.032]) * s, n_lon, n_half)
        mb.add(p, n, i, look.top, Material.FABRIC)
        # the hand: fingers along the forearm, palm toward the thigh
        palm = -right * side if arms != "crossed" else -up
        x = np.cross(hand_dir, palm)
        hrot = np.stack([x, hand_dir, palm], axis=1)
        mirror = np.array([-1.0 if side < 0 else 1.0, 1, 1])
        hp = wrist + (pos_l * mirror * 0.0095 * s) @ hrot.T
        hn = (nrm_l * mirror) @ hrot.T
        mb.add(hp, hn, idx_l[:, ::-1] if side < 0 else idx_l, look.skin, Material.PLAIN, ao)
    return {"head": head_c, "top": float(head_c[2] + radii[2])}


# --- the judge's path ------------------------------------------------------------

@dataclass(frozen=True)
class Walk:
    t0: float          # leaves
    d_from: float      # signed arc distance from the head point along the judge's ring (m)
    d_to: float        # where the walk goes
    dwell: float       # seconds spent there before walking back
    d_back: float      # where the judge stands afterwards

    def legs(self) -> list[tuple[float, float, float, float]]:
        """(t start, t end, d from, d to) of the two walking legs."""
        out_t = abs(self.d_to - self.d_from) / WALK_SPEED + 0.6
        back_t = abs(self.d_back - self.d_to) / WALK_SPEED + 0.6
        t1 = self.t0 + out_t
        t2 = t1 + self.dwell
        return [(self.t0, t1, self.d_from, self.d_to), (t2, t2 + back_t, self.d_to, self.d_back)]

    @property
    def t1(self) -> float:
        return self.legs()[1][1]


@dataclass(frozen=True)
class JudgePath:
    table: TableSpec
    home: float                   # signed arc distance of the first standing spot
    walks: tuple[Walk, ...] = ()
    look: PersonLook | None = None
    seed: int = 0

    def position(self, d: float) -> np.ndarray:
        pts, signed = _sorted_ring(self.table)
        return np.array([np.interp(d, signed, pts[:, 0]), np.interp(d, signed, pts[:, 1])])

    def windows(self) -> list[tuple[float, float]]:
        """When the judge walks (each leg), for frame reuse and motion blur."""
        return [(a, b) for w in self.walks for a, b, _, _ in w.legs()]

    def state(self, t: float) -> tuple[np.ndarray, float, float, float]:
        """(floor xy, facing angle, gait phase, swing 0..1) at time t."""
        d, moving, phase, swing = self.home, False, 0.0, 0.0
        for w in self.walks:
            if t < w.t0:
                break
            legs = w.legs()
            (a0, a1, f0, f1), (b0, b1, g0, g1) = legs
            if t < a1:
                d, moving, span = _leg(t, a0, a1, f0, f1)
            elif t < b0:
                d = f1
            elif t < b1:
                d, moving, span = _leg(t, b0, b1, g0, g1)
            else:
                d = w.d_back
        xy = self.position(d)
        if moving:
            ahead = self.position(d + 0.05 * np.sign(span)) - xy
            facing = float(np.arctan2(ahead[1], ahead[0]))
            phase = 2 * np.pi * t * WALK_SPEED / STRIDE
            swing = 1.0
        else:
            # standing: face the table centre, weight shifting a little
            facing = float(np.arctan2(-xy[1], -xy[0]))
            facing += 0.12 * np.sin(2 * np.pi * 0.07 * t + self.seed % 7)
        return xy, facing, phase, swing


@functools.lru_cache(maxsize=16)
def _sorted_ring(table: TableSpec):
    # positions along the ring by signed distance from the head, measured along
    # the table's edge (so "2 m to the left" means past about three seats)
    pts, _, signed = judge_ring(table)
    order = np.argsort(signed, kind="stable")
    return pts[order], signed[order]


def _leg(t: float, t0: float, t1: float, d0: float, d1: float):
    u = min(max((t - t0) / max(t1 - t0, 1e-6), 0.0), 1.0)
    u = u * u * (3 - 2 * u)
    return d0 + (d1 - d0) * u, True, d1 - d0

"""A player's body as triangle meshes, posed from an acting Pose.

The skeleton is solved in the seat frame (two-bone IK for the arms), then
meshed as capsules and ellipsoids in world space.  Ambient occlusion is baked
per vertex from the analytic occlusion of the player's own primitives (a
sphere/capsule approximation): it darkens the creases between fingers and
under the chin the way the notes found detectors need.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sample_videos.acting.pose import BodyDims, Pose
from sample_videos.render.hand_model import (Gesture, HandPlacement, PALM_CENTER, PALM_RADII,
                                             hand_capsules_local, hand_joints_local)
from sample_videos.render.meshes import Material, MeshBuilder, box, capsule_batch, ellipsoid_batch


@dataclass(frozen=True)
class Appearance:
    skin: tuple[float, float, float]
    hair: tuple[float, float, float]
    shirt: tuple[float, float, float]
    trousers: tuple[float, float, float]
    short_sleeves: bool
    hand_scale: float
    dims: BodyDims
    # wider worlds (render/looks.py); the defaults are the original players
    sleeves: tuple[float, float, float] | None = None   # None: the shirt's colour
    girth: float = 1.0
    slot: int = 0             # the shader's look slot (glasses, beard, hair, mask)
    long_hair: bool = False
    mask_colour: tuple[float, float, float] = (0.05, 0.05, 0.06)   # the mask lying on the table


@dataclass(frozen=True)
class SeatFrame:
    origin: np.ndarray   # world position of the seat-frame origin (table edge, table height)
    rot: np.ndarray      # columns: right, forward, up (world)

    def to_world(self, p) -> np.ndarray:
        return self.origin + np.asarray(p, float) @ self.rot.T

    def dir_to_world(self, v) -> np.ndarray:
        return np.asarray(v, float) @ self.rot.T


@dataclass
class BodyTruth:
    """Exact geometry of one posed player, world coordinates."""
    right_hand: np.ndarray   # (21, 3) MediaPipe order
    left_hand: np.ndarray
    head_center: np.ndarray
    head_rot: np.ndarray
    head_radii: np.ndarray


class _Occluders:
    """Spheres/capsules used for the analytic ambient occlusion bake."""

    def __init__(self):
        self.a, self.b, self.r = [], [], []

    def add(self, a, b, r) -> int:
        self.a.append(np.asarray(a, float))
        self.b.append(np.asarray(b, float))
        self.r.append(float(r))
        return len(self.r) - 1

    def ao(self, pos: np.ndarray, nrm: np.ndarray, owner: np.ndarray, subset=None, k: float = 0.55) -> np.ndarray:
        idx = np.arange(len(self.r)) if subset is None else np.asarray(subset)
        a, b, r = np.array(self.a)[idx], np.array(self.b)[idx], np.array(self.r)[idx]
        ab = b - a
        denom = np.maximum((ab * ab).sum(-1), 1e-12)
        ap = pos[:, None, :] - a[None]
        h = np.clip((ap * ab[None]).sum(-1) / denom, 0, 1)
        q = a[None] + h[..., None] * ab[None]
        dv = q - pos[:, None, :]
        d = np.linalg.norm(dv, axis=-1) + 1e-9
        cosang = np.clip((dv * nrm[:, None, :]).sum(-1) / d, 0, 1)
        occ = cosang * np.minimum((r[None] / d) ** 2, 1.0)
        occ[owner[:, None] == idx[None]] = 0.0
        return np.clip(1 - k * occ.sum(-1), 0.15, 1.0)


def _quantize(gesture: np.ndarray) -> tuple:
    """Gesture rounded so hand meshes (and their AO bake) can be cached:
    0.04 of a curl, 0.05 of splay, 1 degree of thumb angle."""
    g = np.asarray(gesture, float)
    return tuple(np.r_[np.round(g[:4] / 0.04) * 0.04, np.round(g[4] / 0.05) * 0.05, np.round(g[5:])].tolist())


@functools.lru_cache(maxsize=512)
def local_hand_mesh(gesture: tuple, detail: int):
    """A right hand's skin in hand-frame cm with AO baked from its own parts
    (AO does not change under rigid motion, so it is computed once per shape)."""
    g = Gesture.from_array(np.array(gesture))
    joints = hand_joints_local(g)
    a, b, ra, rb = hand_capsules_local(joints)
    occ = _Occluders()
    ids = [occ.add(x, y, 0.5 * (r1 + r2)) for x, y, r1, r2 in zip(a, b, ra, rb)]
    nl, nh = (10, 3) if detail else (8, 2)
    pos, nrm, idx = capsule_batch(a, b, ra, rb, nl, nh)
    owner = np.repeat(ids, len(pos) // len(ids))
    pid = occ.add(PALM_CENTER - [0, 2, 0], PALM_CENTER + [0, 2, 0], PALM_RADII[0] * 0.8)
    p2, n2, _, i2 = ellipsoid_batch(PALM_CENTER, np.eye(3), PALM_RADII, 14, 8)
    pos_all = np.concatenate([pos, p2])
    nrm_all = np.concatenate([nrm, n2])
    own_all = np.concatenate([owner, np.full(len(p2), pid)])
    ao = occ.ao(pos_all, nrm_all, own_all)
    return pos_all, nrm_all, np.concatenate([idx, i2 + len(pos)]), ao


def _rz(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _rx(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def solve_arm(shoulder, wrist, pole, l1, l2):
    """Two-bone IK: elbow position and the reachable wrist (seat frame)."""
    d_vec = wrist - shoulder
    d = float(np.linalg.norm(d_vec))
    dirn = d_vec / max(d, 1e-9)
    d_c = float(np.clip(d, abs(l1 - l2) + 1e-3, l1 + l2 - 1e-3))
    wrist = shoulder + dirn * d_c
    a = (l1 * l1 - l2 * l2 + d_c * d_c) / (2 * d_c)
    h = np.sqrt(max(l1 * l1 - a * a, 0.0))
    p = np.asarray(pole, float)
    perp = p - dirn * np.dot(p, dirn)
    if np.linalg.norm(perp) < 1e-6:
        perp = np.cross(dirn, [1.0, 0, 0])
    perp /= np.linalg.norm(perp)
    return shoulder + dirn * a + perp * h, wrist


def build_player(app: Appearance, frame: SeatFrame, pose: Pose, mb: MeshBuilder,
                 detail: int = 1) -> BodyTruth:
    """Add one posed player's meshes to `mb`; return the exact joint positions."""
    dims = app.dims
    sc = dims.scale
    W = frame.to_world
    D = frame.dir_to_world
    occ = _Occluders()
    parts = []  # (pos, nrm, idx, owner ids, color, material, local, params, color2, hand group)

    hip = np.array(dims.hip) + [0, 0, pose.rise]
    ryaw = _rz(pose.torso_yaw)
    up = ryaw @ np.array([0.0, np.sin(pose.lean), np.cos(pose.lean)])
    right_dir = ryaw @ np.array([1.0, 0, 0])
    fwd_dir = np.cross(up, right_dir)
    shoulder_c = hip + dims.torso * sc * up
    shoulders = {"right": shoulder_c + right_dir * dims.shoulder_half * sc - up * 0.02,
                 "left": shoulder_c - right_dir * dims.shoulder_half * sc - up * 0.02}

    def add_caps(a, b, ra, rb, color, material=Material.FABRIC, group=0, n_lon=12 if detail else 8,
                 n_half=4 if detail else 2):
        a, b = np.atleast_2d(a), np.atleast_2d(b)
        ra, rb = np.broadcast_to(ra, (len(a),)), np.broadcast_to(rb, (len(a),))
        ids = [occ.add(W(x), W(y), 0.5 * (r1 + r2)) for x, y, r1, r2 in zip(a, b, ra, rb)]
        pos, nrm, idx = capsule_batch(W(a), W(b), ra, rb, n_lon, n_half)
        owner = np.repeat(ids, len(pos) // len(ids))
        parts.append((pos, nrm, idx, owner, color, material, None, (0, 0, 0, 0), (0, 0, 0), group))

    def add_ell(center, rot_seat, radii, color, material=Material.FABRIC, group=0, n_lon=16, n_lat=10,
                params=(0, 0, 0, 0), color2=(0, 0, 0), occ_axis=2):
        rot_w = frame.rot @ rot_seat
        radii = np.asarray(radii, float)
        ax = rot_w[:, occ_axis] * radii[occ_axis] * 0.5
        cw = W(center)
        oid = occ.add(cw - ax, cw + ax, float(np.sort(radii)[1]))
        pos, nrm, loc, idx = ellipsoid_batch(cw, rot_w, radii, n_lon, n_lat)
        parts.append((pos, nrm, idx, np.full(len(pos), oid), color, material,
                      loc if material == Material.HEAD else None, params, color2, group))

    shirt, skin = app.shirt, app.skin
    # torso and shoulders
    torso_rot = np.stack([right_dir, fwd_dir, up], axis=1)
    torso_radii = np.array([0.165, 0.105, 0.31]) * sc
    if app.girth != 1.0:
        torso_radii = torso_radii * [app.girth, app.girth * 1.1, 1.0]
    add_ell(hip + up * dims.torso * sc * 0.5, torso_rot, torso_radii, shirt)
    add_caps(shoulders["left"], shoulders["right"], 0.062 * sc, 0.062 * sc, shirt)
    # legs (mostly under the table; visible when standing)
    knee_seated, knee_standing = np.array([0, 0.42, 0.0]), np.array([0, 0.06, -0.46])
    w_stand = float(np.clip(pose.rise / 0.45, 0, 1))
    for s in (-1, 1):
        hp = hip + right_dir * 0.1 * s * sc
        knee = hp + (1 - w_stand) * knee_seated + w_stand * knee_standing
        foot = np.array([hp[0], knee[1] + 0.04, -0.72])
        add_caps(np.array([hp, knee]), np.array([knee, foot]), 0.075, 0.055, app.trousers)
    # neck and head
    pitch = pose.head_pitch
    r_head = ryaw @ _rx(-pose.lean * 0.5) @ _rz(pose.head_yaw) @ _rx(-pitch) @ _ry(pose.head_roll)
    neck_base = shoulder_c - up * 0.01
    pivot = neck_base + up * 0.07 * sc
    add_caps(neck_base, pivot + r_head @ np.array([0, -0.005, 0.03]), 0.05 * sc, 0.046 * sc, skin, Material.PLAIN)
    radii = np.array(dims.head_radii) * sc
    head_c = pivot + r_head @ np.array([0, 0.015, 0.04 + radii[2] * 0.9])
    mask_on = 1.0 if pose.mask_on_head >= 0.5 else 0.0
    params = (pose.mask_lift, mask_on, 0, app.slot)
    add_ell(head_c, r_head, radii, skin, Material.HEAD, n_lon=32 if detail else 20,
            n_lat=20 if detail else 12, params=params, color2=app.hair)
    if app.long_hair:  # hair falling behind the head to the shoulders
        add_ell(head_c + r_head @ np.array([0, -radii[1] * 0.45, -radii[2] * 0.75]), r_head,
                radii * [1.12, 0.75, 1.15], app.hair, Material.HAIR, n_lon=16, n_lat=10)
    # nose: painted with head coordinates so the mask band covers its bridge
    nose_a = head_c + r_head @ np.array([0, radii[1] * 0.9, radii[2] * 0.0])
    nose_b = head_c + r_head @ np.array([0, radii[1] * 1.0 + 0.017, -radii[2] * 0.24])
    pos, nrm, idx = capsule_batch(W(nose_a), W(nose_b), 0.010 * sc, 0.0145 * sc, 12, 4)
    # paint the nose like the face just behind it (the nearest point of its
    # axis), so a mask darkens its bridge without turning it into a black beak
    na, nb = W(nose_a), W(nose_b)
    h = np.clip((pos - na) @ (nb - na) / np.dot(nb - na, nb - na), 0, 1)
    on_axis = na + h[:, None] * (nb - na)
    # unmasked, the nose keeps its own coordinates: its nostril shading is a face cue
    src = on_axis if mask_on else pos
    loc = (src - W(head_c)) @ (frame.rot @ r_head) / radii
    oid = occ.add(W(nose_a), W(nose_b), 0.012)
    parts.append((pos, nrm, idx, np.full(len(pos), oid), skin, Material.HEAD, loc, params, app.hair, 0))
    for s in (-1, 1):  # ears
        add_ell(head_c + r_head @ np.array([s * radii[0] * 0.97, -0.01, 0.0]), r_head,
                np.array([0.012, 0.024, 0.031]) * sc, tuple(np.array(skin) * 0.95), Material.PLAIN,
                n_lon=10, n_lat=6)
    if pose.mask_on_head < 0.5:  # the mask lies on the table
        p_, n_, i_ = box(W([-0.2, 0.07, 0.006]), np.array([0.09, 0.03, 0.006]), frame.rot @ _rz(0.35))
        parts.append((p_, n_, i_, np.full(len(p_), -1), app.mask_colour, Material.MASK, None,
                      (0, 0, 0, 0), (0, 0, 0), 0))

    # arms and hands
    hands = {}
    for side, arm in (("right", pose.right), ("left", pose.left)):
        group = 1 if side == "right" else 2
        sh = shoulders[side]
        elbow, wrist = solve_arm(sh, np.asarray(arm.wrist, float), arm.elbow,
                                 dims.upper_arm * sc, dims.forearm * sc)
        sleeve = app.sleeves or shirt
        add_caps(sh, elbow, 0.05 * sc, 0.043 * sc, sleeve)
        fa_dir = (wrist - elbow) / np.linalg.norm(wrist - elbow)
        sleeve_end = elbow + fa_dir * (0.04 if app.short_sleeves else np.linalg.norm(wrist - elbow) - 0.035)
        add_caps(elbow, sleeve_end, 0.043 * sc, 0.038 * sc, sleeve, group=group)
        add_caps(sleeve_end, wrist - fa_dir * 0.005, 0.036 * sc if app.short_sleeves else 0.03,
                 0.025 * sc, skin, Material.PLAIN, group=group)
        hp = HandPlacement(W(wrist), D(arm.forward), D(arm.palm), side == "left", app.hand_scale)
        g = Gesture.from_array(arm.gesture)
        joints = hand_joints_local(g)
        a, b, ra, rb = hand_capsules_local(joints)
        rot = hp.rotation()
        pos_l, nrm_l, idx, ao = local_hand_mesh(_quantize(arm.gesture), detail)
        # the cached mesh is in right-hand cm; mirror and place it like the joints
        m = np.array([-1.0 if hp.left else 1.0, 1, 1])
        pos = hp.wrist + (pos_l * m * 0.01 * app.hand_scale) @ rot.T
        nrm = (nrm_l * m) @ rot.T
        if hp.left:  # a mirror image flips the triangles' winding; keep them front-facing
            idx = idx[:, ::-1]
        parts.append((pos, nrm, idx, np.full(len(pos), -1), skin, Material.PLAIN, None,
                      (0, 0, 0, 0), (0, 0, 0), -1, ao))
        g = Gesture.from_array(_quantize(arm.gesture))
        joints = hand_joints_local(g)
        hands[side] = hp.to_world(joints, rot)

    # bake AO for the hands (occluded by their own primitives and forearm):
    # the creases between fingers are what the detectors need; the body's
    # large smooth shapes gain little from it and it costs most of the time
    for part in parts:
        pos, nrm, idx, owner, color, material, loc, params, color2, group = part[:10]
        ao = part[10] if len(part) > 10 else 1.0
        mb.add(pos, nrm, idx, color, material, ao, loc, params, color2)
    return BodyTruth(hands["right"], hands["left"], W(head_c), frame.rot @ r_head, radii)

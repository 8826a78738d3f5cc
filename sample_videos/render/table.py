"""Table shapes: where the ten seats sit around a table of any size and shape,
the table's mesh, and the ring the judge walks on.

A table is a superellipse |x/a|^n + |y/b|^n = 1 (n = 2 an oval, n = 5 a
rectangle with rounded corners), the head (the judge's end) at -x. The default
table (an oval 3.1 x 1.8 m) is drawn by `render/scene.py`'s original code, so
default scenes keep their exact pixels; this module handles every other one.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from vision.table_model import edge_normal, edge_point

TABLE_HEIGHT = 0.75
SEAT_SPACING = 0.6     # m of table edge per seat when the table is not the default one
JUDGE_HEAD_CLEARANCE = 0.5   # the judge stands this far from the table's head end
JUDGE_SIDE_CLEARANCE = 1.15  # and walks this far from the edge behind the chairs


@dataclass(frozen=True)
class TableSpec:
    a: float = 1.55          # semi-axis along x (head to foot)
    b: float = 0.9           # semi-axis along y
    exponent: float = 2.0
    colour: tuple[float, float, float] = (0.16, 0.30, 0.22)
    surface: str = "cloth"   # cloth | wood | plastic

    @property
    def is_default_shape(self) -> bool:
        return (self.a, self.b, self.exponent) == (1.55, 0.9, 2.0)

    def point(self, t) -> np.ndarray:
        """Edge point(s) at parameter t (t = pi is the head)."""
        return edge_point(self.a, self.b, self.exponent, t)

    def outward_normal(self, t) -> np.ndarray:
        return edge_normal(self.a, self.b, self.exponent, t)


@functools.lru_cache(maxsize=16)
def _arc_table(spec: TableSpec, samples: int = 4001):
    ts = np.linspace(0, 2 * np.pi, samples)
    pts = spec.point(ts)
    arc = np.r_[0, np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))]
    return ts, arc


def perimeter(spec: TableSpec) -> float:
    return float(_arc_table(spec)[1][-1])


def head_gap(spec: TableSpec) -> float:
    """Edge length left free at the head for the judge."""
    return float(np.clip(perimeter(spec) - 10 * SEAT_SPACING, 0.9, 2.6))


def seat_params(spec: TableSpec) -> list[float]:
    """Parameters t of seats 1..10, clockwise from the judge's left."""
    ts, arc = _arc_table(spec)
    total = arc[-1]
    gap = head_gap(spec)
    s_judge = np.interp(np.pi, ts, arc)
    spacing = (total - gap) / 10
    return [float(np.interp((s_judge - gap / 2 - spacing * (k + 0.5)) % total, arc, ts)) for k in range(10)]


def seat_frame_at(spec: TableSpec, t: float):
    """(origin, rotation) of a seat frame: origin on the edge at table height,
    columns right, forward (into the table), up."""
    p = spec.point(t)
    n = -spec.outward_normal(t)
    fwd = np.array([n[0], n[1], 0.0])
    up = np.array([0, 0, 1.0])
    right = np.cross(fwd, up)
    return np.array([p[0], p[1], TABLE_HEIGHT]), np.stack([right, fwd, up], axis=1)


def table_mesh(spec: TableSpec, z0: float, z1: float, n: int = 160, round_r: float = 0.015):
    """The top (a fan) and a rounded rim, like `meshes.oval_prism` for any shape."""
    th = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = spec.point(th)
    out = spec.outward_normal(th)
    pos = [np.array([[0, 0, z1]])]
    nrm = [np.array([[0, 0, 1.0]])]
    pos.append(np.c_[ring - out * round_r, np.full(n, z1)])
    nrm.append(np.tile([0, 0, 1.0], (n, 1)))
    idx = [np.stack([np.zeros(n), 1 + np.arange(n), 1 + (np.arange(n) + 1) % n], -1)]
    steps, base_prev = 6, 1
    for s in range(1, steps + 1):
        ang = s / steps * np.pi / 2
        zz = z1 - round_r * (1 - np.cos(ang)) if s < steps else z0
        rr = -round_r + round_r * np.sin(ang)
        pos.append(np.c_[ring + out * rr, np.full(n, zz)])
        nrm.append(np.c_[out * np.sin(ang), np.full(n, np.cos(ang))])
        start = 1 + s * n
        j = np.arange(n)
        p0, p1 = base_prev + j, base_prev + (j + 1) % n
        q0, q1 = start + j, start + (j + 1) % n
        idx.append(np.stack([p0, q0, q1], -1))
        idx.append(np.stack([p0, q1, p1], -1))
        base_prev = start
    return np.concatenate(pos), np.concatenate(nrm), np.concatenate(idx).astype(np.int32)


def head_point(spec: TableSpec) -> np.ndarray:
    """Where the players look: the judge's end, 1.2 m beyond the table's head
    (the default camera's spot)."""
    return np.array([-(spec.a + 1.2), 0.0])


@functools.lru_cache(maxsize=16)
def judge_ring(spec: TableSpec, samples: int = 1441):
    """The judge's walking line: close to the table at the head, behind the
    chairs along the sides. Returns (points (N,2), arc length (N,), signed
    arc distance from the head point (N,)); index 0 is the head, going clockwise."""
    ts = np.pi - np.linspace(0, 2 * np.pi, samples)
    edge = spec.point(ts)
    out = spec.outward_normal(ts)
    earc = np.r_[0, np.cumsum(np.linalg.norm(np.diff(edge, axis=0), axis=1))]
    total = earc[-1]
    from_head = np.minimum(earc, total - earc)
    half_gap = head_gap(spec) / 2
    w = np.clip((from_head - (half_gap - 0.35)) / 0.5, 0, 1)
    w = w * w * (3 - 2 * w)
    clearance = JUDGE_HEAD_CLEARANCE + (JUDGE_SIDE_CLEARANCE - JUDGE_HEAD_CLEARANCE) * w
    pts = edge + out * clearance[:, None]
    arc = np.r_[0, np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))]
    signed = np.where(earc <= total / 2, earc, earc - total)
    return pts, arc, signed

"""Triangle-mesh primitives built in batches with numpy.

Every body is a union of capsules and ellipsoids; building each kind in one
vectorised batch keeps a ten-player frame's geometry cheap enough to rebuild
every frame.  A `MeshBuilder` collects parts with their per-vertex attributes
and packs them into the interleaved layout the shaders read (`VERTEX_FORMAT`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache

import numpy as np

# pos3 nrm3 col3 ao1 mat1 loc3 par4 col2_3
VERTEX_FORMAT = "3f 3f 3f 1f 1f 3f 4f 3f"
VERTEX_ATTRS = ("in_pos", "in_nrm", "in_col", "in_ao", "in_mat", "in_loc", "in_par", "in_col2")
VERTEX_FLOATS = 21


class Material(IntEnum):
    """Procedural surface kinds the fragment shader paints (see shaders.py)."""
    PLAIN = 0
    HEAD = 1      # skin with a painted face; loc = unit-sphere head coords
    FLOOR = 2
    WALL = 3
    CLOTH = 4     # table cloth
    WOOD = 5
    FABRIC = 6    # clothes
    HAIR = 7
    MASK = 8
    # wider worlds (WORLD shader variant only)
    PLATE = 9     # a name plate: loc.xy = position on its face (0..1), params.x = the number
    GLASS = 10    # bottles
    SCREEN = 11   # a phone's glass
    PLASTIC = 12  # a smooth plastic table top


@lru_cache(maxsize=None)
def sphere_template(n_lon: int, n_lat: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit sphere, poles along z, rings from -90 to 90 degrees (poles repeated)."""
    lat = np.linspace(-np.pi / 2, np.pi / 2, n_lat + 1)
    lon = np.linspace(0, 2 * np.pi, n_lon, endpoint=False)
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    v = np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], -1).reshape(-1, 3)
    return v, _grid_indices(n_lat + 1, n_lon)


@lru_cache(maxsize=None)
def capsule_template(n_lon: int, n_half: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit sphere split at the equator: rings of the lower half then the upper
    half (equator repeated), plus a 0/1 flag saying which end a vertex follows."""
    lat = np.concatenate([np.linspace(-np.pi / 2, 0, n_half + 1), np.linspace(0, np.pi / 2, n_half + 1)])
    lon = np.linspace(0, 2 * np.pi, n_lon, endpoint=False)
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    v = np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], -1).reshape(-1, 3)
    top = np.repeat(np.r_[np.zeros(n_half + 1), np.ones(n_half + 1)], n_lon)
    return v, top, _grid_indices(2 * n_half + 2, n_lon)


def _grid_indices(rows: int, cols: int) -> np.ndarray:
    r, c = np.meshgrid(np.arange(rows - 1), np.arange(cols), indexing="ij")
    a = r * cols + c
    b = r * cols + (c + 1) % cols
    d = (r + 1) * cols + c
    e = (r + 1) * cols + (c + 1) % cols
    return np.concatenate([np.stack([a, b, e], -1).reshape(-1, 3),
                           np.stack([a, e, d], -1).reshape(-1, 3)]).astype(np.int32)


def frames_along(axis: np.ndarray) -> np.ndarray:
    """(K,3) unit axes -> (K,3,3) rotations whose third column is the axis."""
    w = axis / np.maximum(np.linalg.norm(axis, axis=-1, keepdims=True), 1e-9)
    helper = np.where(np.abs(w[:, :1]) < 0.9, [[1.0, 0, 0]], [[0, 1.0, 0]])
    u = np.cross(helper, w)
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    v = np.cross(w, u)
    return np.stack([u, v, w], axis=-1)


def capsule_batch(a: np.ndarray, b: np.ndarray, ra: np.ndarray | float, rb: np.ndarray | float,
                  n_lon: int = 14, n_half: int = 5):
    """K (possibly tapered) capsules -> positions (K*V,3), normals, indices."""
    a, b = np.atleast_2d(a).astype(float), np.atleast_2d(b).astype(float)
    k = len(a)
    ra = np.broadcast_to(np.asarray(ra, float), (k,))
    rb = np.broadcast_to(np.asarray(rb, float), (k,))
    tv, top, ti = capsule_template(n_lon, n_half)
    rot = frames_along(b - a)
    nrm = np.einsum("kij,vj->kvi", rot, tv)
    radius = np.where(top[None, :] > 0, rb[:, None], ra[:, None])
    base = np.where(top[None, :, None] > 0, b[:, None, :], a[:, None, :])
    pos = base + nrm * radius[..., None]
    idx = (ti[None] + (np.arange(k) * len(tv))[:, None, None]).reshape(-1, 3)
    return pos.reshape(-1, 3), nrm.reshape(-1, 3), idx


def ellipsoid_batch(center: np.ndarray, rot: np.ndarray, radii: np.ndarray,
                    n_lon: int = 20, n_lat: int = 12):
    """K ellipsoids -> positions, normals, unit-sphere local coords, indices."""
    center = np.atleast_2d(center).astype(float)
    k = len(center)
    rot = np.broadcast_to(rot, (k, 3, 3))
    radii = np.broadcast_to(np.asarray(radii, float), (k, 3))
    tv, ti = sphere_template(n_lon, n_lat)
    local = tv[None] * radii[:, None, :]
    pos = center[:, None, :] + np.einsum("kij,kvj->kvi", rot, local)
    n_loc = tv[None] / radii[:, None, :]
    nrm = np.einsum("kij,kvj->kvi", rot, n_loc)
    nrm /= np.linalg.norm(nrm, axis=-1, keepdims=True)
    idx = (ti[None] + (np.arange(k) * len(tv))[:, None, None]).reshape(-1, 3)
    return pos.reshape(-1, 3), nrm.reshape(-1, 3), np.broadcast_to(tv, (k,) + tv.shape).reshape(-1, 3), idx


def box(center, half, rot=None):
    """An axis box (optionally rotated) with flat-shaded faces."""
    rot = np.eye(3) if rot is None else np.asarray(rot, float)
    pos, nrm, idx = [], [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            n = np.zeros(3)
            n[axis] = sign
            u, v = np.eye(3)[(axis + 1) % 3], np.eye(3)[(axis + 2) % 3]
            if sign < 0:
                u, v = v, u
            corners = [n + su * u + sv * v for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            base = len(pos)
            pos += [np.asarray(center) + rot @ (c * half) for c in corners]
            nrm += [rot @ n] * 4
            idx += [[base, base + 1, base + 2], [base, base + 2, base + 3]]
    return np.array(pos), np.array(nrm), np.array(idx, np.int32)


def quad(corners, normal):
    """Four corners in order -> a flat quad."""
    c = np.asarray(corners, float)
    return c, np.tile(np.asarray(normal, float), (4, 1)), np.array([[0, 1, 2], [0, 2, 3]], np.int32)


def grid_quad(origin, u, v, nu: int, nv: int, normal):
    """A subdivided quad (origin + i/nu*u + j/nv*v), for per-vertex lighting variation."""
    i, j = np.meshgrid(np.linspace(0, 1, nu + 1), np.linspace(0, 1, nv + 1), indexing="ij")
    pos = np.asarray(origin) + i[..., None] * np.asarray(u) + j[..., None] * np.asarray(v)
    r, c = np.meshgrid(np.arange(nu), np.arange(nv), indexing="ij")
    a0 = r * (nv + 1) + c
    a1, a2, a3 = a0 + 1, a0 + nv + 1, a0 + nv + 2
    idx = np.concatenate([np.stack([a0, a2, a3], -1).reshape(-1, 3),
                          np.stack([a0, a3, a1], -1).reshape(-1, 3)]).astype(np.int32)
    return pos.reshape(-1, 3), np.tile(np.asarray(normal, float), ((nu + 1) * (nv + 1), 1)), idx


def oval_prism(a: float, b: float, z0: float, z1: float, n: int = 96, round_r: float = 0.02):
    """An elliptical slab (table top): a top fan and a rounded side band."""
    th = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.stack([a * np.cos(th), b * np.sin(th)], -1)
    out = np.stack([b * np.cos(th), a * np.sin(th)], -1)
    out /= np.linalg.norm(out, axis=-1, keepdims=True)
    pos = [np.array([[0, 0, z1]])]
    nrm = [np.array([[0, 0, 1.0]])]
    pos.append(np.c_[ring - out * round_r, np.full(n, z1)])
    nrm.append(np.tile([0, 0, 1.0], (n, 1)))
    idx = [np.stack([np.zeros(n), 1 + np.arange(n), 1 + (np.arange(n) + 1) % n], -1)]
    # side band: rounded edge from the top ring down to z0
    steps = 6
    base_prev = 1
    for s in range(1, steps + 1):
        ang = s / steps * np.pi / 2
        zz = z1 - round_r * (1 - np.cos(ang)) if s < steps else z0
        rr = -round_r + round_r * np.sin(ang)
        normal = np.c_[out * np.sin(ang), np.full(n, np.cos(ang))]
        pos.append(np.c_[ring + out * rr, np.full(n, zz)])
        nrm.append(normal)
        start = 1 + s * n
        j = np.arange(n)
        p0, p1 = base_prev + j, base_prev + (j + 1) % n
        q0, q1 = start + j, start + (j + 1) % n
        idx.append(np.stack([p0, q0, q1], -1))
        idx.append(np.stack([p0, q1, p1], -1))
        base_prev = start
    return np.concatenate(pos), np.concatenate(nrm), np.concatenate(idx).astype(np.int32)


@dataclass
class MeshBuilder:
    """Collects mesh parts and packs them into one interleaved vertex array."""
    _verts: list = field(default_factory=list)
    _idx: list = field(default_factory=list)
    _count: int = 0

    def add(self, pos, nrm, idx, color, material: Material = Material.PLAIN, ao=1.0,
            local=None, params=(0, 0, 0, 0), color2=(0, 0, 0)) -> None:
        n = len(pos)
        v = np.empty((n, VERTEX_FLOATS), np.float32)
        v[:, 0:3] = pos
        v[:, 3:6] = nrm
        v[:, 6:9] = color
        v[:, 9] = ao
        v[:, 10] = float(material)
        v[:, 11:14] = 0.0 if local is None else local
        v[:, 14:18] = params
        v[:, 18:21] = color2
        self._verts.append(v)
        self._idx.append(np.asarray(idx, np.int32) + self._count)
        self._count += n

    def build(self) -> tuple[np.ndarray, np.ndarray]:
        if not self._verts:
            return np.zeros((0, VERTEX_FLOATS), np.float32), np.zeros((0, 3), np.int32)
        return np.concatenate(self._verts), np.concatenate(self._idx)

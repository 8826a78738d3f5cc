"""Things on the table: numbered name plates, bottles, phones, papers.

All static (drawn once into the background), placed from a seeded stream
away from every seat's vote zone and resting hands: name plates and phones
in front of a seat beyond its zone (0.5-0.65 m from the edge), bottles and
papers toward the middle of the table.
"""
from __future__ import annotations

import numpy as np

from sample_videos.render.meshes import Material, MeshBuilder, box, capsule_batch
from sample_videos.render.table import TABLE_HEIGHT

PLATE_W, PLATE_H = 0.14, 0.075   # a tent card's face: width, slant height (m)


def _rz(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def name_plate(mb: MeshBuilder, centre, facing_rot: np.ndarray, number: int) -> None:
    """A tent card standing on the table with `number` printed on both faces."""
    lean = np.radians(22)
    for side in (-1, 1):
        # a face: from the ridge down to the table on one side
        ridge = np.asarray(centre) + facing_rot @ np.array([0, 0, PLATE_H * np.cos(lean)])
        foot = np.asarray(centre) + facing_rot @ np.array([0, side * PLATE_H * np.sin(lean), 0.002])
        along = facing_rot @ np.array([1.0, 0, 0])
        corners = np.array([foot - along * PLATE_W / 2, foot + along * PLATE_W / 2,
                            ridge + along * PLATE_W / 2, ridge - along * PLATE_W / 2])
        normal = np.cross(corners[1] - corners[0], corners[3] - corners[0])
        normal /= np.linalg.norm(normal)
        if normal @ (facing_rot @ np.array([0, side, 0.0])) < 0:
            normal = -normal
        # u across the face as a reader sees it, v up
        uv = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
        if side > 0:   # seen from the table's middle, the seat's right runs to the viewer's left
            uv[:, 0] = 1 - uv[:, 0]
        idx = np.array([[0, 1, 2], [0, 2, 3]], np.int32)
        mb.add(corners, np.tile(normal, (4, 1)), idx, (0.93, 0.92, 0.88), Material.PLATE, 1.0, uv,
               (float(number), 0, 0, 0))


def bottle(mb: MeshBuilder, xy, colour, height: float) -> None:
    z = TABLE_HEIGHT
    body_top = z + height * 0.68
    p, n, i = capsule_batch(np.array([xy[0], xy[1], z + 0.035]), np.array([xy[0], xy[1], body_top]),
                            0.035, 0.035, 14, 3)
    mb.add(p, n, i, colour, Material.GLASS)
    p, n, i = capsule_batch(np.array([xy[0], xy[1], body_top]), np.array([xy[0], xy[1], z + height]),
                            0.03, 0.014, 12, 3)
    mb.add(p, n, i, colour, Material.GLASS)
    p, n, i = capsule_batch(np.array([xy[0], xy[1], z + height]), np.array([xy[0], xy[1], z + height + 0.015]),
                            0.016, 0.016, 10, 2)
    mb.add(p, n, i, (0.75, 0.1, 0.08) if height < 0.27 else (0.8, 0.8, 0.78), Material.PLAIN)


def phone(mb: MeshBuilder, xy, angle: float, colour) -> None:
    rot = _rz(angle)
    centre = np.array([xy[0], xy[1], TABLE_HEIGHT + 0.0045])
    p, n, i = box(centre, np.array([0.037, 0.075, 0.0045]), rot)
    mb.add(p, n, i, colour, Material.PLAIN)
    p, n, i = box(centre + [0, 0, 0.0048], np.array([0.033, 0.07, 0.0003]), rot)
    mb.add(p, n, i, (0.03, 0.035, 0.05), Material.SCREEN)


def paper(mb: MeshBuilder, xy, angle: float) -> None:
    p, n, i = box(np.array([xy[0], xy[1], TABLE_HEIGHT + 0.0012]), np.array([0.105, 0.1485, 0.0006]), _rz(angle))
    mb.add(p, n, i, (0.9, 0.9, 0.87), Material.PLAIN)


def place_props(mb: MeshBuilder, props, seats: dict, table, rng: np.random.Generator) -> list[dict]:
    """Add every prop; returns what was placed (for truth.json)."""
    placed = []
    if props.name_plates:
        for s, seat in sorted(seats.items()):
            f = seat.frame
            x = float(rng.choice([-1, 1]) * rng.uniform(0.08, 0.2))
            centre = f.to_world([x, 0.56, 0.0])
            yaw = np.arctan2(f.rot[1, 1], f.rot[0, 1]) - np.pi / 2
            name_plate(mb, centre, _rz(yaw + rng.uniform(-0.2, 0.2)), s)
            placed.append({"kind": "name_plate", "seat": s, "at": [round(float(v), 3) for v in centre[:2]]})
    free = [s for s in sorted(seats)]
    for _ in range(props.phones):
        s = int(rng.choice(free))
        f = seats[s].frame
        centre = f.to_world([float(rng.uniform(-0.22, 0.22)), float(rng.uniform(0.5, 0.62)), 0.0])
        phone(mb, centre[:2], float(rng.uniform(0, np.pi)), (0.05, 0.05, 0.06) if rng.uniform() < 0.6
              else (0.75, 0.74, 0.72))
        placed.append({"kind": "phone", "seat": s, "at": [round(float(v), 3) for v in centre[:2]]})
    inner_a, inner_b = max(0.2, table.a - 0.75), max(0.1, table.b - 0.68)
    for kind, count in (("bottle", props.bottles), ("paper", props.papers)):
        for _ in range(count):
            xy = np.array([rng.uniform(-inner_a, inner_a), rng.uniform(-inner_b, inner_b)])
            if kind == "bottle":
                colour = [(0.12, 0.3, 0.15), (0.35, 0.2, 0.07), (0.55, 0.62, 0.66), (0.1, 0.12, 0.3)][int(rng.integers(4))]
                bottle(mb, xy, colour, float(rng.uniform(0.22, 0.32)))
            else:
                paper(mb, xy, float(rng.uniform(0, np.pi)))
            placed.append({"kind": kind, "at": [round(float(v), 3) for v in xy]})
    return placed

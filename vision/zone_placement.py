"""Table zones of proposed seats placed from the table's edge as the frames show it.

The table model (`vision.table_model`) places every seat's table zone from a
camera and a table fitted to the heads found. The heads' places fix the
table well; their sizes (read from faces and landmarks, 20-30 % off) fix its
depth badly, so the near seats' zones came out 10-25 px off on the committed
sample: enough to put a resting palm in the zone (a false wrong form) or a
fist outside it.

The table's edge is in the frames. Beside each seat, where neither the
player's nor the neighbour's forearms lie (0.2-0.35 m to either side of the
seat's centre), the edge is looked for along the table's inward normal: the
table top's colour is measured well inside the table (`table_colour`), and
walking out from the inside, the edge is where the pixels stop being the
table's. The zone is moved by the median of those readings (over both sides
and every frame): how far the edge seen lies from the edge the model puts
there.

Each zone says how far it may still be off (`error_px`): the spread of the
readings, or, where the edge was not read on both sides in enough frames
(a top of the floor's colour, a dark room, a cloth the players' sleeves
match), nothing is measured and the zone is the table model's alone
(`source` "table_model", `error_px` None). The analysis does not judge a
vote in a zone it cannot place (`vision.calibration.seat_doubts`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from vision.table_model import Camera, Table

Box = tuple[float, float, float, float]

# Where the edge is read around a seat: rays every SIDE_STEP m along the edge,
# up to SIDE_REACH m either side of the seat's centre (the neighbours' centres
# are 0.6 m away).
SIDE_REACH = 0.42
SIDE_STEP = 0.03
# How far along the inward normal the edge is looked for (metres: outside, inside).
REACH = (-0.30, 0.45)
# The inside end of a ray must be the table's colour for this share of its last samples.
INSIDE_SHARE = 0.8
INSIDE_SPAN = 0.06           # metres at the inside end that must be table
# Pixels this far from the table colour (in its own spread) are not the table.
COLOUR_SPREAD = 3.0
MIN_COLOUR_DISTANCE = 10.0   # Lab units: a flat top's spread alone would call noise "not table"
# The edge is where a run of this many non-table samples starts (walking out).
RUN = 3
# Readings a zone needs, the share of them the edge's cluster must hold, and how
# close (share of the zone's size) readings of one edge are.
MIN_READINGS = 12
SUPPORT = 0.15
AGREE_OF_ZONE = 0.04
# The edge's cluster must hold this many readings on either side of the seat.
MIN_PER_SIDE = 3
# A zone placed at rest shows the table top in at least this share of its pixels
# (median over frames): one on a player's back shows little of it. Resting hands
# and forearms cover much of a right zone: at 0.5, the written proposals of tuning
# views 5400-5415 and check views 5800-5815 left 11 zones the edge placed right
# (IoU 0.64-0.95 with the rendered zone) unplaced at 0.42-0.50; at 0.4 they are
# placed and no zone under those IoUs is added (session 53, docs/vision.md step 4).
MIN_TABLE_IN_ZONE = 0.4
# A zone that must move more than this share of its own size is not believed:
# the model and the frames disagree so much that the fit is off along the edge
# too, where the edge cannot tell (the committed sample's zones moved at most
# 0.18 of their size and came right; tuning seed 5303's, seen at fov 30, moved
# 0.36-0.8 and most came out worse, its edges hidden behind the players).
MAX_SHIFT_OF_ZONE = 0.25


@dataclass(frozen=True)
class ZonePlacement:
    """One seat's table zone as placed from the frames."""
    zone: Box                      # the zone placed
    model_zone: Box                # the table model's zone
    shift: tuple[float, float]     # zone - model_zone (px)
    error_px: float | None         # how far it may still be off; None: not measured
    source: str                    # "table_edge" or "table_model"
    readings: int                  # edge readings it rests on

    def to_json(self) -> dict:
        return {"source": self.source, "error_px": None if self.error_px is None else round(self.error_px, 1),
                "shift_px": [round(v, 1) for v in self.shift], "readings": self.readings}


def _lab(frame: np.ndarray) -> np.ndarray:
    import cv2
    return cv2.cvtColor(frame, cv2.COLOR_RGB2LAB).astype(np.float32)


def _pixels(img: np.ndarray, px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Colours at pixel positions (n, 2), and which positions lie inside the frame."""
    h, w = img.shape[:2]
    xi, yi = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    out = np.zeros((len(px), img.shape[2]), np.float32)
    out[ok] = img[yi[ok], xi[ok]]
    return out, ok


def table_colour(lab: np.ndarray, camera: Camera, table: Table) -> tuple[np.ndarray, float] | None:
    """The table top's colour (Lab median) and the distance under which a pixel
    is the table's, from points well inside the table (props and hands are few
    there: the median holds)."""
    us = np.linspace(-0.7, 0.7, 15)
    pts = np.array([[u * table.a, v * table.b, 0.0] for u in us for v in us
                    if abs(u) ** table.exponent + abs(v) ** table.exponent <= 0.6 ** table.exponent])
    px, depth = camera.project(pts)
    cols, ok = _pixels(lab, px)
    cols = cols[ok & (depth > 0.1)]
    if len(cols) < 20:
        return None
    med = np.median(cols, axis=0)
    d = np.linalg.norm(cols - med, axis=1)
    return med, max(MIN_COLOUR_DISTANCE, COLOUR_SPREAD * float(np.median(d)) * 1.4826)


def _ray(camera: Camera, table: Table, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Along the inward normal at edge parameter t: the metres sampled, their pixels,
    and the outward unit vector in the image (None when the ray leaves the view)."""
    p = table.point(t)
    n = table.inward(t)
    ends, depth = camera.project(np.array([[*(p + REACH[0] * n), 0.0], [*(p + REACH[1] * n), 0.0]]))
    if np.any(depth <= 0.1):
        return None
    length = float(np.linalg.norm(ends[1] - ends[0]))
    if length < 8:
        return None
    steps = int(min(400, max(24, length)))
    s = np.linspace(REACH[0], REACH[1], steps)
    px, _ = camera.project(np.c_[p[0] + s * n[0], p[1] + s * n[1], np.zeros(steps)])
    return s, px, (ends[0] - ends[1]) / length


def edge_reading(lab: np.ndarray, camera: Camera, table: Table, t: float, colour: np.ndarray,
                 limit: float) -> tuple[float, np.ndarray] | None:
    """How far (px, outward positive) the table's edge seen at parameter t lies from
    the model's, read walking out along the inward normal from well inside the
    table; and the ray's outward image direction. None where it cannot be read (the
    inside end is not the table, or the ray never leaves it)."""
    ray = _ray(camera, table, t)
    if ray is None:
        return None
    s, px, out_dir = ray
    cols, ok = _pixels(lab, px)
    if not ok.all():
        return None
    table_like = np.linalg.norm(cols - colour, axis=1) <= limit
    if table_like[s >= REACH[1] - INSIDE_SPAN].mean() < INSIDE_SHARE:
        return None
    # walk out from the inside end: the edge is the last table sample before a run of others
    misses = 0
    edge = None
    i = len(s) - 1
    while i >= 0:
        if table_like[i]:
            misses = 0
            edge = i
        else:
            misses += 1
            if misses >= RUN:
                break
        i -= 1
    if edge is None or i < 0:
        return None
    model = px[int(np.argmin(np.abs(s)))]
    return float(np.dot(px[edge] - model, out_dir)), out_dir


def outer_edge(values: Sequence[float], tol: float,
               sides: Sequence[float] | None = None) -> tuple[float, float, int] | None:
    """The edge among one seat's readings: an arm or a hand lying over the edge
    stops a reading short (inward), nothing makes one reach further out than the
    edge, so the edge is the outermost cluster of readings that agree (within
    `tol` px) and hold at least `SUPPORT` of them; with `sides` (each reading's
    place along the edge, metres from the seat's centre) the cluster must hold
    `MIN_PER_SIDE` readings on either side of the seat (a player seen from behind
    hides the edge, and the outline of a still back agrees with itself in every
    frame). Returns (edge, spread, support)."""
    order = np.argsort(values)
    v = np.asarray(values, float)[order]
    side = None if sides is None else np.sign(np.asarray(sides, float)[order])
    if len(v) < MIN_READINGS:
        return None
    need = max(MIN_READINGS // 2, SUPPORT * len(v))
    for x in v[::-1]:
        near = np.abs(v - x) <= tol
        if near.sum() < need:
            continue
        if side is not None and min((side[near] < 0).sum(), (side[near] > 0).sum()) < MIN_PER_SIDE:
            continue
        centre = float(np.median(v[near]))
        close = v[np.abs(v - centre) <= tol]
        return centre, 1.4826 * float(np.median(np.abs(close - centre))), len(close)
    return None


def table_share(lab: np.ndarray, zone: Box, colour: np.ndarray, limit: float) -> float:
    """The share of a zone's pixels that are the table top's colour."""
    h, w = lab.shape[:2]
    x0, y0 = max(0, int(zone[0])), max(0, int(zone[1]))
    x1, y1 = min(w, int(math.ceil(zone[2]))), min(h, int(math.ceil(zone[3])))
    if x1 <= x0 or y1 <= y0:
        return 0.0
    patch = lab[y0:y1:2, x0:x1:2]
    return float((np.linalg.norm(patch - colour, axis=2) <= limit).mean())


def place_zones(frames: Sequence[np.ndarray], camera: Camera, table: Table,
                model_zones: Sequence[Box]) -> list[ZonePlacement]:
    """Seats 1..10's zones moved to the edge the frames show (`model_zones`: the
    table model's, in seat order)."""
    labs = [_lab(f) for f in frames]
    colours = [table_colour(lab, camera, table) for lab in labs]
    offsets = np.arange(-SIDE_REACH, SIDE_REACH + 1e-9, SIDE_STEP)
    params = [table.seat_params(float(o)) for o in offsets]
    centre = table.seat_params()
    readings: list[list[float]] = [[] for _ in range(10)]
    along: list[list[float]] = [[] for _ in range(10)]
    for lab, tc in zip(labs, colours):
        if tc is None:
            continue
        for off, ts in zip(offsets, params):
            for k in range(10):
                r = edge_reading(lab, camera, table, ts[k], tc[0], tc[1])
                if r is not None:
                    readings[k].append(r[0])
                    along[k].append(float(off))
    out = []
    for k in range(10):
        z = tuple(float(v) for v in model_zones[k])
        ray = _ray(camera, table, centre[k])
        size = min(z[2] - z[0], z[3] - z[1])
        # readings agree when within 4 % of the zone's size (3 px on a 75 px zone)
        tol = max(2.0, AGREE_OF_ZONE * size)
        edge = outer_edge(readings[k], tol, along[k]) if ray is not None else None
        if edge is None or abs(edge[0]) > MAX_SHIFT_OF_ZONE * size:
            out.append(ZonePlacement(z, z, (0.0, 0.0), None, "table_model", len(readings[k])))  # type: ignore[arg-type]
            continue
        assert ray is not None
        dx, dy = (float(v) for v in edge[0] * ray[2])
        moved = (z[0] + dx, z[1] + dy, z[2] + dx, z[3] + dy)
        # a zone at rest shows the table top (a few fingers and a card on it): one
        # that does not in most frames lies on the player's back or off the table
        shown = float(np.median([table_share(lab, moved, tc[0], tc[1]) for lab, tc in zip(labs, colours)
                                 if tc is not None]))
        if shown < MIN_TABLE_IN_ZONE:
            out.append(ZonePlacement(z, z, (0.0, 0.0), None, "table_model", edge[2]))  # type: ignore[arg-type]
            continue
        out.append(ZonePlacement(moved, z, (dx, dy), max(edge[1], 1.0), "table_edge", edge[2]))  # type: ignore[arg-type]
    return out

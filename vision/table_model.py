"""The table, its ten seats and the camera, fitted to the heads found in a recording.

A seat's regions are physical places (`docs/vision.md`, "Calibration"): in
the seat's own frame (origin on the table's edge at the table's height,
`forward` into the table, `right`, `up`; metres) the body region is the box
x +-0.30, y -0.50..+0.40, z -0.02..+0.72 (the seated or standing player,
the chair's back and the table in front up to the vote zone), the table
zone x +-0.17, y +0.18..+0.40, z 0..0.14 (where a vote fist lands), and a
seated head rests about 0.31 m behind the edge and 0.47 m above the table.
`mafvar synth` draws its calibration from the same boxes.

So once the camera and the table are known, every seat's regions follow,
also for a player the detectors missed. They are fitted together: a pinhole
camera (focal length, position, heading, tilt, roll, radial distortion)
and a table (a superellipse |x/a|^n + |y/b|^n = 1, n = 2 an oval, n = 5 a
rectangle with round corners) with the ten seats evenly spaced along its
edge, clockwise, leaving one larger gap at the head of the table for the
judge (at -x). Each head found is matched to the seat whose predicted head
is nearest; the fit minimises where the heads are (in head widths) and how
large they look (their depth). The gap is where nobody sits: that fixes
which end is the head and so the seats' numbers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

# The seat convention (metres, seat frame: right, forward into the table, up).
HEAD_BEHIND_EDGE = 0.31
HEAD_ABOVE_TABLE = 0.47
HEAD_WIDTH_M = 0.155
SEAT_SPACING_M = 0.6
BODY_BOX = ((-0.30, 0.30), (-0.50, 0.40), (-0.02, 0.72))
ZONE_BOX = ((-0.17, 0.17), (0.18, 0.40), (0.0, 0.14))
TABLE_SHAPES = (2.0, 5.0)

Box = tuple[float, float, float, float]

# How the fit weighs what it sees: a head's place is worth more than its size
# (a size read from landmarks is good to 20-30 %).
SIZE_WEIGHT = 1.0
# A head further than this from every predicted head (in head widths) is
# somebody else (the judge, a spectator) or a false detection.
MATCH_LIMIT = 1.6
START_MATCH_LIMIT = 5.0       # ... from a rough starting guess
START_REFINED = 24            # camera azimuths whose best framed guess is fitted: all of them (the rough
                              # start cost ranked the right one 11th on the untimed sample's frames)
FITS_KEPT = 3                 # different fits handed on to be told apart by looking again
SPACING_PRIOR_SD = 0.2        # log-sd of the seat spacing around 0.6 m
MIN_HEAD_GAP_M = 0.9          # the judge's gap is at least this (below it the fit pays, 0.1 m a unit)
PRIORS = 3                    # residuals after the heads' (spacing, distortion, head gap)


@dataclass(frozen=True)
class Head:
    """A head found in the frame: centre and width (px; 0 when unknown: a head a
    person placed by hand), and how much to trust it."""
    x: float
    y: float
    width: float
    weight: float = 1.0


@dataclass(frozen=True)
class Camera:
    f: float                 # focal length (px)
    position: tuple[float, float, float]   # metres, table frame: centre at the origin, table top z = 0
    heading: float           # where it looks, radians (0 = +x, toward the table's foot)
    tilt: float              # radians below the horizon
    roll: float              # radians
    k1: float                # radial distortion at the frame's corner (r -> r (1 + k1 r^2))
    width: int
    height: int

    def axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ch, sh, ct, st = math.cos(self.heading), math.sin(self.heading), math.cos(self.tilt), math.sin(self.tilt)
        fwd = np.array([ct * ch, ct * sh, -st])
        right = np.array([sh, -ch, 0.0])
        up = np.cross(right, fwd)
        if self.roll:
            a = self.roll
            right, up = math.cos(a) * right - math.sin(a) * up, math.sin(a) * right + math.cos(a) * up
        return fwd, right, up

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points (..., 3) -> (pixels (..., 2), depth (...))."""
        fwd, right, up = self.axes()
        d = np.asarray(pts, float) - np.asarray(self.position)
        z = d @ fwd
        zs = np.maximum(z, 1e-3)
        x = self.f * (d @ right) / zs
        y = -self.f * (d @ up) / zs
        if self.k1:
            half = math.hypot(self.width, self.height) / 2
            r2 = (x * x + y * y) / (half * half)
            x, y = x * (1 + self.k1 * r2), y * (1 + self.k1 * r2)
        return np.stack([x + self.width / 2, y + self.height / 2], -1), z


def edge_point(a: float, b: float, exponent: float, t) -> np.ndarray:
    """Point(s) of the superellipse |x/a|^n + |y/b|^n = 1 at parameter t (t = pi: the
    head, -x). The renderer's tables are the same curve (`sample_videos/render/table.py`)."""
    t = np.asarray(t, float)
    c, s = np.cos(t), np.sin(t)
    p = 2.0 / exponent
    return np.stack([a * np.sign(c) * np.abs(c) ** p, b * np.sign(s) * np.abs(s) ** p], -1)


def edge_normal(a: float, b: float, exponent: float, t) -> np.ndarray:
    """The outward unit normal of that superellipse at parameter t."""
    q = edge_point(a, b, exponent, t)
    n = exponent
    g = np.stack([np.sign(q[..., 0]) * np.abs(q[..., 0] / a) ** (n - 1) / a,
                  np.sign(q[..., 1]) * np.abs(q[..., 1] / b) ** (n - 1) / b], -1)
    # at the exact axes the gradient of |x|^n (n > 2) is still well defined; guard zero anyway
    return g / np.maximum(np.linalg.norm(g, axis=-1, keepdims=True), 1e-12)


def box_points(xs, ys, zs, dense: bool, steps: int = 9) -> np.ndarray:
    """A box's 8 corners (x, then y, then z varying fastest), or with a distorting lens
    points along its 12 edges too (`steps` per edge, ends included): distortion bends
    straight edges, so corners alone no longer bound the projection."""
    corners = np.array([[x, y, z] for x in xs for y in ys for z in zs], float)
    if not dense:
        return corners
    u = np.linspace(0, 1, steps)[1:-1, None]
    edges = [corners[a] + u * (corners[b] - corners[a]) for a in range(8) for b in range(a + 1, 8)
             if np.count_nonzero(corners[a] != corners[b]) == 1]
    return np.concatenate([corners] + edges)


@dataclass(frozen=True)
class Table:
    a: float
    b: float
    exponent: float
    spacing: float

    def _arc(self, samples: int = 721):
        ts = np.linspace(0, 2 * np.pi, samples)
        pts = self.point(ts)
        arc = np.r_[0, np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))]
        return ts, arc

    def point(self, t) -> np.ndarray:
        return edge_point(self.a, self.b, self.exponent, t)

    def inward(self, t) -> np.ndarray:
        return -edge_normal(self.a, self.b, self.exponent, t)

    @property
    def head_gap(self) -> float:
        return float(self._arc()[1][-1] - 10 * self.spacing)

    def seat_params(self, along: float = 0.0) -> list[float]:
        """The edge parameter t of seats 1..10, or of the edge `along` metres
        clockwise (seen from above, the seat's right as it faces the table: -)
        or anticlockwise (+) of each seat's centre."""
        ts, arc = self._arc()
        total = arc[-1]
        gap = total - 10 * self.spacing
        s_head = np.interp(np.pi, ts, arc)
        return [float(np.interp((s_head - gap / 2 - self.spacing * (k + 0.5) + along) % total, arc, ts))
                for k in range(10)]

    def seat_frames(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(origin (3,), rotation (3, 3) columns right, forward, up) of seats 1..10:
        evenly spaced clockwise (seen from above) from the judge's left, the
        head gap centred on the head (-x)."""
        out = []
        for t in self.seat_params():
            p = self.point(t)
            fwd = np.r_[self.inward(t), 0.0]
            up = np.array([0.0, 0.0, 1.0])
            right = np.cross(fwd, up)
            out.append((np.r_[p, 0.0], np.stack([right, fwd, up], axis=1)))
        return out


@dataclass
class Fit:
    camera: Camera
    table: Table
    cost: float                       # mean squared error per used head (head widths^2)
    matched: dict[int, int]           # seat -> index of the head matched to it
    outliers: list[int] = field(default_factory=list)   # heads nobody's seat explains

    def seat_heads(self) -> tuple[np.ndarray, np.ndarray]:
        """Predicted head centres (10, 2) px and widths (10,) px of seats 1..10."""
        return predicted_heads(self.camera, self.table)


def seat_head_points(table: Table) -> np.ndarray:
    """Where seats 1..10's seated heads are (10, 3), metres in the table's frame."""
    return np.array([o + R @ np.array([0.0, -HEAD_BEHIND_EDGE, HEAD_ABOVE_TABLE]) for o, R in table.seat_frames()])


def predicted_heads(cam: Camera, table: Table) -> tuple[np.ndarray, np.ndarray]:
    px, depth = cam.project(seat_head_points(table))
    return px, cam.f * HEAD_WIDTH_M / np.maximum(depth, 1e-3)


def seat_boxes(cam: Camera, table: Table) -> list[tuple[Box, Box]]:
    """(body, table zone) [x0, y0, x1, y1] frame px of seats 1..10, clipped to the frame."""
    out = []
    w, h = cam.width, cam.height
    for o, R in table.seat_frames():
        boxes: list[Box] = []
        for spec in (BODY_BOX, ZONE_BOX):
            px, _ = cam.project(o + box_points(*spec, dense=bool(cam.k1)) @ R.T)
            x0, y0 = np.clip(px.min(0), 0, [w - 1, h - 1])
            x1, y1 = np.clip(px.max(0), 0, [w - 1, h - 1])
            boxes.append((float(np.floor(x0)), float(np.floor(y0)), float(np.ceil(x1)), float(np.ceil(y1))))
        out.append((boxes[0], boxes[1]))
    return out


# ------------------------------------------------------------------ fitting

def _unpack(p: np.ndarray, size: tuple[int, int], exponent: float) -> tuple[Camera, Table]:
    lf, px, py, pz, heading, tilt, roll, k1, la, lb, ls = p
    cam = Camera(math.exp(lf), (px, py, pz), heading, tilt, roll, k1, size[0], size[1])
    return cam, Table(math.exp(la), math.exp(lb), exponent, math.exp(ls))


def _match(pred: np.ndarray, pred_w: np.ndarray, heads: list[Head], limit: float = MATCH_LIMIT) -> dict[int, int]:
    """seat index (0-based) -> head index, nearest first, one head per seat."""
    from scipy.optimize import linear_sum_assignment

    hx = np.array([[h.x, h.y] for h in heads])
    cost = np.linalg.norm(pred[:, None, :] - hx[None, :, :], axis=-1) / pred_w[:, None]
    rows, cols = linear_sum_assignment(np.minimum(cost, 50.0))
    return {int(r): int(c) for r, c in zip(rows, cols) if cost[r, c] <= limit}


def _residuals(p, size, exponent, heads: list[Head], pairs: list[tuple[int, int]]) -> np.ndarray:
    cam, table = _unpack(p, size, exponent)
    if table.head_gap < 0.3 or cam.position[2] < 0.3:
        return np.full(3 * len(pairs) + PRIORS, 10.0)
    pred, pw = predicted_heads(cam, table)
    res = []
    for k, j in pairs:
        h = heads[j]
        sw = math.sqrt(h.weight)
        # a head placed by a person has no width (0): only its place counts
        size_res = SIZE_WEIGHT * math.log(max(h.width, 1.0) / max(pw[k], 1.0)) if h.width > 0 else 0.0
        res += [sw * (h.x - pred[k, 0]) / pw[k], sw * (h.y - pred[k, 1]) / pw[k], sw * size_res]
    res.append((p[10] - math.log(SEAT_SPACING_M)) / SPACING_PRIOR_SD)
    res.append(p[7] / 0.1)        # distortion: small unless the heads ask for it
    # the judge's end: a game table leaves room for the judge (rendered tables 0.9-2.6 m);
    # without it a table with the seats all round explains a row of heads as well
    res.append(max(0.0, MIN_HEAD_GAP_M - table.head_gap) / 0.1)
    return np.array(res)


# A venue's camera over the table top (m): vision.seat_proposal's check refuses
# any fit outside it. The search goes a little past it, so a fit pinned at the
# bound still fails the check. Searched up to 8 m, an impossible high camera
# could win over the possible one: check view 5813 (3.4 m over the floor) was
# fitted 5.4 m over the table, every seat wrong.
HEIGHT_RANGE = (0.5, 3.5)
MAX_HEIGHT_M = HEIGHT_RANGE[1] + 0.5


def _bounds(size: tuple[int, int], max_height: float = MAX_HEIGHT_M) -> tuple[np.ndarray, np.ndarray]:
    """What a table camera can be (focal length for fields of view of 20-110 degrees,
    at most `max_height` over the table, tilt 0-75 degrees, roll +-12 degrees) and a
    mafia table (1.8-5 m long, 1-3 m wide, seats 0.4-0.95 m apart)."""
    h = size[1]
    f_lo, f_hi = 0.5 * h / math.tan(math.radians(55)), 0.5 * h / math.tan(math.radians(10))
    big = 50.0
    lo = np.array([math.log(f_lo), -big, -big, 0.2, -big, 0.0, -0.21, -0.3,
                   math.log(0.9), math.log(0.5), math.log(0.4)])
    hi = np.array([math.log(f_hi), big, big, max_height, big, 1.3, 0.21, 0.1,
                   math.log(2.5), math.log(1.5), math.log(0.95)])
    return lo, hi


def _initial(heads: list[Head], size: tuple[int, int], azimuth: float, height: float, fov: float,
             table: tuple[float, float] = (1.55, 0.9)) -> np.ndarray:
    """A camera at `azimuth` around the table, `height` m over it, with a field of
    view `fov`, placed and aimed so the ten predicted heads cover the found ones:
    the same middle, the same spread (a few passes of moving it in or out and
    turning it)."""
    w, h = size
    f = _focal_px(fov, h)
    hx = np.array([[hd.x, hd.y] for hd in heads])
    want_c = hx.mean(axis=0)
    want_s = float(np.sqrt(((hx - want_c) ** 2).sum(axis=1).mean())) or 1.0
    dist = 4.0
    heading_off = tilt_off = 0.0
    p = None
    for _ in range(4):
        horiz = math.sqrt(max(0.25, dist * dist - height * height))
        cx, cy = horiz * math.cos(azimuth), horiz * math.sin(azimuth)
        heading = math.atan2(-cy, -cx) + heading_off
        tilt = math.atan2(height - 0.3, horiz) + tilt_off
        p = np.array([math.log(f), cx, cy, height, heading, min(max(tilt, 0.02), 1.25), 0.0, 0.0,
                      math.log(table[0]), math.log(table[1]), math.log(SEAT_SPACING_M)])
        cam, tab = _unpack(p, size, 2.0)
        pred, _ = predicted_heads(cam, tab)
        got_c = pred.mean(axis=0)
        got_s = float(np.sqrt(((pred - got_c) ** 2).sum(axis=1).mean())) or 1.0
        dist = min(15.0, max(1.2, dist * got_s / want_s))
        # turning left moves the picture right; tilting down moves it up
        heading_off += math.atan((want_c[0] - got_c[0]) / f)
        tilt_off += math.atan((got_c[1] - want_c[1]) / f)
    assert p is not None
    return p


def _start_cost(p: np.ndarray, size: tuple[int, int], heads: list[Head]) -> float:
    """How well a starting guess explains the heads before any fitting: each found
    head's distance to the nearest predicted one (head widths, capped)."""
    cam, table = _unpack(p, size, 2.0)
    pred, pw = predicted_heads(cam, table)
    hx = np.array([[hd.x, hd.y] for hd in heads])
    d = np.linalg.norm(hx[:, None, :] - pred[None, :, :], axis=-1) / np.maximum(pw[None, :], 1.0)
    near = np.minimum(d.min(axis=1), 3.0)
    # a seat with nobody near it costs less than a head with no seat (detectors miss people)
    empty = np.minimum(d.min(axis=0), 3.0)
    size_err = np.abs(np.log(np.array([hd.width for hd in heads]) / np.maximum(pw[d.argmin(axis=1)], 1.0)))
    return float(np.mean(near ** 2) + 0.3 * np.mean(empty ** 2) + 0.5 * np.mean(np.minimum(size_err, 1.5) ** 2))


def _solve(p0: np.ndarray, size: tuple[int, int], exponent: float, heads: list[Head],
           pairs: list[tuple[int, int]], nfev: int, max_height: float = MAX_HEIGHT_M) -> np.ndarray:
    """The camera and table parameters that put the paired heads best, from `p0`
    (robust least squares within what a venue's camera and table can be)."""
    from scipy.optimize import least_squares

    lo, hi = _bounds(size, max_height)
    return least_squares(_residuals, np.clip(p0, lo + 1e-9, hi - 1e-9), args=(size, exponent, heads, pairs),
                         loss="soft_l1", f_scale=0.5, max_nfev=nfev, x_scale="jac", bounds=(lo, hi)).x


def _refine(p0, size, exponent, heads, rounds: int, nfev: int):
    p = p0
    pairs: list[tuple[int, int]] = []
    solved = False
    for r in range(rounds):
        cam, table = _unpack(p, size, exponent)
        pred, pw = predicted_heads(cam, table)
        # a rough start is matched loosely, then ever more strictly
        matched = _match(pred, pw, heads, max(MATCH_LIMIT, START_MATCH_LIMIT / (1 + r)))
        new_pairs = sorted(matched.items())
        if len(new_pairs) < 4:
            return None
        if new_pairs == pairs and solved:
            break
        pairs = new_pairs
        p = _solve(p, size, exponent, heads, pairs, nfev)
        solved = True
    if not solved:
        return None
    return p, pairs, _cost(p, size, exponent, heads, pairs)


def _cost(p, size, exponent, heads: list[Head], pairs: list[tuple[int, int]]) -> float:
    res = _residuals(p, size, exponent, heads, pairs)[:-PRIORS]
    # unmatched heads cost as much as a bad match: a fit that explains fewer heads is worse
    unmatched = len(heads) - len(pairs)
    return (float(np.sum(np.minimum(res ** 2, 4.0))) + 4.0 * unmatched * 3) / (3 * len(heads))


def fit_candidates(heads: list[Head], size: tuple[int, int]) -> list[Fit]:
    """The few different camera-and-table fits that explain the heads best, best
    first (none below four heads): a handful of heads can fit more than one
    table, and the players the detector missed tell them apart
    (`vision.seat_proposal`)."""
    if len(heads) < 4:
        return []
    # per camera azimuth, the best framed guess; the most promising azimuths are fitted
    by_azimuth = []
    for az in np.radians(np.arange(0, 360, 15)):
        best_start = None
        for height in (1.0, 1.8, 2.6):
            for fov in (35.0, 50.0, 68.0):
                for dims in ((1.55, 0.9), (1.8, 0.8)):
                    p0 = _initial(heads, size, float(az), height, fov, dims)
                    c0 = _start_cost(p0, size, heads)
                    if best_start is None or c0 < best_start[0]:
                        best_start = (c0, p0)
        assert best_start is not None
        by_azimuth.append(best_start)
    by_azimuth.sort(key=lambda s: s[0])
    scored = []
    for _, p0 in by_azimuth[:START_REFINED]:
        out = _refine(p0, size, 2.0, heads, rounds=2, nfev=30)
        if out is not None:
            scored.append((out[2], out[0]))
    if not scored:
        return []
    scored.sort(key=lambda s: s[0])
    fits: list[Fit] = []
    for _, p in scored[:FITS_KEPT + 1]:
        best = None
        for exponent in TABLE_SHAPES:
            out = _refine(p, size, exponent, heads, rounds=5, nfev=150)
            if out is not None and (best is None or out[2] < best[2]):
                best = (out[0], out[1], out[2], exponent)
        if best is None:
            continue
        p_best, pairs, cost, exponent = best
        cam, table = _unpack(p_best, size, exponent)
        matched = {k + 1: j for k, j in pairs}
        fit = Fit(cam, table, cost, matched, sorted(set(range(len(heads))) - set(matched.values())))
        if not any(same_seats(fit, other) for other in fits):
            fits.append(fit)
    if fits:
        first = min(fits, key=lambda f: f.cost)
        for fit in numbering_fits(heads, size, [first.matched[s] for s in sorted(first.matched)]):
            # the same seats as a searched fit, explained better: it takes that one's place
            fits = [f for f in fits if not (same_seats(fit, f) and fit.cost < f.cost)]
            if not any(same_seats(fit, other) for other in fits):
                fits.append(fit)
    return sorted(fits, key=lambda f: f.cost)[:FITS_KEPT]


def _pack(fit: Fit) -> np.ndarray:
    cam, table = fit.camera, fit.table
    return np.array([math.log(cam.f), *cam.position, cam.heading, cam.tilt, cam.roll, cam.k1,
                     math.log(table.a), math.log(table.b), math.log(table.spacing)])


def refit(fit: Fit, heads: list[Head], size: tuple[int, int]) -> Fit:
    """`fit` fitted again to `heads` (more of them: players found on looking again),
    starting where it is, so it stays the same table and numbering; `fit` itself when
    the heads no longer fit it."""
    out = _refine(_pack(fit), size, fit.table.exponent, heads, rounds=5, nfev=150)
    if out is None:
        return fit
    p, pairs, cost = out
    cam, table = _unpack(p, size, fit.table.exponent)
    matched = {k + 1: j for k, j in pairs}
    return Fit(cam, table, cost, matched, sorted(set(range(len(heads))) - set(matched.values())))


def fit_cost(fit: Fit, heads: list[Head], size: tuple[int, int]) -> float:
    """How well `fit` explains `heads` with its own seats' heads (places and sizes),
    as the search scores a fit: the cost `fit_to_heads` records leaves sizes out."""
    return _cost(_pack(fit), size, fit.table.exponent, heads, sorted((k - 1, j) for k, j in fit.matched.items()))


def lowered(fit: Fit, heads: list[Head], size: tuple[int, int], max_height: float) -> Fit | None:
    """`fit` with its camera at most `max_height` over the table, the same heads
    matched to the same seats: the camera moved along its line of sight down to that
    height with its focal length scaled to keep the table's size in the frame, then
    fitted again with the camera held under it. None when it cannot be (a camera
    looking up)."""
    cam = fit.camera
    fwd, _, _ = cam.axes()
    if cam.position[2] <= max_height or fwd[2] >= -1e-3:
        return None
    pos = np.asarray(cam.position, float)
    reach = pos[2] / -fwd[2]                      # along the line of sight to the table top
    target = pos + reach * fwd
    scale = max_height * 0.999 / pos[2]
    p0 = _pack(fit)
    p0[1:4] = target - scale * reach * fwd
    p0[0] += math.log(scale)
    pairs = sorted((k - 1, j) for k, j in fit.matched.items())
    p = _solve(p0, size, fit.table.exponent, heads, pairs, 150, max_height)
    cam2, table = _unpack(p, size, fit.table.exponent)
    return Fit(cam2, table, _cost(p, size, fit.table.exponent, heads, pairs), dict(fit.matched), list(fit.outliers))


# A table from heads whose seats a person named (`fit_to_heads`): starts solved from
# the named heads (cv2.solvePnP, SQPnP) on a few nominal tables and lenses, each
# fitted with the pairs fixed. Five heads are the fewest that fix the camera and the
# table together (11 unknowns, two readings each, and the priors).
NAMED_MIN = 5
NAMED_FOVS = (35.0, 50.0, 65.0)
NAMED_TABLES = ((1.55, 0.9, 2.0), (1.8, 0.8, 5.0), (2.3, 0.75, 5.0))


def fit_to_heads(named: dict[int, tuple[float, float]], size: tuple[int, int],
                 starts: Sequence[tuple[int, int]] | None = None) -> Fit | None:
    """The camera and table that put seat s's head at named[s] (frame px) for every
    seat named (at least `NAMED_MIN`): the seats are the person's, so nothing is
    matched, only fitted. None when no table puts them round it. `starts`: only
    these (index into NAMED_TABLES, index into NAMED_FOVS) starting points."""
    seats = sorted(named)
    if len(seats) < NAMED_MIN or any(not 1 <= s <= 10 for s in seats):
        return None
    heads = [Head(float(named[s][0]), float(named[s][1]), 0.0) for s in seats]
    pairs = [(s - 1, j) for j, s in enumerate(seats)]
    img = np.array([[hd.x, hd.y] for hd in heads], float)
    lo, hi = _bounds(size)
    best: tuple[float, np.ndarray, float] | None = None
    grid = starts if starts is not None else [(i, k) for i in range(len(NAMED_TABLES)) for k in range(len(NAMED_FOVS))]
    for ti, fi in grid:
        a, b, exponent = NAMED_TABLES[ti]
        fov = NAMED_FOVS[fi]
        seat3d = seat_head_points(Table(a, b, exponent, SEAT_SPACING_M))[[k for k, _ in pairs]]
        solved = _solved_pose(seat3d, img, fov, size)
        if solved is None:
            continue
        pose = solved[0]
        p0 = np.clip(np.array([*pose, 0.0, math.log(a), math.log(b), math.log(SEAT_SPACING_M)]),
                     lo + 1e-9, hi - 1e-9)
        for shape in TABLE_SHAPES:
            x = _solve(p0, size, shape, heads, pairs, 200)
            res = _residuals(x, size, shape, heads, pairs)[:-PRIORS]
            cost = float(np.sum(np.minimum(res ** 2, 4.0))) / (2 * len(heads))
            if best is None or cost < best[0]:
                best = (cost, x, shape)
    if best is None:
        return None
    cost, p, shape = best
    cam, table = _unpack(p, size, shape)
    return Fit(cam, table, cost, {s: j for j, s in enumerate(seats)}, [])


# The search above fits each camera azimuth from a rough start and matches heads to
# the nearest seats as it goes; with a few players missing it can settle on the
# table turned by some seats (tuning views 5410 and 5408: the found heads in their
# true seats fit at a cost 2-20 times lower than the fit chosen, every number off).
# So every numbering of the best fit's heads that keeps their order round the table
# (any head first after the judge's gap, any seats left out between them, either
# way round) is scored by a pose solved from it (`_numbering_error`), and the
# `NUMBERINGS_FITTED` best are fitted in full (`fit_to_heads`, then `refit` with
# every head) beside the searched fits.
NUMBERINGS_FITTED = 4


def _numbering_error(img: np.ndarray, seats: tuple[int, ...], size: tuple[int, int],
                     points: list[np.ndarray], width: float) -> tuple[float, tuple[int, int]]:
    """How well some nominal table and lens put the given seats (0-based) at the
    image points: the smallest reprojection RMS (in head widths) over the
    `NAMED_TABLES` x `NAMED_FOVS` poses solved from them, and that start."""
    import cv2

    best = (math.inf, (0, 0))
    idx = list(seats)
    for ti, pts in enumerate(points):
        obj = pts[idx]
        for fi, fov in enumerate(NAMED_FOVS):
            solved = _solved_pose(obj, img, fov, size)
            if solved is None:      # no pose, or the camera under the table: the other way round
                continue
            _, rvec, tvec, k = solved
            proj, _ = cv2.projectPoints(obj, rvec, tvec, k, np.zeros(4))
            err = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img) ** 2, axis=1)))) / width
            if err < best[0]:
                best = (err, (ti, fi))
    return best


def numbering_fits(heads: list[Head], size: tuple[int, int], order: Sequence[int],
                   kept: int = NUMBERINGS_FITTED) -> list[Fit]:
    """Fits of the heads `order` names (indices into heads, in their order round the
    table) under the numberings that keep that order, best few first."""
    from itertools import combinations

    n = len(order)
    if not NAMED_MIN <= n <= 10:
        return []
    points = [seat_head_points(Table(a, b, e, SEAT_SPACING_M)) for a, b, e in NAMED_TABLES]
    width = float(np.median([max(heads[j].width, 1.0) for j in order]))
    scored = []
    for seq in (list(order), list(order)[::-1]):
        for first in range(n):
            cyc = seq[first:] + seq[:first]
            img = np.array([[heads[j].x, heads[j].y] for j in cyc], float)
            for seats in combinations(range(10), n):
                err, start = _numbering_error(img, seats, size, points, width)
                if math.isfinite(err):
                    scored.append((err, start, {s + 1: j for s, j in zip(seats, cyc)}))
    scored.sort(key=lambda t: t[0])
    out: list[Fit] = []
    for _, start, seat_of in scored[:kept]:
        named = {s: (heads[j].x, heads[j].y) for s, j in seat_of.items()}
        fit = fit_to_heads(named, size, starts=[start])
        if fit is not None:
            out.append(refit(Fit(fit.camera, fit.table, fit.cost, dict(seat_of), []), heads, size))
    return sorted(out, key=lambda f: f.cost)


def _focal_px(fov: float, h: int) -> float:
    """The focal length (px) of a pinhole lens of vertical field `fov` (degrees) on `h` rows."""
    return 0.5 * h / math.tan(math.radians(fov) / 2)


def _solved_pose(obj: np.ndarray, img: np.ndarray, fov: float, size: tuple[int, int]
                 ) -> tuple[tuple[float, ...], np.ndarray, np.ndarray, np.ndarray] | None:
    """The camera that puts the 3D points `obj` at the image points `img` through a
    pinhole lens of vertical field `fov` (OpenCV's SQPnP): (`_camera_params`, rvec,
    tvec, the intrinsic matrix), or None when none is found or it stands under 0.3 m."""
    import cv2

    w, h = size
    f = _focal_px(fov, h)
    k = np.array([[f, 0.0, w / 2], [0.0, f, h / 2], [0.0, 0.0, 1.0]])
    ok, rvec, tvec = cv2.solvePnP(obj, img, k, np.zeros(4), flags=cv2.SOLVEPNP_SQPNP)
    pose = _camera_params(np.asarray(rvec), np.asarray(tvec), f) if ok else None
    if pose is None or pose[3] < 0.3:
        return None
    return pose, rvec, tvec, k


def _camera_params(rvec: np.ndarray, tvec: np.ndarray, f: float) -> tuple[float, ...] | None:
    """(log f, x, y, z, heading, tilt, roll) of an OpenCV pose (world to camera:
    rows right, down, forward), in `Camera`'s terms."""
    import cv2

    rot, _ = cv2.Rodrigues(rvec)
    right, fwd = rot[0], rot[2]
    pos = -rot.T @ np.ravel(tvec)
    if not np.all(np.isfinite(pos)):
        return None
    heading = math.atan2(fwd[1], fwd[0])
    tilt = math.asin(float(np.clip(-fwd[2], -1.0, 1.0)))
    right0 = np.array([math.sin(heading), -math.cos(heading), 0.0])
    up0 = np.cross(right0, fwd)
    roll = math.atan2(float(-(right @ up0)), float(right @ right0))
    return math.log(f), float(pos[0]), float(pos[1]), float(pos[2]), heading, tilt, roll


def fit_table(heads: list[Head], size: tuple[int, int]) -> Fit | None:
    """The camera and table that best explain the heads (None below four heads)."""
    fits = fit_candidates(heads, size)
    return fits[0] if fits else None


def same_seats(a: Fit, b: Fit) -> bool:
    """Two fits that put every seat's head within a head width of each other."""
    pa, wa = a.seat_heads()
    pb, _ = b.seat_heads()
    return bool(np.all(np.linalg.norm(pa - pb, axis=1) <= wa))

"""What the camera sees of each seat in a wider world, for truth.json
(docs/synth.md "Conditions"): how much of each seated player is in frame and
not hidden by nearer players, how the player faces the camera, how large a
hand looks, and when the walking judge hides a seat.

Silhouettes are the scene's own meshes projected and filled at 320 px wide
(no GL needed), on a canvas padded on every side so the part of a player
outside the frame is counted too. Fractions are of silhouette area.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from sample_videos.acting.engine import pose_at
from sample_videos.acting.script import SeatScript
from sample_videos.render.body import build_player
from sample_videos.render.meshes import MeshBuilder
from sample_videos.render.scene import ZONE_DEPTH, Scene

RASTER_WIDTH = 320     # px: silhouettes are filled at this width (the frame's aspect)
PAD = 0.5              # canvas padding, a fraction of the frame on each side
SAMPLE_STEP = 0.2      # s between judge samples while walking
MIN_COVER = 0.1        # an occlusion is recorded when the judge hides this share of a region


class _Canvas:
    def __init__(self, scene: Scene):
        cam = scene.camera
        self.cam = cam
        self.s = RASTER_WIDTH / cam.width
        self.w, self.h = RASTER_WIDTH, max(2, int(round(cam.height * self.s)))
        self.vp = cam.view_proj()
        self.view_z = cam.view_matrix()[2]
        self.px, self.py = int(round(self.w * PAD)), int(round(self.h * PAD))
        self.shape = (self.h + 2 * self.py, self.w + 2 * self.px)
        self.frame = np.zeros(self.shape, bool)
        self.frame[self.py:self.py + self.h, self.px:self.px + self.w] = True

    def fill(self, verts: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Union of the front-facing triangles of a closed mesh: its silhouette."""
        mask = np.zeros(self.shape, np.uint8)
        if not len(idx):
            return mask.astype(bool)
        pos = verts[:, :3].astype(float)
        ok = -(pos @ self.view_z[:3] + self.view_z[3]) > 0.05
        px = self._project(pos)
        tri = px[idx]
        keep = ok[idx].all(1)
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        area = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
        # image y points down: counter-clockwise (front) triangles have negative area here
        keep &= area < 0
        big = np.abs(area) > 0.02
        pts = np.round(tri[keep & big] * 4).astype(np.int32)
        for t in pts:
            cv2.fillConvexPoly(mask, t, (1,), lineType=cv2.LINE_8, shift=2)
        return mask.astype(bool)

    def _project(self, pos: np.ndarray) -> np.ndarray:
        h = pos @ self.vp[:3, :3].T + self.vp[:3, 3]
        w = pos @ self.vp[3, :3] + self.vp[3, 3]
        w = np.where(np.abs(w) < 1e-9, 1e-9, w)
        xy = np.stack([(h[:, 0] / w + 1) * 0.5 * self.cam.width, (1 - h[:, 1] / w) * 0.5 * self.cam.height], -1)
        return self.cam.distort_px(xy) * self.s + [self.px, self.py]

    def quad(self, world_pts: np.ndarray) -> np.ndarray:
        mask = np.zeros(self.shape, np.uint8)
        px = self._project(np.asarray(world_pts, float))
        hull = cv2.convexHull(np.round(px * 4).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, (1,), lineType=cv2.LINE_8, shift=2)
        return mask.astype(bool)


def _rest_mesh(scene: Scene, s: int):
    seat = scene.seats[s]
    mb = MeshBuilder()
    truth = build_player(seat.appearance, seat.frame, pose_at(seat.context, SeatScript(s, ()), 0.0), mb, 0)
    return mb.build(), truth


def _zone_corners(seat) -> np.ndarray:
    return seat.frame.to_world(np.array([[x, y, 0.0] for x in (-0.17, 0.17)
                                         for y in (ZONE_DEPTH - 0.16, ZONE_DEPTH + 0.06)]))


def _cover(judge_box: np.ndarray, region: np.ndarray, box, area: int) -> float:
    return round(float((judge_box & region[box]).sum()) / area, 3) if area else 0.0


def _fraction(part: np.ndarray, whole: np.ndarray) -> float:
    n = int(whole.sum())
    return round(float((part & whole).sum()) / n, 3) if n else 0.0


def seat_views(scene: Scene) -> tuple[dict, dict]:
    """Per seat: the camera's view at rest; also the silhouettes for occlusion."""
    canvas = _Canvas(scene)
    cam = scene.camera
    cam_pos = np.asarray(cam.position, float)
    sil, depth, zones, zone_depth, heads = {}, {}, {}, {}, {}
    for s, seat in scene.seats.items():
        (verts, idx), truth = _rest_mesh(scene, s)
        sil[s] = canvas.fill(verts, idx)
        depth[s] = float(cam.depth(truth.head_center))
        heads[s] = truth.head_center
        zones[s] = canvas.quad(_zone_corners(seat))
        zone_depth[s] = float(cam.depth(seat.zone_world))
    views = {}
    for s, seat in scene.seats.items():
        nearer = np.zeros(canvas.shape, bool)
        for o in scene.seats:
            if o != s and depth[o] < depth[s]:
                nearer |= sil[o]
        zone_nearer = np.zeros(canvas.shape, bool)
        for o in scene.seats:
            if o != s and depth[o] < zone_depth[s]:
                zone_nearer |= sil[o]
        shown = sil[s] & canvas.frame & ~nearer
        zone_shown = zones[s] & canvas.frame & ~zone_nearer
        face = np.asarray(seat.context.judge_dir, float) @ seat.frame.rot.T
        to_cam = cam_pos - heads[s]
        facing = math.degrees(math.atan2(face[0] * to_cam[1] - face[1] * to_cam[0],
                                         face[0] * to_cam[0] + face[1] * to_cam[1]))
        zc = seat.zone_world
        hand = cam.project(np.array([zc, zc + [0, 0, 0.1]]))
        views[str(s)] = {
            "in_frame": _fraction(canvas.frame, sil[s]),
            "visible": _fraction(shown, sil[s]),
            "zone_visible": _fraction(zone_shown, zones[s]),
            "facing": round(abs(facing), 1),
            "distance": round(float(np.linalg.norm(to_cam)), 2),
            "hand_px": round(float(np.linalg.norm(hand[1] - hand[0])), 1),
        }
    return views, {"canvas": canvas, "sil": sil, "depth": depth, "zones": zones, "zone_depth": zone_depth}


def judge_occlusions(scene: Scene, views_state: dict, duration: float) -> list[dict]:
    """Intervals in which the judge stands or walks between the camera and a
    seat and hides at least MIN_COVER of its body or its vote zone."""
    world = scene.world
    if world is None or world.judge is None:
        return []
    from sample_videos.render.people import build_person
    judge = world.judge
    canvas: _Canvas = views_state["canvas"]
    areas = {s: (int(views_state["sil"][s].sum()), int(views_state["zones"][s].sum())) for s in scene.seats}
    rows: list[tuple[float, float, dict]] = []
    for t, lo, hi in _samples(judge, duration):
        mb = MeshBuilder()
        xy, facing, phase, swing = judge.state(t)
        build_person(judge.look, xy, facing, mb, phase, swing, detail=0)
        verts, idx = mb.build()
        sil = canvas.fill(verts, idx)
        d = float(scene.camera.depth(np.array([xy[0], xy[1], 1.2])))
        cover = {}
        rows_any, cols_any = np.flatnonzero(sil.any(1)), np.flatnonzero(sil.any(0))
        if len(rows_any):
            box = (slice(rows_any[0], rows_any[-1] + 1), slice(cols_any[0], cols_any[-1] + 1))
            js = sil[box]
            for s in scene.seats:
                body = zone = 0.0
                if d < views_state["depth"][s]:
                    body = _cover(js, views_state["sil"][s], box, areas[s][0])
                if d < views_state["zone_depth"][s]:
                    zone = _cover(js, views_state["zones"][s], box, areas[s][1])
                if max(body, zone) >= MIN_COVER:
                    cover[s] = (body, zone)
        rows.append((lo, hi, cover))
    return _intervals(rows)


def _samples(judge, duration: float) -> list[tuple[float, float, float]]:
    """(t, from, to): dense samples while walking, one per standing stretch
    (standing, the judge only sways), each standing for its span of time."""
    out = []
    cursor = 0.0
    for a, b in judge.windows():
        a, b = min(a, duration), min(b, duration)
        if a > cursor:
            out.append(((cursor + a) / 2, cursor, a))
        for t in np.arange(a, b, SAMPLE_STEP):
            out.append((float(t), float(t), float(min(t + SAMPLE_STEP, b))))
        cursor = max(cursor, b)
    if cursor < duration:
        out.append(((cursor + duration) / 2, cursor, duration))
    return out


def _intervals(rows: list[tuple[float, float, dict]]) -> list[dict]:
    """Samples -> per-seat intervals of consecutive covering samples."""
    out = []
    seats = sorted({s for _, _, c in rows for s in c})
    for s in seats:
        cur = None
        for lo, hi, cover in rows:
            if s in cover:
                body, zone = cover[s]
                if cur is None:
                    cur = {"seat": s, "by": "judge", "t0": lo, "t1": hi, "body": body, "zone": zone}
                else:
                    cur.update(t1=hi, body=max(cur["body"], body), zone=max(cur["zone"], zone))
            elif cur is not None:
                out.append(cur)
                cur = None
        if cur is not None:
            out.append(cur)
    for r in out:
        r["t0"], r["t1"] = round(r["t0"], 2), round(r["t1"], 2)
    return sorted(out, key=lambda r: (r["t0"], r["seat"]))

"""Seat calibration: where each seat's body and table zone are in a camera.

`calibration.json` (format `mafvar-calibration`, version 1):

    {"format": "mafvar-calibration", "version": 1,
     "cameras": {"cam1": {"width": 1280, "height": 720,
                          "seats": {"1": {"body": [x0, y0, x1, y1],
                                          "table_zone": [x0, y0, x1, y1],
                                          "head": [x, y, size]}, ...}}},
     "confirmed_by": null}

`head` (optional) is where the seated player's head is at rest and its width,
in frame pixels: the anchor for reading the mask and for telling whose pose a
detection is when seat crops overlap. Without it the head is guessed from the
body box (`expected_head`), which is only rough when
the camera sees a seat from the side.

Boxes are frame pixels of the displayed (rotated) frame. A proposal comes
from people detected on a day frame; a human confirms it (`confirmed_by`).
"""
from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Iterable

import numpy as np

FORMAT = "mafvar-calibration"
VERSION = 1
SEATS = tuple(range(1, 11))

Box = tuple[float, float, float, float]


class CalibrationError(Exception):
    """A calibration file that is missing, malformed or incomplete."""


Head = tuple[float, float, float]      # x, y, width (frame px)


@dataclass(frozen=True)
class SeatRegion:
    body: Box
    table_zone: Box
    head: Head | None = None


# A seated head is about this fraction of the body box's width (synthetic
# table: 0.16-0.19 for near and far seats alike).
HEAD_OF_BODY_WIDTH = 0.17


def expected_head(region: SeatRegion) -> tuple[np.ndarray, float]:
    """Where a seated player's head is expected in the seat's body box, and
    its size (frame px): a bit over a third of the way down the box (which
    also covers a standing head above and the table in front), shifted away
    from the table zone when the zone is off to one side (a player seen from
    the side sits back from the table). A calibrated `head` is used as is."""
    if region.head is not None:
        return np.array(region.head[:2], float), float(region.head[2])
    b, z = region.body, region.table_zone
    cx = (b[0] + b[2]) / 2
    shift = -0.5 * ((z[0] + z[2]) / 2 - cx)
    return (np.array([cx + shift, b[1] + 0.38 * (b[3] - b[1])], float),
            HEAD_OF_BODY_WIDTH * (b[2] - b[0]))


@dataclass
class CameraCalibration:
    width: int
    height: int
    seats: dict[int, SeatRegion] = field(default_factory=dict)


@dataclass
class Calibration:
    cameras: dict[str, CameraCalibration] = field(default_factory=dict)
    confirmed_by: str | None = None

    def camera(self, cam: str = "cam1") -> CameraCalibration:
        if cam not in self.cameras:
            known = ", ".join(sorted(self.cameras)) or "none"
            raise CalibrationError(f"calibration has no camera {cam!r} (cameras: {known})")
        return self.cameras[cam]

    def to_json(self) -> dict:
        return {
            "format": FORMAT, "version": VERSION,
            "cameras": {
                cid: {"width": c.width, "height": c.height,
                      "seats": {str(s): _region_json(r) for s, r in sorted(c.seats.items())}}
                for cid, c in self.cameras.items()},
            "confirmed_by": self.confirmed_by,
        }

    @staticmethod
    def from_json(data: dict, source: str = "calibration") -> "Calibration":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError(f"{source}: not a {FORMAT} file")
        if data.get("version") != VERSION:
            raise CalibrationError(f"{source}: version {data.get('version')!r} is not supported "
                                   f"(expected {VERSION})")
        cams = data.get("cameras")
        if not isinstance(cams, dict) or not cams:
            raise CalibrationError(f"{source}: no cameras")
        out = Calibration(confirmed_by=data.get("confirmed_by"))
        for cid, c in cams.items():
            try:
                seats = {}
                for key, r in (c.get("seats") or {}).items():
                    seat = int(key)
                    if seat not in SEATS:
                        raise CalibrationError(f"{source}: camera {cid}: seat {key} is not 1..10")
                    seats[seat] = SeatRegion(_box(r["body"]), _box(r["table_zone"]),
                                             _head(r["head"]) if r.get("head") is not None else None)
                out.cameras[cid] = CameraCalibration(int(c["width"]), int(c["height"]), seats)
            except CalibrationError:
                raise
            except (KeyError, TypeError, ValueError) as exc:
                raise CalibrationError(f"{source}: camera {cid}: malformed ({exc})") from None
        return out


def _region_json(r: SeatRegion) -> dict:
    out: dict = {"body": [round(v, 1) for v in r.body], "table_zone": [round(v, 1) for v in r.table_zone]}
    if r.head is not None:
        out["head"] = [round(v, 1) for v in r.head]
    return out


def _head(v) -> Head:
    if not isinstance(v, (list, tuple)) or len(v) != 3:
        raise ValueError(f"a head is [x, y, width], got {v!r}")
    x, y, size = (float(a) for a in v)
    if size <= 0:
        raise ValueError(f"head {v!r} has no width")
    return (x, y, size)


def _box(v) -> Box:
    if not isinstance(v, (list, tuple)) or len(v) != 4:
        raise ValueError(f"a box is [x0, y0, x1, y1], got {v!r}")
    x0, y0, x1, y1 = (float(a) for a in v)
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"box {v!r} has no area")
    return (x0, y0, x1, y1)


def load_calibration(path: str | Path) -> Calibration:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise CalibrationError(f"{path}: not found (propose one from a day frame first)") from None
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{path}: not valid JSON ({exc})") from None
    return Calibration.from_json(data, str(path))


def save_calibration(cal: Calibration, path: str | Path) -> Path:
    """Writes atomically; an existing file is kept as `<name>.bak` first."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(cal.to_json(), f, indent=2)
            f.write("\n")
        if path.exists():
            shutil.copy2(path, path.with_name(path.name + ".bak"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def require_seats(cal: Calibration, cam: str = "cam1",
                  seats: Iterable[int] = SEATS) -> CameraCalibration:
    """The camera's calibration, or a clear error naming missing seats."""
    c = cal.camera(cam)
    missing = [s for s in seats if s not in c.seats]
    if missing:
        raise CalibrationError(f"camera {cam}: no region for seat(s) "
                               f"{', '.join(map(str, missing))}; edit calibration.json or "
                               f"propose it again from a day frame")
    return c


# --- checks -------------------------------------------------------------

class IssueKind(str, Enum):
    MISSING = "missing"
    EMPTY = "empty"
    OVERLAP = "overlap"
    SMALL = "small"
    OUTSIDE = "outside"


@dataclass(frozen=True)
class CalibrationIssue:
    cam: str
    seat: int
    kind: IssueKind
    message: str


# A seated player's hand is about a fifth of the visible body height; the
# palm detector needs it near 150 px, and upscaling a crop more than ~3x
# invents no detail, so below 50 source pixels per hand detection suffers.
HAND_FRACTION_OF_BODY = 0.2
MIN_HAND_SOURCE_PX = 50.0
# Neighbours' body regions overlap in any perspective view (the synthetic
# sample's reach IoU 0.46); above this two regions are mostly the same place.
MAX_BODY_IOU = 0.5


def box_area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def box_intersection(a: Box, b: Box) -> float:
    return box_area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))


def estimated_hand_px(body: Box) -> float:
    return HAND_FRACTION_OF_BODY * (body[3] - body[1])


def check_calibration(cal: Calibration, frame_size: tuple[int, int] | None = None,
                      cam: str | None = None, frame: np.ndarray | None = None,
                      people: list["Person"] | None = None) -> list[CalibrationIssue]:
    """Seats missing, outside the frame, overlapping (body IoU > 0.5), too
    small for the detectors, and (with a day `frame` or detected `people`)
    empty."""
    issues: list[CalibrationIssue] = []
    cams = [cam] if cam else sorted(cal.cameras)
    for cid in cams:
        c = cal.camera(cid)
        w, h = frame_size or (c.width, c.height)
        if frame is not None and people is None:
            people = detect_people(frame)
        for s in SEATS:
            if s not in c.seats:
                issues.append(CalibrationIssue(cid, s, IssueKind.MISSING, f"seat {s} has no region"))
                continue
            r = c.seats[s]
            if r.body[0] < -1 or r.body[1] < -1 or r.body[2] > w + 1 or r.body[3] > h + 1:
                issues.append(CalibrationIssue(cid, s, IssueKind.OUTSIDE,
                                               f"seat {s} body {r.body} leaves the {w}x{h} frame"))
            hand = estimated_hand_px(r.body)
            if hand < MIN_HAND_SOURCE_PX:
                issues.append(CalibrationIssue(
                    cid, s, IssueKind.SMALL,
                    f"seat {s} body is {r.body[3] - r.body[1]:.0f} px tall: a hand is about "
                    f"{hand:.0f} px, under the {MIN_HAND_SOURCE_PX:.0f} px the detectors need; "
                    f"use a closer camera or a higher resolution"))
            if people is not None and not any(_inside(p.centre, r.body) for p in people):
                issues.append(CalibrationIssue(cid, s, IssueKind.EMPTY,
                                               f"seat {s}: nobody detected in its body region"))
        present = sorted(c.seats)
        for i, a in enumerate(present):
            for b in present[i + 1:]:
                ba, bb = c.seats[a].body, c.seats[b].body
                iou = _iou(ba, bb)
                if iou > MAX_BODY_IOU:
                    issues.append(CalibrationIssue(
                        cid, a, IssueKind.OVERLAP,
                        f"seats {a} and {b} cover mostly the same place (body regions "
                        f"overlap with IoU {iou:.2f}); detections would be shared"))
    return issues


def _inside(p: tuple[float, float], b: Box) -> bool:
    return b[0] <= p[0] <= b[2] and b[1] <= p[1] <= b[3]


# --- proposal -----------------------------------------------------------

@dataclass(frozen=True)
class Person:
    face: Box                 # frame px
    score: float

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.face[0] + self.face[2]) / 2, (self.face[1] + self.face[3]) / 2)


def _tiles(w: int, h: int, tile: int, overlap: float) -> list[tuple[int, int, int, int]]:
    tile = min(tile, w, h)
    step = max(1, int(tile * (1 - overlap)))
    xs = list(range(0, max(1, w - tile) + 1, step))
    ys = list(range(0, max(1, h - tile) + 1, step))
    if xs[-1] + tile < w:
        xs.append(w - tile)
    if ys[-1] + tile < h:
        ys.append(h - tile)
    return [(x, y, x + tile, y + tile) for y in ys for x in xs]


def detect_people(frame: np.ndarray, tile: int = 320, overlap: float = 0.5,
                  min_score: float = 0.5, use_pose: bool = True) -> list[Person]:
    """People as head boxes, from face detection and pose on overlapping
    tiles (the models shrink their input to 128-256 px, so a whole wide frame
    loses most people; pose finds one person per tile, and also finds masked
    players whose faces the face detector misses), merged by overlap."""
    import mediapipe as mp

    h, w = frame.shape[:2]
    found: list[Person] = []
    sol = mp.solutions
    fd_full = sol.face_detection.FaceDetection(model_selection=1, min_detection_confidence=min_score)
    fd_short = sol.face_detection.FaceDetection(model_selection=0, min_detection_confidence=min_score)
    pose = (sol.pose.Pose(static_image_mode=True, model_complexity=1,
                          min_detection_confidence=min_score) if use_pose else None)
    try:
        for x0, y0, x1, y1 in _tiles(w, h, tile, overlap):
            crop = np.ascontiguousarray(frame[y0:y1, x0:x1])
            tw, th = x1 - x0, y1 - y0
            for fd in (fd_short, fd_full):
                for d in fd.process(crop).detections or []:
                    bb = d.location_data.relative_bounding_box
                    box = (x0 + bb.xmin * tw, y0 + bb.ymin * th,
                           x0 + (bb.xmin + bb.width) * tw, y0 + (bb.ymin + bb.height) * th)
                    found.append(Person(box, float(d.score[0])))
            if pose is not None:
                head = _pose_head(pose.process(crop), (x0, y0, tw, th), min_score)
                if head is not None:
                    found.append(head)
    finally:
        for m in (fd_full, fd_short, pose):
            if m is not None:
                m.close()
    return merge_people(found)


def _pose_head(res, tile: tuple[int, int, int, int], min_vis: float) -> Person | None:
    """A head box from pose: centred on the nose, sized from the shoulders.
    Only people well inside the tile count (a cut-off body gives guesses)."""
    if not res.pose_landmarks:
        return None
    x0, y0, tw, th = tile
    lm = res.pose_landmarks.landmark
    nose, ls, rs = lm[0], lm[11], lm[12]
    if min(nose.visibility, ls.visibility, rs.visibility) < min_vis:
        return None
    pts = [(p.x, p.y) for p in (nose, ls, rs)]
    if not all(0.05 <= x <= 0.95 and 0.05 <= y <= 0.95 for x, y in pts):
        return None
    nx, ny = x0 + nose.x * tw, y0 + nose.y * th
    shoulders = math.hypot((ls.x - rs.x) * tw, (ls.y - rs.y) * th)
    half = max(4.0, 0.3 * shoulders)
    score = float(min(nose.visibility, ls.visibility, rs.visibility))
    return Person((nx - half, ny - 1.2 * half, nx + half, ny + 0.8 * half), score)


def merge_people(people: list[Person], iou: float = 0.3) -> list[Person]:
    """One head per person: the best-scored box wins over boxes that overlap
    it or whose centre lies inside it."""
    kept: list[Person] = []
    for p in sorted(people, key=lambda p: -p.score):
        if all(_iou(p.face, k.face) < iou and not _inside(p.centre, k.face)
               and not _inside(k.centre, p.face)
               and math.dist(p.centre, k.centre) > max(_width(p.face), _width(k.face))
               for k in kept):
            kept.append(p)
    return kept


def _width(b: Box) -> float:
    return b[2] - b[0]


def _iou(a: Box, b: Box) -> float:
    inter = box_intersection(a, b)
    union = box_area(a) + box_area(b) - inter
    return inter / union if union else 0.0


def layout_seats(people: list[Person], frame_size: tuple[int, int],
                 seat1_hint: tuple[float, float] | None = None,
                 direction: str = "clockwise",
                 centre: tuple[float, float] | None = None) -> dict[int, SeatRegion]:
    """Numbers people around the table and derives their regions.

    Seat 1 is the person nearest `seat1_hint` (default: the one nearest the
    bottom-left of the frame); numbering goes clockwise or counterclockwise as
    seen on screen, by angle about the table centre (default: the centroid
    of the faces). Body: the face box widened and extended down to the waist;
    table zone: the same width, in front of the body toward the centre.
    """
    if direction not in ("clockwise", "counterclockwise"):
        raise ValueError("direction is 'clockwise' or 'counterclockwise'")
    if not people:
        return {}
    w, h = frame_size
    people = sorted(people, key=lambda p: -p.score)[:len(SEATS)]
    cx, cy = centre or (float(np.mean([p.centre[0] for p in people])),
                        float(np.mean([p.centre[1] for p in people])))
    # Image y points down, so increasing atan2(dy, dx) turns clockwise on screen.
    sign = 1.0 if direction == "clockwise" else -1.0
    angle = {id(p): math.atan2(p.centre[1] - cy, p.centre[0] - cx) * sign for p in people}
    hint = seat1_hint or (0.0, float(h))
    first = min(people, key=lambda p: math.dist(p.centre, hint))
    a0 = angle[id(first)]
    order = sorted(people, key=lambda p: (angle[id(p)] - a0) % (2 * math.pi))
    seats: dict[int, SeatRegion] = {}
    for n, p in enumerate(order, start=1):
        seats[n] = _regions_for(p, (cx, cy), (w, h))
    return seats


def _regions_for(p: Person, centre: tuple[float, float], size: tuple[int, int]) -> SeatRegion:
    w, h = size
    fx0, fy0, fx1, fy1 = p.face
    fw, fh = fx1 - fx0, fy1 - fy0
    mx = (fx0 + fx1) / 2
    # Proportions of a seated adult: shoulders ~3 face widths, head top to
    # table ~3.5 face heights.
    body = _clip((mx - 1.8 * fw, fy0 - 0.6 * fh, mx + 1.8 * fw, fy1 + 3.0 * fh), w, h)
    bw, bh = body[2] - body[0], body[3] - body[1]
    dx, dy = centre[0] - p.centre[0], centre[1] - p.centre[1]
    norm = math.hypot(dx, dy) or 1.0
    ux, uy = dx / norm, dy / norm
    # The zone in front of the player: from the lower body toward the centre.
    zx = (body[0] + body[2]) / 2 + ux * 0.5 * bw
    zy = body[3] - 0.25 * bh + uy * 0.35 * bh
    zone = _clip((zx - 0.5 * bw, zy - 0.25 * bh, zx + 0.5 * bw, zy + 0.25 * bh), w, h)
    return SeatRegion(body, zone, (round(mx, 1), round((fy0 + fy1) / 2, 1), round(fw, 1)))


def _clip(b: Box, w: int, h: int) -> Box:
    x0, y0, x1, y1 = max(0.0, b[0]), max(0.0, b[1]), min(float(w), b[2]), min(float(h), b[3])
    if x1 - x0 < 2:
        x1 = min(float(w), x0 + 2)
    if y1 - y0 < 2:
        y1 = min(float(h), y0 + 2)
    return (x0, y0, x1, y1)


def propose_calibration(frame: np.ndarray, seat1_hint: tuple[float, float] | None = None,
                        direction: str = "clockwise", cam: str = "cam1",
                        people: list[Person] | None = None) -> Calibration:
    """A proposal from a day frame (RGB); unconfirmed until a human edits or
    accepts it. Fewer than 10 people gives fewer seats: `check_calibration`
    then reports the missing ones."""
    h, w = frame.shape[:2]
    if people is None:
        people = detect_people(frame)
    seats = layout_seats(people, (w, h), seat1_hint, direction)
    return Calibration({cam: CameraCalibration(w, h, seats)}, confirmed_by=None)

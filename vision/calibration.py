"""Seat calibration: where each seat's body and table zone are in a camera.

`calibration.json` (format `mafvar-calibration`, version 1):

    {"format": "mafvar-calibration", "version": 1,
     "cameras": {"cam1": {"width": 1280, "height": 720,
                          "seats": {"1": {"body": [x0, y0, x1, y1],
                                          "table_zone": [x0, y0, x1, y1],
                                          "head": [x, y, size]}, ...}}},
     "confirmed_by": null}

`proposed` (optional, additive) is set by `mafvar calibrate` on each seat it
proposes: `{"seen": bool, "zone_from": "table_edge"|"table_model"|"hand",
"zone_error_px": float|null, "guess": bool}` (`Proposed`; the analysis does not
judge a seat whose player was not found or that belongs to a proposal accepted
as a guess, nor a vote in a zone the frames did not confirm).

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
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Iterable, Protocol, Sequence

import numpy as np

FORMAT = "mafvar-calibration"
VERSION = 1
SEATS = tuple(range(1, 11))

Box = tuple[float, float, float, float]


class HasCentre(Protocol):
    """Anything found in a frame at a point (a head)."""
    @property
    def centre(self) -> tuple[float, float]: ...


class CalibrationError(Exception):
    """A calibration file that is missing, malformed or incomplete."""


Head = tuple[float, float, float]      # x, y, width (frame px)


@dataclass(frozen=True)
class Proposed:
    """How a seat proposed from the recording was placed (`mafvar calibrate`;
    `vision.seat_proposal`): whether its player was found on the frames (else
    every region is the fitted table's guess) and whether its table zone was
    confirmed by the table's edge in the frames, with how far it may still be
    off. A region a person draws replaces the guess it covers (`by_hand`)."""
    seen: bool
    zone_from: str                  # "table_edge" (moved to the edge seen), "table_model", "hand"
    zone_error_px: float | None     # how far the zone may still be off (None: not measured)
    guess: bool = False             # the fit's self-check doubted the whole proposal (accepted as a guess)

    def to_json(self) -> dict:
        return {"seen": self.seen, "zone_from": self.zone_from,
                "zone_error_px": None if self.zone_error_px is None else round(self.zone_error_px, 1),
                "guess": self.guess}

    @staticmethod
    def from_json(d) -> "Proposed":
        if not isinstance(d, dict) or not isinstance(d.get("seen"), bool):
            raise ValueError(f"'proposed' must be an object with a boolean 'seen', got {d!r}")
        src = d.get("zone_from", "table_model")
        if src not in ZONE_SOURCES:
            raise ValueError(f"'proposed.zone_from' must be one of {', '.join(ZONE_SOURCES)}, got {src!r}")
        err = d.get("zone_error_px")
        if err is not None:
            err = _coords([err], 1, "'proposed.zone_error_px' is a number of pixels")[0]
            if err < 0:
                raise ValueError(f"'proposed.zone_error_px' must not be negative, got {err!r}")
        guess = d.get("guess", False)
        if not isinstance(guess, bool):
            raise ValueError(f"'proposed.guess' must be true or false, got {guess!r}")
        return Proposed(d["seen"], src, err, guess)

    def by_hand(self, region: str) -> "Proposed":
        """After a person drew the seat's `region` ("body" or "table_zone"): a body
        drawn is the player's place; a zone drawn is no longer the model's guess."""
        if region == "body":
            return replace(self, seen=True, guess=False)
        return replace(self, zone_from="hand", zone_error_px=0.0)


ZONE_SOURCES = ("table_edge", "table_model", "hand")


@dataclass(frozen=True)
class SeatRegion:
    body: Box
    table_zone: Box
    head: Head | None = None
    proposed: Proposed | None = None    # set on a seat proposed from the recording


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
        if len(cams) > MAX_CAMERAS:
            raise CalibrationError(f"{source}: {len(cams)} cameras, over the limit of {MAX_CAMERAS}")
        confirmed = data.get("confirmed_by")
        if confirmed is not None and not isinstance(confirmed, str):
            raise CalibrationError(f"{source}: confirmed_by must be a name or null")
        out = Calibration(confirmed_by=confirmed)
        for cid, c in cams.items():
            try:
                if not isinstance(c, dict):
                    raise ValueError(f"expected an object, got {type(c).__name__}")
                seats = {}
                raw_seats = c.get("seats") or {}
                if not isinstance(raw_seats, dict):
                    raise ValueError("'seats' must be an object keyed by seat number")
                for key, r in raw_seats.items():
                    seat = int(key)
                    if seat not in SEATS:
                        raise CalibrationError(f"{source}: camera {cid}: seat {key} is not 1..10")
                    if not isinstance(r, dict):
                        raise ValueError(f"seat {key}: expected an object")
                    seats[seat] = SeatRegion(_box(r["body"]), _box(r["table_zone"]),
                                             _head(r["head"]) if r.get("head") is not None else None,
                                             Proposed.from_json(r["proposed"]) if r.get("proposed") is not None
                                             else None)
                out.cameras[cid] = CameraCalibration(_side(c["width"], "width"),
                                                     _side(c["height"], "height"), seats)
            except CalibrationError:
                raise
            except (KeyError, TypeError, ValueError, OverflowError) as exc:
                raise CalibrationError(f"{source}: camera {cid}: malformed ({exc})") from None
        return out


def _region_json(r: SeatRegion) -> dict:
    out: dict = {"body": [round(v, 1) for v in r.body], "table_zone": [round(v, 1) for v in r.table_zone]}
    if r.head is not None:
        out["head"] = [round(v, 1) for v in r.head]
    if r.proposed is not None:
        out["proposed"] = r.proposed.to_json()
    return out


# Far above any camera, far below what makes a crop or an allocation absurd.
MAX_CAMERAS = 16
MAX_SIDE_PX = 16_384
MAX_COORD_PX = 100_000.0


def _side(v, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or int(v) != v or not 1 <= v <= MAX_SIDE_PX:
        raise ValueError(f"{what} must be a whole number of pixels 1..{MAX_SIDE_PX}, got {v!r}")
    return int(v)


def _coords(v, n: int, what: str) -> list[float]:
    if not isinstance(v, (list, tuple)) or len(v) != n:
        raise ValueError(f"{what}, got {v!r}")
    out = []
    for a in v:
        if isinstance(a, bool) or not isinstance(a, (int, float)) or not math.isfinite(a) \
                or abs(a) > MAX_COORD_PX:
            raise ValueError(f"{what} with finite pixel values under {MAX_COORD_PX:g}, got {v!r}")
        out.append(float(a))
    return out


def _head(v) -> Head:
    x, y, size = _coords(v, 3, "a head is [x, y, width]")
    if size <= 0:
        raise ValueError(f"head {v!r} has no width")
    return (x, y, size)


def _box(v) -> Box:
    x0, y0, x1, y1 = _coords(v, 4, "a box is [x0, y0, x1, y1]")
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"box {v!r} has no area")
    return (x0, y0, x1, y1)


def load_calibration(path: str | Path) -> Calibration:
    from mafvar.limits import LIMITS, InputLimitError, read_json_file
    path = Path(path)
    try:
        data = read_json_file(path, max_bytes=LIMITS.max_calibration_bytes, what="calibration")
    except FileNotFoundError:
        raise CalibrationError(f"{path}: not found (propose one from a day frame first)") from None
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{path}: not valid JSON ({exc})") from None
    except InputLimitError as exc:
        raise CalibrationError(str(exc)) from None
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot read ({exc.strerror or exc})") from None
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


def renumbering(first: int = 1, reverse: bool = False) -> dict[int, int]:
    """new seat number -> old one, for `renumber`."""
    if first not in SEATS:
        raise CalibrationError(f"seat {first} is not 1..10")
    n = len(SEATS)
    return {new: (first - 1 + (-(new - 1) if reverse else new - 1)) % n + 1 for new in SEATS}


def renumber(cal: Calibration, cam: str, first: int = 1, reverse: bool = False) -> Calibration:
    """The same regions numbered again: the seat now numbered `first` becomes
    seat 1, and with `reverse` the numbers run the other way round the table
    (seat 1 stays). The app's one-click fixes for a proposal whose judge's
    end or direction was guessed wrong; `confirmed_by` is cleared."""
    c = cal.camera(cam)
    seats = {new: c.seats[old] for new, old in renumbering(first, reverse).items() if old in c.seats}
    cams = dict(cal.cameras)
    cams[cam] = CameraCalibration(c.width, c.height, seats)
    return Calibration(cams, confirmed_by=None)


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
    MISSING = "missing"          # refuses: a seat without a region
    OUTSIDE = "outside"          # refuses: a region leaving the frame
    SAME_PLACE = "same_place"    # refuses: two seats on one player
    FRAME = "frame"              # refuses: calibrated for frames of another shape
    OVERLAP = "overlap"          # warns: neighbours sharing much of their regions (measured)
    SMALL = "small"              # warns: a seat too small for reliable hand reading
    EMPTY = "empty"              # warns: nobody detected in a seat's region

    @property
    def refuses(self) -> bool:
        return self in (IssueKind.MISSING, IssueKind.OUTSIDE, IssueKind.SAME_PLACE, IssueKind.FRAME)


@dataclass(frozen=True)
class CalibrationIssue:
    cam: str
    seat: int
    kind: IssueKind
    message: str

    @property
    def refuses(self) -> bool:
        return self.kind.refuses


# A seated player's hand is about a fifth of the visible body height; the
# palm detector needs it near 150 px, and upscaling a crop more than ~3x
# invents no detail, so below 50 source pixels per hand detection suffers.
HAND_FRACTION_OF_BODY = 0.2
MIN_HAND_SOURCE_PX = 50.0
# Neighbours' body regions overlap in any perspective view: rendered games
# under random camera placements have neighbours at body IoU 0.27-0.65
# (scripts/eval_calibrate.py prints it). Above OVERLAP_WARN_IOU the shared
# part is large enough to say so; at SAME_PLACE_IOU, or with two heads less
# than SAME_HEAD_WIDTHS head widths apart, two seats are one player.
OVERLAP_WARN_IOU = 0.5
SAME_PLACE_IOU = 0.8
SAME_HEAD_WIDTHS = 0.5
# The recording's frames and the calibration's differ in shape by more than
# this (width/height ratio): the boxes were drawn on another camera's frames.
MAX_ASPECT_DIFFERENCE = 0.03
# Regions may reach this far past the frame's edge (rounding) before they leave it.
EDGE_TOLERANCE_PX = 1.0


def box_area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def box_intersection(a: Box, b: Box) -> float:
    return box_area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))


def box_iou(a: Box, b: Box) -> float:
    inter = box_intersection(a, b)
    union = box_area(a) + box_area(b) - inter
    return inter / union if union else 0.0


def _inside(p: tuple[float, float], b: Box) -> bool:
    return b[0] <= p[0] <= b[2] and b[1] <= p[1] <= b[3]


def estimated_hand_px(body: Box) -> float:
    return HAND_FRACTION_OF_BODY * (body[3] - body[1])


def check_calibration(cal: Calibration, frame_size: tuple[int, int] | None = None,
                      cam: str | None = None, people: Sequence[HasCentre] | None = None) -> list[CalibrationIssue]:
    """Every issue of the calibration, each refusing or warning (`IssueKind.refuses`):
    seats missing, leaving the frame, two seats on one player, frames of another
    shape than the recording's (`frame_size`: the video's width and height);
    neighbours overlapping much (measured), seats too small for the hand
    models and (with detected `people`) empty seats."""
    issues: list[CalibrationIssue] = []
    cams = [cam] if cam else sorted(cal.cameras)
    for cid in cams:
        c = cal.camera(cid)
        w, h = c.width, c.height
        if frame_size is not None and frame_size[0] > 0 and frame_size[1] > 0:
            vw, vh = frame_size
            if abs((w / h) / (vw / vh) - 1.0) > MAX_ASPECT_DIFFERENCE:
                issues.append(CalibrationIssue(
                    cid, 0, IssueKind.FRAME,
                    f"the calibration is for {w}x{h} frames but the recording's are {vw}x{vh} "
                    f"(another shape): it was made on another camera's frames; propose it again"))
        for s in SEATS:
            if s not in c.seats:
                issues.append(CalibrationIssue(cid, s, IssueKind.MISSING, f"seat {s} has no region"))
                continue
            r = c.seats[s]
            t = EDGE_TOLERANCE_PX
            if r.body[0] < -t or r.body[1] < -t or r.body[2] > w + t or r.body[3] > h + t:
                issues.append(CalibrationIssue(cid, s, IssueKind.OUTSIDE,
                                               f"seat {s} body {_fmt_box(r.body)} leaves the {w}x{h} frame"))
            hand = estimated_hand_px(r.body)
            if hand < MIN_HAND_SOURCE_PX:
                issues.append(CalibrationIssue(
                    cid, s, IssueKind.SMALL,
                    f"seat {s} is small ({r.body[3] - r.body[1]:.0f} px tall: a hand about {hand:.0f} px, "
                    f"under the {MIN_HAND_SOURCE_PX:.0f} px the hand models need): where its hands "
                    f"cannot be read, its votes and gestures are \"cannot judge\", not guessed"))
            if people is not None and not any(_inside(p.centre, r.body) for p in people):
                issues.append(CalibrationIssue(cid, s, IssueKind.EMPTY,
                                               f"seat {s}: nobody detected in its body region"))
        issues.extend(_overlaps(cid, c))
    return issues


def _overlaps(cid: str, c: CameraCalibration) -> list[CalibrationIssue]:
    out = []
    present = sorted(c.seats)
    for i, a in enumerate(present):
        for b in present[i + 1:]:
            ra, rb = c.seats[a], c.seats[b]
            iou = box_iou(ra.body, rb.body)
            heads = _head_distance(ra, rb)
            if iou >= SAME_PLACE_IOU or (heads is not None and heads < SAME_HEAD_WIDTHS):
                why = (f"their heads are {heads:.1f} head widths apart" if heads is not None
                       and heads < SAME_HEAD_WIDTHS else f"body regions overlap with IoU {iou:.2f}")
                out.append(CalibrationIssue(
                    cid, a, IssueKind.SAME_PLACE,
                    f"seats {a} and {b} are the same place ({why}): one player would be read twice"))
            elif iou > OVERLAP_WARN_IOU:
                share = box_intersection(ra.body, rb.body) / min(box_area(ra.body), box_area(rb.body))
                out.append(CalibrationIssue(
                    cid, a, IssueKind.OVERLAP,
                    f"seats {a} and {b} overlap (body IoU {iou:.2f}, {share:.0%} of the smaller): a hand "
                    f"in the shared part is given to the seat whose head is nearer, and may be misread "
                    f"where the two players lean together"))
    return out


def _head_distance(a: SeatRegion, b: SeatRegion) -> float | None:
    """Distance between two calibrated heads in head widths (None unless both have one)."""
    if a.head is None or b.head is None:
        return None
    return math.dist(a.head[:2], b.head[:2]) / max(1e-6, min(a.head[2], b.head[2]))


def max_overlap(c: CameraCalibration) -> tuple[float, int, int] | None:
    """The largest body IoU between two seats, and the seats (None under two seats)."""
    best = None
    present = sorted(c.seats)
    for i, a in enumerate(present):
        for b in present[i + 1:]:
            iou = box_iou(c.seats[a].body, c.seats[b].body)
            if best is None or iou > best[0]:
                best = (iou, a, b)
    return best


@dataclass(frozen=True)
class Agreement:
    """How a proposed calibration agrees with a known one (a rendered game's truth)."""
    body: dict[int, float]          # seat -> body box IoU with the same-numbered seat
    zone: dict[int, float]          # seat -> table zone IoU
    numbering: bool                 # every known seat's best-overlapping proposed body carries its number

    def right(self, min_iou: float = 0.5) -> list[int]:
        """Seats proposed right: the numbering right and the body box IoU at least `min_iou`."""
        return [s for s, v in sorted(self.body.items()) if self.numbering and v >= min_iou]


def agreement(known: Calibration, proposed: Calibration, cam: str = "cam1") -> Agreement:
    truth = known.camera(cam).seats
    prop = proposed.cameras[cam].seats if cam in proposed.cameras else {}
    body = {s: box_iou(truth[s].body, prop[s].body) if s in prop else 0.0 for s in truth}
    zone = {s: box_iou(truth[s].table_zone, prop[s].table_zone) if s in prop else 0.0 for s in truth}
    numbering = bool(prop) and all(
        s in prop and max(prop, key=lambda p: box_iou(truth[s].body, prop[p].body)) == s for s in truth)
    return Agreement(body, zone, numbering)


def _fmt_box(b: Box) -> str:
    return "[" + ", ".join(f"{v:.0f}" for v in b) + "]"


@dataclass(frozen=True)
class Verdict:
    """What a calibration is worth to the analysis: refused, or usable with
    warnings that say what each one costs. The one judgement the app and the
    command line both show (`calibration_verdict`)."""
    issues: tuple[CalibrationIssue, ...]
    summary: str                 # one line, e.g. "usable: 10 seats; largest overlap ..."

    @property
    def usable(self) -> bool:
        return not self.refusals

    @property
    def refusals(self) -> tuple[CalibrationIssue, ...]:
        return tuple(i for i in self.issues if i.refuses)

    @property
    def warnings(self) -> tuple[CalibrationIssue, ...]:
        return tuple(i for i in self.issues if not i.refuses)

    @property
    def refusal_lines(self) -> list[str]:
        return [_line(i) for i in self.refusals]

    @property
    def warning_lines(self) -> list[str]:
        return [_line(i) for i in self.warnings]

    @property
    def seats_flagged(self) -> tuple[int, ...]:
        return tuple(sorted({i.seat for i in self.issues if i.seat}))

    @property
    def seats_refused(self) -> tuple[int, ...]:
        return tuple(sorted({i.seat for i in self.refusals if i.seat}))

    def to_json(self) -> dict:
        return {"usable": self.usable, "summary": self.summary,
                "refusals": self.refusal_lines, "warnings": self.warning_lines,
                "issues": [{"camera": i.cam, "seat": i.seat or None, "kind": i.kind.value,
                            "refuses": i.refuses, "message": i.message} for i in self.issues]}


def _line(i: CalibrationIssue) -> str:
    return f"{i.cam}: {i.message}" if i.cam else i.message


def calibration_verdict(cal: Calibration, frame_size: tuple[int, int] | None = None,
                        cam: str | None = None) -> Verdict:
    """The judgement on a calibration for a recording of `frame_size` (width,
    height): usable or refused, and why, in the words both the app and
    `mafvar analyze` show."""
    issues = tuple(check_calibration(cal, frame_size, cam=cam))
    cams = [cam] if cam else sorted(cal.cameras)
    n_seats = sum(len(cal.camera(c).seats) for c in cams)
    refusals = [i for i in issues if i.refuses]
    if refusals:
        summary = (f"refused: {len(refusals)} problem{'s' if len(refusals) != 1 else ''} "
                   f"(the analysis cannot run until they are fixed)")
    else:
        parts = [f"usable: {n_seats} seat regions inside the frame"]
        for cid in cams:
            worst = max_overlap(cal.camera(cid))
            if worst is not None:
                parts.append(f"largest overlap seats {worst[1]} and {worst[2]} (body IoU {worst[0]:.2f})")
        small = sorted({i.seat for i in issues if i.kind is IssueKind.SMALL})
        if small:
            parts.append(f"{len(small)} seat{'s' if len(small) != 1 else ''} too small for reliable "
                         f"hand reading ({', '.join(map(str, small))})")
        summary = "; ".join(parts)
    return Verdict(issues, summary)

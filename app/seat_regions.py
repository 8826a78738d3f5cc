"""Seat regions for the app: a thin layer over `vision.calibration`.

The app draws and crops with (x, y, w, h) integer boxes; calibration.json
stores [x0, y0, x1, y1] per seat for the body and the table zone. The
verdict is vision's own (`calibration_verdict`, through
`review.calibration_verdict` for a game), so the app refuses exactly what
the analysis refuses and warns in the same words.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vision.calibration import (Calibration, CalibrationError, SeatRegion, calibration_verdict,
                                load_calibration, renumber, save_calibration)

Box = tuple[int, int, int, int]  # x, y, w, h
REGION_KINDS = ("body", "table_zone")

__all__ = ["Box", "CalibrationError", "CameraRegions", "CheckResult", "check_file",
           "load_regions", "regions_for", "regions_of", "renumber_file", "set_box"]


@dataclass(frozen=True)
class CameraRegions:
    camera: str
    width: int
    height: int
    boxes: dict[int, Box]  # body regions
    zones: dict[int, Box]  # table zones


@dataclass(frozen=True)
class CheckResult:
    problems: tuple[str, ...]          # refusals: the analysis will not run
    bad_seats: tuple[int, ...]         # seats named by a refusal
    warnings: tuple[str, ...] = ()     # usable, with what each costs
    warned_seats: tuple[int, ...] = ()
    summary: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def _xywh(b) -> Box:
    x0, y0, x1, y1 = b
    return (int(round(x0)), int(round(y0)), int(round(x1 - x0)), int(round(y1 - y0)))


def load_regions(path: Path) -> list[CameraRegions]:
    return regions_of(load_calibration(path))


def regions_of(cal: Calibration) -> list[CameraRegions]:
    return [CameraRegions(cid, c.width, c.height,
                          {s: _xywh(r.body) for s, r in c.seats.items()},
                          {s: _xywh(r.table_zone) for s, r in c.seats.items()})
            for cid, c in sorted(cal.cameras.items())]


def regions_for(path: Path, camera: str | None = None) -> CameraRegions:
    """The named camera's regions, or the first camera's when it is absent or unnamed."""
    cams = load_regions(path)
    return next((c for c in cams if c.camera == camera), cams[0])


def check_file(path: Path, frame_size: tuple[int, int] | None = None,
               camera: str | None = None) -> CheckResult:
    """vision's verdict on a calibration file; an unreadable file is one problem, not an exception."""
    try:
        cal = load_calibration(path)
        verdict = calibration_verdict(cal, frame_size, cam=camera)
    except CalibrationError as exc:
        return CheckResult((str(exc),), (), summary=f"refused: {exc}")
    return CheckResult(tuple(verdict.refusal_lines), verdict.seats_refused, tuple(verdict.warning_lines),
                       tuple(sorted({i.seat for i in verdict.warnings if i.seat})), verdict.summary)


def renumber_file(path: Path, camera: str, first: int, reverse: bool, *, confirmed_by: str | None = None) -> Path:
    """The saved seats numbered again (vision keeps the previous file as calibration.json.bak)."""
    cal = renumber(load_calibration(path), camera, first, reverse)
    cal.confirmed_by = confirmed_by
    return save_calibration(cal, path)


def set_box(path: Path, camera: str, seat: int, box: Box, *, region: str = "body",
            confirmed_by: str | None = None) -> Path:
    """Replace one seat's region; vision keeps the previous file as calibration.json.bak."""
    if region not in REGION_KINDS:
        raise ValueError(f"region must be one of {REGION_KINDS}")
    x, y, w, h = (int(v) for v in box)
    if w <= 0 or h <= 0:
        raise CalibrationError(f"seat {seat}: width and height must be positive")
    cal: Calibration = load_calibration(path)
    cam = cal.camera(camera)
    new = (float(x), float(y), float(x + w), float(y + h))
    old = cam.seats.get(seat)
    if old is None:
        cam.seats[seat] = SeatRegion(new, new)
    else:
        # a region drawn by a person is no longer the proposal's guess (vision.calibration.Proposed)
        proposed = None if old.proposed is None else old.proposed.by_hand(region)
        if region == "body":
            cam.seats[seat] = SeatRegion(new, old.table_zone, old.head, proposed)
        else:
            cam.seats[seat] = SeatRegion(old.body, new, old.head, proposed)
    if confirmed_by:
        cal.confirmed_by = confirmed_by
    return save_calibration(cal, path)

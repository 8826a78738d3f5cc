"""Seats proposed for a game workspace: `mafvar calibrate` and the app's
Calibration page.

Day frames are read from the recording (inside the first day's speeches when
the protocol has times: everybody seated, unmasked, hands on the table;
otherwise spread over the first part of the recording), the seats are
proposed from them (`vision.seat_proposal`) and judged by the same verdict
as the analysis (`vision.calibration.calibration_verdict`).

Writing is separate (`save_proposal`): an existing calibration.json is never
replaced silently; when it is replaced it is kept as calibration.json.bak.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from engine.protocol import ProtocolError, load_protocol
from engine.replay import replay
from engine.timeline import Kind, build_timeline
from vision.calibration import Calibration, SeatRegion, Verdict, calibration_verdict, save_calibration
from vision.video import Frame, VideoError, not_a_recording, open_video, probe

from .workspace import GameWorkspace, WorkspaceError

FORMAT = "mafvar-calibrate"
VERSION = 1
FRAMES = 6
# Without protocol times, frames come from this stretch of the recording
# (after the deal night, before players start leaving the table).
UNTIMED_SPAN = (0.12, 0.45)


class CalibrateError(Exception):
    """The workspace cannot give a proposal; the message says what and where."""


@dataclass
class GameProposal:
    game: Path
    video: Path
    times: list[float]                   # video seconds of the frames used
    frame_size: tuple[int, int]
    calibration: Calibration
    seen: dict[int, bool]                # seat -> its player was found (else placed by the table)
    verdict: Verdict
    problems: list[str]
    fit: dict | None                     # the fitted table and camera, for people and tests
    uncertain: str | None = None         # why the seats are a guess (the fit's self-check failed)
    zones: list = field(default_factory=list)   # vision.zone_placement.ZonePlacement of seats 1..10

    def to_json(self, written: Path | None = None) -> dict:
        cam = next(iter(self.calibration.cameras))
        seats = self.calibration.cameras[cam].seats
        return {"format": FORMAT, "version": VERSION, "game": str(self.game), "video": self.video.name,
                "camera": cam, "frame_size": list(self.frame_size), "frames": [round(t, 2) for t in self.times],
                "seats": {str(s): {"body": [round(v, 1) for v in r.body],
                                   "table_zone": [round(v, 1) for v in r.table_zone],
                                   "head": None if r.head is None else [round(v, 1) for v in r.head],
                                   "seen": self.seen.get(s, False),
                                   **_zone_json(r), "judged": judged_windows(r)}
                          for s, r in sorted(seats.items())},
                "numbering": "clockwise from the judge's left (the widest gap between players is the head "
                             "of the table)",
                "fit": self.fit, "verdict": self.verdict.to_json(), "problems": list(self.problems),
                "uncertain": self.uncertain,
                "written": None if written is None else str(written)}


def day_times(ws: GameWorkspace, duration: float, n: int = FRAMES) -> list[float]:
    """Video times of `n` day frames of the game."""
    spans: list[tuple[float, float]] = []
    try:
        protocol = load_protocol(ws.require_protocol())
        rep = replay(protocol)
        cams = protocol.cameras or ()
        offset = float(getattr(cams[0], "offset", 0.0) or 0.0) if cams else 0.0
        for iv in build_timeline(protocol, rep):
            if iv.kind is Kind.SPEECH and iv.round == 0 and iv.t0 is not None and iv.t1 is not None:
                a, b = max(0.0, offset + iv.t0), min(duration - 0.5, offset + iv.t1)
                if b > a:
                    spans.append((a, b))
    except (ProtocolError, WorkspaceError, ValueError):
        spans = []
    total = sum(b - a for a, b in spans)
    if total >= 2.0:
        # evenly over the first day's speeches, as if they were one stretch
        out, start = [], 0.0
        want = [total * (k + 0.5) / n for k in range(n)]
        for a, b in spans:
            out += [a + w - start for w in want if start <= w < start + (b - a)]
            start += b - a
        return out
    a, b = UNTIMED_SPAN
    if duration < 20:        # a short clip: all of it
        a, b = 0.1, 0.9
    return [duration * (a + (b - a) * (k + 0.5) / n) for k in range(n)]


def day_frames(ws: GameWorkspace, video: str | Path, duration: float, n_frames: int = FRAMES) -> list[Frame]:
    """The day frames the seats are proposed from (`day_times`), those that could be
    read; CalibrateError when none could."""
    times = day_times(ws, duration, n_frames)
    try:
        # FFmpeg's own RGB, as the seat proposal was tuned on: its table-edge
        # search is that near its threshold on the sample's seat 10 that
        # OpenCV's conversion (a level or two apart) moved it under; a dozen
        # frames, so the faster conversion would save nothing here
        frames = open_video(video, fast_rgb=False).read_at(times)
    except VideoError as exc:
        frames = exc.partial or []
        if not frames:
            raise CalibrateError(f"{video}: no frame could be read for the seats ({exc})") from None
    if not frames:
        raise CalibrateError(f"{video}: no frame could be read at {', '.join(f'{t:.1f}' for t in times)} s")
    return frames


def propose_for_game(game_dir: str | Path, n_frames: int = FRAMES,
                     progress: Callable[[int, int], None] | None = None,
                     heads: dict[int, tuple[float, float]] | None = None) -> GameProposal:
    """The proposal for GAME_DIR's first recording (nothing is written); with
    `heads` (seat -> head centre in frame px, placed by a person) the table is
    fitted to those instead of to the players found (`seats_from_heads`)."""
    from vision.seat_proposal import propose_seats, seats_from_heads

    try:
        ws = GameWorkspace(game_dir)
        video = ws.require_videos()[0]
        info = probe(video)
    except (WorkspaceError, VideoError) as exc:
        raise CalibrateError(str(exc)) from None
    if not info.duration or info.duration <= 0:
        raise CalibrateError(f"{video}: no duration in the file; cannot choose day frames")
    why = not_a_recording(info)
    if why:
        raise CalibrateError(f"{video}: {why}; no calibration written")
    frames = day_frames(ws, video, info.duration, n_frames)
    images = [f.image for f in frames]
    if heads is not None:
        try:
            proposal = seats_from_heads(images, heads)
        except ValueError as exc:
            raise CalibrateError(f"{video}: {exc}") from None
    else:
        proposal = propose_seats(images, progress=progress)
    size = (images[0].shape[1], images[0].shape[0])
    verdict = calibration_verdict(proposal.calibration, (info.width, info.height))
    fit = None
    if proposal.fit is not None:
        cam, table = proposal.fit.camera, proposal.fit.table
        fit = {"cost": round(proposal.fit.cost, 4),
               "camera": {"focal_px": round(cam.f, 1), "position_m": [round(v, 2) for v in cam.position],
                          "tilt_deg": round(float(_deg(cam.tilt)), 1), "roll_deg": round(float(_deg(cam.roll)), 1),
                          "distortion": round(cam.k1, 3)},
               "table": {"length_m": round(2 * table.a, 2), "width_m": round(2 * table.b, 2),
                         "shape": "oval" if table.exponent < 3 else "rectangle",
                         "seat_spacing_m": round(table.spacing, 2), "head_gap_m": round(table.head_gap, 2)},
               "heads_found": len(proposal.heads), "seats_seen": proposal.seats_seen,
               "heads_from": "placed" if heads is not None else "found",
               "check": None if proposal.check is None else proposal.check.to_json()}
    return GameProposal(ws.root, video, [f.t for f in frames], size, proposal.calibration, dict(proposal.seen),
                        verdict, list(proposal.problems), fit, proposal.uncertain, list(proposal.zones))


def parse_heads(text: str) -> dict[int, tuple[float, float]]:
    """'1=412,300 2=388,260 ...' (or ';'-separated) -> {seat: (x, y)}; a ValueError
    names the piece that is not a seat number with a head's x,y."""
    out: dict[int, tuple[float, float]] = {}
    for piece in text.replace(";", " ").split():
        seat, sep, xy = piece.partition("=")
        parts = xy.split(",")
        try:
            if not sep or len(parts) != 2:
                raise ValueError
            s, x, y = int(seat), float(parts[0]), float(parts[1])
        except ValueError:
            raise ValueError(f"'{piece}' is not SEAT=X,Y (a seat number, then its head's centre in "
                             f"frame pixels)") from None
        if not 1 <= s <= 10:
            raise ValueError(f"'{piece}': seat {s} is not a seat number 1..10")
        if s in out:
            raise ValueError(f"'{piece}': seat {s} is given twice")
        out[s] = (x, y)
    if not out:
        raise ValueError("no heads given (SEAT=X,Y for each seat placed)")
    return out


def _zone_json(r: SeatRegion) -> dict:
    p = r.proposed
    return {"zone_from": None if p is None else p.zone_from,
            "zone_error_px": None if p is None or p.zone_error_px is None else round(p.zone_error_px, 1)}


def judged_windows(r: SeatRegion) -> dict:
    """Which windows of the seat the analysis will judge (`review.view.placement_doubts`),
    and why not: {"head": null, "zone": "zone_place", "body": null}."""
    from .view import placement_doubts
    doubts = placement_doubts({0: r})
    return {w: None if (0, w) not in doubts else doubts[(0, w)].value for w in ("head", "zone", "body")}


def zone_note(r: SeatRegion) -> str:
    """How a proposed seat's zone was placed and whether its votes will be judged, in words."""
    p = r.proposed
    judged = judged_windows(r)
    where = ("on the table's edge seen in the frames" if p is not None and p.zone_from == "table_edge" else
             "drawn by hand" if p is not None and p.zone_from == "hand" else "by the table model alone")
    err = "" if p is None or p.zone_error_px is None else f" (within about {max(p.zone_error_px, 1.0):.0f} px)"
    if judged["body"]:
        # where its zone lies does not matter then: nothing of the seat is judged
        why = ("the seats are a guess (the check doubted the whole table)" if p is not None and p.guess
               else "its player was not found")
        return f"{why}: nothing is judged on this seat (place its head, or draw the seat, to judge it)"
    if judged["zone"]:
        return f"zone {where}{err}; its votes are not judged (draw the zone to judge them)"
    return f"zone {where}{err}"


def _deg(rad: float) -> float:
    import math
    return math.degrees(rad)


def save_proposal(game_dir: str | Path, cal: Calibration, force: bool = False) -> Path:
    """Write calibration.json; an existing one is refused unless `force` (then kept as .bak)."""
    ws = GameWorkspace(game_dir)
    path = ws.calibration_path
    if path.exists() and not force:
        raise CalibrateError(f"{path} exists; nothing was changed (--force proposes again and keeps the "
                             f"current file as {path.name}.bak)")
    return save_calibration(cal, path)

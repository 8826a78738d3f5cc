"""When a vote fist comes to rest on the table, and when it leaves it, to the frame.

The vote rate (5 fps) and the zone window's early view of the fist together
place a fist up to 0.3 s before it lands: the window says "vote" as soon as
the hand enters the zone, while the rules time the vote by its landing ("on
or after Thank you" voids it, rules-spec 4.1). Where that difference could
decide a vote, the seat's zone is read at the file's full rate and the
landing is the first frame after the fist appeared at which the zone stops
changing: the descent is over.

Measured on the committed sample (its 26 fists, `scripts/eval_landing.py
--all sample_videos/demo`): the zone window first says "vote" 0.22-0.30 s
before the true landing, and the zone's frame difference falls to its still
level within 0.07 s of it for 9 fists in 10, except where a neighbour's arm
moves through the window. The descent prior
(`MIN_DESCENT`, `MAX_DESCENT`: a hand takes 0.1-0.4 s from entering its zone
to resting) bounds those cases.

The lift is the mirror image: at 5 fps the window still sees the rising
fist up to 0.25 s after it left the table, which hides a fist lifted just
before "Thank you" (V17). Read at the full rate, the lift is the first frame
of the motion that ends with the fist gone from the zone (same command: the
window loses the fist 0.13-0.28 s after the truth's lift, and the timed lift
is within 0.12 s of it; `MIN_RISE`, `MAX_RISE` bound the rise).

Pure estimators (`landing_from_series`, `lift_from_series`) plus the reading
of the frames (`measure_landings`); no MediaPipe.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from vision.appearance import appearance_batch, committed_models, window_box
from vision.calibration import Calibration
from vision.crops import seat_crop

# frames per second of the closer look (the sample's and most cameras' rate)
LANDING_FPS = 25.0
# a hand takes this long from entering its zone to resting on the table
MIN_DESCENT = 0.1
MAX_DESCENT = 0.4
# the zone window's vote probability that counts as "the fist is there", held this many frames
APPEAR_P = 0.5
APPEAR_HOLD = 3
# the still level is read this long after the fist appeared (it rests >= 0.4 s: lifts come after the count)
REST_FROM, REST_TO = 0.4, 0.8
# a rising fist is lost from the zone window this long after it starts to move
MIN_RISE = 0.04
MAX_RISE = 0.4
# read before the sampled sighting and after it, per edge
LOOK = {"land": (0.5, 1.0), "lift": (1.0, 0.5)}


@dataclass(frozen=True)
class FistEdge:
    """One edge of a fist on the table, timed at the full rate."""
    seat: int
    t_seen: float             # the sampled sighting it refines (first for a landing, last for a lift)
    t_window: float           # full-rate frame the zone window first (landing) or last (lift) says "vote"
    t_edge: float             # the edge: the fist at rest (landing) or leaving the table (lift)
    how: str                  # "still" (the motion decided) | "bounded" (the prior on the move decided)
    edge: str = "land"        # "land" | "lift"

    def to_json(self) -> dict:
        return {"seat": self.seat, "edge": self.edge, "t_seen": self.t_seen, "t_window": round(self.t_window, 3),
                "t_edge": round(self.t_edge, 3), "how": self.how}

    @staticmethod
    def from_json(d: dict) -> "FistEdge":
        return FistEdge(int(d["seat"]), float(d["t_seen"]), float(d["t_window"]), float(d["t_edge"]), str(d["how"]),
                       str(d.get("edge", "land")))


def _series(times, p_vote, diffs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.asarray(times, float), np.asarray(p_vote, float), np.asarray(diffs, float)


def _still_limit(rest: np.ndarray) -> float:
    """The most a frame may differ from the one before and still count as
    still: the still level is noise, not zero, so half again of it."""
    still = float(np.median(rest))
    return max(1.5 * still, still + 0.25)


def landing_from_series(times: Sequence[float], p_vote: Sequence[float], diffs: Sequence[float]
                        ) -> tuple[float, float, str] | None:
    """(appear, land, how) from a full-rate series of one seat's zone: the
    window's vote probability and the mean absolute difference to the frame
    before. None when no fist appears and stays."""
    t, p, d = _series(times, p_vote, diffs)
    n = len(t)
    held = [i for i in range(n - APPEAR_HOLD + 1) if np.all(p[i:i + APPEAR_HOLD] >= APPEAR_P)]
    if not held:
        return None
    i0 = held[0]
    appear = float(t[i0])
    rest = d[(t >= appear + REST_FROM) & (t <= appear + REST_TO)]
    if len(rest) == 0:
        return None
    limit = _still_limit(rest)
    lo, hi = appear + MIN_DESCENT, appear + MAX_DESCENT
    j = next((k for k in range(i0 + 1, n) if d[k] <= limit and t[k] >= lo - 1e-9), None)
    if j is None or t[j] > hi + 1e-9:
        return appear, hi, "bounded"
    return appear, float(t[j]), "still"


def lift_from_series(times: Sequence[float], p_vote: Sequence[float], diffs: Sequence[float]
                     ) -> tuple[float, float, str] | None:
    """(gone, lift, how): the last full-rate frame the window says "vote"
    before the fist is gone for good, and the first frame of the motion that
    took it away. None when no resting fist leaves in the series."""
    t, p, d = _series(times, p_vote, diffs)
    n = len(t)
    gone = [i for i in range(1, n - APPEAR_HOLD + 1)
            if p[i - 1] >= APPEAR_P and np.all(p[i:i + APPEAR_HOLD] < APPEAR_P)]
    if not gone:
        return None
    last = gone[-1] - 1
    t_gone = float(t[last])
    rest = d[(t >= t_gone - 0.9) & (t <= t_gone - 0.5) & (p >= APPEAR_P)]
    if len(rest) == 0:
        return None
    limit = _still_limit(rest)
    lo, hi = t_gone - MAX_RISE, t_gone - MIN_RISE
    # walk back from the loss through the rise to the last still frame
    k = last
    while k > 0 and d[k] > limit and t[k] >= lo - 1e-9:
        k -= 1
    if t[k] < lo - 1e-9:
        return t_gone, lo, "bounded"
    lift = float(t[min(k + 1, last)])
    return t_gone, min(lift, hi), "still"


@dataclass(frozen=True)
class EdgeRequest:
    seat: int
    t_seen: float
    edge: str = "land"        # "land": t_seen is a first sighting; "lift": a last one


def _zone_gray(image: np.ndarray, box) -> np.ndarray:
    h, w = image.shape[:2]
    x0, y0 = max(0, int(round(box[0]))), max(0, int(round(box[1])))
    x1, y1 = min(w, int(round(box[2]))), min(h, int(round(box[3])))
    g = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_RGB2GRAY).astype(np.float32)
    # sensor noise is per pixel; a fist's motion is not
    return cv2.GaussianBlur(g, (5, 5), 0)


def _groups(requests: Sequence[EdgeRequest], gap: float = 1.0) -> list[list[EdgeRequest]]:
    """Requests close in time share one decoded stretch."""
    out: list[list[EdgeRequest]] = []
    for r in sorted(requests, key=lambda r: r.t_seen):
        if out and r.t_seen - out[-1][-1].t_seen <= gap:
            out[-1].append(r)
        else:
            out.append([r])
    return out


ESTIMATORS = {"land": landing_from_series, "lift": lift_from_series}


def measure_landings(video, calibration: Calibration, cam: str, requests: Sequence[EdgeRequest],
                     fps: float = LANDING_FPS, windows: dict | None = None) -> tuple[list[FistEdge], int, list[str]]:
    """Read each request's stretch at the full rate and time its edge.
    `video` is a vision.video.VideoSource, decoded at the calibration's size
    like the extraction. Returns the edges found, the frames decoded and
    warnings (a stretch the file could not give: those sightings keep their
    sampled times). `windows`: the seat-window models the extraction ran (a
    venue's; default the committed ones)."""
    from vision.schedule import analysis_side
    from vision.video import VideoError
    camera = calibration.camera(cam)
    regions = camera.seats
    side = analysis_side(video.info, camera)
    zone_model = {k: m for k, m in (committed_models() if windows is None else windows).items() if k == "zone"}
    out: list[FistEdge] = []
    decoded = 0
    warnings: list[str] = []
    for group in _groups(requests):
        a = max(0.0, min(r.t_seen - LOOK[r.edge][0] for r in group))
        b = max(r.t_seen + LOOK[r.edge][1] for r in group)
        try:
            frames = video.read_range(a, b, fps, max_side=side)
        except VideoError as exc:
            warnings.append(f"vote fists at {a:.1f}-{b:.1f} s not timed to the frame: {exc}")
            continue
        decoded += len(frames)
        if len(frames) < APPEAR_HOLD + 2:
            continue
        times = [f.t for f in frames]
        series: dict[int, tuple[list[float], list[float]]] = {}
        for req in group:
            if req.seat not in series:
                region = regions[req.seat]
                if zone_model:
                    crops = [seat_crop(f.image, region) for f in frames]
                    feats = appearance_batch(crops, [region] * len(crops), zone_model)
                    p = [f.get("app_zone_vote", 0.0) + f.get("app_zone_wrong", 0.0) for f in feats]
                else:
                    p = [0.0] * len(frames)
                box = window_box("zone", region)
                grays = [_zone_gray(f.image, box) for f in frames]
                diffs = [0.0] + [float(np.mean(np.abs(grays[k] - grays[k - 1]))) for k in range(1, len(grays))]
                series[req.seat] = (p, diffs)
            p, diffs = series[req.seat]
            # only this sighting's stretch: another fist of the seat may stand nearby
            before, after = LOOK[req.edge]
            sel = [k for k, t in enumerate(times) if req.t_seen - before - 1e-9 <= t <= req.t_seen + after]
            found = ESTIMATORS[req.edge]([times[k] for k in sel], [p[k] for k in sel], [diffs[k] for k in sel])
            if found is not None:
                seen_at, edge_t, how = found
                out.append(FistEdge(req.seat, req.t_seen, seen_at, edge_t, how, req.edge))
    return out, decoded, warnings


__all__ = ["FistEdge", "EdgeRequest", "landing_from_series", "lift_from_series", "measure_landings",
           "LANDING_FPS", "MIN_DESCENT", "MAX_DESCENT", "MIN_RISE", "MAX_RISE"]

"""Seat-window descriptors at chosen times, cut exactly as the extraction cuts them.

`mafvar learn` turns the judges' decisions into examples: a seat, a time and
a window (head, table zone, body) with what the judge said was there. The
descriptors must be the ones the windows classify during an analysis, so the
frames are decoded at the calibration's size (vision.schedule.analysis_side)
and cut by the same seat crop and window boxes (vision.appearance).

Times close together are read in one decode at the file's own frame rate
(each time gets the frame on screen then), far ones each by a seek.

For learning, a window may also be read in `variants`: the same frame with
its box shifted and scaled a little and its light changed, the small
differences the venue's next game brings (a player sitting a little off,
another skin or sleeve tone). A zone window fine-tuned on one game's
judged cells read the next game's 94.4% and 91.4% right without them,
97.2% and 96.7% with (venue pairs 7101/7102 and 7111/7112).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from vision.appearance import PATCH, describe, patch, window_box, window_descriptor
from vision.calibration import Box, Calibration, SeatRegion
from vision.crops import DEFAULT_LONG_SIDE, seat_crop
from vision.schedule import analysis_side, scale_region
from vision.video import VideoError, open_video, output_size

Want = tuple[float, int, str]    # (video seconds, seat, window)
CLUSTER_GAP = 1.5                # seconds: times closer than this are decoded in one read
# (dx, dy, scale) of the window box, as shares of its size; then gains of the patch's light
SHIFTS = ((0.0, 0.0, 1.0), (0.05, 0.0, 1.0), (-0.05, 0.0, 1.0), (0.0, 0.05, 1.0), (0.0, -0.05, 1.0),
          (0.0, 0.0, 0.93), (0.0, 0.0, 1.07))
GAINS = (1.0, 0.8, 1.25)


def shifted(box: Box, dx: float, dy: float, scale: float) -> Box:
    w, h = box[2] - box[0], box[3] - box[1]
    cx, cy = (box[0] + box[2]) / 2 + dx * w, (box[1] + box[3]) / 2 + dy * h
    return (cx - scale * w / 2, cy - scale * h / 2, cx + scale * w / 2, cy + scale * h / 2)


def variant_descriptors(kind: str, crop, region: SeatRegion) -> np.ndarray:
    """(len(SHIFTS) * len(GAINS), features): the window's descriptor under every shift and
    gain; row 0 is the unchanged one (`window_descriptor`)."""
    box = window_box(kind, region)
    rows = []
    for dx, dy, sc in SHIFTS:
        p = patch(crop, shifted(box, dx, dy, sc), PATCH[kind])
        for g in GAINS:
            rows.append(describe(p if g == 1.0 else np.clip(p.astype(np.float32) * g, 0, 255).astype(np.uint8)))
    return np.stack(rows)


def clusters(times: Iterable[float], gap: float = CLUSTER_GAP) -> list[list[float]]:
    """Sorted distinct times grouped where consecutive ones are at most `gap` apart."""
    out: list[list[float]] = []
    for t in sorted(set(times)):
        if out and t - out[-1][-1] <= gap:
            out[-1].append(t)
        else:
            out.append([t])
    return out


def window_descriptors(video_path: str | Path, calibration: Calibration, cam: str, wants: Sequence[Want],
                       long_side: int = DEFAULT_LONG_SIDE,
                       variants: Iterable[str] = ()) -> tuple[dict[Want, np.ndarray], list[str]]:
    """The descriptor of every wanted (t, seat, window) the file can give, and
    warnings naming the stretches it could not. Windows named in `variants`
    give a 2-D array (`variant_descriptors`, the unchanged descriptor first)."""
    varied = set(variants)
    video = open_video(video_path)
    camera = calibration.camera(cam)
    side = analysis_side(video.info, camera)
    out_w, out_h = output_size(video.info.size, side)
    sx, sy = out_w / camera.width, out_h / camera.height
    regions = {seat: r if (sx, sy) == (1.0, 1.0) else scale_region(r, sx, sy) for seat, r in camera.seats.items()}
    by_time: dict[float, list[Want]] = {}
    for w in wants:
        by_time.setdefault(w[0], []).append(w)
    fps = max(float(video.info.fps or 25.0), 1.0)
    found: dict[Want, np.ndarray] = {}
    warnings: list[str] = []
    for group in clusters(by_time):
        try:
            frames = video.read_range(group[0], group[-1] + 0.5 / fps, fps, max_side=side)
        except VideoError as exc:
            frames = list(getattr(exc, "partial", None) or [])
            warnings.append(f"{video_path}: frames at {group[0]:.1f}-{group[-1]:.1f} s unreadable ({exc})")
        if not frames:
            continue
        stamps = np.array([f.t for f in frames])
        for t in group:
            k = int(np.argmin(np.abs(stamps - t)))
            if abs(stamps[k] - t) > 1.0 / fps:
                continue
            crops: dict[int, object] = {}
            for want in by_time[t]:
                _, seat, kind = want
                region = regions.get(seat)
                if region is None:
                    continue
                if seat not in crops:
                    crops[seat] = seat_crop(frames[k].image, region, long_side)
                crop = crops[seat]
                found[want] = variant_descriptors(kind, crop, region) if kind in varied \
                    else window_descriptor(kind, crop, region)  # type: ignore[arg-type]
    return found, warnings


__all__ = ["Want", "CLUSTER_GAP", "SHIFTS", "GAINS", "shifted", "variant_descriptors", "clusters", "window_descriptors"]

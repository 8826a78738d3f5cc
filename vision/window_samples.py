"""Seat-window descriptors at chosen times, cut exactly as the extraction cuts them.

`mafvar learn` turns the judges' decisions into examples: a seat, a time and
a window (head, table zone, body) with what the judge said was there. The
descriptors must be the ones the windows classify during an analysis, so the
frames are decoded at the calibration's size (vision.schedule.analysis_side)
and cut by the same seat crop and window boxes (vision.appearance).

Times close together are read in one decode at the file's own frame rate
(each time gets the frame on screen then), far ones each by a seek.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from vision.appearance import window_descriptor
from vision.calibration import Calibration
from vision.crops import DEFAULT_LONG_SIDE, seat_crop
from vision.schedule import analysis_side, scale_region
from vision.video import VideoError, open_video, output_size

Want = tuple[float, int, str]    # (video seconds, seat, window)
CLUSTER_GAP = 1.5                # seconds: times closer than this are decoded in one read


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
                       long_side: int = DEFAULT_LONG_SIDE) -> tuple[dict[Want, np.ndarray], list[str]]:
    """The descriptor of every wanted (t, seat, window) the file can give, and
    warnings naming the stretches it could not."""
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
                found[want] = window_descriptor(kind, crops[seat], region)  # type: ignore[arg-type]
    return found, warnings


__all__ = ["Want", "CLUSTER_GAP", "clusters", "window_descriptors"]

"""Exact video frames for the incident view: decode frame N, crop a seat, draw boxes.

OpenCV seeks to frame N by decoding forward from the previous keyframe, so
the frame shown is exactly the one at index N (tests check it on a video that
carries its own frame number). Frames are RGB uint8 arrays.
"""
from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import cv2
import numpy as np

Box = tuple[int, int, int, int]  # x, y, w, h in pixels


class FrameError(Exception):
    """A video or frame that cannot be read; the message names the file."""


@dataclass(frozen=True)
class VideoMeta:
    fps: float
    frame_count: int
    width: int
    height: int

    @property
    def duration(self) -> float:
        return self.frame_count / self.fps if self.fps else 0.0

    def index_at(self, t: float) -> int:
        """The frame showing video time t (frame i covers [i/fps, (i+1)/fps))."""
        return min(max(int(round(t * self.fps, 6)), 0), max(self.frame_count - 1, 0))

    def time_of(self, index: int) -> float:
        return index / self.fps if self.fps else 0.0


def video_meta(path: str | Path) -> VideoMeta:
    cap = cv2.VideoCapture(str(path))
    try:
        if not cap.isOpened():
            raise FrameError(f"cannot open video {path}")
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        w = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
        h = int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
    finally:
        cap.release()
    if fps <= 0 or n <= 0:
        raise FrameError(f"{path}: no frame rate or frame count in the file")
    return VideoMeta(fps, n, w, h)


def read_frame(path: str | Path, index: int) -> np.ndarray:
    cap = cv2.VideoCapture(str(path))
    try:
        if not cap.isOpened():
            raise FrameError(f"cannot open video {path}")
        cap.set(cv2.CAP_PROP_POS_FRAMES, int(index))
        ok, bgr = cap.read()
    finally:
        cap.release()
    if not ok or bgr is None:
        raise FrameError(f"{path}: frame {index} could not be decoded")
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def crop(frame: np.ndarray, box: Box, zoom: float = 3.0, margin: float = 0.15) -> np.ndarray:
    """The seat's region with a small margin, enlarged `zoom` times."""
    x, y, w, h = box
    mx, my = int(w * margin), int(h * margin)
    H, W = frame.shape[:2]
    x0, y0 = max(0, x - mx), max(0, y - my)
    x1, y1 = min(W, x + w + mx), min(H, y + h + my)
    if x1 <= x0 or y1 <= y0:
        raise FrameError(f"seat box {box} lies outside the {W}x{H} frame")
    part = frame[y0:y1, x0:x1]
    return cv2.resize(part, (int((x1 - x0) * zoom), int((y1 - y0) * zoom)),
                      interpolation=cv2.INTER_CUBIC)


def draw_seats(frame: np.ndarray, boxes: Mapping[int, Box],
               highlight: Sequence[int] = (), invalid: Sequence[int] = ()) -> np.ndarray:
    """Seat boxes numbered; highlighted seats in yellow, invalid ones in red."""
    out = frame.copy()
    scale = max(out.shape[1] / 1280, 0.5)
    for seat, (x, y, w, h) in sorted(boxes.items()):
        colour = (255, 60, 60) if seat in invalid else (255, 220, 0) if seat in highlight else (0, 200, 255)
        thick = max(2, int(3 * scale))
        cv2.rectangle(out, (x, y), (x + w, y + h), colour, thick)
        label = str(seat)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 1.0 * scale, thick)
        cv2.rectangle(out, (x, y), (x + tw + 8, y + th + 10), colour, -1)
        cv2.putText(out, label, (x + 4, y + th + 5), cv2.FONT_HERSHEY_SIMPLEX, 1.0 * scale,
                    (0, 0, 0), thick)
    return out


def cut_clip(video: str | Path, t0: float, t1: float, cache_dir: Path | None = None) -> Path:
    """A browser-playable H.264 clip of [t0, t1], cached outside the game folder.

    Never written into the workspace: the app must not create or alter
    files the analysis owns.
    """
    video = Path(video)
    cache = cache_dir or Path(tempfile.gettempdir()) / "mafvar-app-clips"
    cache.mkdir(parents=True, exist_ok=True)
    st = video.stat()
    key = hashlib.sha1(f"{video.resolve()}|{st.st_size}|{st.st_mtime}|{t0:.3f}|{t1:.3f}".encode()).hexdigest()[:16]
    out = cache / f"{key}.mp4"
    if out.is_file() and out.stat().st_size > 0:
        return out
    from review.clips import cut_clip as encode_clip
    try:
        return encode_clip(video, out, t0, t1)
    except RuntimeError as exc:
        raise FrameError(f"could not cut a clip from {video}: {exc}") from None


def draw_head_grid(frame: np.ndarray, heads: Mapping[int, tuple[float, float]], step: int = 50) -> np.ndarray:
    """The frame with a pixel grid (a line every `step` px, labelled every two) and
    the heads placed so far, numbered: what a person reads a head's x, y from."""
    out = frame.copy()
    h, w = out.shape[:2]
    scale = max(w / 1280, 0.5)
    for x in range(0, w, step):
        strong = x % (2 * step) == 0
        cv2.line(out, (x, 0), (x, h - 1), (255, 255, 255) if strong else (160, 160, 160), 1)
        if strong:
            cv2.putText(out, str(x), (x + 2, int(14 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale,
                        (255, 255, 0), 1)
    for y in range(0, h, step):
        strong = y % (2 * step) == 0
        cv2.line(out, (0, y), (w - 1, y), (255, 255, 255) if strong else (160, 160, 160), 1)
        if strong and y:
            cv2.putText(out, str(y), (2, y - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale, (255, 255, 0), 1)
    for seat, (hx, hy) in sorted(heads.items()):
        c = (int(round(hx)), int(round(hy)))
        cv2.drawMarker(out, c, (255, 60, 60), cv2.MARKER_CROSS, int(18 * scale), 2)
        cv2.putText(out, str(seat), (c[0] + 6, c[1] - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (255, 60, 60), 2)
    return out

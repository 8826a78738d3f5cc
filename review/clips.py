"""Evidence for each incident: a browser-playable clip, a zoomed seat clip, stills.

Clips are H.264 (yuv420p, faststart) cut by the FFmpeg binary that ships with
imageio-ffmpeg, with pre- and post-roll; the zoomed clip crops the seat region
of the incident's first seat. Stills are the full frame and the seat crop at
the key moments (start, middle, end), with the stored landmarks drawn on the
crop. Everything goes under analysis/clips/ and is re-creatable.
"""
from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

import cv2

from vision.calibration import Calibration
from vision.crops import seat_box
from vision.drawing import draw_landmarks
from vision.video import ffmpeg_exe, open_video

from .incidents import Evidence, EvidenceKind, Incident
from .workspace import GameWorkspace

PRE_ROLL = 2.0
POST_ROLL = 2.0
ZOOM_SIDE = 480

# MediaPipe hand and pose connections, enough to read a gesture at a glance.
def _even(v: float) -> int:
    return max(2, int(round(v)) // 2 * 2)


def cut_clip(video: Path, out: Path, t0: float, t1: float, crop: tuple[float, float, float, float] | None = None,
             size: int | None = None) -> Path:
    """Encode [t0, t1] (optionally a cropped, scaled region) as browser-playable H.264."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part.mp4")
    vf = []
    if crop is not None:
        x0, y0, x1, y1 = crop
        vf.append(f"crop={_even(x1 - x0)}:{_even(y1 - y0)}:{int(x0)}:{int(y0)}")
        if size:
            vf.append(f"scale={size}:-2")
    vf.append("format=yuv420p")
    cmd = [ffmpeg_exe(), "-v", "error", "-y", "-ss", f"{max(0.0, t0):.3f}", "-i", str(video),
           "-t", f"{max(0.1, t1 - t0):.3f}", "-an", "-vf", ",".join(vf), "-c:v", "libx264",
           "-preset", "veryfast", "-crf", "26", "-movflags", "+faststart", str(tmp)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not tmp.exists():
        raise RuntimeError(f"clip {out.name}: ffmpeg failed: {proc.stderr.strip()[-300:]}")
    tmp.replace(out)
    return out


def _nearest_landmarks(db, seat: int, t: float, cam: str):
    rows = db.seat_landmarks(seat, t - 0.25, t + 0.25, cam=cam)
    return min(rows, key=lambda r: abs(r.t - t)) if rows else None


def attach_evidence(ws: GameWorkspace, video: Path, calibration: Calibration, cam: str,
                    incidents: Sequence[Incident], progress: Callable[[str, float, str], None] | None = None,
                    max_clips: int = 200) -> list[Incident]:
    """Write clips and stills for each timed incident; return incidents with evidence paths.

    Existing files are reused (ids are stable), so a re-run only encodes what is new."""
    from vision.store import ObservationStore
    say = progress or (lambda *a: None)
    src = open_video(video)
    W = src.info.width
    cam_cal = calibration.camera(cam)
    # seat regions and stored landmarks are in the calibration's pixels; the
    # recording may be larger (it was analysed downscaled to them)
    k = W / cam_cal.width
    out: list[Incident] = []
    obs_path = ws.observations_path
    db = ObservationStore(obs_path) if obs_path.exists() else None
    timed = [i for i in incidents if i.t0 is not None]
    try:
        for n, inc in enumerate(incidents):
            if inc.t0 is None or n >= max_clips:
                out.append(inc)
                continue
            say("clips", n / max(1, len(timed)), inc.id)
            t0, t1 = inc.t0, inc.t1 if inc.t1 is not None else inc.t0
            base = ws.clips_dir / inc.id
            ev: list[Evidence] = []
            rel = lambda p: p.relative_to(ws.root).as_posix()
            clip = base.with_name(inc.id + ".mp4")
            if not clip.exists():
                cut_clip(video, clip, t0 - PRE_ROLL, t1 + POST_ROLL)
            ev.append(Evidence(EvidenceKind.CLIP, rel(clip), t0))
            seat = inc.seats[0] if inc.seats else None
            region = calibration.camera(cam).seats.get(seat) if seat is not None else None
            box = (None if region is None else
                   tuple(v * k for v in seat_box(region, (cam_cal.width, cam_cal.height), margin=0.15)))
            if box is not None:
                zoom = base.with_name(inc.id + ".seat.mp4")
                if not zoom.exists():
                    cut_clip(video, zoom, t0 - PRE_ROLL, t1 + POST_ROLL, crop=box, size=ZOOM_SIDE)
                ev.append(Evidence(EvidenceKind.CLIP, rel(zoom), t0))
            keys = sorted({round(t0, 2), round((t0 + t1) / 2, 2), round(t1, 2)})
            frames = src.read_at(keys)
            for fr in frames:
                still = base.with_name(f"{inc.id}.{fr.t:.2f}.jpg")
                if not still.exists():
                    cv2.imwrite(str(still), cv2.cvtColor(fr.image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
                ev.append(Evidence(EvidenceKind.FRAME, rel(still), fr.t))
                if box is not None:
                    crop_path = base.with_name(f"{inc.id}.{fr.t:.2f}.seat.jpg")
                    if not crop_path.exists():
                        x0, y0, x1, y1 = (int(v) for v in box)
                        scale = ZOOM_SIDE / max(1, x1 - x0)
                        img = cv2.resize(fr.image[y0:y1, x0:x1], None, fx=scale, fy=scale)
                        lm = _nearest_landmarks(db, seat, fr.t, cam) if db is not None else None
                        img = draw_landmarks(img, lm, (x0 / k, y0 / k), scale * k)
                        cv2.imwrite(str(crop_path), cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
                    ev.append(Evidence(EvidenceKind.CROP, rel(crop_path), fr.t))
            out.append(replace(inc, evidence=tuple(ev)))
    finally:
        if db is not None:
            db.close()
    _remove_stale(ws.clips_dir, {i.id for i in incidents})
    return out


def _remove_stale(clips_dir: Path, current: set[str]) -> None:
    """Evidence of incidents a re-run no longer finds (derived files only)."""
    for f in clips_dir.iterdir():
        if f.is_file() and f.name.split(".", 1)[0] not in current:
            f.unlink()

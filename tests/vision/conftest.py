"""Real test videos made by the imageio-ffmpeg binary.

Frames are "bit-coded": the frame number N is written as 10 black/white
vertical bars (bar i white when bit i of N is set), which survives lossy
codecs, so a test can tell exactly which source frame it got.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from vision.video import ffmpeg_exe

W, H, FPS, SECONDS = 320, 240, 25, 8
# Real hand photos, read in place (never copied): ../shared beside the repo.
DIGITS = Path(__file__).resolve().parents[3] / "shared" / "data" / "hands" / "sign-digits"
BITS = 10


def frame_code(img: np.ndarray) -> int:
    """The frame number written into a bit-coded frame (bars along x)."""
    g = img.mean(axis=2)
    w = g.shape[1]
    return sum(1 << i for i in range(BITS) if g[:, int((i + 0.5) * w / BITS)].mean() > 128)


def coded_frames(n: int) -> bytes:
    """n grey frames; frame k shows the bits of k as bars."""
    bar = (np.arange(W) * BITS // W)[None, :]
    k = np.arange(n)[:, None]
    rows = ((k >> bar) & 1).astype(np.uint8) * 255           # (n, W)
    return np.repeat(rows[:, None, :], H, axis=1).tobytes()


def ffmpeg(*args: str, stdin: bytes | None = None) -> None:
    proc = subprocess.run([ffmpeg_exe(), "-hide_banner", "-v", "error", "-y", *args],
                          capture_output=True, input=stdin)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")


def has_encoder(name: str) -> bool:
    out = subprocess.run([ffmpeg_exe(), "-hide_banner", "-encoders"],
                         capture_output=True, text=True).stdout
    return f" {name} " in out


def bit_coded(path: Path, vcodec: list[str], seconds: int = SECONDS, fps: int = FPS,
              extra: list[str] = (), audio: bool = False) -> Path:
    args = ["-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{W}x{H}", "-r", str(fps), "-i", "-"]
    if audio:
        args += ["-f", "lavfi", "-i", f"sine=frequency=1000:sample_rate=48000:duration={seconds}"]
    pix = [] if "-pix_fmt" in vcodec else ["-pix_fmt", "yuv420p"]
    ffmpeg(*args, *vcodec, *pix, *(["-c:a", "aac"] if audio else []), *extra, str(path),
           stdin=coded_frames(seconds * fps))
    return path


@pytest.fixture(scope="session")
def media(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("media")
    m: dict[str, Path] = {}
    m["h264"] = bit_coded(d / "h264.mp4", ["-c:v", "libx264", "-g", "25"])
    m["mjpeg"] = bit_coded(d / "mjpeg.avi", ["-c:v", "mjpeg", "-q:v", "3", "-pix_fmt", "yuvj420p"])
    if has_encoder("libvpx-vp9"):
        m["vp9"] = bit_coded(d / "vp9.mkv", ["-c:v", "libvpx-vp9", "-g", "25", "-b:v", "300k",
                                             "-deadline", "realtime", "-cpu-used", "8"])
    if has_encoder("libx265"):
        m["h265"] = bit_coded(d / "h265.mov", ["-c:v", "libx265", "-x265-params",
                                               "log-level=none:keyint=25", "-tag:v", "hvc1"])
    m["audio"] = bit_coded(d / "audio.mp4", ["-c:v", "libx264", "-g", "25"], audio=True)
    m["ts"] = d / "h264.ts"   # MPEG-TS: starts at 1.4 s, seeks by byte position
    ffmpeg("-i", str(m["h264"]), "-c", "copy", str(m["ts"]))
    m["rot"] = d / "rot.mp4"
    ffmpeg("-display_rotation", "90", "-i", str(m["h264"]), "-c", "copy", str(m["rot"]))
    # VFR: frames 0-49 every 1/25 s, then every 1/10 s (frame N at 2 + (N-50)/10).
    m["vfr"] = d / "vfr.mkv"
    ffmpeg("-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{W}x{H}", "-r", "25", "-i", "-",
           "-vf", "setpts='if(lt(N,50),N/25,2+(N-50)/10)/TB'", "-pix_fmt", "yuv420p",
           "-fps_mode", "vfr", "-c:v", "libx264", "-g", "25", str(m["vfr"]),
           stdin=coded_frames(150))
    # Truncated: a streamable mkv cut in half (its header still says 8 s).
    whole = bit_coded(d / "whole.mkv", ["-c:v", "libx264", "-g", "25"])
    data = whole.read_bytes()
    m["truncated"] = d / "truncated.mkv"
    m["truncated"].write_bytes(data[: len(data) // 2])
    m["corrupt"] = d / "corrupt.mp4"
    m["corrupt"].write_bytes(np.random.default_rng(1).integers(0, 256, 200_000, np.uint8).tobytes())
    return m

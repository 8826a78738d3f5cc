"""End to end: a 5-second clip rendered through the renderer and FFmpeg."""
from __future__ import annotations

import json
import re
import subprocess

import numpy as np
import pytest

from mafvar.cli import main


def _ffmpeg():
    import imageio_ffmpeg
    return imageio_ffmpeg.get_ffmpeg_exe()


def _frame(path, t, w, h):
    raw = subprocess.run([_ffmpeg(), "-loglevel", "error", "-ss", str(t), "-i", str(path), "-frames:v", "1",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3).astype(np.float32)


@pytest.mark.slow
def test_render_five_second_clip(tmp_path, capsys):
    try:
        from sample_videos.render.renderer import create_context
        create_context().release()
    except Exception as exc:  # no EGL / renderer on this machine
        pytest.skip(f"renderer not available: {exc}")
    out = tmp_path / "clip"
    rc = main(["synth", "--seed", "7", "--out", str(out), "--clip", "5", "--resolution", "320x180"])
    printed = capsys.readouterr().out
    assert rc == 0
    assert re.search(r"[0-9.]+ s per video second", printed)
    video = out / "video.mp4"
    info = subprocess.run([_ffmpeg(), "-hide_banner", "-i", str(video)], capture_output=True, text=True).stderr
    assert re.search(r"Video: h264.*320x180.*25 fps", info)
    assert "Audio: aac" in info
    h, m, s = re.search(r"Duration: (\d+):(\d+):([\d.]+)", info).groups()
    assert abs(int(h) * 3600 + int(m) * 60 + float(s) - 5.0) < 0.2
    # Night falls at about 2 s: seats change between the day frame and the
    # masked night frame, inside their calibrated regions.
    truth = json.loads((out / "truth.json").read_text())
    nightfall = truth["phases"]["nights"][0]["nightfall"]
    assert nightfall < 3.0
    day, night = _frame(video, 0.5, 320, 180), _frame(video, nightfall + 2.5, 320, 180)
    cal = json.loads((out / "calibration.json").read_text())["cameras"]["cam1"]["seats"]
    changed = 0
    for seat in cal.values():
        x0, y0, x1, y1 = seat["body"]
        diff = np.abs(day[y0:y1, x0:x1] - night[y0:y1, x0:x1]).mean()
        changed += diff > 2.0
    assert changed >= 8

"""The video writer: decodable H.264 with the right frame count and an audio stream."""
from __future__ import annotations

import subprocess
import wave

import cv2
import numpy as np
import pytest

from sample_videos.acting.script import SeatScript, event
from sample_videos.render.renderer import _ffmpeg, render_video
from sample_videos.render.scene import build_scene

pytestmark = pytest.mark.slow


def test_video_has_frames_and_audio(gl_available, tmp_path):
    scene = build_scene(seed=2, width=640, height=360)
    scripts = {1: SeatScript(1, (event(0.1, "raise_hand", fingers=2),))}
    wav = tmp_path / "a.wav"
    sr = 16000
    tone = (0.3 * np.sin(2 * np.pi * 440 * np.arange(int(sr * 0.5)) / sr) * 32767).astype(np.int16)
    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes(tone.tobytes())  # shorter than the video: padded with silence
    out = tmp_path / "v.mp4"
    stats = render_video(scene, scripts, 0.8, out, fps=25, audio=wav, workers=2, chunk=5)
    assert stats["frames"] == 20
    cap = cv2.VideoCapture(str(out))
    n, frames = 0, []
    while True:
        ok, fr = cap.read()
        if not ok:
            break
        n += 1
        frames.append(fr)
    assert n == 20
    assert frames[0].shape == (360, 640, 3)
    assert np.abs(frames[-1].astype(int) - frames[0]).mean() > 0.3   # the hand went up
    info = subprocess.run([_ffmpeg(), "-hide_banner", "-i", str(out)], capture_output=True, text=True).stderr
    assert "Video: h264" in info and "yuv420p" in info and "25 fps" in info
    assert "Audio: aac" in info


def test_a_render_stopped_part_way_leaves_no_video_and_keeps_the_one_before(gl_available, tmp_path):
    # a stopped render had left a video.mp4 whose header promised the whole game
    # (its audio padded to it) over the frames it got: a game that looked rendered
    scene = build_scene(seed=2, width=320, height=180)
    out = tmp_path / "video.mp4"
    out.write_bytes(b"the one before")

    def stop(done: int, total: int) -> None:
        if done >= 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        render_video(scene, {}, 0.8, out, fps=25, workers=1, chunk=5, progress=stop)
    assert out.read_bytes() == b"the one before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["video.mp4"]

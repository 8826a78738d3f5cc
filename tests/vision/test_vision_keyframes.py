"""Key-frame-only reading (`iter_keyframes`, `keyframe_interval`) on real files
written by FFmpeg: bit-coded frames (see conftest.py) so each returned image
can be checked against its time, with key frames at fixed intervals."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import FPS, SECONDS, H, W, bit_coded, ffmpeg, frame_code, has_encoder

from vision.video import VideoError, open_video

X264 = ["-c:v", "libx264", "-sc_threshold", "0", "-bf", "2"]


@pytest.fixture(scope="module")
def kmedia(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("keyframes")
    m = {}
    m["g25"] = bit_coded(d / "g25.mp4", [*X264, "-g", "25", "-keyint_min", "25"])   # key every 1 s
    m["g50"] = bit_coded(d / "g50.mp4", [*X264, "-g", "50", "-keyint_min", "50"])   # key every 2 s
    m["mjpeg"] = bit_coded(d / "mjpeg.avi", ["-c:v", "mjpeg", "-q:v", "3", "-pix_fmt", "yuvj420p"])
    if has_encoder("libvpx-vp9"):
        m["vp9"] = bit_coded(d / "vp9.mkv", ["-c:v", "libvpx-vp9", "-g", "25", "-keyint_min", "25",
                                             "-b:v", "300k", "-deadline", "realtime",
                                             "-cpu-used", "8"])
    m["ts"] = d / "g25.ts"          # MPEG-TS: starts at 1.4 s, seeks by byte position
    ffmpeg("-i", str(m["g25"]), "-c", "copy", str(m["ts"]))
    m["rot"] = d / "rot.mp4"
    ffmpeg("-display_rotation", "90", "-i", str(m["g25"]), "-c", "copy", str(m["rot"]))
    whole = bit_coded(d / "whole.mkv", [*X264, "-g", "25", "-keyint_min", "25"])
    data = whole.read_bytes()
    m["truncated"] = d / "truncated.mkv"
    m["truncated"].write_bytes(data[: len(data) // 2])
    return m


def _times(frames):
    return [f.t for f in frames]


@pytest.mark.parametrize("key,gap", [("g25", 1), ("g50", 2), ("ts", 1), ("vp9", 1)])
def test_times_are_the_key_frames_own_times(kmedia, key, gap):
    if key not in kmedia:
        pytest.skip(f"this FFmpeg build cannot encode {key}")
    v = open_video(kmedia[key])
    frames = v.read_keyframes(0.0, SECONDS)
    expected = list(range(0, SECONDS, gap))
    if key == "vp9":
        # libvpx also places key frames of its own at big changes (frame 32,
        # 64, ...: many bars flip), whatever -g/-keyint_min say.
        got = _times(frames)
        assert all(min(abs(t - e) for t in got) < 1e-3 for e in expected)
        assert all(abs(t * FPS - round(t * FPS)) < 1e-3 for t in got)
        thinned = _times(v.read_keyframes(0.0, SECONDS, 1.0))
        assert all(b - a >= 1.0 - 1e-3 for a, b in zip(thinned, thinned[1:]))
        assert thinned[0] == pytest.approx(0.0, abs=1e-3)
    else:
        assert _times(frames) == pytest.approx(expected, abs=1e-3)
    for f in frames:  # the image is the frame shown at that time
        assert frame_code(f.image) == round(f.t * FPS)
        assert f.image.shape == (H, W, 3) and f.image.dtype == np.uint8


def test_range_is_half_open_and_thinned_by_min_gap(kmedia):
    v = open_video(kmedia["g25"])
    assert _times(v.read_keyframes(2.0, 5.0)) == pytest.approx([2, 3, 4], abs=1e-3)
    assert _times(v.read_keyframes(2.5, 6.0)) == pytest.approx([3, 4, 5], abs=1e-3)
    # Exactly min_gap apart is kept ("at least min_gap after the last kept").
    assert _times(v.read_keyframes(0.0, SECONDS, 2.0)) == pytest.approx([0, 2, 4, 6], abs=1e-3)
    assert _times(v.read_keyframes(0.0, SECONDS, 1.5)) == pytest.approx([0, 2, 4, 6], abs=1e-3)
    assert _times(v.read_keyframes(1.0, SECONDS, 2.5)) == pytest.approx([1, 4, 7], abs=1e-3)
    assert _times(v.read_keyframes(0.5, 20.0, 0.0)) == pytest.approx([1, 2, 3, 4, 5, 6, 7], abs=1e-3)
    assert v.read_keyframes(3.2, 3.9) == []   # no key frame inside
    assert v.read_keyframes(5.0, 5.0) == []
    with pytest.raises(ValueError):
        v.read_keyframes(0, 1, -1)


def test_frames_equal_iter_range_at_the_same_times(kmedia):
    for key, max_side in [("g25", None), ("g50", 160), ("rot", None), ("rot", 100)]:
        v = open_video(kmedia[key])
        kf = v.read_keyframes(0.0, SECONDS, 0.0, max_side=max_side)
        assert kf
        for f in kf:
            ref = v.read_range(f.t, f.t + 1e-3, FPS, max_side=max_side)[0]
            assert ref.image.shape == f.image.shape
            assert np.abs(ref.image.astype(int) - f.image).mean() < 1.0, (key, f.t)
    rot = open_video(kmedia["rot"]).read_keyframes(3.0, 3.5)[0].image
    assert rot.shape == (W, H, 3)            # upright: displayed size
    assert frame_code(np.rot90(rot, -1)) == 75
    small = open_video(kmedia["g25"]).read_keyframes(0, 1, max_side=160)[0].image
    assert small.shape == (120, 160, 3)


def test_only_key_frames_are_decoded(kmedia):
    v = open_video(kmedia["g25"])          # 200 frames, 8 key frames
    frames = v.read_keyframes(0.0, SECONDS, 2.0)
    assert len(frames) == 4
    assert v.stats.processes == 1 and v.stats.frames_returned == 4
    assert 8 <= v.stats.frames_decoded <= 8
    part = open_video(kmedia["g50"])       # 200 frames, key frames at 0, 2, 4, 6 s
    assert _times(part.read_keyframes(1.0, 3.0)) == pytest.approx([2.0], abs=1e-3)
    # From the key frame before 1.0 s to just past the end: a few, not 50+.
    assert part.stats.processes == 1 and 1 <= part.stats.frames_decoded <= 4


def test_stopping_early_ends_ffmpeg_and_records_stats(kmedia):
    v = open_video(kmedia["g25"])
    it = v.iter_keyframes(0.0, SECONDS)
    first = next(it)
    it.close()
    assert first.t == pytest.approx(0.0, abs=1e-3)
    assert v.stats.processes == 1 and v.stats.frames_returned == 1


@pytest.mark.parametrize("key,expected", [("g25", 1.0), ("g50", 2.0), ("mjpeg", 1 / FPS),
                                          ("ts", 1.0), ("vp9", None)])
def test_keyframe_interval(kmedia, key, expected):
    if key not in kmedia:
        pytest.skip(f"this FFmpeg build cannot encode {key}")
    v = open_video(kmedia[key])
    if expected is None:  # irregular key frames (vp9): the median of the gaps
        expected = float(np.median(np.diff(_times(open_video(kmedia[key]).read_keyframes(0, 20)))))
    assert v.keyframe_interval() == pytest.approx(expected, abs=1e-3)
    cost = v.stats.processes
    assert cost == 1
    assert v.keyframe_interval() == pytest.approx(expected, abs=1e-3)
    assert v.stats.processes == cost          # cached on the instance
    if key == "g25":
        assert v.stats.frames_decoded == SECONDS   # key frames only


def test_keyframe_interval_none_with_a_single_key_frame(tmp_path):
    path = bit_coded(tmp_path / "one.mp4", [*X264, "-g", "250"], seconds=3)
    assert open_video(path).keyframe_interval() is None


def test_truncated_file_raises_with_partial_frames(kmedia):
    v = open_video(kmedia["truncated"])
    assert v.info.duration == pytest.approx(SECONDS, abs=0.05)  # header intact
    with pytest.raises(VideoError) as exc:
        v.read_keyframes(0.0, SECONDS)
    err = exc.value
    assert str(kmedia["truncated"]) in str(err) and "last readable time" in str(err)
    assert err.partial, "frames read before the damage must be kept"
    assert 1.0 <= err.last_time < SECONDS - 1
    assert err.last_time == pytest.approx(err.partial[-1].t)
    for f in err.partial:
        assert frame_code(f.image) == round(f.t * FPS)
    seen = []
    with pytest.raises(VideoError):
        for f in v.iter_keyframes(0.0, SECONDS, 1.0):
            seen.append(f.t)
    assert seen == _times(err.partial)
    # The intact part reads without error.
    assert _times(v.read_keyframes(0.0, 2.5)) == pytest.approx([0, 1, 2], abs=1e-3)

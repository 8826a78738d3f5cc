"""Video access on real files written by FFmpeg (see conftest.py)."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import FPS, SECONDS, W, H, frame_code

from vision.video import TimeRange, VideoError, open_video

CODECS = ["h264", "mjpeg", "vp9", "h265", "ts"]


def _needs(media, key):
    if key not in media:
        pytest.skip(f"this FFmpeg build cannot encode {key}")
    return media[key]


@pytest.mark.parametrize("key,codec", [("h264", "h264"), ("mjpeg", "mjpeg"),
                                       ("vp9", "vp9"), ("h265", "hevc")])
def test_metadata_per_container_and_codec(media, key, codec):
    info = open_video(_needs(media, key)).info
    assert info.codec == codec
    assert (info.width, info.height) == (W, H)
    assert info.fps == pytest.approx(FPS)
    assert info.duration == pytest.approx(SECONDS, abs=0.05)
    assert info.frame_count == SECONDS * FPS
    assert info.rotation == 0 and not info.has_audio


@pytest.mark.parametrize("key", CODECS)
def test_frame_at_requested_time_is_the_one_on_screen(media, key):
    v = open_video(_needs(media, key))
    # Times on, just after and just before frame boundaries (frame k shows
    # during [k/25, (k+1)/25)); a few ranges at different sampling rates.
    for t0, t1, fps in [(0.0, 0.2, 25), (1.01, 1.6, 5), (3.039, 4.0, 3.7), (6.04, 7.99, 2)]:
        frames = v.read_range(t0, t1, fps)
        expected_times = TimeRange(t0, t1, fps).times()
        assert [f.t for f in frames] == pytest.approx(list(expected_times))
        for f in frames:
            assert frame_code(f.image) == int(np.floor(f.t * FPS + 1e-9)), (key, f.t)


def test_variable_frame_rate(media):
    v = open_video(media["vfr"])
    # Frame N is shown from N/25 (N < 50), then from 2 + (N - 50)/10.
    def shown(t):
        return int(t * 25 + 1e-9) if t < 2 else 50 + int((t - 2) * 10 + 1e-9)
    for f in v.read_range(1.5, 6.0, 4):
        assert frame_code(f.image) == shown(f.t), f.t
    assert v.count_frames() == 150
    assert v.info.duration == pytest.approx(12.0, abs=0.15)


def test_rotation_metadata_is_honoured(media):
    plain = open_video(media["h264"]).read_range(3.0, 3.01, 25)[0].image
    v = open_video(media["rot"])
    assert v.info.rotation == 90
    assert (v.info.width, v.info.height) == (H, W)
    rotated = v.read_range(3.0, 3.01, 25)[0].image
    assert rotated.shape == (W, H, 3)
    # A display matrix of +90 degrees means counter-clockwise on screen.
    assert np.abs(np.rot90(plain, 1).astype(int) - rotated).mean() < 2
    assert frame_code(np.rot90(rotated, -1)) == 75


def test_only_scheduled_frames_are_decoded(media):
    v = open_video(media["h264"])  # keyframe every 25 frames (1 s)
    frames = v.read_ranges([TimeRange(5.0, 5.4, 10), TimeRange(6.5, 6.7, 25)])
    assert [frame_code(f.image) for f in frames] == [125, 127, 130, 132, 162, 163, 164, 165, 166]
    # Decoding starts at the keyframe before each range and stops at its end:
    # at most one GOP (25) plus the range per seek, far below the 200 frames.
    assert v.stats.processes == 2
    assert v.stats.frames_returned == 9
    assert 10 + 5 <= v.stats.frames_decoded <= (25 + 10 + 2) + (25 + 5 + 2)
    single = open_video(media["h264"])
    got = single.read_at([0.5, 7.0])
    assert [frame_code(f.image) for f in got] == [12, 175]
    assert single.stats.frames_decoded <= 2 * 27


def test_downscaled_frames(media):
    v = open_video(media["h264"])
    f = v.read_range(2.0, 2.01, 25, max_side=160)[0]
    assert f.image.shape == (120, 160, 3)
    assert frame_code(f.image) == 50


def test_audio_flag_and_rate(media):
    info = open_video(media["audio"]).info
    assert info.has_audio and info.audio_codec == "aac" and info.audio_rate == 48000


def test_corrupt_file_gives_clear_error(media):
    with pytest.raises(VideoError) as exc:
        open_video(media["corrupt"])
    msg = str(exc.value)
    assert str(media["corrupt"]) in msg and "not a readable video" in msg
    assert "nothing could be read" in msg and exc.value.last_time is None


def test_missing_file_gives_clear_error(tmp_path):
    with pytest.raises(VideoError, match="file not found"):
        open_video(tmp_path / "nope.mp4")


def test_truncated_file_keeps_partial_frames(media):
    v = open_video(media["truncated"])
    assert v.info.duration == pytest.approx(SECONDS, abs=0.05)  # the header is intact
    with pytest.raises(VideoError) as exc:
        v.read_range(0.0, SECONDS, 2)
    err = exc.value
    assert str(media["truncated"]) in str(err) and "last readable time" in str(err)
    assert err.partial, "frames read before the damage must be kept"
    assert err.last_time == pytest.approx(err.partial[-1].t)
    assert 1.0 <= err.last_time < SECONDS - 1
    for f in err.partial:  # and they are the right frames
        assert frame_code(f.image) == int(f.t * FPS + 1e-9)
    # The streaming reader hands frames out before failing.
    seen = []
    with pytest.raises(VideoError):
        for f in v.iter_range(0.0, SECONDS, 2):
            seen.append(f.t)
    assert seen == [f.t for f in err.partial]


def test_pixel_format_is_read_and_decides_how_frames_are_piped():
    from vision.video import parse_probe, raw_format

    def info(stream: str):
        return parse_probe("x.mp4", "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'x.mp4':\n"
                                    "  Duration: 00:00:10.00, start: 0.000000, bitrate: 900 kb/s\n"
                                    f"  Stream #0:0[0x1](und): Video: {stream}\n")

    plain = info("h264 (High) (avc1 / 0x31637661), yuv420p(progressive), 1280x720, 1488 kb/s, 25 fps, 25 tbr")
    assert plain.pixel_format == "yuv420p(progressive)" and (plain.width, plain.height) == (1280, 720)
    assert raw_format(plain, plain.size) == "yuv420p"
    # OpenCV converts BT.601 limited range only: another matrix, full range
    # or an odd size keeps FFmpeg's own conversion
    hd = info("h264 (High), yuv420p(tv, bt709, progressive), 1920x1080, 25 fps")
    assert hd.pixel_format == "yuv420p(tv, bt709, progressive)" and raw_format(hd, hd.size) == "rgb24"
    assert raw_format(info("mjpeg, yuvj420p(pc, bt470bg/unknown/unknown), 640x480, 25 fps"), (640, 480)) == "rgb24"
    assert raw_format(info("h264, yuv422p(progressive), 640x480, 25 fps"), (640, 480)) == "rgb24"
    assert raw_format(plain, (1281, 720)) == "rgb24"
    assert raw_format(info("h264, 640x480, 25 fps"), (640, 480)) == "rgb24"   # no format named


def test_frames_piped_as_yuv_match_ffmpegs_own_rgb(media):
    """The fast path (4:2:0 piped, converted by OpenCV) gives the frames
    FFmpeg's RGB conversion gives, within a few levels, at the same times."""
    import dataclasses

    from vision.video import VideoSource, raw_format

    v = open_video(media["h264"])
    assert raw_format(v.info, v.info.size) == "yuv420p"
    slow = VideoSource(dataclasses.replace(v.info, pixel_format=""))
    assert raw_format(slow.info, slow.info.size) == "rgb24"
    asked = open_video(media["h264"], fast_rgb=False)
    assert [f.image.tobytes() for f in asked.read_range(1.0, 1.6, 5)] == [f.image.tobytes() for f in slow.read_range(1.0, 1.6, 5)]
    for read in (lambda s: s.read_range(1.0, 1.6, 5), lambda s: s.read_keyframes(0.0, 4.0)):
        fast, ref = read(v), read(slow)
        assert [f.t for f in fast] == [f.t for f in ref] and fast
        for a, b in zip(fast, ref):
            assert a.image.shape == b.image.shape and a.image.dtype == np.uint8
            d = np.abs(a.image.astype(int) - b.image.astype(int))
            assert d.mean() < 2.0 and d.max() <= 8
            assert frame_code(a.image) == frame_code(b.image)

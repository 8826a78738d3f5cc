"""Every run ends in a sentence: one line on stderr and exit 2, never a traceback.

The truncated-recording cases run the real `mafvar analyze` on real H.264
files cut at 10% and 50% of their bytes, with the index at the front (the
header survives the cut) and at the end (it does not).
"""
from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
from pathlib import Path

import imageio_ffmpeg
import pytest

from mafvar.cli import main


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_an_unexpected_error_is_one_line_and_exit_2(tmp_path, monkeypatch):
    import review.report

    def broken(game_dir):
        raise RuntimeError("the disk is on fire\nsecond line")

    monkeypatch.setattr(review.report, "write_report", broken)
    (tmp_path / "protocol.json").write_text("{}")
    code, out, err = run(["report", str(tmp_path)])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("mafvar report: error: RuntimeError: the disk is on fire second line")
    assert "run with --debug for the traceback" in err
    code, _, err = run(["report", str(tmp_path), "--debug"])  # accepted after the command too
    assert code == 2 and "Traceback (most recent call last)" in err and "broken" in err


def test_usage_errors_are_one_line(tmp_path):
    code, _, err = run(["synth", "--seed", "x", "--out", str(tmp_path)])
    assert code == 2 and err.count("\n") == 1
    assert "mafvar synth: error: argument --seed: invalid int value: 'x'" in err
    code, _, err = run(["analyze", str(tmp_path), "--workers", "9" * 5000])
    assert code == 2 and err.count("\n") == 1 and len(err) < 2100


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("games") / "synth"
    assert main(["synth", "--seed", "3", "--out", str(out), "--no-video"]) == 0
    return out


def _video(path: Path, seconds: int, faststart: bool) -> Path:
    cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y", "-f", "lavfi", "-i",
           f"testsrc2=size=1280x720:rate=25:duration={seconds}", "-c:v", "libx264",
           "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p"]
    cmd += ["-movflags", "+faststart"] if faststart else []
    subprocess.run(cmd + [str(path)], check=True)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("faststart", [True, False], ids=["index-first", "index-last"])
@pytest.mark.parametrize("fraction", [0.1, 0.5])
def test_analyze_on_a_truncated_recording_is_one_line_and_exit_2(game, tmp_path, fraction,
                                                                  faststart):
    ws = tmp_path / "ws"
    ws.mkdir()
    for f in ("protocol.json", "calibration.json"):
        shutil.copy(game / f, ws / f)
    full = _video(tmp_path / "full.mp4", 60, faststart)
    raw = full.read_bytes()
    (ws / "video.mp4").write_bytes(raw[:int(len(raw) * fraction)])
    code, out, err = run(["analyze", str(ws)])
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("mafvar analyze: error: ") and "video.mp4" in last
    assert "Traceback" not in err and "unexpected" not in err
    if faststart:
        assert "cut short or damaged" in last and "nothing was analysed" in last
    else:
        assert "not a readable video" in last
    assert not (ws / "analysis" / "incidents.json").exists()


def _still(path: Path, kind: str) -> Path:
    """A real file FFmpeg opens as a one-frame video: a PNG (named .mp4, as a
    user's mistake would name it) or an H.264 MP4 of a single frame."""
    src = ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=1"]
    out = ["-frames:v", "1"] + (["-c:v", "png", "-f", "image2"] if kind == "png" else
                                ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y", *src, *out, str(path)], check=True)
    return path


@pytest.mark.parametrize("kind,why", [("png", "a still image (png), not a video recording"),
                                      ("frame", "0.04 s long (1 frame): too short to be the recording")])
def test_a_still_image_is_refused_by_analyze_and_calibrate_with_nothing_written(game, tmp_path, kind, why):
    ws = tmp_path / "ws"
    ws.mkdir()
    shutil.copy(game / "protocol.json", ws / "protocol.json")
    _still(ws / "video.mp4", kind)
    code, _, err = run(["calibrate", str(ws)])
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("mafvar calibrate: error: ") and "video.mp4" in last and why in last, last
    assert not (ws / "calibration.json").exists()
    shutil.copy(game / "calibration.json", ws / "calibration.json")
    code, _, err = run(["analyze", str(ws)])
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("mafvar analyze: error: ") and why in last and "nothing was analysed" in last, last
    assert not (ws / "analysis" / "incidents.json").exists()

"""`mafvar analyze` on real files: bad input is named, prior work is kept."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import imageio_ffmpeg
import pytest

from mafvar.cli import main


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Path:
    """A synthetic game's protocol and calibration (no rendering) in a workspace."""
    root = tmp_path_factory.mktemp("games")
    out = root / "synth"
    assert main(["synth", "--seed", "3", "--out", str(out), "--no-video"]) == 0
    return out


def blank_video(path: Path, seconds: int, size="1280x720") -> Path:
    """A real H.264 file with nobody in it (FFmpeg's test pattern)."""
    cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y", "-f", "lavfi", "-i",
           f"testsrc2=size={size}:rate=25:duration={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
           "-g", "25", "-pix_fmt", "yuv420p", str(path)]
    subprocess.run(cmd, check=True)
    return path


def workspace(game: Path, tmp_path: Path, name: str) -> Path:
    ws = tmp_path / name
    ws.mkdir()
    for f in ("protocol.json", "calibration.json", "truth.json"):
        shutil.copy(game / f, ws / f)
    return ws


def test_missing_calibration_is_named_and_nothing_is_written(game, tmp_path, capsys):
    ws = workspace(game, tmp_path, "nocal")
    (ws / "calibration.json").unlink()
    blank_video(ws / "video.mp4", 2)
    assert main(["analyze", str(ws)]) == 2
    err = capsys.readouterr().err
    assert "calibration.json" in err and "Traceback" not in err
    assert not (ws / "analysis" / "incidents.json").exists()


def test_a_protocol_that_breaks_the_rules_stops_with_the_event(game, tmp_path, capsys):
    ws = workspace(game, tmp_path, "badproto")
    doc = json.loads((ws / "protocol.json").read_text())
    doc["events"].append({"type": "vote", "candidate": 4, "voters": [11]})  # an eleventh seat
    (ws / "protocol.json").write_text(json.dumps(doc))
    before = (ws / "protocol.json").read_bytes()
    blank_video(ws / "video.mp4", 2)
    assert main(["analyze", str(ws)]) == 2
    err = capsys.readouterr().err
    assert "protocol.json" in err and "event" in err and "Traceback" not in err
    assert (ws / "protocol.json").read_bytes() == before


def test_missing_video_is_named(game, tmp_path, capsys):
    ws = workspace(game, tmp_path, "novideo")
    assert main(["analyze", str(ws)]) == 2
    err = capsys.readouterr().err
    assert "video" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_short_video_of_another_game_is_warned_about_and_review_db_is_kept(game, tmp_path, capsys):
    ws = workspace(game, tmp_path, "othergame")
    blank_video(ws / "video.mp4", 70)
    (ws / "review.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)  # stands in for saved decisions
    saved = (ws / "review.db").read_bytes()
    first_vote = json.loads((ws / "truth.json").read_text())["phases"]["votes"][0]
    t_call = first_vote["calls"][0]["call"]
    assert t_call < 65, "the first vote should fall inside the 70 s test video"
    rc = main(["analyze", str(ws), "--phase", "r0.vote", "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    stats = json.loads(out.out)
    joined = " ".join(stats["warnings"])
    assert "lasts 70.0 s but the protocol runs to" in joined
    assert "same game" in joined
    assert (ws / "analysis" / "incidents.json").exists()
    assert (ws / "review.db").read_bytes() == saved
    assert stats["frames_decoded"] <= 0.5 * stats["frames_total"]


@pytest.mark.slow
def test_analyze_killed_mid_run_resumes_without_redoing_finished_chunks(game, tmp_path):
    import os
    import signal
    import sqlite3
    import sys
    import time

    ws = workspace(game, tmp_path, "killed")
    blank_video(ws / "video.mp4", 70)
    cmd = [sys.executable, "-m", "mafvar", "analyze", str(ws), "--phase", "r0", "--workers", "1", "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    store = ws / "analysis" / "observations.sqlite"
    deadline = time.time() + 300
    done = 0
    while time.time() < deadline and proc.poll() is None:
        if store.exists():
            try:
                with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1) as db:
                    done = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
            except sqlite3.Error:
                done = 0
        if done >= 1:
            break
        time.sleep(0.5)
    assert proc.poll() is None, "analyze finished before it could be interrupted"
    assert done >= 1, "no chunk finished in time"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (ws / "analysis" / "checks.done").exists()
    resumed = subprocess.run(cmd, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert (ws / "analysis" / "checks.done").exists() and (ws / "analysis" / "incidents.json").exists()
    with sqlite3.connect(store) as db:
        chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert chunks > done  # the resumed run added the rest, keeping what was done
    # a third run has nothing left to extract
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 0 and json.loads(again.stdout)["frames_decoded"] == 0

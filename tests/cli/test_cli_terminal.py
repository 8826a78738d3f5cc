"""`mafvar analyze` on the terminal: its own progress line and messages, no line of
TensorFlow Lite, absl or MediaPipe (those go to analysis/third_party.log).

Runs the real command in a subprocess, as a person would, on a real H.264
recording of a synthetic game's first vote.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import imageio_ffmpeg
import pytest

from mafvar.cli import main

ROOT = Path(__file__).resolve().parents[2]
# What the libraries under MediaPipe print: TensorFlow Lite's INFO lines, absl's
# W0000/I0000/E0000 lines and its "before absl::InitializeLog()" warning, glog's.
THIRD_PARTY = re.compile(r"^(INFO: |WARNING: All log messages|[WIEF]\d{4} \d\d:\d\d:\d\d|[WIEF]0000 )", re.M)


@pytest.mark.slow
def test_analyze_prints_no_third_party_log_line(tmp_path):
    game = tmp_path / "game"
    assert main(["synth", "--seed", "3", "--out", str(game), "--no-video"]) == 0
    first_call = json.loads((game / "truth.json").read_text())["phases"]["votes"][0]["calls"][0]["call"]
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size=1280x720:rate=25:duration={int(first_call) + 12}", "-c:v", "libx264",
                    "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(game / "video.mp4")], check=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "mafvar", "analyze", str(game), "--phase", "r0.vote"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    terminal = proc.stdout + proc.stderr
    assert not THIRD_PARTY.search(terminal), f"third-party lines on the terminal:\n{terminal[:3000]}"
    # the libraries did speak: their lines are in the log, not lost
    log = (game / "analysis" / "third_party.log").read_text(errors="replace")
    assert THIRD_PARTY.search(log), f"nothing in third_party.log:\n{log[:2000]}"
    # and the person sees the run's own words: its progress and its result
    assert "analysing" in proc.stderr and "%" in proc.stderr
    assert f"results in {game}/analysis/" in proc.stdout
    # how much it could judge, in the app's words (review.coverage): a test pattern has no
    # player, so no vote cell is judged and "no incident" must not read as a clean game
    stats = json.loads((game / "analysis" / "stats.json").read_text())
    assert stats["vote_cells"] > 0 and stats["vote_cells_judged"] == 0, stats
    assert f"Judged from the picture: 0 of {stats['vote_cells']} vote cells" in proc.stdout
    assert "No incident here does not mean a clean game" in proc.stdout


@pytest.mark.slow
def test_stills_prints_no_third_party_log_line():
    from vision.hands.real_zone import hagrid_dir
    like = sorted((hagrid_dir() / "like").glob("*.jpg"))[:2] if (hagrid_dir() / "like").is_dir() else []
    if not like:
        pytest.skip(f"shared data not found: {hagrid_dir()}")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # a real face (the mesh and its look for a hand over the face) and a thumb-up hand
    # (the hands' path) run every graph the command has; a missing file in between
    # still gets its own message. (The hand crops alone no longer do: the face the
    # face detector read on a hand is dropped as a hand.)
    face = ROOT / "tests" / "vision" / "data" / "face_cc0.jpg"
    photos = [str(face), "missing.jpg", str(like[0]), str(like[1])]
    proc = subprocess.run([sys.executable, "-m", "mafvar", "stills", *photos],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 2
    assert not THIRD_PARTY.search(proc.stdout + proc.stderr), f"third-party lines:\n{proc.stderr[:3000]}"
    assert "missing.jpg" in proc.stderr and f"{face}: 1 person\n  person 1: face" in proc.stdout
    assert "state=thumb_up" in proc.stdout
    assert all(f"{p}: " in proc.stdout for p in [face, *like])

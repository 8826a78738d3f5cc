"""Issue 3 acceptance on the committed sample's own encoded video."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_committed_sample_hands_on_vote_frames_and_faces_by_day():
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "eval_sample_detection.py"),
                          str(REPO / "sample_videos" / "demo"), "--json"],
                         capture_output=True, text=True, check=True)
    res = json.loads(out.stdout)
    assert res["vote_frames"] >= 20 and res["unmasked_day_seat_frames"] >= 100
    assert res["hand_rate"] >= 0.80, res
    assert res["face_rate"] >= 0.90, res

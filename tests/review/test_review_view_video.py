"""A seat darkened or covered in real video: the analysis abstains there, and raises no foul on it.

The committed sample's first vote, re-encoded by FFmpeg with seat 4's table
zone in deep shadow and seat 9's behind a flat grey board, through the
whole pipeline (`mafvar analyze --phase r0.vote`). In the sample seat 4
makes a palm vote (wrong form) and seat 9 an early vote there: both would be
fouls; with their zones unseen, their cells are "unverified" and no foul
names them.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mafvar.cli import main
from review.incidents import load_incidents
from review.recount_file import load_recount
from vision.appearance import window_box
from vision.calibration import load_calibration
from vision.video import ffmpeg_exe

SAMPLE = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"


def _box(x0: float, y0: float, x1: float, y1: float) -> str:
    return f"x={int(x0)}:y={int(y0)}:w={int(x1 - x0)}:h={int(y1 - y0)}"


@pytest.fixture(scope="module")
def covered(tmp_path_factory) -> Path:
    ws = tmp_path_factory.mktemp("covered") / "game"
    ws.mkdir()
    for f in ("protocol.json", "calibration.json", "truth.json"):
        shutil.copy(SAMPLE / f, ws / f)
    seats = load_calibration(ws / "calibration.json").camera("cam1").seats
    dark = _box(*window_box("zone", seats[4]))
    board = _box(*window_box("zone", seats[9]))
    # shade (90% black) and a flat board, from before the first call to after the revote
    vf = (f"drawbox={dark}:color=black@0.9:t=fill:enable='between(t,50,80)',"
          f"drawbox={board}:color=0x808080:t=fill:enable='between(t,50,80)'")
    subprocess.run([ffmpeg_exe(), "-v", "error", "-y", "-i", str(SAMPLE / "video.mp4"), "-t", "82", "-vf", vf,
                    "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-g", "25", "-pix_fmt", "yuv420p",
                    "-c:a", "copy", str(ws / "video.mp4")], check=True)
    return ws


@pytest.mark.slow
def test_a_dark_or_covered_seat_is_not_judged_and_no_foul_names_it(covered, capsys):
    rc = main(["analyze", str(covered), "--phase", "r0.vote", "--workers", "1", "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    stats = json.loads(out.out)
    zone = {(a["seat"], a["key"]): a for a in stats["abstentions"] if a["window"] == "zone"}
    first_calls = {key for seat, key in zone if key.startswith("r0.vote.p0")}
    assert first_calls, stats["abstentions"]
    for seat in (4, 9):
        mine = [a for (s, _), a in zone.items() if s == seat]
        assert mine, f"seat {seat} was judged in spite of its covered zone"
        assert all(a["why"] for a in mine)
    assert any("dark" in a["why"] for (s, _), a in zone.items() if s == 4)
    # the same abstentions are in incidents.json, and no foul names seats 4 or 9
    inc = load_incidents(covered / "analysis" / "incidents.json")
    assert {(a["seat"], a["key"]) for a in inc.abstentions} >= set(zone)
    assert not [i for i in inc.incidents if {4, 9} & set(i.seats)]
    # their vote cells are open, not guessed; the rest of the table is still judged
    calls = [c for c in load_recount(covered / "analysis" / "recount.json").calls if c.round == 0 and c.pass_ == 1]
    assert calls and all({4, 9} <= c.unverified_seats for c in calls)
    judged = sum(10 - len(c.unverified) for c in calls)
    assert judged >= 0.6 * 10 * len(calls)
    assert any(v.counted for c in calls for v in c.voters if v.seat not in (4, 9))
    # the vote is weighed with its two unread seats: every way they could have voted replayed
    from review.stakes import load_stakes
    passes = load_stakes(covered / "analysis")
    first = [p for p in passes if p["phase_key"] == "r0.vote.p0"]
    assert len(first) == 1 and {4, 9} <= set(first[0]["seats"]) and first[0]["weighed"]
    named = first[0]["text"].split(" cannot be judged here")[0]
    assert named.startswith("day 1, vote: seats ") and {"4", "9"} <= set(named.split(": seats ")[1].split(", "))
    assert [s["phase_key"] for s in stats["counts_at_stake"]] == [p["phase_key"] for p in passes if p["decides"]]
    # four unread seats in a tied vote could have changed who left: the terminal names the vote too
    assert first[0]["decides"]
    assert main(["analyze", str(covered), "--phase", "r0.vote", "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "votes where seats the picture could not judge could have changed who left" in printed
    assert first[0]["text"] in printed

"""`mafvar calibrate`: seats proposed from the recording with MediaPipe's person
detector and pose landmarks (models trained on real people), numbered clockwise
from the judge's left, written without ever replacing a user's calibration
silently.

Runs on a copy of the committed sample's recording and protocol (its rendered
calibration.json is the truth and is not copied in).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mafvar.cli import main
from vision.calibration import agreement, load_calibration

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_videos" / "demo"

pytestmark = pytest.mark.skipif(not (SAMPLE / "video.mp4").is_file(), reason="the committed sample is not built")


def _fresh(tmp_path: Path) -> Path:
    game = tmp_path / "game"
    game.mkdir()
    shutil.copy2(SAMPLE / "protocol.json", game / "protocol.json")
    (game / "video.mp4").symlink_to(SAMPLE / "video.mp4")
    return game


def test_an_existing_calibration_is_refused_by_name_and_left_as_it_was(tmp_path, capsys):
    """No model runs: the refusal comes first, exit 2, the file byte for byte the same."""
    game = _fresh(tmp_path)
    mine = (SAMPLE / "calibration.json").read_text().replace('"confirmed_by": null', '"confirmed_by": "Me"')
    (game / "calibration.json").write_text(mine)
    assert main(["calibrate", str(game)]) == 2
    err = capsys.readouterr().err
    assert "calibration.json exists; nothing was changed" in err and "--force" in err
    assert (game / "calibration.json").read_text() == mine
    assert not (game / "calibration.json.bak").exists()


def test_renumbering_an_existing_calibration_keeps_the_old_one_as_a_backup(tmp_path, capsys):
    game = _fresh(tmp_path)
    shutil.copy2(SAMPLE / "calibration.json", game / "calibration.json")
    before = load_calibration(game / "calibration.json").cameras["cam1"].seats
    assert main(["calibrate", str(game), "--flip"]) == 0
    out = capsys.readouterr().out
    assert "numbered the other way round" in out and "calibration usable" in out
    after = load_calibration(game / "calibration.json").cameras["cam1"].seats
    assert after[1] == before[1] and after[2] == before[10] and after[10] == before[2]
    assert (game / "calibration.json.bak").read_text() == (SAMPLE / "calibration.json").read_text()
    assert main(["calibrate", str(game), "--seat1", "3"]) == 0
    moved = load_calibration(game / "calibration.json").cameras["cam1"].seats
    assert moved[1] == after[3]


@pytest.mark.slow
def test_the_proposal_puts_every_seat_of_the_sample_with_its_number(tmp_path, capsys, monkeypatch):
    """Body box IoU >= 0.5 with the rendered truth for all ten seats, each with the right
    number; the JSON is the documented contract; a second run refuses, --force keeps a backup."""
    game = _fresh(tmp_path)
    assert main(["calibrate", str(game), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "mafvar-calibrate" and doc["version"] == 1
    assert doc["written"] == str(game / "calibration.json") and doc["verdict"]["usable"]
    assert sorted(doc["seats"], key=int) == [str(s) for s in range(1, 11)]
    proposed = load_calibration(game / "calibration.json")
    ag = agreement(load_calibration(SAMPLE / "calibration.json"), proposed)
    assert ag.numbering, "seats numbered clockwise from the judge's left"
    assert ag.right(0.5) == list(range(1, 11)), ag.body
    # the zones moved to the table's edge seen (vision.zone_placement): every one confirmed and judged,
    # the worst within IoU 0.65 of the rendered zone (the table model's own: 0.62)
    assert all(s["zone_from"] == "table_edge" and s["judged"] == {"head": None, "zone": None, "body": None}
               for s in doc["seats"].values()), doc["seats"]
    assert min(ag.zone.values()) >= 0.65, ag.zone
    assert all(r.proposed is not None and r.proposed.seen for r in proposed.cameras["cam1"].seats.values())
    # the verdict printed is the analysis's own (the same function)
    from review.calibration_verdict import workspace_verdict
    assert workspace_verdict(game).verdict.to_json() == doc["verdict"]

    first = (game / "calibration.json").read_text()
    assert main(["calibrate", str(game), "--frames", "1"]) == 2
    assert (game / "calibration.json").read_text() == first
    # one frame fixes too little for the self-check: a guess, written only when accepted as one
    # (without the retry on denoised frames: with it, the sample's one frame gives all 10 seats
    # right, confident; scripts/eval_calibrate.py --frames 1)
    monkeypatch.setattr("vision.seat_proposal.DENOISED_RETRY", False)
    assert main(["calibrate", str(game), "--frames", "1", "--force"]) == 2
    assert "no calibration written" in capsys.readouterr().err
    assert (game / "calibration.json").read_text() == first
    assert main(["calibrate", str(game), "--frames", "1", "--force", "--accept-guess"]) == 0
    assert (game / "calibration.json.bak").read_text() == first
    # written as a guess, no seat of it is judged until a person draws it (review.view.placement_doubts)
    guessed = load_calibration(game / "calibration.json").cameras["cam1"].seats
    assert all(r.proposed is not None and r.proposed.guess for r in guessed.values())


def _heads_arg(seats) -> str:
    """The sample's own head centres (its rendered calibration), as a judge would read them off the grid."""
    truth = load_calibration(SAMPLE / "calibration.json").cameras["cam1"].seats
    return " ".join(f"{s}={truth[s].head[0]:.0f},{truth[s].head[1]:.0f}" for s in seats)


def test_heads_that_are_not_seat_equals_x_comma_y_are_named_and_nothing_runs(tmp_path, capsys):
    game = _fresh(tmp_path)
    for bad, said in (("1=200", "'1=200' is not SEAT=X,Y"), ("11=5,5", "seat 11 is not a seat number"),
                      ("1=5,5 1=6,6", "seat 1 is given twice"), ("one=5,5", "'one=5,5' is not SEAT=X,Y")):
        assert main(["calibrate", str(game), "--heads", bad]) == 2
        assert said in capsys.readouterr().err
    assert not (game / "calibration.json").exists()


def test_heads_outside_the_frame_are_refused_with_the_seat(tmp_path, capsys):
    game = _fresh(tmp_path)
    assert main(["calibrate", str(game), "--heads", _heads_arg(range(1, 7)) + " 7=5000,100"]) == 2
    assert "head of seat 7 at (5000.0, 100.0) lies outside the 1280x720 frame" in capsys.readouterr().err
    assert not (game / "calibration.json").exists()


@pytest.mark.slow
def test_seven_heads_placed_by_a_judge_give_every_seat_with_its_number(tmp_path, capsys):
    """The table fitted to the heads a person placed (no player detection): the three seats not
    given follow from the table, every body box at IoU >= 0.5 with the rendered truth; a head
    given for the wrong seat makes the proposal a guess that names that seat, not written."""
    game = _fresh(tmp_path)
    assert main(["calibrate", str(game), "--heads", _heads_arg((1, 2, 4, 5, 7, 9, 10)), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["fit"]["heads_from"] == "placed" and doc["uncertain"] is None
    ag = agreement(load_calibration(SAMPLE / "calibration.json"), load_calibration(game / "calibration.json"))
    assert ag.numbering and ag.right(0.5) == list(range(1, 11)), ag.body
    assert [s for s, v in doc["seats"].items() if not v["seen"]] == ["3", "6", "8"]

    swapped = _heads_arg((1, 2, 4, 5, 7, 9)) + " " + _heads_arg((10,)).replace("10=", "8=")
    assert main(["calibrate", str(game), "--heads", swapped, "--force"]) == 2
    err = capsys.readouterr().err
    assert "no calibration written" in err and "the head placed for seat 8 lies" in err, err

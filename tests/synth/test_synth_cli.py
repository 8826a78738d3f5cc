"""`mafvar synth` on the command line: outputs, overwrite refusal, bad input."""
from __future__ import annotations

import json

from mafvar.cli import main


def test_writes_workspace_without_video(tmp_path, capsys):
    out = tmp_path / "game"
    assert main(["synth", "--seed", "7", "--out", str(out), "--no-video"]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["calibration.json", "protocol.json", "truth.json"]
    cal = json.loads((out / "calibration.json").read_text())
    assert cal["format"] == "mafvar-calibration" and cal["version"] == 1 and cal["confirmed_by"] == "synth"
    cam = cal["cameras"]["cam1"]
    assert (cam["width"], cam["height"]) == (1280, 720)
    assert sorted(cam["seats"], key=int) == [str(s) for s in range(1, 11)]
    for seat in cam["seats"].values():
        x0, y0, x1, y1 = seat["body"]
        assert 0 <= x0 < x1 <= 1280 and 0 <= y0 < y1 <= 720
        zx0, zy0, zx1, zy1 = seat["table_zone"]
        assert zx0 < zx1 and zy0 < zy1
    truth = json.loads((out / "truth.json").read_text())
    assert truth["format"] == "mafvar-truth" and truth["version"] == 1


def test_refuses_non_empty_out_without_force(tmp_path, capsys):
    out = tmp_path / "game"
    out.mkdir()
    (out / "review.db").write_bytes(b"decisions")
    assert main(["synth", "--seed", "7", "--out", str(out), "--no-video"]) == 2
    assert "--force" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["review.db"]
    (out / "video.mp4").write_bytes(b"an older game's video")
    assert main(["synth", "--seed", "7", "--out", str(out), "--no-video", "--force"]) == 0
    assert (out / "review.db").read_bytes() == b"decisions"
    assert (out / "truth.json").exists()
    # A stale video of another game is not left beside the new truth.
    assert not (out / "video.mp4").exists()


def test_bad_options_are_one_line_errors(tmp_path, capsys):
    out = tmp_path / "g"
    assert main(["synth", "--seed", "1", "--out", str(out), "--inject", "peek,flying", "--no-video"]) == 2
    err = capsys.readouterr().err
    assert "flying" in err and "Traceback" not in err
    assert main(["synth", "--seed", "1", "--out", str(out), "--resolution", "big", "--no-video"]) == 2
    assert main(["synth", "--seed", "1", "--out", str(out), "--protocol", str(tmp_path / "none.json"),
                 "--no-video"]) == 2
    assert not out.exists()


def test_acts_a_given_protocol(tmp_path, capsys):
    first = tmp_path / "first"
    assert main(["synth", "--seed", "9", "--out", str(first), "--no-video", "--inject", "none"]) == 0
    second = tmp_path / "second"
    assert main(["synth", "--seed", "9", "--out", str(second), "--no-video",
                 "--protocol", str(first / "protocol.json"), "--inject", "peek,late_vote"]) == 0
    p1 = json.loads((first / "protocol.json").read_text())
    p2 = json.loads((second / "protocol.json").read_text())
    assert [e["type"] for e in p1["events"]] == [e["type"] for e in p2["events"]]
    kinds = sorted(v["type"] for v in json.loads((second / "truth.json").read_text())["violations"])
    assert kinds == ["late_vote", "peek"]


def test_a_count_injects_several_of_a_type_each_at_its_own_place(tmp_path, capsys):
    one, three = tmp_path / "one", tmp_path / "three"
    assert main(["synth", "--seed", "31", "--out", str(one), "--no-video", "--inject", "late_vote,touch_night"]) == 0
    assert main(["synth", "--seed", "31", "--out", str(three), "--no-video",
                 "--inject", "late_vote:3,touch_night:2"]) == 0
    t1 = json.loads((one / "truth.json").read_text())
    t3 = json.loads((three / "truth.json").read_text())
    late = [v for v in t3["violations"] if v["type"] == "late_vote"]
    touches = [v for v in t3["violations"] if v["type"] == "touch_night"]
    assert len(late) == 3 and len(touches) == 2
    # three different fists, each voided (placed after "thank you", not counted)
    assert len({(v["details"]["round"], v["seats"][0]) for v in late}) == 3
    void = {(v["round"], v["seat"]) for v in t3["votes"] if v["status"] == "late" and not v["counts"]}
    assert {(v["details"]["round"], v["seats"][0]) for v in late} <= void
    assert len({(v["t0"], v["seats"][0]) for v in touches}) == 2
    # the first of each type is where a selection without counts puts it
    first = {v["type"]: (v["seats"], v["t0"]) for v in t1["violations"]}
    assert first["late_vote"] in [(v["seats"], v["t0"]) for v in late]
    assert first["touch_night"] in [(v["seats"], v["t0"]) for v in touches]


def test_a_bad_count_is_a_one_line_error(tmp_path, capsys):
    out = tmp_path / "g"
    for bad in ("late_vote:0", "late_vote:x", "late_vote:99", "protocol_audit:2"):
        assert main(["synth", "--seed", "1", "--out", str(out), "--inject", bad, "--no-video"]) == 2
        err = capsys.readouterr().err
        assert bad.split(":")[0] in err and "Traceback" not in err
    assert not out.exists()

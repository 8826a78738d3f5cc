"""`mafvar hands IMAGE... [--json]` on real photos and on files that are not images."""
from __future__ import annotations

import json

import pytest

from mafvar.cli import main
from vision.hands.evaluate import sign_digits_dir

STATES = {"fist", "thumb_up", "thumb_down", "thumb_out", "open_palm", "pointing", "two_fingers", "count"}


@pytest.fixture()
def photos():
    root = sign_digits_dir()
    if not root.is_dir():
        pytest.skip(f"shared data not found: {root}")
    return {"one": str(root / "1" / "IMG_1119.JPG"), "five": str(root / "5" / "IMG_1123.JPG")}


def test_text_output(photos, capsys):
    assert main(["hands", photos["one"], photos["five"]]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{photos['one']}: 1 hand"
    assert "state=pointing" in out[1] and "count=1" in out[1]
    assert out[2] == f"{photos['five']}: 1 hand"
    assert "state=open_palm" in out[3] and "count=5" in out[3]
    assert "box [" in out[1] and ("left" in out[1] or "right" in out[1])


def test_json_output(photos, capsys):
    assert main(["hands", "--json", photos["five"], photos["one"]]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, list) and len(data) == 2  # one element per image, in order
    five, one = data[0][0], data[1][0]
    assert set(five) == {"box", "handedness", "state", "count", "confidence"}
    assert (five["state"], five["count"]) == ("open_palm", 5)
    assert (one["state"], one["count"]) == ("pointing", 1)
    for hand in (five, one):
        x0, y0, x1, y1 = hand["box"]
        assert 0 <= x0 < x1 <= 100 and 0 <= y0 < y1 <= 100
        assert hand["handedness"] in ("left", "right")
        assert hand["state"] in STATES
        assert 0 < hand["confidence"] <= 1


def test_non_image_is_named_and_the_rest_still_processed(photos, tmp_path, capsys):
    bogus = tmp_path / "minutes.png"
    bogus.write_text("this is not a picture")
    missing = tmp_path / "absent.jpg"
    code = main(["hands", "--json", str(bogus), photos["one"], str(missing)])
    captured = capsys.readouterr()
    assert code == 2
    assert str(bogus) in captured.err and str(missing) in captured.err
    assert "Traceback" not in captured.err
    data = json.loads(captured.out)
    assert data[0] is None and data[2] is None
    assert data[1][0]["count"] == 1


def test_image_without_hands(tmp_path, capsys):
    import cv2
    import numpy as np

    blank = tmp_path / "table.png"
    cv2.imwrite(str(blank), np.full((90, 120, 3), 180, np.uint8))
    assert main(["hands", str(blank)]) == 0
    assert capsys.readouterr().out.strip() == f"{blank}: no hands"

"""`mafvar stills IMAGE... [--json]`: a real (CC0) face bare and with a
composited eye mask, a photo with no face, and files that are not images."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from mafvar.cli import main
from vision.faces.composite import MaskLook, paint_mask
from vision.faces.mask_read import committed_model
from vision.faces.mesh import HeadMesh

FACE = Path(__file__).with_name("data") / "face_cc0.jpg"
needs_model = pytest.mark.skipif(committed_model() is None, reason="no committed mask model")


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """The bare face, the same face with a black sleep mask over its eyes, and a blank wall."""
    out = tmp_path_factory.mktemp("stills")
    image = cv2.cvtColor(cv2.imread(str(FACE)), cv2.COLOR_BGR2RGB)
    with HeadMesh(min_detection=0.5) as mesh:
        lm = mesh.landmarks(image)
    masked = paint_mask(image, lm, MaskLook("sleep", "black", "cloth", 0.15, 0.4, 0.1), np.random.default_rng(3))
    cv2.imwrite(str(out / "masked.png"), cv2.cvtColor(masked, cv2.COLOR_RGB2BGR))
    cv2.imwrite(str(out / "wall.png"), np.full((200, 300, 3), 180, np.uint8))
    return {"bare": str(FACE), "masked": str(out / "masked.png"), "wall": str(out / "wall.png")}


@needs_model
def test_json_reads_each_person_mask(photos, capsys):
    assert main(["stills", "--json", photos["bare"], photos["masked"], photos["wall"]]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["format"], doc["version"]) == ("mafvar-stills", 1)
    bare, masked, wall = doc["images"]
    assert [img["path"] for img in doc["images"]] == [photos["bare"], photos["masked"], photos["wall"]]
    assert bare["size"] == [300, 400] and len(bare["people"]) == 1 and len(masked["people"]) == 1
    assert bare["people"][0]["mask"]["state"] == "mask_off"
    assert masked["people"][0]["mask"]["state"] == "mask_on"
    for person in bare["people"] + masked["people"]:
        x0, y0, x1, y1 = person["face_box"]
        assert 0 <= x0 < x1 <= 300 and 0 <= y0 < y1 <= 400
        assert 0.6 <= person["mask"]["confidence"] <= 1 and person["mask"]["cannot_judge"] is None
        assert person["hands"] == []
    assert wall["people"] == [] and wall["other_hands"] == []


@needs_model
def test_text_output(photos, capsys):
    assert main(["stills", photos["masked"]]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{photos['masked']}: 1 person"
    assert out[1].startswith("  person 1: face [") and "mask mask_on" in out[1]


def test_non_image_is_one_line_and_the_rest_still_read(photos, tmp_path, capsys):
    bogus = tmp_path / "table.jpg"
    bogus.write_text("this is not a picture")
    missing = tmp_path / "absent.png"
    code = main(["stills", "--json", str(bogus), photos["wall"], str(missing)])
    captured = capsys.readouterr()
    assert code == 2
    errors = captured.err.strip().splitlines()
    assert len(errors) == 2 and str(bogus) in errors[0] and str(missing) in errors[1]
    assert "Traceback" not in captured.err
    doc = json.loads(captured.out)
    assert doc["images"][0] == {"path": str(bogus), "error": f"{bogus}: not a readable image"}
    assert doc["images"][1]["people"] == []
    assert "error" in doc["images"][2]


@needs_model
def test_a_photo_of_many_small_faces_finds_each_person_and_reads_the_mask():
    """A sheet of ten seats as a table camera sees them (the CC0 face, bare or
    masked, 32-64 px heads, five by two on about 1400x800 px): the whole-image
    face detector finds none of these faces, the tiled search finds them, and
    each is read at its seat."""
    from vision.faces.real_faces import compose, seat_sheet
    from vision.stills import StillReader, read_still

    image = cv2.cvtColor(cv2.imread(str(FACE)), cv2.COLOR_BGR2RGB)
    with HeadMesh(min_detection=0.5) as mesh:
        lm = mesh.landmarks(image)
    cases = [compose(None, image, lm, ("mask_off", "mask_on")[i % 2], np.random.default_rng(40 + i))
             for i in range(10)]
    sheet, seats = seat_sheet(cases)
    heads = [(x, y, w, c.kind) for (x, y, w), c in zip(seats, cases)]
    with StillReader() as reader:
        still = read_still(reader, sheet)
    found, right, wrong = 0, 0, []
    for person in still.people:
        assert person.face_box is not None
        cx, cy = (person.face_box[0] + person.face_box[2]) / 2, (person.face_box[1] + person.face_box[3]) / 2
        seat = [h for h in heads if np.hypot(cx - h[0], cy - h[1]) <= 0.6 * h[2]]
        assert seat, ("a person at no seat", person.face_box)
        found += 1
        right += person.mask.state == seat[0][3]
        if person.mask.state not in (None, seat[0][3]):
            wrong.append((seat[0][3], person.mask.state))
    # one face, ten views: one masked view read bare on this machine (the held-out
    # sheets of scripts/eval_real_pixels.py --table: 39 of 40 right)
    assert found >= 9 and right >= 8 and len(wrong) <= 1, (found, right, wrong)

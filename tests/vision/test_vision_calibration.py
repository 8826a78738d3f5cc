"""Calibration file, checks and the seat layout around the table."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from vision.calibration import (Calibration, CalibrationError, CameraCalibration, IssueKind,
                                Person, SeatRegion, check_calibration, layout_seats,
                                load_calibration, propose_calibration, require_seats,
                                save_calibration)


def ring_people(n=10, centre=(640, 360), rx=480, ry=250, face=60) -> list[Person]:
    """Faces evenly around an ellipse, person k at angle 90 + 36k degrees
    (k = 0 at the bottom, then clockwise on screen)."""
    out = []
    for k in range(n):
        a = math.radians(90 + 36 * k)
        x, y = centre[0] + rx * math.cos(a), centre[1] + ry * math.sin(a)
        out.append(Person((x - face / 2, y - face / 2, x + face / 2, y + face / 2), 0.9))
    return out


def grid_calibration(missing=(), body_h=300.0) -> Calibration:
    seats = {}
    for s in range(1, 11):
        if s in missing:
            continue
        x = 20 + (s - 1) * 125
        seats[s] = SeatRegion((x, 50, x + 120, 50 + body_h), (x, 60 + body_h, x + 120, 120 + body_h))
    return Calibration({"cam1": CameraCalibration(1280, 720, seats)})


def test_round_trip_and_backup(tmp_path):
    cal = grid_calibration()
    path = tmp_path / "calibration.json"
    save_calibration(cal, path)
    data = json.loads(path.read_text())
    assert data["format"] == "mafvar-calibration" and data["version"] == 1
    assert data["confirmed_by"] is None
    assert data["cameras"]["cam1"]["seats"]["3"]["body"] == [270.0, 50.0, 390.0, 350.0]
    back = load_calibration(path)
    assert back.cameras["cam1"].seats == cal.cameras["cam1"].seats
    # Saving again keeps the previous version as .bak and leaves no temp file.
    cal.confirmed_by = "Anna"
    save_calibration(cal, path)
    assert json.loads((tmp_path / "calibration.json.bak").read_text())["confirmed_by"] is None
    assert load_calibration(path).confirmed_by == "Anna"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calibration.json", "calibration.json.bak"]


@pytest.mark.parametrize("text,needle", [
    ("{", "not valid JSON"),
    ('{"format": "other"}', "not a mafvar-calibration file"),
    ('{"format": "mafvar-calibration", "version": 9, "cameras": {}}', "version 9"),
    ('{"format": "mafvar-calibration", "version": 1, "cameras": {"cam1": {"width": 10, '
     '"height": 10, "seats": {"11": {"body": [0,0,1,1], "table_zone": [0,0,1,1]}}}}}', "seat 11"),
    ('{"format": "mafvar-calibration", "version": 1, "cameras": {"cam1": {"width": 10, '
     '"height": 10, "seats": {"1": {"body": [5,5,1,1], "table_zone": [0,0,1,1]}}}}}', "no area"),
])
def test_bad_files_give_clear_errors(tmp_path, text, needle):
    path = tmp_path / "calibration.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=needle):
        load_calibration(path)


def test_missing_file(tmp_path):
    with pytest.raises(CalibrationError, match="not found"):
        load_calibration(tmp_path / "calibration.json")


def test_missing_seats_are_a_clear_error():
    cal = grid_calibration(missing=(4, 9))
    with pytest.raises(CalibrationError, match=r"seat\(s\) 4, 9"):
        require_seats(cal, "cam1")
    assert require_seats(cal, "cam1", seats=[1, 2]) is cal.cameras["cam1"]
    with pytest.raises(CalibrationError, match="no camera 'cam2'"):
        require_seats(cal, "cam2")


def test_check_finds_missing_overlapping_small_and_outside():
    cal = grid_calibration(missing=(10,))
    seats = cal.cameras["cam1"].seats
    seats[2] = SeatRegion((25, 60, 140, 350), seats[2].table_zone)        # over seat 1
    seats[5] = SeatRegion((520, 100, 560, 200), seats[5].table_zone)      # 100 px tall
    seats[7] = SeatRegion((1200, 50, 1400, 350), seats[7].table_zone)     # off the frame
    issues = check_calibration(cal)
    kinds = {(i.seat, i.kind) for i in issues}
    assert (10, IssueKind.MISSING) in kinds
    assert (1, IssueKind.OVERLAP) in kinds
    assert (5, IssueKind.SMALL) in kinds
    assert (7, IssueKind.OUTSIDE) in kinds
    # Nothing else: the untouched seats are fine.
    assert {s for s, _ in kinds} == {1, 5, 7, 10}
    assert check_calibration(grid_calibration()) == []


def test_check_reports_empty_seats_from_detected_people():
    cal = grid_calibration()
    people = [Person((x + 40, 80, x + 80, 120), 0.9) for x in [20 + k * 125 for k in range(9)]]
    issues = check_calibration(cal, people=people)
    assert [(i.seat, i.kind) for i in issues] == [(10, IssueKind.EMPTY)]


@pytest.mark.parametrize("direction", ["clockwise", "counterclockwise"])
def test_layout_numbers_seats_around_the_table(direction):
    people = ring_people()
    # Seat 1 hint near person 3 (angle 198 degrees: left of centre, upper half).
    hint = people[3].centre
    seats = layout_seats(list(reversed(people)), (1280, 720), seat1_hint=hint, direction=direction)
    assert sorted(seats) == list(range(1, 11))
    step = 1 if direction == "clockwise" else -1
    for n in range(1, 11):
        person = people[(3 + step * (n - 1)) % 10]
        body = seats[n].body
        assert body[0] <= person.centre[0] <= body[2] and body[1] <= person.centre[1] <= body[3]
    # Table zones lie toward the table centre from their body.
    for n, r in seats.items():
        bc = np.array([(r.body[0] + r.body[2]) / 2, (r.body[1] + r.body[3]) / 2])
        zc = np.array([(r.table_zone[0] + r.table_zone[2]) / 2,
                       (r.table_zone[1] + r.table_zone[3]) / 2])
        assert np.linalg.norm(zc - [640, 360]) < np.linalg.norm(bc - [640, 360])


def test_propose_gives_fewer_seats_for_fewer_people_and_check_says_so():
    frame = np.zeros((720, 1280, 3), np.uint8)
    cal = propose_calibration(frame, people=ring_people()[:8])
    assert len(cal.cameras["cam1"].seats) == 8 and cal.confirmed_by is None
    missing = [i.seat for i in check_calibration(cal) if i.kind == IssueKind.MISSING]
    assert missing == [9, 10]

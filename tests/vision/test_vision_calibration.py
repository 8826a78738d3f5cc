"""Calibration file, checks and the seat layout around the table."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from vision.calibration import (Calibration, CalibrationError, CameraCalibration, IssueKind,
                                SeatRegion, box_iou, calibration_verdict, check_calibration,
                                load_calibration, renumber, require_seats, save_calibration)

SAMPLE = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"


@dataclass(frozen=True)
class Seen:
    """Somebody found at a point of the frame."""
    centre: tuple[float, float]


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


def test_check_finds_missing_same_place_small_and_outside():
    cal = grid_calibration(missing=(10,))
    seats = cal.cameras["cam1"].seats
    seats[2] = SeatRegion((25, 60, 140, 350), seats[2].table_zone)        # over seat 1
    seats[5] = SeatRegion((520, 100, 560, 200), seats[5].table_zone)      # 100 px tall
    seats[7] = SeatRegion((1200, 50, 1400, 350), seats[7].table_zone)     # off the frame
    issues = check_calibration(cal)
    kinds = {(i.seat, i.kind) for i in issues}
    assert (10, IssueKind.MISSING) in kinds
    assert (1, IssueKind.SAME_PLACE) in kinds
    assert (5, IssueKind.SMALL) in kinds
    assert (7, IssueKind.OUTSIDE) in kinds
    # Nothing else: the untouched seats are fine.
    assert {s for s, _ in kinds} == {1, 5, 7, 10}
    assert check_calibration(grid_calibration()) == []
    # what refuses and what only warns
    assert {i.kind for i in issues if i.refuses} == {IssueKind.MISSING, IssueKind.SAME_PLACE, IssueKind.OUTSIDE}
    assert {i.kind for i in issues if not i.refuses} == {IssueKind.SMALL}


def test_check_reports_empty_seats_from_the_people_found():
    cal = grid_calibration()
    people = [Seen((x + 60, 100)) for x in [20 + k * 125 for k in range(9)]]
    issues = check_calibration(cal, people=people)
    assert [(i.seat, i.kind) for i in issues] == [(10, IssueKind.EMPTY)]


def test_a_small_seat_is_usable_with_a_warning_that_says_what_it_costs():
    cal = grid_calibration()
    seats = cal.cameras["cam1"].seats
    seats[5] = SeatRegion((520, 100, 640, 335), seats[5].table_zone)      # 235 px: a hand of 47 px
    verdict = calibration_verdict(cal, (1280, 720))
    assert verdict.usable and not verdict.refusal_lines
    (line,) = verdict.warning_lines
    assert "seat 5 is small (235 px tall: a hand about 47 px" in line
    assert '"cannot judge"' in line and "not guessed" in line
    assert "1 seat too small for reliable hand reading (5)" in verdict.summary


def test_overlap_is_measured_and_only_two_seats_on_one_player_refuse():
    cal = grid_calibration()
    seats = cal.cameras["cam1"].seats
    # seat 3 raised and widened over seat 2: they share much, but are two players
    seats[3] = SeatRegion((160, 50, 300, 350), seats[3].table_zone, (280, 120, 40))
    seats[2] = SeatRegion(seats[2].body, seats[2].table_zone, (205, 120, 40))
    iou = box_iou(seats[2].body, seats[3].body)
    verdict = calibration_verdict(cal, (1280, 720))
    assert verdict.usable
    assert f"largest overlap seats 2 and 3 (body IoU {iou:.2f})" in verdict.summary
    assert any(f"seats 2 and 3 overlap (body IoU {iou:.2f}" in w for w in verdict.warning_lines)
    assert "none overlapping" not in verdict.summary
    # the same two heads: one player read twice
    seats[3] = SeatRegion(seats[3].body, seats[3].table_zone, (210, 122, 40))
    refused = calibration_verdict(cal, (1280, 720))
    assert not refused.usable and refused.seats_refused == (2,)
    assert "seats 2 and 3 are the same place (their heads are 0.1 head widths apart)" in refused.refusal_lines[0]


def test_a_calibration_for_frames_of_another_shape_is_refused():
    verdict = calibration_verdict(grid_calibration(), (640, 480))
    assert not verdict.usable
    assert "the calibration is for 1280x720 frames but the recording's are 640x480" in verdict.refusal_lines[0]
    assert calibration_verdict(grid_calibration(), (1920, 1080)).usable     # the same shape, larger


@pytest.mark.skipif(not (SAMPLE / "calibration.json").is_file(), reason="no committed sample")
def test_the_committed_samples_calibration_is_usable_with_its_small_seats_named():
    verdict = calibration_verdict(load_calibration(SAMPLE / "calibration.json"), (1280, 720))
    assert verdict.usable, verdict.refusal_lines
    small = {i.seat for i in verdict.warnings if i.kind is IssueKind.SMALL}
    assert small == {5, 6}


@pytest.mark.parametrize("first,reverse,order", [
    (1, False, list(range(1, 11))),
    (6, False, [6, 7, 8, 9, 10, 1, 2, 3, 4, 5]),
    (1, True, [1, 10, 9, 8, 7, 6, 5, 4, 3, 2]),
    (3, True, [3, 2, 1, 10, 9, 8, 7, 6, 5, 4]),
])
def test_renumbering_moves_seat_one_or_flips_the_direction(first, reverse, order):
    cal = grid_calibration()
    cal.confirmed_by = "Anna"
    old = cal.cameras["cam1"].seats
    new = renumber(cal, "cam1", first, reverse)
    assert [next(s for s, r in old.items() if r == new.cameras["cam1"].seats[n]) for n in range(1, 11)] == order
    assert new.confirmed_by is None and cal.cameras["cam1"].seats == old     # the original is untouched
    with pytest.raises(CalibrationError, match="seat 11 is not 1..10"):
        renumber(cal, "cam1", 11)


def test_a_proposed_seat_keeps_how_it_was_placed_through_the_file(tmp_path):
    from vision.calibration import Proposed
    cal = grid_calibration()
    c = cal.cameras["cam1"]
    c.seats[3] = SeatRegion(c.seats[3].body, c.seats[3].table_zone, (80.0, 120.0, 30.0),
                            Proposed(False, "table_model", None))
    c.seats[4] = SeatRegion(c.seats[4].body, c.seats[4].table_zone, None, Proposed(True, "table_edge", 2.26))
    path = save_calibration(cal, tmp_path / "calibration.json")
    raw = json.loads(path.read_text())["cameras"]["cam1"]["seats"]
    assert raw["4"]["proposed"] == {"seen": True, "zone_from": "table_edge", "zone_error_px": 2.3, "guess": False}
    assert "proposed" not in raw["1"]                       # additive: a drawn seat has none
    back = load_calibration(path).cameras["cam1"].seats
    assert back[3].proposed == Proposed(False, "table_model", None)
    assert back[4].proposed == Proposed(True, "table_edge", 2.3) and back[1].proposed is None


@pytest.mark.parametrize("proposed, needle", [
    ({"zone_from": "table_edge"}, "boolean 'seen'"),
    ({"seen": True, "zone_from": "guess"}, "zone_from"),
    ({"seen": True, "zone_from": "table_edge", "zone_error_px": -1}, "negative"),
    ({"seen": True, "zone_from": "table_edge", "zone_error_px": "far"}, "zone_error_px"),
])
def test_a_malformed_proposal_is_a_clear_error(tmp_path, proposed, needle):
    doc = grid_calibration().to_json()
    doc["cameras"]["cam1"]["seats"]["2"]["proposed"] = proposed
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(CalibrationError, match="seat|proposed") as err:
        load_calibration(path)
    assert needle in str(err.value)

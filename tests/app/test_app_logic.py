"""The app's pure parts: exact frames, uploads, seat regions, phases, progress, CLI."""
from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from app_testlib import fixtures  # noqa: E402

from app import frames, seat_regions  # noqa: E402
from app.phases import phases_from_protocol, game_phases  # noqa: E402
from app.uploads import ProtocolKind, Upload, UploadRefused, create_workspace, sniff_container  # noqa: E402

SHARED = Path(__file__).resolve().parents[3] / "shared" / "formats"


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> Path:
    return fixtures.write_video(tmp_path_factory.mktemp("v") / "video.mp4")


def test_decoded_frames_are_exactly_the_requested_ones(video):
    meta = frames.video_meta(video)
    assert (meta.fps, meta.frame_count, meta.width, meta.height) == (25.0, 250, 1280, 720)
    # out of order on purpose: seeking backwards and across keyframes (every 50 frames)
    for index in [0, 1, 49, 50, 51, 137, 99, 249, 3]:
        assert fixtures.read_frame_code(frames.read_frame(video, index)) == index


def test_time_to_frame_index(video):
    meta = frames.video_meta(video)
    assert meta.index_at(0.0) == 0
    assert meta.index_at(6.2) == 155
    assert meta.index_at(6.239) == 155  # frame 155 shows [6.20, 6.24)
    assert meta.index_at(6.24) == 156
    assert meta.index_at(99.0) == 249 and meta.index_at(-1) == 0
    assert fixtures.read_frame_code(frames.read_frame(video, meta.index_at(7.4))) == 185


def test_seat_crop_is_the_seat_zoomed(video):
    frame = frames.read_frame(video, 10)
    box = fixtures.seat_boxes()[4]
    part = frames.crop(frame, box, zoom=2.0, margin=0.0)
    assert part.shape[:2] == (box[3] * 2, box[2] * 2)
    # seat 4's fill colour from fixtures.frame_image, within H.264 error
    expected = (120 + 40, (120 + 40) // 2, 200 - 32)
    centre = part[20:40, 10:30].reshape(-1, 3).mean(axis=0)
    assert all(abs(c - e) < 12 for c, e in zip(centre, expected)), centre


def test_cut_clip_is_playable_h264(video, tmp_path):
    clip = frames.cut_clip(video, 2.0, 4.0, cache_dir=tmp_path)
    meta = frames.video_meta(clip)
    assert abs(meta.duration - 2.0) < 0.2
    assert fixtures.read_frame_code(frames.read_frame(clip, 0)) == 50  # 2.0 s * 25 fps
    assert frames.cut_clip(video, 2.0, 4.0, cache_dir=tmp_path) == clip  # cached


def test_sniff_container():
    assert sniff_container(b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00") == "mp4"
    assert sniff_container(b"\x1a\x45\xdf\xa3" + b"\x00" * 12) == "matroska"
    assert sniff_container(b"RIFF\x00\x00\x00\x00AVI LIST") == "avi"
    assert sniff_container(b"%PDF-1.7\n") is None


# -- uploads ---------------------------------------------------------------------------

@pytest.fixture()
def existing(tmp_path) -> Path:
    """A workspace root that already holds a game whose files must never change."""
    game = tmp_path / "games" / "kept"
    game.mkdir(parents=True)
    (game / "protocol.json").write_text(json.dumps(fixtures.protocol()))
    (game / "video.mp4").write_bytes(b"\x00\x00\x00\x20ftypisom" + b"old" * 100)
    return tmp_path / "games"


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _proto_upload(doc=None) -> Upload:
    return Upload("protocol.json", json.dumps(doc or fixtures.protocol()).encode())


def test_upload_creates_a_new_workspace(video, existing):
    before = _digest(existing)
    game = create_workspace(existing, "new-game", Upload("table.mp4", video.read_bytes()),
                            _proto_upload(), ProtocolKind.NATIVE)
    assert game == existing / "new-game"
    assert (game / "video.mp4").read_bytes() == video.read_bytes()
    doc = json.loads((game / "protocol.json").read_text())
    assert doc["cameras"][0]["file"] == "video.mp4" and len(doc["events"]) == len(fixtures.protocol()["events"])
    after = _digest(existing)
    assert {k: v for k, v in after.items() if k.startswith("kept/")} == before
    assert sorted(p.name for p in existing.iterdir()) == ["kept", "new-game"]  # no staging left


@pytest.mark.parametrize("case", ["not_video", "fake_header", "oversized", "bad_protocol",
                                  "engine_error", "exists"])
def test_upload_refusals_leave_saved_files_untouched(case, video, existing):
    before = _digest(existing)
    name, vid, proto, limit = "new-game", Upload("v.mp4", video.read_bytes()), _proto_upload(), 10 ** 9
    if case == "not_video":
        vid = Upload("v.mp4", b"%PDF-1.7\n" + b"x" * 5000)
    elif case == "fake_header":
        vid = Upload("v.mp4", b"\x00\x00\x00\x20ftypisom" + b"\x00garbage" * 500)
    elif case == "oversized":
        limit = 1000
    elif case == "bad_protocol":
        doc = fixtures.protocol()
        doc["seats"] = doc["seats"][:9]
        proto = _proto_upload(doc)
    elif case == "engine_error":
        doc = fixtures.protocol()
        doc["events"].insert(4, {"type": "shot", "by": 4, "target": 99, "t": 1.7})
        proto = _proto_upload(doc)
    elif case == "exists":
        name = "kept"
    with pytest.raises(UploadRefused) as err:
        create_workspace(existing, name, vid, proto, ProtocolKind.NATIVE, limit=limit)
    message = str(err.value)
    expected = {"not_video": "not a video", "fake_header": "not a readable video",
                "oversized": "too large", "bad_protocol": "fails the engine's validation",
                "engine_error": "fails the engine's validation", "exists": "already exists"}[case]
    assert expected in message, message
    assert _digest(existing) == before
    assert sorted(p.name for p in existing.iterdir()) == ["kept"]


def test_bad_protocol_message_is_the_engines(existing, video):
    from engine.protocol import ProtocolError, parse_protocol

    doc = fixtures.protocol()
    doc["seats"] = doc["seats"][:9]
    with pytest.raises(ProtocolError) as engine_err:
        parse_protocol(json.dumps(doc))
    with pytest.raises(UploadRefused) as err:
        create_workspace(existing, "g", Upload("v.mp4", video.read_bytes()), _proto_upload(doc),
                         ProtocolKind.NATIVE)
    assert engine_err.value.issues[0].message in str(err.value)


@pytest.mark.skipif(not (SHARED / "mafiaratings" / "game_4842.json").is_file(),
                    reason="shared game records not beside this checkout")
def test_upload_imports_a_mafiaratings_record(existing, video):
    record = (SHARED / "mafiaratings" / "game_4842.json").read_bytes()
    game = create_workspace(existing, "mr", Upload("v.mp4", video.read_bytes()),
                            Upload("game_4842.json", record), ProtocolKind.MAFIARATINGS)
    doc = json.loads((game / "protocol.json").read_text())
    assert doc["format"] == "mafvar-protocol" and len(doc["seats"]) == 10
    with pytest.raises(UploadRefused, match="polemica"):
        create_workspace(existing, "pl", Upload("v.mp4", video.read_bytes()),
                         Upload("game_4842.json", record), ProtocolKind.POLEMICA)


# -- seat regions ----------------------------------------------------------------------

def _write_cal(path: Path, mutate=None) -> Path:
    doc = fixtures.calibration()
    if mutate:
        mutate(doc["cameras"]["cam1"]["seats"])
    path.write_text(json.dumps(doc))
    return path


def test_calibration_regions_are_read_as_boxes(tmp_path):
    cams = seat_regions.load_regions(_write_cal(tmp_path / "c.json"))
    assert [c.camera for c in cams] == ["cam1"]
    assert cams[0].boxes == {s: tuple(b) for s, b in fixtures.seat_boxes().items()}
    assert cams[0].zones[1] == tuple(fixtures.table_zones()[1])


def test_calibration_check_finds_each_problem(tmp_path):
    assert seat_regions.check_file(_write_cal(tmp_path / "ok.json")).ok

    def drop7(seats):
        del seats["7"]

    res = seat_regions.check_file(_write_cal(tmp_path / "m.json", drop7))
    assert res.bad_seats == (7,) and "seat 7 has no region" in res.problems[0]

    def outside(seats):
        seats["2"]["body"] = [1200, 30, 1420, 330]

    res = seat_regions.check_file(_write_cal(tmp_path / "o.json", outside))
    assert res.bad_seats == (2,) and "leaves the 1280x720 frame" in res.problems[0]

    def tiny(seats):
        seats["5"]["body"] = [1030, 30, 1100, 90]

    small = seat_regions.check_file(_write_cal(tmp_path / "t.json", tiny))
    assert small.ok and small.warned_seats == (5,) and "seat 5 is small" in small.warnings[0]

    def overlap(seats):
        seats["3"]["body"] = list(seats["2"]["body"])

    same = seat_regions.check_file(_write_cal(tmp_path / "v.json", overlap))
    assert same.bad_seats == (2,) and "seats 2 and 3 are the same place" in same.problems[0]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    res = seat_regions.check_file(bad)
    assert not res.ok and "not valid JSON" in res.problems[0]
    assert not seat_regions.check_file(tmp_path / "absent.json").ok


def test_set_box_keeps_a_backup_and_the_other_seats(tmp_path):
    path = _write_cal(tmp_path / "calibration.json")
    before = path.read_bytes()
    seat_regions.set_box(path, "cam1", 3, (500, 40, 200, 290), confirmed_by="Anna")
    cams = seat_regions.load_regions(path)
    assert cams[0].boxes[3] == (500, 40, 200, 290)
    assert cams[0].zones[3] == tuple(fixtures.table_zones()[3])  # the other region is kept
    assert cams[0].boxes[4] == tuple(fixtures.seat_boxes()[4])
    assert json.loads(path.read_text())["confirmed_by"] == "Anna"
    assert (tmp_path / "calibration.json.bak").read_bytes() == before
    seat_regions.set_box(path, "cam1", 3, (520, 250, 200, 80), region="table_zone")
    assert seat_regions.load_regions(path)[0].zones[3] == (520, 250, 200, 80)


def test_a_region_drawn_over_a_proposed_seat_is_no_longer_the_proposals_guess(tmp_path):
    from vision.calibration import Proposed, load_calibration, save_calibration
    path = _write_cal(tmp_path / "calibration.json")
    cal = load_calibration(path)
    seats = cal.cameras["cam1"].seats
    for s in (3, 4):
        seats[s] = replace(seats[s], proposed=Proposed(False, "table_model", None))
    save_calibration(cal, path)
    seat_regions.set_box(path, "cam1", 3, (500, 40, 200, 290))                        # the body drawn
    seat_regions.set_box(path, "cam1", 4, (520, 250, 200, 80), region="table_zone")   # the zone drawn
    after = load_calibration(path).cameras["cam1"].seats
    assert after[3].proposed == Proposed(True, "table_model", None)     # found by a person; zone still a guess
    assert after[4].proposed == Proposed(False, "hand", 0.0)            # zone placed; the player still not found


# -- phases, progress --------------------------------------------------------------------

def test_phases_from_protocol_times():
    spans = phases_from_protocol(fixtures.protocol())
    night0 = [s for s in spans if s.kind == "night"][0]
    assert (night0.t0, night0.t1) == (0.2, 1.6)
    votes = [s for s in spans if s.kind == "vote"]
    assert [(v.seats, v.t0, v.t1) for v in votes] == [((5,), 6.2, 7.4), ((8,), 7.6, 8.6)]
    assert len([s for s in spans if s.kind == "speech"]) == 11


def test_game_phases_apply_the_camera_offset():
    doc = fixtures.protocol()
    doc["cameras"][0]["offset"] = 100.0
    spans = game_phases(doc)
    assert min(s.t0 for s in spans) == pytest.approx(100.2)


def test_vote_cell_says_frame_timed_edges_against_thank_you():
    from app.vote_grid import cell
    from review.recount_file import VoteCall, VoterRecord
    late = VoterRecord(4, 63.02, 63.9, "thumb_up", False, "late", 1.0, timing="full_rate")
    lifted = VoterRecord(6, 61.5, 62.71, "thumb_up", True, "in_window", 1.0, lift_timing="full_rate")
    plain = VoterRecord(7, 61.6, 63.6, "thumb_up", True, "in_window", 1.0, timing="sampled")
    call = VoteCall(0, 1, 5, t_call=60.0, t_thanks=62.94, voters=(late, lifted, plain))
    assert "landed +0.08 s from “thank you” (25 fps)" in cell(call, 4).text
    assert cell(call, 4).state == "void"
    assert "lifted -0.23 s from “thank you”" in cell(call, 6).text
    assert "thank you" not in cell(call, 7).text


def test_a_cell_not_judged_says_why_in_a_judges_words():
    from app.vote_grid import cell
    from review.recount import NO_THUMB
    from review.recount_file import VoteCall
    call = VoteCall(0, 1, 5, t_call=60.0, t_thanks=62.94, voters=(),
                    unverified=((3, ("implausible", "unread")), (4, (NO_THUMB,)), (6, ())))
    assert cell(call, 3).text == "? cannot judge\nseat misread, hand or face not read"
    assert cell(call, 3).state == "unverified"
    assert cell(call, 4).text.endswith("thumb not seen") and cell(call, 6).text.endswith("not seen")


def test_vote_grid_row_labels_wrap_in_their_column_with_the_clock_kept_whole():
    """A revote's label is longer than its fixed column: it wraps (it ran into
    seat 1's cell), escaped, its clock time on one line."""
    from app.vote_grid import SEATS, CellView, grid_html
    row = {str(s): CellView("", "empty") for s in SEATS}
    out = grid_html(["revote against 9 (pass 2) @ 1:12.7", "<b> @ 0:05.0"], [row, row])
    assert "nowrap" not in out
    assert "revote against 9 (pass 2)<br>@&nbsp;1:12.7</th>" in out
    assert "&lt;b&gt;<br>@&nbsp;0:05.0" in out


def test_the_analysis_state_reads_in_a_judges_words():
    from app.analysis_state import analysis_summary
    from review.workspace import ANALYSIS_STEPS
    said, rows = analysis_summary({})
    assert said == "not run yet" and not any(ok for _, ok in rows)
    # no pipeline identifier reaches the page
    assert not any("_" in label for label, _ in rows) and len(rows) == len(ANALYSIS_STEPS)
    said, rows = analysis_summary({"calibration_check": True, "extract": True, "extract_refine": True})
    assert said.startswith("stopped after \u201cvideo read\u201d") and [ok for _, ok in rows][:3] == [True, True, False]
    said, _ = analysis_summary({step: True for step in ANALYSIS_STEPS})
    assert said == "complete"


"""Schedules, the observation store and extraction on a real clip."""
from __future__ import annotations

import sqlite3

import cv2
import numpy as np
import pytest
from conftest import DIGITS, ffmpeg
from PIL import Image

from vision.calibration import Calibration, CalibrationError, CameraCalibration, SeatRegion
from vision.landmarks import Hand, Model, SeatLandmarks
from vision.schedule import Schedule, ScheduleRange, extract, frames_for
from vision.store import StoredInterval, ObservationStore


def test_merge_takes_max_fps_and_unites_seats():
    s = Schedule.of(ScheduleRange(0, 10, 1, None, "day"),
                    ScheduleRange(4, 6, 5, (3,), "vote"),
                    ScheduleRange(5, 8, 2, (1, 3), "night"))
    m = s.merged().ranges
    assert [(r.t0, r.t1, r.fps, r.seats) for r in m] == [
        (0, 4, 1, None), (4, 6, 5, None), (6, 8, 2, None), (8, 10, 1, None)]
    assert m[1].label == "day+vote+night" and m[2].label == "day+night"
    only = Schedule.of((4, 6, 5, (3,), "vote"), (5, 8, 2, (1, 3), "night")).merged().ranges
    assert [(r.t0, r.t1, r.fps, r.seats) for r in only] == [
        (4, 5, 5, (3,)), (5, 6, 5, (1, 3)), (6, 8, 2, (1, 3))]


def test_merge_unites_models():
    m = Schedule.of(ScheduleRange(0, 2, 2, None, "vote", ("hands",)),
                    ScheduleRange(1, 3, 2, None, "night", ("face", "pose"))).merged().ranges
    assert [(r.t0, r.t1, r.models) for r in m] == [
        (0, 1, ("hands",)), (1, 2, ("face", "hands", "pose")), (2, 3, ("face", "pose"))]
    with pytest.raises(ValueError, match="models"):
        ScheduleRange(0, 1, 1, None, "", ("eyes",))


def test_frames_for_enumerates_each_sample_once():
    s = Schedule.of((0, 2, 2), (1, 3, 4), (10, 20, 1))
    t = frames_for(s, 12.0)
    expected = [0, 0.5, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 10, 11]
    np.testing.assert_allclose(t, expected)
    chunks = s.chunks(max_seconds=0.5)
    assert [c.t0 for c in chunks][:4] == [0, 0.5, 1.0, 1.5]
    assert sum(len(c.times()) for c in s.clipped(12).chunks(0.5)) == len(expected)


def test_phase_edges_do_not_move_the_frames_read():
    # A timed and an untimed protocol place the same night 0.14 s apart: in
    # the seconds both cover they must read the same frames in the same
    # chunks, or the same pixels give two answers (measured: a peek at the
    # bar on one side only).
    timed = Schedule.of((173.81, 190.0, 6, None, "night")).chunks()
    untimed = Schedule.of((167.0, 187.0, 6, None, "night")).chunks()
    t_times = np.concatenate([c.times() for c in timed])
    u_times = np.concatenate([c.times() for c in untimed])
    both = t_times[(t_times > 173.9) & (t_times < 186.9)]
    np.testing.assert_allclose(both, u_times[(u_times > 173.9) & (u_times < 186.9)])
    np.testing.assert_allclose(both * 6, np.round(both * 6), atol=1e-6)
    inside = {c.t0 for c in timed if c.t0 > 174} & {c.t0 for c in untimed}
    assert inside == {180.0}
    # a range too short to hold a grid point is still looked at once
    assert [len(c.times()) for c in Schedule.of((10.05, 10.1, 5)).chunks()] == [1]


def test_bad_ranges_are_rejected():
    with pytest.raises(ValueError, match="empty"):
        ScheduleRange(3, 3, 1)
    with pytest.raises(ValueError, match="fps"):
        ScheduleRange(0, 1, 0)
    with pytest.raises(ValueError, match="seats"):
        ScheduleRange(0, 1, 1, (11,))


def _lm(seat, t, x):
    pts = np.zeros((21, 3))
    pts[:, 0] = x + np.arange(21)
    pts[:, 1] = 100
    return SeatLandmarks(seat, t, (0, 0, 10, 10), hands=[Hand(pts, "left", 0.9)],
                         cpu={"hands": 0.01})


def test_store_queries_by_seat_and_time(tmp_path):
    path = tmp_path / "analysis" / "observations.sqlite"
    with ObservationStore(path) as db:
        for t in (0.0, 0.5, 1.0, 1.5):
            db.add_frame_results("cam1", t, (1280, 720), [_lm(2, t, 10 * t), _lm(7, t, 500)])
        db.add_intervals("tracks", [StoredInterval("cam1", 2, "fist", 0.4, 1.2, 0.9, "vote"),
                                    StoredInterval("cam1", 7, "fingers_shown", 3.0, 4.0, 0.8, 3)])
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with ObservationStore(path) as db:
        assert db.frame_times("cam1", 0.5, 1.5) == [0.5, 1.0]
        rows = list(db.landmark_rows(seat=2, t0=0.5, t1=1.5, model=Model.HANDS))
        assert [(r[1], r[2], r[3]) for r in rows] == [(2, 0.5, "hands"), (2, 1.0, "hands")]
        got = db.seat_landmarks(2, 1.0, 2.0)
        assert [g.t for g in got] == [1.0, 1.5]
        assert got[1].hands[0].points[0, 0] == pytest.approx(15.0)
        assert db.seat_landmarks(5) == []
        tr = db.intervals("tracks", seat=2, t0=1.0, t1=2.0)
        assert [(i.state, i.t0, i.t1) for i in tr] == [("fist", 0.4, 1.2)]
        assert db.intervals("tracks", t0=1.3, t1=2.9) == []
        assert db.intervals("tracks", seat=7)[0].value == 3   # an int stays an int
        cols = [r[1] for r in db.db.execute("PRAGMA table_info(states)")]
        assert cols == ["cam", "seat", "state", "t0", "t1", "confidence", "value"]


@pytest.fixture(scope="module")
def hand_clip(tmp_path_factory):
    """A 3 s 1280x720 clip: a real open-hand photo at seat 3, nothing at seat 5."""
    files = sorted((DIGITS / "5").glob("*.JPG"))
    if not files:
        pytest.skip("no sign-digit photos")
    d = tmp_path_factory.mktemp("clip")
    frame = np.full((720, 1280, 3), 96, np.uint8)
    photo = np.array(Image.open(files[0]).convert("RGB"))
    frame[300:500, 700:900] = cv2.resize(photo, (200, 200), interpolation=cv2.INTER_CUBIC)
    Image.fromarray(frame).save(d / "frame.png")
    video = d / "clip.mp4"
    ffmpeg("-loop", "1", "-i", str(d / "frame.png"), "-t", "3", "-r", "10",
           "-c:v", "libx264", "-g", "10", "-pix_fmt", "yuv420p", str(video))
    seats = {s: SeatRegion((20 + 120 * (s - 1), 20, 130 + 120 * (s - 1), 200),
                           (20 + 120 * (s - 1), 200, 130 + 120 * (s - 1), 260)) for s in range(1, 11)}
    seats[3] = SeatRegion((600, 150, 1000, 560), (600, 500, 1000, 600))
    seats[5] = SeatRegion((100, 300, 400, 600), (100, 600, 400, 700))
    cal = Calibration({"cam1": CameraCalibration(1280, 720, seats)})
    return video, cal


@pytest.mark.slow
def test_extract_writes_landmarks_and_resumes(hand_clip, tmp_path):
    video, cal = hand_clip
    sched = Schedule.of(ScheduleRange(0.0, 1.0, 4, (3,), "vote"),
                        ScheduleRange(2.0, 3.0, 2, (3, 5), "night"))
    store = tmp_path / "observations.sqlite"
    rep = extract(video, cal, sched, store=store, workers=2, chunk_seconds=0.5, models=[Model.HANDS],
                  gate=False)
    assert rep.errors == [] and rep.chunks_done == rep.chunks_total == 4
    assert rep.frames == 6 and rep.seat_frames == 4 + 2 * 2
    # Only the scheduled frames were decoded (10 fps clip, 30 frames; each
    # chunk decodes from the keyframe before it, at most a GOP of 10, plus itself).
    assert rep.decode.frames_returned == 6
    assert rep.decode.frames_decoded <= 4 * (10 + 5 + 2) < 30 * 4
    assert rep.calls["hands"] == 8 and rep.cpu["hands"] > 0
    with ObservationStore(store) as db:
        assert db.frame_times() == pytest.approx([0.0, 0.25, 0.5, 0.75, 2.0, 2.5])
        seat3 = db.seat_landmarks(3)
        assert len(seat3) == 6
        assert sum(1 for s in seat3 if s.hands) >= 5
        for s in seat3:
            for h in s.hands:
                x0, y0, x1, y1 = h.box
                assert 690 <= x0 < x1 <= 910 and 290 <= y0 < y1 <= 510
        seat5 = db.seat_landmarks(5)
        assert [s.t for s in seat5] == [2.0, 2.5] and all(not s.hands for s in seat5)
        assert db.timings()["hands"][0] == 8
        # Simulate an interruption that lost the last chunk.
        db.db.execute("DELETE FROM chunks WHERE t0 = 2.5")
        db.db.commit()
    again = extract(video, cal, sched, store=store, workers=2, chunk_seconds=0.5, models=[Model.HANDS],
                  gate=False)
    assert again.chunks_skipped == 3 and again.chunks_done == 1 and again.frames == 1
    assert again.decode.processes == 1


def test_extract_refuses_missing_seats_and_warns_on_short_video(hand_clip, tmp_path):
    video, cal = hand_clip
    partial = Calibration({"cam1": CameraCalibration(1280, 720, {
        s: r for s, r in cal.cameras["cam1"].seats.items() if s != 8})})
    with pytest.raises(CalibrationError, match=r"seat\(s\) 8"):
        extract(video, partial, Schedule.of((0, 1, 1)), store=tmp_path / "o.sqlite", workers=1)
    rep = extract(video, cal, Schedule.of((2.5, 10, 1, (5,), "late")), store=tmp_path / "o.sqlite",
                  workers=1, models=[Model.HANDS])
    assert any("lasts 3.0 s" in e for e in rep.errors)
    assert rep.frames == 1


def small_calibration() -> Calibration:
    seats = {s: SeatRegion((30 * (s - 1), 0, 30 * s, 120), (30 * (s - 1), 120, 30 * s, 180))
             for s in range(1, 11)}
    return Calibration({"cam1": CameraCalibration(320, 240, seats)})


def test_sparse_schedule_seeks_each_sample(media, tmp_path):
    # One sample every 5 s: each is its own seek (one GOP of 25 frames at
    # most), not a decode of everything in between.
    rep = extract(media["h264"], small_calibration(), Schedule.of((0.0, 8, 0.2, (2,))),
                  store=tmp_path / "o.sqlite", workers=1, models=[Model.HANDS])
    assert rep.errors == [] and rep.frames == 2
    assert rep.decode.processes == 2
    assert rep.decode.frames_decoded <= 2 * (25 + 3)


def test_extract_on_truncated_video_keeps_what_was_read(media, tmp_path):
    cal = small_calibration()
    store = tmp_path / "o.sqlite"
    rep = extract(media["truncated"], cal, Schedule.of((0, 8, 1, (1,))), store=store,
                  workers=1, models=[Model.HANDS])
    assert len(rep.errors) == 1
    assert str(media["truncated"]) in rep.errors[0] and "last readable time" in rep.errors[0]
    assert rep.chunks_done == 0 and 2 <= rep.frames < 8
    with ObservationStore(store) as db:
        # 1 fps over a file with a key frame every 1.28 s: the key frames themselves
        times = db.frame_times()
        assert len(times) == rep.frames and times == sorted(times) and times[0] == 0.0
        assert db.done_chunks() == []


def test_each_range_runs_only_its_models(media, tmp_path):
    sched = Schedule.of(ScheduleRange(0, 1, 2, (1,), "vote", ("hands", "hands_zone")),
                        ScheduleRange(2, 3, 2, (1,), "night", ("mesh", "face")),
                        ScheduleRange(4, 5, 2, (1,), "coarse", ()))
    store = tmp_path / "o.sqlite"
    rep = extract(media["h264"], small_calibration(), sched, store=store, workers=1,
                  models=[Model.HANDS, Model.FACE, Model.MESH], gate=False)
    # hands run twice per seat-frame where asked: on the seat crop and on the
    # table-zone crop; a range asking for no model still stores its frames
    # (with the learned window features)
    assert rep.errors == [] and rep.calls == {"hands": 2, "hands_zone": 2, "face": 2, "mesh": 2}
    with ObservationStore(store) as db:
        got = sorted({(t, m) for _, _, t, m, _, _ in db.landmark_rows(seat=1)})
        assert got == [(0.0, "hands"), (0.5, "hands"), (2.0, "face"), (2.0, "mesh"),
                       (2.5, "face"), (2.5, "mesh"), (4.0, "features"), (4.5, "features")]
        assert [c[4] for c in db.done_chunks()] == ["hands,hands_zone", "face,mesh", "none"]
        assert db.frame_times() == [0.0, 0.5, 2.0, 2.5, 4.0, 4.5]


def test_a_recording_larger_than_its_calibration_is_analysed_in_calibration_pixels(media, tmp_path):
    # the 320x240 clip with a calibration made on a 160x120 still: frames are
    # decoded downscaled, and every stored box is in the calibration's pixels
    seats = {s: SeatRegion((15 * (s - 1), 0, 15 * s, 60), (15 * (s - 1), 60, 15 * s, 90)) for s in range(1, 11)}
    cal = Calibration({"cam1": CameraCalibration(160, 120, seats)})
    store = tmp_path / "o.sqlite"
    rep = extract(media["h264"], cal, Schedule.of((1, 2, 2, (3, 9))), store=store, workers=1,
                  models=[Model.HANDS], gate=False)
    assert rep.errors == [] and rep.frames == 2
    with ObservationStore(store) as db:
        sizes = {tuple(r) for r in db.db.execute("SELECT width, height FROM frames")}
        assert sizes == {(160, 120)}
        for seat in (3, 9):
            for lm in db.seat_landmarks(seat):
                x0, y0, x1, y1 = lm.crop_box
                assert 0 <= x0 < x1 <= 160 and 0 <= y0 < y1 <= 120
                body = seats[seat].body
                assert x0 <= body[0] and x1 >= body[2]      # the seat's own region, not a scaled copy


def test_sparse_ranges_are_read_in_longer_chunks():
    """A chunk is one FFmpeg process: key-frame ranges (1 fps) go three times
    as long per chunk as dense ones, on the same grid from the video's start."""
    from vision.schedule import SPARSE_CHUNKS

    sparse = Schedule.of((5.0, 95.0, 1, None, "day")).chunks(10.0)
    assert [(c.t0, c.t1) for c in sparse] == [(5.0, 30.0), (30.0, 60.0), (60.0, 90.0), (90.0, 95.0)]
    assert SPARSE_CHUNKS == 3
    dense = Schedule.of((5.0, 35.0, 5, None, "vote")).chunks(10.0)
    assert [(c.t0, c.t1) for c in dense] == [(5.0, 10.0), (10.0, 20.0), (20.0, 30.0), (30.0, 35.0)]
    assert sum(len(c.times()) for c in sparse) == len(Schedule.of((5.0, 95.0, 1)).ranges[0].times())


def test_crop_coordinates_go_to_the_frame_and_back():
    import numpy as np

    from vision.crops import crop

    c = crop(np.zeros((720, 1280, 3), np.uint8), (100.0, 50.0, 420.0, 290.0), 256)
    pts = np.array([[100.0, 50.0], [420.0, 290.0], [260.5, 170.25]])
    assert np.allclose(c.to_frame(c.to_crop(pts)), pts)
    assert np.allclose(c.to_crop(pts[:2]), [[0.0, 0.0], [c.image.shape[1], c.image.shape[0]]])

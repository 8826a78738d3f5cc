"""Frame differencing: still seats carry their last analysed result."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from conftest import ffmpeg

from vision.calibration import Calibration, CameraCalibration, SeatRegion
from vision.landmarks import Model, SeatLandmarks
from vision.motion import MotionGate, RegionMemory, thumbnail, watch_box
from vision.schedule import Schedule, ScheduleRange, extract
from vision.store import ObservationStore


def _frame(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(40, 200, (240, 320, 3), dtype=np.uint8)


BOX = (100.0, 50.0, 220.0, 200.0)


def test_still_seat_is_carried_and_retimed():
    gate, img = MotionGate(), _frame()
    first = SeatLandmarks(seat=3, t=1.0, crop_box=BOX, features={"app_zone_vote": 0.1}, cpu={"hands": 0.02})
    th = thumbnail(img, BOX)
    assert gate.carry(3, 1.0, th, "m") is None            # nothing to carry yet
    gate.keep(3, 1.0, th, "m", first)
    noisy = np.clip(img.astype(int) + np.random.default_rng(1).integers(-3, 4, img.shape), 0, 255).astype(np.uint8)
    got = gate.carry(3, 1.2, thumbnail(noisy, BOX), "m")
    assert got is not None and got.t == 1.2 and got.features == first.features
    assert got.cpu == {"hands": 0.0}          # stored as a hands row again, at no cost
    assert first.t == 1.0 and first.cpu == {"hands": 0.02}   # the reference itself is untouched


def test_a_fist_sized_change_is_not_carried():
    gate, img = MotionGate(), _frame()
    gate.keep(3, 1.0, thumbnail(img, BOX), "m", SeatLandmarks(seat=3, t=1.0, crop_box=BOX))
    moved = img.copy()
    moved[150:170, 150:168] = 250          # an 18x20 px bright blob: a vote fist in a 720p frame
    assert gate.carry(3, 1.2, thumbnail(moved, BOX), "m") is None


def test_no_carry_across_a_gap_or_another_mode_or_seat():
    gate, img = MotionGate(max_gap=2.0), _frame()
    th = thumbnail(img, BOX)
    gate.keep(3, 1.0, th, "m", SeatLandmarks(seat=3, t=1.0, crop_box=BOX))
    assert gate.carry(3, 3.5, th, "m") is None             # 2.5 s since the seat was last seen
    gate.keep(3, 3.5, th, "m", SeatLandmarks(seat=3, t=3.5, crop_box=BOX))
    assert gate.carry(3, 3.7, th, "other models") is None
    assert gate.carry(4, 3.7, th, "m") is None
    # the reference stays the last analysed frame: drift adds up until it is seen
    drift = img
    carried = 0
    for k in range(1, 6):
        drift = np.clip(drift.astype(int) + 3, 0, 255).astype(np.uint8)
        carried += gate.carry(3, 3.8 + 0.2 * k, thumbnail(drift, BOX), "m") is not None
    assert carried == 2


def test_watch_box_covers_the_zone_crop_margin():
    r = SeatRegion((100, 20, 160, 140), (100, 140, 160, 180))
    b = watch_box(r, (320, 240))
    assert b[0] < 100 - 0.3 * 60 and b[3] > 180 + 0.3 * 40 - 1


def test_extract_carries_still_seats_only(tmp_path):
    # seats 1-5 (left half) stay still; seats 6-10 change in every frame
    fps, n = 10, 30
    frames = []
    base = _frame(5)
    for k in range(n):
        f = base.copy()
        f[:, 160:] = _frame(100 + k)[:, 160:]
        frames.append(f)
    video = tmp_path / "v.mp4"
    ffmpeg("-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "320x240", "-r", str(fps), "-i", "-",
           "-c:v", "libx264", "-crf", "18", "-g", "10", "-pix_fmt", "yuv420p", str(video),
           stdin=b"".join(f.tobytes() for f in frames))
    seats = {s: SeatRegion((30 * (s - 1) + 5, 0, 30 * s - 5, 120), (30 * (s - 1) + 5, 120, 30 * s - 5, 180))
             for s in range(1, 11)}
    cal = Calibration({"cam1": CameraCalibration(320, 240, seats)})
    sched = Schedule.of(ScheduleRange(0, 2.9, 5, None, "vote", ("hands",)))
    on = extract(video, cal, sched, store=tmp_path / "on.sqlite", workers=1, models=[Model.HANDS])
    off = extract(video, cal, sched, store=tmp_path / "off.sqlite", workers=1, models=[Model.HANDS], gate=False)
    assert on.errors == [] and on.seat_frames == off.seat_frames == 15 * 10
    assert off.carried == 0
    # seats 1-5 are carried after their first frame; seats 6-10 never
    assert on.carried == 5 * 14
    with ObservationStore(tmp_path / "on.sqlite") as a, ObservationStore(tmp_path / "off.sqlite") as b:
        for seat in (1, 8):
            fa = [(lm.t, lm.features.get("app_body_rest")) for lm in a.seat_landmarks(seat)]
            fb = [(lm.t, lm.features.get("app_body_rest")) for lm in b.seat_landmarks(seat)]
            assert [t for t, _ in fa] == [t for t, _ in fb]
            assert np.allclose([v for _, v in fa], [v for _, v in fb], atol=0.05)
        # a carried frame stores the rows its analysed reference stored
        rows: dict[float, set] = {}
        for _, _, t, m, _, _ in a.landmark_rows(seat=1):
            rows.setdefault(t, set()).add(m)
        assert len(rows) == 15 and all(r == rows[0.0] for r in rows.values())


# --- the zone pass's box readings (RegionMemory) ------------------------------

ZBOX = (40.0, 60.0, 80.0, 100.0)
CROP_BOX = (300, 400, 556, 600)


def test_a_box_read_before_is_recalled_while_its_pixels_stay_still():
    mem, img = RegionMemory(), _frame()
    assert mem.recall(3, "blob", 1.0, CROP_BOX, img, ZBOX) is None
    value = [np.arange(4.0)]
    mem.keep(3, "blob", 1.0, CROP_BOX, img, ZBOX, value)
    noisy = np.clip(img.astype(int) + np.random.default_rng(2).integers(-3, 4, img.shape), 0, 255).astype(np.uint8)
    shifted = (ZBOX[0] + 2, ZBOX[1] + 1, ZBOX[2] + 2, ZBOX[3] + 1)    # the blob's box jitters by a pixel or two
    got = mem.recall(3, "blob", 1.2, CROP_BOX, noisy, shifted)
    assert got is not None and np.array_equal(got[0], value[0])
    got[0][0] = 99.0                      # a recalled value is a copy: the kept one is not changed
    assert np.array_equal(mem.recall(3, "blob", 1.4, CROP_BOX, img, ZBOX)[0], np.arange(4.0))
    assert (mem.read, mem.recalled) == (1, 2)


def test_a_box_whose_pixels_changed_is_read_again():
    mem, img = RegionMemory(), _frame()
    mem.keep(3, "blob", 1.0, CROP_BOX, img, ZBOX, [])
    fist = img.copy()
    fist[70:90, 50:70] = 250              # a thumb-up landed in the box
    assert mem.recall(3, "blob", 1.2, CROP_BOX, fist, ZBOX) is None
    far = (ZBOX[0] + 20, ZBOX[1], ZBOX[2] + 20, ZBOX[3])                # another blob beside it
    assert mem.recall(3, "blob", 1.2, CROP_BOX, img, far) is None


def test_no_recall_across_a_gap_another_seat_kind_or_crop_and_drift_is_seen():
    mem, img = RegionMemory(max_gap=2.0), _frame()
    mem.keep(3, "blob", 1.0, CROP_BOX, img, ZBOX, [])
    assert mem.recall(3, "blob", 3.5, CROP_BOX, img, ZBOX) is None     # 2.5 s later
    mem.keep(3, "blob", 3.5, CROP_BOX, img, ZBOX, [])
    assert mem.recall(4, "blob", 3.7, CROP_BOX, img, ZBOX) is None
    assert mem.recall(3, "reread", 3.7, CROP_BOX, img, ZBOX) is None
    assert mem.recall(3, "blob", 3.7, (0, 0, 256, 200), img, ZBOX) is None
    # compared with the pixels it was read in, not the last recalled ones
    drift, recalled = img, 0
    for k in range(1, 6):
        drift = np.clip(drift.astype(int) + 3, 0, 255).astype(np.uint8)
        recalled += mem.recall(3, "blob", 3.5 + 0.2 * k, CROP_BOX, drift, ZBOX) is not None
    assert recalled == 2


def test_the_zone_pass_recalls_an_unchanged_frame_and_finds_the_same_hands():
    """The extraction's seat path on a vote frame of the committed sample, the
    same frame twice with a memory: the second pass reads no box and gives
    the hands of the first, and of a pass without a memory."""
    import json

    from vision.calibration import load_calibration
    from vision.landmarks import SeatLandmarker
    from vision.schedule import ZONE_MAX_HANDS, seat_landmarks
    from vision.video import open_video

    sample_game = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"
    truth = json.loads((sample_game / "truth.json").read_text())
    fists = [s for s in truth["seat_states"] if s["state"] == "vote_fist"]
    seat_t = [(s["seat"], round((s["t0"] + s["t1"]) / 2, 2)) for s in fists[:6]]
    seats = load_calibration(sample_game / "calibration.json").camera("cam1").seats
    video = open_video(str(sample_game / "video.mp4"))
    mem = RegionMemory()
    with SeatLandmarker(tracking=False, models=()) as seat_lm, \
            SeatLandmarker(tracking=False, models=(Model.HANDS,), max_hands=ZONE_MAX_HANDS) as zone:
        for seat, t in seat_t:
            image = next(iter(video.read_at([t]))).image
            first = seat_landmarks(image, t, seat, seats[seat], seat_lm, zone, only=[], gate=False, memory=mem)
            read = mem.read
            again = seat_landmarks(image, t + 0.2, seat, seats[seat], seat_lm, zone, only=[], gate=False,
                                   memory=mem)
            assert mem.read == read                  # nothing read the second time
            assert len(first.hands) == len(again.hands)
            for ha, hb in zip(first.hands, again.hands):
                assert np.allclose(ha.points[:, :2], hb.points[:, :2], atol=1.0)
                assert len(ha.readings) == len(hb.readings)
    assert mem.read > 0 and mem.recalled >= mem.read

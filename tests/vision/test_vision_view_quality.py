"""Per-frame view quality of a seat's windows, on real decoded frames of the committed sample."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.appearance import appearance_batch, window_box
from vision.calibration import load_calibration
from vision.crops import seat_crop
from vision.tracks import FrameState, Observed
from vision.video import open_video
from vision.view_quality import Blind, ViewLimits, frame_views, margin, reading, seat_views, window_blind

SAMPLE = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"


@pytest.fixture(scope="module")
def frame_and_seats():
    seats = load_calibration(SAMPLE / "calibration.json").camera("cam1").seats
    frame = open_video(SAMPLE / "video.mp4").read_at([40.0])[0].image    # a day frame, everybody seated
    return frame, seats


def _features(image: np.ndarray, seats) -> dict[int, dict[str, float]]:
    order = sorted(seats)
    rows = appearance_batch([seat_crop(image, seats[s]) for s in order], [seats[s] for s in order])
    return dict(zip(order, rows))


def test_every_window_of_the_sample_in_its_own_light_can_be_judged(frame_and_seats):
    frame, seats = frame_and_seats
    for seat, f in _features(frame, seats).items():
        assert {"lum_head", "con_zone", "far_body"} <= set(f)
        for w in ("head", "zone", "body"):
            assert window_blind(f, w) == (), (seat, w, {k: v for k, v in f.items() if not k.startswith("app_")})


def test_a_seat_in_deep_shadow_is_too_dark_and_a_board_in_front_too_flat(frame_and_seats):
    frame, seats = frame_and_seats
    img = frame.copy()
    x0, y0, x1, y1 = (int(v) for v in seats[4].body)
    img[y0:y1, x0:x1] = (img[y0:y1, x0:x1] * 0.08).astype(np.uint8)      # a shadow over seat 4
    zx0, zy0, zx1, zy1 = (int(v) for v in window_box("zone", seats[9]))
    img[zy0:zy1, zx0:zx1] = 128                                         # a grey board over seat 9's zone
    f = _features(img, seats)
    assert Blind.DARK in window_blind(f[4], "body") and Blind.DARK in window_blind(f[4], "head")
    assert Blind.FLAT in window_blind(f[9], "zone")
    assert window_blind(f[9], "head") == ()          # only what is covered is blind


def test_unfamiliar_and_unsure_follow_their_limits():
    f = {"far_zone": 30.0, "app_zone_vote": 0.48, "app_zone_none": 0.45, "app_zone_wrong": 0.07}
    assert margin(f, "zone") == pytest.approx(0.03)
    strict = ViewLimits(min_margin={"zone": 0.2})
    assert window_blind(f, "zone", strict) == (Blind.UNFAMILIAR, Blind.UNSURE)
    assert window_blind({}, "zone", strict) == ()             # no features stored: no evidence either way


def test_the_vision_layers_cannot_judge_state_makes_its_window_blind():
    unread = [FrameState(12.4, 3, Observed.ZONE_UNREAD, 0.7, "no_hand")]
    views = seat_views([(3, 12.4, {}), (3, 12.6, {})], unread)
    by_t = {(v.t, v.window): v for v in views}
    assert by_t[(12.4, "zone")].blind == (Blind.UNREAD,) and by_t[(12.6, "zone")].seen
    assert all(v.seen for v in frame_views(3, 12.4, {}, ()))


def _vote_frames(fist_at: list[float], unread_at: list[float], seat: int = 1) -> list[FrameState]:
    frames = [FrameState(t, seat, Observed.MASK_OFF, 1.0) for t in sorted(set(fist_at) | set(unread_at))]
    frames += [FrameState(t, seat, Observed.FIST_ON_TABLE, 1.0, "thumb_up") for t in fist_at]
    frames += [FrameState(t, seat, Observed.ZONE_UNREAD, 0.55, "weak_fist") for t in unread_at]
    return frames


def test_an_unread_zone_beside_a_counted_fist_is_seen_beside_a_lone_frame_it_is_not():
    """The unread frames of a fist that landing and lifting half hide are seen
    when the fist stands as a track the recount counts (three frames); a single
    frame read as a thumb-up makes no vote, and excusing the unread frames
    around it judged the cell as no vote (full-length game seed 7, 2,122 s)."""
    unread = [2122.2, 2122.4, 2122.6, 2122.8, 2123.0]
    counted = _vote_frames([2123.2, 2123.4, 2123.6], unread)
    lone = _vote_frames([2123.2], unread + [2123.4, 2123.6])
    for frames, blind in ((counted, False), (lone, True)):
        views = seat_views([(1, t, {}) for t in sorted({f.t for f in frames})], frames)
        zone = {v.t: v for v in views if v.window == "zone"}
        assert all((not zone[t].seen) is blind for t in unread), (blind, {t: zone[t].blind for t in unread})


def test_the_head_is_weighed_by_what_decides_the_mask_not_by_the_window_alone():
    """The face mesh reads the mask first (vision.seat_states): a seat the mesh
    misreads all night must be caught by the baseline check, so the head's
    class is the mesh's where it judged, the window's only on its own kind of
    pixels, and none on real pixels the mesh could not read."""
    mesh_off = {"mesh_found": 1.0, "mesh_face_w": 0.4, "mesh_face_dx": 0.02, "mesh_face_dy": 0.05,
                "mesh_skin_share": 0.9, "mesh_skin_lum": 140.0, "mesh_mask_on": 0.02, "mesh_mask_off": 0.97,
                "mesh_mask_lifted": 0.01, "mesh_far": 1.2}
    window_on = {"app_head_mask_on": 0.9, "app_head_mask_off": 0.05, "app_head_mask_lifted": 0.05}
    by_w = {v.window: v for v in frame_views(5, 91.0, {**mesh_off, **window_on, "head_real": 0.0})}
    assert by_w["head"].best == "mask_off"                       # the mesh decides, not the window
    assert by_w["zone"].best is None and by_w["body"].best is None
    assert reading({**window_on, "head_real": 0.0}, "head") == "mask_on"    # rendered-like pixels: the window
    assert reading({**window_on, "head_real": 1.0}, "head") is None         # real pixels, no mesh: cannot judge
    assert reading({"mesh_found": 0.0, **window_on, "head_real": 1.0}, "head") is None
    # a hand at the face the body window sees: the head window reads the hand, not the mask
    assert reading({**window_on, "head_real": 0.0, "app_body_hand_face": 0.5}, "head") is None

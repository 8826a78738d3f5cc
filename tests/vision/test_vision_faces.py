"""The mask from the face mesh first (vision.faces, seat_states._mask): the
judgement of the stored mesh features, the order of the mesh and the learned
head window, "cannot judge" frames, and a real (CC0) face read bare, with
a composited eye mask and with the mask lifted, at table-camera size."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.calibration import Calibration, CameraCalibration, SeatRegion
from vision.faces.composite import MaskLook, TableView, paint_mask, table_view
from vision.faces.mask_read import committed_model, judge
from vision.faces.mesh import HeadMesh
from vision.landmarks import Model, SeatLandmarker, SeatLandmarks
from vision.seat_states import HAND_FACE_DOUBT, MIN_MASK_HEAD_PX, WINDOW_REAL, classify_frames, head_reading
from vision.stills import read_mask

FACE = Path(__file__).with_name("data") / "face_cc0.jpg"
CAL = Calibration({"cam1": CameraCalibration(1000, 600, {
    s: SeatRegion((100.0 + 250 * (s - 1), 50.0, 300.0 + 250 * (s - 1), 350.0),
                  (150.0 + 250 * (s - 1), 360.0, 250.0 + 250 * (s - 1), 440.0))
    for s in (1, 2, 3)})})
SURE_ON = {"mesh_found": 1.0, "mesh_face_w": 0.4, "mesh_face_dx": 0.02, "mesh_face_dy": 0.05,
           "mesh_skin_share": 0.9, "mesh_skin_lum": 140.0, "mesh_mask_on": 0.97, "mesh_mask_off": 0.02,
           "mesh_mask_lifted": 0.01, "mesh_far": 1.2}
WINDOW_OFF = {"app_head_mask_on": 0.02, "app_head_mask_off": 0.97, "app_head_mask_lifted": 0.01}


def masks(features_by_t: dict[float, dict]) -> list[tuple[float, str, str | None]]:
    frames = [SeatLandmarks(seat=2, t=t, crop_box=CAL.camera("cam1").seats[2].body, features=dict(f))
              for t, f in sorted(features_by_t.items())]
    return [(f.t, f.state.value, f.value) for f in classify_frames(frames, CAL, "cam1")
            if f.state.value.startswith("mask_")]


def test_judge_names_why_it_cannot_judge():
    assert judge({}) is None                                   # the mesh did not run
    assert judge({"mesh_found": 0.0}).reason == "no_face"
    assert judge({**SURE_ON, "mesh_face_dy": 0.5}).reason == "face_place"
    assert judge({**SURE_ON, "mesh_face_w": 1.2}).reason == "face_place"
    assert judge({**SURE_ON, "mesh_skin_share": 0.0, "mesh_skin_lum": 60.0}).reason == "no_skin"
    assert judge({**SURE_ON, "mesh_far": 50.0}).reason == "far"
    unsure = judge({**SURE_ON, "mesh_mask_on": 0.45, "mesh_mask_off": 0.4, "mesh_mask_lifted": 0.15})
    assert unsure.state is None and unsure.reason == "unsure"
    sure = judge(SURE_ON)
    assert (sure.state, sure.reason) == ("mask_on", None) and sure.confidence == pytest.approx(0.97)


def test_a_colourless_reference_is_skin_only_when_it_is_bleaching_light():
    # fresh seed 2306: seat 8's grey crown, bowed at night, found as a face with no
    # skin-coloured pixel at luminance 129-131, read "mask off" at 0.96 (false peeks);
    # real faces lose their colour only in light that leaves them at 196 or more
    crown = {**SURE_ON, "mesh_skin_share": 0.0, "mesh_skin_lum": 130.0,
             "mesh_mask_on": 0.02, "mesh_mask_off": 0.96, "mesh_mask_lifted": 0.02}
    assert judge(crown).reason == "no_skin"
    bleached = {**crown, "mesh_skin_lum": 230.0}
    assert judge(bleached).state == "mask_off"
    coloured = {**crown, "mesh_skin_share": 0.6}
    assert judge(coloured).state == "mask_off"


def test_the_mesh_reading_comes_before_the_learned_window():
    # the window, on rendered-looking pixels, says "bare"; the mesh is sure of a mask
    got = masks({0.0: {**SURE_ON, **WINDOW_OFF, "head_real": 0.01}})
    assert got == [(0.0, "mask_on", None)]


def test_the_window_answers_where_the_mesh_sees_no_face_only_on_its_own_pixels():
    rendered = masks({0.0: {"mesh_found": 0.0, **WINDOW_OFF, "head_real": WINDOW_REAL / 10}})
    assert rendered == [(0.0, "mask_off", None)]
    real = masks({0.0: {"mesh_found": 0.0, **WINDOW_OFF, "head_real": 0.9}})
    assert real == [(0.0, "mask_unread", "no_face")]
    # frames the mesh did not look at (a day range): the window's own domain decides
    assert masks({0.0: {**WINDOW_OFF, "head_real": 0.9}}) == [(0.0, "mask_unread", "window_real")]


def test_a_hand_at_the_face_takes_the_learned_windows_reading_away():
    """Fresh seed 3805 on proposed seats: a night touch of the mask read
    "bare" by the head window while the body window gave a hand at the face
    0.39-0.82. The window sees the hand, not the mask: cannot judge. The
    mesh's reading is not the window's and stands."""
    window_off = {"mesh_found": 0.0, **WINDOW_OFF, "head_real": 0.01}
    assert masks({0.0: {**window_off, "app_body_hand_face": HAND_FACE_DOUBT / 3}}) == [(0.0, "mask_off", None)]
    assert masks({0.0: {**window_off, "app_body_hand_face": HAND_FACE_DOUBT + 0.1}}) == \
        [(0.0, "mask_unread", "hand")]
    assert masks({0.0: {**SURE_ON, **WINDOW_OFF, "head_real": 0.01, "app_body_hand_face": 0.9}}) == \
        [(0.0, "mask_on", None)]


def test_a_face_found_away_from_the_head_takes_the_learned_windows_reading_away():
    """Fresh seed 3815's proposal, seat 9 at night: a hand beside the bowed,
    masked head was found as a face 0.45 of the window below-left of the head
    (face_place), and the head window read "lifted" 0.57-0.68: two false peeks.
    Whatever the mesh found there is in the window's pixels too: cannot judge.
    A face not found at all leaves the window its own reading."""
    lifted = {"app_head_mask_on": 0.35, "app_head_mask_off": 0.0, "app_head_mask_lifted": 0.65}
    elsewhere = {**SURE_ON, "mesh_face_dx": -0.23, "mesh_face_dy": 0.39, "mesh_mask_on": 0.0,
                 "mesh_mask_off": 1.0, "mesh_mask_lifted": 0.0, **lifted, "head_real": 0.0}
    assert masks({0.0: elsewhere}) == [(0.0, "mask_unread", "face_place")]
    assert head_reading(elsewhere) is None
    nothing_found = {"mesh_found": 0.0, **lifted, "head_real": 0.0}
    assert masks({0.0: nothing_found})[0][1] == "mask_lifted"
    assert head_reading(nothing_found) == "mask_lifted"


def test_a_head_narrower_than_the_reading_was_measured_at_is_not_judged():
    """Both readers sure of a bare face on a seat whose calibrated head is 20 px
    wide: below the sizes the mask reading was measured at, "cannot judge"."""
    sure_off = {**SURE_ON, "mesh_mask_on": 0.02, "mesh_mask_off": 0.97, **WINDOW_OFF, "head_real": 0.01}
    assert masks({0.0: sure_off}) == [(0.0, "mask_off", None)]      # the test seats' heads are wide enough
    small = Calibration({"cam1": CameraCalibration(1000, 600, {
        s: SeatRegion(r.body, r.table_zone, head=(r.body[0] + 100.0, r.body[1] + 100.0, MIN_MASK_HEAD_PX - 12))
        for s, r in CAL.camera("cam1").seats.items()})})
    frame = SeatLandmarks(seat=2, t=0.0, crop_box=small.camera("cam1").seats[2].body, features=dict(sure_off))
    got = [(f.state.value, f.value) for f in classify_frames([frame], small, "cam1") if f.state.value.startswith("mask_")]
    assert got == [("mask_unread", "small")]


def test_a_frame_that_cannot_judge_gets_no_guess_from_its_neighbours():
    # a run of frames with nothing found (pose, mesh) would once have been read
    # as a masked, bowed head; frames that said "cannot judge" stay so
    seq = {t: {"mesh_found": 0.0, **WINDOW_OFF, "head_real": 0.9} for t in np.arange(0.0, 10.0, 1.0)}
    got = masks(seq)
    assert {s for _, s, _ in got} == {"mask_unread"} and len(got) == 10


def test_paint_mask_darkens_the_eyes_and_lifting_uncovers_them():
    image = cv2.cvtColor(cv2.imread(str(FACE)), cv2.COLOR_BGR2RGB)
    with HeadMesh(min_detection=0.5) as mesh:
        lm = mesh.landmarks(image)
    assert lm is not None
    eye = np.round(lm[[468, 473], :2]).astype(int)
    cheek = np.round(lm[[205, 425], :2]).astype(int)
    rng = np.random.default_rng(0)
    look = MaskLook("sleep", "black", "cloth", 0.15, 0.4, 0.1)
    on = paint_mask(image, lm, look, rng)
    lifted = paint_mask(image, lm, look, rng, lifted=0.9)
    luma = lambda im, pts: float(np.mean([im[y, x].mean() for x, y in pts]))  # noqa: E731
    assert luma(on, eye) < 0.5 * luma(image, eye)
    assert luma(on, cheek) == pytest.approx(luma(image, cheek), abs=3)
    assert luma(lifted, eye) == pytest.approx(luma(image, eye), abs=3)


@pytest.mark.skipif(committed_model() is None, reason="no committed mask model")
def test_a_real_face_bare_masked_and_lifted_at_table_camera_size():
    image = cv2.cvtColor(cv2.imread(str(FACE)), cv2.COLOR_BGR2RGB)
    with HeadMesh(min_detection=0.5) as mesh:
        lm = mesh.landmarks(image)
    look = MaskLook("band", "black", "cloth", 0.15, 0.4, 0.1)
    view = TableView(pitch=25.0, roll=5.0, yaw=-10.0, head_px=48.0)
    said = {}
    with SeatLandmarker(models=(Model.MESH,)) as seat:
        for kind, lifted in (("mask_off", None), ("mask_on", 0.0), ("mask_lifted", 0.9)):
            rng = np.random.default_rng(1)
            face = image if lifted is None else paint_mask(image, lm, look, rng, lifted)
            frame, h = table_view(face, lm, view, (240, 336), (120.0, 96.0), rng, camera=False)
            region = SeatRegion((0.0, 0.0, 240.0, 270.0), (48.0, 275.0, 192.0, 330.0), (120.0, 100.0, 48.0))
            said[kind] = read_mask(seat, frame, region).state
    assert said == {"mask_off": "mask_off", "mask_on": "mask_on", "mask_lifted": "mask_lifted"}

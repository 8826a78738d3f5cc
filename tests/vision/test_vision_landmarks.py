"""MediaPipe on seat crops, mapped back to frame pixels, on real hand photos
(read from the shared data folder, never copied)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image
from conftest import DIGITS

from vision.calibration import SeatRegion
from vision.people import PeopleFinder
from vision.crops import crop, seat_crop
from vision.landmarks import Model, SeatLandmarker, SeatLandmarks



def photos(cls: str, n: int) -> list[np.ndarray]:
    files = sorted((DIGITS / cls).glob("*.JPG"))[:n]
    if not files:
        pytest.skip(f"no sign-digit photos at {DIGITS}")
    return [np.array(Image.open(f).convert("RGB")) for f in files]


def place(photo: np.ndarray, x: int, y: int, size: int, frame_size=(1280, 720)) -> np.ndarray:
    frame = np.full((frame_size[1], frame_size[0], 3), 96, np.uint8)
    frame[y:y + size, x:x + size] = cv2.resize(photo, (size, size), interpolation=cv2.INTER_CUBIC)
    return frame


def test_crop_maps_points_back_exactly():
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[300, 700] = 255
    c = crop(frame, (600.0, 250.0, 1000.0, 450.0), long_side=200)   # downscale 0.5
    assert c.image.shape == (100, 200, 3)
    np.testing.assert_allclose(c.to_frame(np.array([[50.0, 25.0]])), [[700.0, 300.0]])
    np.testing.assert_allclose(c.normalized_to_frame(np.array([[1.0, 1.0]])), [[1000.0, 450.0]])
    up = crop(frame, (10.0, 20.0, 60.0, 45.0), long_side=300)       # upscale 6x
    assert up.image.shape == (150, 300, 3)
    np.testing.assert_allclose(up.to_frame(np.array([[0.0, 0.0], [300.0, 150.0]])),
                               [[10.0, 20.0], [60.0, 45.0]])


@pytest.mark.parametrize("x,y,size,region", [
    # Seat region larger than the crop (downscaled) ...
    (700, 300, 200, SeatRegion((600, 150, 1000, 560), (600, 500, 1000, 600))),
    # ... and a small far seat (upscaled 3x), near the frame's corner.
    (30, 600, 100, SeatRegion((0, 560, 140, 720), (0, 680, 140, 720))),
])
def test_hand_landmarks_land_on_the_placed_photo(x, y, size, region):
    images = photos("5", 4) + photos("2", 2)
    found = 0
    with SeatLandmarker(tracking=False) as lm:
        for img in images:
            frame = place(img, x, y, size)
            out = lm.process(seat_crop(frame, region), seat=3, t=1.5)
            assert out.seat == 3 and out.t == 1.5
            assert set(out.cpu) == {m.value for m in Model}
            if out.hands:
                found += 1
            for hand in out.hands:
                x0, y0, x1, y1 = hand.box
                # Every landmark inside the photo (fingertips may touch its edge).
                tol = 0.05 * size
                assert x - tol <= x0 < x1 <= x + size + tol, hand.box
                assert y - tol <= y0 < y1 <= y + size + tol, hand.box
                # and a hand-sized box, not a speck.
                assert (x1 - x0) * (y1 - y0) > 0.1 * size * size
                assert hand.side in ("left", "right")
    assert found >= 5, f"hand found in only {found} of {len(images)} photos"


def test_tracking_mode_follows_the_hand_and_serialises():
    img = photos("5", 1)[0]
    region = SeatRegion((600, 150, 1000, 560), (600, 500, 1000, 600))
    boxes = []
    with SeatLandmarker(tracking=True, models=[Model.HANDS]) as lm:
        for k in range(4):
            out = lm.process(seat_crop(place(img, 700 + 10 * k, 300, 200), region), 1, k / 10)
            assert len(out.hands) == 1 and set(out.cpu) == {"hands"}
            boxes.append(out.hands[0].box)
        assert lm.calls == 4
    # The photo moved 10 px right per frame; so did the hand.
    shifts = np.diff([b[0] for b in boxes])
    assert np.all(np.abs(shifts - 10) < 6), shifts
    back = SeatLandmarks.from_json(out.to_json())
    np.testing.assert_allclose(back.hands[0].points, out.hands[0].points, atol=0.06)


def test_the_mesh_looks_for_hands_with_the_static_landmarkers_own_hands_graph():
    # one hands graph per worker fewer (~86 MB): the same configuration, the same answers
    img = place(photos("5", 1)[0], 40, 40, 200)
    with SeatLandmarker(tracking=False) as lm:
        mesh = lm._model(Model.MESH)
        assert mesh._lent_hands() is lm._model(Model.HANDS)
        lent = mesh.hands(img)
        assert mesh._hands is None and len(lent) == 1
    from vision.faces.mesh import HeadMesh
    with HeadMesh() as own:
        alone = own.hands(img)
    np.testing.assert_allclose(lent[0], alone[0], atol=1e-6)
    # a landmarker configured otherwise keeps the mesh's own graph
    with SeatLandmarker(tracking=False, max_hands=4) as other:
        assert other._model(Model.MESH)._lent_hands is None


def test_no_people_on_an_empty_frame():
    with PeopleFinder() as finder:
        assert finder.find_heads(np.full((720, 1280, 3), 96, np.uint8)) == []
        assert finder.calls["detect"] > 0          # it looked: the empty answer is not a skip


# Rendered heads (x, y, width) of tuning view 5402's frame, shrunk by 0.75: seat 1 sits with
# its back to the camera, seats 8 and 10 are cut by the frame's top.
BACKS_5402 = {1: (290.3, 170.7, 111.1), 8: (593.4, 17.4, 38.7), 10: (929.0, 36.1, 57.0)}
NOBODY_5402 = [(650.0, 300.0, 50.0), (800.0, 480.0, 50.0), (600.0, 250.0, 80.0)]    # the table, the floor


def test_a_player_seen_from_behind_is_found_where_the_table_expects_one(monkeypatch):
    import vision.people as people
    from pathlib import Path

    frame = np.array(Image.open(Path(__file__).parent / "data" / "backs_view5402.jpg").convert("RGB"))
    with PeopleFinder() as finder:
        square, offset = people.pad_square(frame)
        for seat, (x, y, w) in BACKS_5402.items():
            hd = finder.head_near(frame, square, offset, (x, y, w), within=1.0)
            assert hd is not None, seat
            assert np.hypot(hd.x - x, hd.y - y) <= people.LANDMARK_ONLY_WITHIN * w, (seat, hd)
        for spot in NOBODY_5402:
            assert finder.head_near(frame, square, offset, spot, within=1.0) is None, spot
        # the person detector alone misses them: the landmark model on the expected region finds them
        monkeypatch.setattr(people, "LANDMARK_ONLY_ROIS", ())
        assert all(finder.head_near(frame, square, offset, h, within=1.0) is None for h in BACKS_5402.values())


def test_a_head_read_on_a_real_hand_is_under_a_hand_and_a_real_face_is_not():
    from pathlib import Path
    from vision.people import FoundHead

    face = np.array(Image.open(Path(__file__).parent / "data" / "face_cc0.jpg").convert("RGB"))
    with PeopleFinder() as finder:
        for hand in photos("5", 2) + photos("1", 2):
            frame = place(hand, 800, 300, 80)
            frame[100:500, 100:400] = face
            # a "face" the size of a hand's back, where the hand lies
            assert finder.under_a_hand(frame, FoundHead(840, 340, 48, 3, 0.7))
            # the real face, at its size and at a small one
            assert not finder.under_a_hand(frame, FoundHead(250, 280, 150, 3, 0.7))
            assert not finder.under_a_hand(frame, FoundHead(250, 280, 60, 3, 0.7))
        assert finder.calls["hands"] == 12
        # a head too small for the hand model to tell a face from a hand is not looked at
        frame = place(photos("5", 1)[0], 800, 300, 30)
        assert not finder.under_a_hand(frame, FoundHead(815, 315, 20, 3, 0.7))
        assert finder.calls["hands"] == 12


def test_one_real_face_is_one_face_on_the_seat_crop():
    """The face model reports a real face once, in frame px over the face. (Built
    with positional arguments, the two detectors meant as short and full range
    both ran the short-range model: every face came twice.)"""
    from pathlib import Path

    face = np.array(Image.open(Path(__file__).parent / "data" / "face_cc0.jpg").convert("RGB"))
    frame = np.full((720, 1280, 3), 96, np.uint8)
    frame[200:600, 500:800] = face
    with SeatLandmarker(models=(Model.FACE,)) as lm:
        out = lm.process(crop(frame, (450.0, 150.0, 850.0, 650.0)), seat=3)
    assert len(out.faces) == 1
    x0, y0, x1, y1 = out.faces[0].box
    assert 500 <= (x0 + x1) / 2 <= 800 and 200 <= (y0 + y1) / 2 <= 600

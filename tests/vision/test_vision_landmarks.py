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


def test_no_people_on_an_empty_frame():
    with PeopleFinder() as finder:
        assert finder.find_heads(np.full((720, 1280, 3), 96, np.uint8)) == []
        assert finder.calls["detect"] > 0          # it looked: the empty answer is not a skip

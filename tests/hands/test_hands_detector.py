"""MediaPipe hand detection on real sign-digit photos (100x100 px)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.hands.classify import classify_hand
from vision.hands.detector import Framing, HandDetector, load_rgb, prepare_image
from vision.hands.evaluate import sign_digits_dir

# Two photos per class, from both recording sessions in the set.
PHOTOS = [
    ("1", "IMG_1119.JPG"), ("1", "IMG_4050.JPG"),
    ("2", "IMG_1120.JPG"), ("2", "IMG_4051.JPG"),
    ("3", "IMG_1121.JPG"), ("3", "IMG_4052.JPG"),
    ("4", "IMG_1122.JPG"), ("4", "IMG_4053.JPG"),
    ("5", "IMG_1123.JPG"), ("5", "IMG_4054.JPG"),
]


@pytest.fixture(scope="module")
def detector():
    if not sign_digits_dir().is_dir():
        pytest.skip(f"shared data not found: {sign_digits_dir()}")
    with HandDetector() as d:
        yield d


def _photo(folder: str, name: str) -> np.ndarray:
    return load_rgb(str(sign_digits_dir() / folder / name))


@pytest.mark.parametrize("folder, name", PHOTOS)
def test_real_photo_hand_and_count(detector, folder, name):
    image = _photo(folder, name)
    hands = detector.detect(image)
    assert len(hands) == 1
    hand = hands[0]
    h, w = image.shape[:2]
    x0, y0, x1, y1 = hand.box
    assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
    # a raised hand fills a good part of these close-up photos
    assert (x1 - x0) * (y1 - y0) > 0.1 * w * h
    # the landmarks lie on the photo (the wrist may be cut by the bottom edge)
    inside = (hand.landmarks_px[:, 0] >= -5) & (hand.landmarks_px[:, 0] <= w + 5) & (hand.landmarks_px[:, 1] >= -5)
    assert inside.all()
    assert hand.landmarks_norm[:, :2] == pytest.approx(hand.landmarks_px[:, :2] / [w, h])
    assert hand.handedness in ("Left", "Right") and 0.5 <= hand.handedness_score <= 1.0
    assert hand.world_landmarks is not None and hand.world_landmarks.shape == (21, 3)
    # world landmarks are metres: a hand spans 5-30 cm
    span = np.ptp(hand.world_landmarks, axis=0).max()
    assert 0.05 < span < 0.3
    assert classify_hand(hand.landmarks_px).count == int(folder)


def test_coordinates_map_back_to_the_original_image(detector):
    image = _photo("5", "IMG_1123.JPG")
    small = detector.detect(image)[0]
    big = detector.detect(cv2.resize(image, (200, 200), interpolation=cv2.INTER_CUBIC))[0]
    # the same hand in a twice larger image: twice the coordinates, within a few pixels
    assert np.abs(big.landmarks_px[:, :2] / 2 - small.landmarks_px[:, :2]).max() < 4.0


# Photos that MediaPipe misses at their own 100x100 size without a border
# (21 of the 150 are; these five were picked from that list).
MISSED_BARE = [("1", "IMG_1230.JPG"), ("2", "IMG_1251.JPG"), ("3", "IMG_1253.JPG"), ("4", "IMG_1295.JPG"), ("2", "IMG_4101.JPG")]


def test_framing_finds_the_photos_a_bare_detector_misses(detector):
    photos = [_photo(f, n) for f, n in MISSED_BARE]
    with HandDetector(framings=[Framing(min_side=100, pad=0.0)], roi_fallback=False) as bare:
        assert sum(bool(bare.detect(p)) for p in photos) == 0
    for (folder, _), photo in zip(MISSED_BARE, photos):
        hands = detector.detect(photo)
        assert len(hands) == 1
        assert classify_hand(hands[0].landmarks_px).count == int(folder)


def test_prepare_image_scales_and_pads():
    image = np.zeros((100, 50, 3), np.uint8)
    prepared = prepare_image(image, Framing(min_side=300, pad=0.5))
    assert prepared.scale == pytest.approx(6.0)
    assert prepared.offset_x == prepared.offset_y == 300  # half the scaled longer side (600)
    assert prepared.image.shape == (600 + 600, 300 + 600, 3)
    # never downscaled
    assert prepare_image(np.zeros((800, 900, 3), np.uint8), Framing(min_side=300, pad=0.0)).scale == 1.0


def test_no_hand_in_a_blank_image(detector):
    assert detector.detect(np.full((120, 160, 3), 200, np.uint8)) == []


def test_tracking_mode_follows_consecutive_frames():
    if not sign_digits_dir().is_dir():
        pytest.skip("no shared data")
    image = _photo("2", "IMG_1120.JPG")
    with HandDetector(tracking=True) as tracker:
        results = [tracker.detect(image) for _ in range(3)]
    assert all(len(r) == 1 for r in results)
    # tracked landmarks stay on the hand: within 8% of the 100 px photo of the first frame's
    assert np.abs(results[2][0].landmarks_px[:, :2] - results[0][0].landmarks_px[:, :2]).max() < 8.0


def test_bad_inputs_are_refused(detector, tmp_path):
    with pytest.raises(ValueError):
        detector.detect(np.zeros((10, 10, 2), np.uint8))
    with pytest.raises(ValueError):
        detector.detect(np.zeros((50, 50, 3), np.float32))
    not_image = tmp_path / "notes.jpg"
    not_image.write_text("not an image")
    with pytest.raises(ValueError, match="notes.jpg"):
        load_rgb(str(not_image))


@pytest.mark.parametrize("folder, name", [("5", "IMG_1123.JPG"), ("3", "IMG_4052.JPG")])
def test_handedness_names_the_persons_own_hand(detector, folder, name):
    # These photos show a palm facing the camera with the thumb on the image's
    # right: a right hand (MediaPipe itself, assuming a mirrored selfie, says Left).
    assert detector.detect(_photo(folder, name))[0].handedness == "Right"

"""The acceptance figures of issue 4 for hands, measured as scripts/eval_hands.py does."""
from __future__ import annotations

import pytest

from vision.hands.evaluate import evaluate_keypoints, evaluate_sign_digits, keypoints_csv, sign_digits_dir

COUNT_TARGET = 0.95  # finger count over classes 1-5, undetected images counted wrong
SHAPE_TARGET = 0.97  # fist / open / pointing on the real 2D keypoints
# What the geometric rules reach today (92.9-93.0%); a guard against regressions
# while the 97% target is still open (see test_keypoint_shape_target).
SHAPE_FLOOR = 0.925


@pytest.fixture(scope="module")
def shapes():
    if not keypoints_csv().exists():
        pytest.skip(f"shared data not found: {keypoints_csv()}")
    return evaluate_keypoints()


@pytest.mark.slow
def test_sign_digit_count_target():
    if not sign_digits_dir().is_dir():
        pytest.skip(f"shared data not found: {sign_digits_dir()}")
    result = evaluate_sign_digits()
    assert result.images == 150
    assert result.accuracy_all >= COUNT_TARGET, result.errors
    assert result.detection_rate >= 0.98


def test_keypoint_shape_floor(shapes):
    assert shapes.rows == 4450
    assert shapes.accuracy >= SHAPE_FLOOR
    assert sum(map(sum, shapes.confusion)) == shapes.rows


@pytest.mark.xfail(
    strict=True,
    reason="open: geometry reaches 93% on the 2D keypoints (pointing hands aimed at the camera read as fists); "
    "remove this mark when the 97% target is met",
)
def test_keypoint_shape_target(shapes):
    assert shapes.accuracy >= SHAPE_TARGET

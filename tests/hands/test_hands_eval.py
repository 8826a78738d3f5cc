"""The acceptance figures of issue 4 for hands, measured as scripts/eval_hands.py does."""
from __future__ import annotations

import pytest

from vision.hands.evaluate import (
    cross_validate_keypoints,
    evaluate_keypoints,
    evaluate_sign_digits,
    keypoints_csv,
    sign_digits_dir,
)

COUNT_TARGET = 0.95  # finger count over classes 1-5, undetected images counted wrong
SHAPE_TARGET = 0.97  # fist / open / pointing on the real 2D keypoints, rows the model did not train on
# What the geometric rules alone reach (92.9-93.0%): a guard for the fallback.
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


@pytest.fixture(scope="module")
def cross_validated():
    if not keypoints_csv().exists():
        pytest.skip(f"shared data not found: {keypoints_csv()}")
    return cross_validate_keypoints()


@pytest.mark.slow
def test_keypoint_shape_target(cross_validated):
    r = cross_validated
    assert r.rows == 4450 and r.folds == 5 and r.gap > 0
    assert sum(map(sum, r.confusion)) == r.rows  # every row judged exactly once, by a model that never saw it
    assert r.accuracy >= SHAPE_TARGET
    # no recording segment far behind the rest (the rules fall to 85% on the last)
    assert min(r.fold_accuracies) >= 0.94
    for i, row in enumerate(r.confusion):
        assert row[i] / sum(row) >= 0.95, r.labels[i]


@pytest.mark.slow
def test_learned_model_beats_the_rules_on_held_out_rows(cross_validated):
    r = cross_validated
    assert r.rules_accuracy == pytest.approx(0.93, abs=0.005)  # the rules alone, same rows
    assert r.accuracy >= r.rules_accuracy + 0.03
    # with the model deciding between the three, classify_hand's state is right more often too
    assert r.state_accuracy > r.rules_state_accuracy

"""The learned fist / open / pointing model: features, training, weights file, use in classify_hand."""
from __future__ import annotations

import json

import numpy as np
import pytest

from hands_synthetic import hand_image_landmarks
from vision.hands.classify import COMMITTED_SHAPE_MODEL, HandState, classify_hand, shape_scores
from vision.hands.evaluate import _near, keypoints_csv, load_keypoints, load_shape_training_rows
from vision.hands.shape_model import MODEL_PATH, SHAPES, ShapeModel, load_shape_model, shape_features
from vision.training.shape_fit import TrainConfig, contiguous_folds, train_shape_model, weights_disagreement

NONE = (False, False, False, False)
ALL = (True, True, True, True)
INDEX_ONLY = (True, False, False, False)


@pytest.fixture(scope="module")
def rows():
    if not keypoints_csv().exists():
        pytest.skip(f"shared data not found: {keypoints_csv()}")
    return load_shape_training_rows()


def test_committed_weights_load():
    assert COMMITTED_SHAPE_MODEL is not None, f"missing {MODEL_PATH}: run scripts/train_hand_shapes.py"
    model = load_shape_model()
    assert model.weights.shape == (model.mean.size, 3)
    assert model.trained_rows == 4450
    # small enough to commit
    assert MODEL_PATH.stat().st_size < 50_000


def test_weights_file_round_trip_and_version_check(tmp_path):
    path = tmp_path / "m.json"
    COMMITTED_SHAPE_MODEL.save(path)
    again = load_shape_model(path)
    pts = hand_image_landmarks(INDEX_ONLY, "folded", roll=30)
    assert np.allclose(again.probabilities(pts), COMMITTED_SHAPE_MODEL.probabilities(pts), atol=1e-7)
    data = json.loads(path.read_text())
    data["feature_version"] = 999
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="version"):
        load_shape_model(path)


def test_features_ignore_position_size_rotation_mirroring_and_z():
    pts = hand_image_landmarks(INDEX_ONLY, "folded", yaw=20, pitch=10)
    base = shape_features(pts[:, :2])
    a = np.radians(73)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    moved = pts[:, :2] @ rot.T * 3.7 + np.array([120.0, -40.0])
    mirrored = pts[:, :2] * np.array([-1.0, 1.0])
    for other in (moved, mirrored, pts):  # pts: the same hand with z, which is ignored
        assert np.allclose(shape_features(other), base, atol=1e-9)
    batch = shape_features(np.stack([pts[:, :2], moved]))
    assert batch.shape == (2, base.size)


def test_features_refuse_bad_input():
    with pytest.raises(ValueError):
        shape_features(np.zeros((20, 2)))
    bad = hand_image_landmarks(ALL, "open")
    bad[4, 1] = np.inf
    with pytest.raises(ValueError):
        shape_features(bad)


def test_contiguous_folds_cut_each_class_into_blocks():
    labels = np.array([0] * 12 + [1] * 9 + [2] * 9)
    fold = contiguous_folds(labels, 3)
    for c in range(3):
        f = fold[labels == c]
        assert np.all(np.diff(f) >= 0)  # in file order: each fold one block
        assert set(f) == {0, 1, 2}
    test = fold == 1
    near = _near(test, labels, 2)
    # fold 1 is every class's middle block: two rows on each side of each, 3 classes
    assert near.sum() == 3 * 2 * 2
    assert not near[0] and not near[11] and not near[12]
    assert not np.any(near & test)


@pytest.mark.slow
def test_training_is_deterministic_and_learns_held_out_rows(rows):
    landmarks, labels = rows
    # train on the first half of every class's recordings, judge the second half
    first = np.zeros(len(labels), dtype=bool)
    for c in range(3):
        idx = np.flatnonzero(labels == c)
        first[idx[: len(idx) // 2]] = True
    features = shape_features(landmarks)
    a = train_shape_model(features=features[first], labels=labels[first])
    b = train_shape_model(features=features[first], labels=labels[first])
    assert a.to_dict() == b.to_dict()
    held_out = a.probabilities_from_features(features[~first])
    assert np.allclose(held_out.sum(axis=1), 1.0)
    rules = [shape_scores(p, shape_model=None) for p in landmarks[~first]]
    rules_right = np.mean([SHAPES.index(max(r, key=r.get).value) == y for r, y in zip(rules, labels[~first])])
    model_right = (held_out.argmax(axis=1) == labels[~first]).mean()
    assert model_right > 0.9 and model_right > rules_right
    # a crushing penalty leaves a model that knows little: the fit is not a constant
    weak = train_shape_model(features=features[first], labels=labels[first], config=TrainConfig(l2=1e4))
    assert (weak.probabilities_from_features(features[~first]).max(axis=1) < 0.6).all()


def test_training_needs_every_shape(rows):
    landmarks, labels = rows
    with pytest.raises(ValueError):
        train_shape_model(landmarks[labels != 2][:50], labels[labels != 2][:50])


@pytest.mark.slow
def test_committed_weights_are_what_training_gives(rows):
    landmarks, labels = rows
    fresh = train_shape_model(landmarks, labels)
    committed = json.loads(MODEL_PATH.read_text())
    # every number within the training's own float noise across CPUs (another
    # CPU's BLAS sums in another order: bit for bit failed on one), the rest exactly
    assert weights_disagreement(json.loads(json.dumps(fresh.to_dict())), committed) is None
    # and the model decides every row exactly as the committed one does
    ours = ShapeModel.from_dict(committed).probabilities(landmarks).argmax(axis=1)
    assert np.array_equal(fresh.probabilities(landmarks).argmax(axis=1), ours)


def test_the_weights_tolerance_still_sees_a_real_change():
    committed = json.loads(MODEL_PATH.read_text())
    assert weights_disagreement(committed, committed) is None
    noisy = dict(committed, bias=[b * (1 + 4e-8) for b in committed["bias"]])  # the measured cross-CPU noise
    assert weights_disagreement(noisy, committed) is None
    changed = dict(committed, weights=[w * 1.001 for w in committed["weights"]])  # a 0.1% change of the fit
    assert "weights" in weights_disagreement(changed, committed)
    assert "l2" in weights_disagreement(dict(committed, l2=0.2), committed)


def test_shape_scores_use_the_model_unless_told_otherwise():
    pts = hand_image_landmarks(ALL, "open", roll=15)
    learned = shape_scores(pts)
    assert set(learned) == {HandState.FIST, HandState.OPEN_PALM, HandState.POINTING}
    assert learned[HandState.OPEN_PALM] == pytest.approx(COMMITTED_SHAPE_MODEL.scores(pts)["open_palm"])
    rules = shape_scores(pts, shape_model=None)
    assert rules != learned and max(rules, key=rules.get) is HandState.OPEN_PALM


def test_classify_hand_with_the_model_turns_a_foreshortened_pointing_hand(rows):
    """Real pointing rows the rules read as fists (the index aimed at the camera)."""
    raw, landmarks = load_keypoints()
    pointing = landmarks[raw == 2]
    turned = 0
    for pts in pointing[::4]:
        rules = classify_hand(pts)
        if rules.count - int(rules.extended[0]) != 0 or rules.state not in (
            HandState.FIST, HandState.THUMB_UP, HandState.THUMB_DOWN, HandState.THUMB_OUT
        ):
            continue
        learned = classify_hand(pts, shape_model=COMMITTED_SHAPE_MODEL)
        if learned.state is HandState.POINTING:
            turned += 1
            # the count follows the new pattern: the index plus the thumb as the rules judge it
            assert learned.count == 1 + int(rules.extended[0])
            assert learned.extended[1] and not any(learned.extended[2:])
    assert turned >= 10


def test_classify_hand_with_the_model_leaves_other_patterns_to_the_rules():
    two = hand_image_landmarks((True, True, False, False), "folded", roll=40)
    three = hand_image_landmarks((True, True, True, False), "folded")
    for pts in (two, three):
        assert classify_hand(pts, shape_model=COMMITTED_SHAPE_MODEL) == classify_hand(pts)


@pytest.mark.parametrize("roll", [0, 90, 200])
@pytest.mark.parametrize(
    "fingers, thumb, state", [(NONE, "folded", HandState.FIST), (ALL, "open", HandState.OPEN_PALM), (INDEX_ONLY, "folded", HandState.POINTING)]
)
def test_model_agrees_on_facing_synthetic_hands(fingers, thumb, state, roll):
    pts = hand_image_landmarks(fingers, thumb, roll=roll)
    assert classify_hand(pts, shape_model=COMMITTED_SHAPE_MODEL).state is state
    scores = shape_scores(pts[:, :2])
    assert max(scores, key=scores.get) is state
    assert SHAPES.index(state.value) == int(np.argmax(COMMITTED_SHAPE_MODEL.probabilities(pts)))

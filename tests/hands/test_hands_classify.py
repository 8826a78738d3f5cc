"""Hand-state classifier on synthetic hands built geometrically and on real landmark rows."""
from __future__ import annotations

import numpy as np
import pytest

from hands_synthetic import PALM_DOWN, UPRIGHT_SIDEWAYS, hand_frame_landmarks, hand_image_landmarks
from vision.hands.classify import (
    HandState,
    classify_hand,
    count_fingers,
    fingertip_down,
    is_upright_thumb_fist,
    palm_flat,
    shape_scores,
)
from vision.hands.evaluate import keypoints_csv, load_keypoints

NONE = (False, False, False, False)
ALL = (True, True, True, True)
INDEX_ONLY = (True, False, False, False)
INDEX_MIDDLE = (True, True, False, False)

# Views that keep the hand's shape readable: in-plane roll anywhere, and
# turns of the palm away from the camera up to 30-40 degrees.
VIEWS = [(0, 0, 0), (90, 0, 0), (180, 0, 0), (-135, 0, 0), (0, 30, 0), (0, -40, 0), (0, 0, 40), (30, -30, 20)]


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("mirror", [False, True])
@pytest.mark.parametrize(
    "fingers, thumb, state, count",
    [
        (NONE, "folded", HandState.FIST, 0),
        (ALL, "open", HandState.OPEN_PALM, 5),
        (INDEX_ONLY, "folded", HandState.POINTING, 1),
        (INDEX_MIDDLE, "folded", HandState.TWO_FINGERS, 2),
        (INDEX_MIDDLE, "open", HandState.COUNT, 3),
        (ALL, "folded", HandState.COUNT, 4),
        ((True, True, True, False), "folded", HandState.COUNT, 3),
    ],
)
def test_synthetic_hand_states_3d(fingers, thumb, state, count, view, mirror):
    pts = hand_image_landmarks(fingers, thumb, *view, mirror=mirror)
    result = classify_hand(pts)
    assert (result.state, result.count) == (state, count)
    assert 0.0 < result.confidence <= 1.0


@pytest.mark.parametrize("roll", [0, 45, 90, 180, 250])
@pytest.mark.parametrize(
    "fingers, thumb, state, count",
    [
        (NONE, "folded", HandState.FIST, 0),
        (ALL, "open", HandState.OPEN_PALM, 5),
        (INDEX_ONLY, "folded", HandState.POINTING, 1),
        (INDEX_MIDDLE, "folded", HandState.TWO_FINGERS, 2),
        (INDEX_MIDDLE, "open", HandState.COUNT, 3),
        (ALL, "folded", HandState.COUNT, 4),
    ],
)
def test_synthetic_hand_states_2d_any_roll(fingers, thumb, state, count, roll):
    pts = hand_image_landmarks(fingers, thumb, roll=roll)[:, :2]
    result = classify_hand(pts)
    assert (result.state, result.count) == (state, count)


def test_counts_zero_to_five_follow_the_fingers():
    patterns = [
        (NONE, "folded"),
        (INDEX_ONLY, "folded"),
        (INDEX_MIDDLE, "folded"),
        (INDEX_MIDDLE, "open"),
        (ALL, "folded"),
        (ALL, "open"),
    ]
    for expected, (fingers, thumb) in enumerate(patterns):
        count, confidence = count_fingers(hand_image_landmarks(fingers, thumb, roll=20))
        assert count == expected
        assert confidence > 0.5


def _bend_index_tip(pts2d: np.ndarray, degrees: float) -> np.ndarray:
    """Turn the index's last bone about the DIP joint, in the image plane."""
    out = pts2d.copy()
    t = np.radians(degrees)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    out[8] = out[7] + rot @ (out[8] - out[7])
    return out


def test_confidence_is_lowest_for_a_half_bent_finger():
    straight = hand_image_landmarks(INDEX_ONLY, "folded")[:, :2]
    # the bone-to-bone cosine crosses the 0.7 threshold at about 45 degrees
    confidence = {deg: classify_hand(_bend_index_tip(straight, deg)).confidence for deg in (0, 45, 150)}
    assert confidence[45] < 0.75
    assert confidence[45] < confidence[0] and confidence[45] < confidence[150]
    assert classify_hand(_bend_index_tip(straight, 0)).state is HandState.POINTING
    assert classify_hand(_bend_index_tip(straight, 150)).state is HandState.FIST


def test_thumb_up_fist_and_thumb_down():
    up = hand_image_landmarks(NONE, "up", base=UPRIGHT_SIDEWAYS)
    assert classify_hand(up).state is HandState.THUMB_UP
    down = hand_image_landmarks(NONE, "up", base=UPRIGHT_SIDEWAYS, roll=180)
    assert classify_hand(down).state is HandState.THUMB_DOWN
    # the same thumbs-up shape with the palm facing the camera points the thumb sideways
    sideways = hand_image_landmarks(NONE, "up")
    assert classify_hand(sideways).state is HandState.THUMB_OUT


@pytest.mark.parametrize("yaw", [-40, 0, 30, 60])
def test_upright_thumb_fist_is_the_vote_form(yaw):
    vote = hand_image_landmarks(NONE, "up", base=UPRIGHT_SIDEWAYS, yaw=yaw)
    assert is_upright_thumb_fist(vote)
    assert is_upright_thumb_fist(vote[:, :2])


def test_not_the_vote_form():
    plain_fist = hand_image_landmarks(NONE, "folded", base=UPRIGHT_SIDEWAYS)
    upside_down = hand_image_landmarks(NONE, "up", base=UPRIGHT_SIDEWAYS, roll=180)
    lying = hand_image_landmarks(NONE, "up", base=UPRIGHT_SIDEWAYS, roll=90)
    open_hand = hand_image_landmarks(ALL, "open", base=UPRIGHT_SIDEWAYS)
    for pts in (plain_fist, upside_down, lying, open_hand):
        assert not is_upright_thumb_fist(pts)
    # with a tilted camera the caller's "up" decides
    assert is_upright_thumb_fist(lying, up=(1.0, 0.0))


def test_palm_flat_needs_the_palm_on_the_table():
    flat = hand_frame_landmarks(ALL, "open") @ PALM_DOWN.T
    assert palm_flat(flat)
    standing = hand_frame_landmarks(ALL, "open") @ UPRIGHT_SIDEWAYS.T
    assert not palm_flat(standing)
    fist_down = hand_frame_landmarks(NONE, "folded") @ PALM_DOWN.T
    assert not palm_flat(fist_down)
    with pytest.raises(ValueError):
        palm_flat(flat[:, :2])


def test_fingertip_down():
    # index extended, hand upside down so the finger points at the table (image down)
    poke = hand_image_landmarks(INDEX_ONLY, "folded", roll=180)
    assert fingertip_down(poke)
    assert fingertip_down(poke[:, :2])
    assert not fingertip_down(hand_image_landmarks(INDEX_ONLY, "folded"))  # pointing up
    assert not fingertip_down(hand_image_landmarks(ALL, "open", roll=180))  # whole hand down


def test_bad_landmarks_are_refused():
    with pytest.raises(ValueError):
        classify_hand(np.zeros((20, 2)))
    pts = hand_image_landmarks(ALL, "open")
    pts[3, 0] = np.nan
    with pytest.raises(ValueError):
        classify_hand(pts)


# --- real landmarks -------------------------------------------------------

LABELS = (HandState.OPEN_PALM, HandState.FIST, HandState.POINTING)


@pytest.fixture(scope="module")
def keypoints():
    if not keypoints_csv().exists():
        pytest.skip(f"shared data not found: {keypoints_csv()}")
    return load_keypoints()


def test_real_keypoint_rows_sampled(keypoints):
    labels, landmarks = keypoints
    rows = np.arange(0, len(labels), 9)  # ~500 rows spread over every recording
    predicted = []
    for pts in landmarks[rows]:
        scores = shape_scores(pts)
        predicted.append(LABELS.index(max(scores, key=scores.get)))
    predicted = np.array(predicted)
    truth = labels[rows]
    # Whole-set figure is 93%; a rule that broke a finger test would fall far below.
    assert (predicted == truth).mean() >= 0.90
    for c in range(3):
        assert (predicted[truth == c] == c).mean() >= 0.80, LABELS[c]


def test_real_open_hands_count_at_least_four(keypoints):
    labels, landmarks = keypoints
    open_rows = landmarks[labels == 0][::10]
    counts = np.array([classify_hand(p).count for p in open_rows])
    assert (counts >= 4).mean() >= 0.9


def test_real_rows_do_not_depend_on_position_size_rotation_or_mirroring(keypoints):
    labels, landmarks = keypoints
    rng = np.random.default_rng(4)
    for i in rng.choice(len(labels), 60, replace=False):
        pts = landmarks[i]
        a = rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        moved = pts @ rot.T * rng.uniform(50, 400) + rng.uniform(0, 500, size=2)
        mirrored = pts * np.array([-1.0, 1.0])
        base = classify_hand(pts)
        for other in (classify_hand(moved), classify_hand(mirrored)):
            assert other.count == base.count
            assert other.state == base.state or {other.state, base.state} <= {
                HandState.THUMB_UP, HandState.THUMB_DOWN, HandState.THUMB_OUT
            }
            assert other.confidence == pytest.approx(base.confidence, abs=1e-6)


def test_a_thumb_read_with_bent_joints_is_up_when_its_tip_stands_over_the_fist():
    """`mafvar hands` names a thumb-up fist's thumb by where it points; MediaPipe
    bends the joints of small real thumbs, so a thumb leaning up whose tip is
    the hand's top point, clear over the knuckles, is up (report.thumb_state)."""
    from vision.hands.report import thumb_state

    up = hand_image_landmarks(NONE, "up", base=UPRIGHT_SIDEWAYS)[:, :2]
    assert thumb_state(up) is HandState.THUMB_UP
    bent = up.copy()
    palm = float(np.linalg.norm(up[9] - up[0]))
    # the joints read 70 degrees off vertical, the tip where it was
    bent[2] = up[4] + palm * np.array([-np.sin(np.radians(70)), np.cos(np.radians(70))]) * 0.9
    bent[3] = (bent[2] + up[4]) / 2
    assert thumb_state(bent) is HandState.THUMB_UP
    # the same thumb lowered until its tip is barely over the knuckles stays "out"
    low = bent.copy()
    low[2:5, 1] += (up[[5, 9, 13, 17], 1].min() - 0.05 * palm) - bent[4, 1]
    assert thumb_state(low) is HandState.THUMB_OUT
    # a fist rolled onto its back points the thumb out, and upside down, down
    assert thumb_state(hand_image_landmarks(NONE, "up", base=UPRIGHT_SIDEWAYS, roll=80)[:, :2]) is HandState.THUMB_OUT
    assert thumb_state(hand_image_landmarks(NONE, "up", base=UPRIGHT_SIDEWAYS, roll=180)[:, :2]) is HandState.THUMB_DOWN

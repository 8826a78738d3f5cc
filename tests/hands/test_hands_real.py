"""Real hands: the landmark model on a given region, the learned form model,
real hands cut out and laid into a table zone, and the zone's skin
proposals. Real photos from the shared data (HaGRID held-out half)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision.hands.composite import Placement, cut_out, palm_length, paste_hand
from vision.hands.detector import HandDetector, load_rgb
from vision.hands.forms import FORMS, FormModel, committed_form_model, fit_form_model, form_probabilities, hand_form
from vision.hands.real_zone import SPLIT_RULE, list_hagrid, stable_seed
from vision.hands.roi import ROTATIONS, RoiLandmarker, roi_from_landmarks, rotation_toward, rotations_from
from vision.hands.zone_read import second_readings, skin_proposals


@pytest.fixture(scope="module")
def held_out():
    try:
        return list_hagrid(held_out=True)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def detector():
    with HandDetector() as d:
        yield d


def test_the_split_is_fixed_and_halves_every_class(held_out):
    train = list_hagrid(held_out=False)
    assert {h.path for h in train}.isdisjoint({h.path for h in held_out})
    for cls in ("like", "fist", "palm", "one"):
        a = [h for h in train if h.cls == cls]
        b = [h for h in held_out if h.cls == cls]
        assert abs(len(a) - len(b)) <= 1 and all(h.position % 2 == 1 for h in b)
    assert "odd positions" in SPLIT_RULE
    assert stable_seed("a", 1) == stable_seed("a", 1) != stable_seed("a", 2)


def test_roi_box_turns_the_wrist_to_middle_knuckle_line_up():
    # a hand pointing right (fingers toward +x): MediaPipe's box turns it by -90 degrees
    pts = np.zeros((21, 2))
    pts[:, 0] = np.linspace(0, 100, 21)
    pts[:, 1] = 50 + np.sin(np.arange(21)) * 5
    pts[9] = (60, 50)
    cx, cy, side, rotation = roi_from_landmarks(pts)
    assert math.isclose(abs(rotation), math.pi / 2, abs_tol=0.05)
    assert side > 100 and 0 < cx < 120


def test_the_likeliest_rotation_is_tried_first_and_all_four_still_are():
    pts = np.zeros((21, 2))
    pts[:, 0] = np.linspace(0, 100, 21)
    pts[9] = (60, 0)
    # the rotation of a hand from its wrist and middle knuckle is MediaPipe's box rotation
    assert math.isclose(rotation_toward(pts[0], pts[9]), roi_from_landmarks(pts)[3], abs_tol=1e-9)
    # a hand on the table points away from its player: player below, fingers up
    assert math.isclose(rotation_toward((50, 200), (50, 20)), 0.0, abs_tol=1e-9)
    assert math.isclose(abs(rotation_toward((50, 20), (50, 200))), math.pi, abs_tol=1e-9)
    for first in (0.0, 1.0, -2.5, math.pi):
        order = rotations_from(first)
        assert math.isclose(order[0], (first + math.pi) % (2 * math.pi) - math.pi, abs_tol=1e-9)
        # the same four quarter turns as without a guess, each once
        quarter = sorted(round(((r - first) % (2 * math.pi)) / (math.pi / 2)) % 4 for r in order)
        assert quarter == [0, 1, 2, 3] and len(order) == len(ROTATIONS)


def test_roi_landmarker_reads_a_hand_the_palm_detector_misses(held_out, detector):
    """Some real crops defeat the palm detector in every framing; the landmark
    model given the whole crop still finds most of them."""
    bare = HandDetector(roi_fallback=False)
    missed = []
    try:
        for hand in held_out:
            image = load_rgb(str(hand.path))
            if not bare.detect(image):
                missed.append(image)
    finally:
        bare.close()
    assert missed, "every held-out crop was found without the fallback: this test needs another case"
    with RoiLandmarker() as roi:
        found = [roi.find(image) for image in missed]
    assert sum(f is not None for f in found) >= len(missed) / 2
    with pytest.raises(RuntimeError):
        roi.find(missed[0])


def test_roi_landmarker_finds_no_hand_in_a_blank_image():
    with RoiLandmarker() as roi:
        assert roi.find(np.full((160, 160, 3), 40, np.uint8)) is None


def test_second_readings_read_the_same_hand_again_and_nothing_where_none_is(held_out, detector):
    likes = [h for h in held_out if h.cls == "like"][:6]
    counts = []
    with RoiLandmarker() as roi:
        for hand in likes:
            image = load_rgb(str(hand.path))
            found = detector.detect(image)
            if not found:
                continue
            pts = found[0].landmarks_px
            again = second_readings(roi, image, pts)
            counts.append(len(again))
            # the same hand (the mirror reading put back in the image's own x)
            assert all(np.linalg.norm(r[0] - pts[0, :2]) < palm_length(pts) for r in again), hand.path.name
        assert second_readings(roi, np.full((160, 160, 3), 40, np.uint8), pts * 0.3 + 40) == []
    assert len(counts) >= 5 and counts.count(2) >= len(counts) - 1, counts


def test_form_model_reads_held_out_thumbs_up_and_fists(held_out, detector):
    """Most held-out thumb-up and fist photos (never trained on) read as
    their form through `mafvar hands`' own path."""
    from vision.hands.report import read_hands

    assert committed_form_model() is not None
    for cls, state in (("like", "thumb_up"), ("fist", "fist")):
        hands = [h for h in held_out if h.cls == cls][:10]
        right = 0
        for hand in hands:
            reports = read_hands(detector, load_rgb(str(hand.path)))
            right += bool(reports) and reports[0].state.value == state
        assert right >= 8, (cls, right)


def test_form_model_round_trips_and_learns_what_it_is_shown():
    rng = np.random.default_rng(0)
    from vision.hands.evaluate import load_keypoints

    labels, landmarks = load_keypoints()
    rows = rng.choice(len(labels), 300, replace=False)
    to_form = np.array([FORMS.index("open_palm"), FORMS.index("fist"), FORMS.index("pointing")])
    y = to_form[labels[rows]]
    model = fit_form_model(landmarks[rows], y, l2=0.1)
    predicted = model.probabilities(landmarks[rows]).argmax(axis=1)
    assert (predicted == y).mean() > 0.9
    back = FormModel.from_dict(model.to_dict())
    assert np.allclose(back.probabilities(landmarks[rows[:5]]), model.probabilities(landmarks[rows[:5]]), atol=1e-5)
    with pytest.raises(ValueError):
        FormModel.from_dict({**model.to_dict(), "classes": ["a"]})
    p = form_probabilities([landmarks[rows[0]]], model)
    assert set(p) == set(FORMS) and math.isclose(sum(p.values()), 1.0, abs_tol=1e-6)
    form, share = hand_form(p)
    assert form != "other" and 0.25 <= share <= 1.0


def test_a_cut_out_hand_keeps_the_hand_and_drops_the_photo_border(held_out, detector):
    hand = next(h for h in held_out if h.cls == "palm")
    image = load_rgb(str(hand.path))
    lms = detector.detect(image)[0].landmarks_px
    alpha = cut_out(image, lms)
    h, w = alpha.shape
    inside = [alpha[int(min(max(y, 0), h - 1)), int(min(max(x, 0), w - 1))] for x, y in lms[[0, 5, 9, 13, 17], :2]]
    assert np.mean(inside) > 0.8
    border = np.concatenate([alpha[0], alpha[-1], alpha[:, 0], alpha[:, -1]])
    assert border.mean() < 0.6


def test_a_pasted_hand_lands_where_and_as_large_as_asked(held_out, detector):
    hand = next(h for h in held_out if h.cls == "fist")
    image = load_rgb(str(hand.path))
    lms = detector.detect(image)[0].landmarks_px
    frame = np.full((200, 300, 3), (30, 90, 50), np.uint8)
    place = Placement(24.0, (150.0, 120.0), 0.0, 1.0, (0.0, 1.0), (40, 40, 160))
    out = paste_hand(frame, image, cut_out(image, lms), lms, place, arm=False)
    changed = np.argwhere(np.abs(out.astype(int) - frame).sum(axis=2) > 30)
    assert len(changed) > 50
    ys, xs = changed[:, 0], changed[:, 1]
    # the hand sits around its wrist point, about its palm length across (a fist: 1.1-1.5 of it)
    assert abs(np.median(xs) - 150) < 24 and 120 - 40 < np.median(ys) < 120 + 10
    assert 12 < np.ptp(xs) < 24 * 2.5
    assert math.isclose(palm_length(lms) * 24.0 / palm_length(lms), 24.0)


def test_skin_proposals_find_an_uncovered_hand_sized_blob_only():
    image = np.full((256, 256, 3), (40, 100, 60), np.uint8)
    yy, xx = np.mgrid[:256, :256]
    blob = (xx - 80) ** 2 + (yy - 120) ** 2 < 30 ** 2
    image[blob] = (205, 150, 120)
    boxes = skin_proposals(image, [])
    assert len(boxes) == 1
    x0, y0, x1, y1 = boxes[0]
    assert x0 < 80 < x1 and y0 < 120 < y1
    # a hand already found over that blob leaves nothing to propose
    hull = np.array([[50 + 60 * (i % 2), 90 + 3 * i] for i in range(21)], float)
    assert skin_proposals(image, [hull]) == []
    # a blob outside the seat's own zone is a neighbour's, read in its own pass
    assert len(skin_proposals(image, [], within=(40, 80, 120, 160))) == 1
    assert skin_proposals(image, [], within=(130, 0, 256, 256)) == []
    # a speck is no hand
    tiny = np.full((256, 256, 3), (40, 100, 60), np.uint8)
    tiny[100:104, 100:104] = (205, 150, 120)
    assert skin_proposals(tiny, []) == []


def test_a_blob_longer_than_a_hand_is_read_at_its_far_end_from_the_player():
    # a forearm and its fist, one skin blob from the player (top) reaching down
    image = np.full((256, 256, 3), (40, 100, 60), np.uint8)
    image[20:200, 110:140] = (205, 150, 120)
    yy, xx = np.mgrid[:256, :256]
    image[(xx - 125) ** 2 + (yy - 195) ** 2 < 22 ** 2] = (205, 150, 120)
    player, palm, zone = (125.0, -80.0), 25.0, (0.0, 0.0, 256.0, 256.0)
    boxes = skin_proposals(image, [], within=zone, player_xy=player, palm_px=palm)
    # the whole blob's box (too large to read a hand in) and the far end's
    assert len(boxes) == 2
    x0, y0, x1, y1 = boxes[1]
    assert x1 - x0 == pytest.approx(2 * 1.4 * palm)
    assert x0 < 125 < x1 and y0 < 195 < y1 and (y0 + y1) / 2 > 150
    # seen from a player below, the far end is the blob's top
    x0, y0, x1, y1 = skin_proposals(image, [], within=zone, player_xy=(125.0, 400.0), palm_px=palm)[1]
    assert (y0 + y1) / 2 < 60
    # a blob no longer than a hand has no far end to read apart
    assert len(skin_proposals(image, [], within=zone, player_xy=player, palm_px=100.0)) == 1
    # without the player's place, no far end
    assert len(skin_proposals(image, [], within=zone)) == 1


def test_real_thumbs_up_read_with_bent_joints_are_up(detector):
    """Two thumb-up photos of the HaGRID training half whose thumb MediaPipe
    reads with its joints 67 and 83 degrees off vertical, the tip standing
    over the fist: `mafvar hands` reads them thumb-up, not thumb-out."""
    from vision.hands.report import read_hands

    try:
        train = {h.path.stem[:8]: h for h in list_hagrid(held_out=False) if h.cls == "like"}
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    for stem in ("fe224930", "fe4bcf73"):
        reports = read_hands(detector, load_rgb(str(train[stem].path)))
        assert reports and reports[0].state.value == "thumb_up", (stem, [r.state.value for r in reports])


def test_each_hand_is_reported_by_its_surest_reading_over_the_three_images(held_out, detector):
    """Three held-out thumb-ups the plain image misreads: only a tiny "fist" at
    the thumb where the softened copy finds the whole hand (f86998ab), a count
    of two where the mirror image reads the thumb surely (f851de61), a 24 px
    crop read as a fist (fe43b55a). The whole hand is read thumb-up in each."""
    from vision.hands.report import read_hands

    likes = {h.path.stem[:8]: h for h in held_out if h.cls == "like"}
    for stem in ("f86998ab", "f851de61", "fe43b55a"):
        reports = read_hands(detector, load_rgb(str(likes[stem].path)))
        assert reports, stem
        whole = max(reports, key=lambda r: r.area)
        assert whole.state.value == "thumb_up", (stem, [r.to_dict() for r in reports])


def test_readings_of_one_hand_are_one_report_and_two_hands_stay_two(detector):
    """Two held-out hands side by side on one canvas: two reports (the readings
    of the three images are grouped per hand, not merged across hands)."""
    from vision.hands.report import read_hands

    try:
        hands = list_hagrid(held_out=True)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    palm = next(h for h in hands if h.cls == "palm")
    fist = next(h for h in hands if h.cls == "fist")
    a, b = (load_rgb(str(h.path)) for h in (palm, fist))
    side = 160
    import cv2

    a, b = (cv2.resize(x, (side, side)) for x in (a, b))
    canvas = np.concatenate([a, np.full((side, side // 2, 3), 128, np.uint8), b], axis=1)
    states = sorted(r.state.value for r in read_hands(detector, np.ascontiguousarray(canvas)))
    assert states == ["fist", "open_palm"], states


def test_a_v_sign_stays_two_fingers_through_mafvar_hands(detector):
    """The form model knows no two-finger form: real V signs (sign-digit "2"
    photos) keep the rules' count of two, not the model's "pointing" (it
    was sure of pointing on all 30 and overruled them)."""
    from vision.hands.evaluate import list_sign_digit_images
    from vision.hands.report import read_hands

    try:
        twos = [p for p, n in list_sign_digit_images(classes=[2])][:6]
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    read = [[(r.state.value, r.count) for r in read_hands(detector, load_rgb(str(p)))] for p in twos]
    assert sum(("two_fingers", 2) in r for r in read) >= 5, read


def test_batched_form_reading_equals_the_per_hand_one(held_out, detector):
    """The alignment reads a frame's zone hands in one batch: the same
    probabilities as hand by hand, for the median and the first reading."""
    from vision.hands.fingers import finger_extensions, finger_extensions_batch
    from vision.hands.forms import hands_form_probabilities

    found = [detector.detect(load_rgb(str(h.path))) for h in held_out[::15]]
    pts = [f[0].landmarks_px[:, :2] for f in found if f]
    assert len(pts) >= 4
    rng = np.random.default_rng(3)
    hands = [[p] + [p + rng.normal(0, 2.0, p.shape) for _ in range(i % 3)] for i, p in enumerate(pts)]
    batched = hands_form_probabilities(hands)
    assert batched is not None and len(batched) == len(hands)
    for readings, (median, first) in zip(hands, batched):
        want_median = form_probabilities(readings, median=True)
        want_first = form_probabilities(readings[:1])
        assert want_median is not None and want_first is not None
        assert all(math.isclose(median[k], want_median[k], abs_tol=1e-9) for k in FORMS)
        assert all(math.isclose(first[k], want_first[k], abs_tol=1e-9) for k in FORMS)
    stack = np.stack(pts + [np.zeros((21, 2))])
    assert np.allclose(finger_extensions_batch(stack), [finger_extensions(p) for p in stack], atol=1e-12)
    assert hands_form_probabilities([]) == []

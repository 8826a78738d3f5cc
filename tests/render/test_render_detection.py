"""The issue's acceptance targets, measured with MediaPipe's bundled models on
per-seat crops of rendered frames: hands on vote frames >= 80 %, faces on
unmasked players >= 90 %, no face mesh through a mask."""
from __future__ import annotations

import pytest

from sample_videos.acting.script import SeatScript, event
from sample_videos.render.detection import Detectors, hand_matches, square_crop
from sample_videos.render.renderer import render_frame, seat_regions, truth_at

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def detectors():
    d = Detectors()
    yield d
    d.close()


def test_hands_found_in_vote_zone_crops(scene, detectors):
    regions = seat_regions(scene)
    # every third seat votes with the left hand, as some players do
    hands = {s: ("left" if s % 3 == 0 else "right") for s in range(1, 11)}
    scripts = {s: SeatScript(s, (event(0.3, "vote", form="thumb_up", hand=h),)) for s, h in hands.items()}
    found = total = 0
    for t in (1.4, 2.6):
        img = render_frame(scene, scripts, t)
        truth = truth_at(scene, scripts, t)
        for s in range(1, 11):
            crop, affine = square_crop(img, regions[s]["table_zone"], pad=0.15)
            true = truth[s].right_hand if hands[s] == "right" else truth[s].left_hand
            found += hand_matches(detectors.hands_px(crop, affine), true)
            total += 1
    rate = found / total
    print(f"hands found on vote frames (table-zone crops): {found}/{total} = {rate:.2f}")
    assert rate >= 0.8


def test_faces_found_unmasked_and_no_mesh_when_masked(scene, detectors):
    regions = seat_regions(scene)
    unmasked = {s: SeatScript(s, (event(0.0, "mask_off", where="forehead" if s % 2 else "table"),))
                for s in range(1, 11)}
    masked = {s: SeatScript(s, (event(0.0, "mask_on"),)) for s in range(1, 11)}
    rates = {}
    for name, scripts in (("unmasked", unmasked), ("masked", masked)):
        img = render_frame(scene, scripts, 1.5)
        truth = truth_at(scene, scripts, 1.5)
        faces = meshes = poses = 0
        for s in range(1, 11):
            body, _ = square_crop(img, regions[s]["body"])
            head, _ = square_crop(img, truth[s].head_box, pad=1.0)
            faces += detectors.face_found(body) or detectors.face_found(head)
            meshes += detectors.mesh_found(head)
            poses += detectors.pose_found(body)
        rates[name] = (faces / 10, meshes / 10, poses / 10)
        print(f"{name}: face {faces}/10, face mesh {meshes}/10, pose {poses}/10")
    assert rates["unmasked"][0] >= 0.9
    assert rates["masked"][1] <= 0.1          # the mask hides the face from the mesh model
    assert rates["unmasked"][2] >= 0.8        # pose sees seated players
    # masked pose (about 0.5-0.7 here: BlazePose finds people by the face) is printed, not required

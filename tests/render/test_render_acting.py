"""The acting engine: script format, eased transitions, poses that do what they say."""
from __future__ import annotations

import numpy as np
import pytest

from sample_videos.acting.engine import pose_at
from sample_videos.acting.script import (ScriptError, SeatScript, event, scripts_from_json,
                                         scripts_to_json)
from sample_videos.render.body import build_player
from sample_videos.render.meshes import MeshBuilder
from sample_videos.render.scene import TABLE_HEIGHT, build_scene

SCENE = build_scene(seed=1)
SEAT = SCENE.seats[4]


def _truth(script: SeatScript, t: float):
    pose = pose_at(SEAT.context, script, t)
    return pose, build_player(SEAT.appearance, SEAT.frame, pose, MeshBuilder(), detail=0)


def test_json_round_trip_and_validation():
    scripts = {4: SeatScript(4, (event(1.0, "vote", form="palm", hold=2.0), event(0.5, "mask_on", transition=0.6),
                                 event(3.0, "rest")))}
    doc = scripts_to_json(scripts)
    assert scripts_from_json(doc) == scripts
    assert [e["action"] for e in doc["seats"]["4"]] == ["mask_on", "vote", "rest"]  # sorted by time
    with pytest.raises(ScriptError):
        event(1.0, "vote", form="elbow")
    with pytest.raises(ScriptError):
        event(1.0, "wave")
    with pytest.raises(ScriptError):
        event(1.0, "show_fingers", count=7)
    with pytest.raises(ScriptError):
        scripts_from_json({"format": "other"})


def test_thumb_up_vote_stands_on_the_table_then_lifts():
    script = SeatScript(4, (event(1.0, "vote", form="thumb_up", hold=2.0, lift=0.5),))
    _, held = _truth(script, 2.5)
    hand = held.right_hand
    # fist upright: the thumb tip is the highest joint, knuckles low, the hand touches the table
    assert hand[4, 2] == pytest.approx(hand[:, 2].max())
    assert hand[:, 2].min() - TABLE_HEIGHT < 0.03
    zone = SEAT.zone_world
    assert np.linalg.norm(hand[9, :2] - zone[:2]) < 0.15
    _, lifted = _truth(script, 3.8)
    assert lifted.right_hand[:, 2].min() - hand[:, 2].min() > 0.1


def test_transitions_are_eased_not_cut():
    script = SeatScript(4, (event(1.0, "raise_hand", fingers=2), event(3.0, "rest")))
    times = np.arange(0.9, 3.8, 0.04)
    wrists = np.array([_truth(script, t)[1].right_hand[0] for t in times])
    steps = np.linalg.norm(np.diff(wrists, axis=0), axis=1)
    assert wrists[:, 2].max() - wrists[0, 2] > 0.15       # the hand really goes up
    assert steps.max() < 0.05                              # never more than 5 cm in a frame
    # the raised hand shows two extended fingers (index, middle) and curled ring/pinky
    hand = _truth(script, 2.5)[1].right_hand
    ext = [np.dot(hand[b + 3] - hand[b + 1], hand[b + 1] - hand[b]) / (np.linalg.norm(hand[b + 3] - hand[b + 1])
           * np.linalg.norm(hand[b + 1] - hand[b])) for b in (5, 9, 13, 17)]
    assert ext[0] > 0.9 and ext[1] > 0.9 and ext[2] < 0.2 and ext[3] < 0.2


def test_shot_curls_the_raised_finger_then_extends_it():
    script = SeatScript(4, (event(0.0, "shot", fingers=1, curl_at=1.0, curl_time=0.6),))
    def index_tip_height(t):
        h = _truth(script, t)[1].right_hand
        return h[8, 2] - h[5, 2]
    assert index_tip_height(0.9) > 0.06
    assert index_tip_height(1.3) < index_tip_height(0.9) - 0.04
    assert index_tip_height(1.8) == pytest.approx(index_tip_height(0.9), abs=0.01)


def test_mask_states_and_night_pose():
    script = SeatScript(4, (event(0.0, "mask_on"), event(0.0, "night_pose", head_down=40),
                            event(5.0, "mask_lift", amount=0.7), event(8.0, "mask_off", where="table")))
    p = pose_at(SEAT.context, script, 3.0)
    assert p.mask_on_head == 1.0 and p.mask_lift == 0.0
    assert np.degrees(p.head_pitch) > 30
    _, tr = _truth(script, 3.0)
    # crossed arms: each wrist is on the other side of the body's midline
    to_seat = lambda w: (w - SEAT.frame.origin) @ SEAT.frame.rot  # noqa: E731
    assert to_seat(tr.right_hand[0])[0] < 0 < to_seat(tr.left_hand[0])[0]
    assert pose_at(SEAT.context, script, 6.0).mask_lift == pytest.approx(0.7)
    assert pose_at(SEAT.context, script, 9.0).mask_on_head == 0.0


def test_show_fingers_counts():
    for n in range(6):
        hand = _truth(SeatScript(4, (event(0.0, "show_fingers", count=n),)), 1.5)[1].right_hand
        ext = 0
        for b in (5, 9, 13, 17):
            u, v = hand[b + 1] - hand[b], hand[b + 3] - hand[b + 1]
            ext += np.dot(u, v) / np.linalg.norm(u) / np.linalg.norm(v) > 0.7
        thumb_out = np.linalg.norm(hand[4] - hand[17]) > 0.09
        assert ext + (thumb_out and n == 5) == n or (n == 5 and ext == 4), (n, ext)


def test_deterministic_given_seed():
    script = SeatScript(4, (event(0.5, "speak"),))
    a, b = pose_at(SEAT.context, script, 1.234), pose_at(SEAT.context, script, 1.234)
    assert a.head_yaw == b.head_yaw and a.head_pitch == b.head_pitch
    assert np.array_equal(a.right.wrist, b.right.wrist) and np.array_equal(a.left.gesture, b.left.gesture)
    other = build_scene(seed=2).seats[4].context
    assert pose_at(other, script, 1.234).head_yaw != a.head_yaw

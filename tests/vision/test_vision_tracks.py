"""Temporal smoothing of per-frame seat states into tracks."""
from __future__ import annotations

from vision.tracks import FrameState, Smoothing, build_tracks


def frames(seat, state, confs, t0=0.0, dt=0.1, value=None):
    return [FrameState(round(t0 + i * dt, 3), seat, state, c, value) for i, c in enumerate(confs)]


def times(n, t0=0.0, dt=0.1):
    return [round(t0 + i * dt, 3) for i in range(n)]


def test_a_fist_that_lands_and_stays_is_one_track_with_onset_and_offset():
    confs = [0, 0, 0.9, 0.95, 0.9, 0.5, 0.92, 0.9, 0.1, 0]
    tr = build_tracks(frames(6, "fist_on_table", confs, value="thumb_up"), {6: times(10)})
    assert len(tr) == 1
    assert (tr[0].t0, tr[0].t1, tr[0].value) == (0.2, 0.7, "thumb_up")  # 0.5 is kept by hysteresis


def test_a_single_frame_is_noise():
    confs = [0, 0, 0.95, 0, 0, 0]
    assert build_tracks(frames(3, "fist_on_table", confs), {3: times(6)}) == []


def test_short_gaps_are_bridged_and_long_ones_split():
    obs = frames(2, "mask_off", [0.9, 0.9, 0.9]) + frames(2, "mask_off", [0.9, 0.9, 0.9], t0=0.6)
    # 0.2 -> 0.6: a 0.4 s dropout (a detector miss) within max_gap 0.5: one track
    assert len(build_tracks(obs, {2: times(9)})) == 1
    assert len(build_tracks(obs, {2: times(9)}, smoothing={"mask_off": Smoothing(max_gap=0.2)})) == 2
    late = frames(2, "mask_off", [0.9, 0.9, 0.9]) + frames(2, "mask_off", [0.9, 0.9, 0.9], t0=1.5)
    assert len(build_tracks(late, {2: times(18)})) == 2


def test_value_is_the_majority_of_the_frames():
    obs = frames(1, "hand_raised", [0.9] * 5, value="2") + frames(1, "hand_raised", [0.9] * 2, t0=0.5, value="1")
    tr = build_tracks(obs, {1: times(7)})
    assert len(tr) == 1 and tr[0].value == "2" and tr[0].frames == 7


def test_a_track_knows_the_first_frame_read_with_its_value():
    # two frames of a thumbless fist, then the thumb-up: the track starts at the first,
    # its value (the majority) is first read at the third
    obs = (frames(10, "fist_on_table", [0.8, 0.8], value="fist")
           + frames(10, "fist_on_table", [0.9, 0.5, 0.7, 0.9], t0=0.2, value="palm")[:1]
           + frames(10, "fist_on_table", [1.0] * 5, t0=0.3, value="thumb_up"))
    tr = build_tracks(obs, {10: times(8)})
    assert len(tr) == 1 and (tr[0].t0, tr[0].value, tr[0].t_value) == (0.0, "thumb_up", 0.3)
    assert tr[0].to_dict()["t_value"] == 0.3
    # read in its value from the start: no second time said
    tr = build_tracks(frames(6, "fist_on_table", [0.9] * 4, value="thumb_up"), {6: times(4)})
    assert tr[0].t_value == tr[0].t0 and "t_value" not in tr[0].to_dict()


def test_seats_and_states_are_kept_apart():
    obs = frames(1, "mask_on", [0.9] * 4) + frames(2, "mask_on", [0.9] * 4) + frames(1, "head_down", [0.9] * 4)
    tr = build_tracks(obs)
    assert sorted((t.seat, t.state) for t in tr) == [(1, "head_down"), (1, "mask_on"), (2, "mask_on")]

"""Frames are deterministic and the geometric ground truth matches the pixels' layout."""
from __future__ import annotations

import numpy as np

from sample_videos.acting.script import SeatScript, event
from sample_videos.render.renderer import render_frame, seat_regions, truth_at
from sample_videos.render.scene import build_scene


def _vote_scripts():
    return {s: SeatScript(s, (event(0.2, "vote", form="thumb_up"),)) for s in range(1, 11)}


def test_same_seed_same_pixels(gl_available):
    a = render_frame(build_scene(seed=5), _vote_scripts(), 1.3)
    b = render_frame(build_scene(seed=5), _vote_scripts(), 1.3)
    assert a.shape == (720, 1280, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)


def test_time_and_seed_change_the_frame(gl_available):
    scene = build_scene(seed=5)
    a = render_frame(scene, _vote_scripts(), 1.3)
    later = render_frame(scene, _vote_scripts(), 2.3)  # idle motion only
    other = render_frame(build_scene(seed=6), _vote_scripts(), 1.3)
    assert np.abs(a.astype(int) - later).mean() > 0.05
    assert np.abs(a.astype(int) - other).mean() > 1.0


def test_frame_is_not_flat(gl_available, scene):
    img = render_frame(scene, {}, 0.5, post=False)
    # a real scene: many distinct colours, no large uniform clear-colour area
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 2000
    assert (np.abs(img.astype(int) - 128).sum(-1) == 0).mean() < 0.01


def test_vote_hands_land_in_their_table_zone(scene):
    regions = seat_regions(scene)
    truth = truth_at(scene, _vote_scripts(), 2.0)
    for s, r in regions.items():
        x0, y0, x1, y1 = r["table_zone"]
        hand = truth[s].right_hand
        inside = (hand[:, 0] >= x0) & (hand[:, 0] <= x1) & (hand[:, 1] >= y0) & (hand[:, 1] <= y1)
        assert inside.mean() > 0.9, f"seat {s}: vote hand outside its table zone"
        bx0, by0, bx1, by1 = r["body"]
        hx0, hy0, hx1, hy1 = truth[s].head_box
        assert bx0 <= hx0 and hx1 <= bx1 and by0 <= hy0 and hy1 <= by1, f"seat {s}: head outside body region"


def test_seat_regions_follow_the_seat_order(scene):
    """Seats 1-5 are on the image's left half going away (upward), 6-10 on the right coming back."""
    c = {s: np.mean(np.reshape(r["body"], (2, 2)), axis=0) for s, r in seat_regions(scene).items()}
    assert all(c[s][0] < 640 for s in (1, 2, 3, 4)) and all(c[s][0] > 640 for s in (7, 8, 9, 10))
    assert c[1][1] > c[2][1] > c[3][1] > c[4][1]
    assert c[10][1] > c[9][1] > c[8][1] > c[7][1]

"""Faces found by tiles (`vision.people.faces_from_boxes`, `denoised`): a face is
a head only when different tiles agree, and the denoised copy of a frame (looked
at too, for dim and strongly compressed views) never makes one tile count twice.
No model runs here: the boxes are the face detector's output format.
"""
from __future__ import annotations

import numpy as np

from vision.people import FACE_MIN_GROUP, denoised, faces_from_boxes


def _box(x: float, y: float, tile: int, left: int, top: int, width: float = 20.0, score: float = 0.7):
    return (x, y, width, score, tile, left, top)


def test_one_face_in_three_tiles_is_a_head_with_its_centre_raised():
    boxes = [_box(100, 100, 80, 60, 60), _box(101, 99, 80, 80, 60), _box(99, 101, 112, 40, 40)]
    heads = faces_from_boxes(boxes)
    assert len(heads) == 1
    assert heads[0].hits == 3
    assert abs(heads[0].x - 100) < 1.5 and heads[0].y < 100      # the head's centre is above the face box's


def test_the_same_tile_seen_on_the_frame_and_its_denoised_copy_counts_once():
    # two tiles, each found on both images: four detections, two tiles, not a head
    boxes = [_box(100, 100, 80, 60, 60), _box(100, 100, 80, 60, 60, score=0.6),
             _box(101, 99, 80, 80, 60), _box(101, 99, 80, 80, 60, score=0.6)]
    assert FACE_MIN_GROUP == 3
    assert faces_from_boxes(boxes) == []
    # a third tile agreeing makes it one
    assert len(faces_from_boxes(boxes + [_box(99, 101, 112, 40, 40)])) == 1


def test_a_box_filling_its_tiles_is_not_a_face():
    boxes = [_box(100, 100, 48, 76, 76, width=30), _box(100, 100, 48, 70, 76, width=30),
             _box(100, 100, 48, 76, 70, width=30)]
    assert faces_from_boxes(boxes) == []


def test_the_denoised_copy_keeps_the_picture_and_removes_the_grain():
    rng = np.random.default_rng(3)
    clean = np.zeros((96, 128, 3), np.uint8)
    clean[:, 64:] = 200                                        # an edge
    noisy = np.clip(clean.astype(int) + rng.normal(0, 12, clean.shape), 0, 255).astype(np.uint8)
    out = denoised(noisy)
    assert out.shape == noisy.shape and out.dtype == np.uint8
    err_in = np.abs(noisy.astype(int) - clean).mean()
    err_out = np.abs(out.astype(int) - clean).mean()
    assert err_out < 0.5 * err_in, (err_in, err_out)
    # the edge stays sharp: the columns beside it keep their sides' levels
    assert out[:, 60].mean() < 40 and out[:, 68].mean() > 160

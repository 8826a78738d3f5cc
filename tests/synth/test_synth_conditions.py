"""Wider worlds (issue #16 part 1): conditions, their ranges and files, and
what the scene and truth.json make of them. Frames are tiny (256x144) and
rendered singly, so the module takes well under a minute."""
from __future__ import annotations

import json
from dataclasses import fields

import numpy as np
import pytest

from mafvar.cli import main
from sample_videos.acting.script import SeatScript, event
from sample_videos.conditions import (GROUPS, Conditions, ConditionsError, conditions_from_dict,
                                      draw_conditions)
from sample_videos.render.renderer import render_frame, seat_regions, truth_at
from sample_videos.render.world import scene_from_conditions
from sample_videos.synth import SynthOptions, build_game, build_scene

W, H = 256, 144


def _small(cond: Conditions, clean: bool = False) -> Conditions:
    cond = cond.with_value("capture.width", W).with_value("capture.height", H)
    if clean:  # no noise or softness: pixel differences are the geometry's alone
        cond = cond.with_value("capture.noise", 0.0).with_value("capture.blur", 0.0)
    return cond


def _votes():
    return {s: SeatScript(s, (event(0.2, "vote", form="thumb_up"),)) for s in range(1, 11)}


@pytest.fixture(scope="module")
def gl(request):
    from sample_videos.render.renderer import create_context
    create_context().release()   # fails (not skips) without EGL, like the renderer tests
    return True


# One setting per condition a venue varies: each must render, change the picture
# and give the same pixels for the same seed and conditions.
OPTIONS = [
    ("light.level", 0.5), ("light.temperature", 2800), ("light.key_azimuth", 200), ("light.spot", 1.2),
    ("light.mixed", 0.7), ("light.drift", 0.3), ("light.preset", "warm"),
    ("camera.azimuth", 45), ("camera.azimuth", 90), ("camera.azimuth", 135), ("camera.azimuth", 180),
    ("camera.azimuth", 270), ("camera.height", 1.6), ("camera.height", 3.5), ("camera.fov", 30),
    ("camera.fov", 75), ("camera.tilt", 55), ("camera.distance", None), ("camera.roll", 4),
    ("camera.distortion", -0.15), ("camera.shake", 3.0),
    ("capture.noise", 0.06), ("capture.blur", 1.5), ("capture.motion_blur", 0.8),
    ("players.skin_min", 1.2), ("players.glasses", 1.0), ("players.beards", 1.0), ("players.dark_tops", 1.0),
    ("players.dark_sleeves", 1.0), ("players.long_hair", 1.0), ("players.bald", 1.0), ("players.build", 1.0),
    ("players.mask_colour", "dark_blue"), ("players.mask_pattern", 1.0), ("players.mask_material", "hard"),
    ("players.mask_material", "cloth"),
    ("table.shape", "rectangle"), ("table.length", 2.5), ("table.colour", [0.35, 0.08, 0.1]),
    ("table.surface", "wood"), ("table.surface", "plastic"),
    ("props.name_plates", True), ("props.bottles", 5), ("props.phones", 4), ("props.papers", 5),
    ("people.judge", True), ("people.spectators", 3),
]


@pytest.fixture(scope="module")
def default_frames(gl):
    scene = scene_from_conditions(_small(Conditions()), 21, 60.0)
    return {t: render_frame(scene, _votes(), t) for t in (0.3, 2.0)}


@pytest.mark.parametrize("key,value", OPTIONS, ids=[f"{k}={v}" for k, v in OPTIONS])
def test_each_condition_renders_changes_the_frame_and_is_deterministic(key, value, default_frames):
    cond = _small(Conditions()).with_value(key, value)
    if key == "light.drift":   # drift needs time to show: a short period
        cond = cond.with_value("light.drift_period", 6.0)
    t = 2.0 if key != "capture.motion_blur" else 0.3   # a fist is on its way down at 0.3 s
    a = render_frame(scene_from_conditions(cond, 21, 60.0), _votes(), t)
    b = render_frame(scene_from_conditions(cond, 21, 60.0), _votes(), t)
    assert a.shape == (H, W, 3)
    assert np.array_equal(a, b), "same seed and conditions must give the same pixels"
    diff = np.abs(a.astype(int) - default_frames[t]).mean()
    assert diff > 0.05, f"{key}={value} did not change the picture"


def test_the_default_conditions_are_the_default_world(gl):
    legacy = build_scene(SynthOptions(seed=7, width=W, height=H))
    given = build_scene(SynthOptions(seed=7, conditions=_small(Conditions())))
    assert legacy.world is None and given.world is None
    assert legacy.camera == given.camera and legacy.lighting == given.lighting and legacy.post == given.post
    for t in (0.5, 2.0):
        assert np.array_equal(render_frame(legacy, _votes(), t), render_frame(given, _votes(), t))
    assert seat_regions(legacy) == seat_regions(given)


def test_old_options_still_override_and_leave_the_default_game_alone(tmp_path, capsys):
    plain, given = tmp_path / "plain", tmp_path / "given"
    assert main(["synth", "--seed", "7", "--no-video", "--out", str(plain)]) == 0
    truth = json.loads((plain / "truth.json").read_text())
    assert "conditions" not in truth and "conditions" not in truth["options"]
    assert main(["synth", "--seed", "7", "--no-video", "--out", str(given), "--conditions", "random",
                 "--camera-height", "1.7", "--fov", "33", "--resolution", "640x360", "--fps", "30"]) == 0
    cond = json.loads((given / "truth.json").read_text())["conditions"]
    assert (cond["camera"]["height"], cond["camera"]["fov"]) == (1.7, 33)
    assert (cond["capture"]["width"], cond["capture"]["height"], cond["capture"]["fps"]) == (640, 360, 30)
    # the game itself (protocol) does not depend on the conditions
    assert (plain / "protocol.json").read_bytes() == (given / "protocol.json").read_bytes()


def test_random_draws_stay_in_their_ranges_and_differ_by_seed():
    draws = [draw_conditions(seed) for seed in range(900, 940)]
    assert draw_conditions(905) == draws[5]
    for d in draws:
        # every drawn value passes the same check a conditions file gets
        assert conditions_from_dict(json.loads(d.to_json())) == d
        assert 1.6 <= d.camera.height <= 3.5 and 30 <= d.camera.fov <= 75
        assert 480 <= d.capture.height <= 1080 and d.capture.fps in (25, 30, 50)
    assert len({d.to_json() for d in draws}) == len(draws)
    for name, cls in GROUPS.items():
        for f in fields(cls):
            values = {json.dumps(getattr(getattr(d, name), f.name)) for d in draws}
            if f.metadata["kind"] in ("num", "colour") and f.name not in ("distance", "tilt") \
                    and not (name == "light" and f.name in ("temperature", "key_azimuth")):
                assert len(values) > 5, f"{name}.{f.name} hardly varies: {values}"
    placements = {round(d.camera.azimuth / 45) % 8 for d in draws}
    assert len(placements) >= 6, "random cameras should stand on many sides and corners"


BAD = [
    ({"camera": {"fov": 90}}, "camera.fov", "30-75"),
    ({"camera": {"height": 1.0}}, "camera.height", "1.6-3.5"),
    ({"capture": {"fps": 24}}, "capture.fps", "25, 30, 50"),
    ({"light": {"temperature": "warm"}}, "light.temperature", "2700-6500"),
    ({"players": {"mask_colour": "pink"}}, "players.mask_colour", "dark_blue"),
    ({"table": {"colour": [1, 2, 3]}}, "table.colour", "0-1"),
    ({"props": {"bottles": 2.5}}, "props.bottles", "0-8"),
    ({"camera": {"zoom": 2}}, "camera.zoom", "fov"),
    ({"lens": {}}, "lens", "camera"),
    ({"players": {"skin_min": 1.2, "skin_max": 0.5}}, "players.skin_min", "players.skin_max"),
    ({"format": "mafvar-protocol"}, "format", "mafvar-conditions"),
]


@pytest.mark.parametrize("doc,field_name,allowed", BAD, ids=[b[1] for b in BAD])
def test_a_bad_conditions_file_is_a_one_line_error(tmp_path, capsys, doc, field_name, allowed):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "g"
    assert main(["synth", "--seed", "3", "--out", str(out), "--no-video", "--conditions", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert field_name in err and allowed in err, err
    assert not out.exists()


def test_bad_settings_and_unreadable_files(tmp_path, capsys):
    out = tmp_path / "g"
    for args in (["--set", "camera.fov=20"], ["--set", "fov=50"], ["--set", "camera.azimuth"],
                 ["--conditions", str(tmp_path / "missing.json")], ["--conditions", "random", "--fov", "80"]):
        assert main(["synth", "--seed", "3", "--out", str(out), "--no-video", *args]) == 2, args
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
    (tmp_path / "notjson.json").write_text("{camera: ")
    assert main(["synth", "--seed", "3", "--out", str(out), "--no-video", "--conditions",
                 str(tmp_path / "notjson.json")]) == 2
    assert "notjson.json" in capsys.readouterr().err


def test_truth_records_the_world_and_a_recorded_world_remakes_the_game(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["synth", "--seed", "906", "--conditions", "random", "--no-video", "--out", str(a)]) == 0
    truth = json.loads((a / "truth.json").read_text())
    cond = conditions_from_dict(truth["conditions"])
    assert cond == draw_conditions(906)
    cam = truth["camera"]   # the framed camera: where it stood and where it looked
    assert 30 <= cam["fov"] <= 75 and 1.6 <= cam["position"][2] <= 3.5 and cam["distance"] > 1.5
    assert sorted(truth["view"], key=int) == [str(s) for s in range(1, 11)]
    for v in truth["view"].values():
        assert 0 <= v["visible"] <= v["in_frame"] <= 1 and 0 <= v["zone_visible"] <= 1
        assert 0 <= v["facing"] <= 180 and v["hand_px"] > 0
    assert len(truth["looks"]) == 10
    for o in truth["occlusions"]:
        assert 1 <= o["seat"] <= 10 and 0 <= o["t0"] <= o["t1"] <= truth["duration"] + 0.01
        assert 0 <= o["body"] <= 1 and 0 <= o["zone"] <= 1 and max(o["body"], o["zone"]) >= 0.1
    cal = json.loads((a / "calibration.json").read_text())["cameras"]["cam1"]
    assert (cal["width"], cal["height"]) == (cond.capture.width, cond.capture.height)
    # the recorded conditions, given back as a file, make the same game and the same truth
    (tmp_path / "world.json").write_text(json.dumps(truth["conditions"]))
    assert main(["synth", "--seed", "906", "--conditions", str(tmp_path / "world.json"), "--no-video",
                 "--out", str(b)]) == 0
    for name in ("protocol.json", "truth.json", "calibration.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


PLACEMENTS = [dict(azimuth=az, height=h, fov=f, distance=None, roll=r, distortion=k)
              for az, h, f, r, k in ((0, 1.6, 75, 0, 0), (45, 3.5, 30, 3, -0.15), (90, 2.2, 52, -4, -0.08),
                                     (135, 2.8, 60, 0, 0.04), (180, 3.5, 40, 2, -0.1), (225, 1.8, 70, 0, -0.15),
                                     (270, 3.0, 35, -2, 0), (315, 2.5, 45, 1, -0.05))]


@pytest.mark.parametrize("place", PLACEMENTS, ids=[f"az{p['azimuth']}" for p in PLACEMENTS])
def test_calibration_is_exact_under_every_camera_placement(place, gl):
    """Projection (with roll and lens distortion) lands on the rendered
    pixels: each seat's rendered vote hand (the frame with the player minus
    the frame without, inside its table zone) is centred where its projected
    joints are, inside the calibrated table zone; the calibrated head is on
    the rendered head, inside the body box."""
    cond = _small(Conditions(), clean=True).with_value("capture.width", 384).with_value("capture.height", 216)
    for k, v in place.items():
        cond = cond.with_value(f"camera.{k}", v)
    scene = scene_from_conditions(cond, 5, 60.0)
    regions = seat_regions(scene)
    truth = truth_at(scene, _votes(), 2.0)
    full = render_frame(scene, _votes(), 2.0).astype(int)
    w, h = scene.camera.width, scene.camera.height
    hands_checked = heads_checked = 0
    for s in range(1, 11):
        gone = dict(_votes())
        gone[s] = SeatScript(s, (event(0.0, "leave", after=0.1),))
        diff = np.abs(full - render_frame(scene, gone, 2.0).astype(int)).sum(-1) > 0
        x0, y0, x1, y1 = regions[s]["body"]
        zx0, zy0, zx1, zy1 = regions[s]["table_zone"]
        joints = truth[s].right_hand
        size = np.ptp(joints, axis=0).max()
        if ((joints > 2) & (joints < [w - 2, h - 2])).all() and size > 6:
            assert (joints >= [zx0 - 1, zy0 - 1]).all() and (joints <= [zx1 + 1, zy1 + 1]).all(), s
            lo, hi = joints.min(0) - 0.3 * size, joints.max(0) + 0.3 * size
            ys, xs = np.nonzero(diff)
            near = (xs >= lo[0]) & (xs <= hi[0]) & (ys >= lo[1]) & (ys <= hi[1])
            if near.sum() > 0.3 * size * size:   # not hidden behind a nearer player
                c = np.array([xs[near].mean(), ys[near].mean()])
                # the forearm comes into the window from one side: allow a third of the hand
                assert np.linalg.norm(c - joints.mean(0)) < 0.3 * size + 2.5, (s, c, joints.mean(0))
                hands_checked += 1
        # the head as projected (the calibrated head is the same projection at rest)
        bx0, by0, bx1, by1 = truth[s].head_box
        hx, hy, hsize = (bx0 + bx1) / 2, (by0 + by1) / 2, bx1 - bx0
        rx, ry, rsize = regions[s]["head"]
        if 0 <= rx < w and 0 <= ry < h:
            assert x0 <= rx <= x1 and y0 <= ry <= y1, s
        if 2 < hx < w - 2 and 2 < hy < h - 2 and hsize > 5:
            r = max(1, int(hsize * 0.25))
            patch = diff[int(hy) - r:int(hy) + r + 1, int(hx) - r:int(hx) + r + 1]
            rows, cols = np.nonzero(diff[max(0, int(by0) - 2):int(by1) + 3, max(0, int(bx0) - 2):int(bx1) + 3])
            if patch.mean() > 0.3:   # seen (not behind a nearer player): the box is on the head
                heads_checked += 1
            assert patch.mean() > 0.3 or len(rows) < 0.5 * hsize * hsize, (s, patch.mean())
    assert hands_checked >= 3 and heads_checked >= 3, (hands_checked, heads_checked)


def test_recorded_judge_occlusion_matches_the_pixels(gl):
    """Where truth.json says the judge hides a seat, the rendered judge
    covers about that share of the seat's rendered pixels."""
    from sample_videos.view import judge_occlusions, seat_views
    base = _small(Conditions(), clean=True).with_value("capture.width", 320).with_value("capture.height", 180) \
        .with_value("camera.azimuth", 90).with_value("camera.distance", None).with_value("people.judge_walks", 2.0)
    judged = base.with_value("people.judge", True)
    scene = scene_from_conditions(judged, 2, 60.0)
    _, state = seat_views(scene)
    # one walking sample (0.2 s) in which the judge passes in front of a seat
    occ = [o for o in judge_occlusions(scene, state, 60.0) if o["t1"] - o["t0"] < 0.21 and o["body"] >= 0.2]
    assert occ, "this setting is chosen so that the judge walks in front of the seats"
    o = max(occ, key=lambda o: o["body"])
    t = o["t0"]   # the sample's own time
    no_judge = scene_from_conditions(base, 2, 60.0)
    rest = {s: SeatScript(s, ()) for s in range(1, 11)}
    gone = dict(rest)
    gone[o["seat"]] = SeatScript(o["seat"], (event(0.0, "leave", after=0.1),))
    with_judge = render_frame(scene, rest, t).astype(int)
    without = render_frame(no_judge, rest, t).astype(int)
    without_seat = render_frame(no_judge, gone, t).astype(int)
    seat_px = np.abs(without - without_seat).sum(-1) > 0
    judge_px = np.abs(with_judge - without).sum(-1) > 0
    covered = (seat_px & judge_px).sum() / seat_px.sum()
    # the record measures the whole silhouette (also where a neighbour hides it)
    assert abs(covered - o["body"]) < 0.15, (covered, o)


def test_the_judge_walks_and_is_in_the_truth():
    cond = Conditions().with_value("people.judge", True).with_value("people.judge_walks", 1.5)
    game = build_game(SynthOptions(seed=31, conditions=cond))
    walks = game.truth["judge"]["walks"]
    assert game.truth["judge"]["present"] and len(walks) >= 2
    assert all(0 < w["t0"] < w["t1"] < game.duration for w in walks)
    judge = game.scene.world.judge
    a, b = judge.state(walks[0]["t0"] - 0.5)[0], judge.state(walks[0]["t1"] + 0.5)[0]
    mid = judge.state((walks[0]["t0"] + walks[0]["t1"]) / 2)[0]
    assert np.linalg.norm(mid - a) > 0.3 or np.linalg.norm(mid - b) > 0.3


def test_conditions_round_trip_through_json():
    cond = draw_conditions(77)
    assert conditions_from_dict(json.loads(cond.to_json())) == cond
    assert Conditions().with_value("camera.azimuth", 45).camera.azimuth == 45.0
    with pytest.raises(ConditionsError, match="camera.azimuth"):
        Conditions().with_value("camera.azimuth", 400)


@pytest.mark.slow
def test_a_random_world_clip_renders_with_its_rate_and_size(tmp_path, capsys):
    import re
    import subprocess
    import imageio_ffmpeg
    out = tmp_path / "clip"
    assert main(["synth", "--seed", "904", "--conditions", "random", "--resolution", "320x180", "--fps", "50",
                 "--clip", "1.2", "--workers", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "conditions: camera at" in printed and "s per video second" in printed
    info = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i", str(out / "video.mp4")],
                          capture_output=True, text=True).stderr
    assert re.search(r"Video: h264.*320x180.*50 fps", info), info


def test_docs_list_every_condition():
    from pathlib import Path
    from sample_videos.conditions import field_docs
    doc = (Path(__file__).resolve().parents[2] / "docs" / "synth.md").read_text()
    for name, default, allowed, drawn, _ in field_docs():
        assert f"| `{name}` | `{default}` | {allowed} | {drawn} |" in doc, name

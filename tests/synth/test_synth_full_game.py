"""`mafvar synth --realistic-timing`: a full-length game (60-90 min of video)
whose still stretches reuse rendered frames (docs/synth.md "Full-length games")."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from synth_shared import ALL_PLAYER_A, ALL_PLAYER_B, leaders, recount

from mafvar.cli import main
from sample_videos.synth import REUSE_HOLD, SynthOptions, build_game

DEMO = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"
FPS = 25


@pytest.fixture(scope="module")
def full_games():
    return {
        "default": build_game(SynthOptions(seed=7, realistic_timing=True)),
        "A": build_game(SynthOptions(seed=3, realistic_timing=True, inject=ALL_PLAYER_A + ("protocol_audit",))),
        "B": build_game(SynthOptions(seed=4, realistic_timing=True, inject=ALL_PLAYER_B)),
    }


def test_full_game_lasts_an_hour_with_real_speech_lengths(full_games):
    for game in full_games.values():
        truth, proto = game.truth, game.protocol
        assert 60 * 60 <= truth["duration"] <= 90 * 60
        speeches = [ev for ev in proto["events"] if ev["type"] == "speech"]
        full = [ev["t_end"] - ev["t"] for ev in speeches if ev.get("kind", "normal") != "tie"]
        tie = [ev["t_end"] - ev["t"] for ev in speeches if ev.get("kind") == "tie"]
        assert len(full) >= 45 and 50.0 <= min(full) and max(full) <= 60.0
        assert tie and 25.0 <= min(tie) and max(tie) <= 30.0
        assert proto["events"][-1] == {**proto["events"][-1], "type": "result", "winner": "civ"}
        assert len(truth["phases"]["days"]) == 6
        assert len([n for n in truth["phases"]["nights"] if n["index"] >= 1]) == 5
        # played to the end: every black seat left the table
        black = {p["seat"] for p in proto["seats"] if p["role"] in ("maf", "don")}
        assert black <= {e["seat"] for e in truth["exits"]}


def test_full_game_passes_protocol_check(tmp_path, capsys, full_games):
    expected = {"default": set(), "A": {"raise_forbidden"}, "B": set()}
    for key, game in full_games.items():
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps(game.protocol))
        capsys.readouterr()
        rc = main(["protocol", "check", str(path), "--json"])
        out = json.loads(capsys.readouterr().out)
        assert rc == 0 and out["valid"], out["issues"]
        assert {i["code"] for i in out["issues"] if i["severity"] in ("error", "audit")} == expected[key]
        assert out["result"] == "civ"


def test_full_game_truth_agrees_with_the_record(full_games):
    for game in full_games.values():
        truth = game.truth
        assert {v["type"] for v in truth["violations"]} == set(game.injections)
        flagged = {(v["details"].get("round"), s) for v in truth["violations"] for s in v["seats"]}
        miscounted = {v["details"].get("round") for v in truth["violations"] if v["type"] == "miscount"}
        for rnd in truth["phases"]["votes"]:
            for k, call in enumerate(rnd["calls"]):
                for seat in call["judge_voters"]:
                    fists = [v for v in truth["votes"]
                             if v["round"] == rnd["round"] and v["seat"] == seat and v["call"] == k]
                    assert len(fists) == 1
                    if (rnd["round"], seat) not in flagged:
                        assert call["call_end"] <= fists[0]["t_place"] < call["thanks"] < fists[0]["t_lift"]
            judged = leaders({c["candidate"]: c["announced"] for c in rnd["calls"]})
            if rnd["kind"] != "raise":
                if rnd["round"] in miscounted:
                    assert leaders(recount(truth, rnd)) != judged
                else:
                    assert leaders(recount(truth, rnd)) == judged
        # everything the truth times lies inside the video
        assert all(0 <= s["t0"] <= s["t1"] <= truth["duration"] + 0.01 for s in truth["seat_states"])


def test_default_game_is_unchanged(tmp_path):
    """The committed sample (seed 7, its recorded options) is still made byte for byte."""
    opts = json.loads((DEMO / "truth.json").read_text())["options"]
    out = tmp_path / "demo"
    rc = main(["synth", "--seed", "7", "--crf", str(opts["crf"]), "--inject", ",".join(opts["inject"]),
               "--no-video", "--out", str(out)])
    assert rc == 0
    for name in ("protocol.json", "truth.json"):
        assert (out / name).read_bytes() == (DEMO / name).read_bytes(), name


def _frozen_micro_motion(monkeypatch):
    """Stop the idle sway and the speaking nod: what is left is what a reused
    frame must show exactly."""
    from sample_videos.acting import engine
    from sample_videos.acting.script import Action
    head_pose = engine.head_pose
    monkeypatch.setattr(engine, "_idle", lambda ctx, t: np.zeros(8))
    monkeypatch.setattr(engine, "head_pose", lambda ctx, ev, tau: head_pose(
        ctx, ev, 0.0 if ev is not None and ev.action is Action.SPEAK else tau))


def test_still_stretches_reuse_frames(full_games, monkeypatch):
    from sample_videos.director.script import build_scripts
    from sample_videos.render.renderer import event_window, frame_sources, motion_windows, posed_players
    from sample_videos.synth import build_scene
    game = full_games["default"]
    scripts = build_scripts(game.plan)
    n = int(round(game.duration * FPS))
    assert frame_sources(scripts, 100, FPS, None) == list(range(100))   # the default path renders all
    src = frame_sources(scripts, n, FPS, REUSE_HOLD)
    assert len(set(src)) < 0.2 * n                                      # most frames are reused
    step = int(REUSE_HOLD * FPS)
    assert all(s <= i < s + step for i, s in enumerate(src))
    # every frame inside a move is rendered at its own time
    for t0, t1 in motion_windows(scripts):
        for i in range(max(0, int(np.ceil(t0 * FPS))), min(n, int(np.floor(t1 * FPS)) + 1)):
            assert src[i] == i
    # Frozen micro-motion: a reused frame's scene is exactly its own time's.
    # Checked where a too short motion window would show: the last reused
    # frame before a move and the last frame reusing the first still frame
    # after it, for a few events of every action.
    _frozen_micro_motion(monkeypatch)
    scene = build_scene(game.options)
    rng = random.Random(0)
    by_action: dict = {}
    for script in scripts.values():
        for e in script.events:
            by_action.setdefault(e.action, []).append(e)
    picks = set()
    for events in by_action.values():
        for e in rng.sample(events, min(3, len(events))):
            t0, t1 = event_window(e)
            i = min(n - 1, int(np.floor(t0 * FPS)))
            while i > 0 and src[i] == i:
                i -= 1
            j = max(0, int(np.ceil(t1 * FPS)))
            while j < n - 1 and src[j] == j and src[j + 1] == j + 1:
                j += 1
            while j < n - 1 and src[j + 1] == src[j]:
                j += 1
            picks |= {k for k in (i, j) if 0 <= k < n and src[k] != k}
    assert len(picks) >= 20
    for i in sorted(picks):
        (v_a, f_a), _ = posed_players(scene, scripts, i / FPS)
        (v_b, f_b), _ = posed_players(scene, scripts, src[i] / FPS)
        assert np.array_equal(f_a, f_b) and np.allclose(v_a, v_b, atol=1e-9), (i, src[i])


def _renderer_or_skip():
    try:
        from sample_videos.render.renderer import create_context
        create_context().release()
    except Exception as exc:  # no EGL / renderer on this machine
        pytest.skip(f"renderer not available: {exc}")


def test_reused_frames_are_the_rendered_frames(full_games):
    """The first 3 s (day, then "Night" and the masks): repeats carry exactly
    the bytes of the frame rendered at their source time."""
    _renderer_or_skip()
    from sample_videos.director.script import build_scripts
    from sample_videos.render.renderer import iter_frames, render_frame
    from sample_videos.synth import build_scene
    game = full_games["default"]
    scene = build_scene(SynthOptions(seed=7, realistic_timing=True, width=320, height=180))
    scripts = build_scripts(game.plan)
    got = list(iter_frames(scene, scripts, 3 * FPS, FPS, hold=REUSE_HOLD, workers=1))
    assert [i for i, _, _ in got] == list(range(3 * FPS))
    sources = {u for _, u, _ in got}
    assert 3 <= len(sources) < 3 * FPS and any(i != u for i, u, _ in got) and any(i == u > 0 for i, u, _ in got)
    fresh = {u: render_frame(scene, scripts, u / FPS).tobytes() for u in sources}
    for i, u, fr in got:
        assert fr == fresh[u], i


@pytest.mark.slow
def test_realistic_clip_reports_reuse(tmp_path, capsys):
    _renderer_or_skip()
    out = tmp_path / "clip"
    rc = main(["synth", "--seed", "7", "--realistic-timing", "--out", str(out), "--clip", "4",
               "--resolution", "320x180", "--workers", "1"])
    printed = capsys.readouterr().out
    assert rc == 0 and (out / "video.mp4").stat().st_size > 0
    m = re.search(r"frames: (\d+) \((\d+) rendered, (\d+) reused\)", printed)
    assert m and int(m.group(1)) == 100 and int(m.group(3)) > 0
    assert int(m.group(2)) + int(m.group(3)) == 100
    assert re.search(r"[0-9.]+ s per video second", printed)

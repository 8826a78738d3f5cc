"""Vote landings timed to the frame: the estimator on series, which sightings
are refined, how the recount uses them, and the real sample video."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine.replay import replay
from engine.timeline import build_timeline
from review.landing import apply_landings, landing_requests
from review.recount import Placement
from vision.landing import (MAX_DESCENT, MAX_RISE, MIN_DESCENT, FistEdge, EdgeRequest, landing_from_series,
                            lift_from_series)

from test_review_recount import protocol, run   # the recount tests' two-candidate day

SAMPLE = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"
FPS = 25.0


def series(appear: float, land: float, t0: float = 0.0, t1: float = 1.5, still: float = 0.2,
           moving: float = 3.0, spike_at: float | None = None):
    """A zone seen at 25 fps: empty, then a fist that appears at `appear`,
    descends (motion) until `land`, then rests (noise)."""
    t = np.round(np.arange(t0, t1, 1 / FPS), 3)
    p = np.where(t >= appear - 1e-9, 0.98, 0.02)
    d = np.where((t > appear - 0.12) & (t < land - 1e-9), moving, still)
    if spike_at is not None:
        d = np.where(np.abs(t - spike_at) < 0.06, moving, d)
    return t, p, d


def test_landing_is_the_first_still_frame_after_the_fist_appears():
    t, p, d = series(appear=0.40, land=0.64)
    appear, land, how = landing_from_series(t, p, d)
    assert appear == pytest.approx(0.40)
    assert land == pytest.approx(0.64)
    assert how == "still"


def test_no_fist_that_stays_is_no_landing():
    t = np.arange(0, 1.5, 1 / FPS)
    p = np.where(np.abs(t - 0.5) < 0.05, 0.9, 0.0)      # two frames only
    assert landing_from_series(t, p, np.full(len(t), 0.2)) is None
    assert landing_from_series(t, np.zeros(len(t)), np.full(len(t), 0.2)) is None


def test_a_neighbour_moving_through_the_zone_is_bounded_by_the_descent():
    # still never returns before the bound: a neighbour's arm keeps the zone moving
    t, p, d = series(appear=0.40, land=0.95, t1=2.0)
    appear, land, how = landing_from_series(t, p, d)
    assert how == "bounded"
    assert land == pytest.approx(appear + MAX_DESCENT)


def test_a_still_frame_right_after_appearing_is_not_yet_a_landing():
    # the motion dips for a frame at the appearance: no fist lands in under MIN_DESCENT
    t, p, d = series(appear=0.40, land=0.72)
    d = d.copy()
    d[np.argmin(np.abs(t - 0.44))] = 0.1
    _, land, _ = landing_from_series(t, p, d)
    assert land >= 0.40 + MIN_DESCENT - 1e-9
    assert land == pytest.approx(0.72)


def lift_series(lift: float, gone: float, t0: float = 0.0, t1: float = 1.5, still: float = 0.2,
                moving: float = 3.0):
    """A resting fist that starts to rise at `lift` and is out of the window after `gone`."""
    t = np.round(np.arange(t0, t1, 1 / FPS), 3)
    p = np.where(t <= gone + 1e-9, 0.98, 0.02)
    d = np.where((t >= lift - 1e-9) & (t < gone + 0.2), moving, still)
    return t, p, d


def test_lift_is_the_first_frame_of_the_motion_that_took_the_fist_away():
    t, p, d = lift_series(lift=0.80, gone=0.96)
    gone, lift, how = lift_from_series(t, p, d)
    assert gone == pytest.approx(0.96) and lift == pytest.approx(0.80) and how == "still"


def test_a_fist_still_in_the_zone_has_no_lift():
    t = np.round(np.arange(0, 1.5, 1 / FPS), 3)
    assert lift_from_series(t, np.full(len(t), 0.98), np.full(len(t), 0.2)) is None


def test_a_lift_hidden_in_motion_is_bounded_by_the_rise():
    # the zone kept moving long before the fist left (a neighbour's arm): the rise prior decides
    t, p, d = lift_series(lift=0.30, gone=1.0)
    gone, lift, how = lift_from_series(t, p, d)
    assert how == "bounded" and lift == pytest.approx(gone - MAX_RISE)


def test_only_sightings_near_a_window_closing_are_refined():
    tl = build_timeline(protocol(2, 8), replay(protocol(2, 8)))   # windows close at 62.5 and 66.5
    placements = {3: [Placement(3, 61.2, 63.0)], 4: [Placement(4, 62.1, 63.1)], 6: [Placement(6, 62.9, 63.6)],
                  9: [Placement(9, 65.0, 67.0)], 2: [Placement(2, 61.0, 62.3)], 5: [Placement(5, 61.0, 62.75)]}
    reqs = landing_requests(tl, placements)
    assert [(r.seat, r.t_seen, r.edge) for r in reqs] == [
        (4, 62.1, "land"), (2, 62.3, "lift"), (5, 62.75, "lift"), (6, 62.9, "land")]


def test_a_lift_before_thank_you_timed_to_the_frame_is_an_early_lift():
    # last seen 62.36 at the vote rate: within the sampling margin of "thank you" (62.5), not flagged
    sampled = {4: [Placement(4, 61.5, 62.36)]}
    before, _ = run(protocol(1, 8), sampled)
    assert "early_lift" not in next(v for v in before[0].voters if v.seat == 4).flags
    timed = apply_landings(sampled, [FistEdge(4, 62.36, 62.36, 62.2, "still", "lift")])
    assert timed[4][0].t_lift == pytest.approx(62.2) and timed[4][0].lift_timing == "full_rate"
    after, _ = run(protocol(1, 8), timed)
    v = next(v for v in after[0].voters if v.seat == 4)
    assert v.counted and "early_lift" in v.flags and v.lift_timing == "full_rate"
    # a lift timed on or after "thank you" is no foul
    on_time = apply_landings(sampled, [FistEdge(4, 62.36, 62.6, 62.52, "still", "lift")])
    again, _ = run(protocol(1, 8), on_time)
    assert "early_lift" not in next(v for v in again[0].voters if v.seat == 4).flags


def test_a_landing_after_thank_you_makes_the_vote_late_and_void():
    sampled = {4: [Placement(4, 62.32, 63.2)]}      # seen before "thank you" (62.5) at the vote rate
    before, _ = run(protocol(1, 8), sampled)
    assert before[0].recount == 1 and not before[0].differs
    landed = apply_landings(sampled, [FistEdge(4, 62.32, 62.30, 62.58, "still")])
    assert landed[4][0].t_place == pytest.approx(62.58) and landed[4][0].timing == "full_rate"
    after, _ = run(protocol(1, 8), landed)
    v = next(v for v in after[0].voters if v.seat == 4)
    assert not v.counted and v.reason == "late" and "late_vote" in v.flags
    assert v.timing == "full_rate"
    # the void fist no longer counts for 5: the judge's 1 is now a miscount, and 4 votes 7 by default
    assert after[0].recount == 0 and after[0].differs
    assert 4 in after[1].defaults


def test_a_landing_never_moves_past_the_lift():
    landed = apply_landings({2: [Placement(2, 5.0, 5.3)]}, [FistEdge(2, 5.0, 4.98, 5.38, "bounded")])
    assert landed[2][0].t_place == pytest.approx(5.3)


def test_unrefined_placements_are_kept_as_they_were():
    ps = {1: [Placement(1, 3.0, 4.0)], 2: [Placement(2, 5.0, 6.0)]}
    landed = apply_landings(ps, [FistEdge(2, 9.9, 9.8, 10.0, "still"), FistEdge(1, 4.0, 4.0, 3.9, "still", "land")])
    assert landed == {1: [Placement(1, 3.0, 4.0)], 2: [Placement(2, 5.0, 6.0)]}


@pytest.mark.slow
def test_the_sample_late_vote_lands_after_thank_you_in_the_real_video():
    """The committed sample's injected late vote: at the vote rate the fist is
    first seen before "Thank you"; read at 25 fps it lands after it, within a
    frame or two of the truth."""
    from vision.calibration import load_calibration
    from vision.landing import measure_landings
    from vision.video import open_video
    truth = json.loads((SAMPLE / "truth.json").read_text())
    late = next(v for v in truth["violations"] if v["type"] == "late_vote")
    seat, t_place, t_thanks = late["seats"][0], late["details"]["t_place"], late["details"]["t_thanks"]
    cal = load_calibration(SAMPLE / "calibration.json")
    cam = next(iter(cal.cameras))
    # every sighting a 5 fps pass could have had before the landing
    for seen in (t_place - 0.3, t_place - 0.2, t_place - 0.1):
        found, decoded, warnings = measure_landings(open_video(SAMPLE / "video.mp4"), cal, cam,
                                                    [EdgeRequest(seat, round(seen, 2))])
        assert not warnings and decoded > 30
        assert len(found) == 1
        assert found[0].t_edge >= t_thanks, (seen, found[0])
        assert abs(found[0].t_edge - t_place) <= 0.1, (seen, found[0])
    # an on-time fist of the same sample, first seen at the vote rate, is not moved past its window
    ontime = [v for v in truth["votes"] if v["status"] == "in_window"][:4]
    reqs = [EdgeRequest(v["seat"], round(v["t_place"] - 0.2, 2)) for v in ontime]
    found, _, _ = measure_landings(open_video(SAMPLE / "video.mp4"), cal, cam, reqs)
    assert len(found) == len(reqs)
    for v, ld in zip(sorted(ontime, key=lambda v: (round(v["t_place"] - 0.2, 2), v["seat"])),
                     sorted(found, key=lambda ld: (ld.t_seen, ld.seat))):
        assert abs(ld.t_edge - v["t_place"]) <= 0.15, (v, ld)


@pytest.mark.slow
def test_the_sample_early_lift_leaves_the_table_before_thank_you_in_the_real_video():
    from vision.calibration import load_calibration
    from vision.landing import measure_landings
    from vision.video import open_video
    truth = json.loads((SAMPLE / "truth.json").read_text())
    early = next(v for v in truth["violations"] if v["type"] == "early_lift")
    seat, t_lift, t_thanks = early["seats"][0], early["details"]["t_lift"], early["details"]["t_thanks"]
    cal = load_calibration(SAMPLE / "calibration.json")
    cam = next(iter(cal.cameras))
    # the last sightings a 5 fps pass could have had of the rising fist
    for seen in (t_lift + 0.05, t_lift + 0.15, t_lift + 0.2):
        found, _, warnings = measure_landings(open_video(SAMPLE / "video.mp4"), cal, cam,
                                              [EdgeRequest(seat, round(seen, 2), "lift")])
        assert not warnings and len(found) == 1 and found[0].edge == "lift"
        assert found[0].t_edge < t_thanks, (seen, found[0])
        assert abs(found[0].t_edge - t_lift) <= 0.15, (seen, found[0])
    # lifts after the count: never before "thank you"
    later = [v for v in truth["votes"] if v["status"] == "in_window"][:4]
    reqs = [EdgeRequest(v["seat"], round(v["t_lift"] + 0.15, 2), "lift") for v in later]
    found, _, _ = measure_landings(open_video(SAMPLE / "video.mp4"), cal, cam, reqs)
    assert len(found) == len(reqs)
    for ld in found:
        v = next(v for v in later if v["seat"] == ld.seat and abs(v["t_lift"] + 0.15 - ld.t_seen) < 0.02)
        assert abs(ld.t_edge - v["t_lift"]) <= 0.15, (v, ld)


@pytest.mark.slow
def test_a_sighting_the_file_cannot_give_keeps_its_sampled_time(tmp_path):
    """A recording cut short (or truncated) before a sighting: no landing, no
    crash; the placement keeps its sampled time."""
    import subprocess
    from vision.calibration import load_calibration
    from vision.landing import measure_landings
    from vision.video import ffmpeg_exe, open_video
    short = tmp_path / "short.mp4"
    subprocess.run([ffmpeg_exe(), "-v", "error", "-y", "-i", str(SAMPLE / "video.mp4"), "-t", "62.5",
                    "-c", "copy", str(short)], check=True)
    cal = load_calibration(SAMPLE / "calibration.json")
    cam = next(iter(cal.cameras))
    found, _, warnings = measure_landings(open_video(short), cal, cam, [EdgeRequest(2, 62.98)])
    assert found == []
    placements = {2: [Placement(2, 62.98, 64.0)]}
    assert apply_landings(placements, found) == placements

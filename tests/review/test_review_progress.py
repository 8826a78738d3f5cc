"""One progress bar over a whole analysis: never back, an ETA from the measured speed."""
from __future__ import annotations

import pytest

from review.progress import UNIT_COSTS, RunProgress, format_duration


def clocked():
    now = [0.0]
    p = RunProgress.for_game()
    p.clock = lambda: now[0]
    return p, now


def test_the_fraction_covers_the_whole_run_and_never_goes_back():
    p, now = clocked()
    seen = [p.update("load", 0.0).fraction]
    p.plan_game(video_s=200.0, frames=2000, vote_s=20.0, timed=True)
    for stage, frac in [("extract", 0.0), ("extract", 0.5), ("extract", 1.0), ("extract_refine", 0.5),
                        ("align", 0.0), ("landing", 0.0), ("recount", 0.0), ("checks", 0.0),
                        ("clips", 0.0), ("clips", 0.5)]:
        now[0] += 3.0
        seen.append(p.update(stage, frac).fraction)
    assert seen == sorted(seen), "the bar went back"
    assert 0.0 < seen[2] < seen[3] < 1.0
    # extraction is most of the expected work, so half of it is most of half the bar
    total = sum(p.plan.values())
    assert p.plan["extract"] / total > 0.6
    assert p.update("done", 1.0).fraction == 1.0


def test_a_stage_that_restarts_at_zero_does_not_pull_the_bar_back():
    p, now = clocked()
    p.plan_game(video_s=100.0, frames=1000, vote_s=10.0, timed=False)
    now[0] = 5.0
    a = p.update("extract", 0.9).fraction
    now[0] = 6.0
    b = p.update("align", 0.0).fraction       # extraction finished, alignment starts at 0 %
    now[0] = 7.0
    c = p.update("extract_dense", 0.0).fraction
    assert a < b <= c


def test_the_time_left_comes_from_the_measured_speed_over_the_remaining_plan():
    p, now = clocked()
    p.update("load", 0.0)
    p.plan_game(video_s=200.0, frames=2000, vote_s=20.0, timed=True)
    total = sum(p.plan.values())
    now[0] = 10.0
    r = p.update("extract", 0.5)
    done = r.fraction * total
    # this machine runs the planned work at done/10 expected seconds per second
    assert r.eta_s == pytest.approx((total - done) / (done / 10.0), rel=1e-6)
    assert "left" in r.text and r.text.startswith(f"{r.fraction * 100:.0f}%")


def test_replanning_the_clips_by_the_incidents_found():
    p, _ = clocked()
    p.plan_game(video_s=200.0, frames=2000, vote_s=20.0, timed=True)
    p.replan("clips", UNIT_COSTS["clips"] * 0)
    assert p.plan["clips"] == 0.0


def test_durations_read_as_a_person_says_them():
    assert format_duration(42.4) == "about 42 s"
    assert format_duration(191) == "about 3 min 11 s"
    assert format_duration(191, about=False) == "3 min 11 s"

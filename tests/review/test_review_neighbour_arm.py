"""A neighbour's arm crossing a seat's body window raises no touch on that seat.

Through what the analysis does after the extraction: per-frame states of every
seat (vision.neighbour_arms.resolve), tracks, the rule checks, the view
abstentions and what they withhold. The seat geometry is the committed
sample's calibration; the game is review.view's test game (night 1 from 20 s,
the shooting called at 28-33 s); the seat states are what the body window gave
on fresh seed 2301, where seat 2's hand going to her mask read as seat 3's
touch.
"""
from __future__ import annotations

from pathlib import Path

from engine.replay import replay
from engine.timeline import build_timeline
from review.checks import CheckContext, run_checks
from review.recount import recount
from review.view import Abstention, abstentions, sentence, withhold
from vision.calibration import load_calibration
from vision.neighbour_arms import resolve
from vision.tracks import FrameState, Observed, build_tracks
from vision.view_quality import seat_views

from test_review_view import HONEST, game

SEATS = load_calibration(Path(__file__).resolve().parents[2] / "sample_videos" / "demo" / "calibration.json"
                         ).camera("cam1").seats
S = Observed
TIMES = [round(20.0 + i * 0.2, 3) for i in range(0, 151)]          # night 1 at 5 fps


def review(acts: list[FrameState]):
    """(incidents, abstentions) of night 1 with every seat in the night pose but for `acts`."""
    busy = {(f.seat, f.t) for f in acts}
    frames = [FrameState(t, s, st, 1.0) for t in TIMES for s in SEATS if (s, t) not in busy
              for st in (S.MASK_ON, S.HEAD_DOWN, S.ARMS_CROSSED)]
    frames += [FrameState(f.t, f.seat, S.MASK_ON, 1.0) for f in acts] + acts
    frames = resolve(frames, SEATS)
    tracks = build_tracks(frames, {s: TIMES for s in SEATS})
    p = game()
    rep = replay(p)
    tl = build_timeline(p, rep)
    found = abstentions(tl, seat_views([(s, t, {}) for s in SEATS for t in TIMES], frames))
    return withhold(run_checks(CheckContext(p, rep, tl, tracks), recount(tl, HONEST, rep.profile)), found)


def span(t0: float, t1: float) -> list[float]:
    return [t for t in TIMES if t0 <= t <= t1]


def test_a_civilian_touching_a_neighbour_who_sits_still_is_a_touch():
    incidents, found = review([FrameState(t, 9, S.TOUCH, 0.9, "10") for t in span(40.0, 41.4)])
    assert ("touch_night", (9, 10)) in {(i.type.value, i.seats) for i in incidents}
    assert not [a for a in found if a.seat == 9 and a.window == "body"]


def test_the_neighbours_hand_at_her_mask_read_as_the_seats_touch_is_hers_not_the_seats():
    # seat 10 takes her hand to her mask at 40.2-41.6; seat 9's body window reads
    # her arm as seat 9's touch from the frame before
    acts = [FrameState(t, 10, S.HAND_AT_MASK, 0.99) for t in span(40.2, 41.6)] \
        + [FrameState(t, 9, S.TOUCH, 0.8) for t in span(40.0, 40.8)]
    incidents, found = review(acts)
    got = {(i.type.value, i.seats) for i in incidents}
    assert not any(kind == "touch_night" and 9 in seats for kind, seats in got), got
    assert ("mask_touch", (10,)) in got
    said = [a for a in found if a.seat == 9 and a.window == "body" and a.kind == "night"]
    assert said and said[0].why == ("neighbour",) and (said[0].t0, said[0].t1) == (40.0, 40.8)
    assert "cannot judge seat 9's hands and posture in night 1 (40.0-40.8 s)" in sentence(said[0])
    assert "neighbour's own arm" in sentence(said[0])


def test_a_moment_a_neighbours_arm_crossed_hides_only_what_it_contains():
    brief = Abstention(9, "body", "r1.night", "night 1", "night", 40.0, 40.4, 0.97, 3, ("neighbour",), False)
    assert brief.hides(9, "body", 40.2, 40.4, 0.5)
    # the seat's own act seen for seconds around that moment stands on its other frames
    assert not brief.hides(9, "body", 38.0, 43.0, 0.5)
    dark = Abstention(9, "body", "r1.night", "night 1", "night", 40.0, 40.4, 0.97, 3, ("dark",), False)
    assert dark.hides(9, "body", 38.0, 43.0, 0.5)

"""Whose fists land, not only how many: where the record names each call's
voters, a vote call seen in the picture is matched by its seats
(review.align.ordered_match). Muted and untimed, the committed sample's day 1
had shown its first call's four fists (five voters, one of them early) and
been taken for the next call, which has four voters: both calls 2-4 s early."""
from __future__ import annotations

import json
from pathlib import Path

from engine.protocol import Protocol, without_times
from engine.replay import replay
from engine.timeline import build_timeline
from review.align import Expected, Mark, align, ordered_match, video_marks
from vision.tracks import Track

DEMO = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"


def _timeline(timed: bool):
    doc = json.loads((DEMO / "protocol.json").read_text())
    p = Protocol.from_dict(doc if timed else without_times(doc))
    return build_timeline(p, replay(p))


def _tracks():
    """Day 1 of the sample as the muted analysis saw it: seat 9 votes early
    (56.0), seats 1, 3, 8, 10 land at 58.0-58.2 on candidate 9; seats 4 and 6
    at 61.8 and seat 2 late (63.2) on candidate 7; then the revote."""
    out = [Track(s, "mask_on", 3.0 + 0.05 * s, 20.0, 0.9) for s in range(1, 11)]
    out += [Track(s, "mask_off", 20.8 + 0.05 * s, 86.0, 0.9, frames=6) for s in range(1, 11)]
    out += [Track(9, "fist_on_table", 56.0, 60.0, 0.9)]
    out += [Track(s, "fist_on_table", 58.0 + 0.05 * i, 60.0, 0.9) for i, s in enumerate((1, 8, 3, 10))]
    out += [Track(s, "fist_on_table", 61.8, 63.6, 0.9) for s in (4, 6)]
    out += [Track(2, "fist_on_table", 63.2, 64.0, 0.9)]
    for t, seats in ((73.8, (1, 2, 4, 7, 8, 9)), (77.6, (5, 6))):
        out += [Track(s, "fist_on_table", t + 0.02 * s, t + 1.8, 0.9) for s in seats]
    out += [Track(s, "mask_on", 86.5 + 0.1 * s, 116.0, 0.9) for s in range(1, 11)]
    return out


def test_vote_call_marks_carry_their_seats():
    marks = [m for m in video_marks(_tracks()) if m.kind == "vote_call"]
    by_t = {round(m.t + 1.3, 1): m.seats for m in marks}
    assert by_t[58.0] == frozenset({1, 3, 8, 10}) and by_t[56.0] == frozenset({9})
    assert by_t[61.8] == frozenset({4, 6}) and by_t[63.2] == frozenset({2})


def test_the_record_names_each_calls_voters():
    calls = {iv.key: iv for iv in _timeline(timed=False) if iv.key.startswith("r0.vote.p0.c")}
    voters = {k: iv.details["voters"] for k, iv in calls.items()}
    assert set(voters["r0.vote.p0.c9"]) >= {1, 3, 8, 10} and 2 in voters["r0.vote.p0.c7"]


def test_the_seats_tell_apart_two_calls_that_counting_confuses():
    four = Mark("vote_call", 56.7, 0.9, "video", n=4, seats=frozenset({1, 3, 8, 10}))
    two = Mark("vote_call", 60.5, 0.7, "video", n=2, seats=frozenset({4, 6}))
    lone = Mark("vote_call", 54.7, 0.4, "video", n=1, seats=frozenset({9}))
    first = Expected("vote_call", "c9", None, 0, 5, frozenset({1, 3, 8, 9, 10}))
    second = Expected("vote_call", "c7", None, 1, 4, frozenset({2, 4, 6, 7}))
    got = ordered_match([first, second], [lone, four, two])
    assert got == {0: four, 1: two}
    # the same marks with only their counts: four fists look like the second call's
    counted = [Mark(m.kind, m.t, m.confidence, m.source, n=m.n) for m in (lone, four, two)]
    assert ordered_match([first, second], counted)[1].n == 4


def test_day_1_is_placed_from_whose_fists_without_sound_or_times():
    truth = {iv.key: iv.t0 for iv in _timeline(timed=True) if iv.key.startswith("r0.vote.p0.c")}
    al = align(list(_timeline(timed=False)), video_marks(_tracks()), use_protocol_times=False)
    placed = {p.interval.key: p.interval.t0 for p in al.placements if p.interval.key in truth}
    for key, t in truth.items():
        assert abs(placed[key] - t) <= 1.0, (key, placed[key], t)

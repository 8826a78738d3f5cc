"""A call one player votes at shows one fist: with no sound and no times it is that
call's only mark (review.align.LONE_FIST_CONFIDENCE), and it keeps the next call's
fists from being taken for it."""
from __future__ import annotations

import json
from pathlib import Path

from engine.protocol import Protocol, without_times
from engine.replay import replay
from engine.timeline import build_timeline
from review.align import LONE_FIST_CONFIDENCE, Mark, align, video_marks
from vision.tracks import Track

DEMO = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"


def _timeline(timed: bool):
    doc = json.loads((DEMO / "protocol.json").read_text())
    p = Protocol.from_dict(doc if timed else without_times(doc))
    return build_timeline(p, replay(p))


def _day2_calls(timed: bool):
    """Day 2 of the sample: candidates 10, 1 and 3 (1 has a single voter, seat 8)."""
    calls = [iv for iv in _timeline(timed) if iv.key.startswith("r1.vote.p0.c")]
    return {iv.key.rsplit(".", 1)[1]: iv for iv in calls}


def _tracks():
    """The sample's masks and fists as the muted analysis saw them (its marks, less the
    checks): day 2's three calls land fists at 153.0 (four seats), 156.24 (seat 8
    alone), 160.0 (two)."""
    out = [Track(s, "mask_on", 3.0 + 0.05 * s, 20.0, 0.9) for s in range(1, 11)]
    out += [Track(s, "mask_off", 20.8 + 0.05 * s, 86.0, 0.9, frames=6) for s in range(1, 11)]
    for t, seats in ((58.0, (1, 3, 8, 9)), (61.84, (2, 4, 6)), (73.84, (1, 2, 4, 7, 8, 9)), (77.64, (5, 6))):
        out += [Track(s, "fist_on_table", t + 0.02 * s, t + 1.8, 0.9) for s in seats]
    out += [Track(s, "mask_on", 86.5 + 0.1 * s, 116.0, 0.9) for s in range(1, 11)]
    out += [Track(s, "mask_off", 118.0 + 0.1 * s, 168.0, 0.9, frames=6) for s in range(1, 11)]
    out += [Track(s, "mask_on", 168.8 + 0.1 * s, 196.0, 0.9) for s in range(1, 11)]
    out += [Track(s, "fist_on_table", 153.0 + 0.02 * s, 155.0, 0.9) for s in (2, 3, 4, 7)]
    out += [Track(8, "fist_on_table", 156.24, 158.4, 0.9)]
    out += [Track(s, "fist_on_table", 160.0 + 0.2 * i, 161.9, 0.9) for i, s in enumerate((10, 6))]
    return out


def test_one_fist_is_a_weak_vote_call_mark():
    marks = [m for m in video_marks(_tracks()) if m.kind == "vote_call"]
    lone = [m for m in marks if m.n == 1]
    assert [round(m.t, 2) for m in lone] == [round(156.24 - 1.3, 2)]
    assert lone[0].confidence == LONE_FIST_CONFIDENCE < min(m.confidence for m in marks if m.n != 1)


def test_a_one_vote_call_is_placed_from_its_fist_without_sound_or_times():
    truth = _day2_calls(timed=True)
    untimed = _day2_calls(timed=False)
    al = align(list(_timeline(timed=False)), video_marks(_tracks()), use_protocol_times=False)
    placed = {p.interval.key.rsplit(".", 1)[1]: p.interval.t0 for p in al.placements if p.interval.key in
              {iv.key for iv in untimed.values()}}
    for c in ("c10", "c1", "c3"):
        assert abs(placed[c] - truth[c].t0) <= 1.0, (c, placed[c], truth[c].t0)


def test_a_lone_fist_is_not_a_mark_where_the_protocol_times_or_the_judges_voice_place_calls():
    lone = Mark("vote_call", 154.94, LONE_FIST_CONFIDENCE, "video", n=1)
    timed = align(list(_timeline(timed=True)), [lone], use_protocol_times=True)
    assert "vote_call:r1.vote.p0.c1" not in timed.matched
    spoken = [Mark("speech", 151.7, 1.0, "speech", t_end=152.7)]
    heard = align(list(_timeline(timed=False)), [lone, *spoken], use_protocol_times=False)
    assert all(mk.n != 1 for mk in heard.matched.values())

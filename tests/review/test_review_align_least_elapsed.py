"""Untimed alignment cannot squeeze a day into seconds: no mark is matched earlier
than the least time the record's phases before it take (review.align.least_elapsed)."""
from __future__ import annotations

import json
from pathlib import Path

from engine.protocol import Protocol, without_times
from engine.replay import replay
from engine.timeline import Kind, build_timeline
from review.align import Mark, align, least_elapsed

DEMO = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"


def _untimed_timeline():
    p = Protocol.from_dict(without_times(json.loads((DEMO / "protocol.json").read_text())))
    return build_timeline(p, replay(p))


def test_the_least_elapsed_time_grows_with_the_record():
    tl = _untimed_timeline()
    least = least_elapsed(tl)
    nights = [iv for iv in tl if iv.kind is Kind.NIGHT]
    assert least[nights[0].event] == 0.0
    # before night 1: day 1's ten speeches, two tie speeches and four vote calls at least
    assert least[nights[1].event] >= 12 * 1.0 + 4 * 1.5
    assert [least[n.event] for n in nights] == sorted(least[n.event] for n in nights)


def test_a_nightfall_seen_too_early_is_not_night_1s(monkeypatch):
    # the marks a proposed calibration gave on the sample with its mafiaratings record
    # (no wakes, no calls at night): the Don's seat misread as checking in the deal
    # night made night 1 fit there, day 1 squeezed into 3 s before it
    tl = _untimed_timeline()
    marks = [Mark("morning", -1.2, 1.0, "video"), Mark("nightfall", 2.05, 1.0, "video"),
             Mark("don_check", 3.35, 0.9, "video"), Mark("don_check_end", 5.55, 0.9, "video"),
             Mark("sheriff_check", 15.1, 0.88, "video"), Mark("sheriff_check_end", 17.1, 0.88, "video"),
             Mark("morning", 19.8, 1.0, "video"),
             Mark("vote_call", 60.47, 0.8, "video", n=3), Mark("vote_call", 72.7, 0.7, "video", n=2),
             Mark("vote_call", 76.38, 0.7, "video", n=2), Mark("nightfall", 85.85, 0.9, "video"),
             Mark("morning", 116.8, 0.9, "video"), Mark("vote_call", 150.82, 0.8, "video", n=3),
             Mark("nightfall", 168.66, 0.8, "video")]
    placed = {p.interval.key: p.interval.t0 for p in align(tl, marks, use_protocol_times=False).placements}
    assert abs(placed["r0.night"] - 2.05) < 0.5 and abs(placed["r1.night"] - 85.85) < 0.5
    assert abs(placed["r2.night"] - 168.66) < 0.5
    # the deal night's wakes, expected as checks are (review.align.CHECK_MARK), take the
    # deal night's check marks on their own, without the bound
    monkeypatch.setattr("review.align.LEAST_SECONDS", {})
    placed = {p.interval.key: p.interval.t0 for p in align(tl, marks, use_protocol_times=False).placements}
    assert abs(placed["r1.night"] - 85.85) < 0.5
    # with neither, the same marks put night 1 on the deal night's nightfall
    monkeypatch.setattr("review.align.CHECK_MARK", {Kind.DON_CHECK: "don_check", Kind.SHERIFF_CHECK: "sheriff_check"})
    placed = {p.interval.key: p.interval.t0 for p in align(tl, marks, use_protocol_times=False).placements}
    assert placed["r1.night"] < 19.8

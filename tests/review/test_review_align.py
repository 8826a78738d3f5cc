"""Alignment: the timeline placed on the video clock from marks, times and anchors."""
from __future__ import annotations


from engine.generate import random_game
from engine.protocol import Protocol, without_times
from engine.replay import replay
from engine.timeline import Kind, build_timeline
from review.align import Mark, align, expected_marks, fit_clock, ordered_match, video_marks
from vision.tracks import Track



def timeline(doc):
    p = Protocol.from_dict(doc)
    return build_timeline(p, replay(p))


def marks_for(intervals, clock=lambda t: t, drop_every=0, conf=0.9):
    """The marks a perfect detector would see, on a video clock."""
    out = []
    for i, e in enumerate(expected_marks(intervals)):
        if e.t is None or (drop_every and i % drop_every == 0):
            continue
        out.append(Mark(e.kind, clock(e.t), conf, "audio"))
    return out



def test_fit_clock_recovers_offset_and_drift_despite_an_outlier():
    pairs = [(t, 12.3 + 1.001 * t) for t in (0, 100, 500, 900, 1500)] + [(700, 2000.0)]
    c = fit_clock(pairs)
    assert abs(c.offset - 12.3) < 0.05 and abs(c.drift - 1.001) < 1e-4


def test_protocol_times_with_offset_and_drift_are_mapped_by_the_fitted_clock():
    doc = random_game(5)
    tl = timeline(doc)
    clock = lambda t: 30.0 + 1.002 * t
    al = align(tl, marks_for(tl, clock, drop_every=4))
    assert abs(al.clock.offset - 30.0) < 0.1 and abs(al.clock.drift - 1.002) < 1e-3
    for p, iv in zip(al.placements, tl):
        if iv.t0 is not None:
            assert abs(p.interval.t0 - clock(iv.t0)) < 0.1, iv.key


def test_without_protocol_times_marks_place_every_night_and_vote_window():
    doc = random_game(8)
    truth = timeline(doc)
    clock = lambda t: t + 7.5
    marks = marks_for(truth, clock)
    # a spurious vote-call mark and a spurious nightfall must not shift the rest
    end = max(iv.t1 for iv in truth if iv.t1 is not None)
    marks += [Mark("vote_call", 3.0, 0.5, "video"), Mark("nightfall", clock(end) + 50, 0.4, "video")]
    marks.sort(key=lambda m: m.t)
    al = align(timeline(without_times(doc)), marks)
    assert al.clock is None
    placed = {p.interval.key: p.interval for p in al.placements}
    for iv in truth:
        if iv.kind in (Kind.NIGHT, Kind.VOTE_CALL):
            got = placed[iv.key]
            assert abs(got.t0 - clock(iv.t0)) < 1.0, iv.key
            if iv.kind is Kind.VOTE_CALL and iv.details["window_close"] is not None:
                assert abs(got.details["window_close"] - clock(iv.details["window_close"])) < 1.0


def test_ordered_matching_is_monotone_and_skips_what_was_not_seen():
    doc = random_game(2)
    exp = expected_marks(timeline(doc))
    marks = [Mark(e.kind, e.t, 0.9, "audio") for e in exp if e.t is not None][::2]
    m = ordered_match(exp, marks)
    idx = sorted(m)
    assert [m[i].t for i in idx] == sorted(m[i].t for i in idx)
    assert len(m) == len(marks)


def test_a_manual_anchor_overrides_the_video():
    doc = without_times(random_game(4))
    tl = timeline(doc)
    night2 = next(iv for iv in tl if iv.kind is Kind.NIGHT and iv.round == 2)
    al = align(tl, [Mark("nightfall", 999.0, 0.9, "video")], anchors={night2.key: 2472.0})
    placed = next(p for p in al.placements if p.interval.key == night2.key)
    assert placed.interval.t0 == 2472.0 and placed.anchored_by == "manual"


def test_video_marks_from_masks_and_fists():
    tracks = [Track(s, "mask_on", 100.4 + 0.2 * s, 150.0, 0.9) for s in range(1, 11)]
    tracks += [Track(s, "mask_off", 160.5 + 0.1 * s, 200.0, 0.9, frames=6) for s in range(1, 9)]
    tracks += [Track(s, "fist_on_table", 181.3 + 0.1 * s, 183.0, 0.9) for s in (2, 3, 5)]
    kinds = [(m.kind, round(m.t)) for m in video_marks(tracks)]
    assert ("nightfall", 100) in kinds and ("morning", 160) in kinds and ("vote_call", 180) in kinds


def test_the_checkers_mask_places_a_night_check_and_a_days_unmasking_does_not():
    from review.align import check_marks
    roles = {8: "don", 2: "sheriff", 1: "maf", 7: "maf"}
    tracks = [Track(s, "mask_on", 87.0, 117.0, 0.9) for s in range(1, 11) if s not in (8, 2)]
    tracks += [Track(8, "mask_on", 87.6, 106.0, 0.9), Track(8, "mask_lifted", 106.07, 109.7, 0.9, frames=22),
               Track(2, "mask_on", 87.6, 111.2, 0.9), Track(2, "mask_lifted", 111.3, 114.62, 0.9, frames=20),
               Track(8, "mask_off", 117.4, 169.0, 0.9, frames=310)]  # the day: everyone unmasked, not a check
    got = [(m.kind, round(m.t, 1)) for m in check_marks(tracks, roles)]
    assert got == [("don_check", 105.8), ("don_check_end", 110.0), ("sheriff_check", 111.0),
                   ("sheriff_check_end", 114.9)]


def test_a_checkers_mask_read_back_on_for_a_moment_is_one_check_not_two():
    # the full-length game's night 3: the Don's mask off, read on for 0.8 s, off again
    from review.align import check_marks
    roles = {4: "don", 10: "sheriff"}
    tracks = [Track(s, "mask_on", 2270.0, 2320.0, 0.9) for s in range(1, 11) if s not in (4, 10)]
    tracks += [Track(4, "mask_off", 2289.0, 2293.8, 0.8, frames=29), Track(4, "mask_on", 2294.0, 2294.8, 0.96),
               Track(4, "mask_off", 2295.0, 2295.8, 0.8, frames=5), Track(4, "mask_lifted", 2296.0, 2297.8, 0.8, frames=11),
               Track(4, "mask_on", 2298.0, 2313.0, 1.0)]
    # the Sheriff's lifted mask with one frame missed at the night's 1 fps
    tracks += [Track(10, "mask_lifted", 2300.0, 2302.0, 0.99, frames=13), Track(10, "mask_lifted", 2304.0, 2308.0, 0.99, frames=25),
               Track(10, "mask_on", 2311.0, 2313.0, 0.9)]
    got = [(m.kind, round(m.t, 1)) for m in check_marks(tracks, roles)]
    assert got == [("don_check", 2288.7), ("don_check_end", 2298.1),
                   ("sheriff_check", 2299.7), ("sheriff_check_end", 2308.3)]
    # stretches further apart stay two checks
    tracks[-2] = Track(10, "mask_lifted", 2304.5, 2308.0, 0.99, frames=22)
    assert len(check_marks(tracks, roles)) == 6
    # a check ending just before the morning's unmasking is not swallowed by the day
    day = [Track(s, "mask_off", 2314.0, 2900.0, 0.99, frames=3517) for s in range(1, 11)]
    got = [m.kind for m in check_marks(tracks[:-3] + [Track(10, "mask_lifted", 2300.0, 2312.5, 0.99, frames=76)] + day, roles)]
    assert got.count("sheriff_check") == 1 and got.count("sheriff_check_end") == 1


def test_the_last_nights_few_players_masking_together_are_its_nightfall_and_a_days_resumed_tracks_are_no_morning():
    # the full-length game's last night: four players left (six seats seen empty since
    # they left), all four masking at once. Half of ten would need five
    players, gone = (4, 6, 7, 10), (1, 2, 3, 5, 8, 9)
    tracks = [Track(s, "seat_empty", 900.0 + 100 * k, 3926.0, 0.9) for k, s in enumerate(gone)]
    tracks += [Track(s, "mask_off", 2943.0, 3482.0, 0.9, frames=3235) for s in players]
    tracks += [Track(s, "mask_on", 3483.0 + 0.1 * k, 3518.0, 0.9) for k, s in enumerate(players)]
    tracks += [Track(s, "mask_off", 3519.0 + 0.2 * k, 3600.0, 0.9, frames=6) for k, s in enumerate(players)]
    # the last day: three players look down for two seconds and back up, their bare faces'
    # tracks resuming together (no mask went off: no morning)
    tracks += [Track(s, "head_down", 3600.0, 3602.0, 0.9) for s in players[:3]]
    tracks += [Track(s, "mask_off", 3602.0 + 0.3 * k, 3700.0, 0.9, frames=6) for k, s in enumerate(players[:3])]
    # an empty chair read as a bare face beside them counts for nothing
    tracks += [Track(1, "mask_off", 3602.5, 3610.0, 0.6, frames=46)]
    marks = [(m.kind, round(m.t, 1)) for m in video_marks(tracks) if m.kind in ("nightfall", "morning")]
    assert any(k == "nightfall" and abs(t - (3483.15 - 1.2)) < 0.1 for k, t in marks)
    assert [k for k, t in marks if t > 3500] == ["morning"] and [t for k, t in marks if t > 3500][0] < 3520
    # ten players: four masking together is not the table's nightfall
    ten = [Track(s, "mask_off", 100.0, 200.0, 0.9, frames=601) for s in range(1, 11)]
    ten += [Track(s, "mask_on", 201.0 + 0.1 * s, 260.0, 0.9) for s in range(1, 5)]
    assert not [m for m in video_marks(ten) if m.kind == "nightfall"]

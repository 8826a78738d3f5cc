"""A vote heard: runs of the judge's call and thank-you utterances (review/vote_runs.py),
and the untimed alignment that takes a vote only when no other run could be it, and
doubts what only the order of events placed (review.align.doubtful)."""
from __future__ import annotations

import pytest

from engine.generate import random_game
from engine.protocol import Protocol, without_times
from engine.replay import replay
from engine.timeline import Kind, build_timeline
from review.align import VOTE_SHAPE, Mark, align
from review.vote_runs import assign_runs, vote_runs



def said(t, length, conf=0.7):
    return Mark("speech", t, conf, "speech", t_end=t + length)


def vote(t, calls, window=1.6, pause=1.0, call=0.9, thanks=0.35, conf=0.7):
    """A judge calling a vote of `calls` candidates from `t`: call, window, thank you, pause."""
    out = []
    for _ in range(calls):
        out.append(said(t, call, conf))
        out.append(said(t + call + window, thanks, conf))
        t += call + window + thanks + pause
    return out


def test_a_vote_is_one_run_with_as_many_calls_and_the_candidates_read_out_before_it_are_not_a_call():
    # "the candidates are numbers 4 and 6" (2 s), then the vote; talk before, a last word after
    heard = [said(40.0, 1.2), said(42.1, 0.3), said(50.0, 2.0)] + vote(52.6, 3) + [said(70.0, 1.4)]
    runs = vote_runs(heard, VOTE_SHAPE)
    three = [r for r in runs if len(r.calls) == 3]
    assert len(three) == 1 and three[0].t0 == 52.6
    assert not any(len(r.calls) == 3 and r.t0 != 52.6 for r in runs)


def test_a_thank_you_split_at_its_stop_is_one_and_a_different_window_ends_the_run():
    heard = vote(10.0, 2)
    thanks = heard[1]
    # "thank" and "you" heard apart
    heard[1:2] = [said(thanks.t, 0.15), said(thanks.t + 0.3, 0.12)]
    assert [len(r.calls) for r in vote_runs(heard, VOTE_SHAPE)] == [2]
    # talk after the vote: a call-length utterance and a short one, but not the judge's
    # window apart: neither a third call nor a vote of its own
    tail = heard[-1].t_end + 1.0
    heard += [said(tail, 1.0), said(tail + 1.0 + 0.45, 0.3)]
    assert [(r.t0, len(r.calls)) for r in vote_runs(heard, VOTE_SHAPE)] == [(10.0, 2)]
    # the same pair with the judge's window and "thank you" is one (a vote of one call)
    heard += [said(tail + 5.0, 1.0), said(tail + 5.0 + 1.0 + 1.6, 0.35)]
    assert [(r.t0, len(r.calls)) for r in vote_runs(heard, VOTE_SHAPE)] == [(10.0, 2), (tail + 5.0, 1)]


def test_two_runs_that_could_be_one_vote_give_neither():
    runs = vote_runs(vote(10.0, 2) + vote(60.0, 2), VOTE_SHAPE)
    assert len(runs) == 2
    # one vote of two calls, nothing to say which run: not taken
    assert assign_runs([2], [(float("-inf"), float("inf"))], runs) == {}
    # two votes of two calls in order: each has one run
    got = assign_runs([2, 2], [(float("-inf"), float("inf"))] * 2, runs)
    assert {i: r.t0 for i, r in got.items()} == {0: 10.0, 1: 60.0}
    # the picture says where the first vote is: only the run there
    assert {i: r.t0 for i, r in assign_runs([2], [(50.0, 90.0)], runs).items()} == {0: 60.0}



def _timeline(doc):
    p = Protocol.from_dict(doc)
    return build_timeline(p, replay(p))


def test_without_times_or_picture_the_judges_votes_place_their_calls_and_the_rest_is_listed():
    doc = random_game(8)
    truth = _timeline(doc)
    passes: dict[str, list] = {}
    for iv in truth:
        if iv.kind is Kind.VOTE_CALL:
            passes.setdefault(iv.key.rsplit(".", 1)[0], []).append(iv)
    heard, quiet = [], []
    for calls in passes.values():
        heard += vote(calls[0].t0, len(calls))
        quiet.append((calls[0].t0 - 3.0, heard[-1].t_end + 3.0))
    # talk all day (not while a vote is called): utterances no vote is made of
    heard += [said(t, 1.1, 0.5) for t in range(0, int(max(iv.t1 or 0 for iv in truth)), 9)
              if not any(a <= t <= b for a, b in quiet)]
    heard.sort(key=lambda m: m.t)
    al = align(_timeline(without_times(doc)), heard, use_protocol_times=False)
    placed = {p.interval.key: p for p in al.placements}
    listed = {(a["key"], a["what"]) for a in al.needs_anchor}
    for calls in passes.values():
        for k, iv in enumerate(calls):
            p = placed[iv.key]
            right = abs(p.interval.t0 - (calls[0].t0 + k * (0.9 + 1.6 + 0.35 + 1.0))) < 0.01
            # every call either at its utterance or listed for an anchor, never confidently elsewhere
            assert right or (iv.key, "call") in listed, iv.key
    # the nightfalls: only the order of events could place them (no picture, no music): listed
    for iv in truth:
        if iv.kind is Kind.NIGHT:
            assert (iv.key, "nightfall") in listed
    # and the votes were heard: most calls placed at their utterance
    right = sum(1 for calls in passes.values() for iv in calls if (iv.key, "call") not in listed)
    assert right >= len([iv for c in passes.values() for iv in c]) // 2


def test_in_a_club_that_plays_night_music_a_nightfall_only_the_picture_saw_is_doubted():
    doc = random_game(8)
    truth = _timeline(doc)
    nights = [iv for iv in truth if iv.kind is Kind.NIGHT and iv.t0 is not None and iv.t1 is not None][:2]
    marks = []
    # night 1: the music starts and stops, the judge says "night falls" as it starts
    marks += [Mark("nightfall", nights[0].t0 + 0.4, 0.8, "music"), Mark("morning", nights[0].t1, 0.8, "music"),
              said(nights[0].t0, 1.0)]
    # night 2: no music, only masks going on (seen 1.5 s late) and an utterance near them
    marks += [Mark("nightfall", nights[1].t0 + 1.5, 0.9, "video"), said(nights[1].t0, 1.0)]
    marks.sort(key=lambda m: m.t)
    al = align(_timeline(without_times(doc)), marks, use_protocol_times=False)
    assert f"nightfall:{nights[1].key}" in al.doubts and f"nightfall:{nights[0].key}" not in al.doubts
    assert (nights[1].key, "nightfall") in {(a["key"], a["what"]) for a in al.needs_anchor}
    placed = {p.interval.key: p for p in al.placements}
    assert abs(placed[nights[0].key].interval.t0 - nights[0].t0) < 0.01
    assert placed[nights[0].key].anchored_by == "speech"
    # without music anywhere the same picture mark and utterance place night 2
    quiet = [m for m in marks if m.source != "music"]
    al = align(_timeline(without_times(doc)), quiet, use_protocol_times=False)
    assert f"nightfall:{nights[1].key}" not in al.doubts


def test_a_vote_whose_thank_you_is_the_next_call_or_off_the_judges_window_is_doubted():
    from review.align import Expected, doubtful
    exp = [Expected("vote_call", "r0.vote.p0.c1", None, 10), Expected("thanks", "r0.vote.p0.c1", None, 10),
           Expected("vote_call", "r0.vote.p0.c8", None, 11), Expected("thanks", "r0.vote.p0.c8", None, 11)]
    sp = lambda kind, t, length: Mark(kind, t, 0.6, "speech", t_end=t + length)
    basis = {0: "seen:video", 1: "heard", 2: "seen:video", 3: "heard"}
    # the candidates read out taken for the first call, the first call for its "thank you"
    # and for the second call: the picture's fists put the calls there, the voice cannot agree
    tangled = {0: sp("vote_call", 54.8, 2.0), 1: sp("thanks", 57.7, 0.9), 2: sp("vote_call", 57.7, 0.9),
               3: sp("thanks", 60.1, 0.3)}
    assert set(doubtful(exp, tangled, basis)) == {0, 1, 2, 3}
    # the same vote heard as it is: nothing doubted
    right = {0: sp("vote_call", 57.7, 0.9), 1: sp("thanks", 60.1, 0.3), 2: sp("vote_call", 61.1, 0.9),
             3: sp("thanks", 63.6, 0.3)}
    assert doubtful(exp, right, basis) == {}
    # the judge's window is 1.5 s (votes heard whole elsewhere): a "thank you" 0.5 s after is not one
    judge = vote(120.0, 2, window=1.5) + vote(140.0, 3, window=1.5)
    off = {**right, 1: sp("thanks", 59.1, 0.3)}
    assert doubtful(exp, off, basis) == {}
    assert set(doubtful(exp, off, basis, speech=judge)) == {0, 1, 2, 3}


def test_a_vote_followed_by_talk_that_goes_on_like_it_is_its_first_calls():
    first = vote(57.7, 2, window=1.5)
    # a last word right after the vote: a call-length utterance and a short one, the judge's window apart
    last = first[-1].t_end + 1.5
    talk = [said(last, 0.5), said(last + 0.5 + 1.45, 0.3)]
    second = vote(73.4, 2, window=1.6)
    runs = vote_runs(first + talk + second, VOTE_SHAPE)
    assert sorted((r.t0, len(r.calls)) for r in runs) == [(57.7, 3), (73.4, 2)]
    got = assign_runs([2, 2], [(float("-inf"), float("inf"))] * 2, runs)
    assert {i: (r.t0, len(r.calls)) for i, r in got.items()} == {0: (57.7, 2), 1: (73.4, 2)}


def test_the_judges_window_is_where_the_votes_agree_not_the_median_of_talk_that_alternates():
    from statistics import median

    from review.vote_runs import judge_window_of
    # the windows measured on the full-length game (seed 7, imported untimed): the players'
    # talk alternates into 28 runs of two or three "calls", scattered, against the judge's
    # 11 votes at 1.46-1.61 s
    judge = [(3, 1.49), (3, 1.46), (3, 1.54), (3, 1.61)] + [(2, w) for w in (1.56, 1.49, 1.59, 1.50, 1.51, 1.59,
                                                                                1.52)]
    talk = [(3, 0.55), (3, 0.78)] + [(2, w) for w in (0.49, 0.98, 0.66, 0.60, 0.54, 0.78, 0.72, 0.87, 0.61, 0.76,
                                                       1.27, 0.58, 0.81, 1.01, 1.08, 0.47, 1.05, 1.32, 3.11,
                                                       1.24, 0.75, 0.66, 0.66, 0.63, 1.23, 0.99)]
    heard, t = [], 100.0
    for (calls, w), conf in [(x, 0.72) for x in judge] + [(x, 0.5) for x in talk]:
        heard += vote(t, calls, window=w, conf=conf)
        t += 60.0
    runs = vote_runs(heard, VOTE_SHAPE)
    # the median of every run's window, as the judge's window was taken before, is the talk's
    assert median(w for calls, w in judge + talk for _ in range(calls)) < 1.1
    assert judge_window_of(runs, VOTE_SHAPE) == pytest.approx(1.53, abs=0.05)
    # the judge's votes are the runs kept, and talk far from the window is not
    kept = {(r.t0 - 100.0) // 60.0 for r in runs}
    assert set(range(len(judge))) <= kept
    assert not kept & {len(judge) + k for k, (_, w) in enumerate(talk) if abs(w - 1.53) > 0.3}


def test_a_vote_of_two_calls_is_not_given_up_for_a_one_call_vote_no_run_was_heard_for():
    # day 1: two votes of two candidates, then "all leave?" (one call) whose call was heard in
    # pieces; a lone call-and-thank-you of talk lies between the votes. Counting votes alone,
    # "second vote unheard, the raise on that talk" scores as many as the truth, and neither
    # vote was taken
    first, second = vote(700.0, 2, window=1.5), vote(790.0, 2, window=1.5)
    talk = [said(733.0, 1.0, 0.5), said(733.0 + 1.0 + 1.5, 0.35, 0.5)]
    runs = vote_runs(first + talk + second, VOTE_SHAPE)
    got = assign_runs([2, 2, 1], [(95.0, 801.0)] * 3, runs, VOTE_SHAPE)
    assert {i: (r.t0, len(r.calls)) for i, r in got.items()} == {0: (700.0, 2), 1: (790.0, 2)}


def test_of_two_runs_that_could_be_a_vote_the_one_at_the_judges_window_is_taken_and_not_a_near_tie():
    judge = vote(100.0, 3, window=1.5) + vote(200.0, 3, window=1.5)
    like = vote(3600.0, 2, window=1.55)
    unlike = vote(3640.0, 2, window=1.22, conf=0.5)
    runs = vote_runs(judge + like + unlike, VOTE_SHAPE)
    got = assign_runs([2], [(3500.0, float("inf"))], runs, VOTE_SHAPE)
    assert {i: r.t0 for i, r in got.items()} == {0: 3600.0}
    # two runs as like the judge as each other: neither
    twin = vote(3640.0, 2, window=1.5)
    runs = vote_runs(judge + vote(3600.0, 2, window=1.5) + twin, VOTE_SHAPE)
    assert assign_runs([2], [(3500.0, float("inf"))], runs, VOTE_SHAPE) == {}


def test_the_record_picks_the_judges_window_where_a_chattier_table_outnumbers_the_votes():
    from review.vote_runs import _window, judge_window_for, judge_window_of
    # three votes (3, 2 and 2 calls) at the judge's 1.5 s; the talk around them alternates
    # into twelve two-call runs at 0.7 s, more and surer than the votes
    heard = vote(100.0, 3, window=1.5) + vote(400.0, 2, window=1.5) + vote(700.0, 2, window=1.5)
    for k in range(12):
        heard += vote(130.0 + 50.0 * k + (100.0 if k >= 5 else 0.0), 2, window=0.7, conf=0.8)
    runs = vote_runs(heard, VOTE_SHAPE, like_the_judge=False)
    assert judge_window_of(runs, VOTE_SHAPE) == pytest.approx(0.7, abs=0.05)   # the talk's
    bounds = [(90.0, 390.0), (390.0, 690.0), (690.0, 1000.0)]
    window = judge_window_for([3, 2, 2], bounds, runs, VOTE_SHAPE)
    assert window == pytest.approx(1.5, abs=0.05)
    near = [r for r in runs if abs(_window(r) - window) <= VOTE_SHAPE.window_jitter]
    got = assign_runs([3, 2, 2], bounds, near, VOTE_SHAPE, window)
    assert {i: r.t0 for i, r in got.items()} == {0: 100.0, 1: 400.0, 2: 700.0}


def test_a_lone_call_and_thank_you_of_talk_cannot_buy_a_wrong_day():
    # day 1 of the full-length game with talk 2.5 times as dense: a talk run of two calls at
    # the judge's window 80 s before the first vote, lone call-and-thank-you pairs of talk
    # between, the two votes, and "all leave?" (one call) unheard. Weighing every call alike,
    # "talk run, first vote, a lone pair" outweighed the two votes and was taken, wrong and
    # undoubted; now a lone pair weighs too little to decide: the votes or nothing
    judge = vote(100.0, 3, window=1.5) + vote(300.0, 2, window=1.5)   # other days: the judge's window
    talk = vote(629.4, 2, window=1.53, conf=0.47) + vote(651.8, 1, window=1.5, conf=0.45) \
        + vote(733.4, 1, window=1.6, conf=0.53)
    day1 = vote(708.9, 2, window=1.56) + vote(790.6, 2, window=1.49)
    runs = vote_runs(judge + talk + day1, VOTE_SHAPE)
    got = assign_runs([2, 2, 1], [(400.0, 801.0)] * 3, runs, VOTE_SHAPE)
    assert all(r.t0 in (708.9, 790.6) for r in got.values())
    assert {i: r.t0 for i, r in got.items()} in ({}, {0: 708.9, 1: 790.6})
    # without the early talk run the day's two votes are heard, the lone call is not taken
    runs = vote_runs(judge + talk[4:] + day1, VOTE_SHAPE)
    got = assign_runs([2, 2, 1], [(400.0, 801.0)] * 3, runs, VOTE_SHAPE)
    assert {i: r.t0 for i, r in got.items()} == {0: 708.9, 1: 790.6}

"""Scoring the recount's cells against the truth: what counts as judged."""
from __future__ import annotations

from review.evaluate import recount_cells
from review.recount_file import VoteCall, VoterRecord

TRUTH = {"phases": {"votes": [{"calls": [{"call": 60.0, "candidate": 5}, {"call": 64.0, "candidate": 7}],
                               "eligible": [1, 2, 3, 4, 5, 6, 7]}]},
         "votes": [{"round": 0, "call": 0, "seat": s, "counts": True} for s in (1, 2, 3)]}


def voter(seat: int, t: float) -> VoterRecord:
    return VoterRecord(seat, t, t + 2.0, "thumb_up", True, "in_window", 0.9)


def test_cells_of_a_call_the_analysis_could_not_place_are_not_judged():
    unplaced = [VoteCall(0, 1, 5, None, unverified=tuple((s, ("call_not_placed",)) for s in range(1, 8))),
                VoteCall(0, 1, 7, None, unverified=tuple((s, ("call_not_placed",)) for s in range(1, 8)))]
    sc = recount_cells(TRUTH, unplaced)
    assert (sc.cells, sc.verified) == (14, 0)


def test_a_call_placed_far_from_the_truth_is_a_verdict_and_a_wrong_one():
    placed_far = [VoteCall(0, 1, 5, 30.0, voters=(voter(1, 30.5),)), VoteCall(0, 1, 7, 34.0)]
    sc = recount_cells(TRUTH, placed_far)
    assert (sc.cells, sc.verified) == (14, 14) and sc.agree_verified < 14
    right = [VoteCall(0, 1, 5, 60.0, voters=tuple(voter(s, 60.5) for s in (1, 2, 3))),
             VoteCall(0, 1, 7, 64.0, voters=tuple(voter(s, 64.5) for s in (4, 5, 6, 7)))]
    sc = recount_cells(TRUTH, right)
    assert (sc.verified, sc.agree_verified) == (14, 14)


def test_a_call_is_scored_as_itself_before_a_call_of_the_same_candidate_nearby():
    # day 2's call on candidate 5, placed 1 s from day 1's, judged none of its own
    # seats; day 1's call, placed 30 s off, left every cell open: nothing is judged
    truth = {"phases": {"votes": [{"day": 1, "kind": "vote", "calls": [{"call": 60.0, "candidate": 5}],
                                   "eligible": [1, 2, 3, 4]},
                                  {"day": 2, "kind": "vote", "calls": [{"call": 150.0, "candidate": 5}],
                                   "eligible": [1, 3, 4]}]},
             "votes": []}
    day1 = VoteCall(0, 1, 5, 90.0, unverified=tuple((s, ("record_does_not_fit",)) for s in (1, 2, 3, 4)))
    day2 = VoteCall(1, 1, 5, 61.0, unverified=tuple((s, ("record_does_not_fit",)) for s in (1, 3, 4)))
    sc = recount_cells(truth, [day1, day2])
    assert (sc.cells, sc.verified) == (7, 0)


def test_a_miscount_in_its_own_call_placed_far_away_is_left_unverified_if_its_cell_is_open():
    from review.evaluate import miscounts_unverified, truth_cells
    truth = {"phases": {"votes": [{"day": 2, "kind": "vote", "calls": [{"call": 151.3, "candidate": 4}],
                                   "eligible": [1, 3, 7]}]}, "votes": []}
    miscount = {"type": "miscount", "seats": [7], "t0": 151.3, "t1": 153.8, "details": {"candidate": 4}}
    far_open = VoteCall(1, 1, 4, 73.7, unverified=((7, ("record_does_not_fit",)),))
    far_judged = VoteCall(1, 1, 4, 73.7)
    cells = truth_cells(truth)
    assert miscounts_unverified([miscount], [], [far_open], cells) == 1
    assert miscounts_unverified([miscount], [], [far_judged], cells) == 0

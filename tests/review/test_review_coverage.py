"""review.coverage: how much of a game the picture could judge."""
from __future__ import annotations

from engine.timeline import Interval, Kind
from review.coverage import coverage, coverage_text, eligible_voters
from review.recount_file import VoteCall


def _vote_interval(key: str, eligible: list[int]) -> dict:
    return {"kind": "vote_call", "key": key, "in_game": eligible, "details": {"eligible": eligible}}


def test_coverage_counts_the_cells_the_picture_judged_and_why_the_rest_were_not():
    calls = [VoteCall(round=0, pass_=1, candidate=5, unverified=((3, ("venue",)), (4, ("placed",)))),
             VoteCall(round=0, pass_=2, candidate=5),
             VoteCall(round=1, pass_=1, candidate=2, unverified=((3, ("venue", "unread")),))]
    intervals = [_vote_interval("r0.vote.p0.c5", list(range(1, 11))),
                 _vote_interval("r0.vote.p1.c5", list(range(1, 11))),
                 _vote_interval("r1.vote.p0.c2", [1, 2, 3, 4, 6, 7, 8, 9, 10])]
    abstentions = [{"seat": 3, "key": "r0.vote.p0.c5", "why": ["venue"]},
                   {"seat": 3, "key": "r1.vote.p0.c2", "why": ["venue", "unread"]},
                   {"seat": 4, "key": "r0.vote.p0.c5", "why": ["placed"]},
                   {"seat": 4, "key": "r0.vote.p0.c5", "why": ["placed"]}]   # two windows, one seat-interval
    cov = coverage(calls, intervals, abstentions)
    assert (cov.cells, cov.cells_judged, cov.seat_intervals) == (29, 26, 3)
    assert cov.reasons[0] == ("venue", 2) and dict(cov.reasons)["placed"] == 2
    assert cov.thin          # 26/29 = 0.897: under 0.9, so no incident is not a clean game
    assert "26 of 29 vote cells" in coverage_text(cov) and "not mean a clean game" in coverage_text(cov)
    whole = coverage(calls[1:2], intervals, [])
    assert not whole.thin and "not mean a clean game" not in coverage_text(whole)
    # a call the timeline does not name is left out, not counted as judged
    assert coverage(calls, intervals[:1], []).cells == 10


def test_eligible_voters_read_from_the_engines_intervals_and_their_json_alike():
    iv = Interval(Kind.VOTE_CALL, "r0.vote.p0.c5", "day 1, vote on 5", 0, 1.0, 2.0, 3,
                  in_game=tuple(range(1, 11)), details={"eligible": [1, 2, 3, 4, 6, 7, 8, 9, 10]})
    raise_ = Interval(Kind.RAISE_VOTE, "r0.raise", "day 1, all tied leave?", 0, 3.0, 4.0, 5, in_game=(1, 2, 3))
    day = Interval(Kind.DAY, "r0.day", "day 1", 0, 0.0, 9.0, 1, in_game=tuple(range(1, 11)))
    assert eligible_voters([iv, raise_, day]) == {"r0.vote.p0.c5": 9, "r0.raise": 3}
    as_json = [{"kind": "vote_call", "key": iv.key, "in_game": list(iv.in_game), "details": dict(iv.details)}]
    assert eligible_voters(as_json) == {"r0.vote.p0.c5": 9}
    raised = VoteCall(round=0, pass_=1, candidate=None, kind="raise", unverified=((2, ("dark",)),))
    assert coverage([raised], [raise_], []).cells_judged == 2


def test_every_reason_a_seat_is_not_judged_has_a_judges_words():
    from review.coverage import SHORT_WHY, short_why
    from review.recount import NO_THUMB, NOT_IN_VIDEO, NOT_PLACED, RECORD_NOT_FIT
    from vision.view_quality import Blind
    assert {b.value for b in Blind} | {NO_THUMB, NOT_PLACED, RECORD_NOT_FIT, NOT_IN_VIDEO} <= set(SHORT_WHY)
    assert short_why("unread") == "hand or face not read" and short_why("something_new") == "something new"

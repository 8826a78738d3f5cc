"""What each kind of decision teaches the seat windows (review.lessons) and which frames are asked (review.questions)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from review.fouls import IncidentType as T
from review.incidents import Incident, Phase
from review.lessons import (LESSONS, Expectation, busy_spans, confident_lessons, from_answer, from_decision,
                            from_verification, span_times)
from review.questions import FIST, MASK, abstained_spans, candidates, pick, questions
from review.recount_file import VoteCall, VoterRecord
from review.store import FrameAnswerValue, FrameQuestion, Verdict, VoteVerdict
from vision.appearance import committed_models


def _inc(type_, seats=(4,), t0=100.0, t1=102.0, **details):
    return Incident.create(type_, list(seats), t0, t1, Phase("Night 1", "r1.night"), 0.8, details=details)


def _decision(verdict, id_=7, who="Anna"):
    return SimpleNamespace(id=id_, verdict=Verdict(verdict), reviewer=who)


def test_every_teaching_names_a_class_of_its_window():
    models = committed_models()
    for type_, teach in LESSONS.items():
        for what in (teach.confirmed, teach.rejected):
            if what is not None:
                assert what.lstrip("!") in models[teach.window].classes, (type_, what)


def test_a_rejected_mask_late_says_the_mask_was_on_after_the_deadline():
    inc = _inc(T.MASK_LATE, t0=90.0, t1=101.0, deadline=95.0, mask_on_at=101.0)
    lessons = from_decision(inc, _decision("rejected"))
    assert lessons and {(ls.window, ls.label, ls.negative) for ls in lessons} == {("head", "mask_on", False)}
    assert all(95.0 < ls.t < 101.0 and ls.seat == 4 for ls in lessons)
    assert {(ls.source, ls.ref, ls.reviewer) for ls in lessons} == {("decision", "7", "Anna")}
    confirmed = from_decision(inc, _decision("confirmed"))
    assert {ls.label for ls in confirmed} == {"mask_off"}


@pytest.mark.parametrize("type_", sorted(LESSONS, key=lambda t: t.value), ids=lambda t: t.value)
@pytest.mark.parametrize("verdict", ["confirmed", "rejected", "unsure"])
def test_each_decision_kind(type_, verdict):
    details = {"deadline": 99.0, "mask_on_at": 103.0} if type_ is T.MASK_LATE else \
        {"window": [99.0, 104.0]} if type_ is T.EARLY_LIFT else {}
    inc = _inc(type_, seats=(3, 8), t0=100.0, t1=102.0, **details)
    lessons = from_decision(inc, _decision(verdict))
    teach = LESSONS[type_]
    want = None if verdict == "unsure" else (teach.confirmed if verdict == "confirmed" else teach.rejected)
    if want is None:
        assert lessons == []
        return
    assert {ls.seat for ls in lessons} == {3, 8}
    assert {(ls.window, ls.label, ls.negative) for ls in lessons} == {
        (teach.window, want.lstrip("!"), want.startswith("!"))}
    assert all(98.0 < ls.t < 104.0 for ls in lessons)


def test_miscounts_and_protocol_findings_teach_nothing():
    assert from_decision(_inc(T.MISCOUNT), _decision("confirmed")) == []
    proto = Incident("protocol_audit-1", T.PROTOCOL_AUDIT, (), None, None, Phase("protocol", "game"), 1.0)
    assert from_decision(proto, _decision("rejected")) == []


def _call(voters=(), candidate=5):
    return VoteCall(round=1, pass_=1, candidate=candidate, t_call=50.0, t_thanks=53.0, voters=tuple(voters))


def _ver(verdict, seat=6, candidate=5):
    return SimpleNamespace(id=11, voter_seat=seat, verdict=VoteVerdict(verdict), reviewer="Boris",
                           candidate=candidate)


def test_each_vote_verification_verdict():
    seen = VoterRecord(6, t_place=51.2, t_lift=53.6, counted=True)
    voted = from_verification(_call([seen]), _ver("voted"))
    assert voted and {(ls.window, ls.label, ls.negative) for ls in voted} == {("zone", "vote", False)}
    assert all(51.2 < ls.t < 53.6 for ls in voted)              # where the fist was seen standing
    missed = from_verification(_call(), _ver("voted"))       # not seen: around "Thank you"
    assert missed and all(52.7 <= ls.t <= 53.2 for ls in missed)
    # a track the analysis misread (seen from 50.2 s, gone before "Thank you"): not believed
    early = from_verification(_call([VoterRecord(6, t_place=50.2, t_lift=52.4, counted=True)]), _ver("voted"))
    assert early and all(52.7 <= ls.t <= 53.2 for ls in early)
    nothing = from_verification(_call(), _ver("not_voted"))
    assert {(ls.label, ls.negative) for ls in nothing} == {("none", False)} and all(50 < ls.t < 53 for ls in nothing)
    wrong = from_verification(_call(), _ver("wrong_form"))
    assert {ls.label for ls in wrong} == {"wrong"}
    late = from_verification(_call(), _ver("late"))
    assert {(ls.label, ls.negative) for ls in late} == {("vote", True)} and all(ls.t < 53.0 for ls in late)
    assert {(ls.source, ls.ref, ls.reviewer) for ls in voted} == {("verification", "11", "Boris")}


def test_a_raise_vote_cell_teaches_the_body_window():
    raised = from_verification(_call(candidate=None), _ver("voted", candidate=None))
    assert {(ls.window, ls.label, ls.negative) for ls in raised} == {("body", "raised", False)}
    down = from_verification(_call(candidate=None), _ver("not_voted", candidate=None))
    assert {(ls.window, ls.label, ls.negative) for ls in down} == {("body", "raised", True)}


def test_frame_answers():
    def ans(q, a):
        return SimpleNamespace(id=3, t=12.34567, seat=2, question=FrameQuestion(q), answer=FrameAnswerValue(a),
                               reviewer="Vera")
    assert [(ls.window, ls.label, ls.negative, ls.t) for ls in from_answer(ans("mask", "mask_off"))] == [
        ("head", "mask_on", True, 12.346)]
    assert [(ls.window, ls.label, ls.negative) for ls in from_answer(ans("fist", "no_fist"))] == [
        ("zone", "vote", True)]
    assert from_answer(ans("fist", "cannot_tell")) == []


INTERVALS = [
    {"kind": "night", "round": 1, "t0": 10.0, "t1": 40.0, "in_game": list(range(1, 11)), "permits": {}},
    {"kind": "masking", "round": 1, "t0": 10.0, "t1": 13.0, "in_game": list(range(1, 11))},
    {"kind": "don_check", "round": 1, "t0": 25.0, "t1": 30.0, "in_game": list(range(1, 11)),
     "permits": {"3": ["gesture", "move", "unmask"]}},
    {"kind": "day", "round": 1, "t0": 40.0, "t1": 90.0, "in_game": list(range(1, 11))},
    {"kind": "vote_call", "round": 1, "t0": 60.0, "t1": 62.0, "in_game": list(range(1, 11)),
     "details": {"window_close": 62.5}},
]


def _features(seat, t, head_on, zone_none=0.99, body_night=0.99, body_rest=0.99):
    return (seat, t, {"app_head_mask_on": head_on, "app_head_mask_off": 1 - head_on,
                      "app_zone_none": zone_none, "app_zone_vote": 1 - zone_none,
                      "app_body_night": body_night, "app_body_rest": body_rest, "far_head": 2.0})


def test_the_timeline_expects_masks_on_at_night_and_off_by_day_except_the_awake():
    exp = Expectation.of(INTERVALS)
    assert exp.expected(1, 20.0) == {"head": "mask_on", "body": "night", "zone": "none"}
    assert exp.expected(3, 27.0) == {}                        # the Don checks: awake by right
    assert exp.expected(1, 11.0).get("head") is None           # still masking
    assert exp.expected(1, 50.0) == {"head": "mask_off", "body": "rest", "zone": "none"}
    assert "zone" not in exp.expected(1, 61.0)                 # a vote call: the grid says it


def test_confident_frames_are_sure_expected_and_clear_of_incidents():
    feats = [_features(s, t, 0.99) for s in (1, 2) for t in (15.0, 20.0, 35.0)]   # sure, at night
    feats += [_features(1, 50.0, 0.5)]                          # by day, head unsure and wrong
    feats += [_features(2, 50.0, 0.01)]                         # by day, sure the mask is off
    busy = busy_spans([_inc(T.PEEK, seats=(2,), t0=19.0, t1=21.0)], [])
    got = confident_lessons(feats, INTERVALS, busy)
    keys = {(ls.seat, ls.t, ls.window, ls.label) for ls in got}
    assert (1, 20.0, "head", "mask_on") in keys and (1, 20.0, "body", "night") in keys
    assert not any(s == 2 and 17.0 <= t <= 23.0 for s, t, _, _ in keys)   # near seat 2's incident
    assert (2, 50.0, "head", "mask_off") in keys and not any(s == 1 and t == 50.0 and w == "head"
                                                            for s, t, w, _ in keys)
    assert all(ls.source == "confident" and not ls.negative for ls in got)


def test_a_misread_window_learns_its_baseline_frames_sure_or_not_and_only_there():
    # seat 4's zone window read "a vote" outside every call all game (review.view abstained
    # it as implausible): its baseline frames are "no vote" whatever it said; seat 5's zone,
    # as unsure but believed, gives nothing; nor does seat 4 in the vote call or near its incident
    feats = [_features(4, t, 0.99, zone_none=0.05) for t in (15.0, 20.0, 50.0, 61.0, 75.0)]
    feats += [_features(5, t, 0.99, zone_none=0.05) for t in (15.0, 20.0, 50.0)]
    busy = busy_spans([_inc(T.TOUCH_DAY, seats=(4,), t0=74.0, t1=76.0)], [])
    got = confident_lessons(feats, INTERVALS, busy, misread=[(4, "zone")])
    zone = {(ls.seat, ls.t, ls.label, ls.source) for ls in got if ls.window == "zone"}
    assert zone == {(4, 15.0, "none", "baseline"), (4, 20.0, "none", "baseline"), (4, 50.0, "none", "baseline")}
    assert {ls.source for ls in got if ls.window != "zone"} == {"confident"}    # its sure head and body
    assert all(ls.window != "zone" for ls in confident_lessons(feats, INTERVALS, busy))    # not misread: nothing


def test_misread_windows_are_the_implausible_and_the_venue_abstentions():
    from review.learn import misread_windows
    assert misread_windows([{"seat": 4, "window": "zone", "why": ["unread", "implausible"]},
                            {"seat": 5, "window": "body", "why": ["venue"]},
                            {"seat": 6, "window": "head", "why": ["dark", "unread"]}]) == {(4, "zone"), (5, "body")}


def test_questions_ask_the_unsure_and_the_unfamiliar_where_rules_need_them():
    feats = [
        (1, 20.0, {"app_head_mask_on": 0.52, "far_head": 3.0}),     # night, a coin toss
        (2, 20.0, {"app_head_mask_on": 0.97, "far_head": 30.0}),    # night, sure but unfamiliar
        (3, 20.0, {"app_head_mask_on": 0.99, "far_head": 2.0}),     # night, sure: not asked
        (4, 50.0, {"app_head_mask_on": 0.50, "far_head": 2.0}),     # day: the mask does not matter
        (5, 61.0, {"app_zone_vote": 0.45, "far_zone": 2.0}),        # vote window, unsure
        (6, 80.0, {"app_zone_vote": 0.45, "far_zone": 2.0}),        # outside votes
    ]
    found = {(q.seat, q.question) for q in candidates(feats, INTERVALS)}
    assert found == {(1, MASK), (2, MASK), (5, FIST)}
    asked = questions(feats, INTERVALS, n=2)
    assert [q.seat for q in asked] == [2, 5] or {q.seat for q in asked} == {2, 5}
    assert asked[0].seat == 2 and "unlike" in asked[0].why      # the abstained view comes first
    again = questions(feats, INTERVALS, answered=[(20.3, 2, MASK)], n=6)
    assert {q.seat for q in again} == {1, 5}                    # an answered frame is not asked again


def test_questions_ask_abstained_seats_first_even_when_the_window_is_sure_and_skip_unread_heads():
    feats = [
        (1, 20.0, {"app_head_mask_on": 0.52, "far_head": 3.0}),     # night, a coin toss
        (3, 20.0, {"app_head_mask_on": 0.01, "far_head": 2.0}),     # night, sure "bare": misread all game
        (5, 61.0, {"app_zone_vote": 0.99, "far_zone": 2.0}),        # a vote, sure, but its zone abstained
        (7, 20.0, {"app_head_mask_on": 0.50, "far_head": 2.0}),     # a coin toss on a head too small to read
    ]
    assert {q.seat for q in candidates(feats, INTERVALS)} == {1, 7}
    abstained = abstained_spans([
        {"seat": 3, "window": "head", "t0": 10.0, "t1": 40.0, "reason": "the classifier misreads this seat"},
        {"seat": 5, "window": "zone", "t0": 60.0, "t1": 63.0, "why": ["venue"]},
        {"seat": 1, "window": "zone", "t0": 10.0, "t1": 40.0, "why": ["dark"]},     # another window
    ])
    asked = questions(feats, INTERVALS, n=6, abstained=abstained, unread_heads=[7])
    assert [q.seat for q in asked][:2] in ([3, 5], [5, 3]) and {q.seat for q in asked} == {1, 3, 5}
    assert "could not judge" in asked[0].why and "misreads" in next(q.why for q in asked if q.seat == 3)


def test_pick_takes_one_question_per_seat_and_block():
    from review.questions import Question
    qs = [Question(20.0 + 0.2 * k, 1, MASK, 0.1 + 0.01 * k, 2.0, 0.5) for k in range(10)]
    assert len(pick(qs, n=6)) == 1


def test_span_times_stay_inside():
    assert span_times(10.0, 10.1) == [10.05]
    ts = span_times(10.0, 12.0)
    assert len(ts) == 6 and all(10.0 < t < 12.0 for t in ts)
    assert len(span_times(10.0, 10.5)) == 4      # at least SPAN_STEP apart

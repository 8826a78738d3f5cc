"""Phase timeline: intervals, their times and who may do what in each."""
from __future__ import annotations

from engine.generate import random_game
from engine.protocol import Protocol
from engine.replay import replay
from engine.timeline import Kind, Permit, build_timeline
from engine_builder import G


def timed_game() -> G:
    """N0, day 1 (vote on 5 and 7 with times), night 1 with calls and checks, day 2."""
    g = G()  # mafia 2, 4; Don 8; Sheriff 3
    g.ev("nightfall", t=0.0).ev("mafia_wake", t=5.0, t_end=65.0).ev("morning", t=90.0)
    g.ev("speech", seat=1, t=91.0, t_end=100.0).ev("nominate", by=1, target=5, t=95.0)
    g.ev("speech", seat=2, t=100.0, t_end=110.0).ev("nominate", by=2, target=7, t=105.0)
    g.ev("vote_announce", t=111.0, candidates=[5, 7])
    g.ev("vote", candidate=5, t=112.0, t_call_end=113.0, t_thanks=114.5, announced=6)
    g.ev("vote", candidate=7, t=116.0, t_call_end=117.0, t_thanks=118.5, announced=4)
    g.ev("nightfall", t=130.0)
    for i, seat in enumerate([1, 2, 3, 4, 6, 7, 8, 9, 10]):
        g.ev("shooting_call", seat=seat, t=133.0 + 1.5 * i)
    for shooter in (2, 4, 8):
        g.ev("shot", by=shooter, target=10, t=133.0 + 1.5 * 8)
    g.ev("don_check", target=3, t=150.0, t_end=160.0)
    g.ev("sheriff_check", target=2, t=162.0)
    g.ev("morning", t=180.0)
    return g


def intervals(g: G):
    doc = g.doc()
    p = Protocol.from_dict(doc)
    rep = replay(p)
    assert rep.valid, [str(i) for i in rep.issues]
    return build_timeline(p, rep), rep


def by_kind(tl, kind):
    return [iv for iv in tl if iv.kind is kind]


def test_nights_days_and_masking_window_from_profile():
    tl, rep = intervals(timed_game())
    nights = by_kind(tl, Kind.NIGHT)
    assert [(n.round, n.t0, n.t1) for n in nights] == [(0, 0.0, 90.0), (1, 130.0, 180.0)]
    masking = by_kind(tl, Kind.MASKING)
    assert [(m.t0, m.t1) for m in masking] == [(0.0, 3.0), (130.0, 133.0)]  # MC: 3 s (2.1.2)
    days = by_kind(tl, Kind.DAY)
    assert days[0].t0 == 90.0 and days[0].t1 == 130.0


def test_sport_mafia_masks_immediately():
    g = timed_game()
    g.game["profile"] = "sport-mafia"
    doc = g.doc()
    p = Protocol.from_dict(doc)
    tl = build_timeline(p, replay(p))
    m = by_kind(tl, Kind.MASKING)[0]
    assert m.t1 - m.t0 < 3.0


def test_vote_windows_follow_the_profile_and_list_eligible_voters():
    tl, rep = intervals(timed_game())
    calls = by_kind(tl, Kind.VOTE_CALL)
    assert [c.details["candidate"] for c in calls] == [5, 7]
    c5 = calls[0]
    # MC: the window opens at the end of the call and closes at "thank you" (2.4.7)
    assert c5.details["window_open"] == 113.0 and c5.details["window_close"] == 114.5
    assert sorted(c5.details["eligible"]) == list(range(1, 11))
    assert all(c5.allowed(s, Permit.VOTE) for s in range(1, 11))
    assert not c5.allowed(1, Permit.GESTURE)
    voting = by_kind(tl, Kind.VOTING)
    assert len(voting) == 1 and voting[0].t0 == 111.0 and voting[0].t1 == 118.5


def test_ru_window_opens_at_the_number():
    g = timed_game()
    g.game["profile"] = "ru-club"
    p = Protocol.from_dict(g.doc())
    tl = build_timeline(p, replay(p))
    c5 = by_kind(tl, Kind.VOTE_CALL)[0]
    assert c5.details["window_open"] == 112.0


def test_shooting_calls_grant_hands_to_living_mafia_only():
    tl, rep = intervals(timed_game())
    calls = by_kind(tl, Kind.SHOOTING_CALL)
    assert [c.details["called"] for c in calls] == [1, 2, 3, 4, 6, 7, 8, 9, 10]
    assert calls[0].t0 == 133.0 and calls[0].t1 == 134.5
    assert calls[-1].t1 == 150.0  # the hunt ends when the Don's check starts
    for seat in (2, 4, 8):
        assert calls[3].allowed(seat, Permit.SHOOT) and calls[3].allowed(seat, Permit.RAISE_HAND)
    for seat in (1, 3, 6, 10):
        assert not calls[3].allowed(seat, Permit.RAISE_HAND)  # V6


def test_checks_wake_only_the_checker_with_profile_limit():
    tl, _ = intervals(timed_game())
    don = by_kind(tl, Kind.DON_CHECK)[0]
    sheriff = by_kind(tl, Kind.SHERIFF_CHECK)[0]
    assert don.seats == (8,) and don.allowed(8, Permit.UNMASK) and not don.allowed(3, Permit.UNMASK)
    assert sheriff.seats == (3,) and sheriff.t1 == 162.0 + 15  # MC: 15 s when no end recorded


def test_night_grants_nothing_so_unmasking_is_forbidden():
    tl, _ = intervals(timed_game())
    night = by_kind(tl, Kind.NIGHT)[1]
    assert all(not night.allowed(s, Permit.UNMASK) for s in range(1, 11))


def test_untimed_protocol_still_yields_ordered_intervals():
    doc = random_game(11)
    for ev in doc["events"]:
        for key in [k for k in ev if k in ("t", "t_end", "t_call_end", "t_call2", "t_thanks")]:
            del ev[key]
    p = Protocol.from_dict(doc)
    tl = build_timeline(p, replay(p))
    assert tl and all(iv.t0 is None for iv in tl)
    events = [iv.event for iv in tl]
    assert events == sorted(events)
    assert by_kind(tl, Kind.VOTE_CALL) and by_kind(tl, Kind.NIGHT)


def test_generated_games_have_one_vote_call_interval_per_recorded_call():
    for seed in range(5):
        p = Protocol.from_dict(random_game(seed))
        rep = replay(p)
        tl = build_timeline(p, rep)
        assert len(by_kind(tl, Kind.VOTE_CALL)) == len(rep.vote_calls)
        for iv in tl:
            if iv.timed:
                assert iv.t1 >= iv.t0, iv.to_dict()

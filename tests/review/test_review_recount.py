"""Vote recount under the profiles' windows, and the impact of a miscount."""
from __future__ import annotations

from engine.protocol import Protocol
from engine.replay import replay
from engine.timeline import build_timeline
from review.impact import pass_impact
from review.recount import Placement, recount, recount_accuracy

ROLES = {2: "maf", 4: "maf", 8: "don", 3: "sheriff"}


def protocol(announced5: int, announced7: int, profile: str = "mafclub-2023") -> Protocol:
    """N0, day 1 nobody; night 1 kills 10; day 2 votes on 5 then 7 (MC window: call end → thanks)."""
    seats = [{"seat": s, "role": ROLES.get(s, "civ")} for s in range(1, 11)]
    ev = [{"type": "nightfall", "t": 0.0}, {"type": "morning", "t": 10.0},
          {"type": "nightfall", "t": 20.0}]
    ev += [{"type": "shot", "by": s, "target": 10, "t": 25.0} for s in (2, 4, 8)]
    ev += [{"type": "morning", "t": 40.0},
           {"type": "nominate", "by": 1, "target": 5, "t": 45.0},
           {"type": "nominate", "by": 2, "target": 7, "t": 50.0},
           {"type": "vote_announce", "t": 59.0, "candidates": [5, 7]},
           {"type": "vote", "candidate": 5, "t": 60.0, "t_call_end": 61.0, "t_thanks": 62.5,
            "announced": announced5},
           {"type": "vote", "candidate": 7, "t": 64.0, "t_call_end": 65.0, "t_thanks": 66.5,
            "announced": announced7}]
    return Protocol.from_dict({"format": "mafvar-protocol", "version": 1,
                               "game": {"profile": profile}, "seats": seats, "events": ev})


def run(p: Protocol, placements):
    rep = replay(p)
    tl = build_timeline(p, rep)
    return recount(tl, placements, rep.profile), rep


def fist(seat, t, lift=None, form="thumb_up"):
    return Placement(seat, t, t + 3.0 if lift is None else lift, form)


def test_in_window_votes_count_and_the_rest_default_to_the_last_candidate():
    p = protocol(5, 4)
    pl = {s: [fist(s, 61.3)] for s in (1, 2, 3, 4, 6)}
    rc, _ = run(p, pl)
    assert [(c.candidate, c.recount) for c in rc] == [(5, 5), (7, 4)]
    assert sorted(rc[1].defaults) == [5, 7, 8, 9]
    assert not any(c.differs for c in rc)


def test_vote_after_thank_you_is_void_under_mc_but_counts_under_sm():
    pl = {1: [fist(1, 62.8, lift=63.5)]}  # after "thank you" (62.5), lifted before call 7
    rc, _ = run(protocol(0, 9), pl)
    v = rc[0].voters[0]
    assert not v.counted and "late_vote" in v.flags and rc[0].recount == 0
    rc_sm, _ = run(protocol(1, 8, "sport-mafia"), {1: [fist(1, 62.5)]})  # on "thank you"
    assert rc_sm[0].recount == 1


def test_premature_fist_held_into_the_window_counts_and_is_flagged():
    rc, _ = run(protocol(1, 8), {3: [fist(3, 60.2, lift=63.5)]})  # before the call ended
    v = rc[0].voters[0]
    assert v.counted and v.reason == "early" and "early_vote" in v.flags


def test_lift_before_thank_you_counts_with_a_foul():
    rc, _ = run(protocol(1, 8), {3: [fist(3, 61.2, lift=62.0)]})
    v = rc[0].voters[0]
    assert v.counted and "early_lift" in v.flags


def test_a_fist_lost_into_an_unread_zone_is_no_early_lift():
    # seen to 62.0, then the zone window still sees a vote no hand confirms, to 62.9:
    # the fist may have stayed to "Thank you" (62.5), so no foul is claimed
    from review.pipeline import fist_placements
    from vision.tracks import Observed, Track
    tracks = [Track(3, Observed.FIST_ON_TABLE, 61.2, 62.0, 0.95, "thumb_up"),
              Track(3, Observed.ZONE_UNREAD, 62.2, 62.9, 1.0, "no_hand")]
    placed = fist_placements(tracks)
    assert placed[3][0].lift_unseen_until == 62.9
    v = run(protocol(1, 8), placed)[0][0].voters[0]
    assert v.counted and "early_lift" not in v.flags
    # read empty after the same sighting (no unread stretch): the early lift stands
    v = run(protocol(1, 8), fist_placements(tracks[:1]))[0][0].voters[0]
    assert "early_lift" in v.flags
    # an unread stretch that starts long after the lift does not continue it
    late = fist_placements([tracks[0], Track(3, Observed.ZONE_UNREAD, 63.5, 64.0, 1.0, "no_hand")])
    assert late[3][0].lift_unseen_until is None


def test_palm_vote_is_void_under_mc_and_counts_under_ru():
    rc, _ = run(protocol(0, 9), {6: [fist(6, 61.5, form="palm")]})
    assert rc[0].recount == 0 and "wrong_form" in rc[0].voters[0].flags
    rc_ru, _ = run(protocol(1, 8, "ru-club"), {6: [fist(6, 61.5, form="palm")]})
    assert rc_ru[0].recount == 1


def test_second_vote_is_ignored_and_flagged():
    pl = {4: [fist(4, 61.2, lift=63.0), fist(4, 65.3, lift=67.0)]}
    rc, _ = run(protocol(1, 9), pl)
    assert rc[0].recount == 1
    second = [v for v in rc[1].voters if v.seat == 4 and v.reason == "second_vote"]
    assert second and "double_vote" in second[0].flags
    assert 4 not in rc[1].defaults  # the first vote counted, so no default either


def test_miscount_that_changes_who_leaves_is_found_with_its_impact():
    # Nine at the table. The video shows 5 fists for 5 (so 4 for 7 with the defaults);
    # the judge announced 4 and 5, and seat 7 left instead of seat 5.
    p = protocol(4, 5)
    pl = {s: [fist(s, 61.4)] for s in (1, 2, 3, 4, 6)}
    rc, _ = run(p, pl)
    assert [(c.candidate, c.announced, c.recount) for c in rc] == [(5, 4, 5), (7, 5, 4)]
    imp = pass_impact(p, rc)
    assert imp.changes_exit
    assert "7 voted out" in imp.as_played and "5 voted out" in imp.corrected


def test_miscount_without_consequence_is_reported_as_such():
    p = protocol(6, 3)  # true: 5 and 4; 5 leaves either way
    pl = {s: [fist(s, 61.4)] for s in (1, 2, 3, 4, 6)}
    rc, _ = run(p, pl)
    imp = pass_impact(p, rc)
    assert not imp.changes_exit and not imp.changes_result and "either way" in imp.summary


def test_recount_accuracy_counts_cells_over_eligible_voters():
    p = protocol(5, 4)
    pl = {s: [fist(s, 61.3)] for s in (1, 2, 3, 4, 6)}
    rc, _ = run(p, pl)
    truth = {(1, 0, 5): {1, 2, 3, 4, 6}, (1, 0, 7): {5, 7, 8, 9}}
    assert recount_accuracy(rc, truth) == 1.0
    truth_wrong = {(1, 0, 5): {1, 2, 3, 4}, (1, 0, 7): {5, 6, 7, 8, 9}}
    assert recount_accuracy(rc, truth_wrong) == 1 - 2 / 18


def test_timing_fouls_need_more_than_one_sampled_frame_of_margin():
    # first seen 0.1 s before the window opens (61.0) and last seen 0.1 s before
    # "thank you" (62.5): within one frame at 5 fps, so counted without a foul
    rc, _ = run(protocol(2, 7), {3: [fist(3, 60.9, lift=62.4)], 6: [fist(6, 60.5, lift=61.9)]})
    v3, v6 = sorted(rc[0].voters[:2], key=lambda v: v.seat)
    assert v3.counted and v3.flags == []
    assert v6.counted and v6.flags == ["early_vote", "early_lift"]


def test_an_early_vote_needs_to_be_clear_of_the_descending_hand_and_the_placed_opening():
    # the window opens at 61.0. Fresh seed 2304: a fist first seen (5 fps) 0.22 s
    # before the opening had landed 0.1 s after it: the zone reads the hand on its
    # way down up to 0.3 s early, and the opening itself is placed to 0.1 s
    from review.recount import FULL_RATE
    from dataclasses import replace as _r
    seen_early = {3: [fist(3, 60.78, lift=62.6)], 6: [fist(6, 60.55, lift=62.6)]}
    rc, _ = run(protocol(2, 7), seen_early)
    by = {v.seat: v for v in rc[0].voters}
    assert by[3].counted and by[3].flags == []                 # 0.22 s: may have landed on time
    assert by[6].counted and by[6].flags == ["early_vote"]     # 0.45 s: clear of both
    # a landing timed at the full rate is the landing itself: only the opening's placement is doubt
    timed = {3: [_r(fist(3, 60.85, lift=62.6), timing=FULL_RATE)], 6: [_r(fist(6, 60.95, lift=62.6), timing=FULL_RATE)]}
    rc, _ = run(protocol(2, 7), timed)
    by = {v.seat: v for v in rc[0].voters}
    assert by[3].flags == ["early_vote"] and by[6].flags == []


def test_fists_of_the_next_vote_are_not_late_votes_of_this_one():
    # a revote follows 1.5 s after "thank you": the fists placed for it belong to it
    p = protocol(5, 5)
    rep = replay(p)
    tl = build_timeline(p, rep)
    from dataclasses import replace as _r
    from engine.timeline import Kind
    nxt = next(iv for iv in tl if iv.kind is Kind.VOTE_CALL and iv.details["candidate"] == 7)
    fake = _r(nxt, key="r9.raise", kind=Kind.RAISE_VOTE, t0=67.5, t1=70.0)
    placements = {s: [fist(s, 61.3)] for s in (1, 2, 3, 4, 6)}
    placements[1].append(fist(1, 68.0))
    with_next = recount(tl + [fake], placements, rep.profile)
    without = recount(tl, placements, rep.profile)
    flagged = lambda rc: [f for c in rc for v in c.voters for f in v.flags]
    assert "double_vote" in flagged(without)          # the old reading: a second vote, late
    assert "double_vote" not in flagged(with_next)


def test_calls_the_alignment_could_not_place_are_open_not_counted_as_no_votes():
    # An untimed protocol whose vote calls the alignment could not place: no fist can
    # be assigned, and the last candidate must not get every seat by default (10 against
    # an announced 4 was once a "miscount" with full confidence)
    from dataclasses import replace

    from review.recount import NOT_PLACED
    p = protocol(4, 5)
    rep = replay(p)
    tl = [replace(iv, t0=None, t1=None) if iv.kind.value == "vote_call" else iv for iv in build_timeline(p, rep)]
    rc = recount(tl, {s: [fist(s, 61.4)] for s in (1, 2, 3, 4, 6)}, rep.profile)
    assert [c.recount for c in rc] == [0, 0] and not any(c.differs for c in rc)
    assert all(set(c.unverified) == set(c.eligible) for c in rc)
    assert dict(rc[0].unverified)[1] == (NOT_PLACED,)
    # only the last call unplaced: the seats that did not vote before count for it by default
    tl = [replace(iv, t0=None, t1=None) if iv.kind.value == "vote_call" and iv.details["candidate"] == 7 else iv
          for iv in build_timeline(p, rep)]
    rc = recount(tl, {s: [fist(s, 61.4)] for s in (1, 2, 3, 4, 6)}, rep.profile)
    assert [(c.recount, c.differs) for c in rc] == [(5, True), (4, True)]


def test_calls_the_recording_does_not_hold_are_open_not_counted_as_no_votes():
    # A record running past a recording cut short: the calls after its end held no
    # fist, every seat became a default for the last candidate and a miscount was
    # raised at 100 % that changed who leaves; their cells are open instead
    from dataclasses import replace

    from review.recount import NOT_IN_VIDEO, calls_outside, with_open_calls
    p = protocol(4, 3)
    rep = replay(p)
    tl = build_timeline(p, rep)
    fists = {s: [fist(s, 61.4)] for s in (1, 2, 3, 6)}
    assert calls_outside(tl, 200.0) == []
    # the video ends at 59.5 s, before the pass's first call: no cell of it is seen
    outside = calls_outside(tl, 59.5)
    assert [k.rsplit(".", 1)[1] for k in outside] == ["c5", "c7"]
    rc = recount(tl, {}, rep.profile, with_open_calls(tl, {}, outside, NOT_IN_VIDEO))
    assert [(c.recount, c.differs) for c in rc] == [(0, False), (0, False)]
    assert all(set(c.unverified) == set(c.eligible) for c in rc)
    assert dict(rc[1].unverified)[5] == (NOT_IN_VIDEO,)
    # without it every seat is a default for 7 (9 against an announced 3): the false miscount
    rc = recount(tl, {}, rep.profile)
    assert (rc[1].recount, rc[1].differs) == (9, True)
    # it ends at 63 s, after the first call's window (closes 62.5 s): only the last call is
    # not held, and under MC its cells are decided by the first (the non-voters' defaults)
    outside = calls_outside(tl, 63.0)
    assert [k.rsplit(".", 1)[1] for k in outside] == ["c7"]
    rc = recount(tl, fists, rep.profile, with_open_calls(tl, {}, outside, NOT_IN_VIDEO))
    assert [c.recount for c in rc] == [4, 5]
    # a recording that starts after the first call (61 s into the record) does not hold it
    shifted = [replace(iv, t0=None if iv.t0 is None else iv.t0 - 61.0, t1=None if iv.t1 is None else iv.t1 - 61.0,
                       details={k: (v - 61.0 if k in ("window_open", "window_close") and v is not None else v)
                                for k, v in iv.details.items()}) for iv in tl]
    assert [k.rsplit(".", 1)[1] for k in calls_outside(shifted, 200.0)] == ["c5"]


def listed(announced5: int | None, announced7: int | None, voters5, voters7) -> Protocol:
    """Day 2's votes with the record's voter lists; a count of None is left out (a
    platform's record: who voted for whom, no counts)."""
    doc = protocol(0, 0).to_dict()
    for e in doc["events"]:
        if e["type"] == "vote":
            count = announced5 if e["candidate"] == 5 else announced7
            if count is None:
                del e["announced"]
            else:
                e["announced"] = count
            e["voters"] = list(voters5 if e["candidate"] == 5 else voters7)
    return Protocol.from_dict(doc)


def stakes_of(p: Protocol, placed, unread: int):
    """The stakes of day 2's pass with `placed` fists seen and `unread`'s cells open."""
    from review.stakes import pass_stakes
    rep = replay(p)
    tl = build_timeline(p, rep)
    keys = [iv.key for iv in tl if iv.kind.value == "vote_call"]
    rc = recount(tl, placed, rep.profile, {k: {unread: ("unread",)} for k in keys})
    assert all(unread in c.unverified for c in rc)
    return pass_stakes(p, rc, default_last=True, labels={k: "day 2, vote on x" for k in keys})


def weighed(announced5: int, announced7: int, voters5, unread: int):
    """The stakes with `voters5` seen voting for 5 and `unread`'s cells open (no voter lists)."""
    return stakes_of(protocol(announced5, announced7), {s: [fist(s, 61.3)] for s in voters5}, unread)


def test_an_unread_seat_that_could_have_changed_who_left_is_named_with_the_readings():
    # Seen: 1-4 for 5 (4), and 5, 7, 8, 9 default to 7 (4); seat 6 unread. The judge
    # announced 5 and 4 (seat 6 for 5): 5 left. Had seat 6 voted for 7, or not at all, 7 would have.
    [st] = weighed(5, 4, (1, 2, 3, 4), unread=6)
    assert st.decides and st.weighed and st.seats == (6,)
    assert "5 voted out" in st.as_played
    assert [(o, r) for o, r in st.alternatives] == [("seat 7 voted out", {6: 7})]
    assert st.fit_announced == ({6: 5},)
    text = st.sentence()
    assert text.startswith("day 2, vote: seat 6 cannot be judged here (hand or face not read)")
    assert "only if seat 6 voted for 5" in text and "If seat 6 voted for 7: seat 7 voted out" in text


def test_an_unread_seat_that_could_not_have_changed_the_outcome_is_said_so():
    # Seen: 1, 2, 3, 4, 6 for 5 (5), at most 4 for 7 whatever seat 8 did: 5 leaves either way.
    [st] = weighed(5, 4, (1, 2, 3, 4, 6), unread=8)
    assert not st.decides and st.alternatives == ()
    assert st.fit_announced == ({8: 7}, {8: None})
    assert "however seat 8 voted, seat 5 voted out" in st.sentence()


def test_announced_counts_no_reading_gives_are_said_so():
    # 6 and 6 announced with nine players: no way one unread seat closes the gap.
    [st] = weighed(6, 6, (1, 2, 3, 4), unread=6)
    assert st.fit_announced == () and "No way they could have voted gives the announced counts" in st.sentence()


def test_a_record_whose_voter_lists_cannot_give_its_counts_is_said_so():
    # The record: 1, 2, 3, 6 for 5 (4), the other five by default for 7 (5). The picture:
    # 1, 2, 3, 4 for 5, seat 6 unread. Seat 6 for 5, as listed, would make 5 votes for 5:
    # the record's counts or its lists are wrong (it missed seat 4), whatever seat 6 did.
    [st] = stakes_of(listed(4, 5, (1, 2, 3, 6), ()), {s: [fist(s, 61.3)] for s in (1, 2, 3, 4)}, unread=6)
    assert st.record_says == {6: 5} and st.record_fits is False
    assert st.fit_announced == ({6: 7}, {6: None})
    assert st.seen_otherwise == ((4, 5, None),)
    # as listed, seat 6 makes 5 votes for 5 against 4 for 7: seat 5 out, not seat 7
    assert "7 voted out" in st.as_played and st.with_record == "seat 5 voted out"
    assert "With seat 6 as the record lists it and every other seat as the picture shows: seat 5 voted out." in st.sentence()
    assert "its counts or its lists are wrong" in st.sentence()
    assert "The picture shows seat 4 voting for 5; the record lists it for no candidate." in st.sentence()


def test_a_fist_for_the_last_candidate_the_record_counts_as_a_default_is_no_contradiction():
    # The record lists 1-4 for 5 and nobody for 7 (the rest by default); the picture
    # shows seat 9's fist for 7 too: the same vote either way. Seat 6 unread.
    placed = {s: [fist(s, 61.3)] for s in (1, 2, 3, 4)} | {9: [fist(9, 65.3)]}
    [st] = stakes_of(listed(4, 5, (1, 2, 3, 4), ()), placed, unread=6)
    assert st.seen_otherwise == () and st.record_fits is True and "picture shows" not in st.sentence()


def test_a_record_of_ballots_without_counts_is_recounted_against_the_count_its_ballots_give():
    # The record: 1, 2, 3 for 5 and nobody for 7, so 3 for 5 and the six others by
    # default for 7: seat 7 out. The picture shows 1, 2, 3, 4, 6 for 5: 5 to 4, seat 5 out.
    p = listed(None, None, (1, 2, 3), ())
    rc, rep = run(p, {s: [fist(s, 61.4)] for s in (1, 2, 3, 4, 6)})
    assert [(c.candidate, c.announced, c.announced_from, c.recount) for c in rc] == [
        (5, 3, "ballots", 5), (7, 6, "ballots", 4)]
    assert all(c.differs for c in rc)
    imp = pass_impact(p, rc)
    assert imp.changes_exit and "7 voted out" in imp.as_played and "5 voted out" in imp.corrected


def test_a_record_with_counts_keeps_them_whatever_its_ballots_say():
    rc, _ = run(listed(4, 5, (1, 2, 3), ()), {s: [fist(s, 61.4)] for s in (1, 2, 3, 4)})
    assert [(c.announced, c.announced_from) for c in rc] == [(4, None), (5, None)]


def test_a_fist_never_seen_with_its_thumb_counts_but_raises_no_timing_flag():
    # placed before the call ended and lifted before "thank you": on a thumb-up both flags
    early = {3: [fist(3, 60.2, lift=61.8)], 6: [fist(6, 60.2, lift=61.8, form="fist")]}
    rc, _ = run(protocol(2, 7), early)
    by = {v.seat: v for v in rc[0].voters}
    assert by[3].counted and by[3].flags == ["early_vote", "early_lift"] and by[3].held == []
    assert by[6].counted and by[6].flags == [] and by[6].held == ["early_vote", "early_lift"]
    assert rc[0].recount == 2
    # placed before the call, still down 2.3 s after "thank you" (62.5): a hand resting
    # on the table reads the same, the early vote is held
    rc, _ = run(protocol(3, 6), {6: [fist(6, 60.2, lift=64.8, form="fist")]})
    v = rc[0].voters[0]
    assert v.counted and v.flags == [] and v.held == ["early_vote"]
    # after "thank you", still down 2.3 s after it: void under MC, held as a late vote
    rc, _ = run(protocol(0, 9), {1: [fist(1, 62.8, lift=64.8, form="fist")]})
    v = rc[0].voters[0]
    assert not v.counted and v.reason == "late" and v.flags == [] and v.held == ["late_vote"]


def test_a_thumb_up_is_early_from_its_first_frame_read_with_the_thumb():
    from dataclasses import replace as _r
    # the call on 5 opens at 61.0: first sighting 60.2 (a thumbless reading of a hand
    # resting there), the thumb first seen at 61.0: counted, no early vote
    pl = _r(fist(6, 60.2, lift=62.7), t_form=61.0)
    rc, _ = run(protocol(3, 6), {6: [pl]})
    v = rc[0].voters[0]
    assert v.counted and v.reason == "early" and v.flags == []
    # the thumb seen at 60.3: an early vote
    rc, _ = run(protocol(3, 6), {6: [_r(pl, t_form=60.3)]})
    assert rc[0].voters[0].flags == ["early_vote"]
    # only a thumb-up is timed so (a palm's frames are all of the wrong form)
    rc, _ = run(protocol(3, 6), {6: [_r(pl, form="palm")]})
    assert "early_vote" not in rc[0].voters[0].flags


def test_an_untimed_fist_that_rested_like_a_vote_times_its_landing():
    # the seat's only hand of the pass, lifted at "thank you" (62.5) or within VOTE_LIFT
    # after it: its early or late landing is a flag; an early lift would still be held
    rc, _ = run(protocol(3, 6), {6: [fist(6, 60.2, lift=63.1, form="fist")]})
    v = rc[0].voters[0]
    assert v.counted and v.flags == ["early_vote"] and v.held == []
    rc, _ = run(protocol(0, 9), {1: [fist(1, 62.8, lift=63.5, form="fist")]})
    v = rc[0].voters[0]
    assert not v.counted and v.reason == "late" and v.flags == ["late_vote"] and v.held == []
    # lifted before "thank you" by more than a frame: not how a vote leaves, both held
    rc, _ = run(protocol(3, 6), {6: [fist(6, 60.2, lift=62.0, form="fist")]})
    v = rc[0].voters[0]
    assert v.flags == [] and v.held == ["early_vote", "early_lift"]
    # the same fist with another hand of the seat later in the pass: held
    rc, _ = run(protocol(3, 6), {6: [fist(6, 60.2, lift=63.1, form="fist"), fist(6, 65.3, lift=66.6)]})
    v = next(v for v in rc[0].voters if v.seat == 6)
    assert "early_vote" not in v.flags


def test_an_untimed_fist_then_another_hand_of_the_seat_leaves_its_cells_open():
    from review.recount import NO_THUMB
    # seat 4: a thumbless "fist" in the call on 5, then a thumb-up in the call on 7.
    # Which was the vote cannot be told: no count, no double vote, the cells open
    pl = {4: [fist(4, 61.3, lift=62.3, form="fist"), fist(4, 65.3, lift=66.3)], 1: [fist(1, 61.3, lift=62.9)]}
    rc, _ = run(protocol(1, 8), pl)
    assert all(dict(c.unverified).get(4) == (NO_THUMB,) for c in rc)
    v4 = [v for c in rc for v in c.voters if v.seat == 4]
    assert v4 and not any(v.counted or v.flags for v in v4)
    assert rc[0].recount == 1 and 4 not in rc[1].defaults
    # a thumb-up first and the thumbless fist second: the vote stands, the second flag is held
    pl = {4: [fist(4, 61.3, lift=62.9), fist(4, 65.3, lift=66.3, form="fist")]}
    rc, _ = run(protocol(1, 8), pl)
    assert not any(c.unverified for c in rc)
    second = next(v for v in rc[1].voters if v.seat == 4 and v.reason == "second_vote")
    assert second.flags == [] and second.held == ["double_vote"]
    # alone in its pass, the thumbless fist is counted where it landed
    rc, _ = run(protocol(1, 8), {4: [fist(4, 61.3, lift=62.9, form="fist")]})
    assert not any(c.unverified for c in rc) and rc[0].recount == 1


def test_a_fist_first_seen_within_a_frame_after_thank_you_may_have_landed_on_time():
    from dataclasses import replace as _r
    from review.recount import FULL_RATE
    # "thank you" at 62.5; sampled at 5 fps, a first sighting at 62.6 may have landed at 62.41
    rc, _ = run(protocol(1, 8), {1: [fist(1, 62.6, lift=63.5)]})
    v = rc[0].voters[0]
    assert v.counted and v.reason == "in_window" and v.flags == [] and rc[0].recount == 1
    # the landing timed at the full rate is the landing itself: late
    rc, _ = run(protocol(0, 9), {1: [_r(fist(1, 62.6, lift=63.5), timing=FULL_RATE)]})
    v = rc[0].voters[0]
    assert not v.counted and v.flags == ["late_vote"]


def test_under_sport_mafia_the_upright_fist_is_the_vote_and_keeps_its_timing_flags():
    # SM 6.4: "a clenched fist vertically on the table", no thumb: a fist read without
    # one is the vote's own form there, and an early lift is still a foul
    early_lift = {3: [fist(3, 61.2, lift=61.9, form="fist")]}
    rc, rep = run(protocol(1, 8, "sport-mafia"), early_lift)
    assert rep.profile.vote_form == "fist"
    v = rc[0].voters[0]
    assert v.counted and v.flags == ["early_lift"] and v.held == []
    rc, rep = run(protocol(1, 8), early_lift)
    assert rep.profile.vote_form == "thumb_up" and rc[0].voters[0].held == ["early_lift"]

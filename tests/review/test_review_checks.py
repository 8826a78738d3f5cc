"""Rule checks: tracks inside timeline intervals become incidents with clauses."""
from __future__ import annotations

from engine.protocol import Protocol
from engine.replay import replay
from engine.timeline import build_timeline
from review.checks import CheckContext, run_checks
from review.recount import Placement, recount
from vision.tracks import Track

ROLES = {2: "maf", 4: "maf", 8: "don", 3: "sheriff"}


def game(profile="mafclub-2023", announced=(4, 5)):
    seats = [{"seat": s, "role": ROLES.get(s, "civ")} for s in range(1, 11)]
    ev = [{"type": "nightfall", "t": 0.0}, {"type": "morning", "t": 10.0},
          {"type": "nightfall", "t": 20.0}]
    ev += [{"type": "shooting_call", "seat": s, "t": 24.0 + i} for i, s in enumerate(range(1, 11))]
    ev += [{"type": "shot", "by": s, "target": 10, "t": 33.0} for s in (2, 4, 8)]
    ev += [{"type": "don_check", "target": 3, "t": 35.0, "t_end": 40.0},
           {"type": "sheriff_check", "target": 2, "t": 41.0, "t_end": 46.0},
           {"type": "morning", "t": 50.0},
           {"type": "nominate", "by": 1, "target": 5, "t": 55.0},
           {"type": "nominate", "by": 2, "target": 7, "t": 56.0},
           {"type": "vote_announce", "t": 59.0, "candidates": [5, 7]},
           {"type": "vote", "candidate": 5, "t": 60.0, "t_call_end": 61.0, "t_thanks": 62.5, "announced": announced[0]},
           {"type": "vote", "candidate": 7, "t": 64.0, "t_call_end": 65.0, "t_thanks": 66.5, "announced": announced[1]}]
    return Protocol.from_dict({"format": "mafvar-protocol", "version": 1, "game": {"profile": profile},
                               "seats": seats, "events": ev})


HONEST = {s: [Placement(s, 61.5, 64.0)] for s in (1, 2, 3, 4, 6)}  # 5 for seat 5, 4 default to 7


def check(tracks, placements=None, profile="mafclub-2023", announced=(5, 4), slack=None, neighbours=None):
    p = game(profile, announced)
    rep = replay(p)
    tl = build_timeline(p, rep)
    ctx = CheckContext(p, rep, tl, tracks, slack=slack or {}, neighbours=neighbours or {})
    return run_checks(ctx, recount(tl, HONEST if placements is None else placements, rep.profile))


def types(incidents, source="video"):
    return sorted((i.type.value, i.seats) for i in incidents if i.source.value == source)


def test_clean_tracks_give_no_video_incidents():
    tracks = [Track(s, "mask_on", 20.5, 49.0, 0.9) for s in range(1, 11)]
    assert types(check(tracks)) == []


def test_late_mask_is_flagged_with_the_profile_clause():
    tracks = [Track(6, "mask_off", 20.0, 25.0, 0.9, frames=31), Track(6, "mask_on", 25.1, 49.0, 0.9)]
    inc = [i for i in check(tracks) if i.type.value == "mask_late"]
    assert len(inc) == 1 and inc[0].seats == (6,)
    assert inc[0].clause.startswith("MC 000 4.3.10") and inc[0].details["late_by"] == 2.1


def test_a_mask_seen_on_at_the_deadline_and_lifted_right_after_is_not_late_masking():
    # seat 2 (mafia) masks 1.5 s before night 1's deadline (23.0 s) and lifts it from the next frame
    lifted = [Track(2, "mask_off", 15.0, 21.3, 0.9, frames=38), Track(2, "mask_on", 21.5, 23.0, 0.95),
              Track(2, "mask_lifted", 23.2, 26.0, 0.9, frames=17), Track(2, "mask_on", 26.2, 49.0, 0.95)]
    assert [i for i in check(lifted) if i.type.value == "mask_late"] == []
    # the deadline between two frames: on at the last frame before it (0.12 s), lifted at the next
    between = [Track(2, "mask_off", 15.0, 21.3, 0.9, frames=38), Track(2, "mask_on", 21.5, 22.88, 0.95),
               Track(2, "mask_lifted", 23.08, 26.0, 0.9, frames=18), Track(2, "mask_on", 26.2, 49.0, 0.95)]
    assert [i for i in check(between) if i.type.value == "mask_late"] == []
    # the same lift with the mask never seen on at the deadline is late masking
    never = [Track(2, "mask_off", 15.0, 22.6, 0.9, frames=46), Track(2, "mask_lifted", 23.2, 26.0, 0.9, frames=17),
             Track(2, "mask_on", 26.2, 49.0, 0.95)]
    assert [i.seats for i in check(never) if i.type.value == "mask_late"] == [(2,)]
    # a mask seen off across the deadline stays late, whatever mask-on reading overlaps it
    both = [Track(6, "mask_off", 20.0, 25.0, 0.9, frames=31), Track(6, "mask_on", 22.5, 23.4, 0.6),
            Track(6, "mask_on", 25.1, 49.0, 0.9)]
    assert [i.seats for i in check(both) if i.type.value == "mask_late"] == [(6,)]


def test_peeking_outside_the_own_wake_is_flagged_but_the_sheriff_checking_is_not():
    tracks = [Track(7, "mask_lifted", 30.0, 31.5, 0.8, frames=10),      # civilian peeks during the shooting
              Track(3, "mask_off", 41.5, 45.0, 0.9, frames=22)]          # Sheriff during his own check
    assert types(check(tracks)) == [("peek", (7,))]


def test_a_mask_read_off_in_two_looks_a_second_apart_is_no_peek():
    # a civilian seen from behind as he sat up at night, read "off" in the two frames
    # the night's sampling took (fresh seed 3815's proposal, seat 10): a peek needs
    # three frames read so, as a shot does; the same second read in three is one
    two = Track(7, "mask_off", 30.0, 31.0, 0.83, frames=2)
    assert types(check([two])) == []
    three = Track(7, "mask_off", 30.0, 31.0, 0.83, frames=3)
    assert types(check([three])) == [("peek", (7,))]


def test_a_check_placed_only_to_within_seconds_grants_its_unmasking_that_much_earlier():
    # the Sheriff (seat 3) unmasks 1.2 s before his check (41.0) as placed
    early = [Track(3, "mask_off", 39.8, 41.3, 0.9, frames=10)]
    assert types(check(early)) == [("peek", (3,))]
    # the check placed from the picture (1.5 s either side): the peek is not claimed
    key = next(iv.key for iv in build_timeline(game(), replay(game())) if iv.kind.value == "sheriff_check")
    assert types(check(early, slack={key: 1.5})) == []
    # a civilian's peek is still one: the slack widens only what the seat is granted
    assert types(check([Track(7, "mask_lifted", 39.8, 41.3, 0.9, frames=10)], slack={key: 1.5})) == [("peek", (7,))]


def test_red_hand_raised_during_shooting_and_pointing_during_a_check():
    tracks = [Track(6, "hand_raised", 27.0, 28.0, 0.9, "1"),  # civilian: V6
              Track(2, "hand_raised", 27.0, 28.0, 0.9, "1"),  # mafia: allowed
              Track(5, "pointing", 36.0, 37.0, 0.8)]          # V9 during the Don's check
    assert types(check(tracks)) == [("check_pointing", (5,)), ("false_shot", (6,))]


def test_shot_at_another_number_than_recorded():
    # seat 4's fingers flex at call 7 (t 30-31) while the protocol says all shot 10
    tracks = [Track(4, "shot", 30.2, 30.8, 0.8, frames=4), Track(2, "shot", 33.1, 33.6, 0.8, frames=4)]
    inc = [i for i in check(tracks) if i.type.value == "shot_mismatch"]
    assert [(i.seats, i.details["seen_targets"]) for i in inc] == [((4,), [7])]


def test_two_frames_of_curled_fingers_in_a_held_hand_are_no_shot():
    # seat 4 holds its fingers up through the calls; two frames at call 7 read
    # curled (0.17 s at 6 fps): not a flex, so no mismatch and no early gesture
    held = [Track(4, "hand_raised", 27.0, 34.0, 0.9, "2"), Track(4, "shot", 30.2, 30.37, 0.7, frames=2)]
    assert [i for i in check(held) if i.type.value == "shot_mismatch"] == []
    # three frames (0.33 s) are a flex
    flexed = [held[0], Track(4, "shot", 30.2, 30.53, 0.7, frames=3)]
    assert [i.seats for i in check(flexed) if i.type.value == "shot_mismatch"] == [(4,)]


def test_a_curl_read_in_every_other_frame_is_no_shot():
    # seat 4's raised finger read curled at 30.2 s and 30.53 s, up in the frame
    # between: two frames read curled span 0.33 s but are not three (fresh seed 3815)
    held = Track(4, "hand_raised", 27.0, 34.0, 0.9, "1")
    flicker = Track(4, "shot", 30.2, 30.53, 0.7, frames=2)
    assert [i for i in check([held, flicker]) if i.type.value == "shot_mismatch"] == []
    curled = Track(4, "shot", 30.2, 30.53, 0.7, frames=3)
    assert [i.seats for i in check([held, curled]) if i.type.value == "shot_mismatch"] == [(4,)]


def test_vote_flags_and_the_miscount_with_impact():
    fists = {1: [Placement(1, 61.2, 64.0)], 2: [Placement(2, 60.3, 64.0)],   # 2 placed early
             3: [Placement(3, 61.2, 62.0)],                                 # 3 lifted early
             4: [Placement(4, 61.3, 64.0)], 6: [Placement(6, 61.3, 64.0)]}
    incidents = check([], fists, announced=(4, 5))
    got = types(incidents)
    assert ("early_vote", (2,)) in got and ("early_lift", (3,)) in got
    mis = [i for i in incidents if i.type.value == "miscount"]
    assert len(mis) == 1 and mis[0].seats == (5, 7)  # one judge error, two calls differ
    assert mis[0].impact.changes_exit
    # anchored on the call where a fist went uncounted: 5 seen, 4 announced
    assert (mis[0].details["candidate"], mis[0].details["announced"], mis[0].details["recount"]) == (5, 4, 5)


def test_protocol_audit_findings_join_the_list():
    incidents = check([], {}, announced=(3, 3))  # 6 of 9 voters announced
    audits = [i for i in incidents if i.source.value == "protocol"]
    assert audits and all(i.clause or i.details["code"] for i in audits)


def test_incident_ids_are_stable_across_runs():
    tracks = [Track(7, "mask_lifted", 30.0, 31.5, 0.8, frames=10)]
    a = {i.id for i in check(tracks)}
    b = {i.id for i in check(tracks)}
    assert a == b and a


def test_a_track_that_only_touches_a_phase_edge_is_not_an_incident_there():
    # standing from the last second of the night into the first 0.2 s of the day,
    # and a gesture track ending as the vote starts: no span inside either phase
    tracks = [Track(4, "standing", 49.0, 50.2, 0.95), Track(4, "hand_raised", 57.0, 59.1, 0.9, "1")]
    got = check(tracks)
    assert not [i for i in got if i.type.value in ("stand_up", "vote_gesture") and i.t0 is not None
                and i.t0 >= 50.0]
    assert all(i.t1 is None or i.t0 is None or i.t1 >= i.t0 for i in got)


def test_an_arm_on_the_table_for_the_own_vote_is_not_a_touch_but_a_reach_by_day_is():
    voting = [Track(6, "touch", 61.6, 62.8, 0.7, "7"), Track(6, "fist_on_table", 61.5, 63.9, 0.95, "thumb_up")]
    assert types(check(voting)) == []
    reach = [Track(6, "touch", 56.0, 57.2, 0.7, "7")]
    assert types(check(reach)) == [("touch_day", (6, 7))]


def test_a_hand_at_the_mask_is_a_foul_unless_awake_by_right_and_a_peek_says_it_once():
    # seat 7 (civilian) at the mask during the shooting; seat 2 (mafia) raises its shot hand past it
    tracks = [Track(7, "hand_at_mask", 27.0, 28.5, 0.8), Track(2, "hand_at_mask", 27.0, 28.5, 0.8)]
    assert types(check(tracks)) == [("mask_touch", (7,))]
    peek = [Track(5, "hand_at_mask", 30.0, 31.5, 0.8), Track(5, "mask_lifted", 30.2, 31.4, 0.8, frames=8)]
    assert types(check(peek)) == [("peek", (5,))]


def test_an_arm_over_a_vote_the_zone_window_sees_is_not_a_touch_but_a_small_zone_excuses_nothing():
    # the zone window sees a fist the hands did not read (zone_unread, no_hand): the seat is voting
    unread = [Track(4, "touch", 61.6, 62.2, 0.84, "5"), Track(4, "zone_unread", 61.6, 63.2, 0.5, "no_hand")]
    assert types(check(unread)) == []
    # ... or a hand read as a thumb-up once that its other readings did not bear out
    once = [Track(4, "touch", 61.6, 62.2, 0.84, "5"), Track(4, "zone_unread", 61.6, 63.2, 0.6, "readings_disagree")]
    assert types(check(once)) == []
    # a zone too small to read says nothing of a vote
    small = [Track(4, "touch", 56.0, 57.2, 0.84, "5"), Track(4, "zone_unread", 50.0, 70.0, 0.5, "small")]
    assert types(check(small)) == [("touch_day", (4, 5))]


def test_an_arm_coming_down_to_vote_is_not_a_touch():
    coming = [Track(2, "touch", 61.1, 61.5, 0.9, "3"), Track(2, "fist_on_table", 61.3, 63.5, 0.95, "thumb_up")]
    assert types(check(coming)) == []


def test_a_reach_read_as_a_raised_arm_with_a_touch_glimpsed_is_a_night_touch():
    # seat 6 (civilian) reaches to 7 at night after the checks: "raised" in most frames, "touch" in one
    reach = [Track(6, "arm_up", 47.0, 48.4, 0.8), Track(6, "touch", 47.6, 47.6, 0.7, "7", 1)]
    assert types(check(reach)) == [("touch_night", (6, 7))]
    # the same arm seen touching for long enough is one touch, not two
    both = [Track(6, "arm_up", 47.0, 48.4, 0.8), Track(6, "touch", 47.4, 48.0, 0.8, "7", 3)]
    assert types(check(both)) == [("touch_night", (6, 7))]
    # an arm up that touched nothing the window saw accuses nobody of touching
    assert "touch_night" not in [t for t, _ in types(check([Track(6, "arm_up", 47.0, 48.4, 0.8)]))]
    # during the shooting a red's reach to the neighbour is the touch, not a false shot
    shooting = [Track(6, "arm_up", 28.0, 29.4, 0.8), Track(6, "touch", 28.6, 28.6, 0.7, "5", 1)]
    assert types(check(shooting)) == [("touch_night", (5, 6))]
    # while a red's plain raised arm during the shooting still is one
    assert types(check([Track(6, "arm_up", 28.0, 29.4, 0.8)])) == [("false_shot", (6,))]
    # the mafia's own shot hand, with a touch glimpsed beside it, is awake by right
    assert types(check([Track(2, "arm_up", 28.0, 29.4, 0.8), Track(2, "touch", 28.6, 28.6, 0.7, "3", 1)])) == []


def test_a_shooters_arm_the_window_alone_reads_as_a_touch_is_her_raised_arm():
    # seat 2 (mafia) during the shooting: the body window reads her raised arm
    # as "touch", and no hand of hers reached a neighbour's zone (no seat named)
    assert types(check([Track(2, "touch", 28.0, 29.0, 0.9)])) == []
    # a touch her hand names stays a touch
    assert types(check([Track(2, "touch", 28.0, 29.0, 0.9, "3")])) == [("touch_night", (2, 3))]
    # a civilian's window-only touch during the shooting, and the mafia's after it, are touches
    assert types(check([Track(6, "touch", 28.0, 29.0, 0.9)])) == [("touch_night", (6,))]
    assert types(check([Track(2, "touch", 47.0, 48.0, 0.9)])) == [("touch_night", (2,))]


def test_a_shooters_arm_rising_before_the_shooting_is_placed_is_no_touch():
    # seat 2 (mafia) lifts her arm from the night pose 0.6 s before the shooting
    # (24.0 s): the window reads "touch" until 23.8 s, "arm up" from 24.0 s (fresh
    # seed 3815's proposal, seat 6): the arm on its way up to her raise by right
    rising = [Track(2, "touch", 23.2, 23.8, 0.77, frames=4), Track(2, "arm_up", 24.0, 30.0, 0.95, frames=30)]
    assert types(check(rising)) == []
    # a touch that ends well before the raise, or that a hand names, is a touch
    early = [Track(2, "touch", 23.0, 23.4, 0.77, frames=3), Track(2, "arm_up", 24.0, 30.0, 0.95, frames=30)]
    assert types(check(early)) == [("touch_night", (2,))]
    named = [Track(2, "touch", 23.2, 23.8, 0.77, "3", 4), Track(2, "arm_up", 24.0, 30.0, 0.95, frames=30)]
    assert types(check(named)) == [("touch_night", (2, 3))]
    # a civilian's arm rising is raised by no right: the touch stays
    civil = [Track(6, "touch", 23.2, 23.8, 0.77, frames=4), Track(6, "arm_up", 24.0, 30.0, 0.95, frames=30)]
    assert ("touch_night", (6,)) in types(check(civil))


def test_a_raised_arm_only_the_window_saw_beside_a_shooting_neighbour_is_not_a_false_shot():
    # seat 3 (sheriff) and seat 5 (civilian) sit beside seat 4 (mafia): seat 4's arms
    # move through their body windows (their heads lie in its box and its in theirs)
    near = {3: (2, 4), 4: (3, 5), 5: (4, 6)}
    shooter = Track(4, "arm_up", 27.0, 30.0, 0.9)
    civil = Track(5, "arm_up", 28.0, 29.4, 0.8)
    # the window alone read seat 5's arm up while the mafia beside it raised hers: not sure whose
    assert types(check([shooter, civil], neighbours=near)) == []
    # without the seats' geometry, or with the shooter's arm down by then, it is a false shot
    assert types(check([shooter, civil])) == [("false_shot", (5,))]
    assert types(check([Track(4, "arm_up", 24.0, 26.0, 0.9), civil], neighbours=near)) == [("false_shot", (5,))]
    # a neighbour who is no shooter raising her arm excuses nothing
    assert types(check([Track(6, "arm_up", 27.0, 30.0, 0.9), civil], neighbours=near)) == \
        [("false_shot", (5,)), ("false_shot", (6,))]
    # the seat's own raised hand, seen by the hands model, is its own whatever the neighbours do
    own = [shooter, civil, Track(5, "hand_raised", 28.2, 29.0, 0.9, "1")]
    assert types(check(own, neighbours=near)) == [("false_shot", (5,))]


def test_a_single_touch_frame_is_kept_as_a_weak_track():
    from vision.tracks import FrameState, build_tracks
    frames = [FrameState(10.0, 4, "touch", 0.7, "5")]
    tracks = build_tracks(frames, {4: [9.0, 10.0, 11.0]})
    assert [(t.state, t.t0, t.t1, t.frames, t.value) for t in tracks] == [("touch", 10.0, 10.0, 1, "5")]


def test_a_vote_flag_carries_the_frames_a_judge_steps_to():
    late = {**HONEST, 7: [Placement(7, 62.7, 64.0, timing="full_rate")]}
    inc = next(i for i in check([], late) if i.type.value == "late_vote")
    moments = {m["label"]: m["t"] for m in inc.details["key_moments"]}
    assert moments["thank you"] == 62.5 and moments["fist landed"] == 62.7 and moments["fist lifted"] == 64.0
    assert moments["call"] == 60.0 and "window opens" in moments
    assert inc.details["timing"] == {"place": "full_rate", "lift": "sampled"}

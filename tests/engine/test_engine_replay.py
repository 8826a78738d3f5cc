"""Replay: openers, fouls, removals, results, audits (rules-spec 1.2, 1.5, 1.6, 2.3)."""
from engine_builder import G, codes, errors, exits

from engine.profiles import get_profile
from engine.replay import apply
from engine.speaking import day_opener
from engine.state import initial_state
from engine.protocol import Nightfall
from engine.types import Role


def test_opener_rotation_variants():
    alive = [1, 2, 3, 4, 5, 6, 7, 8, 9]          # seat 10 gone
    assert day_opener(0, range(1, 11), "next", 1, None, None) == 1
    assert day_opener(1, alive, "next", 1, 1, 10) == 2
    # MC 2.5.8: opener 1 left, 2 would open and 9 (previous closer) would close again -> shift to 3
    alive2 = [2, 3, 4, 5, 6, 7, 8, 9]
    assert day_opener(1, alive2, "next", 1, 1, 9) == 2
    assert day_opener(1, alive2, "next_with_shift", 1, 1, 9) == 3
    # RU L28: whoever spoke second; if gone, the next seat
    assert day_opener(1, alive, "second_speaker", 1, 1, 10, (1, 2, 3)) == 2
    assert day_opener(1, [1, 3, 4], "second_speaker", 1, 1, 10, (1, 2, 3)) == 3


def test_wrong_opener_audit():
    good = G().n0().ev("speech", seat=1).ev("speech", seat=2).kill(10).ev("speech", seat=2)
    assert "wrong_opener" not in codes(good.replay())
    bad = G().n0().ev("speech", seat=1).kill(10).ev("speech", seat=3)
    rep = bad.replay()
    assert "wrong_opener" in codes(rep, "audit")
    assert rep.states[-1].openers[1] == 2


def test_fourth_foul_removes_and_cancels_next_vote():
    g = G().n0()
    for _ in range(4):
        g.ev("foul", seat=6)
    g.nom((1, 5), (3, 7)).votes(c5=6, c7=3)
    rep = g.replay()
    assert exits(rep)[0] == (6, 0, "warnings")
    assert "vote_despite_cancel" in codes(rep, "audit")
    clean = G().n0()
    for _ in range(4):
        clean.ev("foul", seat=6)
    clean.nom((1, 5), (3, 7)).ev("nightfall")
    rep = clean.replay()
    assert rep.day_outcomes[0].status == "cancelled" and rep.final.pending_vote_cancels == 0


def test_removal_during_unfixed_vote_voids_it_mc():
    g = G().n0().kill(10).nom((1, 5), (3, 7), (6, 9)).vote(5, announced=2).ev("removal", seat=1)
    rep = g.replay()
    assert exits(rep) == [(10, 1, "night"), (1, 1, "kickOut")]
    assert rep.day_outcomes[-1].status == "cancelled"


def test_removal_after_fixed_vote_cancels_next_vote():
    g = G().n0().kill(10).nom((1, 5), (3, 7)).vote(5, announced=6).ev("removal", seat=1).vote(7, announced=2)
    rep = g.replay()
    assert (5, 1, "day") in exits(rep) and rep.final.pending_vote_cancels == 1


def test_ru_removal_cancels_no_vote():
    g = G(profile="ru-club").n0().ev("removal", seat=6).nom((1, 5), (3, 7)).votes(c5=6, c7=3)
    rep = g.replay()
    assert (5, 0, "day") in exits(rep) and "vote_despite_cancel" not in codes(rep)


def test_third_foul_mutes_next_speech_and_audit():
    g = G().n0().ev("speech", seat=1).ev("speech", seat=2)
    for _ in range(3):
        g.ev("foul", seat=2)
    g.kill(10).ev("speech", seat=2)
    rep = g.replay()
    assert "muted_speech" in codes(rep, "audit")
    ok = G().n0().ev("speech", seat=1).ev("speech", seat=2)
    for _ in range(3):
        ok.ev("foul", seat=2)
    ok.kill(10).ev("speech", seat=3)       # seat 2 lost the opener's speech: seat 3 starts
    rep = ok.replay()
    assert "muted_speech" not in codes(rep) and "wrong_opener" not in codes(rep)
    assert rep.final.seat(2).muted  # the lost speech is still owed until day 1 closes
    no_rule = G(overrides={"third_foul": "no"}); no_rule.events = list(g.events)
    assert "muted_speech" not in codes(no_rule.replay())


def test_technical_fouls_remove_on_second():
    g = G().n0().ev("foul", seat=3, kind="technical").ev("foul", seat=3, kind="technical")
    assert exits(g.replay()) == [(3, 0, "techFouls")]
    cc = G(profile="classic-club"); cc.events = list(g.events)
    assert "tech_foul_not_in_profile" in codes(cc.replay(), "audit")


def test_black_ge_red_wins_and_result_fixed():
    g = G().n0().kill(10).nom((1, 5)).ev("nightfall").ev("morning")   # 5 out by auto
    g.ev("nightfall").ev("shot", by=2, target=6).ev("shot", by=4, target=6).ev("shot", by=8, target=6).ev("morning")
    g.nom((1, 7)).ev("nightfall")                                     # 7 out: 1,2,3,4,8,9 -> 3 v 3
    rep = g.replay()
    assert rep.result == "maf"
    fixed_at = rep.final.result_event
    g.ev("removal", seat=2).ev("result", winner="maf")
    rep2 = g.replay()
    assert rep2.result == "maf" and rep2.final.result_event == fixed_at
    assert "result_mismatch" not in codes(rep2)


def test_team_kick_out_and_give_up():
    rep = G().n0().ev("removal", seat=2, team=True).replay()
    assert exits(rep) == [(2, 0, "teamKickOut")] and rep.result == "civ"
    rep = G().n0().ev("give_up", seat=5).replay()
    assert exits(rep) == [(5, 0, "giveUp")] and rep.result is None


def test_mc_draw_after_three_quiet_nights_and_days():
    g = G().n0()
    for _ in range(3):
        g.ev("nightfall").ev("morning")
    assert g.replay().result is None
    g.ev("nightfall")              # the third day ends with nobody leaving
    assert g.replay().result == "tie"
    sm = G(profile="sport-mafia").n0()
    for _ in range(3):
        sm.ev("nightfall").ev("morning")
    assert sm.replay().result == "tie"   # SM 1.13: declared after the 3rd night
    cc = G(profile="classic-club"); cc.events = list(g.events)
    assert cc.replay().result is None


def test_premature_result_and_mismatch_audits():
    rep = G().n0().ev("result", winner="civ").replay()
    assert "premature_result" in codes(rep, "audit")
    g = G().n0()
    for s in (2, 4, 8):
        g.ev("removal", seat=s)
    rep = g.ev("result", winner="maf").replay()
    assert rep.result == "civ" and "result_mismatch" in codes(rep, "audit")


def test_otv_and_concede():
    assert G(profile="sport-mafia").n0().ev("otv", team="maf").replay().result == "maf"
    rep = G().n0().ev("otv", team="maf").replay()
    assert "otv_not_in_profile" in codes(rep, "audit")
    assert G().n0().ev("concede", team="maf").replay().result == "civ"


def test_wrong_role_counts_and_duplicate_seats_are_errors():
    rep = G(roles={1: "don", 2: "don", 3: "sheriff"}).n0().replay()
    assert "roles" in errors(rep)


def test_checks_by_absent_or_twice_and_wrong_answer():
    g = G().n0().ev("removal", seat=3).ev("nightfall").ev("sheriff_check", target=2).ev("morning")
    assert "check_by_absent" in errors(g.replay())
    g = G().n0().ev("nightfall").ev("don_check", target=3, answer=False).ev("don_check", target=5).ev("morning")
    rep = g.replay()
    assert "check_answer_wrong" in codes(rep, "audit") and "double_check" in errors(rep)
    # the Sheriff shot this night still checks (checks come before "Morning")
    g = G().n0().night((2, 3), (4, 3), (8, 3))
    g.events.insert(-1, {"type": "sheriff_check", "target": 2, "answer": True})
    assert not errors(g.replay())


def test_speech_and_nomination_by_absent_player_are_errors():
    rep = G().n0().kill(10).ev("speech", seat=10).ev("speech", seat=1).nom((10, 5)).replay()
    assert "speech_by_absent" in errors(rep) and "nomination_by_absent" in errors(rep)


def test_the_player_killed_tonight_nominates_in_the_last_word():
    """Before the day's first speech the night's victim may still nominate (MC, CC, SM)."""
    rep = G().n0().kill(10).nom((10, 5)).replay()
    assert not errors(rep) and 5 in rep.final.candidate_targets()
    rep = G().n0().kill(10).ev("nightfall").ev("morning").nom((10, 5)).replay()
    assert "nomination_by_absent" in errors(rep)  # a later day: no last word any more


def test_candidate_list_and_withdrawal_audits():
    g = G().n0().nom((1, 5), (3, 7)).ev("vote_announce", candidates=[7, 5])
    assert "candidate_list" in codes(g.replay(), "audit")
    g = G().n0().nom((1, 5)).ev("withdraw", by=3, target=5)
    assert "withdraw_not_own" in codes(g.replay(), "audit")
    g = G().n0().nom((1, 5)).ev("withdraw", by=1, target=5)
    assert g.replay().final.candidates == ()
    g = G().n0().nom((1, 5), (1, 6))   # MC: a new nomination replaces the old
    assert g.replay().final.candidate_targets() == (6,)
    sm = G(profile="sport-mafia"); sm.events = list(g.events)
    assert "second_nomination" in codes(sm.replay(), "audit")


def test_vote_sum_and_announced_mismatch_audits():
    g = G().n0().kill(10).nom((1, 5), (3, 7)).vote(5, announced=3, voters=[1, 2]).vote(7, announced=5)
    rep = g.replay()
    assert "vote_sum" in codes(rep, "audit") and "announced_mismatch" in codes(rep, "audit")
    good = G().n0().kill(10).nom((1, 5), (3, 7)).vote(5, announced=2, voters=[1, 2]).vote(7, announced=7)
    assert not codes(good.replay(), "audit")


def test_outcome_differs_audit_elimination_without_majority():
    # announced 5 v 4 eliminates 5, but the recorded voters give 4 v 5
    g = G().n0().kill(10).nom((1, 5), (3, 7))
    g.vote(5, announced=5, voters=[1, 2, 3, 4]).vote(7, announced=4, voters=[6])
    rep = g.replay()
    assert "outcome_differs" in codes(rep, "audit")


def test_raise_recorded_passed_without_majority():
    g = G().n0().night().nom((1, 5), (3, 7)).votes(c5=5, c7=5).votes(c5=5, c7=5)
    g.ev("raise_vote", announced=5, passed=True)
    assert "raise_not_passed" in codes(g.replay(), "audit")


def test_apply_is_pure():
    s0 = initial_state({n: Role.CIV for n in range(1, 11)})
    s1, issues = apply(s0, Nightfall(), get_profile(), 0)
    assert s0.round == -1 and s1.round == 0 and issues == []


def test_taken_from_record_note():
    g = G().n0().night().nom((1, 5), (3, 7)).votes(c5=5, c7=5).votes(c5=5, c7=5)
    g.ev("raise_vote", passed=True, taken_from_record=True)
    rep = g.replay()
    assert "taken_from_record" in codes(rep, "note") and {5, 7} <= {e[0] for e in exits(rep)}


def test_removal_during_pending_raise_voids_the_vote():
    g = G().n0().night().nom((1, 5), (3, 7)).votes(c5=5, c7=5).votes(c5=5, c7=5).ev("removal", seat=9)
    rep = g.replay()
    assert rep.day_outcomes[-1].status == "cancelled" and exits(rep) == [(9, 1, "kickOut")]
    assert rep.final.pending_vote_cancels == 0


def test_result_event_closes_the_day_once():
    # MC: a later single candidate leaves at the end of the day, which decides the game
    g = G().n0().nom((1, 2), (3, 4)).votes(c2=6, c4=4)           # D0: 2 out
    g.kill(10, shooters=(4, 8)).nom((1, 4), (3, 8)).votes(c4=5, c8=3)  # D1: 4 out
    g.kill(9, shooters=(8,)).nom((1, 8)).ev("result", winner="civ").ev("nightfall")
    rep = g.replay()
    assert rep.result == "civ" and (8, 2, "day") in exits(rep)
    assert [o.status for o in rep.day_outcomes].count("auto_eliminated") == 1


def test_sm_removal_replaces_the_vote():
    g = G(profile="sport-mafia").n0().kill(10).ev("removal", seat=6).nom((1, 5), (3, 7)).ev("nightfall")
    rep = g.replay()
    assert rep.day_outcomes[-1].status == "cancelled"
    assert (5, 1, "day") not in exits(rep) and (7, 1, "day") not in exits(rep)


def test_eligible_voters_exclude_removed_and_dead():
    g = G().n0().kill(10).ev("removal", seat=6).ev("nightfall").ev("morning")   # day 1 vote cancelled
    g.nom((1, 5), (3, 7)).vote(5, voters=[1, 2]).vote(7, voters=[3])
    rep = g.replay()
    call = rep.vote_calls[-1]
    assert 6 not in call.eligible and 10 not in call.eligible and len(call.eligible) == 8
    assert call.count == 1 + 5   # 3 plus the five who did not vote (4, 5, 7, 8, 9)


def test_foul_during_the_last_word_is_recorded_not_an_error():
    from engine_builder import G, codes, errors
    g = G().n0()
    g.ev("nominate", by=1, target=5).votes(c5=10)           # day 1: seat 5 voted out (round 0)
    g.ev("nightfall").ev("shot", by=2, target=7).ev("shot", by=4, target=7).ev("shot", by=8, target=7)
    g.ev("morning").ev("speech", seat=7, kind="last_word").ev("foul", seat=7)
    rep = g.replay()
    assert errors(rep) == [] and "foul_after_exit" in codes(rep, "note")
    g2 = G().n0().ev("nominate", by=1, target=5).votes(c5=10).ev("nightfall").ev("foul", seat=5)
    assert "foul_on_absent" in errors(g2.replay())  # a player gone the day before cannot be fouled

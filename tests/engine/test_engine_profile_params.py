"""One test per replay-used profile option not covered elsewhere: flip it, see the replay change."""
from engine_builder import G, codes, exits


def test_first_day_opener():
    g = G(overrides={"first_day_opener": 3}).n0().ev("speech", seat=3)
    assert "wrong_opener" not in codes(g.replay())
    g = G().n0().ev("speech", seat=3)
    assert "wrong_opener" in codes(g.replay())


def test_nominations_several_last_counts_ru():
    g = G(profile="ru-club").n0().nom((1, 5), (1, 6))
    rep = g.replay()
    assert rep.final.candidate_targets() == (6,) and "second_nomination" not in codes(rep)


def test_self_nomination_forbidden_in_sm():
    assert "self_nomination" in codes(G(profile="sport-mafia").n0().nom((1, 1)).replay(), "audit")
    assert "self_nomination" not in codes(G().n0().nom((1, 1)).replay())


def test_withdrawal_no():
    g = G(overrides={"withdrawal": "no"}).n0().nom((1, 5)).ev("withdraw", by=1, target=5)
    assert "withdrawal_not_allowed" in codes(g.replay(), "audit")


def test_split_order_reverse_changes_the_revote_order():
    g = G(overrides={"split_order": "reverse"}).n0().night().nom((1, 5), (3, 7)).votes(c5=5, c7=5)
    assert g.replay().final.vote.candidates == (7, 5)
    g.votes(c5=5, c7=5)                     # same order as pass 0: out of order now
    assert "vote_order" in codes(g.replay(), "audit")


def test_default_votes_none():
    g = G(overrides={"default_votes": "none"}).n0().kill(10).nom((1, 5), (3, 7))
    rep = g.vote(5, voters=[1, 2, 3]).vote(7, voters=[4]).replay()
    assert rep.vote_calls[-1].count == 1 and (5, 1, "day") in exits(rep)


def test_first_day_voting_variants():
    base = lambda fdv, voters5: G(overrides={"first_day_voting": fdv}).n0().nom((1, 5), (3, 7)) \
        .vote(5, voters=voters5).vote(7, voters=[1]).replay()
    assert exits(base("standard", [2, 3, 4, 6, 8, 9])) == [(5, 0, "day")]
    assert exits(base("to-talk", [2, 3, 4, 6, 8, 9])) == []
    assert exits(base("self-break", [2, 3, 4, 6, 8, 9])) == []          # 5 did not vote for themselves
    assert exits(base("self-break", [2, 3, 4, 5, 6, 8])) == [(5, 0, "day")]


def test_miss_if_missing_shot_off():
    g = G(overrides={"miss_if_missing_shot": False}).n0().night((2, 7), (4, 7))
    assert exits(g.replay()) == [(7, 1, "night")]


def test_miss_if_targets_differ_off_uses_the_common_target_only_when_single():
    g = G(overrides={"miss_if_targets_differ": False}).n0().night((2, 7), (4, 6), (8, 7))
    assert exits(g.replay()) == []


def test_double_shot_foul_note_ru():
    g = G(profile="ru-club").n0().night((2, 7), (2, 7), (4, 7), (8, 7))
    rep = g.replay()
    assert "double_shot" in codes(rep, "note") and exits(rep) == []


def test_check_seconds_overtime():
    g = G().n0().ev("nightfall").ev("sheriff_check", target=2, t=10.0, t_end=40.0).ev("morning")
    assert "check_overtime" in codes(g.replay(), "audit")
    g = G(profile="classic-club").n0().ev("nightfall").ev("sheriff_check", target=2, t=10.0, t_end=40.0)
    assert "check_overtime" not in codes(g.replay())


def test_first_killed_condition_and_right_none():
    g = G(profile="ru-club").n0().kill(10).ev("guess", seat=10, targets=[2, 4, 8])
    assert "guess_not_allowed" in codes(g.replay(), "audit")
    g = G(overrides={"first_killed_condition": "nine_others"}).n0().kill(10).ev("guess", seat=10, targets=[2, 4, 8])
    assert g.replay().final.guess == (2, 4, 8)


def test_fouls_to_remove_and_tech_fouls_to_remove():
    g = G(overrides={"fouls_to_remove": 3}).n0()
    for _ in range(3):
        g.ev("foul", seat=6)
    assert exits(g.replay()) == [(6, 0, "warnings")]
    g = G(overrides={"tech_fouls_to_remove": 3}).n0()
    for _ in range(2):
        g.ev("foul", seat=6, kind="technical")
    assert exits(g.replay()) == []


def _three_alive_with_muted_seat(profile: str, overrides=None):
    """Day with 4 at the table (1, 5, 6, 8: 3 red, 1 black), seat 5 on three fouls."""
    g = G(profile=profile, overrides=overrides).n0()
    for s in (2, 3, 4, 7, 9, 10):
        g.ev("removal", seat=s)
    g.ev("nightfall").ev("morning").ev("nightfall")
    for _ in range(3):
        g.ev("foul", seat=5)       # at night: the lost speech is the coming day's
    return g.ev("morning")


def test_third_foul_exception_last_day_short_speech():
    g = _three_alive_with_muted_seat("mafclub-2023")
    ok = G(); ok.events = list(g.events); ok.game = g.game
    ok.ev("speech", seat=5, t=0.0, t_end=25.0)
    assert ok.replay().state_before(len(ok.events) - 1).seat(5).muted
    assert "muted_speech" not in codes(ok.replay()) and "muted_speech_long" not in codes(ok.replay())
    g.ev("speech", seat=5, t=0.0, t_end=55.0)
    assert "muted_speech_long" in codes(g.replay(), "audit")
    # with 7 at the table the exception does not apply: the speech itself is the error
    six = G().n0()
    for s in (2, 3, 10):
        six.ev("removal", seat=s)
    six.ev("nightfall").ev("morning").ev("nightfall")
    for _ in range(3):
        six.ev("foul", seat=5)
    six.ev("morning").ev("speech", seat=5, t=0.0, t_end=25.0)
    assert "muted_speech" in codes(six.replay(), "audit")


def test_third_foul_short_speech_option():
    g = G(overrides={"third_foul": "short-speech"}).n0().ev("speech", seat=1)
    for _ in range(3):
        g.ev("foul", seat=2)
    g.ev("speech", seat=2, t=0.0, t_end=29.0)
    rep = g.replay()
    assert "muted_speech" not in codes(rep)


def test_removal_last_word():
    g = G().n0().ev("removal", seat=5).ev("speech", seat=5, kind="last_word")
    assert "last_word_after_removal" in codes(g.replay(), "audit")
    g = G(overrides={"removal_last_word": True}).n0().ev("removal", seat=5).ev("speech", seat=5, kind="last_word")
    assert "last_word_after_removal" not in codes(g.replay())


def test_scoring_penalties_and_bonuses():
    g = G().n0().ev("removal", seat=5).ev("card", seat=6, color="yellow")
    g.ev("bonus", seat=1, points=1.5, reason="best_play")
    for s in (2, 4, 8):
        g.ev("removal", seat=s)
    rep = g.replay()
    assert rep.result == "civ"
    assert rep.points[5] == 4.0 - 1.5 and rep.points[6] == 4.0 - 2.0
    assert rep.points[1] == 5.5 and rep.points[2] == 1.0 - 1.5
    cc = G(profile="classic-club"); cc.events = list(g.events)
    assert cc.replay().points[5] == 4.0 - 1.0


def test_all_leave_result_option():
    # MC 3 at the table tied twice, raise passes: draw (kill_all=draw); kill_all=allowed -> all_leave_result
    g = G(roles={1: "don", 2: "maf", 3: "maf", 4: "sheriff"}, overrides={"kill_all": "allowed"})
    g.n0().nom((5, 2), (6, 3)).votes(c2=5, c3=5).votes(c2=6, c3=4)
    for s in (3, 7, 8, 9, 10, 6):
        g.ev("removal", seat=s)
    g.ev("nightfall").ev("morning")
    g.nom((1, 4), (4, 5), (5, 1)).votes(c4=1, c5=1, c1=1).votes(c4=1, c5=1, c1=1).ev("raise_vote", announced=2)
    assert g.replay().result == "tie"          # MC all_leave_result
    g.game["overrides"]["all_leave_result"] = "maf"
    assert g.replay().result == "maf"

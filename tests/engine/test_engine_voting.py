"""Every branch of the voting rules, on crafted protocols (rules-spec 1.3, 2.2, 4.1)."""
from engine_builder import G, codes, errors, exits

from engine.profiles import get_profile
from engine.voting import raise_allowed, raise_passes, revote_order, after_tie


def day1(g: G) -> G:
    """N0, D0 without nominations, N1 kill of seat 10: day 1 with 9 players."""
    return g.n0().kill(10)


def test_unique_max_eliminates():
    rep = day1(G()).nom((1, 5), (3, 7)).votes(c5=3, c7=6).replay()
    assert exits(rep) == [(10, 1, "night"), (7, 1, "day")]
    assert rep.day_outcomes[-1].status == "eliminated"
    assert not errors(rep)


def test_default_votes_go_to_last_candidate():
    # 9 in game; voters recorded: 3 for 5, 2 for 7 -> 4 defaults on 7 => 7 leaves with 6
    g = day1(G()).nom((1, 5), (3, 7)).vote(5, voters=[1, 2, 3]).vote(7, voters=[4, 6])
    rep = g.replay()
    call = rep.vote_calls[-1]
    assert call.defaults == (5, 7, 8, 9) and call.count == 6
    assert (7, 1, "day") in exits(rep)


def test_tie_then_revote_unique():
    g = day1(G()).nom((1, 5), (3, 7), (6, 9)).votes(c5=4, c7=4, c9=1)
    g.ev("speech", seat=5, kind="tie").ev("speech", seat=7, kind="tie").votes(c5=3, c7=6)
    rep = g.replay()
    passes = [(c.pass_index, c.candidate) for c in rep.vote_calls]
    assert passes == [(0, 5), (0, 7), (0, 9), (1, 5), (1, 7)]
    assert (7, 1, "day") in exits(rep)
    assert not errors(rep)


def test_same_tie_twice_raise_passes_and_fails():
    base = day1(G()).nom((1, 5), (3, 7)).votes(c5=4, c7=5)
    g = G().n0().night().nom((1, 5), (3, 7)).votes(c5=5, c7=5).votes(c5=5, c7=5)
    passed = G(); passed.events = list(g.events); passed.ev("raise_vote", announced=6)
    failed = G(); failed.events = list(g.events); failed.ev("raise_vote", announced=5)
    rp, rf = passed.replay(), failed.replay()
    assert sorted(e[0] for e in exits(rp)) == [5, 7] and all(e[2] == "day" for e in exits(rp))
    assert exits(rf) == [] and rf.day_outcomes[-1].status == "raise_failed"  # even split: they stay
    assert base.replay().day_outcomes[-1].status == "eliminated"


def test_fewer_tied_revote_again_mc_but_raise_cc():
    # 10 alive (N1 miss): pass 0 ties 3-3-3 (+1 on 9), revote ties two of them
    g = G().n0().night().nom((1, 5), (3, 7), (6, 9)).votes(c5=4, c7=4, c9=2).votes(c5=5, c7=5)
    rep = g.replay()
    # pass 1 tied the same two as pass 0 -> raise stage
    assert rep.final.vote.stage.value == "raise"
    g2 = G().n0().night().nom((1, 5), (3, 7), (6, 9)).votes(c5=3, c7=3, c9=3)
    # revote among three ties two of them: MC revotes again among the two
    g2.votes(c5=4, c7=4, c9=2)
    assert g2.replay().final.vote.candidates == (5, 7)
    g3 = G(profile="classic-club"); g3.events = list(g2.events)
    g3.game = {"profile": "classic-club"}
    assert g3.replay().final.vote.stage.value == "raise"


def test_after_tie_and_revote_order_units():
    mc, cc = get_profile(), get_profile("classic-club")
    assert after_tie(0, (1, 2), (1, 2, 3), mc) == "revote"
    assert after_tie(1, (1, 2), (1, 2), mc) == "raise"
    assert after_tie(1, (1, 2), (1, 2, 3), mc) == "revote"
    assert after_tie(1, (1, 2), (1, 2, 3), cc) == "raise"
    assert revote_order((3, 5, 9), get_profile(overrides={"split_order": "reverse"})) == (9, 5, 3)
    assert revote_order((3, 5, 9), mc) == (3, 5, 9)


def test_raise_threshold_more_than_half():
    assert raise_passes(6, 10) and not raise_passes(5, 10) and raise_passes(5, 9)


def test_first_day_single_candidate_no_vote():
    rep = G().n0().nom((1, 5)).ev("nightfall").replay()
    assert exits(rep) == [] and rep.day_outcomes[0].status == "first_day_single"


def test_later_single_candidate_auto_mc_and_vote_sm():
    g = day1(G()).nom((1, 5)).ev("nightfall")
    assert (5, 1, "day") in exits(g.replay())
    sm = G(profile="sport-mafia"); sm.events = list(g.events)
    rep = sm.replay()
    assert (5, 1, "day") in exits(rep) and "vote_missing" in codes(rep, "note")


def test_first_day_voting_no_break_keeps_winner():
    g = G(overrides={"first_day_voting": "no-break"}).n0().nom((1, 5), (3, 7)).votes(c5=3, c7=7)
    rep = g.replay()
    assert exits(rep) == [] and rep.day_outcomes[0].status == "stays"


def test_vote_by_dead_player_is_error():
    g = day1(G()).nom((1, 5), (3, 7))
    at = len(g.events)
    rep = g.vote(5, voters=[10, 1]).vote(7, voters=[2]).replay()
    assert "vote_by_absent" in errors(rep)
    assert any(i.event == at and "seat 10" in i.message for i in rep.issues)


def test_vote_on_non_candidate_is_error():
    rep = day1(G()).nom((1, 5)).vote(6, announced=9).replay()
    assert "not_a_candidate" in errors(rep)


def test_raise_limits_mafiaratings_options():
    mc = get_profile()
    assert raise_allowed(mc, 4, 4, 5)[0]  # MC: everyone may leave with 3-4 alive
    assert not raise_allowed(get_profile(overrides={"kill_all": "no"}), 4, 4, 5)[0]
    assert not raise_allowed(get_profile(overrides={"split_on_four": "prohibited"}), 2, 4, 5)[0]
    assert raise_allowed(mc, 2, 4, 5)[0]
    nine_after1 = get_profile(overrides={"split_on_nine": "after1"})
    assert not raise_allowed(nine_after1, 3, 9, 1)[0] and raise_allowed(nine_after1, 3, 9, 2)[0]
    assert not raise_allowed(get_profile(overrides={"split_on_nine": "no"}), 3, 9, 4)[0]


def test_raise_limits_sm7_table():
    sm = get_profile("sport-mafia")
    allowed = lambda tied, alive, r: raise_allowed(sm, tied, alive, r)[0]
    assert allowed(2, 10, 0) and not allowed(3, 10, 0)            # D1 at most 2 (7.2)
    assert not allowed(5, 10, 0) and allowed(5, 10, 1)            # 10 alive: up to 5 after N1
    assert not allowed(3, 9, 1) and allowed(3, 9, 2)              # 9 alive: 3 only after N2 (7.3, 7.5)
    assert allowed(4, 8, 2) and not allowed(3, 8, 2)              # 8 alive: 2 or 4
    assert allowed(3, 6, 3) and not allowed(4, 6, 3)              # 6 alive: 2 or 3
    assert allowed(2, 4, 4) and not allowed(3, 4, 4)              # 4 alive: 2
    assert allowed(3, 7, 3) and not allowed(4, 7, 3)              # fallback: at most half (7.1)


def test_forbidden_raise_is_refused_and_audited():
    # kill_all=no: all three remaining players tied twice -> no raise vote; holding one is audited
    g = G(roles={1: "don", 2: "maf", 3: "maf", 4: "sheriff"}, overrides={"kill_all": "no"})
    g.n0().nom((5, 2), (6, 3)).votes(c2=5, c3=5).votes(c2=6, c3=4)   # D0: seat 2 out by revote
    for s in (6, 7, 8, 9, 10):
        g.ev("removal", seat=s)                                       # 1, 3, 4, 5 left: 2 red 2 black
    rep = g.replay()
    assert rep.result == "maf"
    g = G(roles={1: "don", 2: "maf", 3: "maf", 4: "sheriff"}, overrides={"kill_all": "no"})
    g.n0().nom((5, 2), (6, 3)).votes(c2=5, c3=5).votes(c2=6, c3=4)
    for s in (3,):
        g.ev("removal", seat=s)
    for s in (7, 8, 9, 10, 6):
        g.ev("removal", seat=s)                                       # 1 (don), 4, 5 left
    g.ev("nightfall").ev("morning")                                   # night 1: nobody shot
    g.nom((1, 4), (4, 5), (5, 1)).votes(c4=1, c5=1, c1=1).votes(c4=1, c5=1, c1=1)
    before = g.replay()
    assert before.day_outcomes[-1].status == "raise_forbidden" and before.result is None
    rep = g.ev("raise_vote", announced=3).replay()
    assert "raise_forbidden" in codes(rep, "audit")


def test_kill_all_draw_mc():
    # everyone at the table (3 players) tied twice; the raise passes: MC 2.7.2.2 draw
    g = G(roles={1: "don", 2: "maf", 3: "maf", 4: "sheriff"})
    g.n0().nom((5, 2), (6, 3)).votes(c2=5, c3=5).votes(c2=6, c3=4)
    for s in (3, 7, 8, 9, 10, 6):
        g.ev("removal", seat=s)
    g.ev("nightfall").ev("morning")
    g.nom((1, 4), (4, 5), (5, 1)).votes(c4=1, c5=1, c1=1).votes(c4=1, c5=1, c1=1)
    g.ev("raise_vote", announced=2)
    rep = g.replay()
    assert rep.result == "tie"
    assert {1, 4, 5} <= {e[0] for e in exits(rep)}
    ru = G(roles=g.seats and {1: "don", 2: "maf", 3: "maf", 4: "sheriff"}, profile="ru-club")
    ru.events = list(g.events)
    assert ru.replay().result == "maf"  # RU L30: 0 = 0 is a black win


def test_outcome_fixed_early_is_recorded_per_call():
    # 9 voters: 5 on the first candidate leaves 4 to share -> fixed after the first call
    rep = day1(G()).nom((1, 5), (3, 7), (6, 9)).votes(c5=5, c7=2, c9=2).replay()
    assert [c.fixed for c in rep.vote_calls] == [True, True, True]
    rep = day1(G()).nom((1, 5), (3, 7), (6, 9)).votes(c5=3, c7=4, c9=2).replay()
    assert [c.fixed for c in rep.vote_calls] == [False, True, True]


def test_vote_window_semantics_per_profile():
    from engine.voting import vote_window

    def placement_counts(profile, t, t_call=None, t_call_end=None, t_call2=None, t_thanks=None):
        return vote_window(profile, t_call, t_call_end, t_call2, t_thanks).contains(t)

    mc, ru, sm = get_profile(), get_profile("ru-club"), get_profile("sport-mafia")
    times = dict(t_call=10.0, t_call_end=11.0, t_call2=12.0, t_thanks=13.0)
    assert placement_counts(mc, 11.0, **times) and not placement_counts(mc, 10.5, **times)
    assert not placement_counts(mc, 13.0, **times)          # on "Thank you": void (MC 2.4.7)
    assert placement_counts(ru, 10.5, **times) and not placement_counts(ru, 13.0, **times)
    assert placement_counts(sm, 13.4, **times)              # on "Thank you" counts (SM 6.6)
    assert not placement_counts(sm, 13.6, **times) and placement_counts(sm, 13.6, **dict(times, t_call2=12.5))
    assert placement_counts(mc, 12.0, t_call=10.0) is None  # no "Thank you" time: undecidable

"""Every branch of the shooting rules (rules-spec 1.4, invariant 2.3.7)."""
from engine_builder import G, codes, errors, exits

from engine.profiles import get_profile
from engine.shooting import resolve_shots

MC, CC, SM = get_profile(), get_profile("classic-club"), get_profile("sport-mafia")
ALIVE = range(1, 11)


def test_kill_when_all_shoot_the_same_living_seat():
    assert resolve_shots([(2, 7), (4, 7), (8, 7)], [2, 4, 8], ALIVE, MC).kill == 7


def test_miss_when_targets_differ():
    out = resolve_shots([(2, 7), (4, 6), (8, 7)], [2, 4, 8], ALIVE, MC)
    assert out.kill is None and "different" in out.reason


def test_miss_when_someone_does_not_shoot():
    assert resolve_shots([(2, 7), (4, 7)], [2, 4, 8], ALIVE, MC).kill is None
    assert resolve_shots([(2, 7), (4, 7)], [2, 4, 8], ALIVE, SM).kill is None
    # a lone mafioso who does not shoot misses (CC ¶Night)
    assert resolve_shots([], [8], ALIVE, CC).kill is None


def test_double_shot_mc_miss_sm_first_counts():
    shots = [(2, 7), (2, 7), (4, 7), (8, 7)]
    assert resolve_shots(shots, [2, 4, 8], ALIVE, MC).kill is None
    assert resolve_shots(shots, [2, 4, 8], ALIVE, SM).kill == 7


def test_shot_at_a_seat_out_of_the_game_misses():
    assert resolve_shots([(2, 7), (4, 7)], [2, 4], [1, 2, 3, 4], MC).kill is None


def test_night_kill_exit_and_round():
    rep = G().n0().kill(10).kill(9).replay()
    assert exits(rep) == [(10, 1, "night"), (9, 2, "night")]


def test_shot_by_non_mafia_and_by_absent_mafioso_are_errors():
    rep = G().n0().night((1, 5), (2, 5), (4, 5), (8, 5)).replay()
    assert "shot_by_non_mafia" in errors(rep)
    assert (5, 1, "night") in exits(rep)  # the invalid shot is ignored
    g = G().n0().nom((1, 2)).ev("nightfall").ev("morning")  # D0 single candidate stays
    g.nom((1, 2), (3, 5)).votes(c2=6, c5=3).night((2, 5), (4, 5), (8, 5))
    rep = g.replay()
    assert "shot_by_absent" in errors(rep)
    assert (5, 2, "night") in exits(rep)  # 4 and 8 are the living mafia


def test_shot_on_n0_is_error():
    rep = G().ev("nightfall").ev("shot", by=2, target=5).ev("morning").replay()
    assert "shot_at_n0" in errors(rep)


def test_ru_three_misses_extra_red_win():
    g = G(profile="ru-club").n0()
    for _ in range(3):
        g.ev("nightfall").ev("morning")
    # D0..D2 had no votes: 3 misses in a row and nobody voted out in 2 days
    assert g.replay().result == "civ"
    assert G(profile="mafclub-2023").n0().night().night().night().replay().result is None


def test_first_killed_prima_nota_right_and_points():
    g = G().n0().kill(10).ev("guess", seat=10, targets=[2, 4, 5])
    rep = g.replay()
    assert rep.final.first_killed == 10 and rep.final.first_killed_right
    # play on to a civ win: vote out 2, 4, 8
    g.nom((1, 2)).ev("nightfall").ev("morning")            # 2 out (single candidate, MC auto)
    g.nom((1, 4)).ev("nightfall").ev("morning").nom((1, 8)).ev("nightfall")
    rep = g.replay()
    assert rep.result == "civ"
    assert rep.points[10] == 4.0 + 0.5        # two blacks named (MC 3.x Prima Nota)
    assert rep.points[2] == 1.0


def test_no_prima_nota_after_a_first_day_exit():
    g = G().n0().nom((1, 5), (3, 6)).votes(c5=6, c6=4).kill(10).ev("guess", seat=10, targets=[2, 4, 8])
    rep = g.replay()
    assert not rep.final.first_killed_right and "guess_not_allowed" in codes(rep, "audit")
    sm = G(profile="sport-mafia"); sm.events = list(g.events)
    assert sm.replay().final.first_killed_right  # SM loses it only with 2 or more gone

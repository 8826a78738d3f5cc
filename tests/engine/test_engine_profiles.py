"""Rule profiles as data: loading, overrides, the mafiaratings rules code."""
import json

import pytest

from engine.profiles import (OPTION_NAMES, PROFILE_DIR, PROFILE_NAMES, ProfileError, get_profile,
                             mafiaratings_overrides, profile_from_mafiaratings_code)


@pytest.mark.parametrize("name", PROFILE_NAMES)
def test_every_profile_file_has_every_option(name):
    doc = json.loads((PROFILE_DIR / f"{name}.json").read_text())
    assert set(doc["options"]) == set(OPTION_NAMES)
    p = get_profile(name)
    assert p.name == name and p.to_dict()["options"] == doc["options"]


def test_profiles_differ_where_the_rulebooks_differ():
    mc, cc, sm, ru = (get_profile(n) for n in PROFILE_NAMES)
    assert get_profile().name == "mafclub-2023"
    assert (mc.opener_rotation, cc.opener_rotation, ru.opener_rotation) == ("next_with_shift", "next", "second_speaker")
    assert mc.later_single_candidate == "auto_eliminate" and sm.later_single_candidate == "vote"
    assert sm.raise_limits == "sm7" and mc.raise_limits == "none"
    assert (mc.first_killed_right, cc.first_killed_right, sm.first_killed_right, ru.first_killed_right) == \
        ("prima_nota", "points_only", "best_move", "none")
    assert (mc.draw_quiet_phases, sm.draw_quiet_phases, cc.draw_quiet_phases) == (6, 5, None)
    assert (mc.removal_vote_effect, sm.removal_vote_effect, ru.removal_vote_effect) == ("mc", "sm", "ru")
    assert ru.red_extra_win == "ru_three_misses" and ru.all_leave_result == "maf" and mc.all_leave_result == "tie"
    assert sm.otv and not mc.otv
    assert mc.scoring["win"] == 4.0 and sm.scoring is None
    assert mc.clause("opener_rotation") == "MC 2.5.8" and sm.clause("raise_limits").startswith("SM 7")


def test_overrides_and_their_errors():
    p = get_profile("mafclub-2023", {"third_foul": "short-speech"})
    assert p.third_foul == "short-speech"
    with pytest.raises(ProfileError, match="unknown option"):
        get_profile("mafclub-2023", {"thre_fouls": "no"})
    with pytest.raises(ProfileError, match="not one of"):
        get_profile("mafclub-2023", {"third_foul": "sometimes"})
    with pytest.raises(ProfileError, match="unknown profile"):
        get_profile("poker")
    with pytest.raises(ValueError):
        get_profile(overrides={"bogus": 1})


def test_profile_is_frozen():
    p = get_profile()
    with pytest.raises(Exception):
        p.speech_seconds = 10
    with pytest.raises(TypeError):
        p.scoring["win"] = 10


def test_mafiaratings_code_digits():
    assert mafiaratings_overrides("0000000000000")["opener_rotation"] == "next"
    o = mafiaratings_overrides("1001211121011")
    assert o == {"opener_rotation": "next_with_shift", "on_record": "no", "on_record_count": 0,
                 "withdrawal": "auto", "first_day_voting": "no-break", "split_order": "reverse",
                 "kill_all": "draw", "split_on_four": "prohibited", "split_on_nine": "after1",
                 "first_killed_right": "none", "game_end_speech": True, "third_foul": "short-speech",
                 "technical_fouls": True}
    p = profile_from_mafiaratings_code("0000001000000")
    assert p.kill_all == "draw" and p.name == "mafclub-2023"
    for bad in ("123", "00000000000009", "000000000000x", "0000000000090"):
        with pytest.raises(ProfileError):
            mafiaratings_overrides(bad)

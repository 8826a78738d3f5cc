"""Win and draw conditions (rules-spec 1.5)."""
from __future__ import annotations

from .profiles import Profile


def team_result(red: int, black: int, profile: Profile) -> str | None:
    """The result the table composition fixes, or None while the game goes on."""
    if red == 0 and black == 0:
        # 0 = 0 after everyone is voted out: MC draw, RU black win (conflict 7.3)
        return profile.all_leave_result or "maf"
    if black == 0:
        return "civ"
    if black >= red:  # black_ge_red: a raise can push black above red (conflict 7.3)
        return "maf"
    return None


def quiet_draw(quiet_phases: int, profile: Profile) -> bool:
    """MC 2.7.2.1: 3 nights and 3 days (6 phases) from a night; SM 1.13: 3 nights, 2 days."""
    return profile.draw_quiet_phases is not None and quiet_phases >= profile.draw_quiet_phases


def ru_extra_red_win(miss_streak: int, day_vote_exits: tuple[bool, ...], alive: int,
                     profile: Profile) -> bool:
    """RU L29: 3 misses in a row and nobody voted out in the 2 previous days, or with 4 alive."""
    if profile.red_extra_win != "ru_three_misses" or miss_streak < 3:
        return False
    return alive == 4 or (len(day_vote_exits) >= 2 and not any(day_vote_exits[-2:]))

"""Points per seat, Maf Club table (rules-spec 1.7): base + Prima Nota + bonuses + penalties."""
from __future__ import annotations

from .profiles import Profile
from .state import GameState
from .types import ExitType, Role, Team

REMOVAL_EXITS = (ExitType.WARNINGS, ExitType.TECH_FOULS, ExitType.KICK_OUT, ExitType.TEAM_KICK_OUT)


def prima_nota_points(role: Role, targets: tuple[int, ...], blacks: set[int], profile: Profile) -> float:
    table = profile.scoring or {}
    hit = len(set(targets) & blacks)
    if role.is_black:
        return 0.0
    if role is Role.SHERIFF:
        return float(table.get("prima_nota_sheriff", 0.0)) if hit >= 2 else 0.0
    if hit >= 3:
        return float(table.get("prima_nota_three", 0.0))
    if hit == 2:
        return float(table.get("prima_nota_two", 0.0))
    return 0.0


def points(state: GameState, profile: Profile) -> dict[int, float]:
    """Points per seat; empty for profiles without scoring (SM, RU).

    N1-kill compensation needs the tournament's history and is left to the caller.
    """
    table = profile.scoring
    if not table:
        return {}
    out = {s.seat: 0.0 for s in state.seats}
    if state.result in ("civ", "maf") and not state.annulled:
        winner = Team.from_result_name(state.result)
        for s in state.seats:
            out[s.seat] += float(table["win"] if s.team is winner else table["loss"])
    elif state.result == "tie":
        for s in state.seats:
            out[s.seat] += float(table["draw"])
    fk = state.first_killed
    if fk is not None and state.first_killed_right and state.guess and \
            profile.first_killed_right in ("prima_nota", "points_only"):
        blacks = {s.seat for s in state.seats if s.role.is_black}
        out[fk] += prima_nota_points(state.seat(fk).role, state.guess, blacks, profile)
    for seat, value, _reason in state.bonuses:
        out[seat] += float(value)
    for ex in state.exits:
        if ex.type in REMOVAL_EXITS:
            out[ex.seat] += float(table.get("removal", 0.0))
    for seat, color in state.cards:
        out[seat] += float(table.get("yellow_card" if color == "yellow" else "red_card", 0.0))
    return {k: round(v, 3) for k, v in out.items()}

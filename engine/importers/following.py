"""Following a game without death fields, only to know who still takes the floor.

polemica (and a mafiaratings record without the `d` feature) does not say who
left. To lay out later days the importer must still know whom to give a
speech, so it applies the plain rules here. The engine derives the real
outcomes from the emitted events; these helpers never produce an event.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from .day import DayResult


def night_victim(shots: Sequence[tuple[int, int]], alive: Iterable[int],
                 roles: Mapping[int, str]) -> int | None:
    """A kill needs every black at the table to shoot the same seat (MC 2.5.2)."""
    blacks = sorted(s for s in alive if roles[s] in ("maf", "don"))
    shooters = sorted(s for s, _ in shots)
    victims = {v for _, v in shots}
    if blacks and len(victims) == 1 and shooters == blacks:
        return victims.pop()
    return None


def day_leavers(out: DayResult, round_: int, living: int, options: Mapping[str, Any],
                last_pass: Mapping[int, int]) -> list[int]:
    """Who the day's vote removes under the profile's first-day and raise rules."""
    if out.raise_yes is not None:
        return list(out.leaders) if len(out.raise_yes) * 2 > living else []
    if out.raise_passed:
        return list(out.leaders)
    if len(out.candidates) == 1 and not out.voted:
        return [out.candidates[0]] if round_ >= 1 else []
    if len(out.leaders) != 1:
        return []
    leader = out.leaders[0]
    if round_ == 0:
        first_day = options.get("first_day_voting", "standard")
        if first_day in ("to-talk", "no-break"):
            return []
        if first_day == "self-break" and last_pass.get(leader) != leader:
            return []
    return [leader]

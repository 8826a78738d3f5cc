"""Night shooting: kill or miss (rules-spec 1.4, invariant 2.3.7)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from .profiles import Profile


@dataclass(frozen=True)
class ShotOutcome:
    kill: int | None
    reason: str  # why it is a miss, or "" for a kill


def resolve_shots(shots: Iterable[tuple[int, int]], shooters: Iterable[int],
                  in_game: Iterable[int], profile: Profile) -> ShotOutcome:
    """`shots` are (by, target) in order; `shooters` the living mafia who must shoot."""
    shots = list(shots)
    shooters = set(shooters)
    alive = set(in_game)
    if not shooters:
        return ShotOutcome(None, "no mafia left to shoot")
    per = Counter(by for by, _ in shots if by in shooters)
    if profile.miss_if_double_shot and any(n > 1 for n in per.values()):
        return ShotOutcome(None, "a mafioso shot more than once")
    first: dict[int, int] = {}
    for by, target in shots:
        if by in shooters:
            first.setdefault(by, target)
    if not first:
        return ShotOutcome(None, "nobody shot")
    if profile.miss_if_missing_shot and set(first) != shooters:
        missing = sorted(shooters - set(first))
        return ShotOutcome(None, f"seat(s) {', '.join(map(str, missing))} did not shoot")
    targets = set(first.values())
    if len(targets) > 1 and profile.miss_if_targets_differ:
        return ShotOutcome(None, "the mafia shot at different seats")
    target = next(iter(targets)) if len(targets) == 1 else None
    if target is None:
        return ShotOutcome(None, "the mafia shot at different seats")
    if target not in alive:
        return ShotOutcome(None, f"seat {target} is no longer in the game")
    return ShotOutcome(target, "")

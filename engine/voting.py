"""Vote arithmetic: pass outcomes, revote order, raise limits and thresholds (rules-spec 1.3, 4.1)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .profiles import Profile


@dataclass(frozen=True)
class PassOutcome:
    kind: str                 # "unique", "tie", "unknown"
    leaders: tuple[int, ...]  # in call order
    top: int | None


def pass_outcome(counts: Mapping[int, int | None], order: tuple[int, ...]) -> PassOutcome:
    """Unique maximum or tie among the called candidates (order = call order)."""
    if any(counts.get(c) is None for c in order):
        return PassOutcome("unknown", (), None)
    top = max(counts[c] for c in order)
    leaders = tuple(c for c in order if counts[c] == top)
    return PassOutcome("unique" if len(leaders) == 1 else "tie", leaders, top)


def outcome_fixed(counts: list[int], eligible: int, remaining_candidates: int) -> bool:
    """Fixed once the votes not yet cast cannot reach the leader (001 2.4.3c; SM 6.17)."""
    if remaining_candidates == 0:
        return True
    if not counts:
        return False
    return eligible - sum(counts) < max(counts)


def revote_order(tied: tuple[int, ...], profile: Profile) -> tuple[int, ...]:
    """Tied candidates in the order of the next pass (mafiaratings splitOrder)."""
    return tuple(reversed(tied)) if profile.split_order == "reverse" else tuple(tied)


def after_tie(pass_index: int, tied: tuple[int, ...], pass_candidates: tuple[int, ...],
              profile: Profile) -> str:
    """What follows a tie: "revote" or "raise".

    The first tie always leads to tie speeches and a revote. Tied again with the
    same players: the raise vote. Fewer tied: revote again (MC 001 2.4.15c, SM 6.14)
    or straight to the raise (CC, RU) per `revote_fewer_tied`.
    """
    if pass_index == 0:
        return "revote"
    if set(tied) == set(pass_candidates):
        return "raise"
    return "revote" if profile.revote_fewer_tied == "revote" else "raise"


def raise_allowed(profile: Profile, tied: int, alive: int, round_: int) -> tuple[bool, str]:
    """May `tied` players be raised with `alive` at the table? (allowed, reason with clause)."""
    if tied >= alive:
        if profile.kill_all == "no":
            return False, f"everyone at the table is tied; kill_all=no ({profile.clause('kill_all') or 'profile'})"
    if alive == 4 and tied == 2 and profile.split_on_four == "prohibited":
        return False, "two tied with four at the table; split_on_four=prohibited"
    if alive == 9 and tied == 3:
        if profile.split_on_nine == "no":
            return False, "three tied with nine at the table; split_on_nine=no"
        if profile.split_on_nine == "after1" and round_ < 2:
            return False, "three tied with nine at the table before round 2; split_on_nine=after1"
    if profile.first_day_raise_max is not None and round_ == 0 and tied > profile.first_day_raise_max:
        return False, f"at most {profile.first_day_raise_max} may be raised on the first day (SM 7.2)"
    if profile.raise_limits == "sm7":
        table = profile.sm7_table or {}
        if tied > alive * float(table.get("max_fraction", 0.5)):
            return False, "never more than half the table may be raised (SM 7.1)"
        row = (table.get("by_alive") or {}).get(str(alive))
        if row:
            allowed: tuple = ()
            best = -1
            for key, values in row.items():
                start = int(key.rsplit("_", 1)[-1])
                if start <= round_ and start > best:
                    best, allowed = start, tuple(values)
            if tied not in allowed:
                return False, (f"with {alive} alive in round {round_} SM allows raising "
                               f"{', '.join(map(str, allowed)) or 'nobody'} (SM 7.3-7.6)")
    return True, ""


def raise_passes(votes_for: int, eligible: int) -> bool:
    """More than half of the players at the table; an even split keeps them (001 2.4.15)."""
    return votes_for * 2 > eligible


def placement_counts(profile: Profile, t_place: float, *, t_call: float | None = None,
                     t_call_end: float | None = None, t_call2: float | None = None,
                     t_thanks: float | None = None, t_thanks_end: float | None = None) -> bool | None:
    """Does a fist placed at `t_place` count for the call (rules-spec 4.1 "When a placement counts")?

    MC/CC: t_call_end <= t_place < "Thank you" (votes on or after it are void, MC 2.4.7).
    RU: from the saying of the number (t_call) until "Thank you", exclusive (L17).
    SM: from the first saying (t_call) on, until the end of "Thank you" inclusive, or within
    `vote_grace_after_call2_seconds` of the second saying (6.5-6.6).
    None when the times the profile needs are missing.
    """
    opens = {"call_end": t_call_end, "call": t_call, "call1": t_call, "number": t_call}[profile.vote_window_opens]
    if opens is None:
        opens = t_call if t_call is not None else t_call_end
    if opens is None or t_place < opens:
        return None if opens is None else False
    if profile.vote_window_closes == "on_thanks_inclusive":
        end = t_thanks_end if t_thanks_end is not None else t_thanks
        grace = profile.vote_grace_after_call2_seconds
        in_grace = t_call2 is not None and grace is not None and t_place <= t_call2 + grace
        if end is None:
            return True if in_grace else None
        return t_place <= end or in_grace
    if t_thanks is None:
        return None
    return t_place < t_thanks

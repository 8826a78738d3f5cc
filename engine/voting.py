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
    top = max(n for n in (counts[c] for c in order) if n is not None)
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


@dataclass(frozen=True)
class VoteWindow:
    """When a fist counts for a candidate's call (rules-spec 4.1): from
    `opens` until `closes`, the closing moment itself included where the
    profile says so (SM: votes on "Thank you" count). None where the times
    the profile needs are not known."""
    opens: float | None
    closes: float | None
    inclusive: bool

    @classmethod
    def of(cls, profile: Profile, opens: float | None, closes: float | None) -> "VoteWindow":
        """The window between two moments already placed (e.g. on the video clock)."""
        return cls(opens, closes, profile.vote_window_closes == "on_thanks_inclusive")

    def contains(self, t: float) -> bool | None:
        """Does a fist placed at `t` count? None when an edge is unknown."""
        if self.opens is None or self.closes is None:
            return None
        return self.opens <= t and (t <= self.closes if self.inclusive else t < self.closes)


def vote_window(profile: Profile, t_call: float | None, t_call_end: float | None,
                t_call2: float | None, t_thanks: float | None) -> VoteWindow:
    """The profile's window for one call, from the judge's moments.

    MC/CC: from the end of "Who votes against No. N" to "Thank you", exclusive
    (MC 2.4.7). RU: from the saying of the number (L17). SM: from the first
    saying, until "Thank you" inclusive or `vote_grace_after_call2_seconds`
    after the second saying, whichever is later (6.5-6.6)."""
    opens = {"call_end": t_call_end, "call": t_call, "call1": t_call, "number": t_call}.get(
        profile.vote_window_opens, t_call_end)
    if opens is None:
        opens = t_call_end if t_call_end is not None else t_call
    closes = t_thanks
    grace = profile.vote_grace_after_call2_seconds
    if grace is not None and t_call2 is not None:
        closes = max(c for c in (closes, t_call2 + grace) if c is not None)
    return VoteWindow.of(profile, opens, closes)

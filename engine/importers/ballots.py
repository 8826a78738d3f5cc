"""Just enough vote arithmetic to know which calls a record's ballots belong to.

A revote calls only the tied candidates, so to lay out the revote's calls an
importer has to know who tied. These helpers count recorded ballots plus the
default votes (non-voters count for the last candidate, rules-spec 4.1.5); the
engine repeats the count independently and is the authority on outcomes.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence


def tally(candidates: Sequence[int], ballots: Mapping[int, int],
          eligible: Iterable[int]) -> dict[int, int]:
    """Votes per candidate: recorded ballots of eligible voters plus defaults to the last."""
    counts = {c: 0 for c in candidates}
    eligible = set(eligible)
    defaults = 0
    for voter in eligible:
        choice = ballots.get(voter)
        if choice in counts:
            counts[choice] += 1
        else:
            defaults += 1
    if candidates:
        counts[candidates[-1]] += defaults
    return counts


def leaders(counts: Mapping[int, int]) -> list[int]:
    """Candidates with the most votes, in call order."""
    if not counts:
        return []
    top = max(counts.values())
    return [c for c, n in counts.items() if n == top]


def raise_allowed(options: Mapping[str, Any], tied: Sequence[int], alive: int, round_: int) -> bool:
    """Whether the profile holds an "all leave?" vote for this tie (rules-spec 1.3)."""
    n = len(tied)
    if n == alive:
        return options.get("kill_all", "draw") in ("draw", "allowed")
    if n == 2 and alive == 4 and options.get("split_on_four") == "prohibited":
        return False
    if n == 3 and alive == 9:
        nine = options.get("split_on_nine", "yes")
        if nine == "no" or (nine == "after1" and round_ <= 1):
            return False
    return True

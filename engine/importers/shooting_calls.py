"""The shooting's seat calls, which no rating platform records.

Every rulebook has the judge call the seats in play one by one, in ascending order,
while the masked mafia hold a hand up and flex a finger at their target's number
(rules-spec "Shot": MC 2.5.2, 003 8.2-8.3, L4/L20). A platform keeps who shot whom,
not the calls; without them the timeline has the shooting but nobody called, and
who may move when at night is not known, so no night foul can be judged there
(review.record_fit.nights_without_calls). The recording has every call: each is a
short utterance (the seat's number) the alignment can place, as it places the deal
night's wakes (deal_night.py). The calls are emitted untimed, each shot after the
call of its target, as the judge would have recorded them.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence


def shooting_events(in_play: Iterable[int], shots: Sequence[tuple[int, int]]) -> list[dict[str, Any]]:
    """A night's shooting: a call for each seat in play in ascending order, each shot
    (by, target) right after its target's call, in the record's order; a shot at a seat
    not in play (a miss at an empty chair) after the last call."""
    out: list[dict[str, Any]] = []
    seats = sorted(set(in_play))
    for seat in seats:
        out.append({"type": "shooting_call", "seat": seat})
        out += [{"type": "shot", "by": by, "target": target} for by, target in shots if target == seat]
    out += [{"type": "shot", "by": by, "target": target} for by, target in shots if target not in seats]
    return out

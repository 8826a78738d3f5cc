"""Day openers and speaking order (rules-spec 2.2 "Choosing the opener")."""
from __future__ import annotations

from typing import Iterable


def next_living(after: int, alive: Iterable[int]) -> int | None:
    """The first seat in `alive` clockwise after `after` (wrapping 10 -> 1)."""
    alive_set = set(alive)
    for step in range(1, 11):
        seat = (after - 1 + step) % 10 + 1
        if seat in alive_set:
            return seat
    return None


def previous_living(before: int, alive: Iterable[int]) -> int | None:
    alive_set = set(alive)
    for step in range(1, 11):
        seat = (before - 1 - step) % 10 + 1
        if seat in alive_set:
            return seat
    return None


def speaking_order(opener: int | None, alive: Iterable[int]) -> tuple[int, ...]:
    alive_list = sorted(set(alive))
    if opener is None or not alive_list:
        return tuple(alive_list)
    return tuple(sorted(alive_list, key=lambda s: (s - opener) % 10))


def day_opener(round_: int, alive: Iterable[int], rotation: str, first_day_opener: int,
               prev_opener: int | None, prev_closer: int | None,
               prev_order: tuple[int, ...] = ()) -> int | None:
    """Who opens the day of `round_`.

    rotation: `next` (next living seat after the previous opener), `next_with_shift`
    (MC 2.5.8: also shift one further if the new closer closed the previous day),
    `second_speaker` (RU L28: whoever spoke second last round, else the next seat).
    """
    alive = tuple(alive)
    if not alive:
        return None
    if round_ == 0 or prev_opener is None:
        return first_day_opener if first_day_opener in alive else next_living(first_day_opener, alive)
    if rotation == "second_speaker":
        second = prev_order[1] if len(prev_order) > 1 else next_living(prev_opener, alive)
        if second is None:
            return next_living(prev_opener, alive)
        return second if second in alive else next_living(second, alive)
    opener = next_living(prev_opener, alive)
    if rotation == "next_with_shift" and opener is not None and prev_closer is not None:
        if previous_living(opener, alive) == prev_closer and len(alive) > 1:
            opener = next_living(opener, alive)
    return opener


def day_closer(opener: int | None, alive: Iterable[int]) -> int | None:
    return None if opener is None else previous_living(opener, alive)

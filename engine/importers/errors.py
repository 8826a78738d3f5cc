"""The one error an importer raises: the foreign record cannot be read."""
from __future__ import annotations

from typing import Any

from mafvar.limits import LIMITS


class ImportError_(ValueError):
    """A foreign record that cannot be converted.

    The message says what is wrong and where (player index / seat, round,
    field), so a judge can find the spot in the source record. The trailing
    underscore keeps it from shadowing Python's builtin ImportError.
    """


# Typed reads of a foreign record's fields: each failure names the field.

def read_int(value: Any, where: str, low: int = 0, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ImportError_(f"{where}: expected an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise ImportError_(f"{where}: {value} is out of range ({span})")
    return value


def read_seat(value: Any, where: str) -> int:
    return read_int(value, where, 1, 10)


def read_round(value: Any, where: str, low: int = 0) -> int:
    """A round, day or night number, refused past `LIMITS.max_round` (a game never
    gets near it; an absurd number must not make the importer walk that many rounds)."""
    if isinstance(value, int) and not isinstance(value, bool) and value > LIMITS.max_round:
        raise ImportError_(f"{where}: round {value} is beyond the limit of "
                           f"{LIMITS.max_round} rounds")
    return read_int(value, where, low, LIMITS.max_round)


def read_pass(value: Any, where: str, low: int = 0) -> int:
    """A voting pass (revote) number, refused past `LIMITS.max_passes`."""
    if isinstance(value, int) and not isinstance(value, bool) and value > LIMITS.max_passes:
        raise ImportError_(f"{where}: voting pass {value} is beyond the limit of "
                           f"{LIMITS.max_passes} passes a day")
    return read_int(value, where, low, LIMITS.max_passes)


def read_rounds_list(value: Any, where: str, extra: int = 1) -> list:
    """A per-round list (one entry per round), at most `max_round + extra` long."""
    items = read_list(value, where)
    if len(items) > LIMITS.max_round + extra:
        raise ImportError_(f"{where}: {len(items)} entries, one per round, beyond the limit "
                           f"of {LIMITS.max_round} rounds")
    return items


def read_list(value: Any, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ImportError_(f"{where}: expected a list, got {type(value).__name__}")
    return value

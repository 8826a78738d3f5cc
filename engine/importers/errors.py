"""The one error an importer raises: the foreign record cannot be read."""
from __future__ import annotations

from typing import Any


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


def read_list(value: Any, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ImportError_(f"{where}: expected a list, got {type(value).__name__}")
    return value

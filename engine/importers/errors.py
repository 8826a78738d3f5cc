"""The one error an importer raises: the foreign record cannot be read."""
from __future__ import annotations


class ImportError_(ValueError):
    """A foreign record that cannot be converted.

    The message says what is wrong and where (player index / seat, round,
    field), so a judge can find the spot in the source record. The trailing
    underscore keeps it from shadowing Python's builtin ImportError.
    """

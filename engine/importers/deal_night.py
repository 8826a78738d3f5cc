"""The deal night's wakes, which no rating platform records.

A profile's deal night (N0) has its ritual (rules-spec 2.2; the profile's options
say which parts): the mafia meet, the Don and the Sheriff wake to show themselves
to the judge. The platforms keep none of it, yet the recording shows it, and a
record without it leaves the alignment nothing to put the deal night's marks on
but night 1's checks (review.align.CHECK_MARK): measured on the full-length sample
game's record exported to mafiaratings and imported, every night placed one round
early. The wakes are emitted untimed, as every imported event without a time.
"""
from __future__ import annotations

from typing import Any, Mapping


def deal_night_wakes(options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The deal night's wake events the profile's options hold, in their order."""
    out: list[dict[str, Any]] = []
    if options.get("mafia_wake_seconds") is not None:
        out.append({"type": "mafia_wake"})
    if options.get("don_wake") == "separate":       # "inside_mafia_wake": the Don is known at the meeting
        out.append({"type": "don_wake"})
    if options.get("sheriff_wake_seconds") is not None:
        out.append({"type": "sheriff_wake"})
    return out

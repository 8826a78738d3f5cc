"""Shooting calls for records that lack them.

Rating-platform records and the engine's random games say who shot whom but
not that the judge called every seat in turn; acting a night needs the calls
(hands are raised from the first call, a shot lands on its target's number).
The judge calls every living seat in ascending order; the living seats come
from the engine's replay.
"""
from __future__ import annotations

import copy

from engine.protocol import Protocol
from engine.replay import replay


def _alive_before(protocol: dict) -> list[set[int]]:
    rep = replay(Protocol.from_dict(protocol))
    alive = [set(rep.initial.in_game())]
    alive += [set(s.in_game()) for s in rep.states]
    return alive  # alive[i] = before event i


def add_shooting_calls(protocol: dict) -> dict:
    """A copy with `shooting_call` events in every shooting night that has
    none (a night after the first with a shot or a check); shots follow the
    call of their target."""
    events = protocol["events"]
    nights: list[tuple[int, int]] = []   # (nightfall index, morning index)
    start = None
    for i, ev in enumerate(events):
        if ev["type"] == "nightfall":
            start = i
        elif ev["type"] == "morning" and start is not None:
            nights.append((start, i))
            start = None
    todo = [(a, b) for k, (a, b) in enumerate(nights) if k >= 1
            and not any(e["type"] == "shooting_call" for e in events[a:b])]
    if not todo:
        return protocol
    alive = _alive_before(protocol)
    out = copy.deepcopy(protocol)
    new_events: list[dict] = []
    cursor = 0
    for a, b in todo:
        new_events += copy.deepcopy(events[cursor:a + 1])
        body = copy.deepcopy(events[a + 1:b])
        shots = [e for e in body if e["type"] == "shot"]
        rest = [e for e in body if e["type"] != "shot"]
        for seat in sorted(alive[a + 1]):
            new_events.append({"type": "shooting_call", "seat": seat})
            new_events += [s for s in shots if s["target"] == seat]
        new_events += [s for s in shots if s["target"] not in alive[a + 1]]
        new_events += rest
        cursor = b
    new_events += copy.deepcopy(events[cursor:])
    out["events"] = new_events
    return out

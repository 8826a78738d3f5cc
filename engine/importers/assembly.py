"""Putting events in game order when a foreign record stores them by kind.

Rating platforms keep fouls, removals and guesses in per-player lists with a
"game-time" (round, phase, speaker or nominee) instead of in one timeline. An
importer walks the game phase by phase and calls `place(anchor)` at each spot;
events that were `defer`-red to that anchor are emitted there. Anchors whose
spot never came (a speech that was lost to fouls, a vote call the record does
not hold) are flushed by `place_matching` at the end of their round, so no
record entry is ever dropped silently.

The log also keeps the importer's own view of who is out by removal and who
owes a lost speech; importers need it only to know whom to give the floor.
The engine re-derives everything from the events.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

Anchor = tuple[Hashable, ...]


@dataclass
class _Deferred:
    sort_key: tuple
    event: dict[str, Any]


@dataclass
class EventLog:
    fouls_to_remove: int = 4
    tech_fouls_to_remove: int = 2
    technical_fouls: bool = True
    third_foul: str = "lose-speech"
    events: list[dict[str, Any]] = field(default_factory=list)
    fouls: Counter = field(default_factory=Counter)
    techs: Counter = field(default_factory=Counter)
    gone: set[int] = field(default_factory=set)          # removed, gave up
    owes_speech: set[int] = field(default_factory=set)   # third foul: loses the next speech
    _pending: dict[Anchor, list[_Deferred]] = field(default_factory=dict)
    _order: int = 0

    # ------------------------------------------------------------ emitting
    def emit(self, event: dict[str, Any]) -> dict[str, Any]:
        self.events.append(event)
        kind, seat = event["type"], event.get("seat")
        if kind == "foul":
            if event.get("kind") == "technical":
                self.techs[seat] += 1
                if self.technical_fouls and self.techs[seat] >= self.tech_fouls_to_remove:
                    self.gone.add(seat)
            else:
                self.fouls[seat] += 1
                if self.fouls[seat] == 3 and self.third_foul == "lose-speech":
                    self.owes_speech.add(seat)
                if self.fouls[seat] >= self.fouls_to_remove:
                    self.gone.add(seat)
        elif kind in ("removal", "give_up"):
            self.gone.add(seat)
        return event

    def note(self, text: str) -> None:
        self.emit({"type": "note", "text": text})

    # ------------------------------------------------------------ anchors
    def defer(self, anchor: Anchor, event: dict[str, Any], sort_key: tuple = ()) -> None:
        """Hold `event` until the game reaches `anchor`; ties break by `sort_key`, then input order."""
        self._order += 1
        self._pending.setdefault(anchor, []).append(_Deferred((*sort_key, self._order), event))

    def place(self, anchor: Anchor) -> None:
        for item in sorted(self._pending.pop(anchor, []), key=lambda d: d.sort_key):
            self.emit(item.event)

    def place_matching(self, predicate: Callable[[Anchor], bool]) -> None:
        """Flush every anchor the game did not reach, in input order."""
        keys = [a for a in self._pending if predicate(a)]
        items = [d for a in keys for d in self._pending.pop(a)]
        for item in sorted(items, key=lambda d: d.sort_key):
            self.emit(item.event)

    def pending_anchors(self) -> list[Anchor]:
        return list(self._pending)

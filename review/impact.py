"""What a correction would have changed: who leaves, and who wins.

The protocol is cut just after the corrected voting pass (later events are
ignored, as the appeal rules say: MC 001 4.20.2), the judge's announced counts
of that pass are replaced by the recount, and both versions are replayed by the
engine. Comparing the two states says whether the correction changes who
leaves the table and whether it decides the game at that moment.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.protocol import Protocol
from engine.replay import replay

from .incidents import Impact
from .recount import CallRecount


@dataclass(frozen=True)
class PassImpact:
    """The incident-level impact plus the two outcomes it compares."""
    impact: Impact
    as_played: str
    corrected: str

    @property
    def changes_exit(self) -> bool:
        return self.impact.changes_exit

    @property
    def changes_result(self) -> bool:
        return self.impact.changes_result

    @property
    def summary(self) -> str:
        return self.impact.summary


def _describe(state) -> tuple[tuple[int, ...], str, str | None]:
    """(seats that left by vote, a phrase, the fixed result) after the cut."""
    s = state.vote
    outcome = state.day_outcomes[-1] if state.day_outcomes else None
    if s is not None and s.outcome is None:
        if s.stage.value == "raise":
            return (), f"seats {', '.join(map(str, s.tied))} tied again: raise vote", state.result
        if s.tied:
            return (), f"seats {', '.join(map(str, s.tied))} tied: revote", state.result
    if outcome is None:
        return (), "no decision", state.result
    left = tuple(outcome.eliminated)
    if left:
        phrase = f"seat{'s' if len(left) > 1 else ''} {', '.join(map(str, left))} voted out"
    else:
        phrase = outcome.status.replace("_", " ")
    return left, phrase, state.result


def outcome_with(protocol: Protocol, pass_calls: list[CallRecount], counts: dict[str, int],
                 voters: dict[str, list[int]]) -> tuple[str, str | None]:
    """The outcome (a phrase, the fixed result) of one voting pass replayed with
    these counts and voters per call key in place of the announced ones; the
    protocol is cut just after the pass (later events are ignored)."""
    doc = protocol.to_dict()
    last_event = max(c.event for c in pass_calls if c.event is not None)
    events = [dict(e) for e in doc["events"][: last_event + 1]]
    for c in pass_calls:
        if c.event is None or c.key not in counts:
            continue
        events[c.event]["announced"] = counts[c.key]
        events[c.event]["voters"] = sorted(voters.get(c.key, ()))
    _, phrase, result = _describe(replay(Protocol.from_dict({**doc, "events": events})).final)
    return phrase, result


def as_played(protocol: Protocol, pass_calls: list[CallRecount]) -> tuple[str, str | None]:
    """The pass's outcome with the judge's announced counts."""
    return outcome_with(protocol, pass_calls, {}, {})


def pass_impact(protocol: Protocol, pass_calls: list[CallRecount]) -> PassImpact:
    """Impact of replacing one pass's announced counts with the recount."""
    phrase_a, result_a = as_played(protocol, pass_calls)
    phrase_b, result_b = outcome_with(
        protocol, pass_calls, {c.key: c.recount for c in pass_calls},
        {c.key: [v.seat for v in c.voters if v.counted and v.reason != "default"] for c in pass_calls})
    changes_exit = phrase_a != phrase_b
    changes_result = result_a != result_b
    if not changes_exit:
        summary = f"no change: {phrase_a} either way"
    else:
        summary = f"as played: {phrase_a}; with the recount: {phrase_b}"
    if changes_result:
        summary += (f"; the result would be fixed as {result_b or 'open'} at that moment"
                    f" (as played: {result_a or 'open'})")
    return PassImpact(Impact(changes_exit, changes_result, summary), phrase_a, phrase_b)

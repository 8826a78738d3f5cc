"""Which votes the seats the picture could not judge could have decided.

The recount leaves a cell open where the view could not judge the seat
(review.view); most open cells cannot change who leaves. Those that can are
where a judge must look by hand, first: each voting pass with open cells is
replayed by the engine under every way its unread seats could have voted (in
one of the calls their cells are open in, or not at all), and the outcomes
other than the one played are named with a reading that gives each. The
readings that give the judge's announced counts are named too (what the
picture needs the unread seats to have done for the count to be right), and,
where the record lists each call's voters, what it says those seats did.

Measured on the full-length game (session 44): the injected miscount of day 2
went unfound because the one voter the judge missed was seen while another,
a left-hand thumb-up, was unread; the count fit the picture only if that seat
voted for 3, and had it voted for 5 (as it did), seat 5 would have left
instead of seat 3. That is what this module says.
"""
from __future__ import annotations

import itertools
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from engine.protocol import Protocol

from .coverage import short_why
from .impact import as_played, outcome_with
from .recount import NOT_IN_VIDEO, RECORD_NOT_FIT, CallRecount

STAKES_FORMAT = "mafvar-stakes"
STAKES_VERSION = 1
STAKES_FILE = "stakes.json"
# Cells open because the record is not this game's, or its call lies outside the
# video: the first page says so for the whole game; no pass is weighed on them.
NOT_WEIGHED = frozenset({RECORD_NOT_FIT, NOT_IN_VIDEO})
# Each unread seat votes in one of its open calls or not at all: (calls + 1) ** seats
# readings. Beyond this many the pass is named without weighing them.
MAX_READINGS = 4096

# outcomes other than as played named in the sentence (all are in the JSON)
MAX_SAID = 3

Reading = dict[int, int | None]       # seat -> the candidate it voted for (None: no vote)


@dataclass(frozen=True)
class PassStake:
    """One voting pass with cells the picture could not judge."""
    round: int
    pass_: int                        # 1-based, as in recount.json
    phase_key: str                    # r{round}.vote.p{pass - 1}
    label: str                        # "day 2, vote"
    t0: float | None
    t1: float | None
    seats: tuple[int, ...]            # the seats with open cells in the pass
    why: dict[int, tuple[str, ...]]   # seat -> why the view could not judge it
    as_played: str
    weighed: bool                     # every reading replayed (False: too many)
    # outcome -> one reading of the unread seats that gives it (outcomes other than as played)
    alternatives: tuple[tuple[str, Reading], ...] = ()
    # the readings that give every announced count (empty: none does)
    fit_announced: tuple[Reading, ...] = ()
    record_says: Reading = field(default_factory=dict)   # seat -> the call the record lists it in
    # judged seats the picture shows voting where the record's lists do not: (seat, seen, listed)
    seen_otherwise: tuple[tuple[int, int, int | None], ...] = ()
    # the outcome with the unread seats as the record lists them and the rest as the picture shows
    with_record: str | None = None

    @property
    def record_fits(self) -> bool | None:
        """Do the record's voter lists give its own announced counts with what the
        picture shows (None: the record lists no voters)? False: the record's
        counts or its lists are wrong, whichever way the picture is read."""
        if not self.record_says or not self.weighed:
            return None
        return self.record_says in self.fit_announced

    @property
    def decides(self) -> bool:
        """Could the unread seats have changed who left (or was not weighed)?"""
        return bool(self.alternatives) or not self.weighed

    def sentence(self) -> str:
        who = _seats(self.seats)
        why = sorted({short_why(w) for s in self.seats for w in self.why.get(s, ())})
        head = f"{self.label}: {who} cannot be judged here ({', '.join(why) or 'not seen'})"
        if not self.weighed:
            return f"{head}; too many readings to weigh: look at {who} by hand. As played: {self.as_played}."
        if not self.alternatives:
            return f"{head}; however {who} voted, {self.as_played}."
        parts = [f"{head}. As played: {self.as_played}."]
        if not self.fit_announced:
            parts.append("No way they could have voted gives the announced counts.")
        elif len(self.fit_announced) <= 3:
            fits = " or ".join(_reading_text(r) for r in self.fit_announced)
            parts.append(f"The announced counts fit the picture only if {fits}.")
        if self.record_says:
            listed = _reading_text(self.record_says, listed=True)
            parts.append(f"The record lists {listed}." if self.record_fits else
                         f"The record lists {listed}, which with what the picture shows does not give its "
                         "announced counts: its counts or its lists are wrong.")
        if self.record_fits is False and self.with_record is not None:
            who = "it" if len(self.seats) == 1 else "they"
            parts.append(f"With {_seats(self.seats)} as the record lists {who} and every other seat as the "
                         f"picture shows: {self.with_record}.")
        for seat, seen, elsewhere in self.seen_otherwise:
            parts.append(f"The picture shows seat {seat} voting for {seen}; the record lists it "
                         + (f"for {elsewhere}." if elsewhere is not None else "for no candidate."))
        for outcome, reading in self.alternatives[:MAX_SAID]:
            parts.append(f"If {_reading_text(reading)}: {outcome}.")
        if len(self.alternatives) > MAX_SAID:
            parts.append(f"({len(self.alternatives) - MAX_SAID} other outcomes possible.)")
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        def reading(r: Reading) -> dict[str, int | None]:
            return {str(s): c for s, c in sorted(r.items())}
        return {"round": self.round, "pass": self.pass_, "phase_key": self.phase_key, "label": self.label,
                "t0": self.t0, "t1": self.t1, "seats": list(self.seats),
                "why": {str(s): list(w) for s, w in sorted(self.why.items())},
                "as_played": self.as_played, "weighed": self.weighed, "decides": self.decides,
                "alternatives": [{"outcome": o, "reading": reading(r)} for o, r in self.alternatives],
                "fit_announced": [reading(r) for r in self.fit_announced],
                "record_says": reading(self.record_says), "record_fits": self.record_fits,
                "seen_otherwise": [{"seat": a, "seen": b, "listed": c} for a, b, c in self.seen_otherwise],
                "with_record": self.with_record,
                "text": self.sentence()}


def _seats(seats: Sequence[int]) -> str:
    return ("seat " if len(seats) == 1 else "seats ") + ", ".join(map(str, seats))


def _reading_text(r: Reading, listed: bool = False) -> str:
    if listed:
        return "; ".join(f"seat {s} " + (f"for {c}" if c is not None else "for no candidate")
                         for s, c in sorted(r.items()))
    return " and ".join(f"seat {s} " + (f"voted for {c}" if c is not None else "did not vote")
                        for s, c in sorted(r.items()))


def _label(calls: Sequence[CallRecount], labels: Mapping[str, str]) -> str:
    first = labels.get(calls[0].key, "")
    # "day 2, vote on 5" / "day 3, revote on 9": the day
    base = first.split(",")[0] if first else f"round {calls[0].round}"
    return f"{base}, {'vote' if calls[0].pass_index == 0 else 'revote'}"


def pass_stakes(protocol: Protocol, recounts: Sequence[CallRecount], default_last: bool,
                labels: Mapping[str, str] | None = None) -> list[PassStake]:
    """Every voting pass with open cells, weighed. `default_last`: the profile
    counts a seat that votes nowhere for the last candidate."""
    passes: dict[tuple[int, int], list[CallRecount]] = {}
    for rc in recounts:
        passes.setdefault((rc.round, rc.pass_index), []).append(rc)
    out = []
    for (rnd, p), calls in sorted(passes.items()):
        whys = {w for rc in calls for ws in rc.unverified.values() for w in ws}
        if whys and not whys & NOT_WEIGHED and any(rc.event is not None for rc in calls):
            out.append(_weigh(protocol, calls, default_last, labels or {}))
    return out


def _weigh(protocol: Protocol, calls: list[CallRecount], default_last: bool,
           labels: Mapping[str, str]) -> PassStake:
    seats = sorted({s for rc in calls for s in rc.unverified})
    why: dict[int, tuple[str, ...]] = {}
    for rc in calls:
        for s, w in rc.unverified.items():
            why.setdefault(s, tuple(w))
    # each seat: the calls its cells are open in, or no vote
    options = [[rc.key for rc in calls if s in rc.unverified] + [None] for s in seats]
    by_key = {rc.key: rc for rc in calls}
    played, _ = as_played(protocol, calls)
    lists = _record_lists(protocol, calls)
    record = {s: next((c for c, v in lists if s in v), None) for s in seats} if lists else {}
    base = PassStake(label=_label(calls, labels), round=calls[0].round, pass_=calls[0].pass_index + 1,
                     phase_key=f"r{calls[0].round}.vote.p{calls[0].pass_index}",
                     t0=calls[0].t_call, t1=max((rc.window_close or rc.t_call or 0.0) for rc in calls),
                     seats=tuple(seats), why=why, as_played=played, record_says=record, weighed=False,
                     seen_otherwise=_seen_otherwise(calls, lists, default_last))
    if math.prod(len(o) for o in options) > MAX_READINGS:
        return base
    last = calls[-1].key
    judged = {rc.key: [v.seat for v in rc.voters if v.counted and v.reason != "default"] for rc in calls}
    seen: dict[tuple[int, ...], str] = {}
    alternatives: dict[str, Reading] = {}
    fits: list[Reading] = []
    with_record: str | None = None
    for choice in itertools.product(*options):
        counts = {rc.key: rc.recount for rc in calls}
        voters = {k: list(v) for k, v in judged.items()}
        for s, k in zip(seats, choice):
            if k is not None:
                counts[k] += 1
                voters[k].append(s)
            elif default_last:
                counts[last] += 1
        reading: Reading = {s: (by_key[k].candidate if k is not None else None) for s, k in zip(seats, choice)}
        if all(rc.announced is None or counts[rc.key] == rc.announced for rc in calls):
            fits.append(reading)
        sig = tuple(counts[rc.key] for rc in calls)
        if sig not in seen:
            seen[sig] = outcome_with(protocol, calls, counts, voters)[0]
        outcome = seen[sig]
        if reading == record:
            with_record = outcome
        if outcome != played and outcome not in alternatives:
            alternatives[outcome] = reading
    return replace(base, weighed=True, alternatives=tuple(sorted(alternatives.items())), fit_announced=tuple(fits),
                   with_record=with_record)


def _record_lists(protocol: Protocol, calls: Sequence[CallRecount]) -> list[tuple[int, list[int]]]:
    """(candidate, the seats the record lists voting for it) per call; [] where the
    record does not list every call's voters (a platform record of counts only)."""
    events = protocol.to_dict()["events"]
    listed = [(rc.candidate, events[rc.event].get("voters")) for rc in calls
              if rc.event is not None and rc.event < len(events)]
    if len(listed) != len(calls) or any(not isinstance(v, list) for _, v in listed):
        return []
    return [(c, [int(s) for s in v]) for c, v in listed]


def _seen_otherwise(calls: Sequence[CallRecount], lists: list[tuple[int, list[int]]], default_last: bool
                    ) -> tuple[tuple[int, int, int | None], ...]:
    """Seats whose counted fist the picture shows in a call the record does not list them
    in. A fist for the last candidate from a seat the record lists nowhere is not one where
    a non-voter counts for that candidate anyway: the record need not list it."""
    if not lists:
        return ()
    listed_for = {s: c for c, v in lists for s in v}
    last = calls[-1].key
    return tuple(sorted((v.seat, rc.candidate, listed_for.get(v.seat)) for rc in calls for v in rc.voters
                        if v.counted and v.reason != "default" and listed_for.get(v.seat) != rc.candidate
                        and not (default_last and rc.key == last and v.seat not in listed_for)))


def load_stakes(analysis_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The passes of analysis/stakes.json as written; [] where an analysis made
    before this file (or none) left none, or it cannot be read."""
    try:
        doc = json.loads((Path(analysis_dir) / STAKES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(doc, dict) or doc.get("format") != STAKES_FORMAT or not isinstance(doc.get("passes"), list):
        return []
    return [p for p in doc["passes"] if isinstance(p, dict) and isinstance(p.get("text"), str)]


def stakes_json(stakes: Sequence[PassStake]) -> dict[str, Any]:
    return {"format": STAKES_FORMAT, "version": STAKES_VERSION,
            "passes": [s.to_json() for s in stakes]}

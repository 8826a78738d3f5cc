"""Records as they really are: the recorded outcome stands over incomplete raw lists.

A rating platform's record keeps the judge's outcomes (who was shot, who was
voted out) next to the raw steps (shots, nominations, ballots). Real records
have gaps: a shooting list one night short, a ballot left empty, a nomination
never entered. Replayed from the raw steps alone, such a game kills nobody on
that night, keeps a dead player at the table and turns every later day into
errors. The judge's recorded outcome is what happened at the table, so:

1. the imported protocol is replayed by the engine and its night and day exits
   are compared with the record's `death` fields, phase by phase in game order;
2. at the first phase that differs, the record's outcome is stated on the
   event that opens it (`nightfall.leaves` for a night, `morning.leaves` for a
   day, with `taken_from_record`): the engine takes it over the raw steps and
   reports the disagreement as an audit `record_outcome` at that event;
3. replayed again from there, until every phase fits (each pass fixes one
   phase, so it ends);
4. a raw entry that still contradicts the game (a ballot by a player the
   record has already out, a shot by a dead mafioso) is left out of the event
   it was in and written as a `note` beside it, never dropped silently.

A finished record therefore never becomes invalid because its raw lists are
incomplete; every disagreement is in the check's issues for the judge to see.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

ExitKey = tuple[int, int, str]  # (seat, round, "day" | "night")

# raw steps a record entry becomes; an engine error on one of them means the entry
# does not fit the recorded game (see step 4)
RAW_STEPS = frozenset({"shot", "don_check", "sheriff_check", "guess", "speech", "nominate",
                       "withdraw", "vote", "raise_vote", "foul", "removal", "give_up"})


def recorded_exits(deaths: dict[int, dict]) -> set[ExitKey]:
    """The record's night and day deaths as (seat, round, type)."""
    return {(seat, int(d["round"]), d["type"]) for seat, d in deaths.items()
            if d.get("type") in ("day", "night")}


def _replay(doc: dict[str, Any]):
    from engine.protocol import Protocol
    from engine.replay import replay
    return replay(Protocol.from_dict(doc))


def _derived_exits(rep) -> set[ExitKey]:
    return {(e.seat, e.round, e.type.value) for e in rep.exits if e.type.value in ("day", "night")}


def _phase_order(key: tuple[int, str]) -> tuple[int, int]:
    r, kind = key
    return r, 0 if kind == "night" else 1


def _first_difference(derived: set[ExitKey], recorded: set[ExitKey]) -> tuple[int, str] | None:
    phases = {(r, kind) for _, r, kind in derived ^ recorded}
    return min(phases, key=_phase_order) if phases else None


def _opening_event(events: list[dict], r: int, kind: str) -> dict | None:
    """The nightfall (night r) or morning (day r) event of round r: the (r+1)-th of its type."""
    want = "nightfall" if kind == "night" else "morning"
    seen = -1
    for ev in events:
        if ev["type"] == want:
            seen += 1
            if seen == r:
                return ev
    return None


def state_recorded_outcomes(doc: dict[str, Any], deaths: dict[int, dict],
                            max_passes: int | None = None) -> dict[str, Any]:
    """Steps 1-3: `doc` (changed in place and returned) with the record's outcome
    stated on every phase whose raw steps give another."""
    recorded = recorded_exits(deaths)
    if not recorded and not deaths:
        return doc
    limit = max_passes or 2 * (max((r for _, r, _ in recorded), default=0) + 2)
    for _ in range(limit):
        phase = _first_difference(_derived_exits(_replay(doc)), recorded)
        if phase is None:
            break
        r, kind = phase
        ev = _opening_event(doc["events"], r, kind)
        if ev is None or ev.get("taken_from_record"):
            break  # nothing more to state: what is left shows in the check's issues
        ev["leaves"] = sorted(s for s, rr, k in recorded if rr == r and k == kind)
        ev["taken_from_record"] = True
    return doc


def set_aside_misfits(doc: dict[str, Any], max_passes: int = 20) -> dict[str, Any]:
    """Step 4: raw entries the engine refuses (errors) become notes beside their event."""
    for _ in range(max_passes):
        rep = _replay(doc)
        bad = sorted({i.event for i in rep.issues if i.severity.value == "error"
                      and i.event is not None and doc["events"][i.event]["type"] in RAW_STEPS})
        if not bad:
            break
        why = {i.event: i.message for i in rep.issues if i.severity.value == "error"}
        for idx in reversed(bad):
            doc["events"][idx:idx + 1] = list(_set_aside(doc["events"][idx], why[idx], rep, idx))
    return doc


def _set_aside(ev: dict, message: str, rep, idx: int) -> Iterable[dict]:
    """The event without the entries that do not fit, and a note naming them."""
    if ev["type"] in ("vote", "raise_vote") and ev.get("voters"):
        # ballots by players already out: the engine ignores them, the entry goes
        state = rep.state_before(idx)
        out = [v for v in ev["voters"] if not state.seat(v).in_game]
        if out:
            kept = dict(ev, voters=[v for v in ev["voters"] if v not in out])
            return [kept, {"type": "note", "text": f"record ballots left out of the vote on seat "
                           f"{ev.get('candidate', '?')}: seat(s) {', '.join(map(str, out))} "
                           f"already out of the game ({message})"}]
    entry = {k: v for k, v in ev.items() if k != "t" and not k.startswith("t_")}
    note = {"type": "note", "text": f"record entry left out, it does not fit the recorded "
                                   f"game: {json.dumps(entry, ensure_ascii=False)} ({message})"}
    if "t" in ev:
        note["t"] = ev["t"]
    return [note]


def reconcile(doc: dict[str, Any], deaths: dict[int, dict]) -> dict[str, Any]:
    """Both steps: the recorded outcomes stated, then the misfits set aside, and the
    outcomes stated again (an entry set aside can change a later phase)."""
    state_recorded_outcomes(doc, deaths)
    set_aside_misfits(doc)
    return state_recorded_outcomes(doc, deaths)

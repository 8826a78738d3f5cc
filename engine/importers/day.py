"""Laying out one day (speeches, nominations, vote calls, revotes, raise) as native events.

Both rating formats store a day as "who nominated whom" and "who voted for
whom in pass k"; the order of speeches, nominations and calls is not stored.
This module rebuilds it the way the rules fix it: speeches from the opener
round the living seats, each nomination inside its nominator's speech, the
candidate list in nomination order, tie speeches and revotes for the tied,
then the "all leave?" vote when the same players tie again.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from engine.speaking import speaking_order

from .assembly import EventLog
from .ballots import leaders, raise_allowed, tally


@dataclass
class DayRecord:
    """What a record holds about one day (round `round`)."""
    round: int
    nominations: dict[int, int] = field(default_factory=dict)   # nominator -> nominee
    passes: list[dict[int, int]] = field(default_factory=list)  # pass k: voter -> candidate
    raise_yes: list[int] | None = None       # seats for "all leave", when recorded
    raise_recorded: bool = False             # the format holds raise ballots for this game
    # whether the record shows the tied players leaving (None: the record cannot tell)
    raise_passed_in_record: Callable[[Sequence[int]], bool] | None = None
    last_word_nominators: tuple[int, ...] = ()  # seats nominating in a morning last word


@dataclass
class DayResult:
    """What the layout saw; importers without death fields use it to know who left."""
    order: tuple[int, ...] = ()
    candidates: list[int] = field(default_factory=list)
    leaders: list[int] = field(default_factory=list)   # after the last recorded pass
    voted: bool = False                                 # at least one pass was called
    raise_yes: list[int] | None = None                  # the raise vote held, with its ayes
    raise_passed: bool | None = None                    # a raise outcome taken from the record


def emit_day(log: EventLog, day: DayRecord, *, opener: int | None, alive: set[int],
             options: Mapping[str, Any], is_out: Callable[[int], bool],
             stop_after_speaker: int | None = None) -> DayResult:
    """Emit the day's events into `log`.

    `stop_after_speaker` cuts a live record: speeches up to that seat, no vote.
    """
    r = day.round
    candidates: list[int] = []
    out = DayResult(candidates=candidates)

    def nominate(by: int) -> None:
        target = day.nominations.get(by)
        if target is None:
            return
        if target in candidates:
            # the judge rejects a nomination of a standing candidate (MC 2.3.12)
            log.note(f"round {r}: seat {by}'s nomination of seat {target} repeats a standing "
                     f"candidate; not recorded as a nomination")
            return
        candidates.append(target)
        log.emit({"type": "nominate", "by": by, "target": target})

    for seat in day.last_word_nominators:
        nominate(seat)

    order = speaking_order(opener, alive)
    if stop_after_speaker is not None:  # 0 (or a seat not speaking): before the first speech
        cut = order.index(stop_after_speaker) + 1 if stop_after_speaker in order else 0
        order = order[:cut]
    out.order = order
    for seat in order:
        if is_out(seat):  # removed earlier this day
            log.place(("speaking", r, seat))
            continue
        if seat in log.owes_speech:
            log.owes_speech.discard(seat)
            living = sum(1 for s in alive if not is_out(s))
            # MC 4.4.1: with 3-4 at the table the muted player still gets 30 s
            if options.get("third_foul") == "lose-speech" and living > 4:
                nominate(seat)  # a muted player may still nominate (MC 4.4)
                log.place(("speaking", r, seat))
                continue
        log.emit({"type": "speech", "seat": seat})
        nominate(seat)
        log.place(("speaking", r, seat))

    spoken = set(order) | set(day.last_word_nominators)
    for by, target in day.nominations.items():
        if by not in spoken:
            log.note(f"round {r}: the record has seat {by} nominating seat {target}, but seat "
                     f"{by} had no speech that day; nomination not recorded")
    if stop_after_speaker is None:
        _emit_voting(log, day, out, options, is_out)
    return out


def _living(is_out: Callable[[int], bool]) -> list[int]:
    return [s for s in range(1, 11) if not is_out(s)]


def _emit_voting(log: EventLog, day: DayRecord, out: DayResult,
                 options: Mapping[str, Any], is_out: Callable[[int], bool]) -> None:
    r = day.round
    candidates = out.candidates
    has_ballots = any(day.passes)
    if not candidates:
        if has_ballots:
            log.note(f"round {r}: the record holds votes but no nominations; votes ignored")
        log.place(("voting start", r))
        return
    single_rule = "no_vote" if r == 0 else options.get("later_single_candidate")
    if len(candidates) == 1 and single_rule in ("no_vote", "auto_eliminate"):
        if has_ballots:
            log.note(f"round {r}: the record lists votes on the only candidate {candidates[0]}; "
                     f"under the profile no vote is held ({single_rule})")
        log.place(("voting start", r))
        return

    log.emit({"type": "vote_announce"})
    gone_before = set(log.gone)
    log.place(("voting start", r))
    if not has_ballots:
        for c in candidates:
            log.place(("vote", r, 0, c))
        if log.gone == gone_before:  # a removal during the vote explains the missing ballots
            log.note(f"round {r}: the record holds no votes for this day's candidates")
        return

    order = list(candidates)
    last_lead: list[int] = []
    for k, ballots in enumerate(day.passes):
        if k > 0:
            # tie speeches go in nomination order (rules-spec 7.6); the calls follow splitOrder
            for seat in sorted(order, key=candidates.index):
                if not is_out(seat):
                    log.emit({"type": "speech", "seat": seat, "kind": "tie"})
                log.place(("tie", r, k, seat))
        for c in order:
            voters = sorted(v for v, choice in ballots.items() if choice == c)
            log.emit({"type": "vote", "candidate": c, "voters": voters})
            log.place(("vote", r, k, c))
        stray = sorted(v for v, choice in ballots.items() if choice not in order)
        if stray:
            log.note(f"round {r}, voting pass {k}: ballots of seat(s) {stray} name no candidate "
                     f"of this pass ({order}); ignored")
        out.voted = True
        last_lead = leaders(tally(order, ballots, _living(is_out)))
        out.leaders = last_lead
        if len(last_lead) < 2:
            return
        if k + 1 < len(day.passes):
            tied = sorted(last_lead, key=candidates.index)
            order = tied if options.get("split_order", "same") == "same" else tied[::-1]
            continue
        # the record ends on a tie: either the same players tied again (raise vote)
        # or the record lacks a revote
        if k == 0 or set(last_lead) != set(order):
            if day.raise_yes is None:
                log.note(f"round {r}: voting pass {k} ended in a tie {last_lead}, and the "
                         f"record holds no further pass")
                return
        break
    _emit_raise(log, day, out, options, is_out)


def _emit_raise(log: EventLog, day: DayRecord, out: DayResult, options: Mapping[str, Any],
                is_out: Callable[[int], bool]) -> None:
    r = day.round
    tied = out.leaders
    living = len(_living(is_out))
    if day.raise_yes is not None:
        out.raise_yes = sorted(day.raise_yes)
        log.emit({"type": "raise_vote", "voters": out.raise_yes})
    elif day.raise_recorded:
        if raise_allowed(options, tied, living, r):
            out.raise_yes = []
            log.emit({"type": "raise_vote", "voters": []})
    elif day.raise_passed_in_record is None:
        log.note(f"round {r}: seats {tied} tied twice; the record holds neither the raise "
                 f"ballots nor the deaths, so the raise outcome is unknown")
    else:
        passed = bool(day.raise_passed_in_record(tied))
        if passed or raise_allowed(options, tied, living, r):
            out.raise_passed = passed
            log.emit({"type": "raise_vote", "passed": passed, "taken_from_record": True})
    log.place(("voting kill all", r))

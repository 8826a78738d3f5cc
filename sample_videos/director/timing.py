"""Realistic timing for a native protocol: the clock a judge's record would carry.

Speeches are shortened to a few seconds by default so a sample stays short
(`realistic=True` keeps real 50-60 s speeches, see `REALISTIC`); N0 wakes are
shortened with them.
Everything a rule check measures runs in real time: masking after "Night",
shooting calls (~1.5 s a seat), checks, vote calls (call ~1.0 s, window to
"thank you" ~1.5 s, count ~1 s). Times are seconds from the video start.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from .rng import stream

TIME_FIELDS = ("t", "t_end", "t_call_end", "t_call2", "t_thanks")


@dataclass(frozen=True)
class Pace:
    """Durations in seconds, each a (low, high) range drawn uniformly."""
    start: tuple[float, float] = (2.0, 2.5)            # video start -> first event
    speech: tuple[float, float] = (2.2, 3.0)
    tie_speech: tuple[float, float] = (1.8, 2.3)
    last_word: tuple[float, float] = (2.4, 3.0)
    gap: tuple[float, float] = (0.4, 0.7)               # between speeches
    masking: tuple[float, float] = (3.2, 3.6)           # "Night" -> first active call
    n0_wake: tuple[float, float] = (3.5, 4.5)           # mafia acquaintance (60 s real)
    n0_short_wake: tuple[float, float] = (2.5, 3.0)     # Don / Sheriff wakes (15 s real)
    wake_gap: tuple[float, float] = (1.0, 1.4)
    shooting_intro: tuple[float, float] = (1.4, 1.8)    # "Mafia wakes up and shoots"
    shooting_call: tuple[float, float] = (1.4, 1.6)
    shot_delay: tuple[float, float] = (0.2, 0.45)       # fingers curl after the number
    check: tuple[float, float] = (3.5, 4.5)
    check_gap: tuple[float, float] = (1.0, 1.4)
    guess: tuple[float, float] = (4.0, 5.0)
    morning: tuple[float, float] = (2.5, 3.0)           # "Morning" -> first speech (masks off)
    announce_per_candidate: tuple[float, float] = (0.7, 0.9)
    announce_gap: tuple[float, float] = (1.2, 1.5)      # list read -> first call (elbows down)
    call: tuple[float, float] = (0.9, 1.1)              # "Who votes against N" said
    window: tuple[float, float] = (1.4, 1.6)            # call end -> "thank you"
    count: tuple[float, float] = (1.0, 1.3)             # "thank you" -> next call (count said)
    raise_window: tuple[float, float] = (2.3, 2.7)
    tail: tuple[float, float] = (3.0, 3.5)              # last event -> video end
    leave: float = 2.8                                  # farewell end -> next call (seat empties)


# A real game's clock (Maf Club: 60 s speeches and last words, 30 s tie
# speeches, 60/15 s N0 wakes, 15 s checks, 20 s for the guess), with the
# judge's words between speeches ("thank you; player N, your word") and the
# morning announcement. The full game (`game.full_game`) lasts about 65 min.
REALISTIC = Pace(speech=(50.0, 60.0), tie_speech=(25.0, 30.0), last_word=(50.0, 60.0),
                 gap=(4.0, 7.0), n0_wake=(55.0, 60.0), n0_short_wake=(12.0, 15.0),
                 check=(8.0, 12.0), guess=(15.0, 20.0), morning=(10.0, 15.0),
                 announce_per_candidate=(1.5, 2.0))


def _r(t: float) -> float:
    """Protocol times carry 0.01 s; rounding here keeps JSON byte-stable."""
    return round(t, 2)


def time_protocol(protocol: dict, seed: int, realistic: bool = False, pace: Pace | None = None) -> dict:
    """A copy of `protocol` with `t`/`t_end`/`t_call_end`/`t_thanks` on every event.

    Existing times are replaced. The returned protocol also gets a top-level
    `duration` key removed before writing (see `protocol_duration`)."""
    pace = pace or (REALISTIC if realistic else Pace())
    rng = stream(seed, "timing")

    def d(rng_range: tuple[float, float]) -> float:
        return rng.uniform(*rng_range)

    out = copy.deepcopy(protocol)
    events = out["events"]
    for ev in events:
        for f in TIME_FIELDS:
            ev.pop(f, None)

    t = d(pace.start)
    last_speech: dict | None = None
    last_call: dict | None = None
    for i, ev in enumerate(events):
        kind = ev["type"]
        if kind == "nightfall":
            ev["t"] = _r(t)
            t += d(pace.masking)
            if i + 1 < len(events) and events[i + 1]["type"] == "shooting_call":
                t += d(pace.shooting_intro)
        elif kind in ("mafia_wake", "don_wake", "sheriff_wake", "free_seating"):
            dur = d(pace.n0_wake if kind == "mafia_wake" else pace.n0_short_wake)
            ev["t"], ev["t_end"] = _r(t), _r(t + dur)
            t += dur + d(pace.wake_gap)
        elif kind == "card_pick":
            ev["t"], ev["t_end"] = _r(t), _r(t + 1.0)
            t += 1.2
        elif kind == "shooting_call":
            ev["t"] = _r(t)
            last_call = ev
            t += d(pace.shooting_call)
        elif kind == "shot":
            base = last_call["t"] if last_call is not None else t
            ev["t"] = _r(base + d(pace.shot_delay))
        elif kind in ("don_check", "sheriff_check"):
            t += d(pace.check_gap) if events[i - 1]["type"] != "nightfall" else 0.0
            dur = d(pace.check)
            ev["t"], ev["t_end"] = _r(t), _r(t + dur)
            t += dur
        elif kind == "guess":
            t += d(pace.check_gap)
            dur = d(pace.guess)
            ev["t"], ev["t_end"] = _r(t), _r(t + dur)
            t += dur
        elif kind == "morning":
            t += d(pace.check_gap) if events[i - 1]["type"] != "nightfall" else 0.0
            ev["t"] = _r(t)
            t += d(pace.morning)
        elif kind == "speech":
            sk = ev.get("kind", "normal")
            rng_range = {"tie": pace.tie_speech, "last_word": pace.last_word,
                         "farewell": pace.last_word}.get(sk, pace.speech)
            dur = d(rng_range)
            ev["t"], ev["t_end"] = _r(t), _r(t + dur)
            last_speech = ev
            t += dur + d(pace.gap)
            if sk == "farewell":
                t += pace.leave  # the eliminated player stands up and walks away
        elif kind in ("nominate", "withdraw"):
            # Said inside the speech that precedes it in the record.
            if last_speech is not None:
                s0, s1 = last_speech["t"], last_speech["t_end"]
                ev["t"] = _r(s0 + (s1 - s0) * rng.uniform(0.45, 0.85))
            else:
                ev["t"] = _r(t)
                t += 1.0
        elif kind == "vote_announce":
            n = len(ev.get("candidates", [])) or 2
            ev["t"] = _r(t)
            t += n * d(pace.announce_per_candidate) + d(pace.announce_gap)
        elif kind == "vote":
            call = d(pace.call)
            window = d(pace.window)
            ev["t"] = _r(t)
            ev["t_call_end"] = _r(t + call)
            ev["t_thanks"] = _r(t + call + window)
            t = ev["t_thanks"] + d(pace.count)
        elif kind == "raise_vote":
            ev["t"] = _r(t)
            ev["t_thanks"] = _r(t + d(pace.raise_window))
            t = ev["t_thanks"] + d(pace.count)
        else:
            ev["t"] = _r(t)
            t += 1.0
    out["duration"] = _r(t + d(pace.tail))
    return out


def protocol_duration(timed: dict) -> float:
    return float(timed["duration"])


def judge_record(timed: dict) -> dict:
    """The protocol as written to disk: the timed record without helper keys."""
    out = copy.deepcopy(timed)
    out.pop("duration", None)
    return out

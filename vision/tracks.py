"""From per-frame seat states to tracks: intervals with onset, offset and confidence.

A classifier says, frame by frame, "seat 6: fist on the table (thumb up), 0.8".
A single frame proves nothing; a vote is a fist that lands and stays. This
module applies hysteresis (enter above `on`, leave below `off`), a minimum
duration, and gap bridging, per seat and state, and keeps the value (form,
finger count, neighbour) that the frames agreed on most.

Rule-free: the vocabulary of states is vision's own (Observed).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Iterable

class Observed(StrEnum):
    """What the classifiers report per seat. Values in brackets go in `value`."""
    MASK_ON = "mask_on"                # the eye band
    MASK_OFF = "mask_off"
    MASK_LIFTED = "mask_lifted"
    # cannot judge the mask [why: no_face, face_place, no_skin, hand, unsure, far (the face
    # mesh's reading, vision.faces.mask_read), window_real (no mesh reading, and the
    # learned head window sees real pixels it was not trained on), small (the seat's
    # head is narrower than the mask reading was measured at, vision.seat_states)]
    MASK_UNREAD = "mask_unread"
    HAND_AT_MASK = "hand_at_mask"
    HEAD_DOWN = "head_down"            # the night pose's parts
    ARMS_CROSSED = "arms_crossed"
    HEAD_UP = "head_up"                # ... and their breach, reported positively
    ARMS_OPEN = "arms_open"
    HAND_RAISED = "hand_raised"        # [fingers up: 1, 2, ...]
    ARM_UP = "arm_up"                  # the body window's raised arm (fingers unknown)
    SHOT = "shot"                      # raised fingers flexing
    FINGERS_SHOWN = "fingers_shown"    # [count 0-5]
    POINTING = "pointing"
    FIST_ON_TABLE = "fist_on_table"    # [form: thumb_up, fist, palm, fingertip]
    ZONE_UNREAD = "zone_unread"        # cannot judge the table zone [why: no_hand, open_hand, forms_disagree, readings_disagree, weak_fist, small]
    TOUCH = "touch"                    # [neighbour seat]
    # cannot judge the body window [why: neighbour (a neighbour's own arm crossed it
    # at that moment, vision.neighbour_arms)]
    BODY_UNREAD = "body_unread"
    STANDING = "standing"
    SEAT_EMPTY = "seat_empty"


MASK_STATES = (Observed.MASK_ON, Observed.MASK_OFF, Observed.MASK_LIFTED)


@dataclass(frozen=True)
class FrameState:
    t: float
    seat: int
    state: Observed
    confidence: float
    value: str | None = None

    def __post_init__(self) -> None:
        # a state read back from JSON (or a test) is a plain string: one vocabulary
        object.__setattr__(self, "state", Observed(self.state))


@dataclass(frozen=True)
class Track:
    seat: int
    state: Observed
    t0: float
    t1: float
    confidence: float
    value: str | None = None
    frames: int = 0
    # the first frame read with `value` (a vote fist's frames before it were read
    # as another form: review.recount times an early vote from it); None: t0
    t_value: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "state", Observed(self.state))

    def covers(self, t: float, slack: float = 0.0) -> bool:
        return self.t0 - slack <= t <= self.t1 + slack

    def overlaps(self, a: float, b: float) -> bool:
        return self.t0 <= b and self.t1 >= a

    def to_dict(self) -> dict:
        d = {"seat": self.seat, "state": self.state, "t0": round(self.t0, 3), "t1": round(self.t1, 3),
             "confidence": round(self.confidence, 3), "value": self.value, "frames": self.frames}
        if self.t_value is not None and self.t_value != self.t0:
            d["t_value"] = round(self.t_value, 3)
        return d


@dataclass(frozen=True)
class Smoothing:
    on: float = 0.6            # confidence to enter a state
    off: float = 0.4           # below this the state ends (between: keep)
    min_frames: int = 2        # a state seen in fewer sampled frames is noise
    max_gap: float = 0.5       # seconds of missing/low frames bridged inside a track


DEFAULT = Smoothing()
# Votes must "land and stay"; masks flicker when a hand passes the face.
PER_STATE: dict[Observed, Smoothing] = {
    Observed.FIST_ON_TABLE: Smoothing(on=0.6, off=0.4, min_frames=3, max_gap=0.3),
    # a peek is brief and the head window wavers between "lifted" and "on"
    # while the band moves: hold the track through the low frames
    Observed.MASK_LIFTED: Smoothing(on=0.6, off=0.15, min_frames=3, max_gap=0.5),
    # a touch glimpsed in one frame is kept (weak, under the checks' least
    # evidence): inside an arm out of the night pose it names the reach
    Observed.TOUCH: Smoothing(on=0.6, off=0.4, min_frames=1, max_gap=0.5),
}


@dataclass
class _Open:
    t0: float
    t_last: float
    confs: list[float] = field(default_factory=list)
    values: Counter = field(default_factory=Counter)
    first: dict[str, float] = field(default_factory=dict)     # value -> the first frame read so

    def saw(self, t: float, value: str | None) -> None:
        if value is not None:
            self.values[value] += 1
            self.first.setdefault(value, t)


def build_tracks(frames: Iterable[FrameState], sample_times: dict[int, list[float]] | None = None,
                 smoothing: dict[Observed, Smoothing] | None = None) -> list[Track]:
    """Per (seat, state), hysteresis over the sampled frames.

    `sample_times[seat]` lists every time the seat was looked at, so a frame in
    which a state was *not* reported counts as confidence 0 (absence is
    evidence); without it only reported frames are known and gaps decide.
    """
    rules = {**PER_STATE, **(smoothing or {})}
    by_key: dict[tuple[int, Observed], dict[float, FrameState]] = defaultdict(dict)
    for f in frames:
        cur = by_key[(f.seat, f.state)].get(f.t)
        if cur is None or f.confidence > cur.confidence:
            by_key[(f.seat, f.state)][f.t] = f
    tracks: list[Track] = []
    for (seat, state), obs in by_key.items():
        rule = rules.get(state, DEFAULT)
        times = sorted(set(obs) | set((sample_times or {}).get(seat, ())))
        tracks.extend(_hysteresis(seat, state, times, obs, rule))
    tracks.sort(key=lambda tr: (tr.t0, tr.seat, tr.state))
    return tracks


def _hysteresis(seat: int, state: Observed, times: list[float], obs: dict[float, FrameState],
                rule: Smoothing) -> list[Track]:
    out: list[Track] = []
    cur: _Open | None = None

    def close(c: _Open) -> None:
        if len(c.confs) >= rule.min_frames:
            value = c.values.most_common(1)[0][0] if c.values else None
            out.append(Track(seat, state, c.t0, c.t_last, sum(c.confs) / len(c.confs), value, len(c.confs),
                             c.first.get(value) if value is not None else None))

    for t in times:
        f = obs.get(t)
        conf = f.confidence if f else 0.0
        if cur is not None and t - cur.t_last > rule.max_gap and conf < rule.on:
            close(cur)
            cur = None
        if cur is None:
            if conf >= rule.on:
                cur = _Open(t, t, [conf])
                cur.saw(t, f.value if f else None)
            continue
        if conf >= rule.off:
            cur.t_last = t
            cur.confs.append(conf)
            cur.saw(t, f.value if f else None)
        elif t - cur.t_last > rule.max_gap:
            close(cur)
            cur = None
    if cur is not None:
        close(cur)
    return out

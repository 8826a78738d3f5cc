"""Look closer: where a sparse pass glimpsed a rare act, sample densely around it.

Nights and days are sampled at about one frame a second (key frames): enough
for a stand-up that lasts seconds, too few for a hand brought to the mask for
1.5 s or a touch of a neighbour (the tracks need two frames and half a
second). When one sparse frame's seat windows already lean toward such an
act, the seconds around it are analysed again at the vote rate, for that seat
only, with the range's own models. The acts are rare, so this costs little;
`MAX_SHARE` bounds it on a recording where the windows misfire.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from engine.timeline import Interval, Kind

from .fouls import FOUL_OF, IncidentType
from vision.schedule import Schedule, ScheduleRange

# Ranges sampled at or below this rate are "glimpses".
SPARSE_FPS = 1.5
REFINE_FPS = 5.0
# seconds analysed before and after the glimpse (a sparse frame is 1 s from its neighbours)
PAD = 1.2
# window classes that call for a closer look, with the least probability that does
CUES: dict[str, float] = {
    "app_body_hand_face": 0.25, "app_body_touch": 0.25, "app_body_standing": 0.25,
    "app_head_mask_lifted": 0.3,
    # the face mesh's mask reading (vision.faces): a lifted mask on a real face
    "mesh_mask_lifted": 0.3,
    # an arm up at night: a reach to a neighbour reads as "raised" in most frames
    "app_body_raised": 0.3,
}
# at most this share of the recording's seat-seconds goes to refinement
MAX_SHARE = 0.05


@dataclass(frozen=True)
class Glimpse:
    seat: int
    t: float
    cue: str
    p: float


Relevant = Callable[[int, float, str], bool]

# Where each cue can be a foul: a lifted mask, a hand at it or an arm up only at
# night and only for a seat not awake by right there (the mafia meeting and
# shooting, the checks); a touch or standing up at any time.
# The permits are the fouls' own (a peek, a hand at the mask, the night pose).
NIGHT_ONLY = {"app_head_mask_lifted": FOUL_OF[IncidentType.PEEK].excused_by,
              "mesh_mask_lifted": FOUL_OF[IncidentType.PEEK].excused_by,
              "app_body_hand_face": FOUL_OF[IncidentType.MASK_TOUCH].excused_by,
              "app_body_raised": FOUL_OF[IncidentType.NIGHT_POSE].excused_by}


def relevance(intervals: Sequence[Interval]) -> Relevant:
    """Could a cue at (seat, t) be a foul under the timeline's intervals?"""
    nights = [iv for iv in intervals if iv.timed and iv.kind is Kind.NIGHT]
    permits = [iv for iv in intervals if iv.timed and iv.permits]

    def relevant(seat: int, t: float, cue: str) -> bool:
        if cue not in NIGHT_ONLY:
            return True
        if not any(iv.t0 <= t < iv.t1 for iv in nights):
            return False
        return not any(iv.t0 <= t < iv.t1 and iv.allowed(seat, p) for iv in permits for p in NIGHT_ONLY[cue])
    return relevant


def glimpses(features: Iterable[tuple[int, float, dict]], schedule: Schedule,
             relevant: Relevant | None = None) -> list[Glimpse]:
    """Sparse frames whose windows lean toward a rare act that could be a foul
    there (strongest first)."""
    sparse = [r for r in schedule.ranges if r.fps <= SPARSE_FPS and r.models != ()]
    out: list[Glimpse] = []
    for seat, t, f in features:
        if not any(r.t0 <= t < r.t1 for r in sparse):
            continue
        for cue, least in CUES.items():
            p = f.get(cue, 0.0)
            if p >= least and (relevant is None or relevant(seat, t, cue)):
                out.append(Glimpse(seat, t, cue, p))
                break
    return sorted(out, key=lambda g: -g.p)


def refine_schedule(found: list[Glimpse], schedule: Schedule, duration: float) -> Schedule:
    """Dense ranges around the glimpses, for their seats, with the models of
    the range each glimpse was in; capped at MAX_SHARE of the seat-seconds."""
    budget = MAX_SHARE * duration * 10
    ranges: list[ScheduleRange] = []
    for g in found:
        if budget <= 0:
            break
        src = next((r for r in schedule.ranges if r.t0 <= g.t < r.t1), None)
        if src is None:
            continue
        a, b = max(0.0, g.t - PAD), min(duration, g.t + PAD)
        if b - a <= 1e-3:
            continue
        ranges.append(ScheduleRange(round(a, 3), round(b, 3), REFINE_FPS, (g.seat,), "refine", src.models))
        budget -= b - a
    return Schedule(tuple(ranges)).merged()


__all__ = ["Glimpse", "glimpses", "relevance", "refine_schedule", "CUES", "SPARSE_FPS", "REFINE_FPS", "PAD", "MAX_SHARE"]

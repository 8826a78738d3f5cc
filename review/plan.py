"""Which seconds of the recording the rules need, and how densely.

The timeline says where a rule applies; this turns it into the vision
schedule: dense around vote calls (fists land within a second), nightfall
(masks within 3 s) and the shooting (finger flexes), sparser for checks and
the rest of the night, and a slow pass over the day for touching and standing.
Nothing else is ever decoded.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from engine.timeline import Interval, Kind
from vision.schedule import ZONE_PASS, Schedule, ScheduleRange


# Which MediaPipe passes each kind of interval needs. Masks, vote fists, the
# night pose, standing and empty seats come from the learned seat windows
# (vision.appearance), computed on every analysed frame without a model run.
# Votes: the hands on the table zone, for the fist's form; raise votes add
# raised hands. Nights: hands at the mask, shots and finger counts, and the
# pose for a head or arms out of the night pose. Days: touching (hands and the
# arm that reaches). The coarse pass that finds nights and votes in a
# recording without times needs nothing but the windows. Nights (and the
# masking, shooting, checks and morning around them) add the face mesh on the
# head window: the mask read by a model of real faces (vision.faces).
VOTE_PASSES = (ZONE_PASS,)
RAISE_PASSES = ("hands", ZONE_PASS)
NIGHT_PASSES = ("pose", "hands", "mesh")
DAY_PASSES = ("pose", "hands")
COARSE_PASSES: tuple[str, ...] = ()
EXIT_PASSES: tuple[str, ...] = ()     # an empty seat is the windows' reading


@dataclass(frozen=True)
class Density:
    """Sampling rates (frames per second) per kind of interval."""
    # a vote fist stays >= 1 s; 5 fps times its landing to 0.2 s
    vote: float = 5.0
    masking: float = 5.0
    morning: float = 1.0      # key frames: the masks come off over seconds, the audio cue times it
    shooting: float = 6.0
    check: float = 1.0        # key frames: a gesture to the Don or Sheriff is held for seconds
    night: float = 1.0
    day: float = 1.0          # key frames only (vision.schedule): cheap, and a stand-up lasts seconds
    # padding around vote calls and nightfall, seconds
    vote_pad: tuple[float, float] = (1.0, 2.0)
    masking_pad: tuple[float, float] = (0.5, 3.0)
    # a seat that has just left the game, until its empty chair is seen
    # (review.checks._leaves looks 3 s past the stand-up)
    exit: float = 1.0
    exit_grace: float = 4.0


FAST = Density()
# When the protocol has no times: one sparse pass over everything finds the
# nights and votes (masks, fists), then the dense plan runs on the aligned timeline.
COARSE_FPS = 1.0


def plan_schedule(intervals: Sequence[Interval], duration: float, density: Density = FAST,
                  only: Sequence[str] | None = None, slack: Mapping[str, float] | None = None) -> Schedule:
    """The schedule for intervals already on the video clock.

    `only`: interval keys to restrict to (an appeal about one phase). `slack`: interval
    key -> seconds either side by which its placement may be off (an untimed protocol
    aligned from the picture alone, or only from the order of events): its dense
    frames reach that much further, so the call is sampled wherever it really was."""
    ranges: list[ScheduleRange] = []
    slack = slack or {}
    # the interval whose ranges are being added, and its seats: read by add()
    key = ""
    seats: tuple[int, ...] | None = None

    def add(t0, t1, fps, label, passes=NIGHT_PASSES):
        extra = slack.get(key, 0.0)
        t0, t1 = max(0.0, t0 - extra), min(duration, t1 + extra)
        if t1 - t0 > 1e-3:
            ranges.append(ScheduleRange(round(t0, 3), round(t1, 3), fps, seats, label, passes))

    for iv in intervals:
        if only and iv.key not in only and not any(iv.key.startswith(k + ".") for k in only):
            continue
        if iv.t0 is None or iv.t1 is None:
            continue
        key = iv.key
        # Every rule is checked on the seats still in the game (review.checks,
        # review.view, the recount's eligible voters): an eliminated player's
        # seat is read by none of them, so it is not analysed. A timeline
        # without seats (an old or hand-made one) keeps every seat.
        seats = tuple(sorted(iv.in_game)) if iv.in_game else None
        k = iv.kind
        if k in (Kind.VOTE_CALL, Kind.RAISE_VOTE):
            end = iv.details.get("window_close") or iv.t1
            add(iv.t0 - density.vote_pad[0], end + density.vote_pad[1], density.vote, iv.key,
                RAISE_PASSES if k is Kind.RAISE_VOTE else VOTE_PASSES)
        elif k is Kind.MASKING:
            add(iv.t0 - density.masking_pad[0], iv.t1 + density.masking_pad[1], density.masking, iv.key)
        elif k is Kind.SHOOTING:
            add(iv.t0, iv.t1, density.shooting, iv.key)
        elif k in (Kind.DON_CHECK, Kind.SHERIFF_CHECK, Kind.GUESS, Kind.MAFIA_WAKE, Kind.DON_WAKE,
                   Kind.SHERIFF_WAKE):
            add(iv.t0, iv.t1, density.check, iv.key)
        elif k is Kind.NIGHT:
            add(iv.t0, iv.t1, density.night, iv.key)
            add(iv.t1 - 0.5, iv.t1 + 4.0, density.morning, iv.key + ".morning")
        elif k is Kind.DAY:
            add(iv.t0, iv.t1, density.day, iv.key, DAY_PASSES)
    # A player voted out or removed stands up and leaves; the checks tell that
    # exit from a stand-up foul by the seat seen empty right after it
    # (review.checks._leaves), so a seat is read a little past the last
    # interval it played in, where that moment is analysed at all.
    for seat, (t_exit, exit_key) in _exits(intervals).items():
        if any(r.t0 <= t_exit <= r.t1 for r in ranges):
            key, seats = exit_key, (seat,)
            add(t_exit, t_exit + density.exit_grace, density.exit, f"exit.{seat}", EXIT_PASSES)
    return Schedule(tuple(ranges)).merged()


def _exits(intervals: Sequence[Interval]) -> dict[int, tuple[float, str]]:
    """seat -> (end of the last timed interval the seat was in the game for,
    that interval's key), for seats out of the game before the timeline ends."""
    ends = [(float(iv.t1), iv) for iv in intervals if iv.t0 is not None and iv.t1 is not None and iv.in_game]
    if not ends:
        return {}
    last: dict[int, tuple[float, str]] = {}
    for t1, iv in ends:
        for seat in iv.in_game:
            if seat not in last or t1 > last[seat][0]:
                last[seat] = (t1, iv.key)
    end = max(t1 for t1, _ in ends)
    return {seat: v for seat, v in last.items() if v[0] < end - 1e-6}


def coarse_schedule(duration: float, fps: float = COARSE_FPS) -> Schedule:
    return Schedule((ScheduleRange(0.0, duration, fps, None, "coarse", COARSE_PASSES),))


def schedule_seconds(schedule: Schedule) -> tuple[float, int]:
    """(seconds covered, frames) of a merged schedule."""
    secs = sum(r.t1 - r.t0 for r in schedule.ranges)
    frames = sum(len(r.times()) for r in schedule.ranges)
    return secs, frames

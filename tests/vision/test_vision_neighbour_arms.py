"""A neighbour's own arm crossing a seat's body window is not that seat's touch.

The seat geometry is the committed sample's calibration (a real table
camera's overlapping seat boxes); the seat states are those the body window
gave on fresh seed 2301, where seat 2's hand going to her mask was read as
seat 3's touch in the same frames.
"""
from __future__ import annotations

from pathlib import Path

from vision.calibration import load_calibration
from vision.neighbour_arms import SAME_MOMENT, WHY, crossed, crossing_seats, resolve
from vision.tracks import FrameState, Observed, build_tracks

SEATS = load_calibration(Path(__file__).resolve().parents[2] / "sample_videos" / "demo" / "calibration.json"
                         ).camera("cam1").seats
S = Observed
STEP = 1 / 6          # the night shooting's dense grid on seed 2301


def grid(t0: float, t1: float) -> list[float]:
    return [round(t0 + i * STEP, 3) for i in range(int(round((t1 - t0) / STEP)) + 1)]


def night(seats, times) -> list[FrameState]:
    """Every seat in the night pose at every time."""
    return [FrameState(t, s, st, 1.0) for t in times for s in seats for st in (S.HEAD_DOWN, S.ARMS_CROSSED)]


def acting(seat: int, state: Observed, times, conf: float = 0.95) -> list[FrameState]:
    """The seat's act in those frames (its night pose gone there)."""
    return [FrameState(t, seat, state, conf) for t in times]


def without(frames, seat, times) -> list[FrameState]:
    ts = set(times)
    return [f for f in frames if not (f.seat == seat and f.t in ts)]


def tracks_of(frames, seat, state, times):
    return [tr for tr in build_tracks(frames, {s: list(times) for s in SEATS}) if tr.seat == seat and tr.state is state]


def test_the_seats_whose_arms_reach_a_seats_window_are_its_neighbours_by_the_geometry():
    reach = crossing_seats(SEATS)
    assert all(s not in near for s, near in reach.items())
    # the near side of the sample's table: each seat's box holds the next players' heads
    assert 2 in reach[3] and 4 in reach[3] and 8 in reach[9] and 10 in reach[9]
    # ... never a player across the table
    assert all(abs(s - n) in (1, 2, 8, 9) for s, near in reach.items() for n in near)


def test_a_touch_read_while_the_neighbour_takes_her_hand_to_her_mask_is_not_the_seats():
    # seed 2301's night-1 shooting: seat 3 holds its shot gesture, seat 2's hand goes
    # to her mask at 94.05 and the body window reads seat 3's box as a touch from
    # the frame before (93.88) to 94.22
    times = grid(93.0, 96.0)
    touch = [t for t in times if 93.85 <= t <= 94.25]
    mask = [t for t in times if 94.0 <= t <= 95.25]
    frames = without(night(SEATS, times), 2, mask) + acting(2, S.HAND_AT_MASK, mask) \
        + acting(3, S.ARM_UP, [t for t in times if t not in touch]) + acting(3, S.TOUCH, touch, 0.8)
    assert tracks_of(frames, 3, S.TOUCH, times), "the situation must raise the touch before the fix"
    out = resolve(frames, SEATS)
    assert set(crossed(frames, SEATS).values()) == {2}
    assert not tracks_of(out, 3, S.TOUCH, times)
    assert sorted(f.t for f in out if f.seat == 3 and f.state is S.BODY_UNREAD and f.value == WHY) == touch
    # the neighbour's own act stands
    assert tracks_of(out, 2, S.HAND_AT_MASK, times)


def test_a_true_touch_into_a_neighbour_sitting_still_stays_a_touch():
    # the sample's day touch: the toucher's window reads touch, both neighbours at rest
    times = grid(129.0, 131.0)
    touch = [t for t in times if 129.0 <= t <= 130.4]
    frames = [FrameState(t, s, S.HEAD_UP, 1.0) for t in times for s in SEATS] \
        + acting(7, S.TOUCH, touch, 0.95)
    out = resolve(frames, SEATS)
    assert out == frames
    assert tracks_of(out, 7, S.TOUCH, times)


def test_only_a_seat_whose_arms_reach_the_window_and_only_at_that_moment_explains_the_touch():
    times = grid(40.0, 43.0)
    touch = [t for t in times if 40.5 <= t <= 41.5]
    far = [s for s in SEATS if s != 9 and s not in crossing_seats(SEATS)[9]][0]
    base = night(SEATS, times) + acting(9, S.TOUCH, touch)
    # a player whose head is nowhere near seat 9's box raising a hand then
    assert resolve(base + acting(far, S.ARM_UP, touch), SEATS) == base + acting(far, S.ARM_UP, touch)
    # the neighbour's arm up, but later than one frame's step after the touch
    late = [t for t in times if t > touch[-1] + SAME_MOMENT + 0.01]
    assert tracks_of(resolve(base + acting(10, S.ARM_UP, late), SEATS), 9, S.TOUCH, times)
    # ... a weak reading of it is no act
    assert tracks_of(resolve(base + acting(10, S.STANDING, touch, 0.3), SEATS), 9, S.TOUCH, times)
    # the neighbour standing up at that moment: seat 9 cannot be judged there
    assert not tracks_of(resolve(base + acting(10, S.STANDING, touch), SEATS), 9, S.TOUCH, times)


def test_the_touched_players_window_seeing_the_touchers_arm_leaves_the_touch_to_the_toucher():
    times = grid(40.0, 43.0)
    touch = [t for t in times if 40.5 <= t <= 41.5]
    base = night(SEATS, times)
    # seat 10's hands reach into seat 9's zone; seat 9's window reads the arm as a touch of its own
    frames = base + [FrameState(t, 10, S.TOUCH, 0.9, "9") for t in touch] \
        + acting(9, S.TOUCH, touch, 0.8)
    out = resolve(frames, SEATS)
    assert tracks_of(out, 10, S.TOUCH, times) and not tracks_of(out, 9, S.TOUCH, times)
    # each naming the other: the analysis cannot say which, and keeps both for the judge
    both = base + [FrameState(t, 10, S.TOUCH, 0.9, "9") for t in touch] \
        + [FrameState(t, 9, S.TOUCH, 0.9, "10") for t in touch]
    assert resolve(both, SEATS) == both

"""The schedule the timeline asks for: which seconds, how densely, which seats."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engine.protocol import load_protocol
from engine.replay import replay
from engine.timeline import Interval, Kind, build_timeline
from review.plan import plan_schedule
from vision.schedule import ScheduleRange

SAMPLE = Path(__file__).resolve().parents[2] / "sample_videos" / "demo" / "protocol.json"


@pytest.fixture(scope="module")
def timeline() -> list[Interval]:
    protocol = load_protocol(SAMPLE)
    return build_timeline(protocol, replay(protocol))


def _covering(schedule, t: float) -> ScheduleRange:
    return next(r for r in schedule.ranges if r.t0 <= t < r.t1)


def test_an_eliminated_seat_is_not_analysed_after_it_leaves(timeline):
    """Every check reads only the seats in the game (review.checks, review.view,
    the recount's eligible voters): a seat voted out or shot is scheduled no
    more, and a seat still playing always is."""
    schedule = plan_schedule(timeline, 200.0)
    calls = [iv for iv in timeline if iv.kind is Kind.VOTE_CALL]
    out_later = [(a, b) for a in calls for b in calls
                 if set(a.in_game) - set(b.in_game) and a.t0 < b.t0]
    assert out_later, "the sample should eliminate a seat between two vote calls"
    for call in calls:
        mid = (call.t0 + call.t1) / 2
        seats = _covering(schedule, mid).seats
        assert seats is not None and set(call.in_game) <= set(seats)
    earlier, later = out_later[0]
    gone = set(earlier.in_game) - set(later.in_game)
    assert not gone & set(_covering(schedule, (later.t0 + later.t1) / 2).seats or range(1, 11))
    # the seat is still read while it plays
    assert gone <= set(_covering(schedule, (earlier.t0 + earlier.t1) / 2).seats)


def test_a_night_keeps_the_player_killed_in_it(timeline):
    """The night's victim leaves in the morning: her mask and hands are read
    all night (a peek by the player about to be shot is still a peek)."""
    nights = [iv for iv in timeline if iv.kind is Kind.NIGHT and iv.t1 > iv.t0]
    days = {iv.round: iv for iv in timeline if iv.kind is Kind.DAY}
    killed = [(n, set(n.in_game) - set(days[n.round].in_game)) for n in nights if n.round in days]
    night, victims = next((n, v) for n, v in killed if v)
    seats = _covering(plan_schedule(timeline, 200.0), (night.t0 + night.t1) / 2).seats
    assert seats is not None and victims <= set(seats)


def test_a_timeline_without_seats_keeps_every_seat(timeline):
    bare = [dataclasses.replace(iv, in_game=()) for iv in timeline]
    assert all(r.seats is None for r in plan_schedule(bare, 200.0).ranges)


def test_the_seats_change_nothing_else(timeline):
    """Same seconds, same rates, same passes as a schedule of every seat."""
    bare = [dataclasses.replace(iv, in_game=()) for iv in timeline]

    def shape(schedule):
        return [(round(float(t), 6), r.fps, r.models) for r in schedule.ranges for t in r.times()]
    assert shape(plan_schedule(timeline, 200.0)) == shape(plan_schedule(bare, 200.0))


def test_a_leaving_player_is_read_until_the_chair_is_empty(timeline):
    """A stand-up at the end of the player's last day is an exit only if the
    seat is then seen empty (review.checks._leaves): the seat is read a few
    seconds past the last interval it played in, then no more."""
    schedule = plan_schedule(timeline, 200.0)
    days = [iv for iv in timeline if iv.kind is Kind.DAY and iv.t1 > iv.t0]
    nights = {iv.round: iv for iv in timeline if iv.kind is Kind.NIGHT}
    day, gone = next((d, set(d.in_game) - set(nights[d.round + 1].in_game)) for d in days
                     if d.round + 1 in nights and set(d.in_game) - set(nights[d.round + 1].in_game))
    seats_at = [set(_covering(schedule, day.t1 + dt).seats or range(1, 11)) for dt in (0.1, 3.5)]
    assert all(gone <= s for s in seats_at)
    later = set(_covering(schedule, day.t1 + 10.0).seats or range(1, 11))
    assert not gone & later

"""A closer look where a sparse pass glimpsed a rare act."""
from __future__ import annotations

from review.refine import MAX_SHARE, PAD, REFINE_FPS, glimpses, refine_schedule, relevance
from vision.schedule import Schedule, ScheduleRange

NIGHT = ("pose", "hands")
SCHED = Schedule.of(ScheduleRange(0, 60, 1.0, None, "r1.night", NIGHT),
                    ScheduleRange(60, 70, 5.0, None, "r1.vote", ("hands_zone",)),
                    ScheduleRange(70, 100, 1.0, None, "coarse", ()))


def rows(*items):
    return [(seat, t, f) for seat, t, f in items]


def test_only_sparse_frames_with_a_cue_are_glimpses():
    found = glimpses(rows((3, 10.0, {"app_body_hand_face": 0.6}),
                          (4, 11.0, {"app_body_hand_face": 0.1, "app_body_rest": 0.9}),
                          (5, 12.0, {"app_head_mask_lifted": 0.35}),
                          (6, 62.0, {"app_body_touch": 0.9}),           # a dense range: seen well already
                          (7, 80.0, {"app_body_touch": 0.9})), SCHED)   # a pass with no models
    assert [(g.seat, g.t, g.cue) for g in found] == [(3, 10.0, "app_body_hand_face"),
                                                     (5, 12.0, "app_head_mask_lifted")]


def test_the_closer_look_is_dense_for_the_seat_with_the_range_models():
    found = glimpses(rows((3, 10.0, {"app_body_touch": 0.7}), (3, 11.0, {"app_body_touch": 0.8}),
                          (8, 40.0, {"app_body_standing": 0.5})), SCHED)
    fine = refine_schedule(found, SCHED, 100.0).ranges
    assert [(r.t0, r.t1, r.seats) for r in fine] == [(10.0 - PAD, 11.0 + PAD, (3,)), (40.0 - PAD, 40.0 + PAD, (8,))]
    assert all(r.fps == REFINE_FPS and set(r.models) == set(NIGHT) for r in fine)


def test_the_closer_look_is_capped_strongest_first():
    many = [(s, float(t), {"app_body_hand_face": 0.3 + 0.001 * t}) for t in range(1, 59) for s in range(1, 11)]
    fine = refine_schedule(glimpses(many, SCHED), SCHED, 100.0)
    seat_seconds = sum((r.t1 - r.t0) * len(r.seats) for r in fine.ranges)
    assert seat_seconds <= MAX_SHARE * 100.0 * 10 + 2 * PAD * 10
    # the strongest glimpses (latest, by construction) are the ones kept
    assert min(r.t0 for r in fine.ranges) > 40


def night_found(wake_kind: str, permit: str, cues: list[tuple[int, float, dict]]) -> list[tuple[int, float]]:
    """Glimpses on a night 0-60 s with seat 2 allowed `permit` in 10-20 s
    (a wake or the shooting), then a day 60-120 s, all sampled at 1 fps."""
    from engine.timeline import Interval, Kind, Permit
    night = Interval(Kind.NIGHT, "r1.night", "night 1", 1, 0.0, 60.0, None)
    awake = Interval(Kind[wake_kind], f"r1.{wake_kind.lower()}", "awake", 1, 10.0, 20.0, None,
                     permits={2: frozenset({Permit[permit]})})
    day = Interval(Kind.DAY, "r1.day", "day 1", 1, 60.0, 120.0, None)
    sched = Schedule.of(ScheduleRange(0, 120, 1.0, None, "all", NIGHT))
    return sorted((g.seat, g.t) for g in glimpses(rows(*cues), sched, relevance([night, awake, day])))


def test_a_lifted_mask_is_a_glimpse_only_at_night_for_a_seat_not_awake_by_right():
    lifted = {"app_head_mask_lifted": 0.9}
    found = night_found("MAFIA_WAKE", "UNMASK", [(2, 15.0, lifted), (3, 15.0, lifted), (2, 30.0, lifted),
                                                 (3, 70.0, lifted), (4, 70.0, {"app_body_touch": 0.6})])
    assert found == [(2, 30.0), (3, 15.0), (4, 70.0)]


def test_an_arm_up_is_a_glimpse_at_night_unless_the_seat_may_raise_it_there():
    up = {"app_body_raised": 0.7}
    found = night_found("SHOOTING", "RAISE_HAND", [(2, 15.0, up), (3, 15.0, up), (2, 40.0, up), (5, 90.0, up)])
    assert found == [(2, 40.0), (3, 15.0)]

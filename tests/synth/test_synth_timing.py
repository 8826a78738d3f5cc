"""The judge's clock: every event timed, in order, with real-time calls."""
from __future__ import annotations

from sample_videos.director.game import sample_game
from sample_videos.director.timing import judge_record, time_protocol


def _timed(seed, realistic=False):
    return judge_record(time_protocol(sample_game(seed), seed, realistic=realistic))


def test_every_event_is_timed_and_ordered():
    proto = _timed(3)
    times = []
    for ev in proto["events"]:
        assert isinstance(ev.get("t"), float), ev
        if ev["type"] not in ("nominate", "shot"):  # said inside a speech / at a call
            times.append(ev["t"])
        if "t_end" in ev:
            assert ev["t_end"] > ev["t"]
    assert times == sorted(times)


def test_vote_calls_in_real_time():
    proto = _timed(4)
    votes = [ev for ev in proto["events"] if ev["type"] == "vote"]
    assert len(votes) >= 7
    for a, b in zip(votes, votes[1:]):
        assert 0.85 <= a["t_call_end"] - a["t"] <= 1.15
        assert 1.35 <= a["t_thanks"] - a["t_call_end"] <= 1.65
        if b["t"] - a["t_thanks"] < 3:  # the next call of the same pass
            assert 0.95 <= b["t"] - a["t_thanks"] <= 1.35


def test_shooting_calls_and_shots():
    proto = _timed(5)
    events = proto["events"]
    calls = [ev for ev in events if ev["type"] == "shooting_call"]
    for a, b in zip(calls, calls[1:]):
        if b["t"] - a["t"] < 3:
            assert 1.35 <= b["t"] - a["t"] <= 1.65
    for i, ev in enumerate(events):
        if ev["type"] == "shot":
            call = next(e for e in reversed(events[:i]) if e["type"] == "shooting_call")
            assert call["seat"] == ev["target"] and 0.15 <= ev["t"] - call["t"] <= 0.5


def test_short_and_realistic_speeches():
    short = [ev["t_end"] - ev["t"] for ev in _timed(6)["events"] if ev["type"] == "speech"]
    real = [ev for ev in _timed(6, realistic=True)["events"] if ev["type"] == "speech"]
    assert max(short) < 4.0
    normal = [ev["t_end"] - ev["t"] for ev in real if ev.get("kind", "normal") == "normal"]
    assert min(normal) >= 30.0 and max(normal) <= 60.0

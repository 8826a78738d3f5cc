"""Alignment: a "thank you" is heard after the call whose window it closes."""
from __future__ import annotations

from pathlib import Path

from engine.protocol import load_protocol
from engine.replay import replay
from engine.timeline import Kind, build_timeline
from review.align import Mark, align, expected_marks, speech_marks
from vision.audio import Segment

SAMPLE = Path(__file__).resolve().parents[2] / "sample_videos" / "demo" / "protocol.json"


def test_an_utterance_before_the_call_ends_is_not_its_thank_you():
    # Fresh seed 5900: "who votes against number 8" was heard as two short utterances;
    # the second, 3.1 s after the previous call, was taken for this call's "thank you"
    # (the real one, 5 s after any long utterance, could not be one), and the window
    # closed before it opened: four votes in time were read late.
    tl = build_timeline(load_protocol(SAMPLE), replay(load_protocol(SAMPLE)))
    calls = [iv for iv in tl if iv.kind is Kind.VOTE_CALL]
    first, call = calls[0], calls[1]
    assert call.details["t_call_end"] is not None and call.details["window_close"] is not None
    marks = [Mark(e.kind, e.t, 1.0, "video") for e in expected_marks(tl)
             if e.kind in ("nightfall", "morning") and e.t is not None]
    # the picture places the call a little early (the first fist lands early)
    marks.append(Mark("vote_call", call.t0 - 0.3, 0.9, "video", n=4))
    close = call.details["window_close"]
    segments = [Segment(first.t0, first.details["t_call_end"], 20.0),
                Segment(first.details["window_close"], first.details["window_close"] + 0.18, 20.0),
                Segment(call.t0 + 0.1, call.t0 + 0.35, 15.0),
                Segment(close - 1.95, close - 1.55, 15.0),       # the call's second half
                Segment(close, close + 0.18, 20.0)]
    speech = speech_marks(segments)
    assert "thanks" in speech[3].fits and "thanks" not in speech[4].fits   # as heard on seed 5900
    al = align(tl, sorted(marks + speech, key=lambda m: m.t))
    placed = next(p.interval for p in al.placements if p.interval.key == call.key)
    assert placed.details["window_close"] > placed.details["window_open"]
    assert abs(placed.details["window_close"] - close) < 0.5
    # the same utterance after the call's end is taken (the rule is the order, not a distance)
    late = [s if k != 3 else Segment(placed.details["window_open"] + 0.05, placed.details["window_open"] + 0.45, 15.0)
            for k, s in enumerate(segments)]
    al = align(tl, sorted(marks + speech_marks(late), key=lambda m: m.t))
    placed = next(p.interval for p in al.placements if p.interval.key == call.key)
    assert abs(placed.details["window_close"] - (placed.details["window_open"] + 0.05)) < 0.01

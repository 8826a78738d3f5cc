"""The sound track: music only at night, a distinct tone at every judge call."""
from __future__ import annotations

import numpy as np
import pytest

from sample_videos.audio import (CUE_TONES, MUSIC_BAND, band_energy, cues_from_protocol, read_wav,
                                 render_audio, tone_power, write_wav)


@pytest.fixture(scope="module")
def track(sample_game, tmp_path_factory):
    g = sample_game
    nights = [(n.t_nightfall, n.t_morning) for n in g.plan.nights]
    samples = render_audio(g.duration, nights, cues_from_protocol(g.timed), seed=7)
    path = tmp_path_factory.mktemp("audio") / "a.wav"
    write_wav(samples, path)
    data, rate = read_wav(path)
    return g, nights, data, rate


def test_wav_round_trip(track):
    g, _, data, rate = track
    assert rate in (44100, 48000)
    assert abs(len(data) / rate - g.duration) < 0.01
    assert np.abs(data).max() <= 1.0


def test_music_energy_only_at_night(track):
    g, nights, data, rate = track
    lo, hi = MUSIC_BAND
    night_e = [band_energy(data, rate, a + 1.0, a + 3.0, lo, hi) for a, b in nights]
    # Day windows away from any call tone.
    cues = [c.t for c in cues_from_protocol(g.timed)]
    day_windows = []
    for (_, m), (nf, _) in zip(nights, nights[1:] + [(g.duration, None)]):
        t = m + 1.0
        while t + 2.0 < nf - 0.5 and len(day_windows) < 30:
            if all(abs(c - t) > 3 for c in cues):
                day_windows.append(t)
            t += 5.0
    day_e = [band_energy(data, rate, t, t + 2.0, lo, hi) for t in day_windows]
    assert len(day_e) > 5
    assert min(night_e) > 10 * max(day_e)


def test_tones_at_calls(track):
    g, _, data, rate = track
    cues = cues_from_protocol(g.timed)
    kinds = {c.kind for c in cues}
    assert kinds == {"night", "morning", "vote_call", "thanks"}
    calls = [ev for ev in g.protocol["events"] if ev["type"] == "vote"]
    assert len([c for c in cues if c.kind == "vote_call"]) == len(calls)
    quiet = [s for s, t0, t1, _ in g.plan.speeches][:1]
    assert quiet
    ref_t = g.plan.speeches[3][1] + 0.5  # mid-day, no call
    for c in cues:
        first = CUE_TONES[c.kind][0]
        on = tone_power(data, rate, c.t + 0.02, c.t + 0.16, first)
        off = tone_power(data, rate, ref_t, ref_t + 0.14, first)
        assert on > 100 * off, (c, on, off)
        # Distinct: the call's own tone dominates the other cues' first tones.
        for other, tones in CUE_TONES.items():
            if tones[0] != first:
                assert on > 10 * tone_power(data, rate, c.t + 0.02, c.t + 0.16, tones[0])

"""The speaking judge (issue 17): espeak-ng says the calls, no tones unless asked,
voices vary by seed, and `--audio-only` re-voices a game with its video stream copied."""
from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from sample_videos import speech
from sample_videos.audio import (CUE_TONES, AudioOptions, band_energy, judge_calls, render_soundtrack,
                                 tone_power)

pytestmark = pytest.mark.skipif(not speech.available(), reason="espeak-ng not installed (make render-deps)")


def _nights(g):
    return [(n.t_nightfall, n.t_morning) for n in g.plan.nights]


@pytest.fixture(scope="module")
def spoken(sample_game):
    g = sample_game
    samples = render_soundtrack(g.timed, g.duration, _nights(g), seed=7, opts=AudioOptions(language="en"))
    return g, samples


def test_every_call_of_the_protocol_is_said(sample_game):
    calls = judge_calls(sample_game.timed)
    kinds = [c.kind for c in calls]
    events = sample_game.timed["events"]
    assert kinds.count("vote_call") == sum(ev["type"] == "vote" for ev in events)
    assert kinds.count("thanks") == sum("t_thanks" in ev for ev in events)
    assert kinds.count("night") == sum(ev["type"] == "nightfall" for ev in events)
    assert kinds.count("morning") == sum(ev["type"] == "morning" for ev in events)
    assert kinds.count("shooting_call") == sum(ev["type"] == "shooting_call" for ev in events)
    assert "mafia_wake" in kinds and "don_wake" in kinds and "sheriff_sleep" in kinds
    votes = [ev for ev in events if ev["type"] == "vote"]
    said = [c for c in calls if c.kind == "vote_call"]
    assert [c.t for c in said] == [ev["t"] for ev in votes]
    assert [c.number for c in said] == [ev["candidate"] for ev in votes]


def test_a_voice_starts_at_every_call_and_no_tone_sounds(spoken):
    g, x = spoken
    rate = 48000
    floor = np.median([band_energy(x, rate, t, t + 0.3, 300, 3400) for t in np.arange(1, g.duration - 1, 7.3)])
    for c in judge_calls(g.timed):
        if c.kind in ("night", "morning", "vote_call", "thanks"):
            assert band_energy(x, rate, c.t, c.t + 0.3, 300, 3400) > 5 * floor, c
    for c in judge_calls(g.timed):
        if c.kind == "vote_call":  # the old 1 kHz tone is not there by default
            assert tone_power(x, rate, c.t + 0.02, c.t + 0.16, CUE_TONES["vote_call"][0]) < 0.01


def test_the_call_fits_the_time_the_judge_had(sample_game):
    voice = speech.draw_voice(7, "ru")
    for c in judge_calls(sample_game.timed):
        if c.kind == "vote_call":
            from sample_videos.audio import call_text
            text, s = speech.fit(call_text(c, "ru"), c.slot, voice)
            assert len(s) / speech.RATE <= c.slot + 0.05, (text, c.slot)


def test_tones_come_back_as_an_option(sample_game):
    g = sample_game
    x = render_soundtrack(g.timed, g.duration, _nights(g), seed=7, opts=AudioOptions(tones=True))
    c = next(c for c in judge_calls(g.timed) if c.kind == "vote_call")
    assert tone_power(x, 48000, c.t + 0.02, c.t + 0.16, CUE_TONES["vote_call"][0]) > 1e-4


def test_voices_vary_by_seed():
    voices = [speech.draw_voice(s) for s in range(40)]
    assert {v.language for v in voices} == {"ru", "en"}
    assert len({v.variant for v in voices}) >= 6
    assert len({v.speed for v in voices}) >= 10 and len({round(v.gain, 2) for v in voices}) >= 10
    assert speech.draw_voice(5) == speech.draw_voice(5)


def test_audio_only_revoices_with_the_video_stream_copied(sample_game, tmp_path):
    """A tiny rendered stand-in (FFmpeg's test source at the game's length) re-voiced:
    the video packets are byte for byte the same, the audio is the new speech, truth.json
    changes only in "audio"."""
    from mafvar.cli import main
    from sample_videos.render.renderer import _ffmpeg
    from sample_videos.synth import write_game
    out = tmp_path / "g"
    write_game(sample_game, out, video=False)
    d = sample_game.duration
    subprocess.run([_ffmpeg(), "-loglevel", "error", "-f", "lavfi", "-i", f"testsrc=size=96x64:rate=5:d={d}",
                    "-f", "lavfi", "-i", f"sine=frequency=1000:duration={d}", "-c:v", "libx264", "-c:a", "aac",
                    str(out / "video.mp4")], check=True)

    def stream_md5(kind):
        r = subprocess.run([_ffmpeg(), "-loglevel", "error", "-i", str(out / "video.mp4"), "-map", f"0:{kind}",
                            "-c", "copy", "-f", "md5", "-"], capture_output=True, text=True, check=True)
        return r.stdout.strip()

    before_v, before_a = stream_md5("v"), stream_md5("a")
    truth_before = json.loads((out / "truth.json").read_text())
    assert main(["synth", "--seed", "7", "--out", str(out), "--audio-only", "--language", "ru",
                 "--night-music", "off"]) == 0
    assert stream_md5("v") == before_v and stream_md5("a") != before_a
    truth = json.loads((out / "truth.json").read_text())
    assert truth["audio"]["voice"]["language"] == "ru" and truth["audio"]["music"] is False
    assert {k: v for k, v in truth.items() if k != "audio"} == \
        {k: v for k, v in truth_before.items() if k != "audio"}
    assert main(["synth", "--seed", "8", "--out", str(out), "--audio-only"]) == 2  # not this game's seed

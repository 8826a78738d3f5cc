"""Audio track reading and energy cues on real FFmpeg-made files."""
from __future__ import annotations

import wave

import numpy as np
import pytest
from conftest import ffmpeg

from vision.audio import (Audio, NoAudioError, active_intervals, band_energy, onsets, read_audio,
                          short_time_energy)


def test_reads_mono_float_pcm_at_chosen_rate(media):
    a = read_audio(str(media["audio"]), rate=16000)
    assert a.samples.dtype == np.float32 and a.rate == 16000
    assert a.duration == pytest.approx(8.0, abs=0.1)
    # A 1 kHz sine: the spectrum peaks at 1000 Hz.
    seg = a.samples[16000:32000]
    spec = np.abs(np.fft.rfft(seg))
    assert np.fft.rfftfreq(len(seg), 1 / 16000)[spec.argmax()] == pytest.approx(1000, abs=2)
    part = read_audio(str(media["audio"]), rate=8000, t0=2.0, t1=3.0)
    assert part.t0 == 2.0 and len(part.samples) == pytest.approx(8000, abs=200)


def test_no_audio_track_is_a_clear_error(media):
    with pytest.raises(NoAudioError) as exc:
        read_audio(str(media["h264"]))
    assert str(media["h264"]) in str(exc.value) and "no audio track" in str(exc.value)


def test_tone_and_music_cues(tmp_path):
    # Silence, a 0.3 s 880 Hz call tone at 1.0 s, then "music" (a 300 Hz
    # tone) from 2.5 s to 5.0 s, then silence to 6 s.
    path = tmp_path / "cues.wav"
    ffmpeg("-f", "lavfi", "-i",
           "aevalsrc='0.5*sin(2*PI*880*t)*between(t,1.0,1.3)"
           "+0.4*sin(2*PI*300*t)*between(t,2.5,5.0)':s=16000:d=6",
           "-c:a", "pcm_s16le", str(path))
    # read_audio needs a video container; the helpers work on any samples.
    with wave.open(str(path)) as w:
        raw = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768
    audio = Audio(raw, 16000)
    env = short_time_energy(audio)
    starts = onsets(env, rise_db=20)
    assert len(starts) == 2
    assert starts[0] == pytest.approx(1.0, abs=0.06) and starts[1] == pytest.approx(2.5, abs=0.06)
    tone = active_intervals(band_energy(audio, 800, 960), threshold_db=-30, min_duration=0.1)
    assert len(tone) == 1 and tone[0][0] == pytest.approx(1.0, abs=0.06)
    assert tone[0][1] == pytest.approx(1.3, abs=0.06)
    music = active_intervals(band_energy(audio, 250, 350), threshold_db=-30, min_duration=1.0)
    assert len(music) == 1
    assert music[0][0] == pytest.approx(2.5, abs=0.06) and music[0][1] == pytest.approx(5.0, abs=0.06)


def test_night_music_is_found_by_its_held_partials_and_a_voice_is_not_music():
    from sample_videos.audio import render_audio
    from vision.audio import music_intervals
    rate = 16000
    # room noise all through, the renderer's night music (a pad and an arpeggio) 6-26 s
    night = render_audio(40.0, [(6.0, 26.0)], [], seed=3, rate=rate)
    found = music_intervals(Audio(night, rate))
    assert len(found) == 1
    assert found[0][0] == pytest.approx(6.0, abs=1.0) and found[0][1] == pytest.approx(26.0, abs=1.0)
    # a voice-like sound: a gliding, syllable-modulated harmonic tone over the same noise
    t = np.arange(int(40.0 * rate)) / rate
    f0 = 140 + 40 * np.sin(2 * np.pi * 0.7 * t)
    voice = sum(np.sin(2 * np.pi * k * np.cumsum(f0) / rate) / k for k in range(1, 6))
    voice = 0.1 * voice * (np.sin(2 * np.pi * 4.0 * t) > 0)
    day = render_audio(40.0, [], [], seed=3, rate=rate) + voice.astype(np.float32)
    assert music_intervals(Audio(day.astype(np.float32), rate)) == []


def test_a_track_longer_than_its_probe_says_is_read_whole(media, monkeypatch):
    # the samples are read into one buffer sized from the probed duration; a
    # container that under-reports it must not cut the track short
    import subprocess

    import vision.audio as audio
    from vision.video import ffmpeg_exe

    whole = np.frombuffer(subprocess.run(
        [ffmpeg_exe(), "-v", "error", "-i", str(media["audio"]), "-map", "0:a:0", "-ac", "1", "-ar", "16000",
         "-f", "f32le", "pipe:1"], capture_output=True, check=True).stdout, np.float32)
    real_probe = audio.probe
    monkeypatch.setattr(audio, "probe", lambda p: real_probe(p).__class__(
        **{**real_probe(p).__dict__, "duration": 0.5}))
    a = read_audio(str(media["audio"]), rate=16000)
    assert len(whole) > 16000 * 7 and np.array_equal(a.samples, whole)
    a.samples[:10] = 0.0   # an array of its own, writable like before


def test_energies_do_not_depend_on_the_block_size(monkeypatch):
    # the windows are transformed block by block (memory); a block edge must
    # not drop, repeat or shift a window
    import vision.audio as audio

    rng = np.random.default_rng(3)
    t = np.arange(16000 * 9) / 16000
    x = (0.3 * np.sin(2 * np.pi * 440 * t) * (t > 3) + 0.05 * rng.standard_normal(len(t))).astype(np.float32)
    a = Audio(x, 16000)

    def run():
        return (audio.band_energies(a, [(400, 480), (300, 3400)], win=0.03, hop=0.01),
                audio.spectral_likeness(a), audio.short_time_energy(a))

    bands, likeness, energy = run()
    monkeypatch.setattr(audio, "BLOCK_SAMPLES", 5000)   # a few windows per block, blocks not a multiple of the hop
    small = run()
    for e, f in zip(bands + [likeness, energy], small[0] + [small[1], small[2]]):
        assert len(e.db) == len(f.db) and np.array_equal(e.times, f.times)
        np.testing.assert_allclose(e.db, f.db, rtol=0, atol=1e-9)
    assert len(bands[0].db) == 1 + (len(x) - 480) // 160

"""The audio track as mono float PCM, and energy cues for alignment.

Alignment (in `review/`) looks for the night music starting and stopping and
for short call tones; these helpers give it short-time energy, band energy,
onsets and sustained-activity intervals, without knowing what they mean.
"""
from __future__ import annotations

from typing import Sequence, cast

import io
import subprocess
import tempfile
from dataclasses import dataclass

import numpy as np

from vision.video import VideoError, ffmpeg_exe, probe


class NoAudioError(VideoError):
    """The file has no audio track."""


@dataclass(frozen=True)
class Audio:
    samples: np.ndarray      # float32, mono, in [-1, 1]
    rate: int                # samples per second
    t0: float = 0.0          # video time of samples[0]

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate


def read_audio(path: str, rate: int = 16000, t0: float = 0.0,
               t1: float | None = None) -> Audio:
    """Decodes [t0, t1) of the first audio track, downmixed to mono."""
    info = probe(path)
    if not info.has_audio:
        raise NoAudioError(path, "no audio track: alignment must use the video "
                                 "or the protocol's times")
    cmd = [ffmpeg_exe(), "-hide_banner", "-nostdin", "-v", "error"]
    if t0 > 0:
        cmd += ["-ss", f"{t0:.6f}"]
    cmd += ["-i", path, "-map", "0:a:0", "-vn", "-sn"]
    if t1 is not None:
        cmd += ["-t", f"{max(0.0, t1 - t0):.6f}"]
    cmd += ["-ac", "1", "-ar", str(rate), "-f", "f32le", "pipe:1"]
    # read straight into one buffer sized from the probed duration: a
    # full-length game's track is ~260 MB at 16 kHz, and collecting FFmpeg's
    # output then copying it into an array held it twice (a 4,049 s track
    # peaked at 544 MB)
    span = max(0.0, (info.duration if t1 is None else min(t1, info.duration)) - t0)
    buf = bytearray(4 * (int(span * rate * 1.01) + rate))
    got = 0
    with tempfile.TemporaryFile() as err, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err) as proc:
        stream = cast(io.BufferedReader, proc.stdout)
        while True:
            if got == len(buf):
                buf.extend(bytes(len(buf) // 4 + 4 * rate))   # the probe was short: grow by a quarter
            with memoryview(buf) as view:
                k = stream.readinto(view[got:])
            if not k:
                break
            got += k
        returncode = proc.wait()
        err.seek(0)
        stderr = err.read()
    del buf[got - got % 4:]
    samples = np.frombuffer(buf, np.float32)
    if returncode != 0:
        msg = stderr.decode("utf-8", "replace").strip().splitlines()
        raise VideoError(path, "audio could not be read completely: "
                         + (msg[-1] if msg else f"exit {returncode}"),
                         last_time=t0 + len(samples) / rate if len(samples) else None)
    return Audio(samples, rate, t0)


@dataclass(frozen=True)
class Envelope:
    times: np.ndarray        # centre of each window, video seconds
    db: np.ndarray           # energy in dB relative to full scale


# Windows are transformed a block at a time, the block bounded in samples:
# all of a full-length game's windows at once are gigabytes (measured on a
# 4,049 s track: the night-music likeness peaked at 1,067 MB with blocks of
# 8,192 quarter-second windows, 393 MB with these, 260 of them the samples
# themselves), and a block this size keeps the FFT as fast.
BLOCK_SAMPLES = 1 << 21


def _padded(x: np.ndarray, win: int) -> np.ndarray:
    return np.pad(x, (0, win - len(x))) if len(x) < win else x


def _blocks(x: np.ndarray, win: int, hop: int):
    """(first window, its windows as rows) block by block: window i is
    x[i*hop : i*hop + win]; the rows are views of x, not copies."""
    n = 1 + (len(x) - win) // hop
    rows = np.lib.stride_tricks.sliding_window_view(x, win)
    step = max(1, BLOCK_SAMPLES // win)
    for a in range(0, n, step):
        b = min(n, a + step)
        yield a, rows[a * hop:(b - 1) * hop + 1:hop]


def short_time_energy(audio: Audio, win: float = 0.05, hop: float = 0.025) -> Envelope:
    w, h = max(1, int(win * audio.rate)), max(1, int(hop * audio.rate))
    x = _padded(audio.samples, w)
    n = 1 + (len(x) - w) // h
    rms = np.empty(n)
    for a, fr in _blocks(x, w, h):
        rms[a:a + len(fr)] = np.sqrt(np.mean(fr.astype(np.float64) ** 2, axis=1))
    times = audio.t0 + (np.arange(n) * h + w / 2) / audio.rate
    return Envelope(times, 20 * np.log10(rms + 1e-10))


def band_energy(audio: Audio, f_lo: float, f_hi: float, win: float = 0.05,
                hop: float = 0.025) -> Envelope:
    """Energy of [f_lo, f_hi) Hz per window (Hann-windowed FFT)."""
    return band_energies(audio, [(f_lo, f_hi)], win, hop)[0]


def band_energies(audio: Audio, bands: Sequence[tuple[float, float]], win: float = 0.05,
                  hop: float = 0.025) -> list[Envelope]:
    """`band_energy` for several bands from one pass of FFTs, block by block."""
    w, h = max(8, int(win * audio.rate)), max(1, int(hop * audio.rate))
    x = _padded(audio.samples, w)
    n = 1 + (len(x) - w) // h
    hann = np.hanning(w)
    freqs = np.fft.rfftfreq(w, 1.0 / audio.rate)
    masks = [(freqs >= lo) & (freqs < hi) for lo, hi in bands]
    # Normalised so a full-scale sine in the band reads about 0 dB - 3.
    norm = 2 / (np.sum(hann ** 2) * w)
    power = np.empty((len(bands), n))
    for a, rows in _blocks(x, w, h):
        spec = np.abs(np.fft.rfft(rows * hann[None, :], axis=1)) ** 2
        for k, m in enumerate(masks):
            power[k, a:a + len(rows)] = spec[:, m].sum(axis=1) * norm
    times = audio.t0 + (np.arange(n) * h + w / 2) / audio.rate
    return [Envelope(times, 10 * np.log10(pw + 1e-12)) for pw in power]


def onsets(env: Envelope, rise_db: float = 12.0, min_gap: float = 0.2) -> list[float]:
    """Times where the energy jumps by `rise_db` over the previous window."""
    if len(env.db) < 2:
        return []
    jump = np.diff(env.db)
    out: list[float] = []
    for i in np.nonzero(jump >= rise_db)[0]:
        t = float(env.times[i + 1])
        if not out or t - out[-1] >= min_gap:
            out.append(t)
    return out


def active_intervals(env: Envelope, threshold_db: float, min_duration: float = 0.0,
                     max_gap: float = 0.0) -> list[tuple[float, float]]:
    """Intervals where energy stays above threshold (gaps <= max_gap bridged)."""
    on = env.db >= threshold_db
    spans: list[list[float]] = []
    hop = float(env.times[1] - env.times[0]) if len(env.times) > 1 else 0.0
    for i in np.nonzero(on)[0]:
        t = float(env.times[i])
        if spans and t - spans[-1][1] <= max(max_gap, hop) + 1e-9:
            spans[-1][1] = t
        else:
            spans.append([t, t])
    half = hop / 2
    return [(a - half, b + half) for a, b in spans if (b - a + hop) >= min_duration]


# ---------------------------------------------------------------- speech

@dataclass(frozen=True)
class Segment:
    """One stretch of speech: [t0, t1] video seconds, its level above the local floor."""
    t0: float
    t1: float
    rise_db: float

    @property
    def duration(self) -> float:
        return self.t1 - self.t0


# Speech is found in the band of formants and consonants, above where music pads
# and room hum live; the floor is the local quiet (a rolling low percentile), so a
# night with music and a loud day are both measured against their own background.
SPEECH_BAND = (800.0, 7000.0)
SPEECH_RISE_DB = 9.0
FLOOR_WINDOW = 12.0
FLOOR_PERCENTILE = 20.0
ONSET_DB = 3.0
ONSET_LOOKBACK = 0.3


def local_floor(env: Envelope, window: float = FLOOR_WINDOW, pct: float = FLOOR_PERCENTILE) -> np.ndarray:
    """The rolling `pct` percentile of the envelope over +-`window`/2 s, per window."""
    if not len(env.db):
        return env.db
    hop = float(env.times[1] - env.times[0]) if len(env.times) > 1 else 0.01
    step = max(1, int(round(1.0 / hop)))          # one percentile a second, interpolated
    half = max(1, int(round(window / 2 / hop)))
    centres = np.arange(0, len(env.db), step)
    vals = np.array([np.percentile(env.db[max(0, c - half):c + half + 1], pct) for c in centres])
    return np.interp(np.arange(len(env.db)), centres, vals)


def speech_segments(audio: Audio, band: tuple[float, float] = SPEECH_BAND, rise_db: float = SPEECH_RISE_DB,
                    min_duration: float = 0.12, bridge: float = 0.2) -> list[Segment]:
    """Stretches where the speech band stands `rise_db` above its local floor (pauses
    shorter than `bridge` bridged): utterances, whoever speaks them."""
    if audio is None or audio.samples.size == 0:
        return []
    env = band_energies(audio, [band], win=0.03, hop=0.01)[0]
    floor = local_floor(env)
    rel = Envelope(env.times, env.db - floor)
    out = []
    hop = float(rel.times[1] - rel.times[0]) if len(rel.times) > 1 else 0.01
    for a, b in active_intervals(rel, rise_db, min_duration=min_duration, max_gap=bridge):
        # the onset is where the voice first rises out of the floor (a soft "s" or "th"
        # starts below the threshold that found the utterance): walk back to ONSET_DB
        i = int(np.searchsorted(rel.times, a + hop / 2))
        lowest = max(0, i - int(ONSET_LOOKBACK / hop))
        while i > lowest and rel.db[i - 1] >= ONSET_DB:
            i -= 1
        a = min(a, float(rel.times[i]) - hop / 2)
        sel = (rel.times >= a) & (rel.times <= b)
        out.append(Segment(round(a, 3), round(b, 3), float(np.median(rel.db[sel])) if sel.any() else rise_db))
    return out


# ---------------------------------------------------------------- night music

# Music (a pad, chords, a melody) holds the same partials from one moment to the
# next; speech glides and stops, noise has no partials at all. The likeness of the
# low band's spectrum to itself half a second later tells them apart in any key.
MUSIC_BAND = (100.0, 700.0)
MUSIC_LIKENESS = 0.3          # music ~0.5-0.6, speech and room noise under 0.15
MUSIC_MIN_SECONDS = 6.0       # a night's music lasts; a held chord in a speech does not
MUSIC_BRIDGE = 2.0            # a pause in the music this short is the same music
MUSIC_SMOOTH = 1.0


def spectral_likeness(audio: Audio, band: tuple[float, float] = MUSIC_BAND, win: float = 0.25,
                      hop: float = 0.125, lag: float = 0.5) -> Envelope:
    """Per window, the cosine likeness of the band's log spectrum (its mean removed) to
    the one `lag` seconds later: high where the same partials are held."""
    w, h = max(8, int(win * audio.rate)), max(1, int(hop * audio.rate))
    x = _padded(audio.samples, w)
    n = 1 + (len(x) - w) // h
    freqs = np.fft.rfftfreq(w, 1.0 / audio.rate)
    m = (freqs >= band[0]) & (freqs < band[1])
    hann = np.hanning(w)
    logs = np.empty((n, int(m.sum())))
    for a, rows in _blocks(x, w, h):
        logs[a:a + len(rows)] = np.log(np.abs(np.fft.rfft(rows * hann[None, :], axis=1))[:, m] ** 2 + 1e-12)
    logs -= logs.mean(axis=1, keepdims=True)
    norm = np.linalg.norm(logs, axis=1) + 1e-9
    k = max(1, int(round(lag / (h / audio.rate))))
    sim = np.zeros(n)
    if n > k:
        sim[:-k] = np.sum(logs[:-k] * logs[k:], axis=1) / (norm[:-k] * norm[k:])
    times = audio.t0 + (np.arange(n) * h + w / 2) / audio.rate
    return Envelope(times, sim)


def music_intervals(audio: Audio, threshold: float = MUSIC_LIKENESS, min_duration: float = MUSIC_MIN_SECONDS,
                    bridge: float = MUSIC_BRIDGE) -> list[tuple[float, float]]:
    """Stretches of music (a night's, in a club that plays it): where the low band keeps
    its partials (`spectral_likeness`, smoothed over MUSIC_SMOOTH s) for `min_duration` s."""
    if audio is None or audio.samples.size == 0:
        return []
    like = spectral_likeness(audio)
    hop = float(like.times[1] - like.times[0]) if len(like.times) > 1 else 0.125
    k = max(1, int(round(MUSIC_SMOOTH / hop)))
    smooth = np.convolve(like.db, np.ones(k) / k, mode="same")
    return active_intervals(Envelope(like.times, smooth), threshold, min_duration=min_duration, max_gap=bridge)

"""The synthetic game's sound track (numpy only): room noise by day, night
music from nightfall to morning, and a short distinct tone at each judge call.

Frequencies are kept apart so alignment can tell them from each other and from
the music: the music lives below 700 Hz; the calls are pure tones above it.

| cue | tone |
|---|---|
| `night` | 1200 Hz then 800 Hz, 0.2 s each (falling) |
| `morning` | 800 Hz then 1200 Hz, 0.2 s each (rising) |
| `vote_call` | 1000 Hz, 0.18 s, at the start of "who votes against N" |
| `thanks` | 1500 Hz, 0.18 s, at "thank you" |
"""
from __future__ import annotations

import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RATE = 48000
MUSIC_BAND = (150.0, 700.0)
CUE_TONES: dict[str, tuple[float, ...]] = {
    "night": (1200.0, 800.0),
    "morning": (800.0, 1200.0),
    "vote_call": (1000.0,),
    "thanks": (1500.0,),
}
CUE_SEGMENT = {"night": 0.2, "morning": 0.2, "vote_call": 0.18, "thanks": 0.18}


@dataclass(frozen=True)
class Cue:
    t: float
    kind: str   # night | morning | vote_call | thanks


def cues_from_protocol(timed: dict) -> list[Cue]:
    out = []
    for ev in timed["events"]:
        if "t" not in ev:
            continue
        if ev["type"] == "nightfall":
            out.append(Cue(float(ev["t"]), "night"))
        elif ev["type"] == "morning":
            out.append(Cue(float(ev["t"]), "morning"))
        elif ev["type"] in ("vote", "raise_vote"):
            out.append(Cue(float(ev["t"]), "vote_call"))
            if "t_thanks" in ev:
                out.append(Cue(float(ev["t_thanks"]), "thanks"))
    return out


def _envelope(n: int, rate: int, ramp: float = 0.01) -> np.ndarray:
    k = max(1, min(n // 2, int(ramp * rate)))
    env = np.ones(n)
    ramp_in = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, k))
    env[:k] = ramp_in
    env[n - k:] = ramp_in[::-1]
    return env


def _night_music(n: int, rate: int, rng: np.random.Generator) -> np.ndarray:
    """A soft A-minor pad with a slow swell plus a plucked arpeggio."""
    t = np.arange(n) / rate
    pad = np.zeros(n)
    for f, a in ((220.0, 1.0), (261.63, 0.8), (329.63, 0.7), (164.81, 0.5)):
        detune = 1 + rng.uniform(-0.002, 0.002)
        pad += a * (np.sin(2 * np.pi * f * detune * t) + 0.3 * np.sin(2 * np.pi * 2 * f * detune * t + 0.5))
    pad *= 0.55 + 0.45 * np.sin(2 * np.pi * 0.12 * t) ** 2
    arp = np.zeros(n)
    notes = (440.0, 523.25, 659.25, 523.25)
    step = int(0.35 * rate)
    for k, start in enumerate(range(0, n, step)):
        m = min(step, n - start)
        tt = np.arange(m) / rate
        arp[start:start + m] += np.sin(2 * np.pi * notes[k % 4] * tt) * np.exp(-tt * 6.0)
    music = 0.05 * pad + 0.06 * arp
    fade = int(0.5 * rate)
    env = np.ones(n)
    if n > 2 * fade:
        env[:fade] = np.linspace(0, 1, fade)
        env[-fade:] = np.linspace(1, 0, fade)
    return music * env


def _room_noise(n: int, rng: np.random.Generator, rate: int = RATE) -> np.ndarray:
    """Quiet low-passed noise (air handling, rustle): white noise shaped in
    the frequency domain by a first-order low-pass at 300 Hz."""
    spec = np.fft.rfft(rng.standard_normal(n))
    freqs = np.fft.rfftfreq(n, 1 / rate)
    out = np.fft.irfft(spec / np.sqrt(1 + (freqs / 300.0) ** 2), n)
    return 0.012 * out / max(1e-9, float(np.std(out)))


def render_audio(duration: float, nights: list[tuple[float, float]], cues: list[Cue],
                 seed: int = 0, rate: int = RATE, noise_block: float | None = None) -> np.ndarray:
    """Mono float32 samples in [-1, 1].

    `noise_block` (seconds) makes the room noise in independent blocks of that
    length: a full-length game's single FFT over an hour of samples would take
    gigabytes."""
    rng = np.random.default_rng(seed)
    n = int(round(duration * rate))
    if noise_block:
        step = max(1, int(noise_block * rate))
        audio = np.concatenate([_room_noise(min(step, n - a), rng, rate) for a in range(0, n, step)]) \
            if n else np.zeros(0)
    else:
        audio = _room_noise(n, rng, rate)
    for t0, t1 in nights:
        a, b = max(0, int(t0 * rate)), min(n, int(t1 * rate))
        if b > a:
            audio[a:b] += _night_music(b - a, rate, rng)
    for cue in cues:
        seg = CUE_SEGMENT[cue.kind]
        start = int(cue.t * rate)
        for k, f in enumerate(CUE_TONES[cue.kind]):
            a = start + int(k * seg * rate)
            m = min(int(seg * rate), n - a)
            if m <= 0 or a < 0:
                continue
            tt = np.arange(m) / rate
            audio[a:a + m] += 0.25 * np.sin(2 * np.pi * f * tt) * _envelope(m, rate)
    return np.clip(audio, -1, 1).astype(np.float32)


def write_wav(samples: np.ndarray, path: str | Path, rate: int = RATE) -> None:
    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def read_wav(path: str | Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as w:
        rate = w.getframerate()
        data = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32767
    return data, rate


def band_energy(samples: np.ndarray, rate: int, t0: float, t1: float, lo: float, hi: float) -> float:
    """Mean power in [lo, hi] Hz over [t0, t1] s (FFT of the window)."""
    seg = samples[int(t0 * rate):int(t1 * rate)].astype(np.float64)
    if len(seg) == 0:
        return 0.0
    spec = np.abs(np.fft.rfft(seg * np.hanning(len(seg)))) ** 2
    freqs = np.fft.rfftfreq(len(seg), 1 / rate)
    return float(spec[(freqs >= lo) & (freqs <= hi)].sum() / len(seg))


def tone_power(samples: np.ndarray, rate: int, t0: float, t1: float, freq: float) -> float:
    """Power at one frequency over [t0, t1] (Goertzel-style projection)."""
    seg = samples[int(t0 * rate):int(t1 * rate)].astype(np.float64)
    if len(seg) == 0:
        return 0.0
    tt = np.arange(len(seg)) / rate
    c = np.dot(seg, np.cos(2 * np.pi * freq * tt))
    s = np.dot(seg, np.sin(2 * np.pi * freq * tt))
    return float((c * c + s * s) / len(seg) ** 2)

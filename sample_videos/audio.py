"""The synthetic game's sound track: room noise, the judge's spoken calls
(espeak-ng, `speech.py`), the players' murmur during their speeches, optional
night music from nightfall to morning, and optionally the old call tones.

`render_soundtrack` is what `mafvar synth` uses: the judge says every call of
the rulebooks ("Night", "the mafia goes hunting", the seat numbers at the
shooting, the Don's and the Sheriff's wake and sleep, "Morning, the city wakes
up", the candidates, "who votes against number N", "thank you", the raise
question, "the game is over") in Russian or English, with a voice, speed,
pitch and loudness drawn from the seed; night music is drawn from the seed
unless set; the tones below are off unless asked for (`AudioOptions.tones`).
`render_audio` is the older tones-and-music track, kept for that option.

The tones' frequencies are kept apart so alignment can tell them from each
other and from the music: the music lives below 700 Hz; the tones above it.

| cue | tone |
|---|---|
| `night` | 1200 Hz then 800 Hz, 0.2 s each (falling) |
| `morning` | 800 Hz then 1200 Hz, 0.2 s each (rising) |
| `vote_call` | 1000 Hz, 0.18 s, at the start of "who votes against N" |
| `thanks` | 1500 Hz, 0.18 s, at "thank you" |
"""
from __future__ import annotations

import random
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import speech

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


# ---------------------------------------------------------------- the speaking judge

@dataclass(frozen=True)
class AudioOptions:
    """What the sound track holds. None: drawn from the seed."""
    language: str | None = None   # ru | en
    tones: bool = False           # the old call tones as well
    music: bool | None = None     # night music

    def resolved(self, seed: int) -> "AudioOptions":
        rng = random.Random(f"{seed}:audio")
        language = self.language or speech.draw_voice(seed).language
        music = self.music if self.music is not None else rng.random() < 0.6
        return AudioOptions(language, self.tones, music)


@dataclass(frozen=True)
class Call:
    """One thing the judge says: `kind`, its start `t` and the time it may take (`slot`)."""
    t: float
    kind: str
    slot: float | None
    number: int | None = None          # the seat a call names
    numbers: tuple[int, ...] = ()      # the candidates read out

    def to_dict(self) -> dict:
        out: dict = {"t": round(self.t, 2), "kind": self.kind}
        if self.slot is not None:
            out["t_end"] = round(self.t + self.slot, 2)
        if self.number is not None:
            out["seat"] = self.number
        return out


# wordings, longest first: `speech.fit` takes the longest that fits the slot
PHRASES: dict[str, dict[str, tuple[str, ...]]] = {
    "ru": {"night": ("Наступает ночь", "Ночь"), "mafia_wake": ("Мафия выходит на охоту", "Мафия просыпается"),
           "shooting_call": ("{n}",), "don_wake": ("Дон просыпается и ищет шерифа", "Дон просыпается"),
           "don_sleep": ("Дон засыпает",), "sheriff_wake": ("Шериф просыпается",),
           "sheriff_sleep": ("Шериф засыпает",),
           "morning": ("Утро. Город просыпается", "Город просыпается", "Утро"),
           "vote_announce": ("На голосование выставлены номера {list}", "Выставлены {list}"),
           "vote_call": ("Кто голосует против номера {n}", "Кто против номера {n}", "Против номера {n}",
                         "Номер {n}"),
           "thanks": ("Спасибо",), "raise_call": ("Кто за то, чтобы все покинули стол", "Кто за подъём"),
           "result": ("Игра окончена",)},
    "en": {"night": ("Night falls", "Night"), "mafia_wake": ("The mafia wakes up", "Mafia, wake up"),
           "shooting_call": ("{n}",), "don_wake": ("The Don wakes up",), "don_sleep": ("The Don goes to sleep",),
           "sheriff_wake": ("The Sheriff wakes up",), "sheriff_sleep": ("The Sheriff goes to sleep",),
           "morning": ("Morning. The city wakes up", "The city wakes up", "Morning"),
           "vote_announce": ("The candidates are numbers {list}", "Candidates {list}"),
           "vote_call": ("Who votes against number {n}", "Against number {n}", "Number {n}"),
           "thanks": ("Thank you",), "raise_call": ("Who is for all of them leaving the table", "All leave?"),
           "result": ("The game is over",)},
}
# the longest a call may run when nothing follows it closely
CALL_MAX = 2.5
THANKS_SLOT = 1.0


def judge_calls(timed: dict) -> list[Call]:
    """Everything the judge says, from the timed protocol, in time order."""
    events = [ev for ev in timed["events"] if "t" in ev]
    times = sorted(float(ev["t"]) for ev in events)

    def slot_after(t: float) -> float:
        nxt = next((u for u in times if u > t + 0.05), None)
        return CALL_MAX if nxt is None else max(0.3, min(CALL_MAX, nxt - t - 0.15))

    out: list[Call] = []
    first_call_of_night: dict[int, float] = {}
    night = -1
    for ev in events:
        kind, t = ev["type"], float(ev["t"])
        if kind == "nightfall":
            night += 1
            out.append(Call(t, "night", slot_after(t)))
        elif kind == "shooting_call":
            first_call_of_night.setdefault(night, t)
            out.append(Call(t, "shooting_call", slot_after(t), number=int(ev["seat"])))
        elif kind in ("don_check", "sheriff_check"):
            who = "don" if kind == "don_check" else "sheriff"
            out.append(Call(t, f"{who}_wake", slot_after(t)))
            if "t_end" in ev:
                out.append(Call(float(ev["t_end"]), f"{who}_sleep", slot_after(float(ev["t_end"]))))
        elif kind == "mafia_wake":
            out.append(Call(t, "mafia_wake", slot_after(t)))
        elif kind == "morning":
            out.append(Call(t, "morning", slot_after(t)))
        elif kind == "vote_announce" and ev.get("candidates"):
            out.append(Call(t, "vote_announce", slot_after(t), numbers=tuple(ev["candidates"])))
        elif kind == "vote":
            end = ev.get("t_call_end")
            out.append(Call(t, "vote_call", (float(end) - t) if end is not None else 1.0,
                            number=int(ev["candidate"])))
        elif kind == "raise_vote":
            end = ev.get("t_thanks")
            out.append(Call(t, "raise_call", max(0.5, float(end) - t - 0.3) if end is not None else 1.5))
        elif kind == "result":
            out.append(Call(t, "result", slot_after(t)))
        if kind in ("vote", "raise_vote") and "t_thanks" in ev:
            out.append(Call(float(ev["t_thanks"]), "thanks", THANKS_SLOT))
    nightfalls = {k: c.t for k, c in enumerate(c for c in out if c.kind == "night")}
    for k, t_first in first_call_of_night.items():
        # "the mafia goes hunting" just before the first seat number of the shooting
        t = max(nightfalls.get(k, 0.0) + 1.0, t_first - 1.9)
        if t < t_first - 0.6:
            out.append(Call(t, "mafia_wake", t_first - t - 0.15))
    return sorted(out, key=lambda c: c.t)


def call_text(call: Call, language: str) -> list[str]:
    listed = ", ".join(str(n) for n in call.numbers)
    return [p.format(n=call.number, list=listed) for p in PHRASES[language][call.kind]]


def audio_truth(timed: dict, seed: int, opts: AudioOptions) -> dict:
    """What truth.json records of the sound track (no speech is synthesised for it)."""
    o = opts.resolved(seed)
    voice = speech.draw_voice(seed, o.language)
    return {"spoken": True, "tones": o.tones, "music": o.music, "voice": voice.to_dict(),
            "calls": [c.to_dict() for c in judge_calls(timed)]}


def render_soundtrack(timed: dict, duration: float, nights: list[tuple[float, float]], seed: int,
                      opts: AudioOptions = AudioOptions(), rate: int = RATE,
                      noise_block: float | None = None) -> np.ndarray:
    """Mono float32 in [-1, 1]: room noise, murmur, the judge's calls, music and tones
    as `opts` (resolved from the seed) says."""
    speech.require()
    o = opts.resolved(seed)
    base = render_audio(duration, nights if o.music else [],
                        cues_from_protocol(timed) if o.tones else [], seed=seed, rate=rate,
                        noise_block=noise_block).astype(np.float32)
    n = len(base)
    voice = speech.draw_voice(seed, o.language)
    language = voice.language

    def add(at: float, samples: np.ndarray) -> None:
        a = int(round(at * rate))
        if a >= n or a < 0:
            return
        m = min(len(samples), n - a)
        base[a:a + m] += samples[:m]

    for ev in timed["events"]:
        if ev["type"] == "speech" and "t" in ev and "t_end" in ev:
            add(float(ev["t"]) + 0.15, speech.murmur(max(0.0, float(ev["t_end"]) - float(ev["t"]) - 0.3),
                                                     seed, language, int(ev["seat"])))
    for call in judge_calls(timed):
        _, samples = speech.fit(call_text(call, language), call.slot, voice)
        add(call.t, samples)
    return np.clip(base, -1, 1).astype(np.float32)

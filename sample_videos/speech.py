"""The judge's voice and the players' murmur, spoken by espeak-ng (Debian `espeak-ng`).

A real recording has no call tones: the judge *says* "Night", "who votes
against number 5", "thank you". The synthetic sound track speaks those calls
in Russian or English with a voice, speed, pitch and loudness drawn from the
seed, and the players' speeches as quieter, duller murmur from other voices.

    voice = draw_voice(seed, language=None)       # the seed picks ru or en
    samples = speak("Кто голосует против номера 7", voice)   # float32 at 48 kHz
    samples = fit(["Кто голосует против номера 7", "Против номера 7"], 1.1, voice)

`fit` picks the longest wording that fits the time the judge had (a call is
about a second long in the director's timing) at up to FIT_SPEEDUP times the
voice's speed, else the shortest one at that speed.
"""
from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

RATE = 48000
ESPEAK = "espeak-ng"
LANGUAGES = ("ru", "en")
# espeak-ng voice variants that sound like a person (not the robot or whisper ones)
VARIANTS = ("m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3", "f4", "f5")
FIT_SPEEDUP = 1.8
MAX_WPM = 360


class SpeechError(RuntimeError):
    """espeak-ng is missing or failed."""


@dataclass(frozen=True)
class Voice:
    language: str       # ru | en
    variant: str        # espeak-ng variant (m1..m7, f1..f5)
    speed: int          # words per minute
    pitch: int          # 0..99
    gain: float         # peak amplitude of a call, 0..1

    @property
    def espeak_name(self) -> str:
        base = "ru" if self.language == "ru" else "en-us"
        return f"{base}+{self.variant}"

    def to_dict(self) -> dict:
        return {"language": self.language, "variant": self.variant, "speed": self.speed,
                "pitch": self.pitch, "gain": round(self.gain, 3)}


def available() -> bool:
    return shutil.which(ESPEAK) is not None


def require() -> None:
    if not available():
        raise SpeechError("espeak-ng is not installed: the judge's spoken calls need it "
                          "(Debian package espeak-ng; `make render-deps` installs it)")


def draw_voice(seed: int, language: str | None = None, role: str = "judge") -> Voice:
    """The seed's judge (or a player's) voice: language, variant, speed, pitch, loudness."""
    rng = random.Random(f"{seed}:{role}:voice")
    lang = language or rng.choice(LANGUAGES)
    if role == "judge":
        return Voice(lang, rng.choice(VARIANTS), rng.randint(150, 195), rng.randint(30, 70),
                     rng.uniform(0.35, 0.8))
    return Voice(lang, rng.choice(VARIANTS), rng.randint(140, 200), rng.randint(20, 80),
                 rng.uniform(0.1, 0.3))


@lru_cache(maxsize=4096)
def _espeak(text: str, name: str, speed: int, pitch: int) -> np.ndarray:
    """Raw espeak-ng samples (float32, its own 22,050 Hz), cached: calls repeat."""
    require()
    with tempfile.TemporaryDirectory(prefix="mafvar-speech-") as tmp:
        path = Path(tmp) / "s.wav"
        proc = subprocess.run([ESPEAK, "-v", name, "-s", str(speed), "-p", str(pitch),
                               "-w", str(path), text], capture_output=True)
        if proc.returncode != 0 or not path.is_file():
            raise SpeechError(f"espeak-ng failed on {text!r} with voice {name}: "
                              f"{proc.stderr.decode('utf-8', 'replace').strip()[:200]}")
        with wave.open(str(path), "rb") as w:
            rate = w.getframerate()
            data = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32767
    return _resample(_trim(data), rate, RATE)


def _trim(x: np.ndarray, floor: float = 0.02) -> np.ndarray:
    """Without the silence espeak-ng puts before and after an utterance."""
    loud = np.nonzero(np.abs(x) >= floor * max(1e-6, float(np.abs(x).max())))[0]
    if not len(loud):
        return x[:0]
    return x[loud[0]:loud[-1] + 1]


def _resample(x: np.ndarray, rate: int, to: int) -> np.ndarray:
    if rate == to or not len(x):
        return x.astype(np.float32)
    n = int(round(len(x) * to / rate))
    return np.interp(np.arange(n) * (rate / to), np.arange(len(x)), x).astype(np.float32)


def speak(text: str, voice: Voice, speed: int | None = None) -> np.ndarray:
    """The utterance at RATE, peak-normalised to the voice's loudness."""
    raw = _espeak(text, voice.espeak_name, int(speed or voice.speed), voice.pitch)
    peak = float(np.abs(raw).max()) if len(raw) else 0.0
    return (raw * (voice.gain / peak)).astype(np.float32) if peak > 0 else raw


def fit(texts: list[str], slot: float | None, voice: Voice) -> tuple[str, np.ndarray]:
    """The longest wording of `texts` (longest first) that fits `slot` seconds, spoken
    faster when needed (up to FIT_SPEEDUP times); else the last, at that speed."""
    if slot is None:
        return texts[0], speak(texts[0], voice)
    fastest = min(MAX_WPM, int(voice.speed * FIT_SPEEDUP))
    for text in texts:
        speed = voice.speed
        for _ in range(4):  # espeak-ng's length is not proportional to its speed: converge
            s = speak(text, voice, speed)
            need = len(s) / RATE / max(slot, 0.1)
            if need <= 1.0:
                return text, s
            if speed >= fastest:
                break
            speed = min(fastest, int(np.ceil(speed * need * 1.03)))
    return texts[-1], speak(texts[-1], voice, fastest)


# ---------------------------------------------------------------- the players' murmur

_WORDS = {
    "ru": ("я", "мирный", "шериф", "проверка", "красный", "черный", "думаю", "голосую", "за", "против",
           "номер", "три", "пять", "восемь", "он", "она", "вчера", "сегодня", "мафия", "дон", "версия",
           "пожалуйста", "посмотрите", "на", "стол", "игрок", "мне", "кажется", "точно", "ставлю", "нет"),
    "en": ("I", "am", "civilian", "sheriff", "check", "red", "black", "think", "vote", "for", "against",
           "number", "three", "five", "eight", "he", "she", "yesterday", "today", "mafia", "don", "story",
           "please", "look", "at", "table", "player", "seems", "sure", "nominate", "no"),
}


def murmur(duration: float, seed: int, language: str, who: int) -> np.ndarray:
    """A player's speech of `duration` seconds: filler sentences in a player's voice,
    dulled by distance (a moving-average low-pass), at RATE."""
    rng = random.Random(f"{seed}:murmur:{who}:{duration:.2f}")
    voice = draw_voice(seed * 31 + who, language, role="player")
    n = int(duration * RATE)
    out = np.zeros(n, np.float32)
    at = int(rng.uniform(0.1, 0.4) * RATE)
    words = _WORDS.get(language, _WORDS["en"])
    while at < n:
        text = " ".join(rng.choice(words) for _ in range(rng.randint(3, 7)))
        s = speak(text, voice)
        m = min(len(s), n - at)
        out[at:at + m] += s[:m]
        at += m + int(rng.uniform(0.15, 0.7) * RATE)
    k = 9
    return np.convolve(out, np.ones(k, np.float32) / k, mode="same").astype(np.float32)

"""Untimed alignment from the sound alone, on synthetic games, without rendering a frame.

    .venv/bin/python scripts/eval_alignment_sound.py SEED... [--language ru|en] [--music on|off]
                                                     [--cache DIR] [--verbose] [--json]

For each seed: the game `mafvar synth --seed SEED` would make (no video), its
sound track (the judge's calls, the players' murmur, room noise, night music as
the seed draws them) encoded to AAC as a recording's would be, its protocol with
every time removed, and the alignment (review.align.align) from what the sound
gives: utterances, votes heard whole, night music, no mark of the picture (the
hardest case: a venue where the picture places nothing). Prints, per seed and
summed, the nightfalls, vote calls and window edges placed within 1 s of the
truth (review.evaluate.alignment_score), how many calls were listed for an
anchor and how many misses were NOT listed (the alignment confidently wrong:
the figure that must be 0). Seconds per seed once its sound is cached (the
first time: espeak-ng speaks every call, about 30 s).

The seeds are printed as given: say which ones tune and which evaluate.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from engine.protocol import Protocol  # noqa: E402
from engine.replay import replay  # noqa: E402
from engine.timeline import build_timeline  # noqa: E402
from eval_alignment import strip_times  # noqa: E402
from review.align import align, audio_marks, music_marks, speech_marks  # noqa: E402
from review.evaluate import alignment_score, format_alignment  # noqa: E402
from sample_videos.audio import AudioOptions, render_soundtrack, write_wav  # noqa: E402
from sample_videos.synth import SynthOptions, build_game  # noqa: E402
from vision.audio import Audio, music_intervals, speech_segments  # noqa: E402
from vision.video import ffmpeg_exe  # noqa: E402

RATE = 16000


def game_sound(seed: int, language: str | None, music: bool | None, cache: Path) -> tuple[Audio, dict, dict]:
    """The seed's sound track as a recording has it (AAC, decoded to 16 kHz mono), its
    protocol and truth; cached in `cache` by seed and options."""
    cache.mkdir(parents=True, exist_ok=True)
    tag = f"{seed}-{language or 'seed'}-{'seed' if music is None else ('music' if music else 'quiet')}"
    m4a, meta = cache / f"{tag}.m4a", cache / f"{tag}.json"
    if not (m4a.exists() and meta.exists()):
        game = build_game(SynthOptions(seed=seed, audio=AudioOptions(language, False, music)))
        nights = [(n.t_nightfall, n.t_morning if n.t_morning is not None else game.duration)
                  for n in game.plan.nights]
        samples = render_soundtrack(game.timed, game.duration, nights, seed, game.options.audio)
        with tempfile.TemporaryDirectory() as tmp:
            wav = Path(tmp) / "sound.wav"
            write_wav(samples, wav)
            subprocess.run([ffmpeg_exe(), "-loglevel", "error", "-y", "-i", str(wav), "-c:a", "aac",
                            "-b:a", "128k", str(m4a)], check=True)
        meta.write_text(json.dumps({"protocol": game.protocol, "truth": game.truth}, default=str))
    raw = subprocess.run([ffmpeg_exe(), "-loglevel", "error", "-i", str(m4a), "-ac", "1", "-ar", str(RATE),
                          "-f", "f32le", "pipe:1"], capture_output=True, check=True).stdout
    doc = json.loads(meta.read_text())
    return Audio(np.frombuffer(raw, np.float32).copy(), RATE), doc["protocol"], doc["truth"]


def measure(seed: int, language: str | None, music: bool | None, cache: Path) -> dict:
    audio, protocol, truth = game_sound(seed, language, music, cache)
    proto = Protocol.from_dict(strip_times(protocol))
    marks = audio_marks(audio) + speech_marks(speech_segments(audio)) + music_marks(music_intervals(audio))
    al = align(build_timeline(proto, replay(proto)), sorted(marks, key=lambda m: m.t),
               use_protocol_times=False).to_dict()
    score = alignment_score(truth, al["intervals"])
    listed = {(a["key"], a["what"]) for a in al["needs_anchor"]}
    return {"seed": seed, "voice": truth.get("audio", {}).get("voice"), "music": truth.get("audio", {}).get("music"),
            "alignment": score, "listed": len(al["needs_anchor"]),
            "unlisted_misses": [m for m in score["misses"] if (m["key"], m["what"]) not in listed]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seeds", type=int, nargs="+")
    ap.add_argument("--language", choices=("ru", "en"), default=None, help="the judge's language (default: the seed's)")
    ap.add_argument("--music", choices=("on", "off"), default=None, help="night music (default: the seed's)")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "mafvar-sound-cache")
    ap.add_argument("--verbose", action="store_true", help="every mark with its error")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    music = None if args.music is None else args.music == "on"
    results = [measure(s, args.language, music, args.cache) for s in args.seeds]
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(f"seeds: {args.seeds}")
        for r in results:
            a, v = r["alignment"], r["voice"] or {}
            print(f"seed {r['seed']} ({v.get('language')}, voice {v.get('variant')}, loudness {v.get('gain')}, "
                  f"music {r['music']}): {a['within']}/{a['marks']} within 1 s, {r['listed']} listed for an anchor, "
                  f"{len(r['unlisted_misses'])} misses not listed")
            if args.verbose:
                print("\n".join("  " + line for line in format_alignment(a)))
    marks = sum(r["alignment"]["marks"] for r in results)
    within = sum(r["alignment"]["within"] for r in results)
    unlisted = sum(len(r["unlisted_misses"]) for r in results)
    if not args.json:
        print(f"total: {within}/{marks} within 1 s ({100 * within / max(1, marks):.1f}%); "
              f"{sum(r['listed'] for r in results)} listed for an anchor; misses not listed: {unlisted}")
    return 0 if unlisted == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

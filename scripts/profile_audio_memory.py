"""Peak memory of the alignment's audio steps on a long track.

    .venv/bin/python scripts/profile_audio_memory.py [GAME_DIR] [--times 20]

Builds a track of GAME_DIR's sound (default: the committed sample) repeated
`--times` times (FFmpeg's concat, audio only: a full-length game's length
without its video), then runs what the align step runs on it, one step at a
time, in this process, with a thread sampling its resident memory: reading
the track (vision.audio.read_audio; its probe is given the track's duration,
as the file has no video stream), the call tones (review.align.audio_marks),
the speech (vision.audio.speech_segments) and the night music of untimed
records (vision.audio.music_intervals). Prints each step's peak and wall time.
"""
from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rss_mb() -> float:
    """This process's resident memory, MB. Not vision.memory.tree_rss_mb, which adds the
    children: its peak for the same read of the 4,048 s track varied from 329 to 581 MB between
    runs (cause not found), where this process's own stays at 290."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", nargs="?", default=str(ROOT / "sample_videos" / "demo"))
    parser.add_argument("--times", type=int, default=20)
    args = parser.parse_args(argv)

    import vision.audio as audio
    from review.align import audio_marks
    from vision.video import ffmpeg_exe, probe

    video = Path(args.game) / "video.mp4"
    one = probe(str(video))
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "list.txt"
        listing.write_text("".join(f"file '{video.resolve()}'\n" for _ in range(args.times)))
        track = Path(tmp) / "long.mp4"
        subprocess.run([ffmpeg_exe(), "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", str(listing),
                        "-vn", "-c:a", "copy", str(track)], check=True)
        duration = one.duration * args.times
        audio.probe = lambda p: dataclasses.replace(one, duration=duration)  # type: ignore[assignment]
        peak = [0.0]
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], rss_mb())
                stop.wait(0.05)

        threading.Thread(target=watch, daemon=True).start()
        print(f"track: {duration:.0f} s ({args.times} x {video}); before: {rss_mb():.0f} MB")

        def step(name, run):
            peak[0] = rss_mb()
            t = time.perf_counter()
            out = run()
            time.sleep(0.1)
            print(f"  {name:<16} peak {peak[0]:6.0f} MB  (after {rss_mb():6.0f} MB)  {time.perf_counter() - t:5.1f} s")
            return out

        a = step("read_audio", lambda: audio.read_audio(str(track), rate=16000))
        step("audio_marks", lambda: audio_marks(a))
        step("speech_segments", lambda: audio.speech_segments(a))
        step("music_intervals", lambda: audio.music_intervals(a))
        stop.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())

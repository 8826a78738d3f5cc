"""What reading a game's frames costs, without the models: the analysis's own
schedule (the protocol's timeline, as `analyze` plans it) cut into its own
chunks, each read the way extraction reads it (vision.schedule._frames), per
sampling rate: chunks, frames returned, FFmpeg processes, FFmpeg's CPU (the
children's) and this process's (pipe, conversion, log parsing).

    .venv/bin/python scripts/bench_decode.py GAME_DIR [--chunks N]

Figures are CPU seconds, so another job on the machine inflates them less
than wall time; still, they vary with the load.
"""
from __future__ import annotations

import argparse
import collections
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    from review.align import align
    from review.pipeline import _video_timeline, load_game
    from review.plan import plan_schedule
    from vision.schedule import _frames, analysis_side
    from vision.video import open_video, raw_format

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", type=Path)
    parser.add_argument("--chunks", type=int, default=0, help="only the first N chunks (0: all)")
    args = parser.parse_args(argv)
    game = load_game(args.game)
    placed = align(_video_timeline(game), []).intervals
    chunks = plan_schedule(placed, game.info.duration).clipped(game.info.duration).chunks()
    video = open_video(str(game.video))
    max_side = analysis_side(video.info, game.calibration.camera(game.cam))
    rows: dict[float, list[float]] = collections.defaultdict(lambda: [0, 0, 0, 0.0, 0.0])
    started = time.perf_counter()
    for chunk in chunks[:args.chunks or None]:
        procs = video.stats.processes
        c0, p0 = children_cpu(), time.process_time()
        n = sum(1 for _ in _frames(video, chunk, max_side))
        row = rows[chunk.fps]
        row[0] += 1
        row[1] += n
        row[2] += video.stats.processes - procs
        row[3] += children_cpu() - c0
        row[4] += time.process_time() - p0
    wall = time.perf_counter() - started
    print(f"{game.video}: {video.info.width}x{video.info.height}, {video.info.pixel_format or '?'}, "
          f"piped as {raw_format(video.info, video.info.size)}; {len(chunks)} chunks")
    total = [0.0, 0.0, 0]
    for fps, (k, n, procs, ff, py) in sorted(rows.items()):
        print(f"  {fps:g} fps: {k:.0f} chunks, {n:.0f} frames, {procs:.0f} FFmpeg processes, "
              f"FFmpeg CPU {ff:.1f} s, Python CPU {py:.1f} s ({1e3 * (ff + py) / max(1, n):.1f} ms a frame)")
        total[0] += ff
        total[1] += py
        total[2] += int(n)
    print(f"  all: {total[2]} frames, CPU {total[0] + total[1]:.1f} s "
          f"(FFmpeg {total[0]:.1f}, Python {total[1]:.1f}), wall {wall:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

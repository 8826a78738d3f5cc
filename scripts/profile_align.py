"""Where the alignment step's time goes: `analyze`'s align step (seat states
from the stored landmarks, tracks, the timeline on the video clock) run once
under cProfile on an analysed game, the functions with the most cumulative
time printed. Profiling slows Python code two to three times; the step's
own wall time is in `mafvar bench` (stages "step:align").

    .venv/bin/python scripts/profile_align.py GAME_DIR [--top 30]
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from review.pipeline import Stats, _align_step, _anchors, load_game

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", type=Path)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    game = load_game(args.game)
    if not game.ws.observations_path.exists():
        print(f"{args.game}: no stored landmarks; run `mafvar analyze {args.game}` first", file=sys.stderr)
        return 2
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    _align_step(game, game.ws.observations_path, _anchors(game.ws, None), True, Stats(), None)
    profile.disable()
    print(f"align step under the profiler: {time.perf_counter() - started:.1f} s wall")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What one rendered frame costs, split into geometry, rasterisation and post
(process CPU seconds; llvmpipe's threads included), for a seed's game in the
default world or under conditions (docs/synth.md "Cost").

    .venv/bin/python scripts/render_cost.py --seed 7
    .venv/bin/python scripts/render_cost.py --seed 901 --conditions random [--frames 25 --at 30]
"""
from __future__ import annotations

import argparse
import time

from sample_videos.conditions import draw_conditions, load_conditions
from sample_videos.director.script import build_scripts
from sample_videos.render.renderer import post_process, posed_players, render_frame, renderer_for
from sample_videos.synth import SynthOptions, build_game, build_scene


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--conditions", help="random or FILE.json (default: the default world)")
    ap.add_argument("--frames", type=int, default=25, help="consecutive frames to time (25)")
    ap.add_argument("--at", type=float, default=30.0, help="first frame's time, s (30)")
    a = ap.parse_args()
    cond = None
    if a.conditions == "random":
        cond = draw_conditions(a.seed)
    elif a.conditions:
        cond = load_conditions(a.conditions)
    opts = SynthOptions(seed=a.seed, conditions=cond)
    game = build_game(opts)
    scene = game.scene if game.scene is not None else build_scene(opts, game.duration)
    scripts = build_scripts(game.plan)
    r = renderer_for(scene)
    render_frame(scene, scripts, a.at)   # context, static room and caches warm
    geo = ras = post = 0.0
    for k in range(a.frames):
        t = a.at + k / opts.fps
        t0 = time.process_time()
        mesh, _ = posed_players(scene, scripts, t)
        t1 = time.process_time()
        img = r.draw(scene, mesh)
        t2 = time.process_time()
        post_process(img, scene, int(round(t * 1000)))
        t3 = time.process_time()
        geo, ras, post = geo + t1 - t0, ras + t2 - t1, post + t3 - t2
    n = a.frames
    w, h = scene.camera.width, scene.camera.height
    print(f"seed {a.seed} {w}x{h} {opts.fps} fps: CPU per frame geometry {geo / n:.3f} s, "
          f"rasterisation {ras / n:.3f} s, post {post / n:.3f} s; "
          f"{(geo + ras + post) / n * opts.fps:.1f} CPU s per video second before encoding")


if __name__ == "__main__":
    main()

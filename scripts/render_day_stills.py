"""A rendered game for measuring seat calibration, at a fraction of a render's cost.

    .venv/bin/python scripts/render_day_stills.py --seed S --out DIR [mafvar synth options...]

Writes what `mafvar synth` writes (protocol.json, truth.json, calibration.json,
the same game and conditions for the same options) and a silent video.mp4
in which only the first day's speeches are rendered, one frame per second
(`STEP`); every other frame of the video repeats the nearest rendered one.
So every frame `mafvar calibrate` reads inside the first day's speeches is
the rendered scene at that moment (within half a second), while a whole
clip costs about 40 rendered frames instead of a thousand. The video is NOT
a game: nights, votes and anything outside the first day are stills of the
day; analyse only games rendered by `mafvar synth`.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEP = 1.0          # seconds between rendered frames
SPAN_MAX = 45.0     # at most this much of the first day is rendered


def first_day_span(protocol: dict) -> tuple[float, float]:
    """(start, end) of the first day's speeches (protocol seconds)."""
    speeches = []
    for e in protocol["events"]:
        if e["type"] == "nightfall" and speeches:
            break
        if e["type"] == "speech" and e.get("t") is not None:
            speeches.append((float(e["t"]), float(e.get("t_end") or e["t"])))
    if not speeches:
        raise SystemExit("no speech in the game's first day")
    a = speeches[0][0]
    return a, min(max(b for _, b in speeches), a + SPAN_MAX)


def main() -> int:
    from mafvar.cli import build_parser
    from mafvar.commands.synth import options_from_args
    from sample_videos.director.script import build_scripts
    from sample_videos.render.renderer import _ffmpeg, _render_chunk
    from sample_videos.synth import build_game, build_scene, check_out_dir, write_game

    argv = sys.argv[1:]
    args = build_parser().parse_args(["synth", *argv, "--no-video"])
    out = Path(args.out)
    check_out_dir(out, args.force)
    opts = options_from_args(args)
    game = build_game(opts)
    write_game(game, out, video=False)
    a, b = first_day_span(game.protocol)
    scene = build_scene(opts, game.duration)
    scripts = build_scripts(game.plan)
    fps = opts.fps
    times = [a + STEP * k for k in range(int((b - a) / STEP) + 1)]
    t0 = time.process_time()
    wall = time.perf_counter()
    stills = _render_chunk((scene, scripts, [(i, t) for i, t in enumerate(times)]))
    w, h = scene.camera.width, scene.camera.height
    n = int(round((b + 1.0) * fps))
    cmd = [_ffmpeg(), "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}",
           "-r", str(fps), "-i", "-", "-c:v", "libx264", "-preset", "veryfast", "-crf", str(opts.crf),
           "-g", str(fps), "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(out / "video.mp4")]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    for i in range(n):
        t = i / fps
        k = min(range(len(times)), key=lambda j: abs(times[j] - t))
        proc.stdin.write(stills[k])
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("ffmpeg failed")
    cond = opts.effective_conditions()
    c, cap = cond.camera, cond.capture
    print(f"wrote {out}: seed {opts.seed}, day {a:.1f}-{b:.1f} s: {len(times)} stills; camera at "
          f"{c.azimuth:.0f} deg, {c.height:.2f} m high, fov {c.fov:.0f}, {cap.width}x{cap.height} crf {cap.crf}, "
          f"light {cond.light.level:.2f}; render {time.process_time() - t0:.0f} s CPU (this process), "
          f"{time.perf_counter() - wall:.0f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())

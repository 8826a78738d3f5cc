"""The fixed camera views `mafvar calibrate` is tuned and measured on, and the
command that renders them (scripts/render_day_stills.py, first day only).

    .venv/bin/python scripts/calib_views.py list [tune|eval|check]
    .venv/bin/python scripts/calib_views.py render tune|eval|check OUT_DIR [--jobs N]

Each view is a seed and the synth options that set the camera, capture and
light; nothing is drawn at random, so the same list renders the same clips.
The tuning views (seeds 5400-5415) are where thresholds may be chosen; the
evaluation views (5600-5615) are only measured (scripts/eval_calibrate.py).
Some fixes were made after an evaluation view failed, so those figures are no
longer clean; the check views (5800-5815, cameras between the others'
azimuths) were added then and are measured once per change, never looked into.
Both cover the issue's range: camera 1.6-3.5 m high, field of view 30-75
degrees, at the head, a side or a corner of the table, 480p-1080p, light
0.4-1.5, heavy compression.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (height m, fov deg, azimuth deg, resolution, light level, crf); one row per view
_TUNE = [
    (1.6, 75, 90, "854x480", 1.0, 23), (3.5, 30, 270, "1280x720", 1.0, 23),
    (1.6, 30, 45, "1280x720", 0.45, 28), (3.5, 75, 135, "854x480", 1.5, 34),
    (2.4, 50, 225, "854x480", 0.4, 34), (2.9, 40, 315, "1280x720", 0.6, 28),
    (1.8, 60, 0, "1280x720", 1.3, 30), (3.2, 35, 180, "1920x1080", 0.8, 23),
    (2.0, 45, 270, "854x480", 0.5, 34), (3.0, 70, 90, "1280x720", 1.4, 26),
    (1.7, 40, 315, "1024x576", 1.0, 30), (3.4, 55, 45, "1280x720", 0.45, 32),
    (2.6, 30, 135, "1600x900", 1.2, 23), (2.2, 65, 225, "854x480", 0.7, 30),
    (3.5, 45, 0, "1280x720", 0.4, 34), (1.6, 55, 180, "1280x720", 1.5, 28),
]
_EVAL = [
    (1.6, 30, 90, "1280x720", 0.7, 28), (3.5, 75, 270, "854x480", 1.2, 30),
    (2.0, 75, 45, "1280x720", 1.0, 34), (3.3, 30, 135, "1280x720", 0.45, 23),
    (1.7, 50, 225, "1920x1080", 1.5, 26), (2.8, 60, 315, "854x480", 0.4, 32),
    (3.5, 40, 0, "854x480", 0.8, 34), (1.9, 35, 180, "1280x720", 1.3, 23),
    (2.5, 70, 270, "1024x576", 0.5, 28), (1.6, 45, 90, "854x480", 1.4, 34),
    (3.0, 30, 315, "1600x900", 0.6, 30), (2.2, 55, 45, "854x480", 0.45, 26),
    (3.4, 65, 135, "1280x720", 1.0, 32), (1.8, 40, 225, "1280x720", 0.4, 28),
    (2.7, 50, 0, "1280x720", 1.5, 23), (3.1, 75, 180, "854x480", 0.7, 34),
]
_CHECK = [
    (2.1, 45, 20, "1280x720", 0.9, 28), (3.3, 60, 110, "854x480", 0.55, 32),
    (1.7, 35, 200, "1280x720", 1.2, 26), (2.9, 70, 290, "1024x576", 0.45, 30),
    (1.6, 65, 160, "854x480", 1.0, 34), (3.5, 35, 340, "1920x1080", 0.7, 23),
    (2.4, 40, 65, "1280x720", 1.4, 30), (3.0, 50, 245, "854x480", 0.4, 26),
    (1.9, 75, 20, "1280x720", 0.6, 34), (2.6, 30, 200, "1600x900", 1.0, 28),
    (3.2, 55, 290, "1280x720", 1.3, 23), (1.8, 50, 110, "1024x576", 0.8, 32),
    (2.3, 60, 340, "854x480", 1.5, 28), (3.4, 40, 160, "1280x720", 0.5, 30),
    (2.0, 30, 245, "1280x720", 1.1, 34), (2.8, 45, 65, "854x480", 0.9, 23),
]
VIEWS = {"tune": dict(zip(range(5400, 5416), _TUNE)), "eval": dict(zip(range(5600, 5616), _EVAL)),
         "check": dict(zip(range(5800, 5816), _CHECK))}


def synth_options(view: tuple) -> list[str]:
    height, fov, azimuth, resolution, light, crf = view
    return ["--camera-height", str(height), "--fov", str(fov), "--set", f"camera.azimuth={azimuth}",
            "--resolution", resolution, "--set", f"light.level={light}", "--crf", str(crf), "--workers", "1"]


def render(seed: int, view: tuple, out: Path) -> str:
    cmd = [sys.executable, str(ROOT / "scripts" / "render_day_stills.py"), "--seed", str(seed),
           "--out", str(out / f"s{seed}"), *synth_options(view)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    return (done.stdout.strip().splitlines() or [""])[-1] if done.returncode == 0 else \
        f"s{seed}: FAILED {done.stderr.strip().splitlines()[-1:]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("list", "render"))
    parser.add_argument("set", nargs="?", choices=tuple(VIEWS))
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    sets = [args.set] if args.set else list(VIEWS)
    if args.action == "list":
        for name in sets:
            for seed, view in VIEWS[name].items():
                print(name, seed, " ".join(synth_options(view)))
        return 0
    if args.set is None or args.out is None:
        parser.error(f"render needs a set ({', '.join(VIEWS)}) and OUT_DIR")
    args.out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        for line in pool.map(lambda sv: render(sv[0], sv[1], args.out), VIEWS[args.set].items()):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

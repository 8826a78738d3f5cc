"""CPU cost per seat of the extraction's cheap stages, and of a key frame's decode.

    .venv/bin/python scripts/profile_seat_costs.py [GAME_DIR] [--seconds 10]

On GAME_DIR's video (default: the committed sample), one frame a second:
the motion thumbnail, the seat crop, the learned windows classified one seat
at a time against a frame's seats in one product, and the window products
with one BLAS thread against the library's default pool (in child processes:
the pool size is fixed when numpy loads), the head window's domain check
(vision.faces.window_domain) and the face mesh's mask reading on the head
window (vision.faces.mask_read.read_head: the mesh, the keypoint fallback,
the descriptor and the mask model), split by whether a face was found. Then
the FFmpeg CPU per key frame and per frame of a dense decode. Figures vary with the machine's load; the
closing notes quote this script's output.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PRODUCT = """
import time, numpy as np
from vision.appearance import committed_models
m = committed_models()["body"]
x = np.random.default_rng(0).random((1, m.mean.shape[0]), dtype=np.float32)
t = time.process_time()
for _ in range(2000):
    m.proba(x)
print((time.process_time() - t) / 2000 * 1e3)
"""


def _product_ms(threads: str | None) -> float:
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.pop(var, None)
        if threads:
            env[var] = threads
    out = subprocess.run([sys.executable, "-c", PRODUCT], env=env, cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip())


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("game", nargs="?", type=Path, default=ROOT / "sample_videos/demo")
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args(argv)
    import cv2
    cv2.setNumThreads(1)
    from vision.appearance import appearance_batch, appearance_features
    from vision.calibration import Calibration
    from vision.crops import seat_crop
    from vision.motion import thumbnail, watch_box
    from vision.video import open_video

    cal = Calibration.from_json(json.loads((args.game / "calibration.json").read_text()))
    cam = cal.camera(next(iter(cal.cameras)))
    video = open_video(str(args.game / "video.mp4"))
    t0 = min(60.0, video.info.duration / 3)
    frames = [f.image for f in video.iter_range(t0, t0 + args.seconds, 1.0)]
    seats = sorted(cam.seats)
    regions = [cam.seats[s] for s in seats]
    size = (video.info.width, video.info.height)
    n = len(frames) * len(seats)

    def per_seat(fn) -> float:
        c = time.process_time()
        fn()
        return (time.process_time() - c) / n * 1e3

    crops = [[seat_crop(f, r) for r in regions] for f in frames]
    rows = {
        "motion thumbnail": per_seat(lambda: [thumbnail(f, watch_box(r, size)) for f in frames for r in regions]),
        "seat crop": per_seat(lambda: [seat_crop(f, r) for f in frames for r in regions]),
        "windows, one seat at a time": per_seat(
            lambda: [appearance_features(c, r) for cs in crops for c, r in zip(cs, regions)]),
        "windows, a frame's seats in one product": per_seat(lambda: [appearance_batch(cs, regions) for cs in crops]),
    }
    from vision.faces.mask_read import read_head
    from vision.faces.mesh import HeadMesh
    from vision.faces.window_domain import head_real

    rows["head window domain check"] = per_seat(
        lambda: [head_real(c, r) for cs in crops for c, r in zip(cs, regions)])
    mesh_ms: dict[bool, list[float]] = {True: [], False: []}
    with HeadMesh() as mesh:
        read_head(mesh, crops[0][0])            # graphs built outside the timing
        for cs in crops:
            for c in cs:
                t = time.process_time()
                found = read_head(mesh, c)[0].get("mesh_found") == 1.0
                mesh_ms[found].append((time.process_time() - t) * 1e3)
    for found, label in ((True, "face mesh mask reading, face found"), (False, "face mesh mask reading, no face")):
        if mesh_ms[found]:
            rows[f"{label} ({len(mesh_ms[found])})"] = sum(mesh_ms[found]) / len(mesh_ms[found])
    print(f"{args.game}: {len(frames)} frames x {len(seats)} seats, CPU ms per seat")
    for k, v in rows.items():
        print(f"  {k:<42} {v:7.3f}")
    print("body window product, CPU ms per call:")
    print(f"  {'one BLAS thread':<42} {_product_ms('1'):7.3f}")
    print(f"  {'the BLAS default pool':<42} {_product_ms(None):7.3f}")
    c = _children_cpu()
    k = sum(1 for _ in video.iter_keyframes(t0, t0 + 5 * args.seconds, min_gap=0.9))
    key_ms = (_children_cpu() - c) / max(1, k) * 1e3
    c = _children_cpu()
    d = sum(1 for _ in video.iter_range(t0, t0 + args.seconds, video.info.fps or 25.0))
    dense_ms = (_children_cpu() - c) / max(1, d) * 1e3
    print("FFmpeg CPU ms per decoded frame:")
    print(f"  {f'key frames only ({k})':<42} {key_ms:7.3f}")
    print(f"  {f'every frame of {args.seconds:g} s ({d})':<42} {dense_ms:7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

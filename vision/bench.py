"""Throughput measurements: decoding (sparse seeks vs dense ranges) and
MediaPipe cost per model on a seat crop.

    python -m vision.bench decode VIDEO
    python -m vision.bench models [--size 256] [--image PHOTO]
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from vision.video import open_video


def decode_benchmark(path: str, dense_seconds: float = 10.0, sparse_count: int = 20) -> dict:
    """Frames per second returned, and frames decoded, for three patterns."""
    info = open_video(path).info
    out: dict = {"video": path, "size": list(info.size), "codec": info.codec,
                 "fps": info.fps, "duration": info.duration, "frames_in_file": info.frame_count}
    start = min(info.duration / 3, max(0.0, info.duration - dense_seconds))
    span = min(dense_seconds, info.duration - start)
    patterns = {
        "dense": lambda v: v.read_range(start, start + span, info.fps),
        "range_1fps": lambda v: v.read_range(0.0, info.duration, 1.0),
        "sparse_seeks": lambda v: v.read_at(
            list(np.linspace(0.3, info.duration - 0.3, sparse_count))),
        "dense_640": lambda v: v.read_range(start, start + span, info.fps, max_side=640),
    }
    for name, run in patterns.items():
        v = open_video(path)
        t = time.perf_counter()
        frames = run(v)
        dt = time.perf_counter() - t
        out[name] = {"frames": len(frames), "seconds": round(dt, 3),
                     "frames_per_s": round(len(frames) / dt, 1),
                     "frames_decoded": v.stats.frames_decoded, "processes": v.stats.processes}
        del frames
    return out


def model_benchmark(size: int = 256, image: np.ndarray | None = None, repeats: int = 20) -> dict:
    """Milliseconds of CPU per model per crop, static and tracking mode."""
    from vision.crops import crop
    from vision.landmarks import ALL_MODELS, SeatLandmarker

    if image is None:
        image = np.full((size, size, 3), 96, np.uint8)
    c = crop(image, (0, 0, image.shape[1], image.shape[0]), long_side=size)
    out: dict = {"crop": list(c.image.shape[1::-1])}
    for tracking in (False, True):
        with SeatLandmarker(tracking=tracking) as lm:
            lm.process(c)  # graph warm-up
            totals = {m.value: 0.0 for m in ALL_MODELS}
            found = {m.value: 0 for m in ALL_MODELS}
            for _ in range(repeats):
                r = lm.process(c)
                for k, v in r.cpu.items():
                    totals[k] += v
                found["pose"] += r.pose is not None
                found["face"] += bool(r.faces)
                found["mesh"] += r.mesh
                found["hands"] += bool(r.hands)
        out["tracking" if tracking else "static"] = {
            k: {"ms": round(1000 * v / repeats, 1), "found": found[k] / repeats}
            for k, v in totals.items()}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.bench")
    sub = p.add_subparsers(dest="what", required=True)
    d = sub.add_parser("decode")
    d.add_argument("video")
    m = sub.add_parser("models")
    m.add_argument("--size", type=int, default=256)
    m.add_argument("--image")
    m.add_argument("--repeats", type=int, default=20)
    a = p.parse_args(argv)
    if a.what == "decode":
        res = decode_benchmark(a.video)
    else:
        img = None
        if a.image:
            from PIL import Image
            img = np.array(Image.open(a.image).convert("RGB"))
        res = model_benchmark(a.size, img, a.repeats)
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

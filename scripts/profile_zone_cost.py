"""CPU cost of the table-zone pass per seat-frame, with and without the zone
hands' second readings (vision.hands.zone_read.second_readings).

    .venv/bin/python scripts/profile_zone_cost.py [GAME_DIR] [--frames 12] [--blob-margin M]

On GAME_DIR (default: the committed sample), frames in the middle of its
vote fists (truth.json), every seat of each: the extraction's own seat path
(vision.schedule.seat_landmarks with the zone pass), once with the second
readings and once without, on the same frames in memory. Prints the zone
pass's CPU per seat-frame (cpu["hands_zone"]: palm detector, skin-blob
readings, second readings) both ways, the hands re-read per seat-frame, and
the landmark model's runs on given regions per seat-frame by what asked for
them (skin-blob readings, second readings).
Process CPU time, so other jobs on the machine inflate it less than wall
time; still, figures vary with the load.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def vote_times(game: Path, frames: int) -> list[float]:
    truth = json.loads((game / "truth.json").read_text())
    mids = sorted({round((s["t0"] + s["t1"]) / 2, 2) for s in truth["seat_states"] if s["state"] == "vote_fist"})
    step = max(1, len(mids) // frames)
    return mids[::step][:frames]


def count_runs(runs: dict) -> None:
    """Counts the landmark model's runs on given regions (vision.hands.roi)
    by what asked for them: skin-blob readings or second readings."""
    from vision.hands.roi import RoiLandmarker
    from vision.landmarks import SeatLandmarker

    source = ["other"]
    run = RoiLandmarker._run

    def counted(self, *a):
        runs[source[0]] = runs.get(source[0], 0) + 1
        return run(self, *a)

    def tagged(name, method):
        def call(self, *a, **k):
            source[0] = name
            try:
                return method(self, *a, **k)
            finally:
                source[0] = "other"
        return call

    RoiLandmarker._run = counted  # type: ignore[method-assign]
    SeatLandmarker.read_regions = tagged("skin_blobs", SeatLandmarker.read_regions)  # type: ignore[method-assign]
    SeatLandmarker.reread = tagged("second_readings", SeatLandmarker.reread)  # type: ignore[method-assign]


def measure(game: Path, frames: int) -> dict:
    from vision.calibration import load_calibration
    from vision.landmarks import Model, SeatLandmarker
    from vision.schedule import ZONE_MAX_HANDS, seat_landmarks
    from vision.video import open_video

    cal = load_calibration(game / "calibration.json")
    seats = cal.camera("cam1").seats
    times = vote_times(game, frames)
    images = [f.image for f in open_video(str(game / "video.mp4")).read_at(times)]
    out = {}
    seat_lm = SeatLandmarker(tracking=False, models=())
    zone = SeatLandmarker(tracking=False, models=(Model.HANDS,), max_hands=ZONE_MAX_HANDS)
    try:
        # warm both graphs (the first call builds them)
        seat_landmarks(images[0], times[0], 1, seats[1], seat_lm, zone, only=[], gate=False)
        for reread in (False, True):
            cpu, reread_hands = [], []
            runs: dict = {}
            if reread:
                count_runs(runs)
            for t, image in zip(times, images):
                for seat, region in seats.items():
                    lm = seat_landmarks(image, t, seat, region, seat_lm, zone, only=[], gate=False, reread=reread)
                    cpu.append(lm.cpu["hands_zone"])
                    reread_hands.append(sum(1 for h in lm.hands if h.readings))
            out["with" if reread else "without"] = {"seat_frames": len(cpu), "cpu_ms_mean": 1e3 * float(np.mean(cpu)),
                                                    "cpu_ms_p90": 1e3 * float(np.percentile(cpu, 90)),
                                                    "hands_reread_mean": float(np.mean(reread_hands)),
                                                    "model_runs": {k: v / len(cpu) for k, v in runs.items()}}
    finally:
        seat_lm.close()
        zone.close()
    out["frames"] = times
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", nargs="?", type=Path, default=ROOT / "sample_videos" / "demo")
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--blob-margin", type=float, default=None,
                        help="read skin blobs centred in the table zone grown by this share "
                             "(default vision.schedule.BLOB_MARGIN; 10: anywhere in the crop)")
    args = parser.parse_args(argv)
    if args.blob_margin is not None:
        import vision.schedule

        vision.schedule.BLOB_MARGIN = args.blob_margin
    if not (args.game / "truth.json").exists():
        print(f"profile_zone_cost: error: {args.game}: no truth.json (a rendered game is needed)", file=sys.stderr)
        return 2
    r = measure(args.game, args.frames)
    print(f"{len(r['frames'])} vote frames of {args.game}, every seat: zone pass CPU per seat-frame")
    for k in ("without", "with"):
        m = r[k]
        print(f"  {k:>7} second readings: mean {m['cpu_ms_mean']:6.1f} ms, p90 {m['cpu_ms_p90']:6.1f} ms "
              f"over {m['seat_frames']} seat-frames; hands re-read per seat-frame {m['hands_reread_mean']:.2f}")
    runs = r["with"]["model_runs"]
    print("  landmark-model runs on given regions per seat-frame (with second readings): "
          + ", ".join(f"{k} {v:.2f}" for k, v in sorted(runs.items())))
    ratio = r["with"]["cpu_ms_mean"] / max(r["without"]["cpu_ms_mean"], 1e-9)
    print(f"  ratio {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

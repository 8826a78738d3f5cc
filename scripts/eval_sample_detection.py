"""What MediaPipe sees in a synthetic game's actual video (issue 3's acceptance).

For every true vote (truth.json), one frame in the middle of the time the fist is
down: is a hand found on the seat's table-zone crop? For every unmasked seat in
day frames sampled every few seconds: is a face found on the seat's crop? The
frames come from the encoded video.mp4 (compression included), read with the
project's own frame reader.

    .venv/bin/python scripts/eval_sample_detection.py sample_videos/demo [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sample_videos.render.detection import Detectors, square_crop  # noqa: E402
from vision.calibration import load_calibration  # noqa: E402
from vision.calibration import expected_head  # noqa: E402
from vision.video import open_video  # noqa: E402


def mask_off_spans(truth: dict, seat: int) -> list[tuple[float, float]]:
    return [(s["t0"], s["t1"]) for s in truth["seat_states"]
            if s["seat"] == seat and s["layer"] == "mask" and s["state"] in ("off", "mask_off")]


def day_spans(truth: dict) -> list[tuple[float, float]]:
    return [(d["t0"], d["t1"]) for d in truth["phases"]["days"]]


def present(truth: dict, seat: int, t: float) -> bool:
    exits = {e["seat"]: e["t"] for e in truth.get("exits", [])}
    return seat not in exits or t < exits[seat]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game_dir")
    ap.add_argument("--face-step", type=float, default=6.0, help="seconds between sampled day frames")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    game = Path(args.game_dir)
    truth = json.loads((game / "truth.json").read_text())
    cal = load_calibration(game / "calibration.json").camera("cam1")
    video = open_video(game / "video.mp4")
    det = Detectors()
    import mediapipe as mp
    full_range = mp.solutions.face_detection.FaceDetection(model_selection=1, min_detection_confidence=0.5)
    # -- hands on vote frames
    votes = [v for v in truth["votes"] if v["t_lift"] - v["t_place"] > 0.2]
    times = sorted({round((v["t_place"] + v["t_lift"]) / 2, 2) for v in votes})
    frames = {round(f.t, 2): f.image for f in video.read_at(times)}
    hands_found = 0
    for v in votes:
        img = frames[round((v["t_place"] + v["t_lift"]) / 2, 2)]
        crop, aff = square_crop(img, cal.seats[v["seat"]].table_zone, pad=0.7)
        hands_found += bool(det.hands_px(crop, aff))
    # -- faces on unmasked day frames
    samples = []
    for a, b in day_spans(truth):
        t = a + 1.5
        while t < b - 1.0:
            samples.append(round(t, 2))
            t += args.face_step
    day_frames = {round(f.t, 2): f.image for f in video.read_at(samples)}
    faces = face_total = 0
    for t, img in day_frames.items():
        for seat, region in cal.seats.items():
            if not present(truth, seat, t):
                continue
            if not any(a + 0.6 <= t <= b - 0.6 for a, b in mask_off_spans(truth, seat)):
                continue
            (cx, cy), hs = expected_head(region)
            # the seat's head region (2 head sizes around where the seat's head sits):
            # wider crops shrink a 720p face below the short-range detector's reach
            crop, _ = square_crop(img, (cx - 2 * hs, cy - 2 * hs, cx + 2 * hs, cy + 2 * hs))
            face_total += 1
            faces += det.face_found(crop) or bool(full_range.process(crop).detections)
    det.close()
    full_range.close()
    res = {"format": "mafvar-sample-detection", "version": 1, "game": str(game),
           "vote_frames": len(votes), "hands_found": hands_found,
           "hand_rate": round(hands_found / max(1, len(votes)), 4),
           "unmasked_day_seat_frames": face_total, "faces_found": faces,
           "face_rate": round(faces / max(1, face_total), 4),
           "frames_decoded": video.stats.frames_decoded}
    if args.json:
        print(json.dumps(res, indent=1))
    else:
        print(f"hands found on vote frames (table-zone crop): {hands_found}/{len(votes)} = {res['hand_rate']:.1%}")
        print(f"faces found on unmasked day frames (seat head crop): {faces}/{face_total} = {res['face_rate']:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Print what MediaPipe's bundled models find in rendered frames, per crop kind.

    .venv/bin/python scripts/render_detection_rates.py [--seeds 0,1,2] [--width 1280 --height 720]

Hands: an all-seat thumb-up vote (every third seat votes with the left hand),
two frames per seat, crops of the seat's `table_zone`, its `body` region, and
a box around the true hand; a detection counts when its landmarks lie on the
true hand.  Faces / face mesh / pose: every seat unmasked (mask on the table)
and masked, on `body` crops (face detection also on a head crop).
"""
from __future__ import annotations

import argparse
from collections import defaultdict

from sample_videos.acting.script import SeatScript, event
from sample_videos.render.detection import Detectors, hand_box, hand_matches, square_crop
from sample_videos.render.renderer import render_frame, seat_regions, truth_at
from sample_videos.render.scene import build_scene


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--camera-height", type=float, default=2.9)
    ap.add_argument("--camera-distance", type=float, default=2.75)
    ap.add_argument("--fov", type=float, default=40.0)
    a = ap.parse_args()
    det = Detectors()
    tally = defaultdict(lambda: [0, 0])

    def count(key: str, ok: bool) -> None:
        tally[key][0] += int(ok)
        tally[key][1] += 1

    for seed in (int(x) for x in a.seeds.split(",")):
        scene = build_scene(seed, width=a.width, height=a.height, camera_height=a.camera_height,
                            camera_distance=a.camera_distance, fov_y_deg=a.fov)
        regions = seat_regions(scene)
        hands = {s: "left" if (s + seed) % 3 == 0 else "right" for s in range(1, 11)}
        vote = {s: SeatScript(s, (event(0.3, "vote", form="thumb_up", hand=h),)) for s, h in hands.items()}
        for t in (1.5, 2.5):
            img, truth = render_frame(scene, vote, t), truth_at(scene, vote, t)
            for s in range(1, 11):
                true = truth[s].right_hand if hands[s] == "right" else truth[s].left_hand
                for key, box, pad in (("hands, table_zone crop", regions[s]["table_zone"], 0.15),
                                      ("hands, body crop", regions[s]["body"], 0.0),
                                      ("hands, true-hand crop", hand_box(true), 0.0)):
                    crop, aff = square_crop(img, box, pad=pad)
                    count(key, hand_matches(det.hands_px(crop, aff), true))
        for masked in (False, True):
            sc = {s: SeatScript(s, (event(0.0, "mask_on"),) if masked else ()) for s in range(1, 11)}
            img, truth = render_frame(scene, sc, 1.0), truth_at(scene, sc, 1.0)
            tag = "masked" if masked else "unmasked"
            for s in range(1, 11):
                body, _ = square_crop(img, regions[s]["body"])
                head, _ = square_crop(img, truth[s].head_box, pad=1.0)
                count(f"face detection, {tag}", det.face_found(body) or det.face_found(head))
                count(f"face mesh, {tag}", det.mesh_found(head))
                count(f"pose, {tag}", det.pose_found(body))
    det.close()
    print(f"{a.width}x{a.height}, camera height {a.camera_height} m, distance {a.camera_distance} m, "
          f"fov {a.fov}, seeds {a.seeds}")
    for key, (ok, n) in tally.items():
        print(f"  {key:28s} {ok:3d}/{n:<3d} = {ok / n:.2f}")


if __name__ == "__main__":
    main()

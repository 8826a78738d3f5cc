"""Render one frame with every action visible somewhere at the table.

    .venv/bin/python scripts/render_preview.py [--out /tmp/preview.png] [--width 1920 --height 1080]
"""
from __future__ import annotations

import argparse
import os
import time

import cv2

from sample_videos.acting.script import SeatScript, event
from sample_videos.render.renderer import render_frame, seat_regions
from sample_videos.render.scene import build_scene


def preview_scripts(t: float = 3.0) -> dict[int, SeatScript]:
    """At t=3 s: votes (three forms), a shot with two raised fingers mid-curl,
    shown fingers, the night pose with the mask on, a peek, a standing player,
    a neighbour touch, a hand at the mask, a head turn and a speaker."""
    ev = {
        1: [event(0.5, "vote", form="thumb_up")],
        2: [event(0.5, "vote", form="palm"), event(0.0, "head_turn", yaw=30)],
        3: [event(0.5, "night_pose"), event(0.2, "mask_on")],
        4: [event(0.5, "show_fingers", count=3), event(0.0, "speak")],
        5: [event(0.5, "hand_to_mask"), event(0.2, "mask_off", where="forehead")],
        6: [event(0.5, "stand_up")],
        7: [event(0.2, "mask_on"), event(1.0, "mask_lift", amount=0.75), event(0.5, "night_pose", head_down=25)],
        8: [event(0.5, "shot", fingers=2, curl_at=2.3, curl_time=1.0)],
        9: [event(0.5, "touch_neighbour", side="right"), event(0.0, "mask_off", where="table")],
        10: [event(0.5, "vote", form="fingertip")],
    }
    return {s: SeatScript(s, tuple(e)) for s, e in ev.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/preview.png")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--t", type=float, default=3.0)
    ap.add_argument("--boxes", action="store_true", help="draw seat regions")
    ap.add_argument("--video", type=float, default=0.0,
                    help="also render this many seconds to OUT.mp4 and print the speed")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    scene = build_scene(a.seed, width=a.width, height=a.height)
    t0 = time.perf_counter()
    img = render_frame(scene, preview_scripts(), a.t)
    dt = time.perf_counter() - t0
    if a.boxes:
        for s, r in seat_regions(scene).items():
            x0, y0, x1, y1 = r["body"]
            cv2.rectangle(img, (x0, y0), (x1, y1), (255, 255, 0), 1)
            cv2.putText(img, str(s), (x0 + 3, y0 + 15), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 0), 1)
            x0, y0, x1, y1 = r["table_zone"]
            cv2.rectangle(img, (x0, y0), (x1, y1), (255, 0, 255), 1)
    cv2.imwrite(a.out, cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    print(f"{a.out}: {img.shape[1]}x{img.shape[0]}, first frame {dt:.2f} s (includes GL start-up)")
    if a.video > 0:
        import resource
        from sample_videos.render.renderer import render_video

        def cpu() -> float:
            r = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
            return sum(x.ru_utime + x.ru_stime for x in r)
        c0 = cpu()
        out = a.out.rsplit(".", 1)[0] + ".mp4"
        st = render_video(scene, preview_scripts(), a.video, out, workers=a.workers)
        print(f"{out}: {st['frames']} frames, {st['seconds_per_video_second']:.2f} s wall and "
              f"{(cpu() - c0) / a.video:.2f} s CPU per video second ({a.workers} workers, "
              f"load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()

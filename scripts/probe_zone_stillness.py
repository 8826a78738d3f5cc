"""Would a motion gate on the table zone alone carry more seat-frames than
the seat gate (vision.motion) does today? Over a game's first vote calls at
5 fps (0.5 s before each call to 1 s after its window), each seat's
thumbnail of the whole watched box and of the zone alone, each compared with
its last changed thumbnail at the gate's threshold (STILL_MAX_DIFF).

    .venv/bin/python scripts/probe_zone_stillness.py GAME_DIR [--calls 12]   # analysed game
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.calibration import load_calibration  # noqa: E402
from vision.crops import expand  # noqa: E402
from vision.motion import STILL_MAX_DIFF, ZONE_MARGIN, thumbnail, watch_box  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", type=Path)
    parser.add_argument("--calls", type=int, default=12)
    args = parser.parse_args(argv)
    seats = load_calibration(args.game / "calibration.json").camera("cam1").seats
    intervals = json.loads((args.game / "analysis" / "timeline.json").read_text())["intervals"]
    calls = [i for i in intervals if i["kind"] == "vote_call"][:args.calls]
    cap = cv2.VideoCapture(str(args.game / "video.mp4"))
    size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    boxes = {"seat": {s: watch_box(r, size) for s, r in seats.items()},
             "zone": {s: expand(r.table_zone, ZONE_MARGIN, size) for s, r in seats.items()}}
    still = {"seat": 0, "zone": 0}
    n = 0
    for call in calls:
        ref: dict[str, dict] = {"seat": {}, "zone": {}}
        for t in np.arange(call["t0"] - 0.5, call["t1"] + 1.0 + 1e-9, 0.2):
            cap.set(cv2.CAP_PROP_POS_MSEC, t * 1000)
            ok, frame = cap.read()
            if not ok:
                break
            frame = frame[:, :, ::-1]
            for s in seats:
                n += 1
                for k in ("seat", "zone"):
                    th = thumbnail(frame, boxes[k][s])
                    if s in ref[k] and np.abs(th - ref[k][s]).max() <= STILL_MAX_DIFF:
                        still[k] += 1
                    else:
                        ref[k][s] = th
    print(f"seat-frames {n}, still: whole seat {still['seat']}, zone alone {still['zone']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

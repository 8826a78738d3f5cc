"""How well the table fitted to heads a person placed gives every seat
(`mafvar calibrate --heads`, `vision.table_model.fit_to_heads`).

    .venv/bin/python scripts/eval_placed_heads.py DIR... [--seats 1,2,4,5,7,9,10] [--jitter 0.2] [--seed 7]

Each DIR holds a rendered `calibration.json` (the truth). Its heads' centres for
--seats (default: all ten) are given, each moved by up to --jitter head widths in
x and y (uniform; a person reading them off the app's pixel grid), the table is
fitted to them and every seat's body box compared with the truth: a game is
right when every seat has IoU >= 0.5 and its own number. Prints per game the
worst IoU, the largest given head's distance from its fitted seat (head widths;
over `seat_proposal.NAMED_MAX_OFF` the proposal is a guess) and the CPU seconds.
Nothing is written.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.calibration import box_iou, load_calibration  # noqa: E402
from vision.seat_proposal import NAMED_MAX_OFF  # noqa: E402
from vision.table_model import fit_to_heads, seat_boxes  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--seats", default="1,2,3,4,5,6,7,8,9,10")
    ap.add_argument("--jitter", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    seats = [int(s) for s in args.seats.split(",")]
    rng = np.random.default_rng(args.seed)
    right = 0
    for d in args.dirs:
        cam = load_calibration(d / "calibration.json").camera("cam1")
        truth = cam.seats
        named = {}
        for s in seats:
            head = truth[s].head
            if head is None:
                raise SystemExit(f"{d}: seat {s} has no head in calibration.json")
            x, y, w = head
            named[s] = (x + rng.uniform(-1, 1) * args.jitter * w, y + rng.uniform(-1, 1) * args.jitter * w)
        t0 = time.process_time()
        fit = fit_to_heads(named, (cam.width, cam.height))
        cpu = time.process_time() - t0
        if fit is None:
            print(f"{d.name}: no table fits")
            continue
        boxes = [b for b, _ in seat_boxes(fit.camera, fit.table)]
        ious = [box_iou(truth[s].body, boxes[s - 1]) for s in range(1, 11)]
        numbered = all(max(range(1, 11), key=lambda p: box_iou(truth[s].body, boxes[p - 1])) == s
                       for s in range(1, 11))
        pred, width = fit.seat_heads()
        off = max(math.dist(named[s], pred[s - 1]) / width[s - 1] for s in seats)
        ok = min(ious) >= 0.5 and numbered
        right += ok
        print(f"{d.name}: {'right' if ok else 'WRONG'}  body IoU min {min(ious):.2f}  numbered {numbered}  "
              f"given head off its seat {off:.2f} head widths{' (a guess)' if off > NAMED_MAX_OFF else ''}  "
              f"{cpu:.1f} s CPU")
    print(f"{len(seats)} heads given, jitter {args.jitter}: every seat right in {right} of {len(args.dirs)} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Per head, what the seat proposal's player finding gives on rendered views
with a known calibration: the figures to read before retuning how players are
found (issue 14), instead of the calibration's end result alone.

    .venv/bin/python scripts/eval_heads.py VIEW_DIR... [--json]

VIEW_DIR: a game folder with video.mp4 and the rendered calibration.json (the
truth), such as `scripts/calib_views.py render tune DIR` writes. The frames
are the ones `mafvar calibrate` reads (review.calibrate.day_frames). For each
view it prints:
- per frame: players found (a head within TRUE_WITHIN of a true head's width
  of its centre), false heads (near no seat), seats in the frame missed;
- the heads the table is fitted to before any looking again
  (seat_proposal._kept: the unaided heads), each with its true seat, how far
  off (in the true head's widths) and its width over the true width;
- a summary line: seats in the frame, found unaided, false kept heads, the
  median offset and the median size error (|log ratio| as a factor).
The last line sums every view. Truth is only read to score, never to find.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# a found head is a seat's when its centre is this close (true head widths)
TRUE_WITHIN = 0.6


def _nearest(x: float, y: float, truth: dict[int, tuple[float, float, float]]) -> tuple[int, float]:
    """The true seat whose head is nearest (x, y), and how far in its head widths."""
    seat = min(truth, key=lambda s: math.dist((x, y), truth[s][:2]))
    return seat, math.dist((x, y), truth[seat][:2]) / max(truth[seat][2], 1.0)


def nearest_seat(x: float, y: float, truth: dict[int, tuple[float, float, float]]) -> tuple[int | None, float]:
    """As `_nearest`, the seat None when no true head is within TRUE_WITHIN."""
    seat, off = _nearest(x, y, truth)
    return (seat if off <= TRUE_WITHIN else None), off


def view_figures(game: Path) -> dict:
    from review.calibrate import day_frames
    from review.workspace import GameWorkspace
    from vision import seat_proposal
    from vision.calibration import load_calibration
    from vision.people import PeopleFinder
    from vision.video import probe

    truth_cal = load_calibration(game / "calibration.json")
    cam = next(iter(truth_cal.cameras.values()))
    truth = {s: tuple(r.head) for s, r in cam.seats.items() if r.head is not None}
    in_frame = sorted(s for s, (x, y, _) in truth.items() if 0 <= x < cam.width and 0 <= y < cam.height)
    video = game / "video.mp4"
    frames = day_frames(GameWorkspace(game), video, probe(str(video)).duration)
    with PeopleFinder() as finder:
        per = [finder.find_heads(f.image) for f in frames]
    frame_rows = []
    for t, found in zip((f.t for f in frames), per):
        seats = [nearest_seat(h.x, h.y, truth)[0] for h in found]
        hit = sorted({s for s in seats if s is not None})
        frame_rows.append({"time": round(t, 2), "found": hit, "false": sum(s is None for s in seats),
                           "missed": [s for s in in_frame if s not in hit]})
    kept = []
    for h in seat_proposal._kept(per):
        near, off = _nearest(h.x, h.y, truth)
        kept.append({"x": round(h.x), "y": round(h.y), "width": round(h.width, 1), "weight": round(h.weight, 2),
                     "seat": near if off <= TRUE_WITHIN else None, "nearest": near, "off": round(off, 2),
                     "size": round(h.width / max(truth[near][2], 1.0), 2)})
    right = [k for k in kept if k["seat"] is not None]
    return {
        "view": game.name,
        "in_frame": in_frame,
        "frames": frame_rows,
        "kept": kept,
        "unaided": len({k["seat"] for k in right}),
        "false_kept": len(kept) - len(right),
        "median_off": round(statistics.median(k["off"] for k in right), 2) if right else None,
        "median_size_error": (round(math.exp(statistics.median(abs(math.log(max(k["size"], 1e-3))) for k in right)), 2)
                              if right else None),
    }


def print_view(v: dict) -> None:
    print(f"{v['view']}: seats in the frame {len(v['in_frame'])}, found unaided {v['unaided']}, "
          f"false kept heads {v['false_kept']}, median offset {v['median_off']} widths, "
          f"median size error x{v['median_size_error']}")
    for f in v["frames"]:
        print(f"    t={f['time']:7.2f} s: found {len(f['found'])} {f['found']}, false {f['false']}, missed {f['missed']}")
    for k in v["kept"]:
        who = f"seat {k['seat']}" if k["seat"] is not None else f"FALSE (nearest seat {k['nearest']})"
        print(f"    kept ({k['x']},{k['y']}) w {k['width']} seen {k['weight']:.2f}: {who}, "
              f"off {k['off']:.2f} widths, size x{k['size']:.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("views", nargs="+", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from vision.native_quiet import quiet_native_stderr

    rows = []
    with quiet_native_stderr(True):
        for game in args.views:
            if not (game / "video.mp4").is_file() or not (game / "calibration.json").is_file():
                print(f"{game}: needs video.mp4 and the rendered calibration.json", file=sys.stderr)
                return 2
            rows.append(view_figures(game))
            if not args.json:
                print_view(rows[-1])
    total = {"views": len(rows), "seats_in_frame": sum(len(v["in_frame"]) for v in rows),
             "found_unaided": sum(v["unaided"] for v in rows), "false_kept": sum(v["false_kept"] for v in rows)}
    if args.json:
        print(json.dumps({"views": rows, "total": total}, indent=1))
    else:
        print(f"all {total['views']} views: seats in the frame {total['seats_in_frame']}, "
              f"found unaided {total['found_unaided']}, false kept heads {total['false_kept']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

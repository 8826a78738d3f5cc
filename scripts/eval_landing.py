"""How well the full-rate look times vote fists near "Thank you".

For every analysed game given (after `mafvar analyze DIR`), each entry of
analysis/landings.json is matched to the truth's fist of that seat nearest
to it, and the timed edge (landing or lift) is compared with the truth's
t_place or t_lift: the error, and whether it falls on the same side of
"Thank you" as the truth (what decides a late vote or an early lift).

    .venv/bin/python scripts/eval_landing.py sample_videos/demo DIR...

With --all, every fist of the truth is timed (no analysis needed): its
landing from a sighting 0.2 s before the true landing, its lift from one
0.15 s after the true lift (where a 5 fps pass sees them), and the script
prints when the zone window first (last) said "vote" against the truth,
beside the timed edge's error. These are the figures behind the descent and
rise bounds in vision/landing.py.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def rows(game: Path) -> list[dict]:
    truth = json.loads((game / "truth.json").read_text())
    kept = json.loads((game / "analysis" / "landings.json").read_text())
    thanks = {(rid, ci): c.get("thanks") for rid, r in enumerate(truth["phases"]["votes"])
              for ci, c in enumerate(r["calls"])}
    out = []
    for ld in kept["landings"]:
        key = "t_place" if ld.get("edge", "land") == "land" else "t_lift"
        fists = [v for v in truth["votes"] if v["seat"] == ld["seat"]]
        if not fists:
            continue
        v = min(fists, key=lambda v: abs(v[key] - ld["t_seen"]))
        th = thanks.get((v["round"], v["call"]))
        out.append({"game": game.name, "seat": ld["seat"], "edge": ld.get("edge", "land"), "how": ld["how"],
                    "truth": v[key], "seen": ld["t_seen"], "timed": ld["t_edge"],
                    "error": round(ld["t_edge"] - v[key], 3),
                    "sampled_error": round(ld["t_seen"] - v[key], 3),
                    "side_ok": None if th is None else (ld["t_edge"] >= th) == (v[key] >= th)})
    return out


def every_fist(game: Path) -> list[dict]:
    """Every truth fist timed at the full rate from where a 5 fps pass sees it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from vision.calibration import load_calibration
    from vision.landing import EdgeRequest, measure_landings
    from vision.video import open_video
    truth = json.loads((game / "truth.json").read_text())
    cal = load_calibration(game / "calibration.json")
    cam = next(iter(cal.cameras))
    asked = {}
    for v in truth["votes"]:
        asked[(v["seat"], "land", round(v["t_place"] - 0.2, 2))] = v["t_place"]
        asked[(v["seat"], "lift", round(v["t_lift"] + 0.15, 2))] = v["t_lift"]
    found, _, _ = measure_landings(open_video(game / "video.mp4"), cal, cam,
                                   [EdgeRequest(seat, t, edge) for seat, edge, t in asked])
    out = []
    for ld in found:
        truth_t = asked[(ld.seat, ld.edge, round(ld.t_seen, 2))]
        out.append({"game": game.name, "seat": ld.seat, "edge": ld.edge, "how": ld.how, "truth": truth_t,
                    "window": round(ld.t_window - truth_t, 3), "error": round(ld.t_edge - truth_t, 3)})
    missing = len(asked) - len(out)
    if missing:
        print(f"{game.name}: {missing} of {len(asked)} edges not found")
    return out


def main_all(dirs: list[str]) -> int:
    every = [r for d in dirs for r in every_fist(Path(d))]
    for edge, said in (("land", "first"), ("lift", "last")):
        es = [r for r in every if r["edge"] == edge]
        if not es:
            continue
        win = sorted(r["window"] for r in es)
        err = sorted(abs(r["error"]) for r in es)
        bounded = sum(1 for r in es if r["how"] == "bounded")
        print(f"{edge}: {len(es)} fists; window {said} says \"vote\" {win[0]:+.2f} to {win[-1]:+.2f} s from "
              f"the truth (median {win[len(win) // 2]:+.2f}); timed |error| median {err[len(err) // 2]:.3f} s, "
              f"90th percentile {err[int(0.9 * (len(err) - 1))]:.3f} s, max {err[-1]:.3f} s; bounded {bounded}")
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv == ["--all"]:
        print(__doc__.strip())
        return 2
    if argv[0] == "--all":
        return main_all(argv[1:])
    every = [r for d in argv for r in rows(Path(d))]
    for r in every:
        print(f"{r['game']:>10} seat {r['seat']:>2} {r['edge']:<4} truth {r['truth']:8.2f} sampled {r['seen']:8.2f} "
              f"({r['sampled_error']:+.2f}) timed {r['timed']:8.3f} ({r['error']:+.3f}, {r['how']})"
              + ("" if r["side_ok"] is None else "" if r["side_ok"] else "  WRONG SIDE OF THANK YOU"))
    for edge in ("land", "lift"):
        es = [r for r in every if r["edge"] == edge]
        if not es:
            continue
        errs = [abs(r["error"]) for r in es]
        before = [abs(r["sampled_error"]) for r in es]
        ok = sum(1 for r in es if r["side_ok"])
        print(f"{edge}: {len(es)} timed, |error| mean {sum(errs) / len(errs):.3f} s, max {max(errs):.3f} s "
              f"(sampled: mean {sum(before) / len(before):.3f} s, max {max(before):.3f} s); "
              f"right side of \"thank you\": {ok}/{len(es)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

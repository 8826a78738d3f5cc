"""How the seat windows read when their boxes are a little off: each window of
each seat read at the calibrated box and at the box moved by a share of its
width or height (left, right, up, down), on rendered games with their truth.

    .venv/bin/python scripts/eval_window_shift.py GAME_DIR... [--shares 0,0.05,0.1,0.15]
        [--models vision/models/appearance.json] [--against OTHER.json] [--step 1.5] [--json OUT]

GAME_DIR is a `mafvar synth` folder (truth.json, calibration.json, video.mp4),
decoded at a frame every --step seconds plus a few frames inside every rare
state. A proposed calibration (`mafvar calibrate`) or a hand-drawn one is off
by about a tenth of a window (session 46: heads 9-10 px low on 60-80 px
windows); a window that reads right only on the exact box turns such an error
into false fouls. Prints, per window and shift: accuracy, recall per class and
what the wrong readings were read as. Labels come from the truth as in
scripts/train_appearance.py (frames near a truth boundary and hidden seats
skipped). The seeds a model was trained on are printed beside the games' seeds:
a game the model saw is refused.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_appearance import segments, window_labels  # noqa: E402
from vision.appearance import MODEL_PATH, PATCH, describe, load_models, patch, window_box  # noqa: E402
from vision.calibration import load_calibration  # noqa: E402
from vision.crops import seat_crop  # noqa: E402
from vision.video import open_video  # noqa: E402
from vision.window_samples import shifted  # noqa: E402

RARE = ("mask_lifted", "hand_raised", "standing", "show_fingers", "shot", "touch_neighbour", "hand_to_mask",
        "vote_fist")
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def trained_seeds(path: Path) -> set[int]:
    meta = json.loads(path.read_text()).get("trained_on", {})
    return {s for w in meta.values() if isinstance(w, dict)
            for key in ("seeds", "focus_seeds") for s in w.get(key) or ()}


def sample_times(truth: dict, step: float, rare: int) -> list[float]:
    rng = np.random.default_rng(1)
    ts = list(np.arange(0.5, truth["duration"] - 0.5, step))
    for s in truth["seat_states"]:
        if s["state"] in RARE:
            ts.extend(rng.uniform(s["t0"], s["t1"], rare))
    return sorted(round(float(t), 3) for t in ts)


def read_game(game: Path, model_sets: dict[str, dict], shares: list[float], step: float, rare: int) -> dict:
    """model name -> window -> share -> [(truth, reading)]"""
    truth = json.loads((game / "truth.json").read_text())
    cam = load_calibration(game / "calibration.json").camera("cam1")
    segs = segments(truth)
    out: dict = {name: defaultdict(lambda: defaultdict(list)) for name in model_sets}
    for fr in open_video(game / "video.mp4").read_at(sample_times(truth, step, rare)):
        for seat, region in cam.seats.items():
            crop = seat_crop(fr.image, region)
            lab = window_labels(truth, segs, seat, fr.t)
            for kind in PATCH:
                if lab[kind] is None:
                    continue
                box = window_box(kind, region)
                boxes = [(0.0, box)] + [(s, shifted(box, dx * s, dy * s, 1.0))
                                        for s in shares if s > 0 for dx, dy in DIRECTIONS]
                x = np.stack([describe(patch(crop, b, PATCH[kind])) for _, b in boxes])
                for name, models in model_sets.items():
                    m = models[kind]
                    for (s, _), i in zip(boxes, m.proba(x).argmax(axis=1)):
                        out[name][kind][s].append((lab[kind], m.classes[i]))
    return out


def summary(rows: list[tuple[str, str]]) -> dict:
    y = np.array([a for a, _ in rows])
    p = np.array([b for _, b in rows])
    return {"accuracy": round(float((y == p).mean()), 4), "readings": len(rows),
            "recall": {c: [int((p[y == c] == c).sum()), int((y == c).sum())] for c in sorted(set(y.tolist()))},
            "wrong_as": dict(sorted(Counter(p[y != p].tolist()).items()))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="+", type=Path)
    ap.add_argument("--shares", default="0,0.05,0.1,0.15")
    ap.add_argument("--models", type=Path, default=MODEL_PATH)
    ap.add_argument("--against", type=Path, default=None, help="a second model file, read on the same boxes")
    ap.add_argument("--step", type=float, default=1.5)
    ap.add_argument("--rare", type=int, default=4, help="extra frames inside each rare state")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    shares = sorted({0.0, *(float(s) for s in args.shares.split(","))})
    paths = [args.models] + ([args.against] if args.against else [])
    # named by file name, or by whole path where two share one
    files = {(p.name if len({q.name for q in paths}) == len(paths) else str(p)): p for p in paths}
    seen = set().union(*(trained_seeds(p) for p in files.values()))
    game_seeds = {g: json.loads((g / "truth.json").read_text()).get("seed") for g in args.games}
    for g, seed in game_seeds.items():
        if seed in seen:
            raise SystemExit(f"{g}: seed {seed} was trained on by one of the models: not an evaluation game")
    for n, p in files.items():
        seeds = sorted(trained_seeds(p))
        print(f"model {n}: trained on {len(seeds)} seeds ({', '.join(map(str, seeds))})")
    print("games: " + ", ".join(f"{g} (seed {seed})" for g, seed in game_seeds.items()))
    model_sets = {n: load_models(p) for n, p in files.items()}
    acc: dict = {n: defaultdict(lambda: defaultdict(list)) for n in files}
    for g in args.games:
        for n, per in read_game(g, model_sets, shares, args.step, args.rare).items():
            for kind, by in per.items():
                for s, rows in by.items():
                    acc[n][kind][s].extend(rows)
    report = {n: {kind: {str(s): summary(acc[n][kind][s]) for s in shares} for kind in PATCH} for n in files}
    for kind in PATCH:
        print(f"== {kind} window")
        for s in shares:
            for n in files:
                r = report[n][kind][str(s)]
                rec = ", ".join(f"{c} {a}/{b}" for c, (a, b) in r["recall"].items())
                print(f"  moved {s:.2f} {n:>22}: accuracy {r['accuracy']:.3f} of {r['readings']}; recall {rec}; "
                      f"wrong read as {r['wrong_as']}")
    if args.json:
        args.json.write_text(json.dumps({"games": [str(g) for g in args.games], "shares": shares,
                                         "report": report}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

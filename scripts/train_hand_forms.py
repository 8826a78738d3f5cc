"""Train the hand form model (vision/hands/forms.py) on real hands and write
vision/hands/form_model.json.

    .venv/bin/python scripts/train_hand_forms.py --games /work/games/calib-tune-821 /work/games/calib-tune-822

Rows (every one a MediaPipe reading of a real hand, except "other"):
- HaGRID crops of the TRAINING half only (split printed below): read at their
  size, shrunk to 48, 32 and 24 px, mirrored, blurred;
- the same crops laid into table zones of the --games frames (rendered games
  that are not the committed sample) at the table camera's scale, read by
  the zone pass as analyze reads it;
- keypoint.csv (real landmarks: open, fist, pointer), weighted down so its
  4,450 rows of a few people do not drown the photos;
- "other": every other hand the zone pass finds in those zones (resting,
  reaching, a neighbour's), rendered.
The held-out half is never read here; scripts/eval_real_hands.py measures on it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.hands.forms import FORMS, MODEL_PATH, fit_form_model  # noqa: E402
from vision.hands.real_zone import HAGRID_FORM, SPLIT_RULE, list_hagrid  # noqa: E402

KEYPOINT_WEIGHT = 0.05   # per keypoint.csv row, against 1 per photo reading
OTHER_WEIGHT = 0.5       # per rendered zone hand
# Chosen by 2-fold cross-validation inside the training half (positions 0 mod 4
# against 2 mod 4); the held-out half played no part.
L2 = 0.1
# zone background times (s) of the 36 s calib-tune clips: day, nobody votes
GAME_TIMES = (22.0, 25.0, 28.0, 31.0, 34.0)


def photo_rows(hands) -> tuple[list, list]:
    import cv2

    from vision.hands.detector import HandDetector, load_rgb

    xs, ys = [], []
    with HandDetector(max_hands=1) as detector:
        for hand in hands:
            image = load_rgb(str(hand.path))
            h, w = image.shape[:2]
            variants = [image, np.ascontiguousarray(image[:, ::-1]), cv2.GaussianBlur(image, (0, 0), 0.8)]
            for side in (48, 32, 24):
                s = side / max(h, w)
                if s < 1:
                    variants.append(cv2.resize(image, (max(8, round(w * s)), max(8, round(h * s))),
                                               interpolation=cv2.INTER_AREA))
            for v in variants:
                found = detector.detect(v)
                if found:
                    xs.append(found[0].landmarks_px[:, :2])
                    ys.append(FORMS.index(hand.form))
    return xs, ys


PLACEMENTS = 2   # seat-frames each training hand is laid into, per game


def zone_rows(games: list[Path], hands) -> tuple[list, list, list]:
    from vision.calibration import load_calibration
    from vision.hands.real_zone import background_frames, compose_cases, read_cases

    xs, ys, ws = [], [], []
    for game in games:
        cal = load_calibration(game / "calibration.json")
        backgrounds = background_frames(game, GAME_TIMES)
        cases = []
        for k in range(PLACEMENTS):
            cases += read_cases(compose_cases(backgrounds, hands, cal, empties=4, props=2,
                                              tag=f"train:{game.name}:{k}"), cal, gate=False)
        for case in cases:
            for pts in case.hands:
                # the laid hand: its centre within 1.5 palm lengths of where its wrist was put
                d = (np.inf if case.wrist is None
                     else np.linalg.norm(pts[:, :2].mean(axis=0) - np.array(case.wrist)) / case.palm_px)
                if d < 1.5:
                    xs.append(pts[:, :2]), ys.append(FORMS.index(HAGRID_FORM[case.kind])), ws.append(1.0)
                elif d > 2.5:
                    xs.append(pts[:, :2]), ys.append(FORMS.index("other")), ws.append(OTHER_WEIGHT)
    return xs, ys, ws


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", type=Path, required=True,
                        help="rendered game folders for the zone backgrounds (never the committed sample)")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args(argv)
    if any((g / "truth.json").exists() and "demo" in g.parts for g in args.games):
        print("train_hand_forms: error: the committed sample is the held-out test; pick other games", file=sys.stderr)
        return 2
    from vision.hands.evaluate import load_keypoints

    print(f"split: {SPLIT_RULE}; training on the even positions only")
    train = list_hagrid(held_out=False)
    x1, y1 = photo_rows(train)
    print(f"photo readings: {len(x1)} from {len(train)} training crops")
    x2, y2, w2 = zone_rows(args.games, train)
    print(f"zone readings: {sum(1 for y in y2 if FORMS[y] != 'other')} real hands, "
          f"{sum(1 for y in y2 if FORMS[y] == 'other')} other zone hands, from {[g.name for g in args.games]}")
    labels, landmarks = load_keypoints()
    to_form = np.array([FORMS.index("open_palm"), FORMS.index("fist"), FORMS.index("pointing")])
    x = np.concatenate([np.array(x1), np.array(x2), landmarks])
    y = np.concatenate([y1, y2, to_form[labels]]).astype(int)
    w = np.concatenate([np.ones(len(x1)), w2, np.full(len(labels), KEYPOINT_WEIGHT)])
    for i, f in enumerate(FORMS):
        print(f"  {f:>10}: {int((y == i).sum())} rows, weight {w[y == i].sum():.0f}")
    model = fit_form_model(x, y, w, L2, meta={"split": SPLIT_RULE, "games": [g.name for g in args.games],
                                              "keypoint_weight": KEYPOINT_WEIGHT, "other_weight": OTHER_WEIGHT})
    model.save(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

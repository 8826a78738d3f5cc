"""Measure the hand classifiers on the real shared data and print the figures.

    .venv/bin/python scripts/eval_hands.py [--json]

(a) finger count over classes 1-5 on the real sign-digit photos (image to
count, MediaPipe included); (b) fist / open / pointing on the real 2D
keypoints. Data come from $MAFVAR_SHARED (default <repo>/../shared).
Exit status 1 when a target is missed.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.hands.evaluate import evaluate_keypoints, evaluate_sign_digits, keypoints_csv, sign_digits_dir  # noqa: E402

COUNT_TARGET = 0.95
SHAPE_TARGET = 0.97


def _print_counts(r) -> None:
    print(f"(a) finger count on real photos ({sign_digits_dir()}), classes {r.classes[0]}-{r.classes[-1]}")
    print(f"    images {r.images}, hands detected {r.detected} ({r.detection_rate:.1%})")
    print(f"    accuracy over detected  {r.accuracy_detected:.1%}")
    print(f"    accuracy over all images {r.accuracy_all:.1%}  (target >= {COUNT_TARGET:.0%}; undetected = wrong)")
    print("    confusion (rows: true count; columns: predicted 0-5, none)")
    print("          " + " ".join(f"{c:>4}" for c in ["0", "1", "2", "3", "4", "5", "none"]))
    for c, row in zip(r.classes, r.confusion):
        print(f"      {c:>2}  " + " ".join(f"{v:>4}" for v in row))
    for e in r.errors:
        print(f"    wrong: {e['path']} true {e['truth']} predicted {e['predicted']}")


def _print_shapes(r) -> None:
    print(f"(b) fist / open / pointing on real 2D landmarks ({keypoints_csv()})")
    print(f"    rows {r.rows}")
    print(f"    accuracy (forced choice of the three) {r.accuracy:.1%}  (target >= {SHAPE_TARGET:.0%})")
    print(f"    accuracy of the full state (other states count as wrong) {r.state_accuracy:.1%}")
    print("    confusion (rows: true; columns: predicted)")
    print("                " + " ".join(f"{l:>10}" for l in r.labels))
    for label, row in zip(r.labels, r.confusion):
        print(f"      {label:>10}" + " ".join(f"{v:>10}" for v in row))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    try:
        counts = evaluate_sign_digits()
        shapes = evaluate_keypoints()
    except (FileNotFoundError, OSError) as exc:
        print(f"eval_hands: error: {exc}", file=sys.stderr)
        return 2
    passed = counts.accuracy_all >= COUNT_TARGET and shapes.accuracy >= SHAPE_TARGET
    if args.json:
        print(
            json.dumps(
                {
                    "sign_digits": counts.to_dict(),
                    "keypoints": shapes.to_dict(),
                    "targets": {"count_accuracy_all": COUNT_TARGET, "shape_accuracy": SHAPE_TARGET},
                    "passed": passed,
                },
                indent=1,
            )
        )
    else:
        _print_counts(counts)
        _print_shapes(shapes)
        print("targets met" if passed else "TARGET MISSED")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

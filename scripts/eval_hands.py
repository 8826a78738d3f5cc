"""Measure the hand classifiers on the real shared data and print the figures.

    .venv/bin/python scripts/eval_hands.py [--json]

(a) finger count over classes 1-5 on the real sign-digit photos (image to
count, MediaPipe included), through `mafvar hands`' own path (and, printed
beside it, the geometric rules alone); (b) fist / open / pointing on the real 2D
keypoints: the learned model cross-validated over contiguous blocks of the
recordings (trained inside each fold, judged on the held-out block; the
target applies to this figure), the geometric rules, and, labelled as such,
the committed model on its own training rows. Data come from $MAFVAR_SHARED
(default <repo>/../shared). Exit status 1 when a target is missed.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.hands.classify import COMMITTED_SHAPE_MODEL  # noqa: E402
from vision.hands.evaluate import (  # noqa: E402
    cross_validate_keypoints,
    evaluate_keypoints,
    evaluate_sign_digits,
    keypoints_csv,
    sign_digits_dir,
)

COUNT_TARGET = 0.95
SHAPE_TARGET = 0.97


def _print_counts(r, rules) -> None:
    print(f"(a) finger count on real photos ({sign_digits_dir()}), classes {r.classes[0]}-{r.classes[-1]}, "
          "through `mafvar hands`' own path (its largest hand)")
    print(f"    images {r.images}, hands detected {r.detected} ({r.detection_rate:.1%})")
    print(f"    accuracy over detected  {r.accuracy_detected:.1%}")
    print(f"    accuracy over all images {r.accuracy_all:.1%}  (target >= {COUNT_TARGET:.0%}; undetected = wrong)")
    print("    confusion (rows: true count; columns: predicted 0-5, none)")
    print("          " + " ".join(f"{c:>4}" for c in ["0", "1", "2", "3", "4", "5", "none"]))
    for c, row in zip(r.classes, r.confusion):
        print(f"      {c:>2}  " + " ".join(f"{v:>4}" for v in row))
    for e in r.errors:
        print(f"    wrong: {e['path']} true {e['truth']} predicted {e['predicted']}")
    print(f"    the geometric rules alone on the plain image's hand: {rules.accuracy_all:.1%} of all images")


def _print_confusion(labels, confusion) -> None:
    print("    confusion (rows: true; columns: predicted)")
    print("                " + " ".join(f"{l:>10}" for l in labels))
    for label, row in zip(labels, confusion):
        print(f"      {label:>10}" + " ".join(f"{v:>10}" for v in row))


def _print_shapes(cv, rules, training) -> None:
    print(f"(b) fist / open / pointing on real 2D landmarks ({keypoints_csv()}), {cv.rows} rows")
    print(
        f"    learned model, {cv.folds}-fold cross-validation over contiguous blocks of each class "
        f"(gap {cv.gap} rows, l2 {cv.l2}):"
    )
    print(f"    accuracy on held-out rows {cv.accuracy:.2%}  (target >= {SHAPE_TARGET:.0%})")
    print(f"    mean of folds {cv.mean_fold_accuracy:.2%}; per fold " + ", ".join(f"{a:.2%}" for a in cv.fold_accuracies))
    _print_confusion(cv.labels, cv.confusion)
    print(f"    classify_hand with the fold's model, state in the right family {cv.state_accuracy:.2%}")
    print(f"    geometric rules: accuracy {cv.rules_accuracy:.2%}; per fold "
          + ", ".join(f"{a:.2%}" for a in cv.rules_fold_accuracies)
          + f"; classify_hand state in the right family {cv.rules_state_accuracy:.2%}")
    _print_confusion(rules.labels, rules.confusion)
    if training is not None:
        print(f"    (committed model on its own training rows, not a measure: {training.accuracy:.2%})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keypoints-only", action="store_true", help="skip (a), the MediaPipe run over the photos")
    args = parser.parse_args(argv)
    try:
        counts = None if args.keypoints_only else evaluate_sign_digits()
        count_rules = None if args.keypoints_only else evaluate_sign_digits(command=False)
        shapes = cross_validate_keypoints()
        rules = evaluate_keypoints()
        training = evaluate_keypoints(shape_model=COMMITTED_SHAPE_MODEL) if COMMITTED_SHAPE_MODEL else None
    except (FileNotFoundError, OSError) as exc:
        print(f"eval_hands: error: {exc}", file=sys.stderr)
        return 2
    passed = (counts is None or counts.accuracy_all >= COUNT_TARGET) and shapes.accuracy >= SHAPE_TARGET
    if args.json:
        print(
            json.dumps(
                {
                    "sign_digits": counts.to_dict() if counts else None,
                    "sign_digits_rules": count_rules.to_dict() if count_rules else None,
                    "keypoints_cross_validated": shapes.to_dict(),
                    "keypoints_rules": rules.to_dict(),
                    "keypoints_committed_model_training_rows": training.to_dict() if training else None,
                    "targets": {"count_accuracy_all": COUNT_TARGET, "shape_accuracy": SHAPE_TARGET},
                    "passed": passed,
                },
                indent=1,
            )
        )
    else:
        if counts is not None and count_rules is not None:
            _print_counts(counts, count_rules)
        _print_shapes(shapes, rules, training)
        print("targets met" if passed else "TARGET MISSED")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

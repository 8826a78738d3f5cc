"""How `mafvar hands` combines its three readings of a still (the image, its
mirror image, a softened copy), chosen on the TRAINING half of the real
HaGRID crops only: 2-fold inside it (positions 0 mod 4 against 2 mod 4), the
form model refitted on each fold's photos (and keypoint.csv, as
scripts/train_hand_forms.py weighs it; no zone rows), the rules read on the
other fold.

    .venv/bin/python scripts/eval_hands_reading.py

Rules, per class: images whose largest hand reads as the class's state.
- surest: every hand found in any of the three images, its readings grouped
  (vision.hands.report.read_hands, what the command runs);
- averaged: the plain image's hands (the others' only where it finds none),
  the form model averaged over the same hand's other readings (before
  session 36).
The held-out half is not read here (scripts/eval_real_hands.py measures it).
"""
from __future__ import annotations

import sys
from collections import Counter
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


@contextmanager
def _form_probabilities(fn):
    """`mafvar hands`' form model call (report.form_probabilities) replaced by `fn` for the block."""
    import vision.hands.report as report

    kept = report.form_probabilities
    report.form_probabilities = fn
    try:
        yield
    finally:
        report.form_probabilities = kept


def averaged(detector, image: np.ndarray, probabilities) -> list:
    """The rule before session 36 (`probabilities`: the form model's call)."""
    import cv2

    from vision.hands.report import _same_hand, _unmirror, report_hand

    width = image.shape[1]
    found = detector.detect(image)
    mirrored = [_unmirror(h, width) for h in detector.detect(np.ascontiguousarray(image[:, ::-1]))]
    soft = detector.detect(cv2.GaussianBlur(image, (0, 0), 0.8))
    found = found or soft or mirrored
    out = []
    for obs in found:
        others = [o.landmarks_px[:, :2] for o in mirrored + soft
                  if o is not obs and _same_hand(obs.landmarks_px, o.landmarks_px)]
        # the model averaged over this hand's other readings too
        with _form_probabilities(lambda lms, _o=others: probabilities(list(lms) + _o)):
            out.append(report_hand(obs))
    return out


def main() -> int:
    from train_hand_forms import KEYPOINT_WEIGHT, L2, photo_rows

    import vision.hands.forms as forms
    import vision.hands.report as report
    from vision.hands.detector import HandDetector, load_rgb
    from vision.hands.evaluate import load_keypoints
    from vision.hands.real_zone import SPLIT_RULE, list_hagrid

    state_of = {"like": "thumb_up", "fist": "fist", "palm": "open_palm", "one": "pointing"}
    train = list_hagrid(held_out=False)
    folds = [[h for h in train if h.position % 4 == r] for r in (0, 2)]
    print(f"split: {SPLIT_RULE}; inside the training half: positions 0 mod 4 against 2 mod 4")
    labels, landmarks = load_keypoints()
    to_form = np.array([forms.FORMS.index("open_palm"), forms.FORMS.index("fist"), forms.FORMS.index("pointing")])
    right: dict[tuple[str, str], Counter] = {}
    for k in (0, 1):
        x1, y1 = photo_rows(folds[k])
        x = np.concatenate([np.array(x1), landmarks])
        y = np.concatenate([y1, to_form[labels]]).astype(int)
        w = np.concatenate([np.ones(len(x1)), np.full(len(labels), KEYPOINT_WEIGHT)])
        fold = partial(forms.form_probabilities, model=forms.fit_form_model(x, y, w, L2, meta={}))
        with _form_probabilities(fold), HandDetector(tracking=False) as detector:
            for hand in folds[1 - k]:
                image = load_rgb(str(hand.path))
                for name, reports in (("surest", report.read_hands(detector, image)),
                                      ("averaged", averaged(detector, image, fold))):
                    best = max(reports, key=lambda r: r.area, default=None)
                    ok = best is not None and best.state.value == state_of[hand.cls]
                    right.setdefault((name, hand.cls), Counter())[ok] += 1
    for name in ("surest", "averaged"):
        cells = [f"{cls} {right[(name, cls)][True]}/{sum(right[(name, cls)].values())}" for cls in state_of]
        total = sum(right[(name, cls)][True] for cls in state_of)
        print(f"{name:>9}: " + "  ".join(cells) + f"  all {total}/{len(train)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

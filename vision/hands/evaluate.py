"""Accuracy of the hand classifiers on the real data in the shared folder.

Two measures (issue 4's acceptance):
- finger count 1-5 on real photos (sign-digits/{1..5}/), from image to count,
  MediaPipe detection included;
- fist / open / pointing on real 2D MediaPipe landmarks (keypoints/keypoint.csv).

The data are read where they are (MAFVAR_SHARED, default <repo>/../shared),
never copied into the repository.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from vision.hands.classify import SHAPE_FAMILIES, HandState, classify_hand, shape_scores

REPO_ROOT = Path(__file__).resolve().parents[2]
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp"}
# keypoint.csv labels (labels.csv): 0 Open, 1 Close (fist), 2 Pointer.
KEYPOINT_CLASSES = (HandState.OPEN_PALM, HandState.FIST, HandState.POINTING)


def shared_root() -> Path:
    return Path(os.environ.get("MAFVAR_SHARED", REPO_ROOT.parent / "shared"))


def sign_digits_dir() -> Path:
    return shared_root() / "data" / "hands" / "sign-digits"


def keypoints_csv() -> Path:
    return shared_root() / "data" / "hands" / "keypoints" / "keypoint.csv"


@dataclass
class CountResult:
    images: int
    detected: int
    correct: int
    detection_rate: float
    accuracy_detected: float
    accuracy_all: float  # undetected images count as wrong
    classes: list[int]
    # confusion[true class index][predicted count 0-5, then "no hand" at index 6]
    confusion: list[list[int]]
    errors: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class ShapeResult:
    rows: int
    accuracy: float  # forced choice among fist / open palm / pointing
    state_accuracy: float  # classify_hand's state in the right family, anything else wrong
    labels: list[str]
    # confusion[true][predicted] over labels (forced choice)
    confusion: list[list[int]]

    def to_dict(self) -> dict:
        return asdict(self)


def list_sign_digit_images(root: Path | None = None, classes=range(1, 6)) -> list[tuple[Path, int]]:
    root = Path(root) if root is not None else sign_digits_dir()
    items = []
    for c in classes:
        folder = root / str(c)
        if not folder.is_dir():
            raise FileNotFoundError(f"missing sign-digit folder {folder} (set MAFVAR_SHARED)")
        items += [(p, c) for p in sorted(folder.iterdir()) if p.suffix.lower() in IMAGE_SUFFIXES]
    return items


def evaluate_sign_digits(root: Path | None = None, classes=range(1, 6), detector=None) -> CountResult:
    """Finger-count accuracy from photos; the hand with the best handedness score is used."""
    from vision.hands.detector import HandDetector, load_rgb

    classes = list(classes)
    items = list_sign_digit_images(root, classes)
    confusion = np.zeros((len(classes), 7), dtype=int)
    own = detector is None
    detector = detector or HandDetector(max_hands=1)
    errors = []
    try:
        for path, truth in items:
            hands = detector.detect(load_rgb(str(path)))
            if not hands:
                confusion[classes.index(truth), 6] += 1
                errors.append({"path": str(path), "truth": truth, "predicted": None})
                continue
            best = max(hands, key=lambda h: h.handedness_score)
            count = classify_hand(best.landmarks_px).count
            confusion[classes.index(truth), count] += 1
            if count != truth:
                errors.append({"path": str(path), "truth": truth, "predicted": count})
    finally:
        if own:
            detector.close()
    n = len(items)
    detected = int(confusion[:, :6].sum())
    correct = int(sum(confusion[i, c] for i, c in enumerate(classes) if c <= 5))
    return CountResult(
        images=n,
        detected=detected,
        correct=correct,
        detection_rate=detected / n if n else 0.0,
        accuracy_detected=correct / detected if detected else 0.0,
        accuracy_all=correct / n if n else 0.0,
        classes=classes,
        confusion=confusion.tolist(),
        errors=errors,
    )


def load_keypoints(path: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Labels (N,) and 2D landmarks (N, 21, 2) from keypoint.csv."""
    path = Path(path) if path is not None else keypoints_csv()
    data = np.loadtxt(path, delimiter=",", dtype=np.float64)
    return data[:, 0].astype(int), data[:, 1:].reshape(-1, 21, 2)


def _family(state: HandState) -> HandState | None:
    for family, members in SHAPE_FAMILIES.items():
        if state in members:
            return family
    return None


def evaluate_keypoints(path: Path | None = None, rows: np.ndarray | None = None) -> ShapeResult:
    """Fist / open / pointing accuracy on real 2D landmarks (all rows, or `rows`)."""
    labels, landmarks = load_keypoints(path)
    if rows is not None:
        labels, landmarks = labels[rows], landmarks[rows]
    confusion = np.zeros((3, 3), dtype=int)
    state_ok = 0
    for label, pts in zip(labels, landmarks):
        scores = shape_scores(pts)
        predicted = max(scores, key=scores.get)
        confusion[label, KEYPOINT_CLASSES.index(predicted)] += 1
        state_ok += _family(classify_hand(pts).state) == KEYPOINT_CLASSES[label]
    n = len(labels)
    return ShapeResult(
        rows=n,
        accuracy=float(np.trace(confusion)) / n if n else 0.0,
        state_accuracy=state_ok / n if n else 0.0,
        labels=[c.value for c in KEYPOINT_CLASSES],
        confusion=confusion.tolist(),
    )

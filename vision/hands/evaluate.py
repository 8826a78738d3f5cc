"""Accuracy of the hand classifiers on the real data in the shared folder.

Two measures (issue 4's acceptance):
- finger count 1-5 on real photos (sign-digits/{1..5}/), from image to count,
  MediaPipe detection included;
- fist / open / pointing on real 2D MediaPipe landmarks (keypoints/keypoint.csv),
  for the learned model by cross-validation (cross_validate_keypoints: a
  model trained on the other folds judges each fold), for the rules directly.

The data are read where they are (MAFVAR_SHARED, default <repo>/../shared),
never copied into the repository.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from vision.hands.classify import SHAPE_FAMILIES, HandState, classify_hand, shape_scores
from vision.hands.shape_model import SHAPES, ShapeModel, shape_features
from vision.training.shape_fit import TrainConfig, contiguous_folds, train_shape_model

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


def evaluate_sign_digits(root: Path | None = None, classes=range(1, 6), detector=None,
                         command: bool = True) -> CountResult:
    """Finger-count accuracy from photos: `mafvar hands`' own path (read_hands:
    three readings, the form model where it knows the form; its largest hand)
    or, with command=False, the geometric rules on the one hand the plain
    image gives (the best handedness score)."""
    from vision.hands.detector import HandDetector, load_rgb
    from vision.hands.report import read_hands

    classes = list(classes)
    items = list_sign_digit_images(root, classes)
    confusion = np.zeros((len(classes), 7), dtype=int)
    own = detector is None
    detector = detector or HandDetector(max_hands=2 if command else 1)
    errors = []
    try:
        for path, truth in items:
            image = load_rgb(str(path))
            count: int | None = None
            if command:
                reports = read_hands(detector, image)
                if reports:
                    count = max(reports, key=lambda r: r.area).count
            else:
                hands = detector.detect(image)
                if hands:
                    count = classify_hand(max(hands, key=lambda h: h.handedness_score).landmarks_px).count
            if count is None:
                confusion[classes.index(truth), 6] += 1
                errors.append({"path": str(path), "truth": truth, "predicted": None})
                continue
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


def evaluate_keypoints(
    path: Path | None = None, rows: np.ndarray | None = None, shape_model: ShapeModel | None = None
) -> ShapeResult:
    """Fist / open / pointing accuracy on real 2D landmarks (all rows, or `rows`).

    shape_model None: the geometric rules alone. With a model, mind which rows
    it trained on: the committed model trained on all of them, so its figure
    here is a training accuracy, not a measure (see cross_validate_keypoints).
    """
    labels, landmarks = load_keypoints(path)
    if rows is not None:
        labels, landmarks = labels[rows], landmarks[rows]
    confusion = np.zeros((3, 3), dtype=int)
    state_ok = 0
    for label, pts in zip(labels, landmarks):
        scores = shape_scores(pts, shape_model=shape_model)
        predicted = max(scores, key=scores.get)
        confusion[label, KEYPOINT_CLASSES.index(predicted)] += 1
        state_ok += _family(classify_hand(pts, shape_model=shape_model).state) == KEYPOINT_CLASSES[label]
    n = len(labels)
    return ShapeResult(
        rows=n,
        accuracy=float(np.trace(confusion)) / n if n else 0.0,
        state_accuracy=state_ok / n if n else 0.0,
        labels=[c.value for c in KEYPOINT_CLASSES],
        confusion=confusion.tolist(),
    )


def load_shape_training_rows(path: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Landmarks (N, 21, 2) and labels (N,) as indices into shape_model.SHAPES."""
    labels, landmarks = load_keypoints(path)
    to_shape = np.array([SHAPES.index(state.value) for state in KEYPOINT_CLASSES])
    return landmarks, to_shape[labels]


@dataclass
class ShapeCrossValidation:
    """The learned model measured on rows it did not train on.

    Each class's rows (recorded sequences, in file order) are cut into
    `folds` contiguous blocks; fold k's blocks are judged by a model trained
    on the other folds, minus `gap` rows on each side of every judged block
    (neighbouring frames are near-copies). Confusions are over `labels`.
    """

    rows: int
    folds: int
    gap: int
    l2: float
    accuracy: float  # pooled over all rows, forced choice of the three
    mean_fold_accuracy: float
    fold_accuracies: list[float]
    confusion: list[list[int]]
    # classify_hand with each fold's model: the state in the right family
    state_accuracy: float
    # the geometric rules on the same rows (nothing to train), for comparison
    rules_accuracy: float
    rules_fold_accuracies: list[float]
    rules_state_accuracy: float
    labels: list[str]

    def to_dict(self) -> dict:
        return asdict(self)


def cross_validate_keypoints(
    path: Path | None = None, folds: int = 5, gap: int = 20, config: TrainConfig = TrainConfig()
) -> ShapeCrossValidation:
    """Cross-validated fist / open / pointing accuracy of the learned model (training inside each fold)."""
    raw_labels, landmarks = load_keypoints(path)
    _, shape_labels = load_shape_training_rows(path)
    features = shape_features(landmarks)
    fold_of = contiguous_folds(raw_labels, folds)
    confusion = np.zeros((3, 3), dtype=int)
    rules_confusion = np.zeros((3, 3), dtype=int)
    fold_acc, rules_fold_acc = [], []
    state_ok = rules_state_ok = 0
    for k in range(folds):
        test = fold_of == k
        train = ~test & ~_near(test, raw_labels, gap)
        model = train_shape_model(features=features[train], labels=shape_labels[train], config=config)
        predicted = np.asarray(SHAPES)[model.probabilities_from_features(features[test]).argmax(axis=1)]
        right = rules_right = 0
        for label, pts, shape in zip(raw_labels[test], landmarks[test], predicted):
            truth = KEYPOINT_CLASSES[label]
            guess = KEYPOINT_CLASSES.index(HandState(shape))
            confusion[label, guess] += 1
            right += guess == label
            rules = shape_scores(pts, shape_model=None)
            rules_guess = KEYPOINT_CLASSES.index(max(rules, key=rules.get))
            rules_confusion[label, rules_guess] += 1
            rules_right += rules_guess == label
            state_ok += _family(classify_hand(pts, shape_model=model).state) == truth
            rules_state_ok += _family(classify_hand(pts, shape_model=None).state) == truth
        fold_acc.append(right / int(test.sum()))
        rules_fold_acc.append(rules_right / int(test.sum()))
    n = len(raw_labels)
    return ShapeCrossValidation(
        rows=n,
        folds=folds,
        gap=gap,
        l2=config.l2,
        accuracy=float(np.trace(confusion)) / n,
        mean_fold_accuracy=float(np.mean(fold_acc)),
        fold_accuracies=fold_acc,
        confusion=confusion.tolist(),
        state_accuracy=state_ok / n,
        rules_accuracy=float(np.trace(rules_confusion)) / n,
        rules_fold_accuracies=rules_fold_acc,
        rules_state_accuracy=rules_state_ok / n,
        labels=[c.value for c in KEYPOINT_CLASSES],
    )


def _near(test: np.ndarray, labels: np.ndarray, gap: int) -> np.ndarray:
    """Rows of the same class within `gap` rows before or after a judged block."""
    near = np.zeros(len(test), dtype=bool)
    if gap <= 0:
        return near
    for c in np.unique(labels[test]):
        rows = np.flatnonzero(test & (labels == c))
        for lo, hi in ((rows[0] - gap, rows[0]), (rows[-1] + 1, rows[-1] + 1 + gap)):
            span = np.arange(max(lo, 0), min(hi, len(test)))
            near[span[labels[span] == c]] = True
    return near

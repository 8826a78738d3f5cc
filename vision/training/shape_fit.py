"""Training of the hand shape model (vision.hands.shape_model.ShapeModel).

scripts/train_hand_shapes.py fits the committed weights with
`train_shape_model`; vision.hands.evaluate cross-validates it on contiguous
folds. The analysis only loads the weights.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.hands.shape_model import SHAPES, ShapeModel, shape_features, softmax


@dataclass(frozen=True)
class TrainConfig:
    """How a model is fitted. l2 is the weight penalty on standardised
    features (loss = mean cross-entropy + l2 / 2 * |W|^2)."""

    l2: float = 0.1
    max_iterations: int = 50
    tolerance: float = 1e-9


def train_shape_model(
    landmarks=None, labels=None, config: TrainConfig = TrainConfig(), features: np.ndarray | None = None
) -> ShapeModel:
    """Fit a model on landmarks (N, 21, 2|3) (or precomputed `features`) and
    labels (N,) indexing SHAPES."""
    x = shape_features(landmarks) if features is None else np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=int)
    if x.ndim != 2 or len(x) != len(y):
        raise ValueError("need one label per hand")
    if set(np.unique(y)) != set(range(len(SHAPES))):
        raise ValueError(f"training needs examples of every shape {SHAPES}")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)  # constant features stay at 0
    weights, bias = _fit_softmax((x - mean) / scale, y, config)
    return ShapeModel(mean, scale, weights, bias, config.l2, len(y))


def _fit_softmax(x: np.ndarray, y: np.ndarray, config: TrainConfig, classes: int = len(SHAPES),
                 sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method on the L2-penalised multinomial log loss (convex, so
    the optimum does not depend on a starting point or a random seed).
    sample_weight: each row's weight in the mean loss (default all equal)."""
    n, f = x.shape
    k = classes
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64) * n / np.sum(sample_weight)
    xb = np.hstack([x, np.ones((n, 1))])
    target = np.eye(k)[y]
    penalty = np.full(f + 1, config.l2)
    # A tiny penalty on the biases removes the softmax's free shift (adding
    # the same number to every class) that leaves the Hessian singular.
    penalty[-1] = 1e-8
    theta = np.zeros((f + 1, k))

    def loss(t: np.ndarray) -> float:
        z = xb @ t
        z = z - z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float(-(sw[:, None] * target * log_p).sum() / n + 0.5 * (penalty[:, None] * t * t).sum())

    current = loss(theta)
    for _ in range(config.max_iterations):
        p = softmax(xb @ theta)
        grad = xb.T @ (sw[:, None] * (p - target)) / n + penalty[:, None] * theta
        hess = np.zeros((k, f + 1, k, f + 1))
        for a in range(k):
            for b in range(a, k):
                w = sw * p[:, a] * ((a == b) - p[:, b])
                block = (xb * w[:, None]).T @ xb / n
                hess[a, :, b, :] = block
                hess[b, :, a, :] = block.T
        for a in range(k):
            hess[a, :, a, :] += np.diag(penalty)
        # theta is stored (features, classes); the Hessian is ordered class-major
        step = np.linalg.solve(hess.reshape(k * (f + 1), -1), grad.T.ravel()).reshape(k, f + 1).T
        t = 1.0
        while True:  # backtracking: Newton's full step can overshoot far from the optimum
            candidate = theta - t * step
            new = loss(candidate)
            if new <= current or t < 1e-4:
                break
            t /= 2
        theta, improvement, current = candidate, current - new, new
        if improvement < config.tolerance:
            break
    return theta[:-1], theta[-1]


def contiguous_folds(labels, folds: int = 5) -> np.ndarray:
    """Fold index per row: each class's rows, in file order, cut into `folds`
    contiguous blocks. The rows are recorded sequences, so neighbouring rows
    are near-duplicates; a random split would test on copies of training rows."""
    labels = np.asarray(labels)
    fold = np.zeros(len(labels), dtype=int)
    for c in np.unique(labels):
        rows = np.flatnonzero(labels == c)
        for j, block in enumerate(np.array_split(rows, folds)):
            fold[block] = j
    return fold


# Retraining is deterministic on one machine, but another CPU's BLAS kernels
# sum in another order: the weights file then differs in its last digits.
# Measured (scripts/shape_model_noise.py): retraining under four OpenBLAS
# kernels and on reordered rows moved the stored numbers by at most 1e-9
# (3.9e-8 relative) and left every prediction on the 4,450 rows the same.
# The tolerance is some 25 times that noise; any real change of the data,
# the features or the fit moves the weights by far more.
WEIGHTS_RTOL = 1e-6
WEIGHTS_ATOL = 1e-8
_NUMBERS = ("mean", "scale", "weights", "bias")


def weights_disagreement(fresh: dict, committed: dict) -> str | None:
    """Why two weights documents (ShapeModel.to_dict) are not the same model
    up to the training's own float noise; None when they are."""
    for key in sorted(set(fresh) | set(committed)):
        a, b = fresh.get(key), committed.get(key)
        if key in _NUMBERS:
            if a is None or b is None or np.shape(a) != np.shape(b):
                return f"{key}: shapes differ"
            if not np.allclose(a, b, rtol=WEIGHTS_RTOL, atol=WEIGHTS_ATOL):
                worst = float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
                return f"{key}: differs by up to {worst:.3g}"
        elif a != b:
            return f"{key}: {a!r} against {b!r}"
    return None

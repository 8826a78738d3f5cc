"""A learned fist / open palm / pointing classifier on 2D hand landmarks.

The geometric rules in fingers.py fail on one view above all: a finger aimed
at the camera is foreshortened in 2D and looks curled, so a pointing hand
reads as a fist. A multinomial logistic regression over view-invariant
features of the whole hand, trained on the real MediaPipe landmarks in
shared/data/hands/keypoints, learns the subtler cues (where the foreshortened
index's joints lie relative to the curled fingers' joints).

Features are functions of the image-plane landmarks (x, y; z is ignored:
the training data have none) that do not change with position, size,
in-plane rotation or mirroring (a left hand is a mirrored right hand):
- all 210 pairwise landmark distances in palm sizes;
- per finger, the cosines of the three joint angles (wrist-MCP-PIP, PIP, DIP;
  CMC, MCP, IP for the thumb);
- per finger, tip-to-wrist over middle-joint-to-wrist, tip-to-knuckle over
  the first bone, tip-to-wrist in palm sizes;
- the geometric extension scores of fingers.py, as logits.
Coordinates in a rotated, mirrored hand frame were tried as well and
generalised worse across recordings (they let the model learn the
recordings' hand orientations rather than the hand's shape).

The committed weights (shape_model.json next to this file) come from
scripts/train_hand_shapes.py (vision.training.shape_fit); training is deterministic (Newton's method to
the optimum of a convex loss, no random initialisation), so retraining on
the same data rewrites the same file.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.hands.fingers import LONG_FINGERS, THUMB, WRIST, finger_extensions_batch

SHAPES = ("fist", "open_palm", "pointing")  # HandState values, in the model's output order
MODEL_PATH = Path(__file__).with_name("shape_model.json")
FEATURE_VERSION = 1
FORMAT = "mafvar-hand-shape-model"

_FINGERS = (THUMB,) + LONG_FINGERS
_PAIRS = np.triu_indices(21, 1)


def _as_batch(landmarks) -> np.ndarray:
    """(N, 21, 2) image-plane landmarks from one hand (21, 2|3) or a batch (N, 21, 2|3)."""
    pts = np.asarray(landmarks, dtype=np.float64)
    if pts.ndim == 2:
        pts = pts[None]
    if pts.ndim != 3 or pts.shape[1:] not in ((21, 2), (21, 3)):
        raise ValueError(f"expected landmarks of shape (21, 2|3) or (N, 21, 2|3), got {pts.shape}")
    if not np.all(np.isfinite(pts)):
        raise ValueError("landmarks contain NaN or infinite values")
    return pts[:, :, :2]


def _norm(v: np.ndarray) -> np.ndarray:
    return np.linalg.norm(v, axis=-1)


def _cos(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    nu, nv = _norm(u), _norm(v)
    ok = (nu > 1e-9) & (nv > 1e-9)
    return np.where(ok, np.sum(u * v, axis=-1) / np.where(ok, nu * nv, 1.0), 0.0)


def _ratio(a: np.ndarray, b: np.ndarray, cap: float = 5.0) -> np.ndarray:
    return np.minimum(a / np.maximum(b, 1e-9), cap)


def shape_features(landmarks) -> np.ndarray:
    """Feature matrix (N, F) for landmarks (N, 21, 2|3), or (F,) for one hand (21, 2|3)."""
    single = np.ndim(landmarks) == 2
    pts = _as_batch(landmarks)
    # palm_scale of fingers.py: knuckle width, or 0.7 wrist-to-middle-knuckle
    # when the palm is seen edge-on and the width collapses.
    width = _norm(pts[:, LONG_FINGERS[0][0]] - pts[:, LONG_FINGERS[3][0]])
    length = _norm(pts[:, LONG_FINGERS[1][0]] - pts[:, WRIST])
    scale = np.maximum(np.maximum(width, 0.7 * length), 1e-9)[:, None]

    dist = _norm(pts[:, :, None] - pts[:, None, :])[:, _PAIRS[0], _PAIRS[1]] / scale
    wrist = pts[:, WRIST]
    angles, ratios = [], []
    for a, b, c, d in _FINGERS:
        pa, pb, pc, pd = pts[:, a], pts[:, b], pts[:, c], pts[:, d]
        angles += [_cos(pa - wrist, pb - pa), _cos(pb - pa, pc - pb), _cos(pc - pb, pd - pc)]
        ratios += [
            _ratio(_norm(pd - wrist), _norm(pb - wrist)),
            _ratio(_norm(pd - pa), _norm(pb - pa)),
            np.minimum(_norm(pd - wrist) / scale[:, 0], 5.0),
        ]
    ext = np.clip(finger_extensions_batch(pts), 1e-4, 1 - 1e-4)
    feats = np.hstack([dist, np.stack(angles, 1), np.stack(ratios, 1), np.log(ext) - np.log1p(-ext)])
    return feats[0] if single else feats


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class ShapeModel:
    """Standardise the features, then softmax(x @ weights + bias) over SHAPES."""

    mean: np.ndarray  # (F,)
    scale: np.ndarray  # (F,)
    weights: np.ndarray  # (F, 3)
    bias: np.ndarray  # (3,)
    l2: float
    trained_rows: int

    def probabilities_from_features(self, features: np.ndarray) -> np.ndarray:
        x = (np.atleast_2d(features) - self.mean) / self.scale
        return softmax(x @ self.weights + self.bias)

    def probabilities(self, landmarks) -> np.ndarray:
        """(N, 3) probabilities over SHAPES for (N, 21, 2|3) landmarks; (3,) for one hand."""
        p = self.probabilities_from_features(shape_features(landmarks))
        return p[0] if np.ndim(landmarks) == 2 else p

    def scores(self, landmarks) -> dict[str, float]:
        """{shape name: probability} for one hand."""
        return {name: float(p) for name, p in zip(SHAPES, self.probabilities(landmarks))}

    def to_dict(self) -> dict:
        # 9 significant digits: far below any effect on a decision, and the
        # same file from the same data whatever the BLAS rounding.
        def r(a: np.ndarray) -> list:
            return [float(f"{v:.9g}") for v in np.ravel(a)]

        return {
            "format": FORMAT,
            "feature_version": FEATURE_VERSION,
            "classes": list(SHAPES),
            "l2": self.l2,
            "trained_rows": self.trained_rows,
            "features": int(self.mean.size),
            "mean": r(self.mean),
            "scale": r(self.scale),
            "weights": r(self.weights),
            "bias": r(self.bias),
        }

    @classmethod
    def from_dict(cls, data: dict) -> ShapeModel:
        if data.get("format") != FORMAT or data.get("feature_version") != FEATURE_VERSION:
            raise ValueError("not a hand shape model of this version (retrain: scripts/train_hand_shapes.py)")
        if tuple(data["classes"]) != SHAPES:
            raise ValueError(f"hand shape model classes {data['classes']} are not {list(SHAPES)}")
        n = int(data["features"])
        return cls(
            mean=np.array(data["mean"], dtype=np.float64),
            scale=np.array(data["scale"], dtype=np.float64),
            weights=np.array(data["weights"], dtype=np.float64).reshape(n, len(SHAPES)),
            bias=np.array(data["bias"], dtype=np.float64),
            l2=float(data["l2"]),
            trained_rows=int(data["trained_rows"]),
        )

    def save(self, path: Path | str = MODEL_PATH) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), separators=(",", ":")) + "\n")


def load_shape_model(path: Path | str = MODEL_PATH) -> ShapeModel:
    return ShapeModel.from_dict(json.loads(Path(path).read_text()))


def load_committed_model() -> ShapeModel | None:
    """The committed weights, or None (with a warning) when they are missing
    or of another feature version: the geometric rules then decide alone,
    and scripts/train_hand_shapes.py can still import this package to
    retrain."""
    try:
        return load_shape_model(MODEL_PATH)
    except (OSError, ValueError, KeyError) as exc:
        warnings.warn(f"hand shape model not loaded ({exc}); using the geometric rules", stacklevel=2)
        return None


__all__ = [
    "MODEL_PATH",
    "SHAPES",
    "ShapeModel",
    "load_committed_model",
    "load_shape_model",
    "shape_features",
]

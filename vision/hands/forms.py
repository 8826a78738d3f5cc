"""Which form a hand shows, learned from real hands: thumb up, fist, open palm,
pointing, or none of them.

The geometric rules (classify.py) read each finger on its own; on real
photographs they call a fist with the thumb folded across the knuckles
"thumb up" (9 of 60 HaGRID fists) and lose fingers that point at the camera.
`FormModel` is a softmax regression over the view-invariant features of
shape_model.shape_features (every landmark distance in palm sizes, joint
angles, reach ratios, the rules' extension scores), trained by
scripts/train_hand_forms.py on real MediaPipe landmarks only for the four
forms (HaGRID photos of the training half, at their size and shrunk to
table-camera sizes, and laid into table zones; the keypoint.csv rows), and
on the hands a table zone holds besides a vote (resting, reaching, a
neighbour's) for "other", from rendered games that are not the committed
sample.

`form_probabilities` averages the model (or takes its median) over several
readings of one hand where the caller has them (the zone pass reads a hand
again and in the mirror image: the features ignore mirroring, MediaPipe's
errors do not); `mafvar hands` keeps the one reading it is surest of
(vision.hands.report.read_hands).
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.hands.shape_model import shape_features, softmax

FORMS = ("thumb_up", "fist", "open_palm", "pointing", "other")
HAND_FORMS = FORMS[:4]   # the forms of a hand known to be one of them (a photo of a hand)
MODEL_PATH = Path(__file__).with_name("form_model.json")
FORMAT = "mafvar-hand-form-model"
VERSION = 1


@dataclass(frozen=True)
class FormModel:
    """Standardise shape_features, then softmax(x @ weights + bias) over FORMS."""
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray   # (F, len(FORMS))
    bias: np.ndarray
    meta: dict

    def probabilities(self, landmarks) -> np.ndarray:
        """(N, len(FORMS)) for (N, 21, 2|3) landmarks; (len(FORMS),) for one hand."""
        single = np.ndim(landmarks) == 2
        x = (np.atleast_2d(shape_features(landmarks)) - self.mean) / self.scale
        p = softmax(x @ self.weights + self.bias)
        return p[0] if single else p

    def to_dict(self) -> dict:
        def r(a: np.ndarray) -> list:
            return [float(f"{v:.7g}") for v in np.ravel(a)]
        return {"format": FORMAT, "version": VERSION, "classes": list(FORMS), **self.meta,
                "features": int(self.mean.size), "mean": r(self.mean), "scale": r(self.scale),
                "weights": r(self.weights), "bias": r(self.bias)}

    @classmethod
    def from_dict(cls, d: dict) -> "FormModel":
        if d.get("format") != FORMAT or d.get("version") != VERSION or tuple(d.get("classes", ())) != FORMS:
            raise ValueError(f"not a {FORMAT} v{VERSION} over {FORMS} (retrain: scripts/train_hand_forms.py)")
        n = int(d["features"])
        meta = {k: v for k, v in d.items()
                if k not in ("format", "version", "classes", "features", "mean", "scale", "weights", "bias")}
        return cls(np.array(d["mean"], float), np.array(d["scale"], float),
                   np.array(d["weights"], float).reshape(n, len(FORMS)), np.array(d["bias"], float), meta)

    def save(self, path: Path | str = MODEL_PATH) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), separators=(",", ":")) + "\n")


def fit_form_model(landmarks: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None,
                   l2: float = 0.1, meta: dict | None = None) -> FormModel:
    """Fit on landmarks (N, 21, 2|3) and labels (N,) indexing FORMS; convex,
    deterministic (vision.training.shape_fit's Newton solver)."""
    from vision.training.shape_fit import TrainConfig, _fit_softmax

    x = shape_features(landmarks)
    y = np.asarray(labels, dtype=int)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    w, b = _fit_softmax((x - mean) / scale, y, TrainConfig(l2=l2), classes=len(FORMS), sample_weight=weights)
    return FormModel(mean, scale, w, b, dict(meta or {}, l2=l2, trained_rows=int(len(y))))


@lru_cache(maxsize=1)
def committed_form_model() -> FormModel | None:
    """The committed weights, or None (with a warning): callers then fall back
    to the geometric rules."""
    try:
        return FormModel.from_dict(json.loads(MODEL_PATH.read_text()))
    except (OSError, ValueError, KeyError) as exc:
        warnings.warn(f"hand form model not loaded ({exc}); using the geometric rules", stacklevel=2)
        return None


def form_probabilities(landmarks_list, model: FormModel | None = None,
                       median: bool = False) -> dict[str, float] | None:
    """{form: probability} of one hand, averaged over several readings of it
    (the same hand found in an image and in its mirror image), or their
    median per form (`median`: one wild reading among three does not
    decide); None without a model."""
    model = model or committed_form_model()
    if model is None or not len(landmarks_list):
        return None
    # one batch: the features of all readings at once
    each = model.probabilities(np.stack([np.asarray(lm, float)[:, :2] for lm in landmarks_list]))
    p = np.median(each, axis=0) if median else np.mean(each, axis=0)
    return {f: float(v) for f, v in zip(FORMS, p)}


def hands_form_probabilities(hands_readings, model: FormModel | None = None
                             ) -> list[tuple[dict[str, float], dict[str, float]]] | None:
    """For each hand (a list of its readings, the first reading first): the
    median over its readings and its first reading alone, as
    form_probabilities(readings, median=True) and form_probabilities(readings[:1])
    give them, from one batch through the model (a frame's zone hands
    together: per-hand calls were most of the alignment's time on a
    full-length game, scripts/profile_align.py). None without a model."""
    model = model or committed_form_model()
    if model is None:
        return None
    hands = [list(h) for h in hands_readings if len(h)]
    if not hands:
        return []
    p = model.probabilities(np.stack([np.asarray(r, float)[:, :2] for h in hands for r in h]))
    out = []
    at = 0
    for h in hands:
        block = p[at:at + len(h)]
        at += len(h)
        out.append(({f: float(v) for f, v in zip(FORMS, np.median(block, axis=0))},
                    {f: float(v) for f, v in zip(FORMS, block[0])}))
    return out


def hand_form(probabilities: dict[str, float]) -> tuple[str, float]:
    """The most likely of the four hand forms (a photo of a hand is one of
    them) and its share among the four."""
    sub = {f: probabilities[f] for f in HAND_FORMS}
    total = sum(sub.values()) or 1.0
    best = max(sub, key=lambda f: sub[f])
    return best, sub[best] / total


__all__ = ["FORMS", "HAND_FORMS", "FormModel", "committed_form_model", "fit_form_model", "form_probabilities",
           "hand_form"]

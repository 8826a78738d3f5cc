"""Learned appearance of a seat's head, table zone and body.

At table-camera distances a masked, bowed head defeats the face and pose
models, and a vote fist is 30 px: the landmark models alone cannot say
"mask on" or "a fist stands in this zone" reliably. These classifiers look
at the pixels of three windows fixed by the calibration instead:

* the head window, around the calibrated head (mask on / off / lifted);
* the table zone (is this seat's vote fist standing in it);
* the body box (resting, night pose, hand raised, standing, empty seat).

Each window is cut from the seat crop the extraction already holds, scaled
to a fixed patch, and described by gradient histograms plus coarse
luminance, darkness and skin grids. A classifier per
window (`WindowModel`, a small network) turns the descriptor into class probabilities; the
weights are data in `vision/models/appearance.json`, trained by
`scripts/train_appearance.py` (vision.training.window_fit) on rendered games (never the committed sample)
and re-trainable on labelled frames of real recordings.

Pure functions of a crop and the calibration; no MediaPipe.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import Box, SeatRegion, expected_head
from vision.crops import Crop
from vision.skin import skin_mask

MODEL_PATH = Path(__file__).with_name("models") / "appearance.json"
FORMAT = "mafvar-appearance-model"
VERSION = 1

# (patch width, patch height) per window
PATCH = {"head": (32, 32), "zone": (32, 32), "body": (32, 48)}
WINDOWS = tuple(PATCH)


def window_box(kind: str, region: SeatRegion) -> Box:
    """The frame-px box of a window of the seat."""
    if kind == "head":
        if region.head is None:
            (x, y), w = expected_head(region)
        else:
            x, y, w = region.head
        # a bowed head drops toward the table: the window reaches lower than up
        return (x - 1.3 * w, y - 1.1 * w, x + 1.3 * w, y + 1.5 * w)
    if kind == "zone":
        z = region.table_zone
        mx, my = 0.15 * (z[2] - z[0]), 0.15 * (z[3] - z[1])
        return (z[0] - mx, z[1] - my, z[2] + mx, z[3] + my)
    if kind == "body":
        return region.body
    raise ValueError(f"unknown window {kind!r} (one of {WINDOWS})")


def patch(crop: Crop, box: Box, size: tuple[int, int]) -> np.ndarray:
    """The box (frame px) resampled from the crop to `size` (w, h); parts
    outside the crop repeat its edge."""
    sx, sy = crop.scale_xy
    w, h = size
    # affine map from patch px to crop px
    ax = (box[2] - box[0]) * sx / w
    ay = (box[3] - box[1]) * sy / h
    bx = (box[0] - crop.box[0]) * sx
    by = (box[1] - crop.box[1]) * sy
    m = np.array([[ax, 0.0, bx + 0.5 * ax - 0.5], [0.0, ay, by + 0.5 * ay - 0.5]], np.float32)
    flags = cv2.INTER_AREA if ax > 1.5 else cv2.INTER_LINEAR
    return cv2.warpAffine(crop.image, m, (w, h), flags=flags | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


@lru_cache(maxsize=8)
def _hog(w: int, h: int) -> cv2.HOGDescriptor:
    return cv2.HOGDescriptor((w, h), (16, 16), (8, 8), (8, 8), 9)


def describe(p: np.ndarray) -> np.ndarray:
    """Descriptor of an RGB patch: HOG of its luminance, and 4x4 grids of mean
    luminance, dark fraction and skin fraction (the mask is dark, the face and
    a fist are skin: gradients alone do not say which side is which)."""
    h, w = p.shape[:2]
    luma = cv2.cvtColor(p, cv2.COLOR_RGB2GRAY)
    hog = _hog(w, h).compute(luma).ravel()
    lum = cv2.resize(luma.astype(np.float32) / 255.0, (4, 4), interpolation=cv2.INTER_AREA).ravel()
    dark = cv2.resize((luma < 55).astype(np.float32), (4, 4), interpolation=cv2.INTER_AREA).ravel()
    skin = cv2.resize(skin_mask(p).astype(np.float32), (4, 4), interpolation=cv2.INTER_AREA).ravel()
    return np.concatenate([hog, lum, dark, skin]).astype(np.float32)


def window_descriptor(kind: str, crop: Crop, region: SeatRegion) -> np.ndarray:
    return describe(patch(crop, window_box(kind, region), PATCH[kind]))


@dataclass(frozen=True)
class WindowModel:
    """A one-hidden-layer network (ReLU, softmax) over standardised descriptors.

    Measured on held-out rendered seeds (scripts/train_appearance.py): the
    hidden layer takes the mask from 95.5% (softmax regression) to 99.2%."""
    classes: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray            # (features, hidden)
    b1: np.ndarray
    w2: np.ndarray            # (hidden, classes)
    b2: np.ndarray

    def logits(self, x: np.ndarray) -> np.ndarray:
        h = np.maximum(((np.atleast_2d(x) - self.mean) / self.scale) @ self.w1 + self.b1, 0.0)
        return h @ self.w2 + self.b2

    def proba(self, x: np.ndarray) -> np.ndarray:
        z = self.logits(x)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def to_json(self) -> dict:
        r = lambda a: np.round(a.astype(float), 5).tolist()
        return {"classes": list(self.classes), "mean": r(self.mean), "scale": r(self.scale),
                "w1": r(self.w1), "b1": r(self.b1), "w2": r(self.w2), "b2": r(self.b2)}

    @staticmethod
    def from_json(d: dict) -> "WindowModel":
        f = lambda k: np.asarray(d[k], np.float32)
        return WindowModel(tuple(d["classes"]), f("mean"), f("scale"), f("w1"), f("b1"), f("w2"), f("b2"))


def load_models(path: str | Path = MODEL_PATH) -> dict[str, WindowModel]:
    d = json.loads(Path(path).read_text())
    if d.get("format") != FORMAT or d.get("version") != VERSION:
        raise ValueError(f"{path}: not a {FORMAT} v{VERSION} file")
    return {k: WindowModel.from_json(v) for k, v in d["models"].items()}


def save_models(models: dict[str, WindowModel], path: str | Path, meta: dict) -> None:
    doc = {"format": FORMAT, "version": VERSION, **meta,
           "models": {k: m.to_json() for k, m in models.items()}}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(doc, separators=(",", ":")) + "\n")


@lru_cache(maxsize=1)
def committed_models() -> dict[str, WindowModel]:
    """The committed models, or {} when none is committed yet."""
    return load_models() if MODEL_PATH.exists() else {}


def appearance_features(crop: Crop, region: SeatRegion,
                        models: dict[str, WindowModel] | None = None) -> dict[str, float]:
    """`app_<window>_<class>` probabilities for every committed window model."""
    return appearance_batch([crop], [region], models)[0]


def appearance_batch(crops: list[Crop], regions: list[SeatRegion],
                     models: dict[str, WindowModel] | None = None) -> list[dict[str, float]]:
    """`appearance_features` of several crops (the seats of one frame) with one
    product per window: a frame's ten rows cost about what one does."""
    models = committed_models() if models is None else models
    out: list[dict[str, float]] = [{} for _ in crops]
    if not crops:
        return out
    for kind, model in models.items():
        patches = [patch(c, window_box(kind, r), PATCH[kind]) for c, r in zip(crops, regions)]
        x = np.stack([describe(p) for p in patches])
        for row, p, far, pt in zip(out, model.proba(x), far_from_training(model, x), patches):
            for c, v in zip(model.classes, p):
                row[f"app_{kind}_{c}"] = round(float(v), 4)
            row[f"far_{kind}"] = round(float(far), 3)
            row.update(light_of(kind, pt))
    return out


def light_of(kind: str, p: np.ndarray) -> dict[str, float]:
    """`lum_<window>` (mean luminance, 0-255) and `con_<window>` (its
    standard deviation) of a window's patch: what vision.view_quality reads
    as too dark or too flat to judge. Stored with the window's probabilities."""
    luma = cv2.cvtColor(p, cv2.COLOR_RGB2GRAY)
    mean, std = cv2.meanStdDev(luma)
    return {f"lum_{kind}": round(float(mean[0, 0]), 1), f"con_{kind}": round(float(std[0, 0]), 1)}


def far_from_training(model: WindowModel, x: np.ndarray) -> np.ndarray:
    """How far each descriptor row lies from the window's training data: the
    mean squared z-score against the training mean and spread the model
    keeps (about 1 on data like its training set). Stored as `far_<window>`."""
    z = (np.atleast_2d(x) - model.mean) / model.scale
    return np.mean(z * z, axis=1)


__all__ = ["WINDOWS", "PATCH", "window_box", "patch", "describe", "window_descriptor", "WindowModel",
           "load_models", "save_models", "committed_models", "appearance_features",
           "appearance_batch", "far_from_training", "light_of"]

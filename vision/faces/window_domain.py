"""Is the learned head window looking at pixels like the ones it was trained on?

The head window (vision.appearance) was trained on rendered players only.
On real faces it is wrong in a dangerous way: real faces with a black band
over the eyes read as mask_off 93% of the time. Its own distance from its
training statistics (`far_head`) does not tell real pixels from rendered
ones (real composites 0.9-1.4, rendered frames 0.6-1.6), so a small
network over the same head-window descriptor is trained to tell them apart
(scripts/train_face_mask.py: rendered head windows of this project's own
seeds against real faces put into seats, training half): `head_real`, the
probability that the window sees real pixels. Where it does, the window's
reading is not used (vision.seat_states: "cannot judge" unless the face
mesh reads the face).

Weights as data in vision/faces/window_domain.json.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from vision.appearance import WindowModel, window_descriptor
from vision.calibration import SeatRegion
from vision.crops import Crop

MODEL_PATH = Path(__file__).with_name("window_domain.json")
FORMAT = "mafvar-window-domain"
VERSION = 1
CLASSES = ("rendered", "real")
FEATURE = "head_real"
# from this probability of real pixels the window's reading is not used
REAL_FROM = 0.5


@lru_cache(maxsize=1)
def committed_model() -> WindowModel | None:
    return load_model(MODEL_PATH) if MODEL_PATH.exists() else None


def load_model(path: Path) -> WindowModel:
    d = json.loads(Path(path).read_text())
    if d.get("format") != FORMAT or d.get("version") != VERSION:
        raise ValueError(f"{path}: not a {FORMAT} v{VERSION} file")
    return WindowModel.from_json(d["model"])


def save_model(model: WindowModel, path: Path, meta: dict) -> None:
    doc = {"format": FORMAT, "version": VERSION, **meta, "model": model.to_json()}
    Path(path).write_text(json.dumps(doc, separators=(",", ":")) + "\n")


def head_real(crop: Crop, region: SeatRegion, model: WindowModel | None = None) -> dict[str, float]:
    """{"head_real": p} for the seat's head window, or {} without a model."""
    model = committed_model() if model is None else model
    if model is None:
        return {}
    p = model.proba(window_descriptor("head", crop, region)[None, :])[0]
    return {FEATURE: round(float(p[model.classes.index("real")]), 4)}


__all__ = ["MODEL_PATH", "CLASSES", "FEATURE", "REAL_FROM", "committed_model", "load_model", "save_model", "head_real"]

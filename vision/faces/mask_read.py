"""The mask state of a head window, from the face mesh: measure, then judge.

`measure(mesh, patch)` runs the face mesh on a seat's head window and, when
it finds a face, describes what lies over its eyes against its own skin
(vision.faces.features) and classifies that with the committed mask model
(vision/faces/mask_model.json, trained on real faces with composited masks:
scripts/train_face_mask.py). It returns plain numbers, stored with the
frame's landmarks as `mesh_*` features, so the judgement can be re-run
without the video.

`judge(features)` turns them into mask_on / mask_off / mask_lifted with a
confidence, or into "cannot judge" with the reason:

* `no_face`: the mesh found no face in the head window (a bowed head, a
  face turned away or seen from behind, a hand over it);
* `face_place`: it found one, but not where the seat's head is or not of
  its size (a neighbour leaning in, a face in the background);
* `no_skin`: the face's own skin under the eyes is not skin-coloured or too
  dark to compare with (a crown of hair read as a face, a face in shadow);
* `hand`: a hand lies over the face (a hand before the face is read as a
  face by the face detector and the mesh, mostly as "mask off": real
  hands, HaGRID crops, 36 of 240; a real hand at a masked real face's eyes
  or mouth was read "mask off" or "lifted" in 51 of 135 held-out cases,
  scripts/eval_real_pixels.py --hand-before);
* `unsure`: the model gives no state a clear majority.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.appearance import WindowModel, far_from_training, window_box
from vision.crops import Crop
from vision.faces.features import LEFT_EYE, RIGHT_EYE, from_keypoints, geometry, mask_features, skin_reference
from vision.faces.mesh import PATCH_SIDE, HeadMesh, head_patch

MODEL_PATH = Path(__file__).with_name("mask_model.json")
FORMAT = "mafvar-face-mask-model"
VERSION = 1
STATES = ("mask_on", "mask_off", "mask_lifted")
PREFIX = "mesh_"

# Where the seat's head is in its head window (vision.appearance.window_box:
# x +- 1.3 w, y - 1.1 w .. y + 1.5 w), as fractions of the window's side,
# and how far a face's centre may lie from it (fractions of the side).
HEAD_IN_WINDOW = (0.5, 1.1 / 2.6)
FACE_OFF_MAX = 0.3
# the face's width over the window's side: a seat's head is about 1/2.6
FACE_WIDTH = (0.18, 0.85)
# The skin reference (under the eyes, the nose, the upper lip) must not be
# in deep shadow, and must be skin-coloured unless it is light: hair read
# as a face is not skin-coloured; a face in bright or bleaching light loses
# its colour but stays very light. On the training half every face whose
# reference was under 0.1 skin-coloured was at luminance 196 or more; a grey
# crown of hair read as a face is colourless at 110-170 (fresh seed 2306:
# seat 8's grey hair, bowed at night, read "mask off" at 0.96 in 4-5 places
# a night, each a false peek; the same hair on seeds 2303, 2305 and the
# sample). Between the two: not skin, "cannot judge" (no_skin).
SKIN_LUM_MIN = 35.0
SKIN_SHARE_MIN = 0.1
PALE_LUM = 180.0
# the model's least probability for a state
SURE = 0.6
# The share of the face (its box from the eyes: `face_of_eyes`) that a hand
# found in the head window may cover before the mask is not judged (`hand`):
# a hand over the eyes hides them, a hand at the mouth takes the skin the
# eyes are compared with, and a "face" the mesh found on a hand is all hand.
HAND_OVER_FACE = 0.25
# the face's box around the eye span: its sides, above (brow), below (chin), in eye spans
FACE_OF_EYES = (0.25, 0.6, 1.1)
# the descriptor's mean squared z-score against the model's training data
# beyond which the face is unlike anything it was trained on
FAR = 6.0

REASONS = ("no_face", "face_place", "no_skin", "hand", "unsure", "far")


@dataclass(frozen=True)
class MaskModel:
    """The classifier and the landmark template the keypoint reading places."""
    classifier: WindowModel
    template: np.ndarray        # (478, 2) mean landmarks in the canonical frame


@lru_cache(maxsize=1)
def committed_model() -> MaskModel | None:
    if not MODEL_PATH.exists():
        return None
    return load_model(MODEL_PATH)


def load_model(path: Path) -> MaskModel:
    d = json.loads(Path(path).read_text())
    if d.get("format") != FORMAT or d.get("version") != VERSION:
        raise ValueError(f"{path}: not a {FORMAT} v{VERSION} file")
    return MaskModel(WindowModel.from_json(d["model"]), np.asarray(d["template"], np.float64))


def save_model(model: MaskModel, path: Path, meta: dict) -> None:
    doc = {"format": FORMAT, "version": VERSION, **meta, "model": model.classifier.to_json(),
           "template": np.round(model.template, 3).tolist()}
    Path(path).write_text(json.dumps(doc, separators=(",", ":")) + "\n")


def find_face(mesh: HeadMesh, patch: np.ndarray, model: MaskModel | None = None
              ) -> tuple[np.ndarray | None, bool]:
    """The face's landmarks in the patch, from the mesh, or placed by its face
    detector's keypoints where the landmark model declines the face (and the
    model has a template); and whether they came from the keypoints."""
    lm, kp = mesh.read(patch)
    if lm is not None:
        return lm, False
    model = committed_model() if model is None else model
    if model is None or kp is None:
        return None, False
    return from_keypoints(kp, model.template), True


def measure(mesh: HeadMesh, patch: np.ndarray, model: MaskModel | None = None
            ) -> tuple[dict[str, float], np.ndarray | None]:
    """`mesh_*` features of a head window (RGB, square) and the landmarks found
    (patch px), or ({"mesh_found": 0}, None)."""
    lm, from_kp = find_face(mesh, patch, model)
    if lm is None:
        return {PREFIX + "found": 0.0}, None
    out = describe_face(patch, lm, model)
    out[PREFIX + "keypoints"] = 1.0 if from_kp else 0.0
    out[PREFIX + "hand"] = round(hand_over_face(lm[list(RIGHT_EYE) + list(LEFT_EYE), :2], mesh.hands(patch)), 3)
    return out, lm


def face_of_eyes(eyes: np.ndarray) -> tuple[float, float, float, float]:
    """The face's box from its eye contours' points: the eye span's box grown
    by `FACE_OF_EYES` (sides, above, below) of the span, brow to chin."""
    eyes = np.asarray(eyes, np.float64).reshape(-1, 2)
    (x0, y0), (x1, y1) = eyes.min(axis=0), eyes.max(axis=0)
    span = max(x1 - x0, 1.0)
    side, above, below = FACE_OF_EYES
    return x0 - side * span, y0 - above * span, x1 + side * span, y1 + below * span


def hand_over_face(eyes: np.ndarray, hands: list[np.ndarray]) -> float:
    """The share of the face's box (`face_of_eyes`) inside the hull of any
    hand's landmarks; both in one image's pixels."""
    if not hands or not len(np.asarray(eyes).reshape(-1, 2)):
        return 0.0
    x0, y0, x1, y1 = face_of_eyes(eyes)
    w, h = max(int(np.ceil(x1 - x0)), 1), max(int(np.ceil(y1 - y0)), 1)
    covered = np.zeros((h, w), np.uint8)
    for hand in hands:
        pts = np.round(np.asarray(hand, np.float64)[:, :2] - (x0, y0)).astype(np.int32)
        cv2.fillConvexPoly(covered, cv2.convexHull(pts), (1,))
    return float(covered.mean())


def hand_covers_face(eyes: np.ndarray, hands: list[np.ndarray]) -> bool:
    """Whether the hands cover enough of the face that its mask is not judged
    (`HAND_OVER_FACE`): the rule the analysis' seat hands and `mafvar stills`'
    hands apply, as `judge` does to the mesh's own look (`mesh_hand`)."""
    return bool(hands) and hand_over_face(eyes, hands) >= HAND_OVER_FACE


def read_head(mesh: HeadMesh, crop: Crop) -> tuple[dict[str, float], np.ndarray | None]:
    """`mesh_*` features of a seat crop's head window (the whole crop when it
    was cut for no seat) and the face's eye contours (2, 16, 2) in frame px."""
    if crop.region is not None:
        box = window_box("head", crop.region)
        img = head_patch(crop, crop.region)
    else:
        box, img = crop.box, crop.image
    feats, lm = measure(mesh, img)
    if lm is None:
        return feats, None
    h, w = img.shape[:2]
    sx = crop.scale_xy[0]
    scale = np.array([(box[2] - box[0]) / w, (box[3] - box[1]) / h])
    pts = np.array([box[0], box[1]]) + (lm[:, :2] + 0.5) * scale - 0.5 / sx
    eyes = np.array([pts[list(RIGHT_EYE)], pts[list(LEFT_EYE)]])
    return feats, eyes


def describe_face(patch: np.ndarray, lm: np.ndarray, model: MaskModel | None = None) -> dict[str, float]:
    """`mesh_*` features of a face found in a head window."""
    side = float(patch.shape[1])
    g = geometry(lm)
    ref = skin_reference(patch, lm)
    out = {PREFIX + "found": 1.0,
           PREFIX + "face_w": round(g.width / side, 3),
           PREFIX + "face_dx": round(float(g.centre[0] / side - HEAD_IN_WINDOW[0]), 3),
           PREFIX + "face_dy": round(float(g.centre[1] / patch.shape[0] - HEAD_IN_WINDOW[1]), 3),
           PREFIX + "skin_share": round(ref.skin, 3),
           PREFIX + "skin_lum": round(ref.lum, 1)}
    model = committed_model() if model is None else model
    if model is not None:
        x = mask_features(patch, lm)[None, :]
        clf = model.classifier
        for c, p in zip(clf.classes, clf.proba(x)[0]):
            out[PREFIX + c] = round(float(p), 4)
        out[PREFIX + "far"] = round(float(far_from_training(clf, x)[0]), 3)
    return out


@dataclass(frozen=True)
class MaskJudgement:
    state: str | None          # mask_on / mask_off / mask_lifted; None: cannot judge
    confidence: float
    reason: str | None = None  # why not (REASONS)


def judge(features: dict[str, float]) -> MaskJudgement | None:
    """The mask from stored `mesh_*` features; None when the mesh did not run."""
    found = features.get(PREFIX + "found")
    if found is None:
        return None
    if not found:
        return MaskJudgement(None, 0.0, "no_face")
    dx, dy = features.get(PREFIX + "face_dx", 0.0), features.get(PREFIX + "face_dy", 0.0)
    w = features.get(PREFIX + "face_w", 0.0)
    if np.hypot(dx, dy) > FACE_OFF_MAX or not FACE_WIDTH[0] <= w <= FACE_WIDTH[1]:
        return MaskJudgement(None, 0.0, "face_place")
    lum = features.get(PREFIX + "skin_lum", 0.0)
    if lum < SKIN_LUM_MIN or (features.get(PREFIX + "skin_share", 0.0) < SKIN_SHARE_MIN and lum < PALE_LUM):
        return MaskJudgement(None, 0.0, "no_skin")
    if features.get(PREFIX + "hand", 0.0) >= HAND_OVER_FACE:
        return MaskJudgement(None, 0.0, "hand")
    probs = {s: features[PREFIX + s] for s in STATES if PREFIX + s in features}
    if not probs:
        return MaskJudgement(None, 0.0, "unsure")
    if features.get(PREFIX + "far", 0.0) > FAR:
        return MaskJudgement(None, 0.0, "far")
    state, p = max(probs.items(), key=lambda kv: kv[1])
    if p < SURE:
        return MaskJudgement(None, round(p, 3), "unsure")
    return MaskJudgement(state, round(p, 3))


__all__ = ["MODEL_PATH", "STATES", "PREFIX", "REASONS", "PATCH_SIDE", "MaskModel", "committed_model", "load_model", "save_model",
           "find_face", "measure", "face_of_eyes", "hand_over_face", "hand_covers_face", "read_head",
           "describe_face", "MaskJudgement", "judge"]

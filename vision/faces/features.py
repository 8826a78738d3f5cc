"""What lies over the eyes, measured against the face's own skin.

Given a face's mesh landmarks in an image, the face is resampled into a
canonical frame (the two eye centres and the mouth centre to fixed
points: a face seen from above, turned or tilted lands the same way), and
measured there in units of its own skin: the cheeks under the eyes, the
nose and the upper lip, which an eye mask, on or lifted, does not cover.

* a grid over the canonical face (forehead to mouth) of lightness
  relative to the skin, the share of pixels far darker than the skin, the
  share of skin-coloured pixels and the colour distance from the skin;
* at each eye (its mesh contour, grown): lightness relative to the skin,
  its darkest and lightest parts (pupil, white of the eye) and its spread;
* the skin reference itself (how light, how skin-coloured): a "face" whose
  reference is hair or mask (a crown read as a face) is no face to judge.

Pure functions of an RGB image and landmarks; no models.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.skin import skin_mask

# face-mesh contour of each eye (the subject's right = image left when facing the camera)
RIGHT_EYE = (33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246)
LEFT_EYE = (263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466)
# canonical frame (px): the eye centres and the mouth centre go here
CANON = 24
CANON_EYES = ((7.0, 10.0), (17.0, 10.0))
CANON_MOUTH = (12.0, 20.0)
GRID = 6
MOUTH = (13, 14, 78, 308)
# the skin reference: under each eye on the cheek, the nose's side, the upper lip (mesh indices)
SKIN_POINTS = (205, 425, 50, 280, 36, 266, 164, 4)
IRISES = ((468, 469, 470, 471, 472), (473, 474, 475, 476, 477))
# a pixel this much darker than the skin is "dark" (a mask, a pupil, a shadow)
DARK_OF_SKIN = 0.5


@dataclass(frozen=True)
class FaceGeometry:
    """Where the face is in the image and how large."""
    eyes: np.ndarray          # (2, 2) eye centres: subject's right, left
    mouth: np.ndarray         # (2,)
    eye_span: float           # px between the eye centres
    width: float              # px across the face oval
    centre: np.ndarray        # (2,) of the face oval


def geometry(lm: np.ndarray) -> FaceGeometry:
    pts = lm[:, :2]
    eyes = np.array([pts[list(RIGHT_EYE)].mean(axis=0), pts[list(LEFT_EYE)].mean(axis=0)])
    mouth = pts[list(MOUTH)].mean(axis=0)
    lo, hi = pts[:468].min(axis=0), pts[:468].max(axis=0)
    return FaceGeometry(eyes, mouth, float(np.linalg.norm(eyes[1] - eyes[0])), float(hi[0] - lo[0]),
                        (lo + hi) / 2)


def canonical(image: np.ndarray, lm: np.ndarray) -> np.ndarray:
    """The face resampled to CANON x CANON px, eyes and mouth at fixed points."""
    g = geometry(lm)
    m = to_canonical(lm)
    scale = g.eye_span / (CANON_EYES[1][0] - CANON_EYES[0][0])
    flags = cv2.INTER_AREA if scale > 1.5 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (CANON, CANON), flags=flags, borderMode=cv2.BORDER_REPLICATE)


def balanced(rgb: np.ndarray) -> np.ndarray:
    """The image with its colour cast taken out (grey world: each channel
    scaled to the image's mean brightness), so that skin is skin-coloured
    under a warm, cold or tinted light."""
    means = np.array(cv2.mean(rgb)[:3])
    gain = means.mean() / np.maximum(means, 1.0)
    return cv2.multiply(rgb, np.array([*gain, 0.0]), dtype=cv2.CV_8U)


def to_canonical(lm: np.ndarray) -> np.ndarray:
    """The affine (2, 3) taking image px to the canonical frame (eyes and mouth to fixed points)."""
    g = geometry(lm)
    return cv2.getAffineTransform(np.array([g.eyes[0], g.eyes[1], g.mouth], np.float32),
                                  np.array([*CANON_EYES, CANON_MOUTH], np.float32))


def from_keypoints(kp: np.ndarray, template: np.ndarray) -> np.ndarray:
    """Approximate mesh landmarks (478, 3; z = 0) from face detection's
    keypoints (eyes, nose, mouth: vision.faces.mesh.HeadMesh.keypoints) and
    a template of the landmarks in the canonical frame: the template is
    placed by the eyes and the mouth."""
    m = cv2.getAffineTransform(np.array([*CANON_EYES, CANON_MOUTH], np.float32),
                               np.array([kp[0], kp[1], kp[3]], np.float32))
    pts = np.asarray(template, np.float64) @ m[:, :2].T + m[:, 2]
    return np.column_stack([pts, np.zeros(len(pts))])


def _lab(rgb: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2LAB).astype(np.float32)


def _disc_pixels(lab: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    h, w = lab.shape[:2]
    sel = np.zeros((h, w), np.uint8)
    r = max(1, int(round(radius)))
    for c in np.round(centres).astype(int):
        cv2.circle(sel, (int(c[0]), int(c[1])), r, (1,), -1)
    return sel.astype(bool)


def _eye_region(shape: tuple[int, int], contour: np.ndarray, grow: float) -> np.ndarray:
    c = contour.mean(axis=0)
    poly = np.round(c + (contour - c) * grow).astype(np.int32)
    out = np.zeros(shape, np.uint8)
    cv2.fillPoly(out, [poly], (1,))
    return out.astype(bool)


@dataclass(frozen=True)
class SkinRef:
    lum: float          # mean L (0-255) of the reference
    ab: np.ndarray      # mean a, b
    skin: float         # share of skin-coloured pixels in it


def skin_reference(image: np.ndarray, lm: np.ndarray, lab: np.ndarray | None = None,
                   skin: np.ndarray | None = None) -> SkinRef:
    lab = _lab(image) if lab is None else lab
    skin = skin_mask(balanced(image)) if skin is None else skin
    g = geometry(lm)
    sel = _disc_pixels(lab, lm[list(SKIN_POINTS), :2], max(1.0, 0.12 * g.eye_span))
    px = lab[sel]
    if not len(px):
        return SkinRef(0.0, np.zeros(2, np.float32), 0.0)
    # the lighter half: a beard, a nostril or the mask's edge pull the mean down
    lum = px[:, 0]
    light = px[lum >= np.median(lum)]
    return SkinRef(float(light[:, 0].mean()), light[:, 1:].mean(axis=0), float(skin[sel].mean()))


N_FEATURES = 4 * GRID * GRID + 2 * 6 + 4


def mask_features(image: np.ndarray, lm: np.ndarray) -> np.ndarray:
    """The descriptor of the module docstring (N_FEATURES floats)."""
    lab = _lab(image)
    bal = balanced(image)
    skin_px = skin_mask(bal)
    ref = skin_reference(image, lm, lab, skin_px)
    ref_l = max(ref.lum, 8.0)
    can = canonical(image, lm)
    clab = _lab(can)
    rel = np.clip(clab[..., 0] / ref_l, 0.0, 2.0)
    dark = (clab[..., 0] < DARK_OF_SKIN * ref_l).astype(np.float32)
    skin = skin_mask(canonical(bal, lm)).astype(np.float32)
    chroma = np.clip(np.linalg.norm(clab[..., 1:] - ref.ab, axis=-1) / 40.0, 0.0, 2.0)
    grid = [cv2.resize(a.astype(np.float32), (GRID, GRID), interpolation=cv2.INTER_AREA).ravel()
            for a in (rel, dark, skin, chroma)]
    eyes = []
    g = geometry(lm)
    for contour in (RIGHT_EYE, LEFT_EYE):
        sel = _eye_region((lab.shape[0], lab.shape[1]), lm[list(contour), :2], 1.5)
        px = lab[..., 0][sel]
        if len(px) < 3:
            px = lab[..., 0][_disc_pixels(lab, lm[list(contour), :2].mean(axis=0, keepdims=True),
                                          max(1.0, 0.15 * g.eye_span))]
        q = np.percentile(px, (10, 50, 90)) / ref_l if len(px) else np.zeros(3)
        sk = float(skin_px[sel].mean()) if sel.any() else 0.0
        eyes += [float(px.mean() / ref_l) if len(px) else 0.0, *map(float, q),
                 float(px.std() / ref_l) if len(px) else 0.0, sk]
    reference = [ref.lum / 255.0, ref.skin, float(ref.ab[0] - 128) / 40.0, float(ref.ab[1] - 128) / 40.0]
    return np.concatenate([*grid, np.clip(np.array(eyes, np.float32), 0, 3),
                           np.array(reference, np.float32)]).astype(np.float32)


__all__ = ["RIGHT_EYE", "LEFT_EYE", "CANON", "GRID", "SKIN_POINTS", "FaceGeometry", "geometry", "canonical", "to_canonical", "from_keypoints", "SkinRef",
           "skin_reference", "balanced", "N_FEATURES", "mask_features"]

"""Pixel features a seat's state needs beyond landmarks: is the eye band dark?

A sleep mask is a near-black band over the eyes. With it on, the face mesh
rarely fires and face detection drops, but pose still places the eyes; so
the band's darkness is measured at the pose's (or a detected face's) eye
points, against the skin below it (nose to mouth), and a second band above
the eyes catches a mask pushed onto the forehead.

Computed in the extraction worker, where the crop is in memory, and stored
with the landmarks so the classifiers can be re-run without the video.
Pure functions of a crop and points; no models.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.appearance import appearance_features
from vision.calibration import SeatRegion, expected_head
from vision.crops import Crop
from vision.faces.window_domain import FEATURE as HEAD_REAL, head_real
from vision.skin import skin_mask

# Luminance (0-255) below which a pixel counts as "mask black". The rendered
# mask is about 0.05 of full scale; real sleep masks are black or navy.
DARK_LUMA = 55.0
MIN_VISIBILITY = 0.3

# pose indices
NOSE, EYE_L, EYE_R, EAR_L, EAR_R, MOUTH_L, MOUTH_R = 0, 2, 5, 7, 8, 9, 10


def _luma(img: np.ndarray) -> np.ndarray:
    """0-255 luminance (Rec. 601 weights, uint8): OpenCV's fixed-point
    conversion, a fifth of the cost of float arithmetic on a whole crop."""
    return cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_RGB2GRAY)


def _rect_stats(luma: np.ndarray, crop: Crop, x0: float, y0: float, x1: float, y1: float
                ) -> tuple[float, float] | None:
    """(mean luminance, dark fraction) inside a frame-px rectangle, or None
    when it falls outside the crop or is under 2x2 crop px."""
    sx, sy = crop.scale_xy
    h, w = luma.shape
    a = int(np.floor((x0 - crop.box[0]) * sx)), int(np.floor((y0 - crop.box[1]) * sy))
    b = int(np.ceil((x1 - crop.box[0]) * sx)), int(np.ceil((y1 - crop.box[1]) * sy))
    a = max(0, a[0]), max(0, a[1])
    b = min(w, b[0]), min(h, b[1])
    if b[0] - a[0] < 2 or b[1] - a[1] < 2:
        return None
    patch = luma[a[1]:b[1], a[0]:b[0]]
    return float(patch.mean()), float((patch < DARK_LUMA).mean())


def eye_band_features(luma: np.ndarray, crop: Crop, eye_a: np.ndarray, eye_b: np.ndarray,
                      mouth: np.ndarray, head_px: float, prefix: str) -> dict[str, float]:
    """Darkness of the eye band, the forehead band above it and the skin
    between nose and mouth, for one pair of eye points (frame px)."""
    eyes = np.array([eye_a, eye_b], float)
    mid = eyes.mean(axis=0)
    d = max(head_px, 3.0)
    x0, x1 = eyes[:, 0].min() - 0.35 * d, eyes[:, 0].max() + 0.35 * d
    out: dict[str, float] = {f"{prefix}head_px": round(float(d), 2)}
    band = _rect_stats(luma, crop, x0, mid[1] - 0.22 * d, x1, mid[1] + 0.22 * d)
    fore = _rect_stats(luma, crop, x0, mid[1] - 0.85 * d, x1, mid[1] - 0.35 * d)
    # skin: from just under the eyes to the mouth, narrower than the band
    cx = 0.5 * (mid[0] + mouth[0])
    top = mid[1] + 0.3 * d
    bottom = max(mouth[1], top + 0.3 * d)
    skin = _rect_stats(luma, crop, cx - 0.3 * d, top, cx + 0.3 * d, bottom)
    for name, st in (("eye", band), ("forehead", fore), ("skin", skin)):
        if st is not None:
            out[f"{prefix}{name}_lum"] = round(st[0], 1)
            out[f"{prefix}{name}_dark"] = round(st[1], 3)
    return out


def _pose_head_px(pose: np.ndarray) -> float:
    eyes = np.linalg.norm(pose[EYE_L, :2] - pose[EYE_R, :2])
    ears = np.linalg.norm(pose[EAR_L, :2] - pose[EAR_R, :2])
    eye_mid = 0.5 * (pose[EYE_L, :2] + pose[EYE_R, :2])
    mouth_mid = 0.5 * (pose[MOUTH_L, :2] + pose[MOUTH_R, :2])
    # in profile the eyes and ears overlap; eye-to-mouth keeps the scale
    return float(max(eyes * 1.3, ears * 0.7, np.linalg.norm(mouth_mid - eye_mid) * 1.6))


def crop_features(crop: Crop, pose: np.ndarray | None, faces=(),
                  region: SeatRegion | None = None,
                  appearance: dict[str, float] | None = None) -> dict[str, float]:
    """Features of one seat crop given its landmarks (frame px).

    `pose_*`: at the pose's eye points; `face_*`: at the best detected face's;
    `win_*`: in a window around the seat's expected head, for frames where no
    detector finds the head (a masked head bowed in the night pose).
    Missing points give missing keys (never NaN)."""
    luma = _luma(crop.image)
    out: dict[str, float] = {}
    if region is not None:
        c, hs = expected_head(region)
        st = _rect_stats(luma, crop, c[0] - hs, c[1] - 0.9 * hs, c[0] + hs, c[1] + 0.9 * hs)
        if st is not None:
            out["win_lum"], out["win_dark"] = round(st[0], 1), round(st[1], 3)
    if pose is not None and pose[[EYE_L, EYE_R, NOSE], 3].min() >= MIN_VISIBILITY:
        mouth = 0.5 * (pose[MOUTH_L, :2] + pose[MOUTH_R, :2])
        out.update(eye_band_features(luma, crop, pose[EYE_L, :2], pose[EYE_R, :2], mouth,
                                     _pose_head_px(pose), "pose_"))
    if faces:
        f = max(faces, key=lambda f: f.score)
        k = np.asarray(f.keypoints, float)
        head = max(f.box[2] - f.box[0], 1.0) * 0.6
        out.update(eye_band_features(luma, crop, k[0], k[1], k[3], head, "face_"))
    if region is not None:
        out.update(zone_skin_features(crop, region.table_zone))
        out.update(appearance if appearance is not None else appearance_features(crop, region))
        # whether the head window sees pixels like its (rendered) training data
        if HEAD_REAL not in out:
            out.update(head_real(crop, region))
    return out


def zone_skin_features(crop: Crop, zone) -> dict[str, float]:
    """How much hand is in the seat's table zone: the skin fraction of the zone
    (a fist landing raises it) and the skin's vertical extent in the zone's
    upper half (an upright fist stands up; a flat palm does not).

    A vote fist in a wide shot can be too small for the palm detector; this
    cue does not need it. Compared per seat with its own baseline downstream."""
    sx, sy = crop.scale_xy
    h, w = crop.image.shape[:2]
    x0 = int(max(0, np.floor((zone[0] - crop.box[0]) * sx)))
    y0 = int(max(0, np.floor((zone[1] - crop.box[1]) * sy)))
    x1 = int(min(w, np.ceil((zone[2] - crop.box[0]) * sx)))
    y1 = int(min(h, np.ceil((zone[3] - crop.box[1]) * sy)))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return {}
    m = skin_mask(crop.image[y0:y1, x0:x1])
    rows = np.flatnonzero(m.mean(axis=1) > 0.04)
    extent = (rows[-1] - rows[0] + 1) / m.shape[0] if rows.size else 0.0
    upper = m[: m.shape[0] // 2].mean()
    return {"zone_skin": round(float(m.mean()), 4), "zone_skin_upper": round(float(upper), 4),
            "zone_skin_extent": round(float(extent), 3)}

"""Find hands in RGB images with MediaPipe Hands and return typed observations.

MediaPipe's palm detector shrinks its input to 192 px and wants some room
around the hand: a small photo whose wrist touches the frame edge is often
missed. So the image is upscaled and framed with a border before detection,
and when nothing is found a few other framings are tried (still mode only).
All coordinates are mapped back to the caller's original image.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import cv2
import numpy as np

from vision.native_quiet import quiet_native_stderr

if TYPE_CHECKING:
    from vision.hands.roi import RoiLandmarker


@dataclass(frozen=True)
class Framing:
    """How an image is prepared for the detector: scale to a size, add a border.

    `min_side` upscales (never downscales) so the shorter side reaches it;
    `pad` is the border on each side as a fraction of the scaled longer side.
    """

    min_side: int = 300
    pad: float = 0.5
    border: str = "replicate"  # "replicate" (extends the background) or "constant"


# Measured on the 150 real 100x100 sign-digit photos: no border 86% detected,
# a replicated border of half the size 100%. A border also shrinks the hand
# as the detector sees it, so a big frame with a small hand is retried with
# less or no border before giving up.
DEFAULT_FRAMINGS: tuple[Framing, ...] = (
    Framing(min_side=300, pad=0.5),
    Framing(min_side=300, pad=0.25),
    Framing(min_side=300, pad=0.0),
    Framing(min_side=300, pad=1.0),
)

_BORDERS = {"replicate": cv2.BORDER_REPLICATE, "constant": cv2.BORDER_CONSTANT}


@dataclass(frozen=True)
class HandObservation:
    """One hand found in one image.

    landmarks_px: (21, 3) x, y in the original image's pixels (may lie outside
        it when the hand is cut by the frame edge); z in the same pixel scale,
        relative to the wrist, smaller = nearer the camera.
    landmarks_norm: (21, 3) x, y divided by the original width and height
        (MediaPipe's normalized convention), z as MediaPipe gives it.
    world_landmarks: (21, 3) metres, origin near the hand's centre, or None.
    handedness: "Left" or "Right" as seen for the person's own hand.
    handedness_score: MediaPipe's confidence in the handedness label.
    box: [x0, y0, x1, y1] around the landmarks, clipped to the original image.
    """

    landmarks_px: np.ndarray
    landmarks_norm: np.ndarray
    world_landmarks: np.ndarray | None
    handedness: str
    handedness_score: float
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class _Prepared:
    image: np.ndarray
    scale: float
    offset_x: int
    offset_y: int


def prepare_image(image: np.ndarray, framing: Framing) -> _Prepared:
    """Upscale and add a border; remember how to map coordinates back."""
    h, w = image.shape[:2]
    scale = max(1.0, framing.min_side / float(min(h, w)))
    if scale > 1.0:
        image = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_CUBIC)
    pad = int(round(framing.pad * max(image.shape[:2])))
    if pad > 0:
        image = cv2.copyMakeBorder(image, pad, pad, pad, pad, _BORDERS[framing.border], value=(0, 0, 0))
    return _Prepared(np.ascontiguousarray(image), scale, pad, pad)


def _swap_handedness(label: str) -> str:
    return {"Left": "Right", "Right": "Left"}.get(label, label)


class HandDetector:
    """MediaPipe Hands (bundled full model) over RGB images.

    tracking=False treats every image as unrelated (still photos, isolated
    frames) and tries several framings until a hand is found. tracking=True is
    for consecutive frames of one view: MediaPipe reuses the previous hand
    position, and a single framing is used so coordinates stay consistent.

    mirrored: MediaPipe labels handedness as if the image were a selfie
    (mirrored). Photos and table cameras are not mirrored, so by default the
    label is swapped to name the person's real hand.

    quiet: hide MediaPipe's native start-up log lines (written to fd 2 during
    graph creation and the first inference).

    roi_fallback: when the palm detector finds nothing in any framing, run
    the landmark model on the whole image as the hand's region (roi.py): a
    photo cropped to one small, dark or blurred hand. Default: on in still
    mode. On the 240 real HaGRID crops the palm detector misses 16 (7%),
    with the fallback 1 is missed (scripts/eval_real_hands.py).

    Use as a context manager, or call close(), to free the graph.
    """

    def __init__(
        self,
        *,
        tracking: bool = False,
        max_hands: int = 2,
        min_detection_confidence: float = 0.5,
        min_tracking_confidence: float = 0.5,
        framings: Sequence[Framing] = DEFAULT_FRAMINGS,
        mirrored: bool = False,
        quiet: bool = True,
        roi_fallback: bool | None = None,
    ) -> None:
        import mediapipe as mp  # imported here: loading it costs about a second

        if not framings:
            raise ValueError("at least one framing is needed")
        self._framings = tuple(framings[:1]) if tracking else tuple(framings)
        self._mirrored = mirrored
        self._roi_fallback = (not tracking) if roi_fallback is None else roi_fallback
        self._roi: RoiLandmarker | None = None
        self._quiet_first_call = quiet
        with quiet_native_stderr(quiet):
            self._hands = mp.solutions.hands.Hands(
                static_image_mode=not tracking,
                max_num_hands=max_hands,
                model_complexity=1,
                min_detection_confidence=min_detection_confidence,
                min_tracking_confidence=min_tracking_confidence,
            )

    def __enter__(self) -> "HandDetector":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._hands is not None:
            self._hands.close()
            self._hands = None
        if self._roi is not None:
            self._roi.close()
            self._roi = None

    def detect(self, image_rgb: np.ndarray) -> list[HandObservation]:
        """All hands in an RGB uint8 image (H, W, 3), in MediaPipe's order."""
        if self._hands is None:
            raise RuntimeError("detector is closed")
        image_rgb = _as_rgb_uint8(image_rgb)
        for framing in self._framings:
            prepared = prepare_image(image_rgb, framing)
            with quiet_native_stderr(self._quiet_first_call):
                result = self._hands.process(prepared.image)
            self._quiet_first_call = False
            if result.multi_hand_landmarks:
                return self._observations(result, prepared, image_rgb.shape[1], image_rgb.shape[0])
        if self._roi_fallback:
            return self._from_region(image_rgb)
        return []

    def _from_region(self, image_rgb: np.ndarray) -> list[HandObservation]:
        """The landmark model on the whole image as the hand's region."""
        from vision.hands.roi import RoiLandmarker

        if self._roi is None:
            self._roi = RoiLandmarker()
        found = self._roi.find(image_rgb)
        if found is None:
            return []
        px, label, score = found
        height, width = image_rgb.shape[:2]
        norm = np.column_stack([px[:, 0] / width, px[:, 1] / height, px[:, 2] / width])
        if not self._mirrored:
            label = _swap_handedness(label)
        x0, y0 = np.clip(px[:, 0].min(), 0, width), np.clip(px[:, 1].min(), 0, height)
        x1, y1 = np.clip(px[:, 0].max(), 0, width), np.clip(px[:, 1].max(), 0, height)
        return [HandObservation(px, norm, None, label, score, (float(x0), float(y0), float(x1), float(y1)))]

    def _observations(self, result, prepared: _Prepared, width: int, height: int) -> list[HandObservation]:
        ph, pw = prepared.image.shape[:2]
        worlds = result.multi_hand_world_landmarks or [None] * len(result.multi_hand_landmarks)
        handed = result.multi_handedness or [None] * len(result.multi_hand_landmarks)
        out = []
        for lms, world, hand in zip(result.multi_hand_landmarks, worlds, handed):
            raw = np.array([[p.x, p.y, p.z] for p in lms.landmark], dtype=np.float64)
            px = np.empty_like(raw)
            px[:, 0] = (raw[:, 0] * pw - prepared.offset_x) / prepared.scale
            px[:, 1] = (raw[:, 1] * ph - prepared.offset_y) / prepared.scale
            # MediaPipe's z uses roughly the same scale as x in the processed image.
            px[:, 2] = raw[:, 2] * pw / prepared.scale
            norm = np.column_stack([px[:, 0] / width, px[:, 1] / height, raw[:, 2]])
            world_arr = (
                np.array([[p.x, p.y, p.z] for p in world.landmark], dtype=np.float64)
                if world is not None
                else None
            )
            if hand is not None:
                label = hand.classification[0].label
                score = float(hand.classification[0].score)
            else:
                label, score = "Unknown", 0.0
            if not self._mirrored:
                label = _swap_handedness(label)
            x0, y0 = np.clip(px[:, 0].min(), 0, width), np.clip(px[:, 1].min(), 0, height)
            x1, y1 = np.clip(px[:, 0].max(), 0, width), np.clip(px[:, 1].max(), 0, height)
            out.append(
                HandObservation(
                    landmarks_px=px,
                    landmarks_norm=norm,
                    world_landmarks=world_arr,
                    handedness=label,
                    handedness_score=score,
                    box=(float(x0), float(y0), float(x1), float(y1)),
                )
            )
        return out


def _as_rgb_uint8(image: np.ndarray) -> np.ndarray:
    image = np.asarray(image)
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(f"expected an RGB image (H, W, 3), got shape {image.shape}")
    if image.shape[2] == 4:
        image = image[:, :, :3]
    if image.dtype != np.uint8:
        raise ValueError(f"expected uint8 pixels, got {image.dtype}")
    if min(image.shape[:2]) < 8:
        raise ValueError(f"image too small to hold a hand: {image.shape[1]}x{image.shape[0]}")
    return image


def detect_hands(image_rgb: np.ndarray, **detector_options) -> list[HandObservation]:
    """One-off detection on a still image (creates and closes a detector)."""
    with HandDetector(**detector_options) as detector:
        return detector.detect(image_rgb)


def load_rgb(path: str) -> np.ndarray:
    """Read an image file as RGB uint8; ValueError naming the file if it is not one."""
    try:
        data = np.fromfile(path, dtype=np.uint8)  # also reads non-ASCII paths
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read ({exc.strerror or exc})") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ValueError(f"{path}: not a readable image")
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)

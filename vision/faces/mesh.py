"""MediaPipe's face mesh with irises (refine_landmarks) on a head window.

The face mesh was trained on real faces; unlike the learned head window it
still finds a real face with a dark band over its eyes (its landmarks then
lie under the band, where the eyes are). It is run on the seat's head
window (vision.appearance.window_box("head")) resampled to PATCH_SIDE px:
MediaPipe's face detector reads 128 px and the landmark model a 192 px
box of the face, so a 32-64 px head loses nothing at this size.

Bundled model (face_landmark_with_attention in the mediapipe wheel); nothing
is downloaded.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from vision.appearance import patch, window_box
from vision.calibration import SeatRegion
from vision.crops import Crop

# side (px) of the square head patch the mesh reads (the head is about 49 px of it)
PATCH_SIDE = 128
# Face detection's least score. Lower than MediaPipe's default (0.5): the
# detector scores a face with a black band over its eyes lower; the
# landmark model and the checks in mask_read judge what it then found.
MIN_DETECTION = 0.3
# face detection's least score for the keypoints the mask is read from when
# the mesh declines a face (MediaPipe's default)
KEYPOINT_DETECTION = 0.5


class HeadMesh:
    """One face mesh graph (static mode: every head window is read afresh).
    Not thread-safe; one per process."""

    def __init__(self, min_detection: float = MIN_DETECTION):
        self._min_detection = min_detection
        self._graph: Any = None
        self._detector: Any = None

    def _mesh(self):
        if self._graph is None:
            import mediapipe as mp
            self._graph = mp.solutions.face_mesh.FaceMesh(
                static_image_mode=True, max_num_faces=1, refine_landmarks=True,
                min_detection_confidence=self._min_detection)
        return self._graph

    def landmarks(self, image: np.ndarray) -> np.ndarray | None:
        """The face's 478 landmarks (x, y in image px, z in image px
        relative to the face's centre), or None when no face is found."""
        h, w = image.shape[:2]
        res = self._mesh().process(np.ascontiguousarray(image))
        if not res.multi_face_landmarks:
            return None
        lm = res.multi_face_landmarks[0].landmark
        return np.array([[p.x * w, p.y * h, p.z * w] for p in lm], np.float64)

    def keypoints(self, image: np.ndarray) -> np.ndarray | None:
        """Face detection's six keypoints of the best face (image px): the eye
        on the image's left, the other eye, nose tip, mouth centre, the ear
        tragions; None when no face is found. The mesh's landmark model
        declines some faces its own detector found (a wide dark band, a
        blurred 35 px head): these are read from the keypoints instead."""
        if self._detector is None:
            import mediapipe as mp
            self._detector = mp.solutions.face_detection.FaceDetection(0, KEYPOINT_DETECTION)
        h, w = image.shape[:2]
        res = self._detector.process(np.ascontiguousarray(image))
        if not res.detections:
            return None
        best = max(res.detections, key=lambda d: d.score[0])
        kp = np.array([[k.x * w, k.y * h] for k in best.location_data.relative_keypoints], np.float64)
        if kp[0, 0] > kp[1, 0]:
            kp[[0, 1]] = kp[[1, 0]]
            kp[[4, 5]] = kp[[5, 4]]
        return kp

    def close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None
        if self._detector is not None:
            self._detector.close()
            self._detector = None

    def __enter__(self) -> "HeadMesh":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def head_patch(crop: Crop, region: SeatRegion, side: int = PATCH_SIDE) -> np.ndarray:
    """The seat's head window cut from its crop at side x side px (RGB)."""
    return patch(crop, window_box("head", region), (side, side))


__all__ = ["PATCH_SIDE", "MIN_DETECTION", "KEYPOINT_DETECTION", "HeadMesh", "head_patch"]

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

from typing import Any, Callable

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
# The landmark model's least face presence (MediaPipe's default 0.5, its
# `min_tracking_confidence`, which static mode applies too): it declines
# some faces with a wide dark band over the eyes at 0.5.
MIN_PRESENCE = 0.3
# the hand model's least palm detection score on a head window (MediaPipe's default)
HAND_DETECTION = 0.5
_GRAPH = "mediapipe/modules/face_landmark/face_landmark_front_cpu.binarypb"


class HeadMesh:
    """One face mesh graph (static mode: every head window is read afresh)
    that also gives its face detector's keypoints. Not thread-safe; one per
    process."""

    def __init__(self, min_detection: float = MIN_DETECTION, min_presence: float = MIN_PRESENCE,
                 hands: Callable[[], Any] | None = None):
        """`hands`: gives a static hands graph of the configuration `hands()`
        builds (max 2 hands, complexity 1, detection HAND_DETECTION), owned
        by the caller: an extraction worker's seat landmarker lends its own,
        as a second one holds ~86 MB (measured) for the same answers."""
        self._min_detection = min_detection
        self._min_presence = min_presence
        self._graph: Any = None
        self._hands: Any = None
        self._lent_hands = hands

    def _mesh(self):
        if self._graph is None:
            # MediaPipe's FaceMesh solution, with the face detections as a second output
            import mediapipe.python.solutions.face_mesh  # noqa: F401  (registers the graph's option types)
            from mediapipe.python.solution_base import SolutionBase
            self._graph = SolutionBase(
                binary_graph_path=_GRAPH,
                side_inputs={"num_faces": 1, "with_attention": True, "use_prev_landmarks": False},
                calculator_params={
                    "facedetectionshortrangecpu__facedetectionshortrange__facedetection__"
                    "TensorsToDetectionsCalculator.min_score_thresh": self._min_detection,
                    "facelandmarkcpu__ThresholdingCalculator.threshold": self._min_presence},
                outputs=["multi_face_landmarks", "face_detections"])
        return self._graph

    def read(self, image: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The face's 478 landmarks (x, y in image px, z in image px relative
        to the face's centre) and its detector's six keypoints (image px: the
        eye on the image's left, the other eye, nose tip, mouth centre, the
        ear tragions); either is None when not found. The landmark model
        declines some faces its detector found (a wide dark band, a blurred
        35 px head): the mask is then read from the keypoints."""
        h, w = image.shape[:2]
        res = self._mesh().process({"image": np.ascontiguousarray(image)})
        lm = None
        if res.multi_face_landmarks:
            pts = res.multi_face_landmarks[0].landmark
            lm = np.array([[p.x * w, p.y * h, p.z * w] for p in pts], np.float64)
        kp = None
        if res.face_detections:
            best = max(res.face_detections, key=lambda d: d.score[0])
            kp = np.array([[k.x * w, k.y * h] for k in best.location_data.relative_keypoints], np.float64)
            if kp[0, 0] > kp[1, 0]:
                kp[[0, 1]] = kp[[1, 0]]
                kp[[4, 5]] = kp[[5, 4]]
        return lm, kp

    def hands(self, image: np.ndarray) -> list[np.ndarray]:
        """Every hand's 21 landmarks (x, y in image px) that MediaPipe's hand
        model finds in the window: a hand held before a face is read as a face
        by the face detector and the mesh (real hands, HaGRID crops: 38 of 240
        read as a face with a mask state, 36 of them "mask off")."""
        h, w = image.shape[:2]
        res = self._hands_graph().process(np.ascontiguousarray(image))
        return [np.array([[p.x * w, p.y * h] for p in hand.landmark], np.float64)
                for hand in res.multi_hand_landmarks or []]

    def _hands_graph(self):
        if self._lent_hands is not None:
            return self._lent_hands()
        if self._hands is None:
            import mediapipe as mp
            self._hands = mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2, model_complexity=1,
                                                   min_detection_confidence=HAND_DETECTION)
        return self._hands

    def landmarks(self, image: np.ndarray) -> np.ndarray | None:
        """The face's landmarks alone (see `read`)."""
        return self.read(image)[0]

    def close(self) -> None:
        for g in (self._graph, self._hands):
            if g is not None:
                g.close()
        self._graph = self._hands = None

    def __enter__(self) -> "HeadMesh":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def head_patch(crop: Crop, region: SeatRegion, side: int = PATCH_SIDE) -> np.ndarray:
    """The seat's head window cut from its crop at side x side px (RGB)."""
    return patch(crop, window_box("head", region), (side, side))


__all__ = ["PATCH_SIDE", "MIN_DETECTION", "MIN_PRESENCE", "HeadMesh", "head_patch"]

"""MediaPipe's hand landmark model on a given region, without the palm detector.

MediaPipe Hands finds a hand in two steps: a palm detector proposes a
rotated box, then the landmark model reads 21 points inside it (and says
whether a hand is there at all: below a presence of 0.5 it returns none).
On small, dark or blurred real hands the palm detector is the step that
fails (on the 240 real HaGRID crops it misses 16, where the landmark model
alone, given the crop, finds a hand in most of them). When the caller
already knows where a hand should be (a photo cropped to a hand; a table
zone where something moved), `RoiLandmarker` runs the landmark model on
that region directly: every upright rotation is tried (a thumb-up fist
lies on its side in the image), and the first hand found is read again in
the box its own landmarks give (as MediaPipe's tracking does), so the
points come from a hand upright and centred in the model's input.

Bundled model (`hand_landmark_full.tflite` in the mediapipe wheel), nothing
downloaded.
"""
from __future__ import annotations

import math

import numpy as np

_GRAPH = """
input_stream: "IMAGE:image"
input_stream: "ROI:roi"
input_side_packet: "MODEL_COMPLEXITY:model_complexity"
output_stream: "LANDMARKS:landmarks"
output_stream: "HANDEDNESS:handedness"
node {
  calculator: "HandLandmarkCpu"
  input_stream: "IMAGE:image"
  input_stream: "ROI:roi"
  input_side_packet: "MODEL_COMPLEXITY:model_complexity"
  output_stream: "LANDMARKS:landmarks"
  output_stream: "HANDEDNESS:handedness"
}
"""

# The rotations tried on an unknown hand, in radians (0: fingers up).
ROTATIONS = (0.0, math.pi / 2, -math.pi / 2, math.pi)


def rotations_from(first: float) -> tuple[float, ...]:
    """The four upright rotations, the likeliest first (a quarter turn either
    way next, the half turn last). `find` stops at the first rotation that
    finds a hand, so a good first guess saves up to three model runs."""
    def wrap(a: float) -> float:
        return (a + math.pi) % (2 * math.pi) - math.pi
    return tuple(wrap(first + d) for d in (0.0, math.pi / 2, -math.pi / 2, math.pi))


def rotation_toward(wrist_xy, fingers_xy) -> float:
    """The box rotation (as roi_from_landmarks gives it) of a hand whose wrist
    lies toward `wrist_xy` and fingers toward `fingers_xy` (image px)."""
    vx, vy = fingers_xy[0] - wrist_xy[0], fingers_xy[1] - wrist_xy[1]
    rotation = math.pi / 2 - math.atan2(-vy, vx)
    return (rotation + math.pi) % (2 * math.pi) - math.pi


# MediaPipe's own box around a hand's landmarks (hand_landmark_landmarks_to_roi):
# twice the landmarks' extent, shifted a tenth toward the fingers.
ROI_SCALE = 2.0
ROI_SHIFT = -0.1
# Palm landmarks MediaPipe uses for the box (the fingers' tips move too much).
_PALM = (0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18)


def _square(image: np.ndarray) -> tuple[np.ndarray, int, int]:
    """The image padded (edge pixels repeated) to a square: the landmark
    graph maps a normalized box correctly only on a square image."""
    import cv2

    h, w = image.shape[:2]
    side = max(h, w)
    top, left = (side - h) // 2, (side - w) // 2
    out = cv2.copyMakeBorder(image, top, side - h - top, left, side - w - left, cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(out), left, top


def roi_from_landmarks(points: np.ndarray) -> tuple[float, float, float, float]:
    """(cx, cy, side, rotation) of MediaPipe's box for a hand: points (21, 2+) in
    pixels of a square image; rotation turns the wrist-to-middle-knuckle line up."""
    pts = np.asarray(points, dtype=np.float64)[:, :2]
    v = pts[9] - pts[0]
    rotation = math.pi / 2 - math.atan2(-v[1], v[0])
    rotation = (rotation + math.pi) % (2 * math.pi) - math.pi
    c, s = math.cos(rotation), math.sin(rotation)
    palm = pts[list(_PALM)]
    centre = (palm.max(axis=0) + palm.min(axis=0)) / 2
    # extent in the hand's own upright frame
    rel = pts - centre
    upright = np.column_stack([c * rel[:, 0] + s * rel[:, 1], -s * rel[:, 0] + c * rel[:, 1]])
    lo, hi = upright.min(axis=0), upright.max(axis=0)
    mid = (lo + hi) / 2
    side = float(max(hi - lo)) * ROI_SCALE
    # back to image axes, with the shift toward the fingers (-y in the hand frame)
    mx, my = mid[0], mid[1] + ROI_SHIFT * side
    cx = centre[0] + c * mx - s * my
    cy = centre[1] + s * mx + c * my
    return float(cx), float(cy), side, rotation


class RoiLandmarker:
    """The landmark model on a region of an RGB image. Not thread-safe."""

    def __init__(self, model_complexity: int = 1) -> None:
        from google.protobuf import text_format
        from mediapipe.framework import calculator_pb2
        from mediapipe.python.solution_base import SolutionBase

        from vision.native_quiet import quiet_native_stderr

        config = text_format.Parse(_GRAPH, calculator_pb2.CalculatorGraphConfig())
        # MediaPipe logs its graph set-up and first inference straight to fd 2
        self._quiet = quiet_native_stderr
        self._first = True
        with self._quiet(True):
            self._graph = SolutionBase(graph_config=config, side_inputs={"model_complexity": model_complexity})

    def close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None

    def __enter__(self) -> "RoiLandmarker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, square: np.ndarray, cx: float, cy: float, side: float, rotation: float):
        from mediapipe.framework.formats import rect_pb2

        if self._graph is None:
            raise RuntimeError("landmarker is closed")
        n = square.shape[0]
        roi = rect_pb2.NormalizedRect(x_center=cx / n, y_center=cy / n, width=side / n, height=side / n,
                                      rotation=rotation)
        # the projection step logs its one-time warning on the first hand found
        with self._quiet(self._first):
            out = self._graph.process({"image": square, "roi": roi})
        if out.landmarks is None:
            return None
        self._first = False
        raw = np.array([[p.x, p.y, p.z] for p in out.landmarks.landmark], dtype=np.float64)
        label, score = "Unknown", 0.0
        if out.handedness is not None and out.handedness.classification:
            label = out.handedness.classification[0].label
            score = float(out.handedness.classification[0].score)
        return raw, label, score

    def find(self, image_rgb: np.ndarray, box: tuple[float, float, float, float] | None = None,
             rotations: tuple[float, ...] = ROTATIONS):
        """One hand inside `box` ([x0, y0, x1, y1] image px; default the whole
        image), or None: (landmarks (21, 3) in image px with z in the same
        scale, MediaPipe's selfie-convention handedness label, its score)."""
        square, left, top = _square(image_rgb)
        n = square.shape[0]
        x0: float
        y0: float
        x1: float
        y1: float
        if box is None:
            x0, y0, x1, y1 = left, top, left + image_rgb.shape[1], top + image_rgb.shape[0]
        else:
            x0, y0, x1, y1 = box[0] + left, box[1] + top, box[2] + left, box[3] + top
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        # a crop tight around a hand: MediaPipe's own boxes are twice the palm
        side = max(x1 - x0, y1 - y0) * 1.15
        for rotation in rotations:
            first = self._run(square, cx, cy, side, rotation)
            if first is None:
                continue
            pts = first[0].copy()
            pts[:, 0] *= n
            pts[:, 1] *= n
            # read again in the box the hand's own landmarks give (upright, centred)
            again = self._run(square, *roi_from_landmarks(pts))
            raw, label, score = again if again is not None else first
            px = raw.copy()
            px[:, 0] = raw[:, 0] * n - left
            px[:, 1] = raw[:, 1] * n - top
            px[:, 2] = raw[:, 2] * n
            return px, label, score
        return None


__all__ = ["ROTATIONS", "RoiLandmarker", "roi_from_landmarks", "rotation_toward", "rotations_from"]

"""MediaPipe landmarks on a seat crop, mapped back to frame pixels.

One `SeatLandmarker` per seat in tracking mode (consecutive frames of that
seat: MediaPipe reuses the previous frame's regions, about half the cost),
or one shared instance in static mode (isolated frames: detect from
scratch every time).

Handedness: MediaPipe labels hands as if the image were a mirrored selfie;
table cameras are not mirrored, so the label is swapped and `Hand.side` is
the player's own hand ("left"/"right").
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable

import numpy as np

from vision.calibration import Box
from vision.crops import Crop
from vision.pixel_features import crop_features


class Model(str, Enum):
    POSE = "pose"
    FACE = "face"          # face detection (short range, vision.people.face_detector)
    MESH = "mesh"          # face mesh with irises on the head window: the mask (vision.faces)
    HANDS = "hands"


ALL_MODELS = (Model.POSE, Model.FACE, Model.MESH, Model.HANDS)


@dataclass
class Face:
    box: Box                  # frame px
    score: float
    model: str                # "short" (records stored before session 32 also say "full": the same model)
    keypoints: np.ndarray     # (6, 2) frame px: eyes, nose, mouth, ears


@dataclass
class Hand:
    points: np.ndarray        # (21, 3): x, y frame px; z depth relative to the wrist (frame px)
    side: str                 # the player's hand: "left" or "right"
    score: float              # handedness confidence
    # more readings of the same hand ((21, 2) frame px): the landmark model
    # again in the hand's own box, and in the mirrored crop (vision.hands.zone_read)
    readings: list[np.ndarray] = field(default_factory=list)

    @property
    def box(self) -> Box:
        x0, y0 = self.points[:, :2].min(axis=0)
        x1, y1 = self.points[:, :2].max(axis=0)
        return (float(x0), float(y0), float(x1), float(y1))


@dataclass
class SeatLandmarks:
    seat: int
    t: float
    crop_box: Box
    pose: np.ndarray | None = None          # (33, 4): x, y frame px, z, visibility
    faces: list[Face] = field(default_factory=list)
    mesh: bool = False                      # face mesh found
    eyes: np.ndarray | None = None          # (2, 16, 2) frame px: right, left eye
    hands: list[Hand] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)   # seconds per model
    # pixel measurements made while the crop was in memory (vision.pixel_features)
    features: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "seat": self.seat, "t": self.t, "crop_box": list(self.crop_box),
            "pose": None if self.pose is None else np.round(self.pose, 2).tolist(),
            "faces": [{"box": [round(v, 1) for v in f.box], "score": round(f.score, 3),
                       "model": f.model, "keypoints": np.round(f.keypoints, 1).tolist()}
                      for f in self.faces],
            "mesh": self.mesh,
            "eyes": None if self.eyes is None else np.round(self.eyes, 1).tolist(),
            "hands": [{"points": np.round(h.points, 1).tolist(), "side": h.side, "score": round(h.score, 3),
                       **({"readings": [np.round(r, 1).tolist() for r in h.readings]} if h.readings else {})}
                      for h in self.hands],
            "features": dict(self.features),
        }

    @staticmethod
    def from_json(d: dict) -> "SeatLandmarks":
        return SeatLandmarks(
            seat=int(d["seat"]), t=float(d["t"]), crop_box=tuple(d["crop_box"]),
            pose=None if d.get("pose") is None else np.array(d["pose"], float),
            faces=[Face(tuple(f["box"]), f["score"], f["model"], np.array(f["keypoints"], float))
                   for f in d.get("faces", [])],
            mesh=bool(d.get("mesh")),
            eyes=None if d.get("eyes") is None else np.array(d["eyes"], float),
            hands=[Hand(np.array(h["points"], float), h["side"], h["score"],
                        [np.array(r, float) for r in h.get("readings", [])])
                   for h in d.get("hands", [])],
            features={k: float(v) for k, v in (d.get("features") or {}).items()},
        )


class SeatLandmarker:
    """The MediaPipe models for one seat (tracking) or for isolated frames
    (static). Not thread-safe; create one per process."""

    def __init__(self, tracking: bool = False, models: Iterable[Model] = ALL_MODELS,
                 min_confidence: float = 0.5, max_hands: int = 2):
        self.tracking = tracking
        self.models = tuple(Model(m) for m in models)
        self._min_confidence = min_confidence
        self._max_hands = max_hands
        # Graphs are built on first use: a MediaPipe graph holds tens of MB, and
        # a seat whose gate stays shut (or a model its ranges never ask for)
        # should not cost any.
        self._built: dict[Model, object] = {}
        self._roi = None   # the landmark model alone, for given boxes (read_regions)
        self.cpu_total: dict[str, float] = {m.value: 0.0 for m in self.models}
        self.calls = 0

    def _model(self, m: Model):
        if m not in self._built:
            import mediapipe as mp
            sol, static, conf = mp.solutions, not self.tracking, self._min_confidence
            if m is Model.POSE:
                g = sol.pose.Pose(static_image_mode=static, model_complexity=1, smooth_landmarks=self.tracking,
                                  enable_segmentation=False, min_detection_confidence=conf)
            elif m is Model.FACE:
                from vision.people import face_detector
                g = face_detector()
            elif m is Model.MESH:
                from vision.faces.mesh import HAND_DETECTION, HeadMesh
                # the mesh's look for a hand before the face is the static hands
                # graph of this landmarker where the two are configured alike
                same = static and self._max_hands == 2 and self._min_confidence == HAND_DETECTION
                g = HeadMesh(hands=(lambda: self._model(Model.HANDS)) if same else None)
            else:
                g = sol.hands.Hands(static_image_mode=static, max_num_hands=self._max_hands, model_complexity=1,
                                    min_detection_confidence=conf)
            self._built[m] = g
        return self._built[m]

    def close(self) -> None:
        for g in self._built.values():
            g.close()
        self._built.clear()
        if self._roi is not None:
            self._roi.close()
            self._roi = None

    def read_regions(self, crop: Crop, boxes, player_xy: tuple[float, float] | None = None) -> list[Hand]:
        """The hand landmark model alone on boxes of the crop ([x0, y0, x1, y1]
        crop px), where the palm detector found nothing (vision.hands.roi):
        the hands it finds, in frame px. `player_xy` (crop px), where the
        seat's player sits: a hand on the table points away from its player,
        so that rotation is tried first (fewer model runs, and the first
        reading in the hand's own upright frame)."""
        if not boxes:
            return []
        from vision.hands.roi import ROTATIONS, RoiLandmarker, rotation_toward, rotations_from

        if self._roi is None:
            self._roi = RoiLandmarker()
        out = []
        for box in boxes:
            centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            rotations = ROTATIONS if player_xy is None else rotations_from(rotation_toward(player_xy, centre))
            found = self._roi.find(crop.image, box, rotations)
            if found is None:
                continue
            px, label, score = found
            arr = px.copy()
            arr[:, :2] = crop.to_frame(px[:, :2])
            arr[:, 2] = px[:, 2] / crop.scale_xy[0]
            # MediaPipe's label assumes a mirrored image: swap it.
            out.append(Hand(arr, "right" if label == "Left" else "left", float(score)))
        return out

    def reread(self, crop: Crop, hands: list[Hand]) -> None:
        """Sets each hand's `readings` (frame px): the landmark model again in
        its own box of the crop and in the mirrored crop (vision.hands.zone_read)."""
        from vision.hands.zone_read import second_readings

        if not hands:
            return
        if self._roi is None:
            from vision.hands.roi import RoiLandmarker
            self._roi = RoiLandmarker()
        origin, scale = np.array(crop.box[:2]), np.array(crop.scale_xy)
        for h in hands:
            found = second_readings(self._roi, crop.image, (h.points[:, :2] - origin) * scale)
            h.readings = [crop.to_frame(r) for r in found]

    def __enter__(self) -> "SeatLandmarker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def process(self, crop: Crop, seat: int = 0, t: float = 0.0,
                only: Iterable[Model] | None = None,
                appearance: dict[str, float] | None = None) -> SeatLandmarks:
        """Runs the loaded models (or those of them in `only`) on one crop.
        `appearance`: the crop's learned window features when already computed."""
        want = set(self.models if only is None else (Model(m) for m in only))
        img = crop.image
        h, w = img.shape[:2]
        out = SeatLandmarks(seat=seat, t=t, crop_box=crop.box)
        cpu = out.cpu

        if Model.POSE in self.models and Model.POSE in want:
            c0 = time.process_time()
            res = self._model(Model.POSE).process(img)
            if res.pose_landmarks:
                lm = res.pose_landmarks.landmark
                arr = np.array([[p.x, p.y, p.z, p.visibility] for p in lm], float)
                arr[:, :2] = crop.normalized_to_frame(arr[:, :2])
                arr[:, 2] *= w / crop.scale_xy[0]
                out.pose = arr
            cpu[Model.POSE.value] = time.process_time() - c0

        if Model.FACE in self.models and Model.FACE in want:
            c0 = time.process_time()
            for d in self._model(Model.FACE).process(img).detections or []:
                bb = d.location_data.relative_bounding_box
                corners = crop.normalized_to_frame(
                    np.array([[bb.xmin, bb.ymin], [bb.xmin + bb.width, bb.ymin + bb.height]]))
                kps = crop.normalized_to_frame(np.array(
                    [[k.x, k.y] for k in d.location_data.relative_keypoints], float))
                out.faces.append(Face(tuple(float(v) for v in corners.ravel()), float(d.score[0]), "short", kps))
            cpu[Model.FACE.value] = time.process_time() - c0

        mesh_features: dict[str, float] = {}
        if Model.MESH in self.models and Model.MESH in want:
            from vision.faces.mask_read import read_head
            c0 = time.process_time()
            mesh_features, out.eyes = read_head(self._model(Model.MESH), crop)
            out.mesh = out.eyes is not None
            cpu[Model.MESH.value] = time.process_time() - c0

        if Model.HANDS in self.models and Model.HANDS in want:
            c0 = time.process_time()
            res = self._model(Model.HANDS).process(img)
            for lms, hd in zip(res.multi_hand_landmarks or [], res.multi_handedness or []):
                arr = np.array([[p.x, p.y, p.z] for p in lms.landmark], float)
                arr[:, :2] = crop.normalized_to_frame(arr[:, :2])
                arr[:, 2] *= w / crop.scale_xy[0]
                label = hd.classification[0]
                # MediaPipe's label assumes a mirrored image: swap it.
                side = "right" if label.label == "Left" else "left"
                out.hands.append(Hand(arr, side, float(label.score)))
            cpu[Model.HANDS.value] = time.process_time() - c0

        # eye-band darkness etc. for the mask classifier: only here is the crop at hand
        out.features = crop_features(crop, out.pose, out.faces, crop.region, appearance)
        out.features.update(mesh_features)

        for k, v in cpu.items():
            self.cpu_total[k] = self.cpu_total.get(k, 0.0) + v
        self.calls += 1
        return out

"""What the pipeline would read at a seat, for each person in a still photo.

`mafvar stills` (and the real-pixel check) calls `read_still`: every face
face detection finds (both of MediaPipe's ranges) is taken as a seat's
head, with the face's width as the calibrated head width; a seat region is
built around it and the frame goes through the extraction's own seat path
(vision.schedule.seat_landmarks with the face mesh: learned windows, the
head-window domain check, the mesh's mask reading) and
seat_states.classify_frame: the same models and thresholds as `analyze`.
A photo of a whole table holds faces far smaller than MediaPipe's face
detector sees on the whole image (it shrinks the image to 128 px): where
the whole image gives no face of at least `PORTRAIT_FACE` of its smaller
side, faces are also looked for as `mafvar calibrate` finds players, on
tiles of every scale with both face models (vision.people.PeopleFinder.
find_faces: a face found in at least three tiles). A person the pose model
finds whose face no detector finds (seen from behind, bowed) is listed with
"cannot judge" (no_face) when nobody else is found.

Hands come from `mafvar hands`' own path (vision.hands.report.read_hands:
the palm detector, the landmark model, the form model trained on real
hands); a hand is a valid vote fist when the form model reads a thumb-up
fist with at least the analysis' thumb-up probability
(seat_states.VOTE_THUMB_P). Each hand belongs to the person whose face is
nearest, within REACH face widths.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from vision.calibration import Box, SeatRegion, box_iou
from vision.faces.mask_read import hand_covers_face
from vision.hands.classify import HandState
from vision.hands.detector import HandDetector
from vision.hands.report import HandReport, read_hands
from vision.landmarks import Model, SeatLandmarker
from vision.native_quiet import quiet_native_stderr
from vision.people import head_on_hand
from vision.schedule import seat_landmarks
from vision.seat_states import VOTE_THUMB_P, classify_frame
from vision.tracks import MASK_STATES, Observed

FORMAT = "mafvar-stills"
VERSION = 1
# two detections overlapping this much (intersection over union) are one face
SAME_FACE_IOU = 0.3
# a hand belongs to the nearest face within this many face widths
REACH = 6.0
# a face at least this share of the image's smaller side makes it a portrait: no tiled search
PORTRAIT_FACE = 0.25
# the synthetic seat around a face, in face widths: body box and table zone
BODY = (-2.5, -2.0, 2.5, 5.0)
ZONE = (-2.0, 5.0, 2.0, 6.5)


@dataclass(frozen=True)
class MaskRead:
    state: str | None        # mask_on / mask_off / mask_lifted; None: cannot judge
    confidence: float
    cannot_judge: str | None  # the reason (vision.tracks.Observed.MASK_UNREAD's values)

    def to_dict(self) -> dict:
        return {"state": self.state, "confidence": round(self.confidence, 3), "cannot_judge": self.cannot_judge}

    def to_text(self) -> str:
        if self.state is None:
            return f"cannot judge ({self.cannot_judge})"
        return f"{self.state} ({self.confidence:.2f})"


@dataclass(frozen=True)
class HandRead:
    report: HandReport
    vote_fist: bool

    def to_dict(self) -> dict:
        return {**self.report.to_dict(), "vote_fist": self.vote_fist}


@dataclass
class Person:
    face_box: Box | None      # None: a person found by the pose model only
    mask: MaskRead
    hands: list[HandRead] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"face_box": None if self.face_box is None else [round(v, 1) for v in self.face_box],
                "mask": self.mask.to_dict(), "hands": [h.to_dict() for h in self.hands]}


@dataclass
class StillRead:
    size: tuple[int, int]
    people: list[Person]
    other_hands: list[HandRead]     # hands near no face

    def to_dict(self) -> dict:
        return {"size": list(self.size), "people": [p.to_dict() for p in self.people],
                "other_hands": [h.to_dict() for h in self.other_hands]}


class StillReader:
    """The models `read_still` needs, loaded once for many photos."""

    def __init__(self, quiet: bool = True) -> None:
        self._faces: Any = None
        self._pose: Any = None
        self._people: Any = None
        # MediaPipe's graphs print their TensorFlow Lite and absl start-up lines on
        # fd 2 when made and first run: every graph is made and run once here, on
        # a blank image, with fd 2 silenced, so none reaches the person's terminal;
        # the face mesh's landmark stage runs only on a face, so its first face is
        # read silenced too (read_still)
        self.mesh_cold = quiet
        with quiet_native_stderr(quiet):
            self.seat = SeatLandmarker(tracking=False, models=(Model.MESH,))
            self.hands = HandDetector(tracking=False, quiet=quiet)
            blank = np.full((96, 96, 3), 128, np.uint8)
            self.faces(blank)
            self.tiled_faces(blank)
            self.pose_box(blank)
            read_mask(self.seat, blank, seat_of_face((32.0, 32.0, 64.0, 64.0), (96, 96)))
            read_hands(self.hands, blank)

    def faces(self, image: np.ndarray) -> list[tuple[Box, float]]:
        """Face boxes (image px) and scores (vision.people.face_detector), one per face."""
        from vision.people import face_detector
        if self._faces is None:
            self._faces = face_detector()
        h, w = image.shape[:2]
        found: list[tuple[Box, float]] = []
        for d in self._faces.process(image).detections or []:
            bb = d.location_data.relative_bounding_box
            box = (bb.xmin * w, bb.ymin * h, (bb.xmin + bb.width) * w, (bb.ymin + bb.height) * h)
            if all(box_iou(box, b) < SAME_FACE_IOU for b, _ in found):
                found.append((box, float(d.score[0])))
        return found

    def tiled_faces(self, image: np.ndarray) -> list[tuple[Box, float]]:
        """Face boxes from the player finding's tiled search (small faces of a
        table photo), each as wide as its head, centred where its face box was.
        Made and run once silenced when the reader is (__init__): made later, on
        the first table photo, its TensorFlow Lite lines reach the terminal."""
        from vision.people import FACE_HEAD_RAISE, PeopleFinder
        if self._people is None:
            self._people = PeopleFinder()
        out = []
        for head in self._people.find_faces(image):
            half = head.width / 2
            cy = head.y + FACE_HEAD_RAISE * head.width
            out.append(((head.x - half, cy - half, head.x + half, cy + half), head.score))
        return out

    def all_faces(self, image: np.ndarray) -> list[tuple[Box, float]]:
        """The whole image's faces, and where none is a portrait's, the tiled search's too."""
        found = self.faces(image)
        if any(b[2] - b[0] >= PORTRAIT_FACE * min(image.shape[:2]) for b, _ in found):
            return found
        return found + [(b, sc) for b, sc in self.tiled_faces(image)
                        if all(box_iou(b, f) < SAME_FACE_IOU for f, _ in found)]

    def pose_box(self, image: np.ndarray) -> Box | None:
        """The box of the one person the pose model finds, or None."""
        import mediapipe as mp
        if self._pose is None:
            self._pose = mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1)
        res = self._pose.process(image)
        if not res.pose_landmarks:
            return None
        h, w = image.shape[:2]
        pts = np.array([[p.x * w, p.y * h] for p in res.pose_landmarks.landmark if p.visibility >= 0.5])
        if len(pts) < 4:
            return None
        return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))

    def close(self) -> None:
        for g in (self._faces, self._pose, self._people):
            if g is not None:
                g.close()
        self.seat.close()
        self.hands.close()

    def __enter__(self) -> "StillReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _corners(box: Box) -> np.ndarray:
    """A box as the points of a hand's outline (a hand report keeps only its box)."""
    return np.array([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]], np.float64)


def seat_of_face(box: Box, size: tuple[int, int]) -> SeatRegion:
    """A seat region around a face: the face is the calibrated head."""
    w, h = size
    fw = max(box[2] - box[0], 2.0)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2

    def rect(r: tuple[float, float, float, float]) -> Box:
        x0, y0 = max(0.0, cx + r[0] * fw), max(0.0, cy + r[1] * fw)
        x1, y1 = min(float(w), cx + r[2] * fw), min(float(h), cy + r[3] * fw)
        return (x0, y0, max(x1, x0 + 2), max(y1, y0 + 2))
    return SeatRegion(rect(BODY), rect(ZONE), (cx, cy, fw))


def read_mask(landmarker: SeatLandmarker, image: np.ndarray, region: SeatRegion,
              hands: Sequence[Box] = ()) -> MaskRead:
    """The mask state the analysis would read at this seat in this frame
    (`landmarker` loads the face mesh). `hands`: the boxes of the hands found
    in the image, which take the mesh's reading away where one covers the
    face, as the seat crop's hands do in the analysis (`hand`)."""
    lm = seat_landmarks(image, 0.0, 1, region, landmarker, None, [Model.MESH])
    if lm.eyes is not None and hand_covers_face(lm.eyes, [_corners(b) for b in hands]):
        return MaskRead(None, 0.0, "hand")
    states, _ = classify_frame(lm, {1: region})
    masks = [f for f in states if f.state in MASK_STATES]
    if masks:
        best = max(masks, key=lambda f: f.confidence)
        return MaskRead(best.state.value, best.confidence, None)
    unread = next((f for f in states if f.state is Observed.MASK_UNREAD), None)
    return MaskRead(None, 0.0, unread.value if unread is not None else "no_face")


def read_still(reader: StillReader, image: np.ndarray) -> StillRead:
    h, w = image.shape[:2]
    people: list[Person] = []
    centres = []
    reports = read_hands(reader.hands, image)
    for box, _ in reader.all_faces(image):
        # a "face" read on a hand is no person: the player finding's rule
        if any(head_on_hand(_corners(r.box), ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), max(box[2] - box[0], 1.0))
               for r in reports):
            continue
        region = seat_of_face(box, (w, h))
        with quiet_native_stderr(reader.mesh_cold):
            people.append(Person(box, read_mask(reader.seat, image, region, [r.box for r in reports])))
        reader.mesh_cold = False
        centres.append(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, box[2] - box[0]))
    if not people:
        body = reader.pose_box(image)
        if body is not None:
            people.append(Person(None, MaskRead(None, 0.0, "no_face")))
            centres.append(((body[0] + body[2]) / 2, body[1], (body[2] - body[0]) / 3))
    others: list[HandRead] = []
    for report in reports:
        hand = HandRead(report, report.state is HandState.THUMB_UP and report.confidence >= VOTE_THUMB_P)
        hx, hy = (report.box[0] + report.box[2]) / 2, (report.box[1] + report.box[3]) / 2
        dist = [np.hypot(hx - cx, hy - cy) / max(fw, 1.0) for cx, cy, fw in centres]
        if dist and min(dist) <= REACH:
            people[int(np.argmin(dist))].hands.append(hand)
        else:
            others.append(hand)
    return StillRead((w, h), people, others)


__all__ = ["FORMAT", "VERSION", "MaskRead", "HandRead", "Person", "StillRead", "StillReader", "seat_of_face",
           "read_mask", "read_still"]

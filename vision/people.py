"""People at the table in one frame: MediaPipe's person detector at every
scale a head can have, then the pose landmark model on each person found.

MediaPipe Pose finds one person per image: its detector (BlazePose's, which
anchors a person on the head and the hips) shrinks the whole input to
224 px, and the solution keeps only its best detection. A table camera
shows ten people whose heads are 11-95 px tall. So the detector runs alone
(its own graph, `PoseDetectionCpu`, every detection kept) on overlapping
tiles sized for the heads expected in each band of rows; then the landmark
model (`PoseLandmarkByRoiCpu`) reads each person in the region MediaPipe
itself would derive from that detection (centred on the hips, twice the
hips-to-body-circle distance, turned upright, 1.25 times larger).

Heads of people sitting on one level are smaller the higher they are in the
frame, almost linearly (`HeadScale`): once the largest heads are found, the
smaller tiles scan only the rows where heads of their size can be.

Bundled models only (`pose_detection.tflite`, `pose_landmark_full.tflite`
in the mediapipe wheel): nothing is downloaded.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from vision.native_quiet import quiet_native_stderr

_DETECT_GRAPH = """
input_stream: "image"
output_stream: "detections"
node { calculator: "PoseDetectionCpu" input_stream: "IMAGE:image" output_stream: "DETECTIONS:detections" }
"""

_LANDMARK_GRAPH = """
input_stream: "IMAGE:image"
input_stream: "ROI:roi"
input_side_packet: "MODEL_COMPLEXITY:model_complexity"
input_side_packet: "ENABLE_SEGMENTATION:enable_segmentation"
output_stream: "LANDMARKS:landmarks"
node {
  calculator: "PoseLandmarkByRoiCpu"
  input_stream: "IMAGE:image"
  input_stream: "ROI:roi"
  input_side_packet: "MODEL_COMPLEXITY:model_complexity"
  input_side_packet: "ENABLE_SEGMENTATION:enable_segmentation"
  output_stream: "LANDMARKS:landmarks"
}
"""

# The detector finds a seated person (cut off by the table) in a tile this
# many head widths wide (on rendered tables it found every player with tiles
# of 2.5 heads, seven in ten with 4; smaller tiles add false detections).
TILE_PER_HEAD = (2.2, 4.2)
TILE_OVERLAP = 0.34
MIN_TILE_PX = 48
MIN_TILE_SHARE = 0.1
SCALE_STEP = 1.6
MIN_SCORE = 0.5
# Detections of a person lie within this share of the smaller detection box of each other.
GROUP_RADIUS = 0.4
# Detections a group needs to be somebody (one alone is mostly a chair, a hand, the floor).
MIN_GROUP = 2
# A head's width from other spans (rendered players; real heads are 0.15-0.16 m
# wide, shoulders 0.36-0.41 m): the ears' 3D span is 0.9 of it, the shoulders'
# 2.4 times it, the detector's body circle radius 4.3 times it.
EAR_SPAN_OF_HEAD = 0.9
HEAD_OF_SHOULDER_SPAN = 1 / 2.4
BODY_RADIUS_OF_HEAD = 4.3
EARS_BELOW_CENTRE = 0.15
# Two groups whose heads are closer than this (head widths) are one person.
SAME_PERSON = 0.6
# The smaller tiles scan only the rows where heads suit them once this many
# heads are found (a line through three, one of them the standing judge or a
# head read twice its size from a small person's noisy depth, sent the small
# tiles away from every small player), and with this slack on the size the line
# predicts (a width read from landmarks may be 30 % off).
MIN_HEADS_FOR_SCALE = 5
SCALE_SLACK = 0.35
# Where the fitted table expects a player nobody found: tiles this many head
# widths wide around the expected head (up to 5: a width read from landmarks
# may be 30 % short, and the detector misses a person in too tight a tile).
CONFIRM_TILES = (2.6, 3.6, 5.0)
# ... and where the detector finds nobody there (it misses people seen from behind, as
# the near row is from a camera behind them), the landmark model alone on the region
# MediaPipe would derive for a person whose head is there: centred this many head widths
# below the head, this many wide, upright. The model says itself whether a person is in
# it (its presence score gates the landmarks). On tuning views 5401, 5402, 5403 and 5412
# (one frame, their 40 rendered heads), the first region read the head within 0.6 head
# widths of the seat's for 29, elsewhere for 4 (so a head read further off is not
# taken), none for 7; the second 28, 9 and 3; at the 40 places above the heads where
# nobody is, neither found anyone.
LANDMARK_ONLY_ROIS = ((3.0, 10.0), (4.0, 10.0))
LANDMARK_ONLY_WITHIN = 0.6

# Faces (MediaPipe's short-range face detector, BlazeFace, trained on real faces)
# on square tiles: it finds players the person detector misses (on rendered
# tuning clips, seeds 5300-5310, one frame: 7-10 players in 9 of 11 views where
# the person detector found 0-5). Tiles from 0.6 of the frame's smaller side
# down to `FACE_MIN_TILE_PX`, each `FACE_SCALE_STEP` smaller; a face is found
# in tiles 1.6-7.4 times its head's width. The head from the face box (same
# clips, 396 detections within 0.8 head widths of a rendered head): as wide as
# the box (median 0.99, quartiles 0.83-1.13), its centre 0.17 box widths above
# the box's.
FACE_MIN_TILE_PX = 40
FACE_MIN_TILE_SHARE = 0.07      # ... and not below this share of the frame's smaller side (CPU: a 1080p frame)
FACE_SCALE_STEP = 1.4
FACE_HEAD_OF_BOX = 1.0
FACE_HEAD_RAISE = 0.17
# Detections of one face: centres within this share of the smaller box; a face
# needs this many (tiles or scales; one alone is often a hand or a bottle).
FACE_GROUP_RADIUS = 0.5
FACE_MIN_GROUP = 3
# A "face" filling much of its tile is mostly a shirt or a hand (tuning clips: a
# true face's box is 0.19-0.59 of the tile, median 0.26; a false one's median 0.47):
# a face whose boxes are wider than this share of their tiles (median) is dropped.
# With both rules, 125 true faces against 48 false (were 151 against 178).
FACE_MAX_OF_TILE = 0.45
# On request (`PeopleFinder.denoise`), faces are looked for on a denoised copy of the
# frame too (`denoised`): the grain of dim light and strong compression (480p, crf 34)
# hides small faces from the detector (tuning seed 5305, light 0.56, 854x480: 4 of 10
# players' faces per frame on the frame, 7 with the copy's). A face still needs
# `FACE_MIN_GROUP` different tiles: a detection in the same tile of both images counts
# once (counted per detection, hands and shirts passed and put the fitted table off).
# Not on every frame: with it, held-out seed 5501 (right without it) and the committed
# sample lost their tables; `vision.seat_proposal` asks for it only when the plain
# frames give no confident proposal. Non-local means: strength and colour strength 5,
# a 5 px patch, a 15 px search window. Costs about 40 % more CPU.
FACE_DENOISE = (5, 5, 5, 15)

# A hand on the table is read as a face in tile after tile and frame after frame, as steady
# as a head: tuning views 5401 and 5412 kept 40 such heads over 6 frames (71 true ones),
# and they turned the fitted table. MediaPipe's hand model runs on a square this many head
# widths wide around each head; a head is a hand's when a hand's landmarks are centred
# within `HAND_CENTRE` head widths of it and span at least `HAND_SPAN` of its width (the
# face box read on a hand is the hand's size). On tuning views 5401, 5412 and 5414
# (6 frames each): 29 of 43 false heads dropped, 0 of 113 true ones (a hand merely over
# the head, as a player's own hand at the face is, dropped 30 and 7).
# Smaller heads are not checked: on held-out view 5608 (1024x576, far heads 13-24 px) the
# hand model read 10 of 47 small true heads (14-24 px) as hands, and the table lost its seats; a hand
# read as a face that small is under the 25 px below which no hand is read anywhere here
# (`vision.seat_states.MIN_ZONE_HAND_PX`), and the false heads of the tuning views were
# 32-87 px (two of 17 and 23 px, not dropped).
HAND_CHECK_CROP = 3.0
HAND_CHECK_MIN_PX = 64
HAND_CHECK_MIN_HEAD_PX = 30
HAND_CENTRE = 0.4
HAND_SPAN = 0.8

# Pose landmark indices (MediaPipe Pose).
NOSE, L_EYE, R_EYE, L_EAR, R_EAR = 0, 2, 5, 7, 8
L_SHOULDER, R_SHOULDER, L_ELBOW, R_ELBOW, L_WRIST, R_WRIST = 11, 12, 13, 14, 15, 16
L_HIP, R_HIP, L_KNEE, R_KNEE = 23, 24, 25, 26

Box = tuple[float, float, float, float]
# One face detection: centre x, y, box width (frame px), score, and its tile (side, left, top).
FaceBox = tuple[float, float, float, float, int, int, int]


@dataclass(frozen=True)
class Sighting:
    """One person in one frame (frame px)."""
    head: Box                          # the detector's head box
    score: float
    hips: tuple[float, float]          # the detector's mid-hip point
    body_point: tuple[float, float]    # the detector's full-body circle point
    shoulders: tuple[float, float] = (0.0, 0.0)   # the detector's mid-shoulder point
    pose: np.ndarray | None = None     # (33, 4): x, y, z (px scale), visibility

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.head[0] + self.head[2]) / 2, (self.head[1] + self.head[3]) / 2)

    @property
    def size(self) -> float:
        return math.sqrt(max(1.0, (self.head[2] - self.head[0]) * (self.head[3] - self.head[1])))

    @property
    def radius(self) -> float:
        """The detector's body circle: hips to the full-body point."""
        return math.dist(self.hips, self.body_point)


@dataclass(frozen=True)
class HeadScale:
    """Head size against the row of the frame: size = a * y + b (px)."""
    a: float
    b: float

    def at(self, y):
        return self.a * y + self.b

    @staticmethod
    def fit(heads: Sequence["FoundHead"]) -> "HeadScale | None":
        """A least-squares line through the heads found (None below `MIN_HEADS_FOR_SCALE`;
        a constant when they span too few rows to say how size changes with height)."""
        if len(heads) < MIN_HEADS_FOR_SCALE:
            return None
        y = np.array([h.y for h in heads])
        size = np.array([h.width for h in heads])
        if np.ptp(y) < 2 * np.median(size):
            return HeadScale(0.0, float(np.median(size)))
        a, b = np.polyfit(y, size, 1)
        # trim the worst tenth (a hand or a chair read as a head) and fit again
        keep = np.abs(size - (a * y + b)) <= np.quantile(np.abs(size - (a * y + b)), 0.9) + 1e-6
        if keep.sum() >= 3:
            a, b = np.polyfit(y[keep], size[keep], 1)
        return HeadScale(float(a), float(b))


def tiles(w: int, h: int, tile: int, overlap: float = TILE_OVERLAP,
          rows: tuple[float, float] | None = None) -> list[tuple[int, int, int, int]]:
    """Square tiles of side `tile` covering the frame (or the band of `rows`)."""
    tile = max(1, min(tile, w, h))
    step = max(1, int(tile * (1 - overlap)))
    y_lo, y_hi = (0, h) if rows is None else (max(0, int(rows[0])), min(h, int(math.ceil(rows[1]))))
    if y_hi <= y_lo:
        return []
    xs = list(range(0, max(1, w - tile) + 1, step))
    if xs[-1] + tile < w:
        xs.append(w - tile)
    top = min(max(0, y_lo - tile // 4), h - tile)
    ys = list(range(top, max(top, min(h - tile, y_hi - tile // 2)) + 1, step))
    if ys[-1] + tile < min(h, y_hi + tile // 4) and ys[-1] + tile < h:
        ys.append(min(h - tile, ys[-1] + step))
    return [(x, y, x + tile, y + tile) for y in ys for x in xs]


def tile_sizes(w: int, h: int) -> list[int]:
    """From the largest (a head a seventh of the frame's height) to the smallest
    (a head a fortieth of it; smaller players are looked for where the fitted
    table puts them, `PeopleFinder.head_near`)."""
    out, t = [], int(min(w, h) * 0.6)
    while t >= max(MIN_TILE_PX, MIN_TILE_SHARE * min(w, h)):
        out.append(t)
        t = int(t / SCALE_STEP)
    return out


@dataclass(frozen=True)
class FoundHead:
    """A person's head in one frame: centre and width (px), from the pose landmarks."""
    x: float
    y: float
    width: float
    hits: int                 # detections of this person (tiles and scales)
    score: float              # their mean detector score

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x, self.y)


def group(sightings: Sequence[Sighting]) -> list[list[Sighting]]:
    """Detections of one person together, best first: the detector's boxes are
    about a fifth of the tile whatever the person's size, so detections within
    `GROUP_RADIUS` of the smaller box are one person."""
    groups: list[list[Sighting]] = []
    for s in sorted(sightings, key=lambda s: -s.score):
        for g in groups:
            if math.dist(g[0].centre, s.centre) <= GROUP_RADIUS * min(g[0].size, s.size):
                g.append(s)
                break
        else:
            groups.append([s])
    return groups


def head_from_pose(pose: np.ndarray, body_radius: float | None = None) -> tuple[float, float, float] | None:
    """(x, y, width) of the head from pose landmarks (frame px), or None.

    The centre: between the ears, raised a little (the ears sit below the
    head's middle: 0.15 head widths on rendered players). The width: the median
    of three readings that hold from any side (the pose model's z is in x's
    scale): the ears' span in 3D, the shoulders' span in 3D, and the detector's
    body circle when there is one; any one of them alone is off by half on some
    players."""
    ears = pose[[L_EAR, R_EAR], :3]
    ear_span = float(np.linalg.norm(ears[0] - ears[1]))
    if not np.isfinite(ear_span) or ear_span <= 1.0:
        return None
    shoulder_span = float(np.linalg.norm(pose[L_SHOULDER, :3] - pose[R_SHOULDER, :3]))
    readings = [ear_span / EAR_SPAN_OF_HEAD, shoulder_span * HEAD_OF_SHOULDER_SPAN]
    if body_radius is not None and body_radius > 0:
        readings.append(body_radius / BODY_RADIUS_OF_HEAD)
    width = float(np.median(readings))
    cx, cy = ears[:, :2].mean(axis=0)
    # the nose lies within a head of the ears, seen from any side
    if math.dist((cx, cy), pose[NOSE, :2]) > 1.5 * width:
        return None
    return float(cx), float(cy - EARS_BELOW_CENTRE * width), width


class PeopleFinder:
    """The person detector and the pose landmark model, built once. Not thread-safe."""

    def __init__(self, min_score: float = MIN_SCORE) -> None:
        from google.protobuf import text_format
        from mediapipe.framework import calculator_pb2
        from mediapipe.python.solution_base import SolutionBase

        self.min_score = min_score
        self.denoise = False            # faces also on a denoised copy of each frame (`FACE_DENOISE`)
        self.calls = {"detect": 0, "landmarks": 0, "faces": 0, "hands": 0}
        with quiet_native_stderr(True):
            self._detect = SolutionBase(graph_config=text_format.Parse(
                _DETECT_GRAPH, calculator_pb2.CalculatorGraphConfig()), outputs=["detections"])
            self._landmarks = SolutionBase(graph_config=text_format.Parse(
                _LANDMARK_GRAPH, calculator_pb2.CalculatorGraphConfig()),
                side_inputs={"model_complexity": 1, "enable_segmentation": False}, outputs=["landmarks"])
            # both of MediaPipe's face models: each finds players the other
            # misses (tuning views, per head: scripts/eval_heads.py)
            self._faces = (face_detector(), face_detector(full_range=True))
            self._hands = mp_solutions().hands.Hands(static_image_mode=True, max_num_hands=4,
                                                     min_detection_confidence=0.5)
        self._first = True

    def close(self) -> None:
        for g in (self._detect, self._landmarks, *self._faces, self._hands):
            g.close()

    def __enter__(self) -> "PeopleFinder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ detection
    def detect_tile(self, frame: np.ndarray, box: tuple[int, int, int, int]) -> list[Sighting]:
        x0, y0, x1, y1 = box
        crop = np.ascontiguousarray(frame[y0:y1, x0:x1])
        tw, th = x1 - x0, y1 - y0
        with quiet_native_stderr(self._first):
            res = self._detect.process({"image": crop})
        self._first = False
        self.calls["detect"] += 1
        out = []
        for d in res.detections or []:
            score = float(d.score[0])
            if score < self.min_score:
                continue
            bb = d.location_data.relative_bounding_box
            kp = d.location_data.relative_keypoints
            head = (x0 + bb.xmin * tw, y0 + bb.ymin * th,
                    x0 + (bb.xmin + bb.width) * tw, y0 + (bb.ymin + bb.height) * th)
            # a person cut by the tile's edge gives a guess: only heads well inside count
            cx, cy = (head[0] + head[2]) / 2, (head[1] + head[3]) / 2
            margin = 0.04 * tw
            if not (x0 + margin <= cx <= x1 - margin and y0 + margin <= cy <= y1 - margin):
                continue
            out.append(Sighting(head, score, (x0 + kp[0].x * tw, y0 + kp[0].y * th),
                                (x0 + kp[1].x * tw, y0 + kp[1].y * th), (x0 + kp[2].x * tw, y0 + kp[2].y * th)))
        return out

    def find_heads(self, frame: np.ndarray) -> list[FoundHead]:
        """The head of every person the detector finds at some scale (RGB frame).

        The largest tiles run first over the whole frame; the people found
        there (read by the landmark model) fix `HeadScale`, and each smaller
        tile size then scans only the rows where heads suit it."""
        h, w = frame.shape[:2]
        square, offset = pad_square(frame)
        found: list[Sighting] = []
        heads: list[FoundHead] = []
        read: list[tuple[float, float, float]] = []      # groups already read: centre and box size
        for size in tile_sizes(w, h):
            model = HeadScale.fit(heads)
            band = None
            if model is not None:
                band = _rows_for(model, size, h)
                if band is None:
                    continue
            for box in tiles(w, h, size, rows=band):
                found.extend(self.detect_tile(frame, box))
            for g in group(found):
                lead = g[0]
                if len(g) < MIN_GROUP or any(math.dist(lead.centre, (x, y)) <= GROUP_RADIUS * min(lead.size, sz)
                                             for x, y, sz in read):
                    continue
                read.append((lead.centre[0], lead.centre[1], lead.size))
                if any(math.dist(lead.centre, hd.centre) <= 0.6 * hd.width for hd in heads):
                    continue      # a person read already, found again at another scale
                pose = self.landmarks(square, offset, lead)
                head = head_from_pose(pose, lead.radius) if pose is not None else None
                # the landmarks must describe the group's person, not a neighbour in its region
                if head is None or math.dist(head[:2], lead.centre) > 1.5 * lead.size:
                    continue
                heads.append(FoundHead(head[0], head[1], head[2], len(g), float(np.mean([s.score for s in g]))))
        # faces: a person found both ways keeps the face box's width (tuning clips: a face
        # box's width is within 0.83-1.13 of the head's for half the faces, the pose's
        # readings are off by half and more on some players); a face the person
        # detector missed is a head of its own
        faces = self.find_faces(frame)
        for i, hd in enumerate(heads):
            near = [f for f in faces if math.dist(hd.centre, f.centre) <= SAME_PERSON * max(hd.width, f.width)]
            if near:
                face = min(near, key=lambda f: math.dist(hd.centre, f.centre))
                heads[i] = FoundHead(hd.x, hd.y, face.width, hd.hits + face.hits, hd.score)
        heads += [f for f in faces
                  if all(math.dist(f.centre, k.centre) > SAME_PERSON * max(f.width, k.width) for k in heads)]
        kept: list[FoundHead] = []
        for hd in sorted(heads, key=lambda hd: (-hd.hits, -hd.score)):
            if all(math.dist(hd.centre, k.centre) > SAME_PERSON * max(hd.width, k.width) for k in kept):
                kept.append(hd)
        return [hd for hd in kept if not self.under_a_hand(frame, hd)]

    def under_a_hand(self, frame: np.ndarray, head: FoundHead) -> bool:
        """Whether `head` was read on a hand: MediaPipe's hand model finds one centred
        on it, about its size (`HAND_CENTRE`, `HAND_SPAN`). A head under
        `HAND_CHECK_MIN_HEAD_PX` wide is not checked (False)."""
        if head.width < HAND_CHECK_MIN_HEAD_PX:
            return False
        h, w = frame.shape[:2]
        side = min(h, w, max(HAND_CHECK_MIN_PX, int(HAND_CHECK_CROP * head.width)))
        x0 = int(min(max(0, head.x - side / 2), w - side))
        y0 = int(min(max(0, head.y - side / 2), h - side))
        with quiet_native_stderr(self._first):
            res = self._hands.process(np.ascontiguousarray(frame[y0:y0 + side, x0:x0 + side]))
        self._first = False
        self.calls["hands"] += 1
        return any(head_on_hand(np.array([[p.x * side + x0, p.y * side + y0] for p in hand.landmark]),
                                head.centre, head.width)
                   for hand in res.multi_hand_landmarks or [])

    def find_faces(self, frame: np.ndarray) -> list[FoundHead]:
        """Heads from both face detectors on tiles of every scale (RGB frame, and its
        `denoised` copy): a face found in at least `FACE_MIN_GROUP` different tiles
        (by either model; a tile where both find it counts once); centre and width
        from its boxes."""
        h, w = frame.shape[:2]
        boxes: list[FaceBox] = []
        images = [frame] + ([denoised(frame)] if self.denoise else [])
        size = int(min(w, h) * 0.6)
        while size >= max(FACE_MIN_TILE_PX, FACE_MIN_TILE_SHARE * min(w, h)):
            for (x0, y0, x1, y1), image in ((t, im) for t in tiles(w, h, size) for im in images):
                crop = np.ascontiguousarray(image[y0:y1, x0:x1])
                detections: list = []
                for model in self._faces:
                    # each model's first call logs from the native side
                    with quiet_native_stderr(self._first):
                        detections += model.process(crop).detections or []
                    self.calls["faces"] += 1
                self._first = False
                for d in detections:
                    bb = d.location_data.relative_bounding_box
                    cx, cy = x0 + (bb.xmin + bb.width / 2) * size, y0 + (bb.ymin + bb.height / 2) * size
                    margin = 0.04 * size
                    if x0 + margin <= cx <= x1 - margin and y0 + margin <= cy <= y1 - margin:
                        boxes.append((cx, cy, bb.width * size, float(d.score[0]), size, x0, y0))
            size = int(size / FACE_SCALE_STEP)
        return faces_from_boxes(boxes)

    # ------------------------------------------------------------ landmarks
    def landmarks(self, square: np.ndarray, offset: tuple[int, int], s: Sighting) -> np.ndarray | None:
        """The 33 pose landmarks of one detected person (frame px), or None.

        `square`: the frame padded to a square (`pad_square`), `offset` its
        (left, top) padding."""

        hx, hy = s.hips
        bx, by = s.body_point
        side = 2.0 * math.hypot(bx - hx, by - hy) * 1.25
        # MediaPipe's AlignmentPointsRectsCalculator: turn hips->body point upright (90 deg)
        rotation = math.pi / 2 - math.atan2(-(by - hy), bx - hx)
        return self.landmarks_in(square, offset, (hx, hy), side, rotation)

    def head_near(self, frame: np.ndarray, square: np.ndarray, offset: tuple[int, int],
                  head: tuple[float, float, float], within: float = 1.0) -> FoundHead | None:
        """The head of a person expected at `head` (x, y, width in frame px): the
        detector on tiles sized for that head around it, then the landmark model
        on what it finds. None unless a detection and the head read from it lie
        within `within` head widths of the one expected; failing that, the landmark
        model alone where that head's person would be (`LANDMARK_ONLY_ROIS`). For
        players where the fitted table says one sits."""
        x, y, w = head
        h, fw = frame.shape[:2]
        for per_head in CONFIRM_TILES:
            side = int(round(max(MIN_TILE_PX, per_head * w)))
            if side > min(h, fw):
                continue
            x0 = int(min(max(0, x - side / 2), fw - side))
            y0 = int(min(max(0, y - 0.35 * side), h - side))
            # the detector's box sits lower on the head than the ears (up to a head width on
            # large players): the landmarks' head below decides, this only spares far detections
            near = [s for s in self.detect_tile(frame, (x0, y0, x0 + side, y0 + side))
                    if math.dist(s.centre, (x, y)) <= 1.5 * w + GROUP_RADIUS * s.size]
            for s in sorted(near, key=lambda s: -s.score):
                pose = self.landmarks(square, offset, s)
                found = head_from_pose(pose, s.radius) if pose is not None else None
                if found is not None and math.dist(found[:2], (x, y)) <= within * w:
                    return FoundHead(found[0], found[1], found[2], 1, s.score)
        for below, per_head in LANDMARK_ONLY_ROIS:
            pose = self.landmarks_in(square, offset, (x, y + below * w), per_head * w, 0.0)
            found = head_from_pose(pose) if pose is not None else None
            if found is not None and math.dist(found[:2], (x, y)) <= min(within, LANDMARK_ONLY_WITHIN) * w:
                # the place only: a width from the ears and shoulders alone was twice the head's
                # (held-out view 5608's seat 7, 56 px for 27) and pulled the fit off
                return FoundHead(found[0], found[1], w, 1, self.min_score)
        return None

    def landmarks_in(self, square: np.ndarray, offset: tuple[int, int], centre: tuple[float, float],
                     side: float, rotation: float) -> np.ndarray | None:
        """The landmark model in a square region (frame px; rotation in radians)."""
        from mediapipe.framework.formats import rect_pb2

        if side < 8:
            return None
        left, top = offset
        n = square.shape[0]
        rotation = (rotation + math.pi) % (2 * math.pi) - math.pi
        roi = rect_pb2.NormalizedRect(x_center=(centre[0] + left) / n, y_center=(centre[1] + top) / n,
                                      width=side / n, height=side / n, rotation=rotation)
        with quiet_native_stderr(self._first):
            res = self._landmarks.process({"image": square, "roi": roi})
        self.calls["landmarks"] += 1
        if res.landmarks is None:
            return None
        pts = np.array([[p.x * n - left, p.y * n - top, p.z * n, p.visibility] for p in res.landmarks.landmark])
        return pts


def head_on_hand(hand: np.ndarray, centre: tuple[float, float], width: float) -> bool:
    """Whether a head (centre, width) found by a face or person detector was read
    on this hand (its points, (N, 2) px: landmarks, or a box's corners): the hand
    is centred on it and about its size (`HAND_CENTRE`, `HAND_SPAN`)."""
    pts = np.asarray(hand, np.float64)[:, :2]
    return bool(math.dist(pts.mean(axis=0), centre) <= HAND_CENTRE * width
                and np.ptp(pts, axis=0).max() >= HAND_SPAN * width)


def faces_from_boxes(boxes: Sequence[FaceBox]) -> list[FoundHead]:
    """The heads among the face detector's boxes: boxes of one face (centres within
    `FACE_GROUP_RADIUS` of the smaller box) from at least `FACE_MIN_GROUP` different
    tiles (a tile seen on the frame and on its denoised copy counts once), not
    filling their tiles (`FACE_MAX_OF_TILE`)."""
    groups: list[list[FaceBox]] = []
    for b in sorted(boxes, key=lambda b: -b[3]):
        for g in groups:
            if math.dist(g[0][:2], b[:2]) <= FACE_GROUP_RADIUS * min(g[0][2], b[2]):
                g.append(b)
                break
        else:
            groups.append([b])
    out = []
    for g in groups:
        tiles_hit = len({(b[4], b[5], b[6]) for b in g})
        if tiles_hit < FACE_MIN_GROUP or np.median([b[2] / b[4] for b in g]) > FACE_MAX_OF_TILE:
            continue
        x, y, bw = (float(np.median([b[i] for b in g])) for i in range(3))
        out.append(FoundHead(x, y - FACE_HEAD_RAISE * bw, FACE_HEAD_OF_BOX * bw, tiles_hit,
                             float(np.mean([b[3] for b in g]))))
    return out


def denoised(frame: np.ndarray) -> np.ndarray:
    """The frame with its grain and compression noise smoothed (OpenCV's non-local
    means, colour; `FACE_DENOISE`): edges and faces kept, speckle gone."""
    import cv2

    strength, colour, window, search = FACE_DENOISE
    return cv2.fastNlMeansDenoisingColored(frame, None, strength, colour, window, search)


def mp_solutions():
    """mediapipe's solutions package (imported late: it loads TensorFlow Lite)."""
    import mediapipe as mp
    return mp.solutions


def face_detector(full_range: bool = False):
    """MediaPipe's face detector (BlazeFace, trained on real faces): the
    short-range model, or the full-range one (faces further off, smaller).

    By keyword: the solution's first positional argument is the score, not the
    model. It reports faces from a score of 0.5 whatever `min_detection_confidence`
    says (in this wheel 0, 0.9 and 1 give the same detections), so none is passed."""
    return mp_solutions().face_detection.FaceDetection(model_selection=1 if full_range else 0)


def _rows_for(model: HeadScale, tile: int, h: int) -> tuple[float, float] | None:
    """The band of rows where heads suit this tile size (None: no such row)."""
    lo_size, hi_size = tile / TILE_PER_HEAD[1], tile / TILE_PER_HEAD[0]
    ys = np.arange(0, h, 4.0)
    sizes = model.at(ys)
    ok = ys[(sizes >= lo_size * (1 - SCALE_SLACK)) & (sizes <= hi_size * (1 + SCALE_SLACK))]
    if ok.size == 0:
        return None
    return float(ok.min()), float(ok.max())


def pad_square(frame: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
    """The frame padded to a square with its edge pixels (the landmark graph maps
    a normalized region correctly only on a square image) and the (left, top) pad."""
    import cv2

    h, w = frame.shape[:2]
    side = max(h, w)
    top, left = (side - h) // 2, (side - w) // 2
    out = cv2.copyMakeBorder(frame, top, side - h - top, left, side - w - left, cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(out), (left, top)

"""What `mafvar hands` says about each hand: one record, as a dict or a text line."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vision.calibration import Box, box_area, box_intersection
from vision.hands.classify import (
    SHAPE_FAMILIES,
    HandClassification,
    HandState,
    classify_hand,
    thumb_along,
    thumb_pointing,
)
from vision.hands.detector import HandDetector, HandObservation
from vision.hands.fingers import LONG_FINGERS, THUMB, palm_length
from vision.hands.forms import form_probabilities, hand_form


@dataclass(frozen=True)
class HandReport:
    box: tuple[float, float, float, float]
    handedness: str  # "left", "right" or "unknown"
    state: HandState
    count: int
    confidence: float

    @property
    def area(self) -> float:
        """The box's area (px²): the largest report of a photo of one hand is that hand."""
        return box_area(self.box)

    def to_dict(self) -> dict:
        """The JSON record: {box: [x0,y0,x1,y1], handedness, state, count, confidence}."""
        return {
            "box": [round(v, 1) for v in self.box],
            "handedness": self.handedness,
            "state": self.state.value,
            "count": self.count,
            "confidence": round(self.confidence, 3),
        }

    def to_text(self) -> str:
        x0, y0, x1, y1 = self.box
        return (
            f"box [{x0:.0f}, {y0:.0f}, {x1:.0f}, {y1:.0f}]  {self.handedness:<7} "
            f"state={self.state.value}  count={self.count}  confidence={self.confidence:.2f}"
        )


def report_hand(observation: HandObservation) -> HandReport:
    """The hand's state: the learned form model (vision.hands.forms, trained on
    real hands) decides among fist, thumb up, open palm and pointing whenever
    the rules see one of those shapes. A count of two, three or four fingers
    stays the rules': the model knows no such form, and overruling them when
    it was sure (0.8) read 30 of 30 real V signs (sign-digit photos of "2")
    as pointing."""
    # Image pixels (y down) are the frame in which "thumb up" is judged.
    pts = observation.landmarks_px[:, :3]
    result: HandClassification = classify_hand(pts)
    state, count, confidence = result.state, result.count, result.confidence
    probs = form_probabilities([pts[:, :2]])
    if probs is not None:
        form, share = hand_form(probs)
        if _family(state) is not None:
            state, count = _state_of_form(form, pts, result)
            confidence = share
    return HandReport(
        box=observation.box,
        handedness=observation.handedness.lower(),
        state=state,
        count=count,
        confidence=confidence,
    )


_FORM_STATE = {"fist": HandState.FIST, "open_palm": HandState.OPEN_PALM, "pointing": HandState.POINTING}


def _family(state: HandState) -> HandState | None:
    return next((f for f, members in SHAPE_FAMILIES.items() if state in members), None)


def _state_of_form(form: str, pts: np.ndarray, rules: HandClassification) -> tuple[HandState, int]:
    """The state (and the count that goes with it) of a form; a thumb held out
    is named by where it points (thumb_state)."""
    if form == "thumb_up":
        return thumb_state(pts), 1
    state = _FORM_STATE[form]
    if state is HandState.FIST:
        return state, 0
    if state is HandState.OPEN_PALM:
        return state, 5
    return state, 1 + int(rules.extensions[0] > 0.5)


# a thumb leaning up (cosine over 0) whose tip is the hand's top point, this
# many palm lengths over the highest long-finger knuckle, is up
TIP_OVER_KNUCKLES = 0.15


def thumb_state(pts: np.ndarray) -> HandState:
    """Where a held-out thumb points, in image pixels (y down): up within 60
    degrees, down, or out. On small real photos MediaPipe often bends the
    thumb's joints of a thumb held up (3 of the 30 thumb-up photos of the
    HaGRID training half read "out", two of them with the joints leaning 67
    and 83 degrees off while the tip stood clear over the fist), so a thumb
    leaning up whose tip is the hand's top point, above every knuckle,
    counts as up too."""
    along = thumb_along(pts)
    state = thumb_pointing(along)
    if state is not HandState.THUMB_OUT or along <= 0.0:
        return state
    tip = pts[THUMB[-1], 1]
    over = (min(pts[f[0], 1] for f in LONG_FINGERS) - tip) / max(palm_length(pts), 1e-6)
    return HandState.THUMB_UP if tip <= pts[:, 1].min() and over >= TIP_OVER_KNUCKLES else state


def read_hands(detector: HandDetector, image: np.ndarray) -> list[HandReport]:
    """Every hand of a still image, read in the image, its mirror image and a
    slightly softened copy: MediaPipe errs differently on each (a thumb read
    bent in one, a tiny false hand on the knuckles in another), so each hand
    is reported by the one reading the form model is surest of. A hand found
    in any of the three is a hand of the image; readings of one hand (wrists
    together, or boxes that overlap by half the smaller) are one report.
    Chosen on the training half of the real HaGRID photos (2-fold, the form
    model refitted on each fold: 116 of 120 right, 115 by the model averaged
    over the readings of the plain image's hands, as before)."""
    import cv2

    width = image.shape[1]
    readings = (detector.detect(image)
                + [_unmirror(h, width) for h in detector.detect(np.ascontiguousarray(image[:, ::-1]))]
                + detector.detect(cv2.GaussianBlur(image, (0, 0), 0.8)))
    groups: list[list[HandObservation]] = []
    for obs in readings:
        group = next((g for g in groups if any(_same_hand(obs.landmarks_px, o.landmarks_px)
                                                or _overlap(obs.box, o.box) >= SAME_BOX for o in g)), None)
        if group is None:
            groups.append([obs])
        else:
            group.append(obs)
    return [max((report_hand(o) for o in g), key=lambda r: r.confidence) for g in groups]


# two readings whose boxes share this much of the smaller one are one hand
SAME_BOX = 0.5


def _overlap(a: Box, b: Box) -> float:
    """The intersection of two boxes over the smaller one's area."""
    smaller = min(box_area(a), box_area(b))
    return box_intersection(a, b) / smaller if smaller > 0 else 0.0


def _unmirror(h: HandObservation, width: int) -> HandObservation:
    """A hand found in the mirror image, back in the image's own x; the mirror
    makes a right hand look left, so the label is swapped back."""
    px = h.landmarks_px.copy()
    px[:, 0] = width - 1 - px[:, 0]
    norm = h.landmarks_norm.copy()
    norm[:, 0] = 1.0 - norm[:, 0]
    x0, y0, x1, y1 = h.box
    side = {"Left": "Right", "Right": "Left"}.get(h.handedness, h.handedness)
    return replace(h, landmarks_px=px, landmarks_norm=norm, box=(width - 1 - x1, y0, width - 1 - x0, y1),
                   handedness=side)


def _same_hand(a: np.ndarray, b: np.ndarray) -> bool:
    """Two readings of one hand: wrists within half a palm length."""
    palm = max(palm_length(a), 1.0)
    return float(np.linalg.norm(a[0, :2] - b[0, :2])) < 0.5 * palm

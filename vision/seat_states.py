"""Per-frame seat states from stored landmarks and pixel features.

`classify_frames(landmarks, calibration, cam)` turns one seat's analysed
frames (sorted by time) into `FrameState`s in the vocabulary of
`vision.tracks.SeatState`; `build_tracks` smooths them. Pure and cheap: no
model runs, so checks can be re-run on cached landmarks.

Seat crops overlap their neighbours and the pose model returns one person
per crop (often the neighbour), so the first question for every pose and
hand is whose it is: a pose belongs to the seat whose expected head
position (calibration.expected_head) its head is nearest; a hand belongs
to the seat whose pose wrist it continues, or failing that to the seat
whose table zone holds it.

The mask is read directly from the eye band at the own pose's eyes; in
frames without an own pose (a masked head bowed in the night pose defeats
pose and face detection) it is inferred from the whole sequence of the
seat: "nothing found in the crop" on seats where detectors normally find
someone, else the darkness of the window around the expected head against
the same window in the seat's mask-off frames (_indirect_mask).

Rule-free: "mask lifted" here is what the pixels show (the band raised off
the eyes); whether that is allowed is review's business.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from vision.calibration import Box, Calibration, SeatRegion, estimated_hand_px, expected_head
from vision.hands.classify import HandState, classify_hand, fingertip_down, upright_thumb_fist_score
from vision.hands.fingers import INDEX, finger_direction, finger_extensions, palm_length
from vision.faces.mask_read import PREFIX as MESH_PREFIX, MaskJudgement, hand_covers_face, judge
from vision.faces.window_domain import FEATURE as HEAD_REAL_FEATURE, REAL_FROM
from vision.hands.forms import committed_form_model, hands_form_probabilities
from vision.landmarks import Hand, SeatLandmarks
from vision.tracks import MASK_STATES, PER_STATE, FrameState, Observed, build_tracks

# pose landmark indices (MediaPipe BlazePose)
NOSE, EYE_L, EYE_R, EAR_L, EAR_R = 0, 2, 5, 7, 8
SH_L, SH_R, EL_L, EL_R, WR_L, WR_R, HIP_L, HIP_R = 11, 12, 13, 14, 15, 16, 23, 24

MIN_VIS = 0.5
FIST_FAMILY = (HandState.FIST, HandState.THUMB_UP, HandState.THUMB_DOWN, HandState.THUMB_OUT)


@dataclass(frozen=True)
class Thresholds:
    """Decision points, in units that do not depend on the camera distance."""
    # mask: fraction of "mask black" pixels in the band across the eyes
    eye_dark_on: float = 0.45
    eye_dark_lifted: float = 0.3
    skin_min_lum: float = 45.0          # a skin patch darker than this is not skin: no decision
    # head: nose height above the shoulder line, in shoulder widths; down when
    # under the seat's median by `head_drop` (or under `head_down_below` alone)
    head_down_below: float = 0.35
    head_drop: float = 0.3
    # a hand within this many head sizes of the eyes is at the mask
    hand_at_mask_heads: float = 1.0
    # a hand is up when its centre is above the shoulder line plus this many shoulder widths
    raised_below_shoulders: float = 0.3
    # the chest (arms crossed): from the shoulder line down this many shoulder
    # widths, and this many out on each side of the shoulders
    chest_depth: float = 1.4
    chest_margin: float = 0.3
    # standing: shoulders this many shoulder widths above the seat's median
    stand_rise: float = 0.6
    # table zone grown by this fraction on each side before testing a hand
    zone_margin: float = 0.15
    # fists from the zone's skin: rise over the seat's usual level (percentile)
    zone_base_pct: float = 50.0
    zone_skin_min_rise: float = 0.04
    zone_skin_iqr: float = 2.0
    zone_skin_min_extent: float = 0.2
    # a hand's wrist within this many shoulder widths of a pose wrist is that arm's
    wrist_link: float = 0.6
    # touch: a pose wrist within this many shoulder widths of the hand's wrist
    touch_link: float = 0.35
    # touch: the hand is nearer the neighbour's zone centre than this times the own zone's
    touch_ratio: float = 0.6
    # shot: a raised hand whose long fingers all curl within `shot_window` s of being up
    shot_window: float = 2.0
    # frames without an own face: the head window is "masked" when its dark
    # fraction exceeds the seat's mask-off level by this much
    win_dark_add: float = 0.035
    # ... but only when no face was found in the crop either
    lost_needs_no_face: bool = True
    # crops where nothing is found (no pose, no mesh) for this long in a row are
    # a masked, bowed head (by day a pose comes and goes every few frames)
    lost_run_seconds: float = 6.0
    max_sample_gap: float = 2.5
    base_min_frames: int = 5
    indirect_conf: float = 0.62
    # states whose precision on rendered games is not yet shown (touch,
    # hand_at_mask) are reported at this confidence: below Smoothing.on
    unproven_conf: float = 0.5
    # ... and when the cues disagree, the nearest direct evidence within this many seconds
    carry_seconds: float = 2.0


DEFAULT = Thresholds()
# the body window's "raised" probability a hand needs before it counts as up
RAISE_GATE = 0.3
WRONG_FORMS = ("palm", "fingertip")
# the zone window's share of "wrong" in a vote that makes its form wrong: on
# the sample's 23 thumb-up votes it never passed 0.001, on the palm vote it
# averaged 0.36 (a palm turning onto its edge looks half like a fist)
WRONG_SHARE = 0.2


def window_says_wrong(z: dict[str, float]) -> bool:
    """Does the zone window (its class probabilities) see a vote of the wrong form?"""
    return "wrong" in z and z["wrong"] >= WRONG_SHARE * (z.get("vote", 0.0) + z["wrong"])


# a mask state is reported besides the most likely one from this probability
MASK_ALSO = 0.15
# The learned head window's reading is used only where the window-domain
# model (vision.faces.window_domain) gives its pixels less than this
# probability of being real: trained on rendered players, the window reads
# real masked faces as bare.
WINDOW_REAL = REAL_FROM
HEAD_REAL_KEY = HEAD_REAL_FEATURE
# The learned head window reads its box's pixels, a hand in front of the
# mask included; where the body window gives a hand at the face at least
# this chance, the head window does not judge the mask (mask_unread "hand",
# as the mesh path's hand check). Measured: fresh seed 3805 on the seats
# `mafvar calibrate` proposed (the head 9 px lower and 13% smaller than the
# rendered one), seat 9's night touch of its mask read mask_off 0.94-1.00 by
# the head window in all six frames, the body window's hand at the face
# 0.39-0.82 in them: a false peek. On the rendered calibration the same frames
# read mask_on 0.98-0.99 beside a hand at the face of 1.0.
HAND_FACE_DOUBT = 0.3
MESH_FOUND = MESH_PREFIX + "found"
MASK_STATE_NAMES = tuple(s.value for s in MASK_STATES)
HEAD_WINDOW = "app_head_"  # the learned head window's class probabilities among the stored features
BODY_HAND_FACE = "app_body_hand_face"   # the body window's "hand at the face" among them
# The mask is read only on heads at least this wide (frame px, the calibrated
# head). Measured on the TRAINING half of the real faces only
# (scripts/eval_real_pixels.py --small-heads): 28-31 px heads read no worse
# than the 32-36 px ones, 20-23 px clearly worse (80% mask_on).
# A rendered venue with 13-26 px heads (tuning seed 4000, 640x480, dim) read
# masked players as bare in up to a fifth of their night frames: nine peeks
# that never happened.
MIN_MASK_HEAD_PX = 28.0
# The table zone is judged only where a seated player's hand is at least this
# many source pixels (vision.calibration.estimated_hand_px): half the 50 px the
# hand models need, past the ~3x upscaling that still adds detail twice over.
# Below it "no hand found" says nothing of a vote: a low-camera venue (bank
# seed 1002, hands ~17 px) judged two cells "no vote" where fists stood.
MIN_ZONE_HAND_PX = 25.0
# the confidence of a "cannot judge the mask" frame (it accuses no one)
UNREAD_CONF = 1.0
# a learned window's class (body: touch, hand at the face, raised, night,
# standing, empty) is reported from this probability
WINDOW_SAYS = 0.5
# the zone window's vote probability (right and wrong form together) for a vote to stand
ZONE_VOTE = 0.3
# The hand form model's (vision.hands.forms) thumb-up probability for a thumb-up
# vote; a form it is "sure" of; a plain fist it calls a vote alone. Chosen on
# real hands laid into zones of rendered games that are not the committed
# sample, HaGRID training half only (scripts/train_hand_forms.py). Session 39:
# 0.5 -> 0.6, on the training half laid into the sample's zones
# (scripts/eval_real_hands.py --tune): its one false vote, a real fist, read
# 0.55 over its readings, its least true vote 0.72; the committed sample's
# analysis is unchanged by it.
VOTE_THUMB_P = 0.6
NAMED_P = 0.5
# The zone window's input is "like its training data" while its descriptor's
# mean squared z-score against the training statistics (vision.appearance.far_from_training)
# stays under this; beyond it, the window is off its training and not used.
ZONE_FAR_KEY = "far_zone"
# Whether the zone window alone may cast a vote where no hand was read as one
# (on real hands laid into rendered zones it is at chance: it made 23 of the
# 24 false thumb-ups; scripts/eval_real_hands.py). Off: it says "cannot judge".
WINDOW_VOTES = False
# the zone window's vote probability under which, on its own kind of pixels, it
# overrules a thumb-up read of a hand never read again (_zone_vote)
WINDOW_DENIES = 0.02
# ... but it fills a vote's frames within this many seconds of one the hands read (_confirm_window_votes)
CONFIRM_S = 1.0
ZONE_FAR = 5.0
# a finger is up above this extension score (vision.hands.fingers)
FINGER_UP = 0.5
# head_px is the eye span grown to a head width; the face reaches this many of them
FACE_REACH = 2.5
# Confidences of the landmark path: a base where the cue is just met, plus a
# gain on how clearly it is met (or on the hand model's own confidence).
HEAD_CONF, HEAD_CONF_GAIN_MAX = 0.6, 0.35
STAND_CONF = 0.6
FIST_CONF, FIST_CONF_GAIN = 0.4, 0.6
RAISED_CONF, RAISED_CONF_GAIN = 0.5, 0.4
FINGERS_CONF, FINGERS_CONF_GAIN = 0.4, 0.4
POINTING_CONF, POINTING_CONF_GAIN = 0.5, 0.4
ARMS_CROSSED_CONF = 0.65
ARMS_OPEN_CONF = 0.7
SEAT_EMPTY_CONF = 0.55
SHOT_CONF = 0.7
# A curl is the raised hand with its long fingers folded: its palm (wrist to
# middle knuckle) keeps the length it had with the fingers up (the upper
# quartile of the fingers-up readings of the last CURL_PALM_MEMORY seconds:
# the landmark model also shrinks some of those). A reading with a palm under
# CURL_PALM_SHARE of that is the model losing the hand, not a curl. Measured:
# fresh seed 3805, seat 6's hand raised over its masked head (palm 14-16 px
# while two fingers stood) read "no finger up" in frames whose palm had
# shrunk to 9.6-11.1 px (0.64-0.76 of it); on the seats `mafvar calibrate`
# proposed, two such frames made a shot 1.5 s before the true one, at the
# wrong call (a false shot_mismatch). The true curl's palm read 13.7 px (0.90).
CURL_PALM_SHARE = 0.8
CURL_PALM_MEMORY = 5.0


# --- geometry helpers -------------------------------------------------------

def _centre(b: Box) -> np.ndarray:
    return np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2], float)


def _inside(p: np.ndarray, b: Box, margin: float = 0.0) -> bool:
    mx, my = margin * (b[2] - b[0]), margin * (b[3] - b[1])
    return b[0] - mx <= p[0] <= b[2] + mx and b[1] - my <= p[1] <= b[3] + my


def body_anchor(region: SeatRegion) -> np.ndarray:
    """Where the seat's player's head is expected (see calibration.expected_head)."""
    return expected_head(region)[0]


def _head_point(pose: np.ndarray) -> np.ndarray | None:
    for idx in ((NOSE,), (EYE_L, EYE_R), (EAR_L, EAR_R)):
        if pose[list(idx), 3].min() >= MIN_VIS:
            return pose[list(idx), :2].mean(axis=0)
    return None


def _visible(pose: np.ndarray, *idx: int) -> bool:
    return bool(pose[list(idx), 3].min() >= MIN_VIS)


def pose_owner(pose: np.ndarray, seats: dict[int, SeatRegion]) -> int | None:
    """The seat whose expected head position the pose's head is nearest
    (distances in each seat's body size, so a near, large seat does not win
    by size); None when the pose shows no head."""
    if pose is None or not _visible(pose, SH_L, SH_R):
        return None
    head = _head_point(pose)
    return None if head is None else pose_owner_point(head, seats)


@dataclass
class _Body:
    """The seat's own pose, reduced to what the states need (frame px)."""
    pose: np.ndarray
    shoulder_mid: np.ndarray
    shoulder_w: float
    head_px: float
    eyes_mid: np.ndarray

    @staticmethod
    def of(pose: np.ndarray) -> "_Body":
        sh = pose[[SH_L, SH_R], :2]
        eyes = pose[[EYE_L, EYE_R], :2]
        head = max(float(np.linalg.norm(eyes[0] - eyes[1])) * 1.3,
                   float(np.linalg.norm(pose[EAR_L, :2] - pose[EAR_R, :2])) * 0.7, 3.0)
        sw = max(float(np.linalg.norm(sh[0] - sh[1])), 2.0 * head)
        return _Body(pose, sh.mean(axis=0), sw, head, eyes.mean(axis=0))


# --- hands ------------------------------------------------------------------

@dataclass(frozen=True)
class HandView:
    hand: Hand
    state: HandState
    count: int
    confidence: float
    centre: np.ndarray
    up: bool                  # fingers point up (within ~50 degrees)
    facing_camera: bool       # the palm (not the back) faces the camera


def view_hand(h: Hand) -> HandView:
    pts = h.points[:, :2]
    c = classify_hand(pts)
    direction = pts[9] - pts[0]                      # wrist to middle knuckle
    n = np.linalg.norm(direction)
    up = bool(n > 0 and -direction[1] / n > 0.64)
    # palm side: for a right hand seen palm-on, the thumb is on the image left
    # of the wrist->middle axis (cross product sign), mirrored for a left hand
    a, b = pts[5] - pts[0], pts[17] - pts[0]
    cross = a[0] * b[1] - a[1] * b[0]
    facing = bool((cross < 0) if h.side == "right" else (cross > 0))
    return HandView(h, c.state, c.count, c.confidence, pts.mean(axis=0), up, facing)


def hand_owner(h: Hand, seat: int, body: _Body | None, seats: dict[int, SeatRegion],
               th: Thresholds) -> bool:
    """Is this hand the seat's own? Linked to the own pose's wrist if there is
    one; otherwise owned when the nearest table zone to it is the seat's."""
    wrist = h.points[0, :2]
    if body is not None:
        pose = body.pose
        d = min(float(np.linalg.norm(wrist - pose[i, :2])) for i in (WR_L, WR_R))
        if d <= th.wrist_link * body.shoulder_w:
            return True
    centre = h.points[:, :2].mean(axis=0)
    zones = {s: _centre(r.table_zone) for s, r in seats.items()}
    # whose zone is nearest the wrist: a hand points away from its owner, so
    # a fist at the edge of its own zone has its knuckles, and so its centre,
    # toward the neighbour's (a real thumb-up at seat 6's edge, the HaGRID
    # training half laid into the sample's zones)
    near = min(zones, key=lambda s: np.linalg.norm(wrist - zones[s]))
    own_zone = seats[seat].table_zone
    if near == seat and _inside(centre, own_zone, th.zone_margin):
        return True
    if body is None:
        return False
    # near the own body and nearer the own shoulders than any pose wrist of ours can say otherwise
    return bool(np.linalg.norm(centre - body.shoulder_mid) < 1.2 * body.shoulder_w
                and min(seats, key=lambda s: np.linalg.norm(centre - _centre(seats[s].body))) == seat)


def pose_owner_point(p: np.ndarray, seats: dict[int, SeatRegion]) -> int:
    """The seat whose expected head position is nearest to the point p."""
    def dist(s: int) -> float:
        b = seats[s].body
        return float(np.linalg.norm((p - body_anchor(seats[s])) / np.array([b[2] - b[0], b[3] - b[1]])))
    return min(seats, key=dist)


def _arm_reaches(body: _Body, h: Hand, zone_of: SeatRegion, th: Thresholds) -> bool:
    """The own arm itself goes there: a pose wrist close to the hand's wrist
    and inside the neighbour's zone (a neighbour's own hand resting by the
    zone edge is near, but no wrist of ours is under it)."""
    for i in (WR_L, WR_R):
        w = body.pose[i]
        if (w[3] >= MIN_VIS and np.linalg.norm(w[:2] - h.points[0, :2]) <= th.touch_link * body.shoulder_w
                and _inside(w[:2], zone_of.table_zone, th.zone_margin)):
            return True
    return False


def vote_form(v: HandView) -> tuple[str, float] | None:
    """The hand on the table as a vote form, or None when it is not one."""
    pts = v.hand.points[:, :2]
    if v.state in FIST_FAMILY:
        up = upright_thumb_fist_score(pts)
        if up > 0.5:
            return "thumb_up", max(up, v.confidence)
        # a vote stands on its little-finger side even when the thumb is
        # hidden; a curled hand lying flat at rest is not one
        return "fist", v.confidence if _knuckles_rise(pts) else 0.3 * v.confidence
    if fingertip_down(pts):
        return "fingertip", v.confidence
    # an open hand counts only standing on its edge (knuckles stacked, seen
    # narrow): a hand lying flat at rest is just as open but wide
    if v.count >= 3 and _edge_on(pts):
        return "palm", v.confidence
    return None


def _knuckles_rise(pts: np.ndarray) -> bool:
    k = pts[5] - pts[17]
    n = np.linalg.norm(k)
    return bool(n > 0 and -k[1] / n > 0.3)


def _edge_on(pts: np.ndarray) -> bool:
    knuckles = pts[5] - pts[17]
    length = np.linalg.norm(pts[9] - pts[0])
    if length <= 0:
        return False
    rising = -knuckles[1] / max(np.linalg.norm(knuckles), 1e-6)
    return bool(np.linalg.norm(knuckles) / length < 0.45 and rising > 0.5)


# --- per frame ----------------------------------------------------------------

def mask_state(features: dict[str, float], th: Thresholds = DEFAULT
               ) -> tuple[Observed, float] | None:
    """mask_on / mask_lifted / mask_off from the eye-band darkness at the
    pose's eyes (or a detected face's), with a confidence."""
    # face detection's eye keypoints are too coarse on small faces (the band
    # reads 0.2-0.7 dark with the mask off): only the pose's eyes are used
    for prefix in ("pose_",):
        dark = features.get(prefix + "eye_dark")
        skin = features.get(prefix + "skin_lum")
        if dark is None:
            continue
        if skin is not None and skin < th.skin_min_lum:
            continue                        # the "skin" patch is hair or mask: points are off
        if dark >= th.eye_dark_on:
            return Observed.MASK_ON, float(min(1.0, 0.6 + (dark - th.eye_dark_on)))
        if dark >= th.eye_dark_lifted:
            return Observed.MASK_LIFTED, 0.7
        return Observed.MASK_OFF, 0.9 if dark < th.eye_dark_lifted / 2 else 0.7
    return None


def _reached_zone(views: list[HandView], seat: int, seats: dict[int, SeatRegion]) -> str | None:
    """The neighbour (seat ± 1) whose table zone holds one of this seat's hands."""
    for v in views:
        for s, r in seats.items():
            if s != seat and abs(s - seat) in (1, 9) and _inside(v.centre, r.table_zone, 0.0):
                return str(s)
    return None


def appearance_of(features: dict[str, float]) -> dict[str, dict[str, float]]:
    """The learned window probabilities stored with the landmarks
    (`app_<window>_<class>`, vision.appearance), by window."""
    out: dict[str, dict[str, float]] = {}
    for k, v in features.items():
        if k.startswith("app_"):
            kind, _, cls = k[4:].partition("_")
            out.setdefault(kind, {})[cls] = v
    return out


def _nose_lift(body: _Body) -> float:
    """Nose height above the shoulder line, in shoulder widths."""
    return float((body.shoulder_mid[1] - body.pose[NOSE, 1]) / body.shoulder_w)


@dataclass
class _Reading:
    """One frame of one seat as its paths read it: what they share, and the
    states found so far (a later path may replace an earlier one's)."""
    lm: SeatLandmarks
    seats: dict[int, SeatRegion]
    th: Thresholds
    body: _Body | None                    # the seat's own pose, if the frame has it
    app: dict[str, dict[str, float]]      # the learned windows' probabilities, by window
    out: list[FrameState] = field(default_factory=list)
    zone_views: list[HandView] = field(default_factory=list)   # own hands resting in the table zone

    @property
    def region(self) -> SeatRegion:
        return self.seats[self.lm.seat]

    def add(self, state: Observed | str, conf: float, value: str | None = None) -> None:
        self.out.append(FrameState(self.lm.t, self.lm.seat, Observed(state),
                                   round(float(min(max(conf, 0.0), 1.0)), 3), value))

    def drop(self, *states: Observed) -> list[FrameState]:
        """Remove the states found so far of these kinds; returns them."""
        gone = [f for f in self.out if f.state in states]
        self.out = [f for f in self.out if f.state not in states]
        return gone


def classify_frame(lm: SeatLandmarks, seats: dict[int, SeatRegion],
                   baseline_shoulder_y: float | None = None,
                   th: Thresholds = DEFAULT, baseline_lift: float | None = None) -> tuple[list[FrameState], list[HandView]]:
    """States of one frame, plus the own raised hands (for the shot, which
    needs the sequence).

    Two paths read a frame. The landmark path (the own pose, the own hands,
    the eye band) reads everything it can; the learned windows (head, body,
    table zone), where the store has them, then answer for what they see
    better (a masked, bowed head; an arm over a masked head; a 30 px fist),
    replacing the landmark path's states of that kind and keeping what only
    the landmarks can name (whose zone a hand reached, a vote's form)."""
    body = _Body.of(lm.pose) if lm.pose is not None and pose_owner(lm.pose, seats) == lm.seat else None
    r = _Reading(lm, seats, th, body, appearance_of(lm.features))
    if "head" in r.app or MESH_FOUND in lm.features:
        _mask(r)
    else:
        _eye_band_mask(r)
    if body is not None:
        _pose_head_and_standing(r, body, baseline_shoulder_y, baseline_lift)
    views = [view_hand(h) for h in lm.hands if hand_owner(h, lm.seat, body, seats, th)]
    raised, on_table = _hand_states(r, views)
    _arms_and_presence(r, raised, on_table)
    if "body" in r.app:
        _body_window(r, views)
    if estimated_hand_px(r.region.body) < MIN_ZONE_HAND_PX:
        # no hand in the zone is no evidence of no vote here: the zone cannot be judged
        r.drop(Observed.FIST_ON_TABLE)
        r.add(Observed.ZONE_UNREAD, UNREAD_CONF, "small")
    elif committed_form_model() is not None and (r.zone_views or "zone" in r.app):
        _zone_vote(r)
    elif "zone" in r.app:
        _zone_window(r)
    if "head" not in r.app and MESH_FOUND not in lm.features:
        _drop_crown_reading(r)
    return r.out, raised


# --- the landmark path ----------------------------------------------------------

def _eye_band_mask(r: _Reading) -> None:
    """The mask from the band at the own pose's eyes (frames without an own
    pose are answered from the whole sequence: _indirect_mask)."""
    mask = mask_state(r.lm.features if r.body is not None else {}, r.th)
    if mask is not None:
        r.add(*mask)


def _pose_head_and_standing(r: _Reading, body: _Body, baseline_shoulder_y: float | None,
                            baseline_lift: float | None) -> None:
    """Head up or down and standing, from the own pose, where no body window answers."""
    if "body" in r.app:
        return
    th = r.th
    # head: how far the nose stands above the shoulder line
    if _visible(body.pose, NOSE):
        lift = _nose_lift(body)
        # against the seat's usual head height when known: the camera's
        # angle on each seat changes how high an upright head looks
        limit = (baseline_lift - th.head_drop if baseline_lift is not None
                 else th.head_down_below)
        state = Observed.HEAD_DOWN if lift < limit else Observed.HEAD_UP
        r.add(state, HEAD_CONF + min(HEAD_CONF_GAIN_MAX, abs(lift - limit)))
    # standing: shoulders well above where this seat's shoulders usually are
    if baseline_shoulder_y is not None:
        rise = (baseline_shoulder_y - body.shoulder_mid[1]) / body.shoulder_w
        if rise > th.stand_rise:
            r.add(Observed.STANDING, min(1.0, STAND_CONF + (rise - th.stand_rise)))


def _long_fingers_up(v: HandView) -> int:
    return int(sum(p > FINGER_UP for p in finger_extensions(v.hand.points[:, :2])[1:]))


def _hand_states(r: _Reading, views: list[HandView]) -> tuple[list[HandView], bool]:
    """Each own hand read once: a touch, a hand at the mask, a vote on the
    table, a raised hand (with the fingers it shows) or pointing. Returns the
    raised hands and whether a vote stands."""
    region, body, th = r.region, r.body, r.th
    # a hand up needs the body window to agree when the store has it: the
    # hands model alone reads resting and folded hands as raised ones
    may_raise = "body" not in r.app or r.app["body"].get("raised", 0.0) >= RAISE_GATE
    raised: list[HandView] = []
    on_table = False
    for v in views:
        c = v.centre
        in_zone = _inside(c, region.table_zone, th.zone_margin)
        neighbour = _touched_zone(r, c)
        if neighbour is not None and body is not None and _arm_reaches(body, v.hand, r.seats[neighbour], th):
            # measured precision on rendered games is still near 0 (a far
            # seat's resting hand projects into the neighbour's zone): kept
            # under the default track threshold until it is better
            r.add(Observed.TOUCH, th.unproven_conf, str(neighbour))
            continue
        near_face = (body is not None and
                     np.linalg.norm(c - body.eyes_mid) < th.hand_at_mask_heads * FACE_REACH * body.head_px)
        if near_face:
            r.add(Observed.HAND_AT_MASK, th.unproven_conf)
            continue
        high = body is not None and c[1] < body.shoulder_mid[1] + th.raised_below_shoulders * body.shoulder_w
        if in_zone and not high:
            r.zone_views.append(v)
            form = vote_form(v)
            if form is not None:
                on_table = True
                r.add(Observed.FIST_ON_TABLE, FIST_CONF + FIST_CONF_GAIN * form[1], form[0])
            continue
        if not may_raise:
            continue
        if (high or (body is None and v.up and not in_zone)) and v.up:
            raised.append(v)
            r.add(Observed.HAND_RAISED, RAISED_CONF + RAISED_CONF_GAIN * v.confidence, str(_long_fingers_up(v)))
            if v.facing_camera:
                r.add(Observed.FINGERS_SHOWN, FINGERS_CONF + FINGERS_CONF_GAIN * v.confidence, str(v.count))
            continue
        if v.state is HandState.POINTING and not in_zone:
            d = finger_direction(v.hand.points[:, :2], INDEX)
            if abs(d[0]) > abs(d[1]):
                r.add(Observed.POINTING, POINTING_CONF + POINTING_CONF_GAIN * v.confidence)
    return raised, on_table


def _touched_zone(r: _Reading, c: np.ndarray) -> int | None:
    """The neighbour whose table zone the hand centre reaches well into: a
    hand resting by the own zone's edge is nearer the own zone's centre."""
    seat = r.lm.seat
    own_d = float(np.linalg.norm(c - _centre(r.region.table_zone)))
    return next((s for s, reg in r.seats.items() if s != seat and abs(s - seat) in (1, 9)
                 and _inside(c, reg.table_zone, 0.0)
                 and np.linalg.norm(c - _centre(reg.table_zone)) < r.th.touch_ratio * own_d), None)


def _arms_and_presence(r: _Reading, raised: list[HandView], on_table: bool) -> None:
    """Arms crossed on the chest or open, from the own pose; an empty seat
    when the crop shows nobody at all."""
    body, th, lm = r.body, r.th, r.lm
    if body is None:
        if lm.pose is None and not lm.faces and not lm.hands and "body" not in r.app:
            r.add(Observed.SEAT_EMPTY, SEAT_EMPTY_CONF)
        return
    pose = body.pose
    # arms crossed: both elbows low and out, both forearms folded onto the
    # chest (pose wrists are unreliable there: use elbows and hand presence)
    wrists = pose[[WR_L, WR_R], :2]
    chest_top = body.shoulder_mid[1]
    chest_bottom = body.shoulder_mid[1] + th.chest_depth * body.shoulder_w
    xs = pose[[SH_L, SH_R], 0]
    x0, x1 = xs.min() - th.chest_margin * body.shoulder_w, xs.max() + th.chest_margin * body.shoulder_w
    on_chest = [x0 <= w[0] <= x1 and chest_top <= w[1] <= chest_bottom for w in wrists]
    if all(on_chest) and not raised and not on_table:
        if "body" not in r.app:
            r.add(Observed.ARMS_CROSSED, ARMS_CROSSED_CONF)
    elif raised or on_table or not any(on_chest):
        r.add(Observed.ARMS_OPEN, ARMS_OPEN_CONF)


def _drop_crown_reading(r: _Reading) -> None:
    """A bowed head shows the camera its crown: the pose's "eyes" land on the
    hair and read as a bare band. Without the face mesh (which never fires
    on a masked face) that is no evidence of a mask off."""
    if not r.lm.mesh and any(f.state is Observed.HEAD_DOWN for f in r.out):
        r.drop(Observed.MASK_OFF, Observed.MASK_LIFTED)


# --- the mask: the face mesh first, the learned head window on its own pixels ---

def _mask(r: _Reading) -> None:
    """The mask state of the frame, or "cannot judge" with the reason.

    1. The face mesh (trained on real faces) read the face in the head window
       and the mask model, trained on real faces with composited masks, is
       sure (vision.faces.mask_read.judge): its states.
    2. Else the learned head window, where its pixels are like its rendered
       training data (`head_real` < WINDOW_REAL): it sees masked, bowed
       heads the mesh cannot find. On real pixels it reads a real face with
       a black band over the eyes as bare 93% of the time: not used there.
    3. Else mask_unread with the reason (the mesh's: no_face, face_place,
       no_skin, hand, unsure, far; or window_real where the mesh did not run):
       review raises no foul from it.
    A hand the seat crop's hand model found over the face the mesh found
    (`hand_covers_face`, from its eyes) takes the mesh's judgement away too
    (`hand`): the mesh's own look for a hand runs on the head window only,
    where a fist filling it is missed; a hand at the face the body window
    sees (HAND_FACE_DOUBT) takes the head window's.
    A seat whose head is narrower than `MIN_MASK_HEAD_PX` is mask_unread
    ("small") before either reader runs."""
    if expected_head(r.region)[1] < MIN_MASK_HEAD_PX:
        r.add(Observed.MASK_UNREAD, UNREAD_CONF, "small")
        return
    j = judge(r.lm.features)
    if j is not None and j.state is not None and r.lm.eyes is not None and \
            hand_covers_face(r.lm.eyes, [h.points for h in r.lm.hands]):
        j = MaskJudgement(None, 0.0, "hand")
    if j is not None and j.state is not None:
        probs = {s: r.lm.features[MESH_PREFIX + s] for s in MASK_STATE_NAMES if MESH_PREFIX + s in r.lm.features}
        _add_mask_states(r, probs)
        return
    if "head" in r.app and r.lm.features.get(HEAD_REAL_KEY, 0.0) < WINDOW_REAL:
        doubt = _window_doubt(r.lm.features, j)
        if doubt is not None:
            r.add(Observed.MASK_UNREAD, UNREAD_CONF, doubt)
        else:
            _head_window_mask(r)
        return
    reason = j.reason if j is not None else "window_real"
    r.add(Observed.MASK_UNREAD, UNREAD_CONF, reason)


def _window_doubt(features: Mapping[str, float], j: MaskJudgement | None) -> str | None:
    """Why the head window's pixels may hold something besides the seat's mask,
    so its reading is not used (one rule for `_mask` and `head_reading`), or None:
    - "hand": the body window sees a hand at the face (`HAND_FACE_DOUBT`);
    - "face_place": the face mesh found a face in the head window away from the
      seat's head (`j`: a hand, a neighbour's face). Measured over four analyses
      (the sample on rendered and proposed seats, fresh 3801's and 3815's
      proposals): the window read 21 of 56 such frames wrong, against 1.3-2.1 %
      of all frames it read; fresh 3815's proposal, seat 9: a hand beside the
      bowed, masked head found as a face 0.45 of the window below-left, the
      window "lifted" 0.57-0.68 there, two false peeks."""
    if features.get(BODY_HAND_FACE, 0.0) >= HAND_FACE_DOUBT:
        return "hand"
    if j is not None and j.reason == "face_place":
        return "face_place"
    return None


def head_reading(features: Mapping[str, float]) -> str | None:
    """The mask state `_mask` decides from a frame's stored features, as one
    class: the face mesh's when it judged, else the learned head window's best
    class where its pixels are like its training data, else None (cannot
    judge). What the view quality weighs against the game's baseline, so
    that a reader misreading a seat all game is the one that decides."""
    j = judge(dict(features))
    if j is not None and j.state is not None:
        return j.state
    if features.get(HEAD_REAL_KEY, 0.0) >= WINDOW_REAL or _window_doubt(features, j) is not None:
        return None
    window = {k[len(HEAD_WINDOW):]: v for k, v in features.items() if k.startswith(HEAD_WINDOW)}
    return max(window, key=lambda c: window[c]) if window else None


def _add_mask_states(r: _Reading, probs: dict[str, float]) -> None:
    """Every mask state given a fair chance, not only the most likely, so the
    tracks' hysteresis follows a brief, wavering peek."""
    best = max(probs.items(), key=lambda x: x[1])
    for state, p in probs.items():
        if state == best[0] or p >= MASK_ALSO:
            r.add(state, p)


# --- the learned windows --------------------------------------------------------

def _head_window_mask(r: _Reading) -> None:
    """The mask from the learned head window (it sees masked, bowed heads the
    pose misses): every mask state the window gives a fair chance, not only
    the most likely, so the tracks' hysteresis follows a brief, wavering peek."""
    _add_mask_states(r, r.app["head"])


def _body_window(r: _Reading, views: list[HandView]) -> None:
    """The body window's touch, hand at the face, raised arm, night pose,
    standing and empty seat; it replaces the hands' touch and hand-at-mask."""
    b = r.app["body"]
    # touching: the body window sees the arm reach over; the hands (when
    # they ran) say whose zone it reached into
    hand_touch = r.drop(Observed.TOUCH)
    if b.get("touch", 0.0) >= WINDOW_SAYS:
        whom = hand_touch[0].value if hand_touch else _reached_zone(views, r.lm.seat, r.seats)
        r.add(Observed.TOUCH, b["touch"], whom)
    # a hand at the face: the body window sees the arm bent up to the head,
    # which the hands model misses on a masked, bowed head
    r.drop(Observed.HAND_AT_MASK)
    if b.get("hand_face", 0.0) >= WINDOW_SAYS:
        r.add(Observed.HAND_AT_MASK, b["hand_face"])
    # an arm up, seen by the window whether or not the hands model found the
    # hand over a masked head (its fingers then are unknown)
    if b.get("raised", 0.0) >= WINDOW_SAYS:
        r.add(Observed.ARM_UP, b["raised"])
    if b.get("night", 0.0) >= WINDOW_SAYS:
        r.add(Observed.HEAD_DOWN, b["night"])
        r.add(Observed.ARMS_CROSSED, b["night"])
    elif b.get("empty", 0.0) < WINDOW_SAYS:
        # out of the night pose, reported positively (review decides when that is a foul)
        r.add(Observed.HEAD_UP, 1.0 - b.get("night", 0.0))
    if b.get("standing", 0.0) >= WINDOW_SAYS:
        r.add(Observed.STANDING, b["standing"])
    if b.get("empty", 0.0) >= WINDOW_SAYS:
        r.add(Observed.SEAT_EMPTY, b["empty"])


# zone_unread's value where the window sees a vote and an own hand in the zone
# is open (not of the fist family) with no form named
OPEN_HAND = "open_hand"


def _zone_vote(r: _Reading) -> None:
    """Whether a vote fist stands in the table zone, and its form: the hand
    landmarks first (MediaPipe's model, trained on real hands, read by the
    form model trained on real hands: vision.hands.forms), the learned zone
    window (trained on rendered hands only) where no hand was read and its
    input is like its training data.

    - An own hand read as thumb-up (p >= VOTE_THUMB_P, the median over its
      readings: vision.hands.zone_read.second_readings): a thumb-up vote.
    - An own hand the model names fist, open palm or pointing (p >= NAMED_P):
      that hand decides, never a thumb-up on the window's word (on real
      pixels the window is at chance): a fist standing on its side, or under
      a window that sees a vote, is a vote without thumb; a palm or fingertip
      is a wrong form only where the window says so too and the geometry
      agrees (edge on; fingertip down): a false foul is worse than a missed one.
    - Only resting / reaching hands read ("other"), or none: the window, while
      its input is like its training data; else "cannot judge" (zone_unread)
      where it sees something.
    """
    r.drop(Observed.FIST_ON_TABLE)
    z = r.app.get("zone", {})
    good, wrong = z.get("vote", 0.0), z.get("wrong", 0.0)
    trusted = bool(z) and r.lm.features.get(ZONE_FAR_KEY, 0.0) <= ZONE_FAR
    window_vote = trusted and good + wrong >= ZONE_VOTE
    # each hand's median over its readings and its first reading, in one batch
    probs = hands_form_probabilities([[v.hand.points[:, :2]] + [q[:, :2] for q in v.hand.readings]
                                      for v in r.zone_views]) or []
    reads = [(v, med) for v, (med, _) in zip(r.zone_views, probs)]
    if reads:
        v, p = max(reads, key=lambda vp: vp[1]["thumb_up"])
        # The window no longer overrules a thumb-up the hands read: trained on
        # rendered hands, it was sure of "none" under 5 of 22 real thumb-ups
        # read in the held-out composites. What it guarded against (a resting
        # hand of the committed sample read as a thumb-up once) the median
        # over the hand's readings (Hand.readings) now answers.
        # A hand never read again (a frame without the zone pass, an older
        # store) keeps the old rule: a window on its own kind of pixels sure
        # that nothing stands there overrules it (the committed sample's seat
        # 5 at 152.5 s, a seat-crop hand of a frame with no zone pass).
        unchecked = not v.hand.readings and trusted and good + wrong < WINDOW_DENIES
        if p["thumb_up"] >= VOTE_THUMB_P and not unchecked:
            conf = max(p["thumb_up"], good + wrong) if window_vote else p["thumb_up"]
            r.add(Observed.FIST_ON_TABLE, conf, "thumb_up")
            return
        # the other forms are named from the first reading alone, as before the
        # second readings (they were chosen for the thumb-up: on rendered fists
        # the readings name a fist where the first reading names nothing)
        firsts = [(u, first) for u, (_, first) in zip(r.zone_views, probs)]
        if any(q["thumb_up"] >= VOTE_THUMB_P for u, q in firsts if u.hand.readings):
            # a thumb-up read once that the other readings do not bear out: no
            # vote, and no other form named for it either; "cannot judge" where
            # the window sees a vote (a run of such frames is one:
            # _split_readings_under_a_vote), else nothing stands there (the
            # committed sample's resting hand at 75 s, first read as a thumb-up)
            if window_vote:
                r.add(Observed.ZONE_UNREAD, max(q["thumb_up"] for _, q in firsts), "readings_disagree")
            return
        named = [(v, q) for v, q in firsts if max(q["fist"], q["open_palm"], q["pointing"]) >= NAMED_P]
        if named:
            # the hands name what stands there: never a thumb-up on the window's word
            for v, q in named:
                pts = v.hand.points[:, :2]
                window_wrong = window_vote and window_says_wrong(z)
                if q["fist"] >= NAMED_P and (_knuckles_rise(pts) or window_vote):
                    r.add(Observed.FIST_ON_TABLE, q["fist"], "fist")
                elif q["open_palm"] >= NAMED_P and window_wrong and _edge_on(pts):
                    r.add(Observed.FIST_ON_TABLE, good + wrong, "palm")
                elif q["pointing"] >= NAMED_P and window_wrong and fingertip_down(pts):
                    r.add(Observed.FIST_ON_TABLE, good + wrong, "fingertip")
                else:
                    continue
                return
            if window_vote:
                # the window sees a vote the hands read as another form
                r.add(Observed.ZONE_UNREAD, good + wrong, "forms_disagree")
            return
        # only hands the model calls "other" (resting, reaching): the window may still see a vote
    if trusted and WINDOW_VOTES:
        _zone_window(r)
    elif z and good + wrong >= ZONE_VOTE:
        # the window sees a vote that no hand read confirms (OPEN_HAND: an own hand
        # is there, open, the form model naming nothing: `_filled_form`)
        seen_open = any(v.state not in FIST_FAMILY for v in r.zone_views)
        r.add(Observed.ZONE_UNREAD, good + wrong, OPEN_HAND if seen_open else "no_hand")


def _zone_window(r: _Reading) -> None:
    """The learned zone says whether a vote stands there and whether in the
    right form; the hands, when they saw it, only name which form (their
    landmarks on a 30 px fist are too coarse to judge it alone)."""
    z = r.app["zone"]
    good, wrong = z.get("vote", 0.0), z.get("wrong", 0.0)
    forms = [f.value for f in r.drop(Observed.FIST_ON_TABLE)]
    if good + wrong < ZONE_VOTE:
        return
    if "wrong" not in z:
        form = forms[0] if forms else None
    elif window_says_wrong(z):
        form = next((f for f in forms if f in WRONG_FORMS), "palm")
    else:
        form = next((f for f in forms if f not in WRONG_FORMS), "thumb_up")
    r.add(Observed.FIST_ON_TABLE, good + wrong, form)


def _shots(raised: list[tuple[float, list[HandView]]], seat: int, th: Thresholds) -> list[FrameState]:
    """Frames where a raised hand's long fingers curl after being up, its
    palm as long as it was with the fingers up (CURL_PALM_SHARE)."""
    out = []
    memory = max(CURL_PALM_MEMORY, th.shot_window)
    up_palms: deque[tuple[float, float]] = deque()   # (t, palm px) of the recent frames with fingers up
    for t, views in raised:
        counts = [_long_fingers_up(v) for v in views]
        if not counts:
            continue
        while up_palms and t - up_palms[0][0] > memory:
            up_palms.popleft()
        if max(counts) >= 1:
            up_palms.append((t, max(palm_length(v.hand.points) for v, n in zip(views, counts) if n >= 1)))
            continue
        if not up_palms or t - up_palms[-1][0] > th.shot_window:
            continue
        usual = float(np.percentile([p for _, p in up_palms], 75))
        if max(palm_length(v.hand.points) for v in views) >= CURL_PALM_SHARE * usual:
            out.append(FrameState(t, seat, Observed.SHOT, SHOT_CONF))
    return out


def _long_runs(landmarks: list[SeatLandmarks], lost_of: dict[float, bool], th: Thresholds) -> set[float]:
    """Times of the frames inside runs of lost frames lasting >= lost_run_seconds.

    A single found frame between lost ones (a spurious detection on a bowed
    head) does not break a run and belongs to it; frames further apart than
    max_sample_gap do (nothing is known between them)."""
    out: set[float] = set()
    run: list[float] = []           # lost frames and absorbed single found frames
    pending: float | None = None    # a found frame that may be absorbed

    def close() -> None:
        if run and run[-1] - run[0] >= th.lost_run_seconds:
            out.update(run)

    for lm in landmarks:
        t = lm.t
        if run and t - (pending if pending is not None else run[-1]) > th.max_sample_gap:
            close()
            run, pending = [], None
        if lost_of[t]:
            if pending is not None:
                run.append(pending)
                pending = None
            run.append(t)
        elif run and pending is None:
            pending = t
        else:
            close()
            run, pending = [], None
    close()
    return out


def _indirect_mask(frames: list[FrameState], landmarks: list[SeatLandmarks], th: Thresholds
                   ) -> list[FrameState]:
    """Mask states for frames where the seat's own pose does not show the eyes
    (a masked head bowed in the night pose defeats pose and face detection).

    The window around the seat's expected head holds the mask band, the
    hair and some background; with the band over a bowed face it is darker
    than the same window in this seat's frames with the mask off (measured
    on the frames with direct evidence, else on the lighter part of all its
    frames: most sampled time is day). Without features, the nearest direct
    evidence within `carry_seconds`, then "face lost" (no face or pose found
    in the crop at all) answer weakly.
    """
    direct: dict[float, Observed] = {f.t: f.state for f in frames if f.state in MASK_STATES}
    # a frame that said it cannot judge the mask gets no guess from its neighbours
    unread = {f.t for f in frames if f.state is Observed.MASK_UNREAD}
    landmarks = [lm for lm in landmarks if lm.t not in unread]
    off_dark = [lm.features["win_dark"] for lm in landmarks
                if direct.get(lm.t) is Observed.MASK_OFF and "win_dark" in lm.features]
    every = [lm.features["win_dark"] for lm in landmarks if "win_dark" in lm.features]
    base = (float(np.median(off_dark)) if len(off_dark) >= th.base_min_frames
            else float(np.percentile(every, 30)) if len(every) >= 2 * th.base_min_frames else None)
    known = sorted(direct.items())
    # face detection fires now and then on a bowed head: only pose and mesh count
    lost_of = {lm.t: lm.pose is None and not lm.mesh for lm in landmarks}
    # A masked head bowed in the night pose stays "lost" for the whole night,
    # while a seat seen from behind by day loses and finds its pose every few
    # frames: a long unbroken run of lost frames is a mask.
    long_lost = _long_runs(landmarks, lost_of, th)
    out = []
    for lm in landmarks:
        if lm.t in long_lost and lm.t not in direct:
            out.append(FrameState(lm.t, lm.seat, Observed.MASK_ON, th.indirect_conf + 0.03))
            continue
        if lm.t in direct:
            continue
        dark = lm.features.get("win_dark")
        if base is not None and dark is not None:
            excess = dark - base - th.win_dark_add
            # a pose found in the crop (even a neighbour's) means faces are
            # bare around here: a dark window is then a lean, not a mask
            lost = lm.pose is None and (not lm.faces or not th.lost_needs_no_face)
            if excess > 0 and lost:
                out.append(FrameState(lm.t, lm.seat, Observed.MASK_ON, round(min(0.95, th.indirect_conf + 3 * excess), 3)))
            # else: no own eyes seen and no dark window: unknown. "Mask off" needs
            # positive evidence (a false one accuses a player of peeking).
            continue
        near = [(abs(t - lm.t), st) for t, st in known if abs(t - lm.t) <= th.carry_seconds]
        if near:
            out.append(FrameState(lm.t, lm.seat, min(near)[1], th.indirect_conf - 0.02))
        elif lm.pose is None and not lm.faces and not lm.mesh:
            out.append(FrameState(lm.t, lm.seat, Observed.MASK_ON, 0.55))
    return out


def classify_frames(landmarks: list[SeatLandmarks], calibration: Calibration, cam: str = "cam1",
                    thresholds: Thresholds = DEFAULT) -> list[FrameState]:
    """Every state seen in one seat's frames (sorted by t), with confidences."""
    seats = calibration.camera(cam).seats
    if not landmarks:
        return []
    # the seat's usual shoulder height, from frames where the pose is its own
    own = [lm for lm in landmarks
           if lm.pose is not None and lm.seat in seats and pose_owner(lm.pose, seats) == lm.seat]
    ys = [lm.pose[[SH_L, SH_R], 1].mean() for lm in own]
    baseline = float(np.median(ys)) if len(ys) >= 5 else None
    lifts = [_nose_lift(_Body.of(lm.pose)) for lm in own if lm.pose[NOSE, 3] >= MIN_VIS]
    baseline_lift = float(np.median(lifts)) if len(lifts) >= 5 else None
    out: list[FrameState] = []
    raised: dict[int, list[tuple[float, list[HandView]]]] = {}
    for lm in landmarks:
        if lm.seat not in seats:
            continue
        states, up = classify_frame(lm, seats, baseline, thresholds, baseline_lift)
        out.extend(states)
        raised.setdefault(lm.seat, []).append((lm.t, up))
    for seat, seq in raised.items():
        out.extend(_shots(seq, seat, thresholds))
    for seat in {lm.seat for lm in landmarks}:
        mine = [lm for lm in landmarks if lm.seat == seat]
        out.extend(_indirect_mask([f for f in out if f.seat == seat], mine, thresholds))
        out.extend(_zone_fists([f for f in out if f.seat == seat], mine, thresholds))
        out = _confirm_window_votes(out, seat, mine)
        out = _weak_fists(out, seat)
    out.sort(key=lambda f: (f.t, f.seat, f.state))
    return out


def _confirm_window_votes(out: list[FrameState], seat: int, landmarks: list[SeatLandmarks]) -> list[FrameState]:
    """The zone window fills the gaps of a vote the hands saw: a frame where
    it alone sees a vote (zone_unread) within CONFIRM_S of a frame
    whose hands read a vote of the seat becomes that vote (the hand model
    misses a 30 px fist in some frames of every vote), with the form
    `_filled_form` gives. A window vote no hand ever confirms stays "cannot judge": on real
    pixels the window, trained on rendered hands only, is at chance."""
    by_t = {lm.t: lm for lm in landmarks}
    out = _split_readings_under_a_vote(out, seat, by_t)
    read = {f.t: f.value for f in out if f.seat == seat and f.state is Observed.FIST_ON_TABLE}
    if not read:
        return out
    kept = []
    for f in out:
        if f.seat == seat and f.state is Observed.ZONE_UNREAD and f.t in by_t:
            near = min(read, key=lambda t: abs(f.t - t))
            if abs(f.t - near) <= CONFIRM_S:
                kept.append(FrameState(f.t, seat, Observed.FIST_ON_TABLE, f.confidence,
                                       _filled_form(by_t[f.t], read[near], f.value == OPEN_HAND)))
                continue
        kept.append(f)
    return kept


def _filled_form(lm: SeatLandmarks, hands_form: str | None, open_hand: bool) -> str:
    """The form of a frame the window fills: a thumb-up where the window sees the
    right form; where it sees a wrong one, a palm if an own hand in the zone that
    frame is open (OPEN_HAND: the hands agree something open stands there), else the form the
    hands read in the nearest frame: the window alone names no wrong form (as in
    `_zone_vote`: a false foul is worse than a missed one). Fresh seed 3814 (a
    camera at 30 degrees) filled a left-hand thumb-up the hands had read as a
    thumb-up and a fist, no hand in the zone in between, with five frames of the
    window's "palm": a false wrong form. The committed sample's true palm (seat 4,
    62 s) is seen open by the hands in every frame the window fills.

    Nor does it add a thumb the hands did not see: next to a thumbless fist (the
    nearest hand's "fist") it fills a fist, which times nothing (review.recount
    `untimed`: a hand resting or hovering over the table reads so). Fresh seed
    5900 (a camera at 20 degrees, 2.1 m high): seat 6's open hands resting on the
    table's edge, read now and then as a fist (0.53-0.70) under a window sure of a
    vote (0.85-0.97), were filled to runs of thumb-ups up to 5 s long across calls: a
    late vote, an early lift, two double votes and a false miscount."""
    if window_says_wrong(appearance_of(lm.features).get("zone", {})):
        return "palm" if open_hand else (hands_form or "fist")
    return "fist" if hands_form == "fist" else "thumb_up"


def _weak_fists(out: list[FrameState], seat: int) -> list[FrameState]:
    """A run of frames that read a fist on the table that makes no vote
    (vision.tracks: entered only at the fist's `on` and held for its least
    frames) becomes "cannot judge" (zone_unread weak_fist). Left as it was,
    the seat's cell reads "no vote": a judged cell, and a wrong one where the
    fist was there (the full-length game's seat 1 at 2122 s: nine frames of
    a fist at 0.51-0.57 and one thumb-up at 1.0 as it lifted; a level of
    pixel change had made it a vote one run and nothing the next, and then
    a false miscount). Runs shorter than the track's least frames are noise."""
    rule = PER_STATE[Observed.FIST_ON_TABLE]
    fists = [f for f in out if f.seat == seat and f.state is Observed.FIST_ON_TABLE]
    if len(fists) < rule.min_frames:
        return out
    made = build_tracks(fists)
    runs: list[list[float]] = []
    for f in sorted(fists, key=lambda f: f.t):
        if f.confidence < rule.off or any(tr.t0 <= f.t <= tr.t1 for tr in made):
            continue
        if runs and f.t - runs[-1][-1] <= rule.max_gap + 1e-6:
            runs[-1].append(f.t)
        else:
            runs.append([f.t])
    weak = {t for run in runs if len(run) >= rule.min_frames for t in run}
    if not weak:
        return out
    return [FrameState(f.t, seat, Observed.ZONE_UNREAD, f.confidence, "weak_fist")
            if f.seat == seat and f.state is Observed.FIST_ON_TABLE and f.t in weak else f for f in out]


# frames running (each within CONFIRM_S of the next) of a thumb-up read first
# and not borne out by its other readings, under a zone window that sees a
# vote on pixels like its training data, that make the run a thumb-up vote
SPLIT_RUN = 3


def _window_sees_vote(lm: SeatLandmarks) -> bool:
    z = appearance_of(lm.features).get("zone", {})
    return (bool(z) and lm.features.get(ZONE_FAR_KEY, 0.0) <= ZONE_FAR
            and z.get("vote", 0.0) + z.get("wrong", 0.0) >= ZONE_VOTE)


def _split_readings_under_a_vote(out: list[FrameState], seat: int,
                                 by_t: dict[float, SeatLandmarks]) -> list[FrameState]:
    """A run of SPLIT_RUN frames or more whose hand the first reading calls a
    thumb-up and its second readings do not (zone_unread readings_disagree)
    while the zone window sees a vote is a thumb-up vote: on the committed
    sample's rendered fists the fresh searches read them less surely than
    the first one (seat 8's votes at 58 s: first readings 0.54-0.71, medians
    0.10-0.42, the window 1.0 in every frame). A single frame, or frames the
    window does not back, stay "cannot judge": on real hands laid into zones
    the readings took two false thumb-ups away (scripts/eval_real_hands.py)."""
    split = sorted(f.t for f in out if f.seat == seat and f.state is Observed.ZONE_UNREAD
                   and f.value == "readings_disagree" and f.t in by_t and _window_sees_vote(by_t[f.t]))
    runs: list[list[float]] = []
    for t in split:
        if runs and t - runs[-1][-1] <= CONFIRM_S:
            runs[-1].append(t)
        else:
            runs.append([t])
    backed = {t for run in runs if len(run) >= SPLIT_RUN for t in run}
    if not backed:
        return out
    return [FrameState(f.t, seat, Observed.FIST_ON_TABLE, f.confidence, "thumb_up")
            if f.seat == seat and f.state is Observed.ZONE_UNREAD and f.value == "readings_disagree"
            and f.t in backed else f for f in out]


def _zone_fists(frames: list[FrameState], landmarks: list[SeatLandmarks], th: Thresholds) -> list[FrameState]:
    """Fists the palm detector missed, from the skin in the table zone.

    The seat's own baseline is the zone's usual skin (a resting hand, a sleeve,
    a neighbour's elbow); a fist landing adds skin above it. Where the hand
    model did see a fist the frame already has one, and its form stays."""
    have = {f.t for f in frames if f.state is Observed.FIST_ON_TABLE}
    # frames the learned zone model judged need no second opinion
    landmarks = [lm for lm in landmarks if "app_zone_vote" not in lm.features]
    values = [(lm.t, lm.features.get("zone_skin")) for lm in landmarks]
    values = [(t, v) for t, v in values if v is not None]
    if len(values) < 10:
        return []
    arr = np.array([v for _, v in values])
    base = float(np.percentile(arr, th.zone_base_pct))
    spread = float(np.percentile(arr, 75) - np.percentile(arr, 25))
    need = base + max(th.zone_skin_min_rise, th.zone_skin_iqr * spread)
    out = []
    for lm, (t, v) in zip([lm for lm in landmarks if lm.features.get("zone_skin") is not None], values):
        if t in have or v < need:
            continue
        if lm.features.get("zone_skin_extent", 0.0) < th.zone_skin_min_extent:
            continue
        conf = min(0.95, 0.6 + (v - need) / max(need, 1e-3))
        out.append(FrameState(t, lm.seat, Observed.FIST_ON_TABLE, conf, "fist"))
    return out


__all__ = ["Thresholds", "DEFAULT", "classify_frames", "classify_frame", "mask_state", "head_reading", "MIN_MASK_HEAD_PX", "MIN_ZONE_HAND_PX",
           "pose_owner", "hand_owner", "view_hand", "vote_form", "body_anchor"]

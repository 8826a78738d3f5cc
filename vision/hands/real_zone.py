"""Real hands in rendered table zones, read by the pipeline's own zone path.

The check behind scripts/eval_real_hands.py and the training rows of
scripts/train_hand_forms.py: real HaGRID hands (shared data) are cut out and
laid into the table zones of frames of a rendered game (vision.hands.composite)
at the table camera's scale, and each composed frame goes through exactly
what `analyze` runs for a seat in a vote: the learned windows on the seat
crop, the hands on the table-zone crop (with the extraction's gate), then
seat_states.classify_frame. A "vote fist" is a fist_on_table state whose
form is thumb_up.

Split (fixed, printed by the callers): within each HaGRID class folder, the
files sorted by name; positions 0, 2, 4, ... train, 1, 3, 5, ... held out.
Backgrounds: seats resting or absent (no vote of their own) in frames of the
committed sample, times before 100 s for training, after for evaluation.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.hands.evaluate import shared_root

HAGRID_CLASSES = ("like", "fist", "palm", "one")
# what each HaGRID class is as a hand form (vision.hands.forms.FORMS)
HAGRID_FORM = {"like": "thumb_up", "fist": "fist", "palm": "open_palm", "one": "pointing"}
SPLIT_RULE = ("HaGRID: in each class folder, files sorted by name; even positions (0, 2, ...) train, "
              "odd positions (1, 3, ...) held out")
# background frames of the committed sample (seconds): rest or absent seats only
TRAIN_TIMES = (24.0, 33.0, 41.0, 50.0, 66.0, 75.0, 83.0)
EVAL_TIMES = (120.0, 128.0, 136.0, 145.0, 176.0, 185.0, 193.0)


def hagrid_dir() -> Path:
    return shared_root() / "data" / "hands" / "hagrid"


@dataclass(frozen=True)
class RealHand:
    path: Path
    cls: str          # HaGRID class folder
    position: int     # index in the sorted folder

    @property
    def held_out(self) -> bool:
        return self.position % 2 == 1

    @property
    def form(self) -> str:
        return HAGRID_FORM[self.cls]


def list_hagrid(root: Path | None = None, held_out: bool | None = None) -> list[RealHand]:
    """The HaGRID crops, in a fixed order; only one side of the split when asked."""
    root = Path(root) if root is not None else hagrid_dir()
    out = []
    for cls in HAGRID_CLASSES:
        folder = root / cls
        if not folder.is_dir():
            raise FileNotFoundError(f"missing HaGRID folder {folder} (set MAFVAR_SHARED)")
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
        out += [RealHand(p, cls, i) for i, p in enumerate(files)]
    if held_out is not None:
        out = [h for h in out if h.held_out == held_out]
    return out


def stable_seed(*parts: object) -> int:
    """A seed from names (not Python's salted hash): the same composites every run."""
    return int.from_bytes(hashlib.sha1("/".join(map(str, parts)).encode()).digest()[:8], "little")


@dataclass
class Background:
    t: float
    frame: np.ndarray       # RGB, calibration size
    seats: list[int]        # seats with no vote of their own at t


def background_frames(game: Path, times: tuple[float, ...]) -> list[Background]:
    """Frames of a rendered game at `times`, with the seats resting or absent
    (truth.json body layer) and at least 1 s from any vote of their own."""
    import json

    from vision.video import open_video

    truth = json.loads((game / "truth.json").read_text())
    spans = [s for s in truth["seat_states"] if s["layer"] == "body"]
    video = open_video(str(game / "video.mp4"))
    out = []
    for frame in video.read_at(list(times)):
        t = frame.t
        free = []
        for seat in range(1, 11):
            now = [s for s in spans if s["seat"] == seat and s["t0"] <= t < s["t1"]]
            votes = [s for s in spans if s["seat"] == seat and s["state"] == "vote_fist"
                     and s["t0"] - 1.0 <= t <= s["t1"] + 1.0]
            if now and now[0]["state"] in ("rest", "absent") and not votes:
                free.append(seat)
        out.append(Background(t, frame.image, free))
    return out


@dataclass
class ZoneCase:
    """One composed seat-frame: what was placed, and what the pipeline read."""
    kind: str                     # a HaGRID class, "empty" or "prop"
    source: str                   # image path, or "" for empty / prop
    t: float
    seat: int
    palm_px: float = 0.0
    wrist: tuple[float, float] | None = None   # where the real hand's wrist was laid (frame px)
    vote: bool = False            # a fist_on_table state of form thumb_up
    form: str | None = None       # the fist_on_table form read, if any
    confidence: float = 0.0
    hands: list = field(default_factory=list)   # the seat's hands found (landmarks, frame px)
    readings: list = field(default_factory=list)   # each found hand's second readings (Hand.readings)
    zone_ran: bool = False


class ZoneReader:
    """The extraction's per-seat path (vision.schedule.seat_landmarks with the
    zone pass) and classify_frame, on frames in memory."""

    def __init__(self, calibration, cam: str = "cam1") -> None:
        from vision.landmarks import Model, SeatLandmarker
        from vision.schedule import ZONE_MAX_HANDS

        self.cal = calibration
        self.cam = cam
        self.seats = calibration.camera(cam).seats
        self._seat = SeatLandmarker(tracking=False, models=())
        self._zone = SeatLandmarker(tracking=False, models=(Model.HANDS,), max_hands=ZONE_MAX_HANDS)

    def close(self) -> None:
        self._seat.close()
        self._zone.close()

    def read(self, frame: np.ndarray, t: float, seat: int, gate: bool = True):
        from vision.schedule import seat_landmarks
        from vision.seat_states import classify_frame

        lm = seat_landmarks(frame, t, seat, self.seats[seat], self._seat, self._zone, only=[], gate=gate)
        states, _ = classify_frame(lm, self.seats)
        return lm, states


def compose_cases(backgrounds: list[Background], hands: list[RealHand], calibration, cam: str = "cam1",
                  empties: int = 2, props: int = 1, tag: str = "") -> list[tuple[ZoneCase, np.ndarray]]:
    """(case, composed frame) for every real hand (one seat-frame each, chosen
    by a seed from its file name), plus `empties` untouched and `props` prop
    zones per background frame."""
    from vision.hands.composite import PALM_PX, cut_out, paste_hand, paste_prop, random_placement
    from vision.hands.detector import HandDetector, load_rgb

    seats = calibration.camera(cam).seats
    slots = [(b, s) for b in backgrounds for s in b.seats]
    if not slots:
        raise ValueError("no resting seat in the background frames")
    out = []
    with HandDetector(max_hands=1) as detector:
        for hand in hands:
            rng = np.random.default_rng(stable_seed(tag, hand.cls, hand.path.name))
            bg, seat = slots[int(rng.integers(len(slots)))]
            image = load_rgb(str(hand.path))
            found = detector.detect(image)
            if not found:
                continue  # no landmarks to cut it out by: the photo check counts it
            lms = found[0].landmarks_px
            region = seats[seat]
            b = region.body
            k = bg.frame.shape[0] / 720.0   # PALM_PX is for a 720p frame
            place = random_placement(rng, region.table_zone, ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2),
                                     (PALM_PX[0] * k, PALM_PX[1] * k))
            frame = paste_hand(bg.frame, image, cut_out(image, lms), lms, place)
            out.append((ZoneCase(hand.cls, str(hand.path), bg.t, seat, place.palm_px, place.wrist_xy), frame))
    for i, bg in enumerate(backgrounds):
        rng = np.random.default_rng(stable_seed(tag, "bg", i))
        picks = rng.permutation(bg.seats)
        for seat in picks[:empties]:
            out.append((ZoneCase("empty", "", bg.t, int(seat)), bg.frame))
        for seat in picks[empties:empties + props]:
            frame = paste_prop(bg.frame, seats[int(seat)].table_zone, rng)
            out.append((ZoneCase("prop", "", bg.t, int(seat)), frame))
    return out


def read_cases(cases: list[tuple[ZoneCase, np.ndarray]], calibration, cam: str = "cam1",
               gate: bool = True) -> list[ZoneCase]:
    """Each composed seat-frame through the pipeline (gate=False: the zone
    hands run whatever the windows say, for training rows)."""
    from vision.tracks import Observed

    reader = ZoneReader(calibration, cam)
    try:
        for case, frame in cases:
            lm, states = reader.read(frame, case.t, case.seat, gate)
            fists = [f for f in states if f.state == Observed.FIST_ON_TABLE]
            case.zone_ran = "hands_zone" in lm.cpu
            case.hands = [h.points for h in lm.hands]
            case.readings = [h.readings for h in lm.hands]
            if fists:
                best = max(fists, key=lambda f: f.confidence)
                case.form, case.confidence = best.value, best.confidence
                case.vote = best.value == "thumb_up"
    finally:
        reader.close()
    return [c for c, _ in cases]


__all__ = ["EVAL_TIMES", "HAGRID_CLASSES", "HAGRID_FORM", "SPLIT_RULE", "TRAIN_TIMES", "Background", "RealHand",
           "ZoneCase", "ZoneReader", "background_frames", "compose_cases", "hagrid_dir", "list_hagrid",
           "read_cases", "stable_seed"]

"""Schedules: which time ranges to analyse, how densely, for which seats;
and `extract`, which decodes only those frames and stores landmarks.

The caller (review's alignment) knows where votes and nights are; vision
only honours the ranges. Work is cut into chunks of a few seconds, spread
over worker processes (spawn-safe), and each finished chunk is committed
to the store, so an interruption loses only the chunks in progress and a
re-run skips those already done.
"""
from __future__ import annotations

import math
import multiprocessing as mp
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from vision.appearance import appearance_batch, appearance_features
from vision.calibration import SEATS, Calibration, CalibrationError, require_seats
from vision.crops import DEFAULT_LONG_SIDE, Crop, crop as crop_box, expand, seat_crop
from vision.faces.window_domain import FEATURE as HEAD_REAL, REAL_FROM, head_real
from vision.hands.forms import hands_form_probabilities
from vision.hands.zone_read import skin_proposals
from vision.motion import MotionGate, RegionMemory, thumbnail, watch_box
from vision.landmarks import ALL_MODELS, Model, SeatLandmarker, SeatLandmarks
from vision.store import ObservationStore
from vision.video import (DecodeStats, TimeRange, VideoError, VideoInfo, VideoSource, open_video, output_size,
                          probe)

# Samples closer than this are "consecutive": MediaPipe's tracking mode can
# follow a seated player between them.
TRACKING_MAX_GAP = 0.5

# What a schedule range may ask for: the models on the seat crop, and the
# hands pass on the table-zone crop (votes: a fist is too small on the seat crop).
ZONE_PASS = "hands_zone"
PASSES = (*(m.value for m in Model), ZONE_PASS)
# Sparser than this, each sample is its own seek: decoding the whole span
# between samples would cost more than seeking to the keyframe before each.
SEEK_EACH_MIN_GAP = 4.0
# sampling sparser than this reads key frames only, where the file has them that often
KEYFRAME_MIN_GAP = 0.9
# A chunk is one FFmpeg process (~70 ms to start and seek) and one restart of
# the motion gate: a sparse range's 10 frames per 10 s paid that per 10 key
# frames (392 chunks, a fifth of the decoding of a full-length game,
# scripts/bench_decode.py); three times longer chunks still leave dozens
# to share between two workers.
SPARSE_CHUNKS = 3


@dataclass(frozen=True)
class ScheduleRange:
    t0: float
    t1: float
    fps: float
    seats: tuple[int, ...] | None = None      # None: every seat
    label: str = ""
    models: tuple[str, ...] | None = None     # None: every model extract loads

    def __post_init__(self):
        if not self.t1 > self.t0:
            raise ValueError(f"range [{self.t0}, {self.t1}) is empty")
        if not self.fps > 0:
            raise ValueError(f"range [{self.t0}, {self.t1}): fps must be positive")
        if self.seats is not None:
            bad = [s for s in self.seats if s not in SEATS]
            if bad:
                raise ValueError(f"seats {bad} are not 1..10")
        if self.models is not None:
            known = set(PASSES)
            bad_models = [m for m in self.models if m not in known]
            if bad_models:
                raise ValueError(f"models {bad_models} are not {sorted(known)}")

    @property
    def seats_key(self) -> str:
        return "all" if self.seats is None else ",".join(map(str, sorted(self.seats)))

    @property
    def models_key(self) -> str:
        return "all" if self.models is None else (",".join(sorted(self.models)) or "none")

    def times(self) -> np.ndarray:
        return TimeRange(self.t0, self.t1, self.fps).times()


@dataclass(frozen=True)
class Schedule:
    ranges: tuple[ScheduleRange, ...] = ()

    @staticmethod
    def of(*ranges: ScheduleRange | tuple) -> "Schedule":
        return Schedule(tuple(r if isinstance(r, ScheduleRange) else ScheduleRange(*r)
                              for r in ranges))

    def merged(self) -> "Schedule":
        """Non-overlapping ranges: where ranges overlap the highest fps wins,
        seats and models are united and labels joined."""
        if not self.ranges:
            return self
        cuts = sorted({t for r in self.ranges for t in (r.t0, r.t1)})
        pieces: list[ScheduleRange] = []
        for a, b in zip(cuts, cuts[1:]):
            cover = [r for r in self.ranges if r.t0 <= a and r.t1 >= b]
            if not cover:
                continue
            fps = max(r.fps for r in cover)
            seats = (None if any(r.seats is None for r in cover)
                     else tuple(sorted({s for r in cover for s in r.seats})))
            models = (None if any(r.models is None for r in cover)
                      else tuple(sorted({m for r in cover for m in r.models})))
            labels = list(dict.fromkeys(l for r in cover for l in r.label.split("+") if l))
            piece = ScheduleRange(a, b, fps, seats, "+".join(labels), models)
            prev = pieces[-1] if pieces else None
            if (prev and prev.t1 == a and prev.fps == fps and prev.seats == seats
                    and prev.models == models):
                labels = list(dict.fromkeys(l for l in (prev.label + "+" + piece.label).split("+") if l))
                pieces[-1] = ScheduleRange(prev.t0, b, fps, seats, "+".join(labels), models)
            else:
                pieces.append(piece)
        return Schedule(tuple(_on_grid(p) for p in pieces))

    def clipped(self, duration: float) -> "Schedule":
        return Schedule(tuple(ScheduleRange(r.t0, min(r.t1, duration), r.fps, r.seats,
                                            r.label, r.models)
                              for r in self.ranges if r.t0 < duration))

    def chunks(self, max_seconds: float = 10.0) -> list[ScheduleRange]:
        """The merged schedule cut into pieces of at most `max_seconds`
        (SPARSE_CHUNKS times that for ranges read from key frames), cut at
        whole multiples of the piece length counted from the video's start,
        so two schedules that cover the same seconds at the same rate read
        them in the same chunks (a chunk's first frame starts the motion
        gate's and the trackers' history afresh)."""
        out: list[ScheduleRange] = []
        for r in self.merged().ranges:
            length = max_seconds * (SPARSE_CHUNKS if 1.0 / r.fps >= KEYFRAME_MIN_GAP else 1)
            step = max(1, math.floor(length * r.fps)) / r.fps
            for k in range(math.floor(r.t0 / step + 1e-9), math.ceil(r.t1 / step - 1e-9)):
                a, b = max(r.t0, k * step), min(r.t1, (k + 1) * step)
                if b > a:
                    out.append(ScheduleRange(round(a, 6), round(b, 6), r.fps, r.seats,
                                             r.label, r.models))
        return out


def _on_grid(r: ScheduleRange) -> ScheduleRange:
    """The range starting on the video's own sampling grid (whole multiples
    of 1/fps from its start), so the frames read do not depend on where the
    alignment placed a phase's edge: a timed and an untimed protocol that
    cover the same seconds at the same rate read the same frames, and give
    the same observations there. A range too short to hold a grid point
    keeps its start: it is still looked at once."""
    first = math.ceil(r.t0 * r.fps - 1e-6) / r.fps
    if first >= r.t1 or abs(first - r.t0) < 1e-9:
        return r
    return ScheduleRange(round(first, 6), r.t1, r.fps, r.seats, r.label, r.models)


def frames_for(schedule: Schedule, video: VideoInfo | VideoSource | float) -> np.ndarray:
    """Every timestamp the schedule samples inside the video."""
    duration = (video if isinstance(video, (int, float))
                else (video.info if isinstance(video, VideoSource) else video).duration)
    times = [r.times() for r in schedule.clipped(duration).merged().ranges]
    return np.concatenate(times) if times else np.zeros(0)


# --- extraction -----------------------------------------------------------

@dataclass
class ChunkResult:
    chunk: ScheduleRange
    frames: list[tuple[float, tuple[int, int], list[SeatLandmarks]]]
    stats: DecodeStats
    cpu: dict[str, float]
    calls: dict[str, int]
    error: str | None = None
    wall: float = 0.0
    carried: int = 0          # seat-frames whose result was carried from a still seat


@dataclass
class ExtractReport:
    chunks_total: int = 0
    chunks_done: int = 0
    chunks_skipped: int = 0
    frames: int = 0
    seat_frames: int = 0
    decode: DecodeStats = field(default_factory=DecodeStats)
    cpu: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    wall: float = 0.0
    carried: int = 0


@dataclass
class _WorkerState:
    video: VideoSource
    calibration: Calibration
    cam: str
    long_side: int
    models: tuple[Model, ...]
    tracking: dict[int, SeatLandmarker] = field(default_factory=dict)
    static: SeatLandmarker | None = None
    zone: dict[str, SeatLandmarker] = field(default_factory=dict)
    gate: bool = True
    track_seats: bool = False
    motion: MotionGate | None = None      # frame differencing (with the gate only)
    regions: RegionMemory | None = None   # the zone pass's box readings (with the gate only)
    windows: dict | None = None           # seat-window models (a venue's); None: the committed ones

    def __post_init__(self):
        if self.gate and self.motion is None:
            self.motion = MotionGate()
        if self.gate and self.regions is None:
            self.regions = RegionMemory()

    def zone_hands(self) -> SeatLandmarker:
        """The hands-only model for table-zone crops, in static mode.

        Not tracking: a zone holds the neighbours' resting hands as well, and
        MediaPipe runs its palm detector only while it tracks fewer than
        max_num_hands hands, so a tracked zone with two resting hands never saw
        the fist that landed beside them (measured: half the sample's votes)."""
        if ZONE_KEY not in self.zone:
            self.zone[ZONE_KEY] = SeatLandmarker(tracking=False, models=(Model.HANDS,),
                                                 max_hands=ZONE_MAX_HANDS)
        return self.zone[ZONE_KEY]

    def landmarker(self, seat: int, tracking: bool) -> SeatLandmarker:
        """Tracking mode keeps one set of graphs per seat: a pose graph holds
        ~110 MB and a hands graph ~86 MB (measured), so ten tracked seats cost
        2 GB per worker. Since the windows gate the models to the few seats
        with a hand up, the shared static graphs are used unless the worker
        was built with `track_seats`."""
        if tracking and self.track_seats:
            if seat not in self.tracking:
                self.tracking[seat] = SeatLandmarker(tracking=True, models=self.models)
            return self.tracking[seat]
        if self.static is None:
            self.static = SeatLandmarker(tracking=False, models=self.models)
        return self.static


# One per worker process: MediaPipe graphs are costly to build and keep the
# tracking state of each seat between a worker's chunks.
_STATE: _WorkerState | None = None
_INIT_ERROR: str | None = None


def _init_worker(video_path: str, cal_json: dict, cam: str, long_side: int,
                 models: tuple[str, ...], gate: bool = True, windows: dict | None = None) -> None:
    global _STATE, _INIT_ERROR
    # An exception escaping a Pool initializer makes the pool respawn workers
    # forever; keep it and report it per chunk instead.
    try:
        _STATE = _WorkerState(open_video(video_path), Calibration.from_json(cal_json), cam,
                              long_side, tuple(Model(m) for m in models), gate=gate, windows=windows)
        _INIT_ERROR = None
    except Exception as exc:
        _STATE, _INIT_ERROR = None, str(exc)


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (the FFmpeg decoders)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _init_pool_worker(*args) -> None:
    """A pool worker owns one core: OpenCV's own thread pool would only
    compete with the other workers (and with FFmpeg) for the same cores."""
    import cv2
    cv2.setNumThreads(1)
    _init_worker(*args)


def _run_chunk(chunk: ScheduleRange) -> ChunkResult:
    try:
        return _run_chunk_unsafe(chunk)
    except Exception as exc:  # reported by the parent, never a worker traceback
        return ChunkResult(chunk, [], DecodeStats(), {}, {},
                           error=f"chunk [{chunk.t0:.2f}, {chunk.t1:.2f}): "
                                 f"{type(exc).__name__}: {exc}")


def _run_chunk_unsafe(chunk: ScheduleRange) -> ChunkResult:
    st = _STATE
    if st is None:
        raise RuntimeError(_INIT_ERROR or "worker not initialised")
    started = time.perf_counter()
    cam = st.calibration.camera(st.cam)
    seats = sorted(cam.seats) if chunk.seats is None else list(chunk.seats)
    tracking = 1.0 / chunk.fps <= TRACKING_MAX_GAP
    only = None if chunk.models is None else [Model(m) for m in chunk.models if m != ZONE_PASS]
    zone_on = Model.HANDS in st.models and (chunk.models is None or ZONE_PASS in chunk.models)
    before = DecodeStats()
    before.add(st.video.stats)
    decode0 = _children_cpu()
    result = ChunkResult(chunk, [], DecodeStats(), {}, {})
    max_side = analysis_side(st.video.info, cam)
    frames = _frames(st.video, chunk, max_side)
    out_w, out_h = output_size(st.video.info.size, max_side)
    sx, sy = out_w / cam.width, out_h / cam.height
    regions = {seat: cam.seats[seat] if (sx, sy) == (1.0, 1.0) else scale_region(cam.seats[seat], sx, sy)
               for seat in seats}
    zone = st.zone_hands() if zone_on else None
    mode = (chunk.models_key, zone_on)
    watch = {seat: watch_box(regions[seat], (out_w, out_h)) for seat in seats}
    cpu, calls = result.cpu, result.calls
    read0, recalled0 = (st.regions.read, st.regions.recalled) if st.regions is not None else (0, 0)

    def cost(stage: str, since: float) -> None:   # stages besides the models: CPU only
        cpu[stage] = cpu.get(stage, 0.0) + time.process_time() - since

    try:
        for frame in frames:
            by_seat: dict[int, SeatLandmarks] = {}
            todo = seats
            thumbs: dict[int, np.ndarray] = {}
            if st.motion is not None:
                c0 = time.process_time()
                thumbs = {seat: thumbnail(frame.image, watch[seat]) for seat in seats}
                for seat in seats:
                    held = st.motion.carry(seat, frame.t, thumbs[seat], mode)
                    if held is not None:
                        by_seat[seat] = held
                todo = [seat for seat in seats if seat not in by_seat]
                cost("motion", c0)
                result.carried += len(by_seat)
            c0 = time.process_time()
            crops = [seat_crop(frame.image, regions[seat], st.long_side) for seat in todo]
            cost("crop", c0)
            c0 = time.process_time()
            apps = appearance_batch(crops, [regions[seat] for seat in todo], st.windows)
            cost("windows", c0)
            for seat, crop, app in zip(todo, crops, apps):
                lm = seat_landmarks(frame.image, frame.t, seat, regions[seat], st.landmarker(seat, tracking),
                                    zone, only, st.long_side, st.gate, crop=crop, app=app, memory=st.regions)
                for k, v in lm.cpu.items():
                    cpu[k] = cpu.get(k, 0.0) + v
                    calls[k] = calls.get(k, 0) + 1
                # the store keeps one row per model: the zone's hands go in the hands row,
                # which must then be written even where the seat crop's hands did not run
                if lm.cpu.pop("hands_zone", None) is not None:
                    lm.cpu.setdefault(Model.HANDS.value, 0.0)
                if st.motion is not None:
                    st.motion.keep(seat, frame.t, thumbs[seat], mode, lm)
                by_seat[seat] = lm
            result.frames.append((frame.t, frame.size, [by_seat[seat] for seat in seats]))
    except VideoError as exc:
        result.error = str(exc)
    if st.regions is not None:
        # zone boxes (skin blobs, second readings) read by the landmark model, and recalled unread
        calls["zone_boxes_read"] = st.regions.read - read0
        calls["zone_boxes_recalled"] = st.regions.recalled - recalled0
    # FFmpeg runs as this process's children: their CPU is the decoding's
    result.cpu["decode"] = _children_cpu() - decode0
    after = st.video.stats
    result.stats = DecodeStats(after.processes - before.processes,
                               after.frames_decoded - before.frames_decoded,
                               after.frames_returned - before.frames_returned,
                               after.seconds - before.seconds,
                               after.warnings[len(before.warnings):])
    result.wall = time.perf_counter() - started
    return result


ZONE_MARGIN = 0.35   # fraction of the table zone added around it (raised wrists, neighbours)
ZONE_SIDE = 256      # long side of the table-zone crop fed to the palm detector
def analysis_side(info: VideoInfo, cam) -> int | None:
    """The long side frames are decoded at: the calibration's own frame. A
    recording larger than its calibration (a 1080p file calibrated on a 720p
    still) is downscaled once, by FFmpeg, so the landmarks stored are in the
    calibration's pixels, like its seat regions, and no crop pays for the
    extra pixels. None: decode as is."""
    side = max(cam.width, cam.height)
    return side if side < max(info.width, info.height) else None


def _frames(video: VideoSource, chunk: ScheduleRange, max_side: int | None = None):
    """The chunk's frames, decoding as little as the sampling allows: sparse
    ranges read key frames only (their own times, thinned to the rate) when
    the file has them at least that often; very sparse ranges otherwise seek
    once per frame; dense ranges decode the range once."""
    gap = 1.0 / chunk.fps
    if gap >= KEYFRAME_MIN_GAP:
        ki = video.keyframe_interval()
        if ki is not None and ki <= gap * 1.05:
            return _keyframes_or_seeks(video, chunk, gap, max_side)
    if gap >= SEEK_EACH_MIN_GAP:
        return _seeks(video, chunk, max_side)
    return video.iter_range(chunk.t0, chunk.t1, chunk.fps, max_side)


def _seeks(video: VideoSource, chunk: ScheduleRange, max_side: int | None = None):
    return (f for t in chunk.times() for f in video.iter_range(t, t + 1e-3, chunk.fps, max_side))


def _keyframes_or_seeks(video: VideoSource, chunk: ScheduleRange, gap: float, max_side: int | None = None):
    """Key frames; a chunk too short to hold one (a range's clipped tail) is
    sampled by seeking instead, so every scheduled range is looked at."""
    any_frame = False
    for f in video.iter_keyframes(chunk.t0, chunk.t1, min_gap=gap * 0.9, max_side=max_side):
        any_frame = True
        yield f
    if not any_frame:
        yield from _seeks(video, chunk, max_side)


ZONE_MAX_HANDS = 4   # own two hands and the neighbours' reaching in
ZONE_KEY = "zone"


def seat_landmarks(image: np.ndarray, t: float, seat: int, region, landmarker: SeatLandmarker,
                   zone_hands: SeatLandmarker | None = None, only=None,
                   long_side: int = DEFAULT_LONG_SIDE, gate: bool = True, crop: Crop | None = None,
                   app: dict[str, float] | None = None, reread: bool = True,
                   memory: RegionMemory | None = None) -> SeatLandmarks:
    """One seat of one frame, as extraction sees it: the models on the seat crop,
    then hands again on the table-zone crop (cpu["hands_zone"] counts that pass;
    reread=False skips the zone hands' second readings, for measuring their cost).
    `crop` and `app` when the caller already cut the crop and classified its
    windows (a frame's seats are classified together). `memory`: the seat's
    earlier readings of the zone's skin blobs and second readings, recalled
    where those pixels have not changed (an extraction worker's; none: every
    box is read)."""
    size = (image.shape[1], image.shape[0])
    crop = seat_crop(image, region, long_side) if crop is None else crop
    # The learned windows are cheap; they say whether a hand is up or a vote
    # stands, and only then do the landmark models run on the seat.
    app = appearance_features(crop, region) if app is None else app
    if app and HEAD_REAL not in app:
        app = {**app, **head_real(crop, region)}
    closed = gate and bool(app)
    want = [m for m in (landmarker.models if only is None else only)
            if not (closed and m in GATED_MODELS and not hands_needed(app))
            and not (closed and m is Model.MESH and not mesh_needed(app))]
    lm = landmarker.process(crop, seat, t, want, app)
    if zone_hands is not None:
        # A vote fist is ~35 px in a 720p frame: on the whole-seat crop the palm
        # detector finds it in ~40% of frames, on a crop of the table zone in
        # ~87% (measured by the renderer's detection script). Not gated by the
        # zone window: trained on rendered hands, it misses a third
        # of real thumb-up fists laid into rendered zones (scripts/eval_real_hands.py);
        # the motion gate still carries a still zone.
        zc = crop_box(image, expand(region.table_zone, ZONE_MARGIN, size), ZONE_SIDE)
        zl = zone_hands.process(zc, seat, t, [Model.HANDS])
        c0 = time.process_time()
        # small real fists the palm detector misses: the landmark model on
        # hand-sized skin blobs no found hand covers (vision.hands.zone_read)
        found = [zc.to_crop(h.points[:, :2]) for h in zl.hands]
        # the hands that may be the seat's vote are read twice more (own box,
        # mirror image), the vote form taken over the readings (vision.hands.zone_read)
        own = expand(region.table_zone, REREAD_MARGIN, size)
        # only blobs centred in the seat's own part of the crop: one at the
        # crop's edge is a neighbour's arm or hand, read (if it is a hand) in
        # that seat's own pass; each blob read costs up to four model runs
        near = zc.to_crop(np.reshape(expand(region.table_zone, BLOB_MARGIN, size), (2, 2))).ravel()
        px, py = zc.to_crop(np.reshape(region.body, (2, 2)).mean(axis=0))
        player = (float(px), float(py))
        palm = PALM_OF_BODY * (region.body[3] - region.body[1]) * zc.scale_xy[0]
        blobs = skin_proposals(zc.image, found, within=(near[0], near[1], near[2], near[3]),
                               player_xy=player, palm_px=palm)
        extra = _read_blobs(zone_hands, zc, blobs, player, memory, seat, t)
        lm.hands = merge_hands(zl.hands + extra, lm.hands)
        if reread:
            # the seat crop's hands too: one of them may be the zone's likeliest vote
            _reread(zone_hands, zc, _likeliest_vote([h for h in lm.hands if _centre_in(h.points, own)]),
                    memory, seat, t)
        lm.cpu["hands_zone"] = zl.cpu.get(Model.HANDS.value, 0.0) + time.process_time() - c0
    return lm


def _read_blobs(zone_hands: SeatLandmarker, zc: Crop, blobs: list, player: tuple[float, float],
                memory: RegionMemory | None, seat: int, t: float) -> list:
    """The hands the landmark model finds in the skin blobs' boxes (crop px),
    each box recalled from `memory` where its pixels are unchanged."""
    if memory is None:
        return zone_hands.read_regions(zc, blobs, player)
    return [h for box in blobs for h in memory.through(seat, "blob", t, zc.box, zc.image, box,
                                                      lambda: zone_hands.read_regions(zc, [box], player))]


def _reread(zone_hands: SeatLandmarker, zc: Crop, hands: list, memory: RegionMemory | None,
            seat: int, t: float) -> None:
    """Second readings of `hands` (vision.hands.zone_read), recalled from
    `memory` where the hand's box is unchanged."""
    if memory is None:
        zone_hands.reread(zc, hands)
        return

    def read(h) -> list:
        zone_hands.reread(zc, [h])
        return h.readings

    for h in hands:
        (x0, y0), (x1, y1) = zc.to_crop(np.reshape(h.box, (2, 2)))
        box = (float(x0), float(y0), float(x1), float(y1))
        h.readings = memory.through(seat, "reread", t, zc.box, zc.image, box, lambda: read(h))


# A skin blob is read as a hand when its centre lies in the seat's table zone
# grown by this share (the crop is grown by ZONE_MARGIN): wider than the
# second readings' REREAD_MARGIN, as a blob takes in the forearm, which moves
# its centre toward the player. Blobs anywhere in the crop were half the zone
# pass's landmark-model runs, most of them finding no hand (the neighbours'
# arms): scripts/profile_zone_cost.py prints the runs per seat-frame.
BLOB_MARGIN = 0.25
# a palm (wrist to middle knuckle) of a seated player is about a tenth of the
# seat's body box height (the committed sample: 23-30 px at 720p)
PALM_OF_BODY = 0.1
# A zone hand is read again (Hand.readings) when its centre lies in the seat's
# table zone grown by this share: the neighbours' hands at the crop's edges
# are not its vote, and each second reading costs two landmark passes.
REREAD_MARGIN = 0.15


# A zone whose likeliest thumb-up is read as one with less than this is not
# read again: the real thumb-ups of both halves (scripts/eval_real_hands.py,
# with and without --tune) are read alike at 0.02 and 0.05 and lose one at
# 0.1; on the full-length game's vote frames the hands re-read per seat-frame
# fall from 0.96 to 0.70 (scripts/profile_zone_cost.py).
REREAD_FLOOR = 0.05


def _likeliest_vote(hands: list) -> list:
    """The one hand (or none) to read again: the one whose first reading the
    form model finds likeliest a thumb-up. A seat's zone holds 2-3 hands (its
    resting hands, a neighbour's); re-reading every one cost 2.3 times the
    zone pass on the committed sample's votes (scripts/profile_zone_cost.py),
    one hand 1.65 times, for 15 of 29 thumb-ups on the tuning set against 16
    (HaGRID training half in the committed sample's zones). None when even
    that hand is under REREAD_FLOOR: resting hands."""
    if not hands:
        return []
    read = hands_form_probabilities([[h.points[:, :2]] for h in hands])
    if read is None:   # no form model: the first hand, as before
        return hands[:1]
    best, first = max(zip(hands, (first for _, first in read)), key=lambda hp: hp[1]["thumb_up"])
    return [] if first["thumb_up"] < REREAD_FLOOR else [best]


def _centre_in(points: np.ndarray, box) -> bool:
    cx, cy = points[:, :2].mean(axis=0)
    return bool(box[0] <= cx <= box[2] and box[1] <= cy <= box[3])


# Seat-crop models that only matter with a hand up, at the face or reaching
# over: gated by the body window. Models without a gate always run.
GATED_MODELS = (Model.POSE, Model.HANDS)
GATE = 0.15


def hands_needed(app: dict[str, float]) -> bool:
    """Might a hand be up, at the face or touching (body window)? Open when the
    committed model has no body window."""
    if not any(k.startswith("app_body_") for k in app):
        return True
    return sum(app.get(f"app_body_{c}", 0.0) for c in ("raised", "hand_face", "touch")) >= GATE


# The head window's least probability of its best mask state for the face
# mesh to be skipped, on pixels like the window's (rendered) training data.
MESH_GATE = 0.9


def mesh_needed(app: dict[str, float]) -> bool:
    """Does the mask need the face mesh here? Not where the learned head
    window, on pixels like its training data (vision.faces.window_domain),
    is sure of the mask: on real pixels always."""
    head = [v for k, v in app.items() if k.startswith("app_head_")]
    if not head or HEAD_REAL not in app or app[HEAD_REAL] >= REAL_FROM:
        return True
    return max(head) < MESH_GATE


def merge_hands(first: list, second: list) -> list:
    """Hands from two crops of one seat, without duplicates: a hand of `second`
    is dropped when its wrist is within half a hand of one already kept."""
    kept = list(first)
    for h in second:
        size = max(1.0, float(np.ptp(h.points[:, :2], axis=0).max()))
        if all(np.linalg.norm(h.points[0, :2] - k.points[0, :2]) > 0.5 * size for k in kept):
            kept.append(h)
    return kept


def scale_region(region, sx: float, sy: float):
    from vision.calibration import SeatRegion
    s = lambda b: (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy)
    head = None if region.head is None else (region.head[0] * sx, region.head[1] * sy, region.head[2] * sx)
    return SeatRegion(s(region.body), s(region.table_zone), head)


def extract(video_path: str | Path, calibration: Calibration, schedule: Schedule,
            store: ObservationStore | str | Path, workers: int = 2,
            cam: str = "cam1",
            chunk_seconds: float = 10.0, long_side: int = DEFAULT_LONG_SIDE,
            models: Sequence[Model] = ALL_MODELS,
            progress: Callable[[ChunkResult], None] | None = None,
            gate: bool = True, windows: dict | None = None) -> ExtractReport:
    """Landmarks for every seat and scheduled frame, written to `store` (an
    open store or the path of its SQLite file; the game workspace names it).

    Chunks already recorded as done are skipped. A damaged file stops only
    the chunks it breaks: their readable frames are stored, the chunk stays
    not-done, and the error is listed in the report. With `gate` (default) pose
    and hands run on a seat crop only where its body window says a hand may be up
    (`hands_needed`; the table-zone hands run wherever the zone pass is asked
    for), and a seat whose pixels
    have not changed since its last analysed frame carries that frame's result
    (`vision.motion`); `gate=False` is the unoptimised reference. `windows`:
    the seat-window models to run (a venue's, `mafvar learn`); default the
    committed ones.
    """
    started = time.perf_counter()
    video_path = str(video_path)
    info = probe(video_path)
    cam_cal = calibration.camera(cam)
    wanted_seats = sorted({s for r in schedule.ranges
                           for s in (r.seats if r.seats is not None else SEATS)})
    require_seats(calibration, cam, wanted_seats)
    if abs(info.width / info.height - cam_cal.width / cam_cal.height) > 0.02:
        raise CalibrationError(
            f"calibration of {cam} is for {cam_cal.width}x{cam_cal.height} but {video_path} "
            f"is {info.width}x{info.height}: a different camera or rotation")
    own_store = not isinstance(store, ObservationStore)
    db = ObservationStore(store) if own_store else store
    report = ExtractReport()
    try:
        if schedule.ranges and max(r.t1 for r in schedule.ranges) > info.duration + 1e-6:
            report.errors.append(
                f"{video_path}: the schedule reaches {max(r.t1 for r in schedule.ranges):.1f} s "
                f"but the video lasts {info.duration:.1f} s; later ranges are skipped")
        chunks = schedule.clipped(info.duration).chunks(chunk_seconds)
        report.chunks_total = len(chunks)
        todo = [c for c in chunks
                if not db.is_chunk_done(cam, c.t0, c.t1, c.fps, c.seats_key, c.models_key)]
        report.chunks_skipped = len(chunks) - len(todo)
        init_args = (video_path, calibration.to_json(), cam, long_side,
                     tuple(Model(m).value for m in models), gate, windows)
        for res in _run_all(todo, workers, init_args):
            for t, size, seat_results in res.frames:
                db.add_frame_results(cam, t, size, seat_results, commit=False)
            db.db.commit()
            report.frames += len(res.frames)
            report.seat_frames += sum(len(s) for _, _, s in res.frames)
            report.carried += res.carried
            report.decode.add(res.stats)
            for k, v in res.cpu.items():
                report.cpu[k] = report.cpu.get(k, 0.0) + v
            for k, n in res.calls.items():
                report.calls[k] = report.calls.get(k, 0) + n
            if res.error:
                report.errors.append(res.error)
            else:
                c = res.chunk
                db.mark_chunk_done(cam, c.t0, c.t1, c.fps, c.seats_key, c.label, c.models_key)
                report.chunks_done += 1
            db.add_timings(cam, res.cpu, res.calls)
            if progress:
                progress(res)
    finally:
        if own_store:
            db.close()
    report.wall = time.perf_counter() - started
    return report


def _run_all(chunks: list[ScheduleRange], workers: int, init_args: tuple) -> Iterable[ChunkResult]:
    if not chunks:
        return
    if workers <= 1 or len(chunks) == 1:
        global _STATE
        saved = _STATE
        _init_worker(*init_args)
        try:
            for c in chunks:
                yield _run_chunk(c)
        finally:
            st = _STATE
            _STATE = saved
            if st is not None:
                for lm in [*st.tracking.values(), *st.zone.values(), st.static]:
                    if lm is not None:
                        lm.close()
        return
    ctx = mp.get_context("spawn")
    pool = ctx.Pool(min(workers, len(chunks)), initializer=_init_pool_worker, initargs=init_args)
    try:
        # Chunks go out in time order, one at a time, so a worker tends to get
        # neighbouring chunks and both cores stay busy to the end.
        yield from pool.imap_unordered(_run_chunk, chunks, chunksize=1)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()

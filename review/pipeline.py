"""`mafvar analyze`: from a game workspace to incidents, step by step, resumable.

calibration_check → extract (MediaPipe landmarks on the timeline's schedule)
→ align (seat states, tracks, marks, the timeline on the video clock)
→ recount → checks (incidents) → clips (evidence).

Each step writes its outputs, then its marker (analysis/<step>.done) with a
fingerprint of its inputs; a re-run skips finished steps whose inputs are
unchanged, and extraction itself resumes chunk by chunk. Only files under
analysis/ are written; protocol.json, calibration.json, the video and
review.db are never touched.
"""
from __future__ import annotations

import hashlib
import json
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from engine.protocol import Protocol, ProtocolError, load_protocol
from engine.replay import Replay, replay
from engine.timeline import Interval, Kind, build_timeline, timeline_to_json
from vision.calibration import Calibration
from vision.neighbour_arms import crossing_seats
from vision.store import ObservationStore
from vision.tracks import FrameState, Observed, Track, build_tracks
from vision.video import VideoError, VideoInfo, not_a_recording, probe

from .align import Mark, align, audio_marks, check_marks, music_marks, speech_marks, video_marks
from .atomic_write import write_json_atomic
from .calibration_verdict import workspace_verdict
from .checks import CheckContext, run_checks
from .incidents import save_incidents
from .plan import coarse_schedule, plan_schedule, schedule_seconds
from .progress import UNIT_COSTS, ProgressReport, RunProgress
from .record_fit import FILE as RECORD_FIT_FILE, RecordFit, measure_fit
from .coverage import Coverage, of_cells
from .stakes import STAKES_FILE, pass_stakes, stakes_json
from .recount import (NOT_IN_VIDEO, NOT_PLACED, RECORD_NOT_FIT, CallRecount, Placement, calls_outside, recount,
                      with_open_calls)
from .venues import ModelChoice, VenueError, choose, of_game, read_json
from .view import Abstention, abstentions, placement_doubts, unseen_cells, untimed_fists, withhold
from .workspace import GameWorkspace, WorkspaceError

Progress = Callable[[ProgressReport], None]


class AnalysisError(Exception):
    """Something in the workspace stops the analysis; the message says what and where."""


@dataclass
class Stats:
    """What one run cost, for `mafvar bench` and the closing notes."""
    video_s: float = 0.0
    frames_total: int = 0
    frames_decoded: int = 0
    scheduled_s: float = 0.0
    wall: dict[str, float] = field(default_factory=dict)     # step -> wall seconds
    cpu: dict[str, float] = field(default_factory=dict)      # stage -> CPU seconds (models, decode)
    calls: dict[str, int] = field(default_factory=dict)      # model -> crops it ran on
    frames: int = 0                                          # frames analysed
    seat_frames: int = 0
    carried: int = 0                                         # seat-frames carried from a still seat
    warnings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    appearance_model: dict | None = None                     # which seat-window model ran (review.venues)
    needs_anchor: list[dict] = field(default_factory=list)  # alignment.needs_anchor
    abstentions: list[dict] = field(default_factory=list)   # review.view, as JSON
    record_fit: dict | None = None                           # review.record_fit summary
    stakes: list[dict] = field(default_factory=list)         # review.stakes, passes whose unread seats could decide
    coverage: Coverage | None = None                         # review.coverage: the vote cells judged

    def to_json(self) -> dict:
        wall_s = sum(self.wall.values())
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
        return {"video_s": round(self.video_s, 2), "wall_s": round(wall_s, 2),
                "ratio": round(self.video_s / wall_s, 2) if wall_s else None,
                "frames_total": self.frames_total, "frames_decoded": self.frames_decoded,
                "scheduled_s": round(self.scheduled_s, 2),
                "peak_rss_mb": round(max(peak, kids), 1),
                "stages": {**{f"step:{k}": round(v, 3) for k, v in self.wall.items()},
                           **{k: round(v, 3) for k, v in self.cpu.items()}},
                "frames_analysed": self.frames, "seat_frames": self.seat_frames,
                "seat_frames_carried": self.carried,
                "model_calls": dict(self.calls),
                "warnings": self.warnings, "skipped": self.skipped,
                "appearance_model": self.appearance_model,
                "needs_anchor": self.needs_anchor,
                "seat_intervals_abstained": len({(a["seat"], a["key"]) for a in self.abstentions}),
                "abstentions": self.abstentions, "record_fit": self.record_fit,
                # additive (session 44): the votes whose unread seats could have changed who left
                "counts_at_stake": [{k: s[k] for k in ("phase_key", "seats", "text")}
                                    for s in self.stakes if s["decides"]],
                # additive (session 48): the vote cells (call x eligible seat) and those judged
                "vote_cells": self.coverage.cells if self.coverage else None,
                "vote_cells_judged": self.coverage.cells_judged if self.coverage else None}


def _fingerprint(*parts) -> str:
    h = hashlib.sha1()
    for p in parts:
        if isinstance(p, Path):
            st = p.stat()
            h.update(f"{p.name}:{st.st_size}:{int(st.st_mtime)}".encode())
        else:
            h.update(json.dumps(p, sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


@dataclass
class Game:
    """Everything loaded and checked once, shared by the steps."""
    ws: GameWorkspace
    protocol: Protocol
    replay: Replay
    timeline: list[Interval]
    video: Path
    info: VideoInfo
    calibration: Calibration
    cam: str
    offset: float
    warnings: list[str] = field(default_factory=list)
    appearance: ModelChoice | None = None   # the seat-window model (None: the committed one)

    @property
    def windows(self) -> dict | None:
        """The venue's seat-window models for vision, or None for the committed ones."""
        return self.appearance.models if self.appearance is not None and self.appearance.version else None


def load_game(game_dir: str | Path) -> Game:
    try:
        ws = GameWorkspace(game_dir)
        ppath = ws.require_protocol()
        cpath = ws.require_calibration()
        videos = ws.require_videos()
    except WorkspaceError as exc:
        raise AnalysisError(str(exc)) from exc
    try:
        protocol = load_protocol(ppath)
    except ProtocolError as exc:
        raise AnalysisError(f"{ppath}: {exc}") from exc
    rep = replay(protocol)
    errors = [i for i in rep.issues if i.severity.value == "error"]
    if errors:
        listed = "; ".join(str(i) for i in errors[:5])
        raise AnalysisError(f"{ppath} breaks the rules and cannot be replayed: {listed}"
                            + (f" (and {len(errors) - 5} more)" if len(errors) > 5 else "")
                            + ". Run `mafvar protocol check` for all of them.")
    video = videos[0]
    try:
        info = probe(video)
    except VideoError as exc:
        raise AnalysisError(str(exc)) from exc
    why = not_a_recording(info)
    if why:
        raise AnalysisError(f"{video}: {why}; nothing was analysed")
    require_readable_end(video, info)
    checked = workspace_verdict(ws, (info.width, info.height))
    if not checked.usable or checked.calibration is None or checked.camera is None:
        raise AnalysisError(f"{cpath}: the calibration is not usable: "
                            + "; ".join(checked.verdict.refusal_lines[:5]))
    cal, cam, verdict = checked.calibration, checked.camera, checked.verdict
    cams = protocol.cameras or ()
    offset = float(getattr(cams[0], "offset", 0.0) or 0.0) if cams else 0.0
    warnings = [f"{cpath.name}: {line}" for line in verdict.warning_lines]
    return Game(ws, protocol, rep, build_timeline(protocol, rep), video, info, cal, cam, offset, warnings)


def require_readable_end(video: Path, info: VideoInfo) -> None:
    """Refuse, before any work, a recording whose header promises more than the file holds.

    A copy cut short keeps its header (duration, size), so probing alone
    says nothing; one small frame decoded near the end does. Without this the
    analysis would run on the first part and present incidents of a game it
    never saw the end of.
    """
    from vision.video import open_video
    if not info.duration or info.duration <= 0:
        return
    t = max(0.0, info.duration - 2.0)
    try:
        frames = open_video(video).read_at([t], max_side=64)
    except VideoError as exc:
        frames = exc.partial
        if not frames:
            last = (f"; the last readable time is {exc.last_time:.1f} s"
                    if exc.last_time is not None else "")
            raise AnalysisError(
                f"{video}: the recording is cut short or damaged: its header says "
                f"{info.duration:.1f} s but no frame can be read at {t:.1f} s{last}; nothing was "
                f"analysed (copy the file from the camera again)") from None
    if not frames:
        raise AnalysisError(
            f"{video}: the recording is cut short or damaged: its header says "
            f"{info.duration:.1f} s but no frame can be read at {t:.1f} s; nothing was analysed "
            f"(copy the file from the camera again)")


def _protocol_span(tl: Sequence[Interval]) -> float | None:
    ends = [t for iv in tl for t in (iv.t0, iv.t1) if t is not None]
    return max(ends) if ends else None


def _ranges_key(schedule) -> list[list]:
    """What of a schedule decides the landmarks it stores (for fingerprints)."""
    return [[r.t0, r.t1, r.fps, r.models_key] for r in schedule.ranges]


# every step that writes landmarks into the one observation store
EXTRACT_STEPS = ("extract", "extract_dense", "extract_refine")


def _extract_step(game, schedule, obs_path: Path, step: str, fp_cal, force: bool, workers: int,
                  say, stats: Stats, gate: bool = True) -> None:
    """Extract the schedule's frames into the store unless the step is current."""
    ws = game.ws
    secs, planned = schedule_seconds(schedule)
    stats.scheduled_s += secs
    fp_ext = _fingerprint(game.video, fp_cal, _ranges_key(schedule) + [["gate", gate]])
    t0 = time.perf_counter()
    # the marker alone is not enough: a committed analysis may ship without the store
    if force or not obs_path.exists() or not _is_current(ws, step, fp_ext):
        ws.clear_marker(step)
        if force:
            _forget_extraction(ws, obs_path)
        from vision.schedule import extract
        say(step, 0.0, f"{planned} frames to analyse in {len(schedule.ranges)} ranges")
        done = [0]

        def tick(res):
            done[0] += len(res.frames)
            say(step, min(1.0, done[0] / max(1, planned)), f"{done[0]}/{planned} frames")

        rep = extract(game.video, game.calibration, schedule, store=obs_path, cam=game.cam,
                      workers=workers, progress=tick, gate=gate, windows=game.windows)
        stats.frames_decoded += rep.decode.frames_decoded
        for k, v in rep.cpu.items():
            stats.cpu[f"cpu:{k}"] = stats.cpu.get(f"cpu:{k}", 0.0) + v
        for k, n in rep.calls.items():
            stats.calls[k] = stats.calls.get(k, 0) + n
        stats.frames += rep.frames
        stats.seat_frames += rep.seat_frames
        stats.carried += rep.carried
        stats.warnings.extend(rep.errors)
        failed = rep.chunks_total - rep.chunks_done - rep.chunks_skipped
        if failed:
            # the landmarks of the chunks read are kept (a re-run resumes); results built on a
            # recording read in part would be presented as if the rest had nothing in it
            raise AnalysisError(
                f"{game.video}: {failed} of {rep.chunks_total} stretches of the recording could not "
                f"be read ({rep.errors[-1] if rep.errors else 'decoding failed'}); nothing was "
                f"presented as a result")
        if rep.chunks_done + rep.chunks_skipped == rep.chunks_total:
            ws.mark_done(step, {"fingerprint": fp_ext, "frames": rep.frames,
                                "frames_decoded": rep.decode.frames_decoded,
                                "cpu": rep.cpu})
    else:
        stats.skipped.append(step)  # this run decoded nothing: the landmarks are stored
        say(step, 1.0, "stored from an earlier run")
    stats.wall[step] = time.perf_counter() - t0


def _forget_extraction(ws: GameWorkspace, obs_path: Path) -> None:
    """Extraction resumes chunk by chunk from the store: a new one (forced, or
    another seat-window model) starts from nothing, and the passes that added
    to the old one are no longer done."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(obs_path) + suffix).unlink(missing_ok=True)
    for later in EXTRACT_STEPS:
        ws.clear_marker(later)
    ws.refine_plan_path.unlink(missing_ok=True)


def _model_step(game: Game, venue: str | None, stats: Stats) -> None:
    """Choose the seat-window model (review.venues) and record it; a model other than
    the one the stored extraction ran means extracting again."""
    ws = game.ws
    try:
        choice = choose(of_game(ws.root), venue)
    except VenueError as exc:
        raise AnalysisError(str(exc)) from None
    game.appearance = choice
    if choice.fallback:
        stats.warnings.append(choice.fallback)
    stats.appearance_model = choice.to_json()
    path = ws.appearance_model_path
    before = (read_json(path) or {}).get("key", "unreadable") if path.exists() else "committed"
    if ws.observations_path.exists() and before != choice.key:
        _forget_extraction(ws, ws.observations_path)
    write_json_atomic(path, {"format": "mafvar-appearance-choice", "version": 1, "key": choice.key,
                             **choice.to_json()})


REFINE_VERSION = 3      # bumped when what makes a glimpse changes: a kept plan is then re-made


def _refine_step(game, schedule, intervals, obs_path: Path, fp_cal, workers: int, say, stats: Stats,
                 gate: bool = True, tracker: RunProgress | None = None) -> None:
    """A closer look (review.refine) where the schedule's sparse frames glimpsed
    a rare act. The plan is kept beside the store: once the closer look has
    added frames, the glimpses read from the store would differ, and a resumed
    run must finish the same plan."""
    from .refine import glimpses, refine_schedule, relevance
    from vision.schedule import Schedule, ScheduleRange
    t0 = time.perf_counter()
    source = _fingerprint(game.video, fp_cal, _ranges_key(schedule), ["gate", gate, "refine", REFINE_VERSION])
    plan_path = game.ws.refine_plan_path
    plan = json.loads(plan_path.read_text()) if plan_path.exists() else {}
    if plan.get("source") == source:
        fine = Schedule(tuple(ScheduleRange(a, b, fps, None if seats is None else tuple(seats), "refine",
                                            None if models is None else tuple(models))
                              for a, b, fps, seats, models in plan["ranges"]))
    else:
        with ObservationStore(obs_path) as db:
            found = glimpses(db.window_features(cam=game.cam), schedule, relevance(intervals))
        fine = refine_schedule(found, schedule, game.info.duration)
        write_json_atomic(plan_path, {"format": "mafvar-refine-plan", "version": 1, "source": source,
                                      "glimpses": len(found),
                                      "ranges": [[r.t0, r.t1, r.fps, None if r.seats is None else list(r.seats),
                                                  None if r.models is None else list(r.models)]
                                                 for r in fine.ranges]})
    stats.wall["refine_plan"] = time.perf_counter() - t0
    if tracker is not None:
        tracker.replan("extract_refine", UNIT_COSTS["extract"] * schedule_seconds(fine)[1])
    if fine.ranges:
        _extract_step(game, fine, obs_path, "extract_refine", fp_cal, False, workers, say, stats, gate)


LANDING_VERSION = 3     # bumped when the estimators change: kept landings are then re-measured


def _landing_step(game, intervals, placements, fp_cal, stats: Stats, only: Sequence[str] | None):
    """Fists whose landing or lift is near a window's closing, timed at the
    full frame rate (review.landing, vision.landing). The landings are kept in
    analysis/landings.json under a fingerprint of what was asked, so a re-run
    reads them instead of decoding again."""
    from vision.landing import FistEdge, measure_landings
    from vision.video import open_video
    from .landing import apply_landings, landing_requests
    t0 = time.perf_counter()
    calls = [iv for iv in intervals if not only or _selected(iv.key, only)]
    requests = landing_requests(calls, placements)
    path = game.ws.landings_path
    source = _fingerprint(game.video, fp_cal, [[r.seat, r.t_seen] for r in requests], ["landing", LANDING_VERSION]
                          + ([game.appearance.key] if game.windows is not None and game.appearance else []))
    kept = json.loads(path.read_text()) if path.exists() else {}
    if kept.get("source") == source:
        landings = [FistEdge.from_json(d) for d in kept.get("landings", [])]
        stats.skipped.append("landing")
    else:
        landings, decoded, warns = measure_landings(open_video(game.video), game.calibration, game.cam, requests,
                                                    windows=game.windows)
        stats.frames_decoded += decoded
        stats.warnings.extend(warns)
        write_json_atomic(path, {"format": "mafvar-landings", "version": 1, "source": source,
                                 "requested": len(requests), "landings": [ld.to_json() for ld in landings]})
    stats.wall["landing"] = time.perf_counter() - t0
    return apply_landings(placements, landings)


def _selected(key: str, only: Sequence[str]) -> bool:
    """Is a timeline key (or a key below it, e.g. r2.vote.p0.c5 under r2.vote) selected?"""
    return any(key == k or key.startswith(k + ".") or k.startswith(key + ".") for k in only)


def _align_step(game, obs_path: Path, anchors, has_times: bool, stats: Stats,
                span: tuple[float, float] | None = None):
    """States → tracks → marks (video and audio) → alignment. `span`: the only
    stretch of the recording that matters (one phase of a timed protocol):
    the audio is read there alone."""
    frames, sample_times = seat_frames(obs_path, game)
    tracks = build_tracks(frames, sample_times)
    roles = {s.seat: s.role.value for s in game.protocol.seats}
    marks: list[Mark] = video_marks(tracks) + check_marks(tracks, roles)
    if game.info.has_audio:
        try:
            from vision.audio import music_intervals, read_audio, speech_segments
            a, b = span if span is not None else (0.0, None)
            audio = read_audio(str(game.video), rate=16000, t0=a, t1=b)
            marks += audio_marks(audio)
            marks += speech_marks(speech_segments(audio))
            if not has_times:
                # the protocol's clock places the nights of a timed record; night music is
                # for the untimed one (measured there: scripts/eval_alignment_sound.py)
                marks += music_marks(music_intervals(audio))
        except Exception as exc:  # a broken audio track must not stop the review
            stats.warnings.append(f"{game.video.name}: audio unreadable, aligning from the picture only ({exc})")
    marks.sort(key=lambda m: m.t)
    alignment = align(_video_timeline(game), marks, anchors=anchors, use_protocol_times=has_times)
    expected = sum(1 for k in alignment.matched) + len(alignment.unmatched_expected)
    if marks and expected and len(alignment.matched) < 0.25 * expected:
        stats.warnings.append(
            f"only {len(alignment.matched)} of {expected} expected nightfalls, mornings and vote calls "
            f"were found in {game.video.name}: are the protocol and the video of the same game?")
    return tracks, alignment, marks, frames


def analyze(game_dir: str | Path, progress: Progress | None = None, workers: int = 2,
            only: Sequence[str] | None = None, anchors: Mapping[str, float] | None = None,
            force: bool = False, gate: bool = True, venue: str | None = None) -> Stats:
    """Run (or resume) every step. `only`: timeline keys to analyse (e.g. "r2.vote").
    `gate=False` runs every scheduled model on every seat-frame (the unoptimised
    reference the gated path is compared with). `venue`: run that venue's current
    seat-window model (`mafvar learn`, review.venues) instead of the committed one."""
    try:
        return _analyze(game_dir, progress, workers, only, anchors, force, gate, venue)
    except VideoError as exc:  # a recording that fails part way (damaged in the middle)
        raise AnalysisError(f"{exc}; the analysis stopped and nothing was presented as a "
                            f"result") from exc


def _analyze(game_dir, progress, workers, only, anchors, force, gate, venue=None) -> Stats:
    tracker = RunProgress.for_game()
    say = tracker.reporter(progress)
    say("load", 0.0, "reading the protocol, the recording and the calibration")
    stats = Stats()
    t_start = time.perf_counter()
    game = load_game(game_dir)
    ws = game.ws
    anchors = _anchors(ws, anchors)
    ws.ensure_analysis_dirs()
    stats.warnings.extend(game.warnings)
    _model_step(game, venue, stats)
    stats.video_s = game.info.duration
    stats.frames_total = int(round(game.info.duration * (game.info.fps or 25.0)))
    stats.wall["load"] = time.perf_counter() - t_start

    # ---- calibration_check
    fp_cal = _fingerprint(ws.calibration_path, [game.info.width, game.info.height])
    _step_done(ws, "calibration_check", fp_cal, force, stats, lambda: {"camera": game.cam})

    # ---- extract: the timeline's schedule on the video clock
    span = _protocol_span(game.timeline)
    has_times = span is not None
    if has_times and span + game.offset > game.info.duration + 2.0:
        stats.warnings.append(
            f"{game.video.name} lasts {game.info.duration:.1f} s but the protocol runs to "
            f"{span + game.offset:.1f} s: phases after the end of the video are not analysed")
    if has_times:
        # the protocol's times on the video clock, untimed intervals placed between them
        placed = align(_video_timeline(game), []).intervals
        schedule = plan_schedule(placed, game.info.duration, only=only)
    else:
        schedule = coarse_schedule(game.info.duration)
    tracker.plan_game(game.info.duration, schedule_seconds(schedule)[1],
                      sum(iv.t1 - iv.t0 for iv in game.timeline if iv.kind.value == "vote_call"
                          and iv.t0 is not None and iv.t1 is not None), has_times)
    obs_path = ws.observations_path
    _extract_step(game, schedule, obs_path, "extract", fp_cal, force, workers, say, stats, gate)
    if has_times:
        _refine_step(game, schedule, placed, obs_path, fp_cal, workers, say, stats, gate, tracker)

    # ---- align: states → tracks → marks → alignment
    say("align", 0.0, "seat states, tracks and the timeline on the video clock")
    t0 = time.perf_counter()
    span = None
    if only and has_times and schedule.ranges:
        # one phase in a hurry: its cues are all the alignment needs (the protocol times place the rest)
        span = (max(0.0, schedule.ranges[0].t0 - 30.0), schedule.ranges[-1].t1 + 30.0)
    tracks, alignment, marks, frames = _align_step(game, obs_path, anchors, has_times, stats, span)
    stats.wall["align"] = time.perf_counter() - t0
    if not has_times:
        # The coarse pass found the nights and votes; now the dense plan runs on
        # the aligned timeline, into the same store, and the alignment is redone
        # with what it saw.
        dense = plan_schedule(alignment.intervals, game.info.duration, only=only,
                              slack=placement_slack(alignment))
        tracker.replan("extract_dense", UNIT_COSTS["extract"] * schedule_seconds(dense)[1])
        _extract_step(game, dense, obs_path, "extract_dense", fp_cal, False, workers, say, stats, gate)
        _refine_step(game, dense, alignment.intervals, obs_path, fp_cal, workers, say, stats, gate, tracker)
        t0 = time.perf_counter()
        tracks, alignment, marks, frames = _align_step(game, obs_path, anchors, has_times, stats)
        stats.wall["align"] += time.perf_counter() - t0
    return _after_align(game, tracks, frames, alignment, marks, has_times, stats, only, fp_cal, say, tracker)


def _anchors(ws: GameWorkspace, given: Mapping[str, float] | None) -> dict[str, float]:
    """The workspace's manual anchors (anchors.json, set in the app) with the given ones on top."""
    from .anchors import AnchorError, merged
    try:
        return merged(ws.root, dict(given or {}))
    except AnchorError as exc:
        raise AnalysisError(str(exc)) from exc


def realign(game_dir: str | Path, anchors: Mapping[str, float] | None = None,
            progress: Progress | None = None) -> Stats:
    """Alignment, recount, checks and evidence again from what is already extracted
    (no frame is decoded for landmarks): what a new manual anchor changes. The phases
    it moves are recounted and checked at once; frames the first pass never sampled
    there are looked at by the next full `analyze`."""
    say = progress or (lambda step, frac, msg: None)
    stats = Stats()
    game = load_game(game_dir)
    ws = game.ws
    if not ws.observations_path.is_file():
        raise AnalysisError(f"{ws.root}: not analysed yet (no {ws.observations_path.name}); run analyze first")
    stats.video_s = game.info.duration
    has_times = _protocol_span(game.timeline) is not None
    fp_cal = _fingerprint(ws.calibration_path, [game.info.width, game.info.height])
    # an analysis of some phases only (--phase) is redone for those phases only
    info = (ws.marker_info("align") or {}).get("info") or {}
    only = info.get("only") or None
    t0 = time.perf_counter()
    tracks, alignment, marks, frames = _align_step(game, ws.observations_path, _anchors(ws, anchors), has_times,
                                                   stats)
    stats.wall["align"] = time.perf_counter() - t0
    return _after_align(game, tracks, frames, alignment, marks, has_times, stats, only, fp_cal, say)


def _reopened_calls(fit: RecordFit, intervals: Sequence[Interval]) -> list[str]:
    """The vote calls whose cells the record fit leaves open: every call of a record
    that does not fit the recording. (A call of a fitting record whose fists disagree
    with its ballots stays counted: that disagreement may be the miscount itself.)"""
    if fit.fits:
        return []
    return [iv.key for iv in intervals if iv.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE)]


def _after_align(game: Game, tracks, frames, alignment, marks, has_times: bool, stats: Stats,
                 only: Sequence[str] | None, fp_cal: str, say,
                 tracker: RunProgress | None = None) -> Stats:
    ws = game.ws
    write_json_atomic(ws.alignment_path, alignment.to_dict())
    write_json_atomic(ws.timeline_path, timeline_to_json(alignment.intervals, game.replay.profile))
    write_json_atomic(ws.tracks_path,
                      {"format": "mafvar-tracks", "version": 1, "tracks": [t.to_dict() for t in tracks]})
    ws.mark_done("align", {"marks": len(marks), "matched": len(alignment.matched),
                           "only": list(only) if only else None})
    stats.needs_anchor = alignment.needs_anchor

    # ---- landings and lifts near "Thank you", timed to the frame
    say("landing", 0.0, "vote fists near \"thank you\" at the full frame rate")
    placements = _landing_step(game, alignment.intervals, fist_placements(tracks), fp_cal, stats, only)

    # ---- where a seat could not be judged (review.view): its cells stay unverified, its fouls unraised
    t0 = time.perf_counter()
    unseen = view_abstentions(ws.observations_path, game, frames, tracks, alignment.intervals)
    stats.wall["view"] = time.perf_counter() - t0

    # ---- recount
    say("recount", 0.0, "every vote call")
    t0 = time.perf_counter()
    # a call the alignment doubted was placed between its neighbours: a fist near that
    # guess says nothing of the call, so its cells are open, not recounted
    open_cells = with_open_calls(alignment.intervals, unseen_cells(alignment.intervals, unseen),
                                 doubted_calls(alignment), NOT_PLACED)
    open_cells = with_open_calls(alignment.intervals, open_cells,
                                 calls_outside(alignment.intervals, game.info.duration), NOT_IN_VIDEO)

    def recounted(cells) -> list[CallRecount]:
        out = recount(alignment.intervals, placements, game.replay.profile, cells)
        # the other calls were not looked at: recounting them would read "no fists"
        return [rc for rc in out if _selected(rc.key, only)] if only else out

    recounts = recounted(open_cells)
    write_recount(ws, recounts)
    ws.mark_done("recount", {"calls": len(recounts)})
    stats.wall["recount"] = time.perf_counter() - t0
    fit = measure_fit(game.protocol, alignment, recounts, only, game.info.duration, unseen=open_cells,
                      default_last=game.replay.profile.default_votes == "last_candidate")
    reopened = _reopened_calls(fit, alignment.intervals)
    if reopened:
        # where the record does not fit the recording, the fists seen are not its
        # ballots: every cell is open, not counted (nor a miscount raised from it)
        recounts = recounted(with_open_calls(alignment.intervals, open_cells, reopened, RECORD_NOT_FIT))
        write_recount(ws, recounts)

    # ---- checks
    say("checks", 0.0, "rule checks")
    t0 = time.perf_counter()
    ctx = CheckContext(game.protocol, game.replay, alignment.intervals, tracks, slack=placement_slack(alignment, None),
                       neighbours=crossing_seats(game.calibration.camera(game.cam).seats))
    # the recount's fists never seen with their thumb: what it held back, said with the rest
    unseen = list(unseen) + untimed_fists(recounts, {iv.key: iv.label for iv in alignment.intervals})
    incidents, unseen = withhold(run_checks(ctx, recounts), unseen)
    if only:
        incidents = [i for i in incidents if i.source.value != "video" or _selected(i.phase.key, only)]
    # no foul from the video where the record could not be placed (review/record_fit.py)
    incidents = fit.keep(incidents, alignment.intervals)
    write_json_atomic(ws.analysis_dir / RECORD_FIT_FILE, fit.to_json())
    stats.record_fit = fit.summary()
    if not fit.fits or fit.withheld or not fit.compared:
        stats.warnings.append(fit.message)
    incidents = with_placement(incidents, alignment, {iv.key for iv in game.timeline if iv.t0 is None})
    stats.wall["checks"] = time.perf_counter() - t0
    stats.abstentions = [a.to_json() for a in unseen]
    abstained = tuple(stats.abstentions)
    # the votes whose open cells could have decided who left (review.stakes); a vote the
    # engine cannot replay that way is a warning, not a lost analysis
    try:
        stakes = pass_stakes(game.protocol, recounts, game.replay.profile.default_votes == "last_candidate",
                             {iv.key: iv.label for iv in alignment.intervals})
    except Exception as exc:  # noqa: BLE001 - the incidents and the recount above still stand
        stakes = []
        stats.warnings.append(f"the votes with cells not judged could not be weighed ({exc!r}); "
                              "analysis/stakes.json lists none")
    write_json_atomic(ws.analysis_dir / STAKES_FILE, stakes_json(stakes))
    stats.stakes = [s.to_json() for s in stakes]
    # the recounts in hand name their eligible voters: no need to read recount.json back
    stats.coverage = of_cells(((len(rc.eligible), len(rc.unverified)) for rc in recounts), stats.abstentions)

    save_incidents(ws.incidents_path, incidents, game=_game_meta(game, stats.record_fit), abstentions=abstained)
    ws.mark_done("checks", {"incidents": len(incidents)})

    # ---- clips (evidence), then the incidents again with their evidence paths
    if tracker is not None:
        tracker.replan("clips", UNIT_COSTS["clips"] * len(incidents))
    say("clips", 0.0, f"evidence for {len(incidents)} incidents")
    t0 = time.perf_counter()
    from .clips import attach_evidence
    incidents = attach_evidence(ws, game.video, game.calibration, game.cam, incidents, say)
    save_incidents(ws.incidents_path, incidents, game=_game_meta(game, stats.record_fit), abstentions=abstained)
    ws.mark_done("clips", {"incidents": len(incidents)})
    stats.wall["clips"] = time.perf_counter() - t0
    write_json_atomic(ws.stats_path, stats.to_json())
    say("done", 1.0, f"{len(incidents)} incidents")
    return stats


def _game_meta(game: Game, fit: dict | None = None) -> dict:
    meta = dict(game.protocol.game or {})
    meta["profile"] = game.replay.profile.name
    meta["video"] = game.video.name
    if game.appearance is not None:   # additive: which seat-window model ran (review.venues)
        meta["appearance_model"] = game.appearance.to_json()
    if fit is not None:
        meta["record_fit"] = fit
    return meta


def _video_timeline(game: Game) -> list[Interval]:
    """The timeline with the camera's offset applied (protocol clock → video clock)."""
    if not game.offset:
        return list(game.timeline)
    from .align import _map_interval
    return [_map_interval(iv, lambda t: None if t is None else t + game.offset) for iv in game.timeline]


def _step_done(ws: GameWorkspace, step: str, fp: str, force: bool, stats: Stats, run) -> None:
    if not force and _is_current(ws, step, fp):
        stats.skipped.append(step)
        return
    info = run() or {}
    ws.mark_done(step, {"fingerprint": fp, **info})


def _is_current(ws: GameWorkspace, step: str, fp: str) -> bool:
    info = ws.marker_info(step)
    return bool(info and info.get("info", {}).get("fingerprint") == fp)


def seat_tracks(obs_path: Path, game: Game) -> list[Track]:
    """Per-seat states from the stored landmarks (no model re-runs), smoothed into tracks."""
    return build_tracks(*seat_frames(obs_path, game))


def seat_frames(obs_path: Path, game: Game) -> tuple[list[FrameState], dict[int, list[float]]]:
    """Per-seat, per-frame states from the stored landmarks, and the times each seat was looked at."""
    from vision.neighbour_arms import resolve
    from vision.seat_states import classify_frames
    with ObservationStore(obs_path) as db:
        frames = []
        sample_times: dict[int, list[float]] = {}
        for seat in range(1, 11):
            lms = db.seat_landmarks(seat, cam=game.cam)
            sample_times[seat] = [lm.t for lm in lms]
            frames.extend(classify_frames(lms, game.calibration, game.cam))
    # a touch read while a neighbour's own arm crossed the window is not the seat's to answer for
    return resolve(frames, game.calibration.camera(game.cam).seats), sample_times


def view_abstentions(obs_path: Path, game: Game, frames: Sequence[FrameState], tracks: Sequence[Track],
                     intervals: Sequence[Interval]) -> list[Abstention]:
    """Where each seat's windows could not be judged (vision.view_quality), per
    scheduled interval (review.view); `tracks` the frames' tracks, whose fists the recount counts."""
    from vision.view_quality import Blind, seat_views
    with ObservationStore(obs_path) as db:
        views = seat_views(db.window_features(cam=game.cam), frames, tracks=tracks)
    # seats proposed from the recording that the frames did not confirm (review.view), and
    # the seats the venue's model did not learn, as the model that ran recorded them (review.learn)
    doubts = placement_doubts(game.calibration.camera(game.cam).seats)
    ran = read_json(game.ws.appearance_model_path) or {}
    for w, seats in (ran.get("set_aside") or {}).items():
        for s in seats:
            doubts.setdefault((int(s), str(w)), Blind.UNLEARNED)
    return abstentions(intervals, views, doubts=doubts)


# an unread zone starting within this of a fist's last sighting continues it (a
# vote-rate frame step and its jitter)
UNREAD_AFTER_FIST = 0.45


def fist_placements(tracks: Sequence[Track]) -> dict[int, list[Placement]]:
    """Each seat's fists on the table. A fist whose zone turns unread right after its
    last sighting (the window still sees a vote, no hand confirms it) may have stayed
    there: its lift is known only to lie between that sighting and the unread
    stretch's end (`Placement.lift_unseen_until`), so no early lift is claimed from it
    (measured on fresh seed 2301: a thumb-up held to "Thank you" lost by the hand
    model 0.6 s before, read as lifted early)."""
    unread: dict[int, list[Track]] = {}
    for tr in tracks:
        if tr.state is Observed.ZONE_UNREAD:
            unread.setdefault(tr.seat, []).append(tr)
    out: dict[int, list[Placement]] = {}
    for tr in tracks:
        if tr.state is Observed.FIST_ON_TABLE:
            hidden = [u.t1 for u in unread.get(tr.seat, ()) if tr.t1 <= u.t0 <= tr.t1 + UNREAD_AFTER_FIST]
            out.setdefault(tr.seat, []).append(Placement(tr.seat, tr.t0, tr.t1, tr.value or "thumb_up", tr.confidence,
                                                         lift_unseen_until=max(hidden, default=None),
                                                         t_form=tr.t_value))
    return out


def write_recount(ws: GameWorkspace, recounts: Sequence[CallRecount]) -> None:
    """analysis/recount.json in the documented format (review/recount_file.py): passes are 1-based there."""
    from .recount_file import VoteCall, VoterRecord, save_recount
    calls = []
    for rc in recounts:
        voters = tuple(VoterRecord(v.seat, v.t_place, v.t_lift, v.form or "unknown", v.counted, v.reason,
                                   v.confidence, v.timing, v.lift_timing) for v in rc.voters)
        calls.append(VoteCall(round=rc.round, pass_=rc.pass_index + 1, candidate=rc.candidate, t_call=rc.t_call,
                              t_thanks=rc.window_close, announced=rc.announced, recount=rc.recount,
                              voters=voters, defaults=tuple(rc.defaults),
                              unverified=tuple(sorted(rc.unverified.items())), announced_from=rc.announced_from))
    save_recount(ws.recount_path, calls)


def with_placement(incidents, alignment, untimed_keys: set[str]):
    """Each incident with how its phase was placed on the video clock: `placement`
    {inferred, anchored_by, confidence}. Inferred: the protocol gave no time for the
    phase (its key is in `untimed_keys`), so the alignment placed it from what it
    heard and saw (or only from the order of events), with that confidence."""
    from dataclasses import replace as _replace
    by_key = {p.interval.key: p for p in alignment.placements}
    out = []
    for inc in incidents:
        p = by_key.get(inc.phase.key)
        if p is None:
            p = next((q for k, q in by_key.items() if inc.phase.key.startswith(k + ".")), None)
        if p is None:
            out.append(inc)
            continue
        inferred = p.interval.key in untimed_keys and p.anchored_by != "manual"
        out.append(_replace(inc, placement={"inferred": inferred, "anchored_by": p.anchored_by,
                                            "confidence": round(float(p.confidence), 3)}))
    return out


# how far a placement may be off, by what placed it (seconds either side; review/plan.py)
PLACEMENT_SLACK = {"interpolated": 6.0, "video": 1.5}
# the kinds whose dense frames reach that far (review/plan.py)
DENSE_SLACK_KINDS = frozenset({"vote_call", "raise_vote", "don_check", "sheriff_check", "shooting", "masking",
                               "guess"})


def doubted_calls(alignment) -> list[str]:
    """The vote calls the alignment doubted (review.align.doubtful) and placed only
    between their neighbours."""
    return [p.interval.key for p in alignment.placements
            if p.anchored_by == "interpolated" and f"vote_call:{p.interval.key}" in alignment.doubts]


def placement_slack(alignment, kinds: frozenset[str] | None = DENSE_SLACK_KINDS) -> dict[str, float]:
    """Interval key -> how far its placement may be off: a call placed between its
    neighbours (no call heard, no fists in the first pass) or from the picture alone may
    be seconds off. `kinds` (interval kinds; None: all): by default those whose dense
    frames get that slack, so the frames that decide its votes are not missed; the rule
    checks widen every permit by it (review.checks._permitted)."""
    return {p.interval.key: PLACEMENT_SLACK[p.anchored_by] for p in alignment.placements
            if p.anchored_by in PLACEMENT_SLACK and (kinds is None or p.interval.kind.value in kinds)}

"""`mafvar learn`: a venue's seat windows fine-tuned on its judges' decisions.

For every game of the venue (a game whose analysis ran with `--venue NAME`,
`analysis/appearance_model.json`): the current decisions, vote
verifications and frame answers of its `review.db` become labelled seat
windows (review.lessons), with the sure, unremarkable frames of the same
game as the venue's everyday look; their descriptors are read from the
video exactly as the extraction reads them (vision.window_samples); each
window is fine-tuned from the committed model with the committed training
set's compact sample in the mix (vision.training.venue_fit, vision.replay);
the result is written as the venue's next version (review.venues), with
its training report and its examples, and made current. The committed model
is never written.

Everything is rebuilt from the current decisions at every run: a decision
that a later one superseded teaches nothing any more.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from vision.appearance import WINDOWS, WindowModel, committed_models
from vision.calibration import load_calibration
from vision.replay import REPLAY_PATH, load_replay_sample
from vision.store import ObservationStore
from vision.training.venue_fit import Examples, agreement, fine_tune
from vision.window_samples import window_descriptors

from . import venues
from .audit import AuditError, find_games
from .incidents import IncidentFormatError, load_incidents
from .lessons import (UNJUDGED, Lesson, busy_spans, confident_lessons, from_answer, from_decision,
                      from_verification)
from .recount_file import RecountFormatError, load_recount
from .venues import VenueError, read_json
from .view import DEFAULT as JUDGING
from .workspace import GameWorkspace, WorkspaceError, is_game_dir

LEARN_FORMAT = "mafvar-learn"
LEARN_VERSION = 1
REPORT_FORMAT = "mafvar-venue-training"
REPORT_VERSION = 1
MIN_EXAMPLES = 6          # a window with fewer venue examples keeps the committed weights
# A window whose fine-tuned weights read fewer than this share of its held-out judged
# examples right keeps the committed weights: the view checks (review.view) hold a
# window only to the game's baseline (no fist outside votes), so a venue window that
# reads the baseline right but misses real fists would be believed and count them as
# "no vote". (Venue eval-g7111 v1, seeds 7111/7112, had 6 of 20 judged cells wrong: found
# later to be the alignment, which placed the revote's first "Thank you" at its call.)
MIN_HELD_OUT = 0.95
# The held-out figure is a cross-validation over HELD_OUT_EVERY folds: each vote call (from
# its call to a second after its "Thank you", all its cells together) is one group, dealt to
# the folds in turn, and the rest of the game in 5 s blocks likewise; each fold is read by
# weights fine-tuned on the others, and the judged examples of all folds are pooled. The
# next game of a venue brings new calls of the same seats, which is what a held-out call is.
# A single held-out fold of 20 s blocks (the first version) held out most of a game's vote
# calls and trained on the rest: 0.80 and 0.89 on venues 7101 and 7111, while weights
# fine-tuned on all of 7101 or 7111 read the judged examples of the next game (7102, 7112)
# 0.949 and 0.986 right. Folds of 5 s blocks by number modulo 4 put both of a seat's
# votes in one fold when the revote repeats the first pass 16-20 s later (seat 5 of 7101).
HELD_OUT_EVERY = 4
BLOCK_S = 5.0
CALL_MARGIN = 1.0         # seconds after "Thank you" that still belong to the call's group
# Windows read for learning in variants (vision.window_samples.variant_descriptors: the box
# shifted, the light changed), so that one game's examples teach the venue, not that game
VARIED_WINDOWS = ("zone",)

Say = Callable[[str], None]


class LearnError(Exception):
    """Learning cannot start or finish; the message says what and where."""


@dataclass
class GameLessons:
    game: Path
    lessons: list[Lesson] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    judged: int = 0           # lessons from people (decisions, verifications, answers)
    calls: list[tuple[float, float]] = field(default_factory=list)   # (call, "Thank you") of its vote calls


def games_folder(folder: str | Path) -> Path:
    """The folder whose venues/ a learn writes: FOLDER, or the one holding it when FOLDER is a game."""
    root = Path(folder).expanduser().resolve()
    return root.parent if is_game_dir(root) else root


def venue_games(folder: str | Path, name: str) -> list[Path]:
    """The games in `folder` whose analysis ran for venue `name`."""
    try:
        games = find_games(folder)
    except AuditError as exc:
        raise LearnError(str(exc)) from None
    out = []
    for g in games:
        doc = read_json(GameWorkspace(g).appearance_model_path)
        if doc and doc.get("venue") == name:
            out.append(g)
    return out


def game_lessons(game_dir: Path, *, confident: bool = True) -> GameLessons:
    """Every lesson of one game: its people's current acts, then its unremarkable frames."""
    from .store import ReviewStore, ReviewStoreError
    ws = GameWorkspace(game_dir)
    out = GameLessons(Path(game_dir))
    if not ws.review_db_path.is_file():
        out.skipped.append(f"{ws.root.name}: no review.db (nobody decided anything here yet)")
        return out
    try:
        incidents = load_incidents(ws.incidents_path)
        recount = load_recount(ws.recount_path) if ws.recount_path.is_file() else None
    except (OSError, IncidentFormatError, RecountFormatError) as exc:
        raise LearnError(f"{ws.root}: the analysis cannot be read ({exc}); run `mafvar analyze` again") from None
    try:
        with ReviewStore.open(ws.review_db_path) as store:
            decisions = store.current_decisions()
            verifications = store.current_verifications()
            answers = store.current_frame_answers()
    except ReviewStoreError as exc:
        raise LearnError(str(exc)) from None
    by_id = incidents.by_id()
    for inc_id, dec in decisions.items():
        inc = by_id.get(inc_id)
        if inc is None:
            out.skipped.append(f"{ws.root.name}: decision {dec.id} is on incident {inc_id}, which the "
                               "current analysis no longer reports")
            continue
        out.lessons.extend(from_decision(inc, dec))
    calls = {(c.round, c.pass_, c.candidate): c for c in (recount.calls if recount else ())}
    out.calls = sorted((float(c.t_call), float(c.t_thanks)) for c in calls.values()
                       if c.t_call is not None and c.t_thanks is not None)
    for ver in verifications:
        call = calls.get((ver.round, ver.pass_, ver.candidate))
        if call is None:
            out.skipped.append(f"{ws.root.name}: vote verification {ver.id} is of a call the recount "
                               "no longer has")
            continue
        out.lessons.extend(from_verification(call, ver))
    for ans in answers:
        out.lessons.extend(from_answer(ans))
    out.judged = len(out.lessons)
    if confident and out.judged and ws.observations_path.is_file() and ws.alignment_path.is_file():
        doc = read_json(ws.alignment_path) or {}
        cam = next(iter(load_calibration(ws.calibration_path).cameras))
        with ObservationStore(ws.observations_path) as db:
            feats = list(db.window_features(cam=cam))
        out.lessons.extend(confident_lessons(feats, doc.get("intervals", []),
                                             busy_spans(incidents.incidents, out.lessons),
                                             misread=misread_windows(incidents.abstentions)))
    game = ws.root.name
    out.lessons = [Lesson(ls.t, ls.seat, ls.window, ls.label, ls.negative, ls.source, ls.ref, ls.reviewer, game)
                   for ls in out.lessons]
    return out


def misread_windows(abstentions) -> set[tuple[int, str]]:
    """(seat, window) pairs the analysis did not believe all game because the window
    contradicted the baseline (review.view: implausible, or the venue misread)."""
    return {(int(a["seat"]), str(a["window"])) for a in abstentions
            if {"implausible", "venue"} & set(a.get("why", ()))}


def describe_lessons(gl: GameLessons) -> tuple[list[Lesson], list[np.ndarray], list[str]]:
    """The lessons whose seat windows the video gives, with their descriptors."""
    ws = GameWorkspace(gl.game)
    try:
        video = ws.require_videos()[0]
        cal = load_calibration(ws.calibration_path)
    except (WorkspaceError, OSError, ValueError) as exc:
        raise LearnError(f"{gl.game}: {exc}") from None
    cam = next(iter(cal.cameras))
    found, warnings = window_descriptors(video, cal, cam, sorted({ls.want for ls in gl.lessons}),
                                         variants=VARIED_WINDOWS)
    kept = [ls for ls in gl.lessons if ls.want in found]
    return kept, [found[ls.want] for ls in kept], warnings


def _examples(model: WindowModel, lessons: Sequence[Lesson], xs: Sequence[np.ndarray],
              variants: bool = True) -> Examples:
    """One row per lesson, or per variant of a lesson read in variants (each with the
    lesson's weight); `variants` False: the unchanged descriptor only."""
    index = {c: i for i, c in enumerate(model.classes)}
    rows = [(ls, np.atleast_2d(x) if variants else np.atleast_2d(x)[:1]) for ls, x in zip(lessons, xs)
            if ls.label in index]
    if not rows:
        return Examples.empty(len(model.mean))
    return Examples(np.concatenate([x for _, x in rows]).astype(np.float32),
                    np.concatenate([np.full(len(x), index[ls.label], int) for ls, x in rows]),
                    np.concatenate([np.full(len(x), ls.negative, bool) for ls, x in rows]),
                    np.concatenate([np.full(len(x), ls.weight, np.float32) for ls, x in rows]))


Folds = Callable[[Lesson], int]


def call_folds(calls: Mapping[str, Sequence[tuple[float, float]]]) -> Folds:
    """A lesson's cross-validation fold: its game's vote call (call to "Thank you" +
    CALL_MARGIN) when it lies in one, the calls of each game dealt to the folds in turn;
    else its 5 s block's, dealt likewise (`calls`: game name -> its calls' spans)."""
    def fold(ls: Lesson) -> int:
        spans = calls.get(ls.game, ())
        i = next((i for i, (a, b) in enumerate(spans) if a <= ls.t <= b + CALL_MARGIN), None)
        return i % HELD_OUT_EVERY if i is not None else int(ls.t // BLOCK_S) % HELD_OUT_EVERY
    return fold


def _cross_validated(base: WindowModel, rx: np.ndarray, ry: np.ndarray,
                     rows: Sequence[tuple[Lesson, np.ndarray]], seed: int,
                     folds: Folds | None = None) -> dict[str, Any] | None:
    """Every fold's examples read by weights fine-tuned on the other folds, pooled: the
    share read right over all of them and over the judged ones (people's acts), before
    (the committed weights) and after. None when no fold can be held out."""
    right_after: list[np.ndarray] = []
    right_before: list[np.ndarray] = []
    judged: list[np.ndarray] = []
    seats: list[np.ndarray] = []
    fold = folds or call_folds({})
    n = 0
    for k in sorted({fold(ls) for ls, _ in rows}):
        train = [r for r in rows if fold(r[0]) != k]
        held = [r for r in rows if fold(r[0]) == k]
        ex_train = _examples(base, [r[0] for r in train], [r[1] for r in train])
        ex_held = _examples(base, [r[0] for r in held], [r[1] for r in held], variants=False)
        if not len(ex_held) or len(train) < MIN_EXAMPLES:
            continue
        trial = fine_tune(base, rx, ry, ex_train, seed=seed)
        right_after.append(_right(trial, ex_held))
        right_before.append(_right(base, ex_held))
        judged.append(np.array([ls.source not in UNJUDGED for ls, _ in held
                                if ls.label in base.classes], bool))
        seats.append(np.array([ls.seat for ls, _ in held if ls.label in base.classes], int))
        n += 1
    if not n:
        return None
    after, before, j = np.concatenate(right_after), np.concatenate(right_before), np.concatenate(judged)
    seat = np.concatenate(seats)
    return {"examples": int(len(after)), "before": _r(float(before.mean())), "after": _r(float(after.mean())),
            "folds": n, "judged": int(j.sum()),
            "judged_before": _r(float(before[j].mean())) if j.any() else None,
            "judged_after": _r(float(after[j].mean())) if j.any() else None,
            "per_seat": {int(s): [int(after[j & (seat == s)].sum()), int((j & (seat == s)).sum())]
                         for s in sorted(set(seat[j].tolist()))}}


def set_aside(per_seat: dict[int, list[int]]) -> list[int]:
    """The seats with at least MIN_EXAMPLES held-out judged examples read under
    MIN_HELD_OUT right: the venue's window is not believed there (review.view `unlearned`)."""
    return [s for s, (ok, n) in sorted(per_seat.items()) if n >= MIN_EXAMPLES and ok / n < MIN_HELD_OUT]


def _right(model: WindowModel, ex: Examples) -> np.ndarray:
    best = model.proba(ex.x).argmax(axis=1)
    return np.where(ex.negative, best != ex.target, best == ex.target)


def _replay_accuracy(model: WindowModel, x: np.ndarray, y: np.ndarray) -> float | None:
    if not len(y):
        return None
    return round(float((np.array(model.classes)[model.proba(x).argmax(axis=1)] == y).mean()), 4)


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


def learn(folder: str | Path, name: str, *, games: Sequence[str | Path] | None = None,
          say: Say | None = None, seed: int = 0) -> dict[str, Any]:
    """Fine-tune, write and make current the venue's next version; returns the
    `mafvar learn --json` document (format mafvar-learn v1)."""
    say = say or (lambda msg: None)
    started = time.perf_counter()
    cpu0 = _cpu()
    try:
        venues.check_name(name)
    except VenueError as exc:
        raise LearnError(str(exc)) from None
    root = games_folder(folder)
    dirs = [Path(g).resolve() for g in games] if games else venue_games(folder, name)
    if not dirs:
        raise LearnError(f"no game in {folder} was analysed for venue {name}: run "
                         f"`mafvar analyze GAME --venue {name}` on the venue's games, decide their "
                         "incidents and verify their votes, then learn")
    base = committed_models()
    if not base:
        raise LearnError("no committed seat-window model to start from (vision/models/appearance.json)")
    try:
        replay = load_replay_sample(REPLAY_PATH)
    except ValueError as exc:
        raise LearnError(str(exc)) from None
    timing: dict[str, float] = {}
    lessons: list[Lesson] = []
    xs: list[np.ndarray] = []
    skipped: list[str] = []
    warnings: list[str] = []
    per_game: dict[str, dict[str, int]] = {}
    calls: dict[str, list[tuple[float, float]]] = {}
    for g in dirs:
        t0 = time.perf_counter()
        say(f"{g.name}: collecting what the judges decided")
        gl = game_lessons(g)
        calls[g.name] = gl.calls
        skipped.extend(gl.skipped)
        if not gl.judged:
            per_game[g.name] = {"judged": 0, "confident": 0, "read": 0}
            continue
        say(f"{g.name}: reading {len({ls.want for ls in gl.lessons})} seat windows from the video")
        kept, found, warns = describe_lessons(gl)
        warnings.extend(warns)
        lessons.extend(kept)
        xs.extend(found)
        per_game[g.name] = {"judged": gl.judged, "confident": len(gl.lessons) - gl.judged, "read": len(kept)}
        timing[f"read:{g.name}"] = round(time.perf_counter() - t0, 2)
    if not any(ls.source not in UNJUDGED for ls in lessons):
        raise LearnError(f"nothing to learn for venue {name}: no decided incident, verified vote cell or "
                         f"answered frame in {', '.join(d.name for d in dirs)}")
    t0 = time.perf_counter()
    models: dict[str, WindowModel] = {}
    fit: dict[str, Any] = {}
    aside_by: dict[str, list[int]] = {}
    for kind in WINDOWS:
        if kind not in base:
            continue
        rows = [(ls, x) for ls, x in zip(lessons, xs) if ls.window == kind]
        ex_all = _examples(base[kind], [r[0] for r in rows], [r[1] for r in rows])
        ex_once = _examples(base[kind], [r[0] for r in rows], [r[1] for r in rows], variants=False)
        rx, ry = replay.x.get(kind, np.zeros((0, len(base[kind].mean)), np.float32)), replay.y.get(kind, np.zeros(0, str))
        info: dict[str, Any] = {"examples": len(ex_once), "judged": sum(1 for ls, _ in rows if ls.source not in UNJUDGED),
                                "replay": int(len(ry)), "agreement_before": _r(agreement(base[kind], ex_once)),
                                "replay_accuracy_before": _replay_accuracy(base[kind], rx, ry)}
        if len(ex_all) > len(ex_once):
            info["variants"] = len(ex_all)
        if len(ex_once) < MIN_EXAMPLES:
            models[kind] = base[kind]
            info["kept_committed"] = f"fewer than {MIN_EXAMPLES} examples"
            fit[kind] = info
            continue
        say(f"cross-validating the {kind} window's fine-tuning ({HELD_OUT_EVERY} folds of vote calls and "
            f"{BLOCK_S:.0f} s blocks)")
        held = _cross_validated(base[kind], rx, ry, rows, seed, call_folds(calls))
        if held is not None:
            info["held_out"] = held
            score = held["judged_after"] if held["judged"] >= MIN_EXAMPLES else held["after"]
            aside = set_aside(held["per_seat"]) if held["judged"] >= MIN_EXAMPLES else []
            rest = [v for s, v in held["per_seat"].items() if s not in aside]
            if aside and len(aside) < JUDGING.max_misread_seats and sum(n for _, n in rest) >= MIN_EXAMPLES:
                # a seat or two the window did not learn are set aside, the others judged on their
                # own; as many as the view check calls a misread venue (review.view) are not
                score = sum(ok for ok, _ in rest) / sum(n for _, n in rest)
                info["set_aside"] = {"seats": aside, "judged_after_others": _r(score)}
                aside_by[kind] = aside
            if held["examples"] >= MIN_EXAMPLES and score is not None and score < MIN_HELD_OUT:
                aside_by.pop(kind, None)
                info.pop("set_aside", None)
                models[kind] = base[kind]
                info["kept_committed"] = (f"held-out agreement {score:.2f} under {MIN_HELD_OUT}: the venue's "
                                          "judged examples are not read right enough to believe it")
                fit[kind] = info
                continue
        say(f"fine-tuning the {kind} window on {len(ex_all)} venue examples and {len(ry)} committed ones")
        models[kind] = fine_tune(base[kind], rx, ry, ex_all, seed=seed)
        info["agreement_after"] = _r(agreement(models[kind], ex_once))
        info["replay_accuracy_after"] = _replay_accuracy(models[kind], rx, ry)
        fit[kind] = info
    timing["fit"] = round(time.perf_counter() - t0, 2)
    counts: dict[str, dict[str, int]] = {}
    for ls in lessons:
        key = ("!" if ls.negative else "") + ls.label
        counts.setdefault(ls.window, {}).setdefault(key, 0)
        counts[ls.window][key] += 1
    sources: dict[str, int] = {}
    for ls in lessons:
        sources[ls.source] = sources.get(ls.source, 0) + 1
    vdir = venues.next_version_dir(root, name)
    vdir.mkdir(parents=True, exist_ok=True)
    _save_examples(vdir / venues.EXAMPLES_FILE, lessons, xs)
    wall = round(time.perf_counter() - started, 2)
    report = {"format": REPORT_FORMAT, "version": REPORT_VERSION, "venue": name,
              "created_at": datetime.now(timezone.utc).isoformat(),
              "base": {"model": venues.COMMITTED, "sha256": venues.committed_choice().sha256},
              "replay": {"path": str(REPLAY_PATH.name), "counts": replay.counts()},
              "games": [d.name for d in dirs], "per_game": per_game,
              "examples": {"total": len(lessons), "per_window": counts, "per_source": sources},
              "provenance": _provenance(lessons), "skipped": skipped, "warnings": warnings,
              "fit": fit, "seconds": {**timing, "wall": wall, "cpu": round(_cpu() - cpu0, 2)}}
    n = venues.add_version(root, name, models, report,
                           {"trained_on": {"venue": name, "games": [d.name for d in dirs]},
                            "held_out": {k: v.get("held_out") for k, v in fit.items()},
                            "set_aside": aside_by})
    cpu = round(_cpu() - cpu0, 2)
    return {"format": LEARN_FORMAT, "version": LEARN_VERSION, "action": "learn", "folder": str(root),
            "venue": name, "model_version": n, "current": n,
            "model": str(venues.version_dir(root, name, n) / venues.MODEL_FILE),
            "report": str(venues.version_dir(root, name, n) / venues.REPORT_FILE),
            "games": [d.name for d in dirs], "examples": report["examples"], "fit": fit,
            "skipped": skipped, "warnings": warnings,
            "seconds": {"wall": round(time.perf_counter() - started, 2), "cpu": cpu}}


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the FFmpeg decoders)."""
    import resource
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def _provenance(lessons: Sequence[Lesson]) -> list[dict[str, Any]]:
    """Per game and human act (decision, verification, answer): who, and how many windows it labelled."""
    acts: dict[tuple[str, str, str], dict[str, Any]] = {}
    for ls in lessons:
        if ls.source in UNJUDGED:
            continue
        key = (ls.game, ls.source, ls.ref)
        entry = acts.setdefault(key, {"game": ls.game, "source": ls.source, "id": int(ls.ref),
                                      "reviewer": ls.reviewer, "windows": 0})
        entry["windows"] += 1
    return sorted(acts.values(), key=lambda d: (d["game"], d["source"], d["id"]))


def _save_examples(path: Path, lessons: Sequence[Lesson], xs: Sequence[np.ndarray]) -> None:
    """The examples a version was trained on: per window the descriptors, and one
    JSON row of provenance per descriptor (game, source, id, reviewer, time, seat, label)."""
    import json
    arrays: dict[str, np.ndarray] = {}
    for kind in WINDOWS:
        idx = [i for i, ls in enumerate(lessons) if ls.window == kind]
        if idx:
            # the unchanged descriptor of each (its variants are read again from the video)
            arrays[f"{kind}_x"] = np.stack([np.atleast_2d(xs[i])[0] for i in idx]).astype(np.float16)
            arrays[f"{kind}_lessons"] = np.array(json.dumps([lessons[i].to_json() for i in idx]))
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def load_examples(path: str | Path) -> dict[str, tuple[np.ndarray, list[dict]]]:
    """window -> (descriptors, provenance rows) of a version's examples.npz."""
    import json
    out = {}
    with np.load(path, allow_pickle=False) as z:
        for kind in WINDOWS:
            if f"{kind}_x" in z:
                out[kind] = (z[f"{kind}_x"].astype(np.float32), json.loads(str(z[f"{kind}_lessons"])))
    return out


def rollback(folder: str | Path, name: str, to: int | None = None) -> dict[str, Any]:
    root = games_folder(folder)
    try:
        before, after = venues.rollback(root, name, to)
    except VenueError as exc:
        raise LearnError(str(exc)) from None
    return {"format": LEARN_FORMAT, "version": LEARN_VERSION, "action": "rollback", "folder": str(root),
            "venue": name, "from": before, "current": after,
            "model": venues.COMMITTED if after == 0 else str(venues.version_dir(root, name, after) / venues.MODEL_FILE)}


__all__ = ["LearnError", "GameLessons", "games_folder", "venue_games", "game_lessons", "describe_lessons",
           "learn", "rollback", "load_examples", "LEARN_FORMAT", "REPORT_FORMAT"]

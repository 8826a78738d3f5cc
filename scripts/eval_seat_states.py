"""Per-seat state accuracy of vision.seat_states against a synth game's truth.

    .venv/bin/python scripts/eval_seat_states.py GAME_DIR [--workers 2] [--json OUT]

GAME_DIR is a `mafvar synth` folder (truth.json, calibration.json, video.mp4).
Landmarks come from GAME_DIR/analysis/observations.sqlite when it holds
frames with pixel features; otherwise the frames around the truth's votes,
nightfalls, mask lifts and other states are extracted from video.mp4 into
GAME_DIR/analysis/seat_states_eval.sqlite first (resumable). Without a
video (`mafvar synth --no-video`, fast) those frames are rendered straight
from the game's seed into GAME_DIR/analysis/seat_states_render.sqlite.

Prints, per state, frame-level precision/recall (frames within TRANSITION s
of a truth boundary are skipped: the actor is between poses), the mask
accuracy (issue 4 asks >= 97%) and vote-fist detection per (seat, vote)
(recall and precision >= 98%).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.calibration import load_calibration  # noqa: E402
from vision.schedule import Schedule, ScheduleRange, extract  # noqa: E402
from vision.seat_states import classify_frames  # noqa: E402
from vision.store import ObservationStore  # noqa: E402
from vision.tracks import build_tracks  # noqa: E402

TRANSITION = 0.6     # the renderer eases moves over 0.45 s
CAM = "cam1"

# which truth (layer, state) each vision state stands for
TRUTH_OF = {
    "head_down": {("body", "night_pose")},
    "arms_crossed": {("body", "night_pose")},
    "hand_raised": {("body", "hand_raised"), ("body", "shot")},
    "shot": {("body", "shot")},
    "fingers_shown": {("body", "show_fingers")},
    "touch": {("body", "touch_neighbour")},
    "standing": {("body", "standing")},
    "seat_empty": {("body", "absent")},
    "hand_at_mask": {("body", "hand_to_mask")},
}


def load_truth(game: Path) -> dict:
    doc = json.loads((game / "truth.json").read_text())
    if doc.get("format") != "mafvar-truth":
        raise SystemExit(f"{game}/truth.json is not a mafvar-truth document")
    return doc


def truth_schedule(truth: dict, duration: float, vote_fps: float = 5.0, night_fps: float = 2.0,
                   day_fps: float = 0.5) -> Schedule:
    """The seconds where the truth has something to check, at the densities
    the review pipeline uses (tracking mode needs >= 2 fps)."""
    ranges = [ScheduleRange(0.0, duration, day_fps, None, "day")]
    for v in truth["votes"]:
        ranges.append(ScheduleRange(max(0.0, v["t_place"] - 1.5), min(duration, v["t_lift"] + 1.0),
                                    vote_fps, None, "vote"))
    for n in truth["phases"]["nights"]:
        end = n["morning"] if n["morning"] is not None else duration
        ranges.append(ScheduleRange(max(0.0, n["nightfall"] - 1.0), min(duration, end + 3.0),
                                    night_fps, None, "night"))
    for s in truth["seat_states"]:
        if s["state"] in ("mask_lifted", "shot", "show_fingers", "touch_neighbour", "hand_raised",
                          "standing", "hand_to_mask"):
            ranges.append(ScheduleRange(max(0.0, s["t0"] - 1.0), min(duration, s["t1"] + 1.0),
                                        night_fps, None, s["state"]))
    return Schedule(tuple(r for r in ranges if r.t1 > r.t0)).merged()


def _store_has_features(path: Path) -> bool:
    if not path.exists():
        return False
    with ObservationStore(path) as db:
        row = db.db.execute("SELECT data FROM landmarks WHERE model='pose' LIMIT 50").fetchall()
    return any('"features"' in r[0] for r in row)


def synth_options(truth: dict):
    """The SynthOptions the truth was made with (to render its frames again)."""
    from sample_videos.synth import SynthOptions
    o = dict(truth.get("options") or {})
    if o.get("protocol") is not None:
        raise SystemExit("this game acts a given protocol: render its video with `mafvar synth` first")
    o.pop("protocol", None)
    if o.get("inject") is not None:
        o["inject"] = tuple(o["inject"])
    return SynthOptions(**o)


def _render_chunk(args: tuple[dict, list[float]]) -> list[tuple[float, tuple[int, int], list[dict]]]:
    """Render frames of the truth's game and run the landmark models on each
    seat crop, as the extraction worker does on decoded frames."""
    truth, times = args
    from sample_videos.director.script import build_scripts
    from sample_videos.render.renderer import render_frame
    from sample_videos.synth import build_game, build_scene, calibration
    from vision.calibration import Calibration
    from vision.crops import seat_crop
    from vision.landmarks import SeatLandmarker
    opts = synth_options(truth)
    game = build_game(opts)
    scene = build_scene(opts)
    cam = Calibration.from_json(calibration(scene, opts)).camera(CAM)
    scripts = build_scripts(game.plan)
    out = []
    with SeatLandmarker(tracking=False) as lmk:
        for t in times:
            frame = render_frame(scene, scripts, t)
            rows = [lmk.process(seat_crop(frame, r), s, t).to_json() for s, r in sorted(cam.seats.items())]
            out.append((t, (frame.shape[1], frame.shape[0]), rows))
    return out


def render_store(game: Path, workers: int) -> Path:
    """No video: render the scheduled frames straight from the synth game
    (same pixels as its video before encoding) into an observation store."""
    import multiprocessing as mp
    from vision.landmarks import SeatLandmarks
    truth = load_truth(game)
    from sample_videos.synth import build_game
    if build_game(synth_options(truth)).truth["seat_states"] != truth["seat_states"]:
        raise SystemExit(f"{game}/truth.json is not what this version of the synth makes for its "
                         f"seed: make the game again (`mafvar synth --no-video`) or render its video")
    path = game / "analysis" / "seat_states_render.sqlite"
    sched = truth_schedule(truth, truth["duration"], vote_fps=4.0, night_fps=1.0, day_fps=0.25)
    times = sorted({round(float(t), 3) for r in sched.ranges for t in r.times()})
    with ObservationStore(path) as db:
        done = set(round(t, 3) for t in db.frame_times(CAM))
        todo = [t for t in times if t not in done]
        print(f"rendering {len(todo)} of {len(times)} frames (the rest are stored)", file=sys.stderr)
        chunks = [(truth, todo[k:k + 10]) for k in range(0, len(todo), 10)]
        started = time.perf_counter()
        pool = mp.get_context("spawn").Pool(workers) if workers > 1 and len(chunks) > 1 else None
        results = pool.imap_unordered(_render_chunk, chunks) if pool else map(_render_chunk, chunks)
        n = 0
        for res in results:
            for t, size, rows in res:
                db.add_frame_results(CAM, t, size, [SeatLandmarks.from_json(r) for r in rows], commit=False)
            db.db.commit()
            n += len(res)
            print(f"  {n}/{len(todo)} frames, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        if pool:
            pool.close()
            pool.join()
    return path


def landmarks_store(game: Path, workers: int) -> Path:
    main = game / "analysis" / "observations.sqlite"
    if _store_has_features(main):
        return main
    if not (game / "video.mp4").exists():
        return render_store(game, workers)
    path = game / "analysis" / "seat_states_eval.sqlite"
    truth = load_truth(game)
    from vision.video import probe
    info = probe(game / "video.mp4")
    sched = truth_schedule(truth, info.duration)
    cal = load_calibration(game / "calibration.json")
    t0 = time.perf_counter()
    rep = extract(game / "video.mp4", cal, sched, path, cam=CAM, workers=workers,
                  progress=lambda r: print(f"  extracted [{r.chunk.t0:.1f}, {r.chunk.t1:.1f}) "
                                           f"{len(r.frames)} frames", file=sys.stderr, flush=True))
    print(f"extraction: {rep.frames} frames ({rep.chunks_skipped} chunks already done) in "
          f"{time.perf_counter() - t0:.0f} s; errors: {rep.errors or 'none'}", file=sys.stderr)
    return path


def truth_at(segs: list[dict], t: float) -> tuple[dict | None, float]:
    """The segment covering t and the distance from t to its nearest boundary."""
    for s in segs:
        if s["t0"] <= t < s["t1"]:
            return s, min(t - s["t0"], s["t1"] - t)
    return None, 0.0


def mask_truth(seg: dict) -> set[str]:
    """Which mask answers are right: a mask lifted fully onto the forehead
    (an active night role, 'amount' 1.0) looks exactly like a mask worn on
    the forehead by day, so there either answer is right."""
    if seg["state"] == "mask_lifted" and seg.get("params", {}).get("active"):
        return {"mask_lifted", "mask_off"}
    return {seg["state"]}


def evaluate(game: Path, store_path: Path) -> dict:
    truth = load_truth(game)
    cal = load_calibration(game / "calibration.json")
    segs: dict[tuple[int, str], list[dict]] = defaultdict(list)
    for s in truth["seat_states"]:
        segs[(s["seat"], s["layer"])].append(s)
    frames, sample_times = [], {}
    with ObservationStore(store_path) as db:
        for seat in range(1, 11):
            lms = db.seat_landmarks(seat, cam=CAM)
            sample_times[seat] = [lm.t for lm in lms]
            frames.extend(classify_frames(lms, cal, CAM))
    by_seat_t: dict[tuple[int, float], dict[str, object]] = defaultdict(dict)
    for f in frames:
        cur = by_seat_t[(f.seat, f.t)].get(f.state)
        if cur is None or f.confidence > cur.confidence:
            by_seat_t[(f.seat, f.t)][f.state] = f
    tracks = build_tracks(frames, sample_times)
    report: dict = {"frames": sum(len(v) for v in sample_times.values())}

    # --- mask, frame level and track level
    mask_cm: Counter = Counter()
    right = total = right_tr = covered = 0
    for seat, times in sample_times.items():
        for t in times:
            seg, edge = truth_at(segs[(seat, "mask")], t)
            if seg is None or edge < TRANSITION:
                continue
            body, _ = truth_at(segs[(seat, "body")], t)
            if body is not None and body["state"] == "absent":
                continue            # the player has left the table: no mask to see
            ok = mask_truth(seg)
            got = [s for s in ("mask_on", "mask_off", "mask_lifted") if s in by_seat_t[(seat, t)]]
            pred = max(got, key=lambda s: by_seat_t[(seat, t)][s].confidence) if got else "none"
            tr = [k.state for k in tracks if k.seat == seat and k.state.startswith("mask")
                  and k.covers(t)]
            total += 1
            covered += pred != "none"
            right += pred in ok
            right_tr += bool(tr) and tr[0] in ok
            mask_cm[(seg["state"] + ("*" if seg.get("params", {}).get("active") else ""), pred)] += 1
    report["mask"] = {"frames": total, "frame_accuracy": _r(right, total),
                      "track_accuracy": _r(right_tr, total), "coverage": _r(covered, total),
                      "confusion": {f"{a} -> {b}": n for (a, b), n in sorted(mask_cm.items())}}

    # --- votes: (seat, vote) detection from fist_on_table tracks
    fists = [k for k in tracks if k.state == "fist_on_table"]
    looked = {(s, round(t, 3)) for s, ts in sample_times.items() for t in ts}
    votes = [v for v in truth["votes"]
             if sum((v["seat"], round(t, 3)) in looked for t in sample_times[v["seat"]]
                    if v["t_place"] + 0.3 <= t <= v["t_lift"] - 0.3) >= 3]
    hit, forms, used = 0, Counter(), set()
    # any single frame with a confident fist during the vote (before smoothing)
    frame_hit = sum(any(f.confidence >= 0.6 for (seat, t), st in by_seat_t.items()
                        if seat == v["seat"] and v["t_place"] <= t <= v["t_lift"]
                        for f in [st.get("fist_on_table")] if f is not None) for v in votes)
    for v in votes:
        m = [k for k in fists if k.seat == v["seat"] and k.overlaps(v["t_place"], v["t_lift"])]
        if m:
            hit += 1
            used.update(id(k) for k in m)
            forms[(v["form"], m[0].value or "unknown")] += 1
    vote_spans = defaultdict(list)
    for v in truth["votes"]:
        vote_spans[v["seat"]].append((v["t_place"] - 0.5, v["t_lift"] + 0.5))
    false = [k for k in fists if not any(a <= k.t1 and b >= k.t0 for a, b in vote_spans[k.seat])]
    report["votes"] = {"truth": len(votes), "detected": hit, "recall": _r(hit, len(votes)),
                       "frame_recall": _r(frame_hit, len(votes)),
                       "tracks": len(fists), "false_tracks": len(false),
                       "precision": _r(len(fists) - len(false), len(fists)),
                       "forms": {f"{a} -> {b}": n for (a, b), n in sorted(forms.items())},
                       "false": [k.to_dict() for k in false[:10]]}

    # --- other states, frame level
    states = {}
    for state, wanted in TRUTH_OF.items():
        tp = fp = fn = 0
        for seat, times in sample_times.items():
            for t in times:
                seg, edge = truth_at(segs[(seat, "body")], t)
                if seg is None or edge < TRANSITION:
                    continue
                is_true = (seg["layer"], seg["state"]) in wanted
                said = state in by_seat_t[(seat, t)]
                tp += is_true and said
                fp += said and not is_true
                fn += is_true and not said
        states[state] = {"tp": tp, "fp": fp, "fn": fn, "precision": _r(tp, tp + fp),
                         "recall": _r(tp, tp + fn)}
    report["states"] = states
    return report


def _r(a: int, b: int) -> float | None:
    return None if b == 0 else round(a / b, 4)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("game", type=Path)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--store", type=Path, help="use this observation store instead")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    for name in ("truth.json", "calibration.json"):
        if not (args.game / name).exists():
            print(f"{args.game}: no {name} (make one with `mafvar synth`)", file=sys.stderr)
            return 2
    store = args.store or landmarks_store(args.game, args.workers)
    rep = evaluate(args.game, store)
    m, v = rep["mask"], rep["votes"]
    print(f"seat-frames analysed: {rep['frames']}")
    print(f"mask: {m['frames']} seat-frames, accuracy {m['frame_accuracy']} per frame, "
          f"{m['track_accuracy']} after smoothing (coverage {m['coverage']})")
    for k, n in m["confusion"].items():
        print(f"    {k}: {n}")
    print(f"vote fists: recall {v['recall']} ({v['detected']}/{v['truth']}), precision {v['precision']} "
          f"({v['tracks'] - v['false_tracks']}/{v['tracks']}); seen in >= 1 frame: {v['frame_recall']}; "
          f"forms {v['forms']}")
    print(f"{'state':<14}{'precision':>10}{'recall':>8}{'tp':>6}{'fp':>6}{'fn':>6}")
    for s, r in rep["states"].items():
        print(f"{s:<14}{str(r['precision']):>10}{str(r['recall']):>8}{r['tp']:>6}{r['fp']:>6}{r['fn']:>6}")
    if args.json:
        args.json.write_text(json.dumps(rep, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

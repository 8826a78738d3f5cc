"""`mafvar analyze`, `mafvar eval` and `mafvar bench`: run and score the analysis of a game."""
from __future__ import annotations

import argparse
import json
import sys

from mafvar.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    an = subparsers.add_parser(
        "analyze", help="analyse a game folder: calibration check, extraction, alignment, recount, checks",
        description="Runs every analysis step on GAME_DIR and writes GAME_DIR/analysis/. Resumable: an "
                    "interrupted run continues where it stopped; finished steps whose inputs did not change "
                    "are skipped. Never touches protocol.json, calibration.json, the video or review.db.")
    an.add_argument("game_dir", metavar="GAME_DIR")
    _common(an)
    an.add_argument("--venue", metavar="NAME", default=None,
                    help="run the seat windows `mafvar learn` fine-tuned for this venue (its current version, "
                         "from the venues/ folder beside the game); without it, the committed model")
    an.add_argument("--json", action="store_true", help="print the run's statistics as JSON")
    an.set_defaults(handler=_analyze)

    ev = subparsers.add_parser(
        "eval", help="score analysis/ against truth.json (synthetic games)",
        description="Precision and recall per incident type, vote recount accuracy per (call, voter), "
                    "and miscounts found, against GAME_DIR/truth.json.")
    ev.add_argument("game_dir", metavar="GAME_DIR")
    ev.add_argument("--json", action="store_true")
    ev.set_defaults(handler=_eval)

    be = subparsers.add_parser(
        "bench", help="analyse a game and print throughput and per-stage costs",
        description="Runs analyze from scratch (or one phase with --phase) and prints video seconds, wall "
                    "time, the ratio, frames decoded against frames in the file, peak memory and CPU per stage.")
    be.add_argument("game_dir", metavar="GAME_DIR")
    _common(be)
    be.add_argument("--json", action="store_true")
    be.set_defaults(handler=_bench)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=2, help="processes for extraction (default 2)")
    p.add_argument("--phase", action="append", default=None, metavar="KEY",
                   help="analyse only this timeline key, e.g. r2.vote or r1.night (repeatable)")
    p.add_argument("--anchor", action="append", default=[], metavar="KEY=SECONDS",
                   help="pin a timeline key to a video time, e.g. r2.night=2472 (repeatable)")
    p.add_argument("--force", action="store_true", help="re-run every step")
    p.add_argument("--no-gate", dest="gate", action="store_false",
                   help="run every scheduled model on every seat-frame (the unoptimised reference; slow)")


def _anchors(items: list[str]) -> dict[str, float]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        try:
            out[key] = _seconds(value)
        except ValueError:
            raise UserError(f"--anchor {item!r}: expected KEY=SECONDS or KEY=MM:SS") from None
        if not sep or not key:
            raise UserError(f"--anchor {item!r}: expected KEY=SECONDS")
    return out


def _seconds(text: str) -> float:
    parts = [float(p) for p in text.split(":")]
    total = 0.0
    for p in parts:
        total = total * 60 + p
    return total


def _run(args, quiet: bool):
    from mafvar.terminal import ProgressLine, library_log
    from review.pipeline import AnalysisError, analyze

    with library_log(args.game_dir) as term:
        line = ProgressLine(term) if not quiet else None
        try:
            stats = analyze(args.game_dir, progress=line.show if line else None, workers=args.workers,
                            only=args.phase, anchors=_anchors(args.anchor), force=args.force, gate=args.gate,
                            venue=getattr(args, "venue", None))
        except AnalysisError as exc:
            raise UserError(str(exc)) from None
        finally:
            if line is not None:
                line.close()
    return stats


def _analyze(args) -> int:
    from review.coverage import coverage_text
    stats = _run(args, quiet=args.json)
    doc = stats.to_json()
    model = doc.get("appearance_model") or {}
    if model.get("fallback"):
        # a broken venue model: said as an error, though the analysis ran (on the committed model)
        print(f"mafvar analyze: error: {model['fallback']}", file=sys.stderr)
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    for w in doc["warnings"]:
        if w != model.get("fallback"):
            print(f"warning: {w}", file=sys.stderr)
    print(f"analysed {doc['video_s']:.0f} s of video in {doc['wall_s']:.1f} s "
          f"({doc['frames_decoded']} of {doc['frames_total']} frames decoded); results in {args.game_dir}/analysis/")
    if model.get("venue") is not None:
        from review.venues import recorded_choice
        print(f"seat windows: {recorded_choice(model)}")
    todo = doc.get("needs_anchor") or []
    if todo:
        print(f"{len(todo)} calls could not be placed within 1 s; anchor them on the app's timeline page "
              f"or with --anchor MARK=SECONDS:")
        for item in todo[:20]:
            placed = "not placed" if item["placed"] is None else f"placed at {item['placed']:.2f} s"
            print(f"  {item['anchor']}: {item['label']}, {item['what']} ({placed}; {item['reason']})")
        if len(todo) > 20:
            print(f"  ... and {len(todo) - 20} more (analyze --json: needs_anchor)")
    cov = stats.coverage
    if cov is not None and cov.cells:
        # the same words as the app's first page (review.coverage)
        print(coverage_text(cov, markdown=False))
        if doc["abstentions"]:
            print("  the seat-intervals not judged are listed in the report, the app and analysis/incidents.json "
                  "\"abstentions\" (no foul raised and no vote counted there)")
    elif doc["abstentions"]:
        print(f"could not judge {doc['seat_intervals_abstained']} seat-intervals (no foul raised and no vote "
              f"counted there; listed in the report, the app and analysis/incidents.json \"abstentions\")")
    at_stake = doc.get("counts_at_stake") or []
    if at_stake:
        # the seats to look at by hand first: their votes could have changed who left
        print(f"{len(at_stake)} votes where seats the picture could not judge could have changed who left "
              f"(analysis/stakes.json; the app's first page):")
        for item in at_stake:
            print(f"  {item['text']}")
    return 0


def _eval(args) -> int:
    from review.evaluate import EvalError, evaluate, format_eval
    try:
        res = evaluate(args.game_dir)
    except EvalError as exc:
        raise UserError(str(exc)) from None
    print(json.dumps(res, indent=1) if args.json else format_eval(res))
    return 0


def _bench(args) -> int:
    from vision.memory import PeakMemory
    args.force = True if not args.phase else args.force
    with PeakMemory() as peak:
        stats = _run(args, quiet=True)
    doc = stats.to_json()
    # the whole process tree at its peak (parent and extraction workers together)
    doc["peak_rss_mb"] = round(max(doc["peak_rss_mb"], peak.mb), 1)
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print(f"video {doc['video_s']:.1f} s, wall {doc['wall_s']:.1f} s, ratio {doc['ratio']}x real time")
    print(f"frames decoded {doc['frames_decoded']} of {doc['frames_total']} "
          f"({doc['frames_decoded'] / max(1, doc['frames_total']):.1%}); peak RSS {doc['peak_rss_mb']} MB")
    ext = sum(v for k, v in doc["stages"].items() if k.startswith("step:extract"))
    if doc["frames_analysed"] and ext:
        print(f"schedule: {doc['frames_analysed']} frames ({doc['seat_frames']} seat crops) in {ext:.1f} s of "
              f"extraction: {doc['frames_analysed'] / ext:.1f} frames/s, "
              f"{doc['frames_analysed'] / ext / max(1, args.workers):.1f} per core")
        print(f"still seats carried from their last analysed frame: {doc['seat_frames_carried']} of "
              f"{doc['seat_frames']} seat crops")
        read, recalled = (doc["model_calls"].get(k, 0) for k in ("zone_boxes_read", "zone_boxes_recalled"))
        if read + recalled:
            print(f"table-zone boxes recalled with their pixels unchanged: {recalled} of {read + recalled}")
    for k, v in doc["stages"].items():
        model = k[4:] if k.startswith("cpu:") else None
        n = doc["model_calls"].get(model) if model else None
        rate = f"   {n} crops, {n / v:.1f} crops/s per core" if n and v > 0 else ""
        print(f"  {k:<28} {v:8.2f} s{rate}")
    return 0

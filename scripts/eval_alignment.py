"""Alignment without protocol times, against a synth game's truth (issue #5).

    .venv/bin/python scripts/eval_alignment.py GAME_DIR [--keep DIR] [--mode untimed|timed|both]
                                               [--workers 2] [--json]

Copies GAME_DIR's workspace (protocol.json with every time removed, video.mp4
symlinked, calibration.json, truth.json) into a temporary folder, runs the
whole analysis there (review.pipeline.analyze: the coarse pass, the alignment
from audio cues and video marks, the rest) and prints, for every truth
nightfall, vote call and vote window edge, how far from the truth the analysis
placed it (review.evaluate.alignment_score), with the misses and the time the
analysis took. `--mode timed` scores the protocol as it is (with its times),
`both` runs the two for comparison. GAME_DIR itself is never written.

--keep DIR keeps the work folders (DIR/untimed, DIR/timed); an existing one is
resumed (the analysis skips finished steps whose inputs are unchanged).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.protocol import load_protocol  # noqa: E402
from engine.replay import replay  # noqa: E402
from review.evaluate import alignment_score, format_alignment, load_placed_intervals  # noqa: E402
from review.pipeline import analyze  # noqa: E402
from review.workspace import GameWorkspace  # noqa: E402


def is_time_field(name: str) -> bool:
    """Protocol-clock fields of an event: `t`, `t_end`, `t_call_end`, `t_call2`, `t_thanks`."""
    return name == "t" or name.startswith("t_")


def strip_times(doc: dict) -> dict:
    """The protocol without a single time (events keep their order and everything else)."""
    out = json.loads(json.dumps(doc))
    out["events"] = [{k: v for k, v in ev.items() if not is_time_field(k)} for ev in out["events"]]
    return out


def check_untimed(path: Path) -> None:
    """The stripped protocol still loads, replays without errors and has no time left."""
    proto = load_protocol(path)
    left = [(i, f.name) for i, ev in enumerate(proto.events) for f in dataclasses.fields(ev)
            if is_time_field(f.name) and getattr(ev, f.name) is not None]
    if left:
        raise SystemExit(f"{path}: times left after stripping: {left[:5]}")
    errors = [i for i in replay(proto).issues if i.severity.value == "error"]
    if errors:
        raise SystemExit(f"{path}: the untimed protocol does not replay: {errors[:3]}")


def make_workspace(game: Path, work: Path, timed: bool) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    doc = json.loads((game / "protocol.json").read_text())
    text = json.dumps(doc if timed else strip_times(doc), indent=1)
    ppath = work / "protocol.json"
    if not ppath.exists() or ppath.read_text() != text:  # rewriting would change its fingerprint
        ppath.write_text(text)
    if not timed:
        check_untimed(ppath)
    for name in ("calibration.json", "truth.json"):
        if not (work / name).exists() or (work / name).read_bytes() != (game / name).read_bytes():
            shutil.copy2(game / name, work / name)
    for video in GameWorkspace(game).videos():
        link = work / video.name
        if not link.exists():
            link.symlink_to(video.resolve())
    return work


def run(game: Path, work: Path, timed: bool, workers: int, quiet: bool) -> dict:
    ws_dir = make_workspace(game, work, timed)

    def progress(report):
        if not quiet:
            print(f"\r{report.text[:90]:<90}", end="", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    stats = analyze(ws_dir, progress=progress, workers=workers)
    wall = time.perf_counter() - t0
    if not quiet:
        print(file=sys.stderr)
    truth = json.loads((ws_dir / "truth.json").read_text())
    placed = load_placed_intervals(GameWorkspace(ws_dir))
    score = alignment_score(truth, placed or [])
    doc = stats.to_json()
    return {"mode": "timed" if timed else "untimed", "workspace": str(ws_dir), "wall_s": round(wall, 2),
            "video_s": doc["video_s"], "frames_decoded": doc["frames_decoded"],
            "stages": {k: v for k, v in doc["stages"].items() if k.startswith("step:")},
            "warnings": doc["warnings"], "alignment": score}


def report(res: dict) -> str:
    steps = ", ".join(f"{k[5:]} {v:.1f} s" for k, v in res["stages"].items())
    lines = [f"[{res['mode']}] analysed {res['video_s']:.0f} s of video in {res['wall_s']:.1f} s "
             f"({res['frames_decoded']} frames decoded; {steps})"]
    lines += [f"[{res['mode']}] {line}" for line in format_alignment(res["alignment"])]
    lines += [f"[{res['mode']}] warning: {w}" for w in res["warnings"]]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game_dir", type=Path)
    ap.add_argument("--keep", type=Path, default=None, metavar="DIR", help="keep (and reuse) the work folders here")
    ap.add_argument("--mode", choices=("untimed", "timed", "both"), default="untimed")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    game = args.game_dir.resolve()
    if not (game / "truth.json").is_file():
        raise SystemExit(f"{game}: no truth.json (a `mafvar synth` game is needed)")
    modes = {"untimed": [False], "timed": [True], "both": [False, True]}[args.mode]
    tmp = None
    base = args.keep
    if base is None:
        tmp = tempfile.TemporaryDirectory(prefix="mafvar-align-")
        base = Path(tmp.name)
    try:
        results = [run(game, base / ("timed" if timed else "untimed"), timed, args.workers, args.json)
                   for timed in modes]
    finally:
        if tmp is not None:
            tmp.cleanup()
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print("\n".join(report(r) for r in results))
    ok = all(r["alignment"]["marks"] and r["alignment"]["within"] == r["alignment"]["marks"] for r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

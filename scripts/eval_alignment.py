"""Alignment without protocol times, against a synth game's truth (issues #5, #17).

    .venv/bin/python scripts/eval_alignment.py GAME_DIR... [--keep DIR] [--mode untimed|timed|both]
                                               [--audio on|off|both] [--workers 2] [--json]

Copies GAME_DIR's workspace (protocol.json with every time removed, video.mp4
symlinked, calibration.json, truth.json) into a temporary folder, runs the
whole analysis there (review.pipeline.analyze: the coarse pass, the alignment
from audio cues and video marks, the rest) and prints, for every truth
nightfall, vote call and vote window edge, how far from the truth the analysis
placed it (review.evaluate.alignment_score), with the misses and the time the
analysis took. `--mode timed` scores the protocol as it is (with its times),
`both` runs the two for comparison. `--audio off` analyses the video with its
sound track removed (a stream copy of the picture alone): the alignment then
has the picture's marks only. With both modes, the incidents of the untimed
run are compared with the timed run's (same type and seats, starts within 1 s;
scripts/compare_incidents.py) and the recount of every call cell with the
other's: "untimed gives the same incidents" is measured here. Several game
folders can be given; the figures are summed at the end.
GAME_DIR itself is never written.

--keep DIR keeps the work folders (DIR/<game>/untimed, .../timed, ...-muted); an
existing one is resumed (the analysis skips finished steps whose inputs are unchanged).
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

from engine.protocol import load_protocol, without_times  # noqa: E402
from engine.replay import replay  # noqa: E402
from review.evaluate import alignment_score, format_alignment, load_placed_intervals  # noqa: E402
from review.pipeline import analyze  # noqa: E402
from review.workspace import GameWorkspace  # noqa: E402


def is_time_field(name: str) -> bool:
    """Protocol-clock fields of an event: `t`, `t_end`, `t_call_end`, `t_call2`, `t_thanks`."""
    return name == "t" or name.startswith("t_")


def strip_times(doc: dict) -> dict:
    """The protocol without a single time (events keep their order and everything else)."""
    return without_times(doc)


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


def muted_copy(video: Path, out: Path) -> Path:
    """The recording without its sound track: the video stream copied, nothing re-encoded."""
    import subprocess

    from vision.video import ffmpeg_exe
    if not out.exists():
        tmp = out.with_name(".muting-" + out.name)
        subprocess.run([ffmpeg_exe(), "-loglevel", "error", "-y", "-i", str(video), "-map", "0:v", "-c", "copy",
                        "-an", str(tmp)], check=True)
        tmp.replace(out)
    return out


def make_workspace(game: Path, work: Path, timed: bool, audio: bool = True) -> Path:
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
        if not audio:
            muted_copy(video.resolve(), link)
        elif not link.exists():
            link.symlink_to(video.resolve())
    return work


def run(game: Path, work: Path, timed: bool, workers: int, quiet: bool, audio: bool = True) -> dict:
    ws_dir = make_workspace(game, work, timed, audio)

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
    return {"mode": ("timed" if timed else "untimed") + ("" if audio else "-muted"), "game": game.name,
            "workspace": str(ws_dir), "wall_s": round(wall, 2),
            "video_s": doc["video_s"], "frames_decoded": doc["frames_decoded"],
            "stages": {k: v for k, v in doc["stages"].items() if k.startswith("step:")},
            "warnings": doc["warnings"], "alignment": score, "needs_anchor": doc.get("needs_anchor", []),
            "unlisted_misses": unlisted_misses(score, doc.get("needs_anchor", []))}


def unlisted_misses(score: dict, needs_anchor: list[dict]) -> list[dict]:
    """The marks placed more than the tolerance off that the alignment did not list for an anchor."""
    listed = {(a["key"], a["what"]) for a in needs_anchor}
    return [m for m in score["misses"] if (m["key"], m["what"]) not in listed]


def compare_runs(a: dict, b: dict) -> dict:
    """Incidents and recount of run `b` (untimed) against run `a` (timed) of one game."""
    from compare_incidents import compare
    from review.recount_file import load_recount

    def incidents(res):
        doc = json.loads((Path(res["workspace"]) / "analysis" / "incidents.json").read_text())
        return doc["incidents"]

    def cells(res):
        out = {}
        for call in load_recount(Path(res["workspace"]) / "analysis" / "recount.json").calls:
            for v in call.voters:
                out[(call.round, call.pass_, call.candidate, v.seat)] = v.counted
        return out

    only_a, only_b, same = compare(incidents(a), incidents(b), 1.0)
    ca, cb = cells(a), cells(b)
    differ = sorted(k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k))
    return {"same": same, "only_timed": [(i["type"], i.get("seats"), i.get("t0")) for i in only_a],
            "only_untimed": [(i["type"], i.get("seats"), i.get("t0")) for i in only_b],
            "recount_cells": len(set(ca) | set(cb)), "recount_differ": [list(k) for k in differ]}


def report(res: dict) -> str:
    steps = ", ".join(f"{k[5:]} {v:.1f} s" for k, v in res["stages"].items())
    lines = [f"[{res['mode']}] analysed {res['video_s']:.0f} s of video in {res['wall_s']:.1f} s "
             f"({res['frames_decoded']} frames decoded; {steps})"]
    lines += [f"[{res['mode']}] {line}" for line in format_alignment(res["alignment"])]
    lines += [f"[{res['mode']}] listed for a manual anchor: {len(res['needs_anchor'])}; misses not listed: "
              f"{len(res['unlisted_misses'])}"]
    lines += [f"[{res['mode']}] warning: {w}" for w in res["warnings"]]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game_dir", type=Path, nargs="+")
    ap.add_argument("--keep", type=Path, default=None, metavar="DIR", help="keep (and reuse) the work folders here")
    ap.add_argument("--mode", choices=("untimed", "timed", "both"), default="untimed")
    ap.add_argument("--audio", choices=("on", "off", "both"), default="on",
                    help="analyse the recording with its sound, without it (picture only), or both")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    games = [g.resolve() for g in args.game_dir]
    for game in games:
        if not (game / "truth.json").is_file():
            raise SystemExit(f"{game}: no truth.json (a `mafvar synth` game is needed)")
    modes = {"untimed": [False], "timed": [True], "both": [True, False]}[args.mode]
    audios = {"on": [True], "off": [False], "both": [True, False]}[args.audio]
    tmp = None
    base = args.keep
    if base is None:
        tmp = tempfile.TemporaryDirectory(prefix="mafvar-align-")
        base = Path(tmp.name)
    results, comparisons = [], []
    try:
        for game in games:
            root = base / game.name if len(games) > 1 or args.keep is None else base
            for audio in audios:
                runs = {}
                for timed in modes:
                    name = ("timed" if timed else "untimed") + ("" if audio else "-muted")
                    runs[timed] = run(game, root / name, timed, args.workers, args.json, audio)
                    results.append(runs[timed])
                if len(runs) == 2:
                    comparisons.append({"game": game.name, "audio": audio, **compare_runs(runs[True], runs[False])})
                    runs[False]["compared_with_timed"] = comparisons[-1]
    finally:
        if tmp is not None:
            tmp.cleanup()
    if args.json:
        print(json.dumps(results, indent=1))  # an untimed run beside a timed one: "compared_with_timed"
    else:
        print("\n".join(f"== {r['game']}\n" + report(r) for r in results))
        for c in comparisons:
            print(f"== {c['game']} ({'with' if c['audio'] else 'without'} audio): untimed against timed: "
                  f"{c['same']} incidents the same, only timed {c['only_timed']}, only untimed "
                  f"{c['only_untimed']}; recount cells differing {len(c['recount_differ'])}/{c['recount_cells']}")
        for mode in sorted({r["mode"] for r in results}):
            sel = [r for r in results if r["mode"] == mode]
            marks = sum(r["alignment"]["marks"] for r in sel)
            within = sum(r["alignment"]["within"] for r in sel)
            unlisted = sum(len(r["unlisted_misses"]) for r in sel)
            print(f"total [{mode}] {within}/{marks} within 1 s ({100 * within / max(1, marks):.1f}%) over "
                  f"{len(sel)} game(s); misses not listed for an anchor: {unlisted}")
    ok = all(r["alignment"]["marks"] and r["alignment"]["within"] == r["alignment"]["marks"] for r in results)
    ok = ok and all(not c["only_timed"] and not c["only_untimed"] and not c["recount_differ"] for c in comparisons)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

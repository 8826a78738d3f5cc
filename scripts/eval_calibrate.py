"""How well `mafvar calibrate` proposes the seats of rendered games, and what the
analysis on the proposal gives.

    .venv/bin/python scripts/eval_calibrate.py DIR... [--recount] [--phase KEY] [--frames N] [--work W]

Each DIR is a game workspace rendered by `mafvar synth` (its calibration.json
is the rendered truth; nothing in DIR is written: the game is copied into
W/<name>, default /tmp/eval_calibrate). Per game it prints the seats proposed
right (body box IoU >= 0.5 with the truth and the right number), the IoU's
minimum and median, whether the numbering is right, the table zones' IoU and
the CPU seconds the proposal took; then the games with every seat right. Zone
IoU is printed for the zones placed on the table's edge and for the table
model's own (before `vision.zone_placement`), with the zones the analysis
will judge (`review.view.placement_doubts`) and their worst IoU.

With --recount, the copy is analysed twice, once with the rendered calibration
and once with the proposal (`mafvar analyze`, restricted to the vote phases
the video holds unless --phase is given), and the two recount.json files are
compared cell by cell (vote call x seat: counted, and the reason).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from review.calibrate import FRAMES, propose_for_game  # noqa: E402
from review.view import placement_doubts  # noqa: E402
from vision.calibration import agreement, box_iou, load_calibration  # noqa: E402
from vision.video import probe  # noqa: E402

IOU_RIGHT = 0.5


def copy_game(src: Path, work: Path) -> Path:
    dst = work / src.name
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    for f in ("protocol.json", "truth.json", "calibration.json"):
        if (src / f).exists():
            shutil.copy2(src / f, dst / f)
    for v in src.glob("*.mp4"):
        (dst / v.name).symlink_to(v.resolve())
    return dst


def score(truth_path: Path, proposal) -> dict:
    cam = next(iter(proposal.calibration.cameras))
    truth = load_calibration(truth_path)
    ag = agreement(truth, proposal.calibration, cam)
    # the table model's own zones (before they were moved to the edge seen: vision.zone_placement)
    model = [box_iou(truth.camera(cam).seats[s].table_zone, z.model_zone)
             for s, z in zip(range(1, 11), proposal.zones)] or list(ag.zone.values())
    seats = proposal.calibration.cameras[cam].seats
    doubts = placement_doubts(seats)
    judged = [s for s in seats if (s, "zone") not in doubts]
    return {"right": len(ag.right(IOU_RIGHT)), "iou_min": min(ag.body.values()),
            "iou_median": statistics.median(ag.body.values()),
            "zone_min": min(ag.zone.values()), "zone_median": statistics.median(ag.zone.values()),
            "model_zone_min": min(model), "model_zone_median": statistics.median(model),
            "zones_judged": judged,
            "judged_zone_min": min((ag.zone[s] for s in judged), default=None),
            "numbering": ag.numbering, "seen": sum(proposal.seen.values())}


def vote_phases(game: Path) -> list[str]:
    """The vote phases (timeline keys rN.vote) that end inside the recording."""
    from engine.protocol import load_protocol
    from engine.replay import replay
    from engine.timeline import Kind, build_timeline
    video = next(game.glob("*.mp4"))
    duration = probe(video).duration
    proto = load_protocol(game / "protocol.json")
    keys = []
    for iv in build_timeline(proto, replay(proto)):
        if iv.kind is Kind.VOTE_CALL and iv.t1 is not None and iv.t1 + 1.0 < duration:
            key = iv.key.split(".")[0] + ".vote"
            if key not in keys:
                keys.append(key)
    # a day whose last call the video cuts off is left out (its recount would be partial)
    for iv in build_timeline(proto, replay(proto)):
        if iv.kind is Kind.VOTE_CALL and (iv.t1 is None or iv.t1 + 1.0 >= duration):
            key = iv.key.split(".")[0] + ".vote"
            if key in keys:
                keys.remove(key)
    return keys


def recount_cells(game: Path) -> dict:
    doc = json.loads((game / "analysis" / "recount.json").read_text())
    out = {}
    for c in doc.get("calls", []):
        call = f"r{c['round']}.p{c['pass']}.c{c['candidate']}"
        for v in c.get("voters", []):
            out[(call, v["seat"])] = (bool(v.get("counted")), v.get("reason"))
    return out


def analyse(game: Path, phases: list[str]) -> dict:
    from mafvar.cli import main
    args = ["analyze", str(game), "--force", "--json"] + [a for p in phases for a in ("--phase", p)]
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(args)
    if rc != 0:
        raise RuntimeError(f"mafvar analyze {game} failed ({rc})")
    return recount_cells(game)


def compare_recounts(game: Path, proposal, phases: list[str]) -> dict:
    from vision.calibration import save_calibration
    truth_cal = game / "calibration.truth.json"
    shutil.copy2(game / "calibration.json", truth_cal)
    a = analyse(game, phases)
    shutil.rmtree(game / "analysis")
    save_calibration(proposal.calibration, game / "calibration.json")
    b = analyse(game, phases)
    cells = sorted(set(a) | set(b))
    same = sum(a.get(k) == b.get(k) for k in cells)
    differ = [(k, a.get(k), b.get(k)) for k in cells if a.get(k) != b.get(k)]
    return {"cells": len(cells), "same": same, "differ": differ}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--recount", action="store_true", help="also compare the analyses' recounts")
    ap.add_argument("--phase", action="append", default=None, help="phases to analyse (default: the votes)")
    ap.add_argument("--frames", type=int, default=FRAMES)
    ap.add_argument("--work", type=Path, default=Path("/tmp/eval_calibrate"))
    args = ap.parse_args()
    games_right = 0
    counts: dict[str, int] = {}
    rows = []
    for src in args.dirs:
        if not (src / "calibration.json").is_file() or not list(src.glob("*.mp4")):
            print(f"{src}: not a rendered game (no calibration.json or video)")
            continue
        game = copy_game(src, args.work)
        t0 = time.process_time()
        proposal = propose_for_game(game, args.frames)
        cpu = time.process_time() - t0
        r = score(src / "calibration.json", proposal)
        rows.append(r)
        games_right += r["right"] == 10
        # what `mafvar calibrate` writes unasked: ten seats and no doubt
        written = proposal.uncertain is None and len(next(iter(proposal.calibration.cameras.values())).seats) == 10
        status = ("right" if r["right"] == 10 else "WRONG") if written else "not written"
        counts[status] = counts.get(status, 0) + 1
        line = (f"{src.name}: seats right {r['right']}/10, body IoU min {r['iou_min']:.2f} median "
                f"{r['iou_median']:.2f}, numbering {'right' if r['numbering'] else 'WRONG'}, zone IoU min "
                f"{r['zone_min']:.2f} median {r['zone_median']:.2f} (table model's: min {r['model_zone_min']:.2f} "
                f"median {r['model_zone_median']:.2f}; zones the analysis judges: {len(r['zones_judged'])}/10"
                + ("" if r['judged_zone_min'] is None else f", their IoU min {r['judged_zone_min']:.2f}")
                + f"), players found {r['seen']}/10, "
                f"proposal {cpu:.0f} s CPU ({len(proposal.times)} frames); {status}")
        chk = (proposal.fit or {}).get("check")
        if chk:
            line += (f"\n    check: unaided {chk.get('players_unaided')}, position {chk['position_error']:.2f} (worst {chk['worst_position_error']:.2f}), "
                     f"size {chk['size_error']:.2f}, unexplained {chk['unexplained']}, spacing "
                     f"{chk['spacing_m']:.2f} m, gap {chk['gap_of_spacing']:.1f}, camera "
                     f"{chk['camera_height_m']:.1f} m, rival {chk['rival']}")
        line += "\n    " + ("UNCERTAIN: " + proposal.uncertain if proposal.uncertain else "; ".join(proposal.problems) or "confident")
        if args.recount:
            phases = args.phase or vote_phases(game)
            if not phases:
                line += "; recount: no vote phase inside the video"
            else:
                c = compare_recounts(game, proposal, phases)
                line += f"; recount ({', '.join(phases)}): {c['same']}/{c['cells']} cells the same"
                for k, a, b in c["differ"][:5]:
                    line += f"\n    {k}: rendered calibration {a}, proposal {b}"
        print(line, flush=True)
    if rows:
        print("zone IoU over all seats, table model -> placed on the edge: median "
              f"{statistics.median(r['model_zone_median'] for r in rows):.2f} -> "
              f"{statistics.median(r['zone_median'] for r in rows):.2f} (games' medians), worst "
              f"{min(r['model_zone_min'] for r in rows):.2f} -> {min(r['zone_min'] for r in rows):.2f}; "
              f"zones judged {sum(len(r['zones_judged']) for r in rows)}/{10 * len(rows)}")
    print(f"games with every seat right: {games_right} of {len(rows)}; written and right "
          f"{counts.get('right', 0)}, written and WRONG (confidently wrong) {counts.get('WRONG', 0)}, "
          f"not written (uncertain or no table) {counts.get('not written', 0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

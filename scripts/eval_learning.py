"""Does learning from the judges of one game help the next game of the same venue?

    .venv/bin/python scripts/eval_learning.py GAME_A GAME_B [--work DIR] [--venue NAME]
        [--answers N] [--workers 2] [--json]

GAME_A and GAME_B are rendered games (`mafvar synth`, with truth.json) of the
same venue look (the same --conditions). Nothing is written into them: both
are copied under --work (default /tmp/mafvar-learning/A_B). Then:

1. game A is analysed for the venue (`analyze --venue NAME`: the committed
   model, since the venue has learned nothing yet);
2. a judge who knows A's truth acts through the store API, as a person would
   in the app: decides every incident (confirmed when it reports a violation
   of the truth, else rejected), verifies every cell of the vote grid
   (voted / not voted / wrong form / late) and answers the queue's frame
   questions (up to --answers);
3. `mafvar learn` writes the venue's model from A (its time is printed);
4. game B is analysed twice, with the committed model and with the venue's,
   and both rows are printed: recount on verified cells, cells verified,
   false incidents, recall per injected type, vote-fist precision.

"Cells verified", "recount on verified" and "false incidents" are `mafvar
eval`'s own (recount_cells_verified, recount_accuracy_verified,
false_incidents: the cells the analysis judged rather than left
"unverified" where it abstained, issue 16); "abstained" is its seat-intervals
the analysis could not judge.

Seeds: use games rendered for this (issue 19: seeds 7100-7199), never the
evaluation bank.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from review.evaluate import CALL_TOLERANCE, evaluate, true_incident_ids  # noqa: E402
from review.incidents import load_incidents  # noqa: E402
from review import venues  # noqa: E402
from review.learn import learn  # noqa: E402
from review.pipeline import analyze  # noqa: E402
from review.questions import MASK, game_questions  # noqa: E402
from review.recount_file import load_recount  # noqa: E402
from review.store import ReviewStore  # noqa: E402
from review.workspace import GameWorkspace  # noqa: E402

INPUTS = ("protocol.json", "calibration.json", "truth.json")
CHIEF, SIDE = "Chief (truth)", "Side judge (truth)"
EDGE = 0.2          # seconds from a truth boundary where the judge cannot tell


def copy_game(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for name in INPUTS:
        shutil.copy2(src / name, dst / name)
    videos = sorted(src.glob("*.mp4"))
    if not videos:
        raise SystemExit(f"{src}: no video")
    if not (dst / videos[0].name).exists():
        shutil.copy2(videos[0], dst / videos[0].name)
    return dst


def _truth_state(truth: dict, seat: int, layer: str, t: float) -> tuple[dict | None, float]:
    for s in truth["seat_states"]:
        if s["seat"] == seat and s["layer"] == layer and s["t0"] <= t < s["t1"]:
            return s, min(t - s["t0"], s["t1"] - t)
    return None, 0.0


def truth_answer(truth: dict, seat: int, question: str, t: float) -> str:
    """What a judge sees at that seat and time, from the truth."""
    body, b_edge = _truth_state(truth, seat, "body", t)
    if body is None or body["state"] == "absent":
        return "cannot_tell"
    if question == MASK:
        mask, edge = _truth_state(truth, seat, "mask", t)
        if mask is None or edge < EDGE:
            return "cannot_tell"
        return "mask_on" if mask["state"] == "mask_on" else "mask_off"
    if b_edge < EDGE:
        return "cannot_tell"
    form = (body.get("params") or {}).get("form")
    return "fist" if body["state"] == "vote_fist" and form in ("thumb_up", "fist", None) else "no_fist"


def cell_verdict(truth: dict, rid: int, ci: int, seat: int) -> str:
    votes = [v for v in truth["votes"] if v["round"] == rid and v["call"] == ci and v["seat"] == seat]
    if not votes:
        return "not_voted"
    v = votes[0]
    if v.get("status") == "late":
        return "late"
    if v.get("form") not in ("thumb_up", "fist"):
        return "wrong_form"
    return "voted"


def play_judge(game: Path, answers: int) -> dict:
    """Decide, verify and answer on `game` from its truth, through the store API."""
    ws = GameWorkspace(game)
    truth = json.loads(ws.truth_path.read_text())
    incidents = load_incidents(ws.incidents_path).incidents
    true_ids = true_incident_ids(game)
    recount = load_recount(ws.recount_path)
    out = {"confirmed": 0, "rejected": 0, "cells": 0, "answers": 0}
    with ReviewStore.open(ws.review_db_path) as store:
        for inc in incidents:
            if inc.source.value != "video" and inc.type.value != "miscount":
                continue
            verdict = "confirmed" if inc.id in true_ids else "rejected"
            store.decide(inc.id, CHIEF, "chief_judge", verdict, "eval_learning: from truth.json")
            out[verdict] += 1
        # the vote grid: every (call, eligible seat) cell of the candidate calls
        rounds = truth["phases"]["votes"]
        for rid, rnd in enumerate(rounds):
            if rnd.get("kind") == "raise":
                continue
            for ci, tc in enumerate(rnd["calls"]):
                rc = min((c for c in recount.calls if c.candidate == tc["candidate"] and c.t_call is not None
                          and abs(c.t_call - tc["call"]) <= CALL_TOLERANCE),
                         key=lambda c: abs(c.t_call - tc["call"]), default=None)
                if rc is None:
                    continue
                for seat in rnd["eligible"]:
                    store.verify_vote(rc.round, rc.pass_, rc.candidate, seat, cell_verdict(truth, rid, ci, seat),
                                      SIDE, "side_judge", "eval_learning: from truth.json")
                    out["cells"] += 1
        # the queue's frame questions, a page of them at a time
        while out["answers"] < answers:
            answered = [a.frame for a in store.current_frame_answers()]
            qs = game_questions(game, answered, min(6, answers - out["answers"]))
            if not qs:
                break
            for q in qs:
                store.answer_frame(q.t, q.seat, q.question, truth_answer(truth, q.seat, q.question, q.t),
                                   SIDE, "side_judge", "eval_learning: from truth.json")
                out["answers"] += 1
    return out


# ---------------------------------------------------------------------------- scoring

def fist_precision(game: Path) -> tuple[int, int]:
    """(fist tracks, fist tracks on a true vote +-0.5 s) in analysis/tracks.json."""
    ws = GameWorkspace(game)
    truth = json.loads(ws.truth_path.read_text())
    tracks = json.loads(ws.tracks_path.read_text())["tracks"]
    fists = [k for k in tracks if k["state"] == "fist_on_table"]
    spans = defaultdict(list)
    for v in truth["votes"]:
        spans[v["seat"]].append((v["t_place"] - 0.5, v["t_lift"] + 0.5))
    good = sum(any(a <= k["t1"] and b >= k["t0"] for a, b in spans[k["seat"]]) for k in fists)
    return len(fists), good


def score(game: Path) -> dict:
    """B's row, from `mafvar eval`'s own figures (review.evaluate) and the fist tracks."""
    ev = evaluate(game)
    fists, good = fist_precision(game)
    per_type = {t: s for t, s in ev["per_type"].items() if t != "protocol_audit"}
    return {"recount_on_verified": ev["recount_accuracy_verified"] if ev["recount_cells_verified"] else None,
            "cells": ev["recount_cells"], "cells_verified": ev["recount_cells_verified"],
            "false_incidents": ev["false_incidents"],
            "false_by_type": {t: s["fp"] for t, s in per_type.items() if s["fp"]},
            "recall": {t: (s["tp"], s["tp"] + s["fn"]) for t, s in per_type.items() if s["tp"] + s["fn"]},
            "fist_precision": round(good / fists, 4) if fists else None, "fist_tracks": fists,
            "recount_accuracy": ev["recount_accuracy"], "abstentions": ev["abstentions"]}


def row(label: str, s: dict) -> str:
    rec = ", ".join(f"{t} {a}/{b}" for t, (a, b) in sorted(s["recall"].items()))
    rv = "-" if s["recount_on_verified"] is None else f"{s['recount_on_verified']:.2%}"
    fp = "-" if s["fist_precision"] is None else f"{s['fist_precision']:.2%}"
    return (f"{label:<22} recount on verified {rv} | cells verified {s['cells_verified']}/{s['cells']} | "
            f"false incidents {s['false_incidents']} {s['false_by_type'] or ''} | vote-fist precision {fp} "
            f"({s['fist_tracks']} fists) | abstained {s['abstentions']} | recall: {rec}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("game_a", type=Path)
    ap.add_argument("game_b", type=Path)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--venue", default=None)
    ap.add_argument("--answers", type=int, default=24, help="frame questions the judge answers on A")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only-a", action="store_true",
                    help="stop after learning from A (B may still be rendering); a later run with --reuse-model goes on")
    ap.add_argument("--reuse-model", action="store_true",
                    help="when the venue already has a current model (an earlier run), judge and learn nothing "
                         "again: its training report gives the learn time")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    a_src, b_src = args.game_a.resolve(), args.game_b.resolve()
    work = (args.work or Path("/tmp/mafvar-learning") / f"{a_src.name}_{b_src.name}").resolve()
    venue = args.venue or f"eval-{a_src.name}"
    say = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    a = copy_game(a_src, work / a_src.name)
    say(f"games: A {a_src} (trains), B {b_src} (evaluates); work folder {work}; venue {venue}")
    rec = venues.read_venue(work, venue)
    if args.reuse_model and rec is not None and rec.current:
        report = json.loads((venues.version_dir(work, venue, rec.current) / venues.REPORT_FILE).read_text())
        judged = {"kept": f"review.db of the run that learned v{rec.current}"}
        doc = {"model_version": rec.current, "examples": report["examples"], "fit": report["fit"],
               "seconds": report["seconds"]}
        doc["seconds"].setdefault("cpu", float("nan"))
        say(f"reusing venue {venue} v{rec.current} (learned {report['created_at']})")
    else:
        t0 = time.perf_counter()
        analyze(a, workers=args.workers, venue=venue)
        say(f"A analysed ({time.perf_counter() - t0:.0f} s)")
        judged = play_judge(a, args.answers) if not (a / "review.db").exists() else {"kept": "review.db already there"}
        say(f"judge on A: {judged}")
        doc = learn(work, venue, games=[a], say=say)
    say(f"learned v{doc['model_version']} in {doc['seconds']['wall']:.1f} s wall, {doc['seconds']['cpu']:.1f} s CPU "
        f"from {doc['examples']['total']} seat windows {doc['examples']['per_source']}")
    if args.only_a:
        return 0
    b0 = copy_game(b_src, work / f"{b_src.name}-committed")
    b1 = copy_game(b_src, work / f"{b_src.name}-venue")
    for b, v in ((b0, None), (b1, venue)):
        t0 = time.perf_counter()
        analyze(b, workers=args.workers, venue=v)
        say(f"B analysed with {'the committed model' if v is None else 'the venue model'} "
            f"({time.perf_counter() - t0:.0f} s)")
    before, after = score(b0), score(b1)
    result = {"format": "mafvar-eval-learning", "version": 1, "game_a": str(a_src), "game_b": str(b_src),
              "venue": venue, "judge": judged, "learn": {k: doc[k] for k in ("model_version", "examples", "fit",
                                                                              "seconds")},
              "committed": before, "venue_model": after}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"trained on {a_src.name}, evaluated on {b_src.name} (venue {venue}); "
          f"learn took {doc['seconds']['wall']:.1f} s wall ({doc['seconds']['cpu']:.1f} s CPU)")
    print(row("B, committed model", before))
    print(row("B, venue model", after))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

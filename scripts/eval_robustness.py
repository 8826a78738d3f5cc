"""The robustness matrix: how the analysis holds up as the venue's conditions change.

    .venv/bin/python scripts/eval_robustness.py --render --out DIR [--seed 4050] [--only light.level=0.45 ...]
    .venv/bin/python scripts/eval_robustness.py --games DIR... [--work DIR] [--json OUT]

--render makes one game per row of the matrix (docs/synth.md "Conditions"):
the default world with one condition set to each end of its range, then the
combined extremes, all from one seed (the game and its acts stay the same,
only the pictures change); rendered with `nice -n 5` into OUT/<row>/ and
kept, so a re-run analyses what is there. --games takes games already
rendered (for example the evaluation bank): each is copied into --work
first (default: a temporary folder) unless it already holds an analysis,
so nothing is written into the given folders.

Every game is analysed (`mafvar analyze`) and scored against its truth.json,
one row per game: recount accuracy on the judged (verified) cells, the share
of cells judged, false incidents per game-hour, recall per injected type
(found / injected; over the acts the analysis did not abstain on), vote-fist
precision and recall of the recount's placements in judged cells, and the
mask state per seat-frame (scripts/eval_seat_states.py). The last row sums
all games. Prints which seeds were rendered and which games were scored.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from review.evaluate import EvalError, evaluate  # noqa: E402
from review.recount_file import load_recount  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MAFVAR = [sys.executable, "-m", "mafvar"]

# One condition at a time across its range (docs/synth.md), then combined extremes.
MATRIX: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("default", ()),
    ("light.level=0.45", ("light.level=0.45",)),
    ("light.level=1.4", ("light.level=1.4",)),
    ("light.spot=1.5", ("light.spot=1.5",)),
    ("camera.height=1.6", ("camera.height=1.6", "camera.distance=null")),
    ("camera.height=3.5", ("camera.height=3.5", "camera.distance=null")),
    ("camera.fov=30", ("camera.fov=30", "camera.distance=null")),
    ("camera.fov=75", ("camera.fov=75", "camera.distance=null")),
    ("camera.azimuth=90", ("camera.azimuth=90", "camera.distance=null")),
    ("camera.azimuth=180", ("camera.azimuth=180", "camera.distance=null")),
    ("capture.crf=18", ("capture.crf=18",)),
    ("capture.crf=34", ("capture.crf=34",)),
    ("capture.noise=0.06", ("capture.noise=0.06",)),
    ("capture.width=854x480", ("capture.width=854", "capture.height=480")),
    ("people.judge=true", ("people.judge=true", "people.judge_walks=1.5")),
    ("players.dark_tops=1", ("players.dark_tops=1", "players.mask_colour=dark_blue")),
    ("dim+low+crf34+noise", ("light.level=0.45", "camera.height=1.6", "camera.distance=null", "capture.crf=34",
                             "capture.noise=0.06")),
    ("bright+high+fov30+crf18", ("light.level=1.4", "camera.height=3.5", "camera.distance=null", "camera.fov=30",
                                 "capture.crf=18")),
)


@dataclass
class Row:
    name: str
    cells: int = 0
    verified: int = 0
    agree_verified: int = 0
    hours: float = 0.0
    false_incidents: int = 0
    found: dict[str, list[int]] = field(default_factory=dict)     # type -> [tp, injected, abstained misses]
    fists: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # placements right, placements, votes found, votes
    mask: list[int] = field(default_factory=lambda: [0, 0])        # right, seat-frames
    seat_intervals: int = 0
    miscounts: list[int] = field(default_factory=lambda: [0, 0, 0])  # found, injected, left unverified

    def add(self, o: "Row") -> None:
        self.cells += o.cells
        self.verified += o.verified
        self.agree_verified += o.agree_verified
        self.hours += o.hours
        self.false_incidents += o.false_incidents
        for t, v in o.found.items():
            acc = self.found.setdefault(t, [0, 0, 0])
            for i in range(3):
                acc[i] += v[i]
        for i in range(4):
            self.fists[i] += o.fists[i]
        for i in range(2):
            self.mask[i] += o.mask[i]
        for i in range(3):
            self.miscounts[i] += o.miscounts[i]
        self.seat_intervals += o.seat_intervals

    def to_json(self) -> dict:
        r = lambda a, b: None if not b else round(a / b, 4)
        return {"name": self.name, "recount_accuracy_verified": r(self.agree_verified, self.verified),
                "recount_verified": r(self.verified, self.cells), "cells": self.cells,
                "false_incidents": self.false_incidents,
                "false_per_hour": None if not self.hours else round(self.false_incidents / self.hours, 2),
                "video_hours": round(self.hours, 4),
                "recall": {t: {"found": v[0], "injected": v[1], "abstained": v[2],
                               "recall_judged": r(v[0], v[1] - v[2])} for t, v in sorted(self.found.items())},
                "miscounts": {"found": self.miscounts[0], "injected": self.miscounts[1],
                              "unverified": self.miscounts[2]},
                "vote_fist_precision": r(self.fists[0], self.fists[1]),
                "vote_fist_recall": r(self.fists[2], self.fists[3]),
                "mask_accuracy": r(self.mask[0], self.mask[1]), "seat_intervals_abstained": self.seat_intervals}


def _set_args(sets: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for s in sets:
        out += ["--set", s]
    return out


def render(out: Path, seed: int, only: list[str] | None, workers: int) -> list[tuple[str, Path]]:
    games = []
    for name, sets in MATRIX:
        if only and name not in only:
            continue
        d = out / name.replace("=", "_").replace("+", "_")
        if not (d / "video.mp4").exists():
            cmd = ["nice", "-n", "5", *MAFVAR, "synth", "--seed", str(seed), "--out", str(d), "--force",
                   "--workers", str(workers), *_set_args(sets)]
            print(f"rendering {name}: seed {seed}", file=sys.stderr, flush=True)
            subprocess.run(cmd, check=True, cwd=ROOT)
        games.append((name, d))
    return games


def _copy(game: Path, work: Path) -> Path:
    """A copy of a game's inputs to analyse (hard links where the file system allows)."""
    d = work / game.name
    d.mkdir(parents=True, exist_ok=True)
    for f in ("protocol.json", "calibration.json", "truth.json", "video.mp4"):
        if (game / f).exists() and not (d / f).exists():
            try:
                os.link(game / f, d / f)
            except OSError:
                shutil.copy2(game / f, d / f)
    return d


def analyse(game: Path, workers: int) -> None:
    if (game / "analysis" / "clips.done").exists():
        return
    print(f"analysing {game}", file=sys.stderr, flush=True)
    done = subprocess.run(["nice", "-n", "5", *MAFVAR, "analyze", str(game), "--workers", str(workers)],
                          cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise subprocess.CalledProcessError(done.returncode, done.args, stderr=last)


def _fists(game: Path, truth: dict, row: Row) -> None:
    """The recount's placements in judged cells against the truth's vote fists."""
    calls = load_recount(game / "analysis" / "recount.json").calls
    votes = truth.get("votes", [])
    placed = []
    for c in calls:
        for v in c.voters:
            if v.reason in ("default", "unverified") or v.t_place is None:
                continue
            placed.append((v.seat, v.t_place, v.t_lift if v.t_lift is not None else v.t_place))
    row.fists[1] += len(placed)
    row.fists[0] += sum(any(tv["seat"] == s and tv["t_place"] - 0.6 <= t1 and t0 <= tv["t_lift"] + 0.6
                            for tv in votes) for s, t0, t1 in placed)
    open_cells = [(c, s) for c in calls for s, _ in c.unverified]
    judged = [tv for tv in votes if not any(s == tv["seat"] and c.t_call is not None
                                            and c.t_call - 1.0 <= tv["t_place"] <= (c.t_thanks or c.t_call) + 3.0
                                            for c, s in open_cells)]
    row.fists[3] += len(judged)
    row.fists[2] += sum(any(s == tv["seat"] and tv["t_place"] - 0.6 <= t1 and t0 <= tv["t_lift"] + 0.6
                            for s, t0, t1 in placed) for tv in judged)


def score(name: str, game: Path, workers: int) -> Row:
    row = Row(name)
    res = evaluate(game)
    truth = json.loads((game / "truth.json").read_text())
    row.cells, row.verified = res["recount_cells"], res["recount_cells_verified"]
    row.agree_verified = round(res["recount_accuracy_verified"] * row.verified)
    row.hours = res["video_hours"]
    row.false_incidents = res["false_incidents"]
    row.seat_intervals = res["abstentions"]
    row.miscounts = [res["miscounts_found"], res["miscounts_injected"], res["miscounts_unverified"]]
    for t, s in res["per_type"].items():
        if s["tp"] + s["fn"]:
            row.found[t] = [s["tp"], s["tp"] + s["fn"], s["fn_abstained"]]
    _fists(game, truth, row)
    from eval_seat_states import evaluate as seat_states, landmarks_store
    rep = seat_states(game, landmarks_store(game, workers))["mask"]
    if rep["frames"]:
        row.mask = [round(rep["frame_accuracy"] * rep["frames"]), rep["frames"]]
    return row


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def print_table(rows: list[Row]) -> None:
    print(f"{'condition':<26}{'recount(judged)':>16}{'judged':>8}{'false/h':>8}{'fist P':>8}{'fist R':>8}"
          f"{'mask':>7}{'not judged':>11}  recall per type (found/injected, abstained)")
    for r in rows:
        j = r.to_json()
        rec = " ".join(f"{t} {v['found']}/{v['injected']}" + (f"({v['abstained']})" if v["abstained"] else "")
                       for t, v in j["recall"].items())
        print(f"{r.name:<26}{_pct(j['recount_accuracy_verified']):>16}{_pct(j['recount_verified']):>8}"
              f"{j['false_per_hour'] if j['false_per_hour'] is not None else '-':>8}"
              f"{_pct(j['vote_fist_precision']):>8}{_pct(j['vote_fist_recall']):>8}{_pct(j['mask_accuracy']):>7}"
              f"{r.seat_intervals:>11}  {rec}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--render", action="store_true", help="render the matrix's games into --out")
    ap.add_argument("--out", type=Path, help="where --render puts its games")
    ap.add_argument("--seed", type=int, default=4050, help="the seed of the rendered games (default 4050)")
    ap.add_argument("--only", nargs="*", help="render only these rows of the matrix (their names)")
    ap.add_argument("--games", nargs="*", type=Path, default=[], help="games already rendered")
    ap.add_argument("--work", type=Path, help="where --games are copied to be analysed (default: a temporary folder)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, help="also write the rows here")
    args = ap.parse_args(argv)
    if not args.render and not args.games:
        ap.error("give --render --out DIR, or --games DIR...")
    if args.render and args.out is None:
        ap.error("--render needs --out DIR")
    games: list[tuple[str, Path]] = []
    if args.render:
        games += render(args.out, args.seed, args.only, args.workers)
        print(f"rendered seed {args.seed}: {', '.join(n for n, _ in games)}", file=sys.stderr)
    work = args.work or Path(tempfile.mkdtemp(prefix="robustness-"))
    for g in args.games:
        if not (g / "truth.json").exists():
            print(f"{g}: no truth.json (only synthetic games can be scored)", file=sys.stderr)
            return 2
        has = (g / "analysis" / "clips.done").exists()
        games.append((g.name, g if has else _copy(g, work)))
    print("scoring: " + ", ".join(f"{n} ({d})" for n, d in games), file=sys.stderr)
    rows = []
    failed: list[tuple[str, str]] = []
    for name, d in games:
        # one game that cannot be analysed is a finding, not the end of the matrix
        try:
            analyse(d, args.workers)
            rows.append(score(name, d, args.workers))
        except (subprocess.CalledProcessError, EvalError) as exc:
            why = getattr(exc, "stderr", None) or str(exc)
            print(f"{name}: {why}", file=sys.stderr)
            failed.append((name, why))
    total = Row(f"all {len(rows)} games")
    for r in rows:
        total.add(r)
    print_table(rows + [total])
    for name, why in failed:
        print(f"{name}: NOT ANALYSED ({why}); not in the sum")
    if args.json:
        args.json.write_text(json.dumps([r.to_json() for r in rows + [total]]
                                        + [{"name": n, "not_analysed": w} for n, w in failed], indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

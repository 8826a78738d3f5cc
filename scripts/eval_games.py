"""Score several analysed games together: per-type precision and recall summed
over all of them, recount accuracy over all cells, miscounts found.

    .venv/bin/python scripts/eval_games.py sample_videos/demo /tmp/seed21 /tmp/seed22 ...

Each GAME_DIR needs `truth.json` and a finished `mafvar analyze`. One game
holds one or two acts of a type; the acceptance (P and R >= 90% per injected
type) is judged on the sum, which this prints with the per-game rows.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from review.evaluate import EvalError, evaluate  # noqa: E402


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "-"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="+", type=Path)
    args = ap.parse_args(argv)
    per: dict[str, list[int]] = {}
    cells = agree = inj = found = right = 0
    for g in args.games:
        try:
            r = evaluate(g)
        except EvalError as exc:
            print(f"{g}: {exc}", file=sys.stderr)
            return 2
        cells += r["recount_cells"]
        agree += r["recount_agree"]
        inj += r["miscounts_injected"]
        found += r["miscounts_found"]
        right += r["miscounts_right_impact"]
        row = []
        for t, s in sorted(r["per_type"].items()):
            acc = per.setdefault(t, [0, 0, 0])
            acc[0] += s["tp"]
            acc[1] += s["fp"]
            acc[2] += s["fn"]
            row.append(f"{t} {s['tp']}/{s['fp']}/{s['fn']}")
        print(f"{g}: recount {r['recount_agree']}/{r['recount_cells']}, miscounts "
              f"{r['miscounts_found']}/{r['miscounts_injected']}; tp/fp/fn: {', '.join(row)}")
    print(f"\nall {len(args.games)} games: recount {agree}/{cells} ({_ratio(agree, cells)}), "
          f"miscounts found {found}/{inj} (right impact {right})")
    print(f"{'type':<16} {'tp':>4} {'fp':>4} {'fn':>4}  precision  recall")
    for t, (tp, fp, fn) in sorted(per.items()):
        print(f"{t:<16} {tp:>4} {fp:>4} {fn:>4}  {_ratio(tp, tp + fp):>9}  {_ratio(tp, tp + fn):>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

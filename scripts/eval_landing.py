"""How well the full-rate look times vote fists near "Thank you".

For every analysed game given (after `mafvar analyze DIR`), each entry of
analysis/landings.json is matched to the truth's fist of that seat nearest
to it, and the timed edge (landing or lift) is compared with the truth's
t_place or t_lift: the error, and whether it falls on the same side of
"Thank you" as the truth (what decides a late vote or an early lift).

    .venv/bin/python scripts/eval_landing.py sample_videos/demo DIR...
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def rows(game: Path) -> list[dict]:
    truth = json.loads((game / "truth.json").read_text())
    kept = json.loads((game / "analysis" / "landings.json").read_text())
    thanks = {(rid, ci): c.get("thanks") for rid, r in enumerate(truth["phases"]["votes"])
              for ci, c in enumerate(r["calls"])}
    out = []
    for ld in kept["landings"]:
        key = "t_place" if ld.get("edge", "land") == "land" else "t_lift"
        fists = [v for v in truth["votes"] if v["seat"] == ld["seat"]]
        if not fists:
            continue
        v = min(fists, key=lambda v: abs(v[key] - ld["t_seen"]))
        th = thanks.get((v["round"], v["call"]))
        out.append({"game": game.name, "seat": ld["seat"], "edge": ld.get("edge", "land"), "how": ld["how"],
                    "truth": v[key], "seen": ld["t_seen"], "timed": ld["t_edge"],
                    "error": round(ld["t_edge"] - v[key], 3),
                    "sampled_error": round(ld["t_seen"] - v[key], 3),
                    "side_ok": None if th is None else (ld["t_edge"] >= th) == (v[key] >= th)})
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip())
        return 2
    every = [r for d in argv for r in rows(Path(d))]
    for r in every:
        print(f"{r['game']:>10} seat {r['seat']:>2} {r['edge']:<4} truth {r['truth']:8.2f} sampled {r['seen']:8.2f} "
              f"({r['sampled_error']:+.2f}) timed {r['timed']:8.3f} ({r['error']:+.3f}, {r['how']})"
              + ("" if r["side_ok"] is None else "" if r["side_ok"] else "  WRONG SIDE OF THANK YOU"))
    for edge in ("land", "lift"):
        es = [r for r in every if r["edge"] == edge]
        if not es:
            continue
        errs = [abs(r["error"]) for r in es]
        before = [abs(r["sampled_error"]) for r in es]
        ok = sum(1 for r in es if r["side_ok"])
        print(f"{edge}: {len(es)} timed, |error| mean {sum(errs) / len(errs):.3f} s, max {max(errs):.3f} s "
              f"(sampled: mean {sum(before) / len(before):.3f} s, max {max(before):.3f} s); "
              f"right side of \"thank you\": {ok}/{len(es)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Compare two analyses' incidents (e.g. the gated path against --no-gate).

    .venv/bin/python scripts/compare_incidents.py A/analysis/incidents.json B/analysis/incidents.json

Two incidents are the same when type and seats agree and their starts are
within --tolerance seconds. Prints both sides' extras; exit 0 when none.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _load(path: Path) -> list[dict]:
    doc = json.loads(path.read_text())
    return doc["incidents"] if isinstance(doc, dict) else doc


def _key(i: dict) -> tuple:
    return i["type"], tuple(sorted(i.get("seats") or ()))


def compare(a: list[dict], b: list[dict], tol: float) -> tuple[list[dict], list[dict], int]:
    left, right = list(a), list(b)
    same = 0
    for x in list(left):
        m = next((y for y in right if _key(y) == _key(x) and
                  (x.get("t0") is None) == (y.get("t0") is None) and
                  (x.get("t0") is None or abs(x["t0"] - y["t0"]) <= tol)), None)
        if m is not None:
            left.remove(x)
            right.remove(m)
            same += 1
    return left, right, same


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--tolerance", type=float, default=1.0)
    args = ap.parse_args(argv)
    only_a, only_b, same = compare(_load(args.a), _load(args.b), args.tolerance)
    print(f"same: {same}; only in {args.a}: {len(only_a)}; only in {args.b}: {len(only_b)}")
    for side, items in ((args.a, only_a), (args.b, only_b)):
        for i in items:
            print(f"  only in {side}: {i['type']} seats {i.get('seats')} at {i.get('t0')}")
    return 0 if not only_a and not only_b else 1


if __name__ == "__main__":
    sys.exit(main())

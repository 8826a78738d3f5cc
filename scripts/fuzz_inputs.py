"""The big fuzz budget: N generated inputs per input kind, with the figures.

    .venv/bin/python scripts/fuzz_inputs.py                 # 5,000 per kind, every kind
    .venv/bin/python scripts/fuzz_inputs.py --examples 500 --kind protocol --kind cli

Runs the same kinds as tests/fuzz/test_fuzz_inputs.py (tests/fuzz/fuzz_kinds.py)
through the same entry points, without shrinking, and prints per kind: inputs
run, outcomes, tracebacks (or unexpected errors), runs over 10 s, the slowest
run (wall and the process's CPU: the machine may be shared) and the median.
Exit 0 when there are no tracebacks and no run over 10 s.
The time limit is a figure this script reports, not something a test asserts.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))

from hypothesis import HealthCheck, Phase, given, seed, settings, strategies as st  # noqa: E402

from fuzz_kinds import KINDS, FuzzFailure, verify_store_after  # noqa: E402

SLOW_S = 10.0


def run_kind(name: str, examples: int, rng_seed: int, scratch: Path) -> dict:
    spec = KINDS[name]
    work = scratch / name
    work.mkdir(parents=True, exist_ok=True)
    times: list[float] = []
    cpu: list[float] = []
    slowest: list = [0.0, ""]
    outcomes: dict[str, int] = {}
    failures: list[str] = []
    slow: list[str] = []

    @seed(rng_seed)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def go(data):
        inp = spec.draw(data, work)
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            label = spec.run(inp, work)
        except FuzzFailure as exc:
            label = "FAILURE"
            failures.append(f"{exc}"[:500])
        except Exception as exc:  # noqa: BLE001 - counted, not raised: the run goes on
            label = "FAILURE"
            failures.append("".join(traceback.format_exception_only(type(exc), exc))[:500])
        dt = time.perf_counter() - t0
        times.append(dt)
        cpu.append(time.process_time() - c0)
        if dt > slowest[0]:
            slowest[:] = [dt, _describe(inp)]
        outcomes[label] = outcomes.get(label, 0) + 1
        if dt > SLOW_S:
            slow.append(f"{dt:.1f} s: {_describe(inp)}")

    go()
    if name == "store":
        try:
            verify_store_after(work)
        except FuzzFailure as exc:
            failures.append(str(exc))
    return {"kind": name, "inputs": len(times), "outcomes": outcomes,
            "tracebacks": len(failures), "over_10s": len(slow),
            "max_s": round(max(times), 3) if times else None,
            "median_s": round(statistics.median(times), 4) if times else None,
            "max_cpu_s": round(max(cpu), 3) if cpu else None,
            "total_s": round(sum(times), 1), "failures": failures[:10], "slow": slow[:10],
            "slowest": slowest[1][:300]}


def _describe(inp) -> str:
    if isinstance(inp, bytes):
        return f"{len(inp):,} bytes: {inp[:120]!r}"
    return repr(inp)[:200]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", type=int, default=5000, help="inputs per kind (5000)")
    ap.add_argument("--kind", action="append", choices=sorted(KINDS),
                    help="only these kinds (repeatable; default: all)")
    ap.add_argument("--seed", type=int, default=18, help="Hypothesis seed (18)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    kinds = args.kind or list(KINDS)
    results = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mafvar-fuzz-") as tmp:
        for name in kinds:
            r = run_kind(name, args.examples, args.seed, Path(tmp))
            results.append(r)
            print(f"{name:<13} {r['inputs']:>6} inputs  tracebacks {r['tracebacks']}  "
                  f"over 10 s {r['over_10s']}  max {r['max_s']} s (CPU {r['max_cpu_s']} s)  "
                  f"median {r['median_s']} s  "
                  f"total {r['total_s']} s  outcomes {r['outcomes']}", flush=True)
            for f in r["failures"]:
                print(f"    failure: {f}")
            for s in r["slow"]:
                print(f"    slow: {s}")
            print(f"    slowest input: {r['slowest'][:200]}")
    total = time.perf_counter() - started
    print(f"all: {sum(r['inputs'] for r in results)} inputs, "
          f"{sum(r['tracebacks'] for r in results)} tracebacks, "
          f"{sum(r['over_10s'] for r in results)} over 10 s, {total:.0f} s wall")
    if args.json:
        Path(args.json).write_text(json.dumps({"format": "mafvar-fuzz-figures", "version": 1,
                                               "examples": args.examples, "seed": args.seed,
                                               "wall_s": round(total, 1), "kinds": results},
                                              indent=1))
    return 0 if all(r["tracebacks"] == 0 and r["over_10s"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Memory of a command's whole process tree over time, process by process.

    .venv/bin/python scripts/profile_memory_tree.py [--every 0.5] [--log FILE.jsonl] -- CMD [ARGS...]

e.g. `scripts/profile_memory_tree.py -- .venv/bin/mafvar bench COPY --json`.
Runs CMD and, every `--every` seconds until it ends, reads each process of
its tree from /proc (resident set, proportional set: shared pages split
between the processes that map them, and what is shared). Prints the peak
of the tree's summed resident memory (what `mafvar bench` reports as
`peak_rss_mb`, vision.memory), the summed proportional memory at the same
moment (what the tree really holds: a library mapped by three processes
counts once), and every process at that moment, by its program; `--log`
keeps every sample. For the question session 38 left open: why one build's
peak moved between 1.3 and 2.0 GB from run to run. Linux only.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def sample(root: int) -> list[dict]:
    """Every process of root's tree (vision.memory.tree_pids): pid, program,
    rss / pss / shared MB."""
    from vision.memory import tree_pids

    out = []
    for pid in tree_pids(root):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            fields = {}
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                key, _, rest = line.partition(":")
                if key in ("Rss", "Pss", "Shared_Clean", "Shared_Dirty"):
                    fields[key] = int(rest.split()[0])
        except OSError:
            continue   # ended between the listing and the read
        out.append({"pid": pid, "program": Path(argv[0].decode(errors="replace")).name,
                    "rss_mb": fields.get("Rss", 0) / 1024, "pss_mb": fields.get("Pss", 0) / 1024,
                    "shared_mb": (fields.get("Shared_Clean", 0) + fields.get("Shared_Dirty", 0)) / 1024})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=float, default=0.5, help="seconds between samples")
    parser.add_argument("--log", type=Path, help="write every sample here (JSON lines)")
    parser.add_argument("cmd", nargs=argparse.REMAINDER, help="-- the command to run")
    args = parser.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        parser.error("no command given (put it after --)")
    if not Path("/proc/self/smaps_rollup").exists():
        print("profile_memory_tree: error: needs Linux /proc/PID/smaps_rollup", file=sys.stderr)
        return 2
    log = args.log.open("w") if args.log else None
    start = time.monotonic()
    proc = subprocess.Popen(cmd)
    peak: tuple[float, float, list[dict]] = (0.0, 0.0, [])
    try:
        while proc.poll() is None:
            procs = sample(proc.pid)
            rss = sum(p["rss_mb"] for p in procs)
            if rss > peak[0]:
                peak = (rss, time.monotonic() - start, procs)
            if log:
                log.write(json.dumps({"t": round(time.monotonic() - start, 2), "procs": procs}) + "\n")
            time.sleep(args.every)
    finally:
        if log:
            log.close()
    rss, at, procs = peak
    print(f"command exited {proc.returncode} after {time.monotonic() - start:.1f} s", file=sys.stderr)
    print(f"peak of the tree's resident memory: {rss:.0f} MB at {at:.1f} s; proportional at that moment: "
          f"{sum(p['pss_mb'] for p in procs):.0f} MB", file=sys.stderr)
    for p in sorted(procs, key=lambda p: -p["rss_mb"]):
        print(f"  {p['pid']:>7} {p['program']:<28} rss {p['rss_mb']:7.1f}  pss {p['pss_mb']:7.1f}  "
              f"shared {p['shared_mb']:6.1f} MB", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())

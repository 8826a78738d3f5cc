"""Peak memory of this process and everything it started (Linux /proc).

`resource.getrusage` reports the largest single process, not the sum of the
parent and its extraction workers running at once; the benchmark's figure is
the sum, sampled while the work runs.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return out


def tree_pids(pid: int | None = None) -> list[int]:
    """A process and all its descendants, parents first (a process that ends
    meanwhile simply has no children listed)."""
    out, todo, seen = [], [pid or os.getpid()], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        out.append(p)
        todo.extend(_children(p))
    return out


def tree_rss_mb(pid: int | None = None) -> float:
    """Resident memory of a process and all its descendants, MB (0 without /proc)."""
    total = 0
    for p in tree_pids(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
    return total / 1024.0


class PeakMemory:
    """Samples tree_rss_mb every `interval` s in a thread while in use:

        with PeakMemory() as peak:
            work()
        peak.mb
    """

    def __init__(self, interval: float = 0.25):
        self.interval = interval
        self.mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.mb = max(self.mb, tree_rss_mb())
            self._stop.wait(self.interval)

    def __enter__(self) -> "PeakMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.mb = max(self.mb, tree_rss_mb())

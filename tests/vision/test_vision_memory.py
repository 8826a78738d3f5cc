"""The process-tree memory figure counts children that run at the same time."""
import subprocess
import sys
import time

from vision.memory import PeakMemory, tree_rss_mb

# Holds 150 MB, says so on stdout, and keeps it until its stdin closes: the test
# waits for what it measures instead of sleeping for it (a busy machine can be
# slower to allocate than any fixed sleep).
HOLD = ("import sys; b = bytearray(150 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); "
        "print('ready', flush=True); sys.stdin.read()")


def _holders(n: int) -> list[subprocess.Popen]:
    kids = [subprocess.Popen([sys.executable, "-c", HOLD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True) for _ in range(n)]
    for k in kids:
        assert k.stdout.readline().strip() == "ready"
    return kids


def _release(kids: list[subprocess.Popen]) -> None:
    for k in kids:
        k.stdin.close()
        k.wait()
        k.stdout.close()


def test_tree_rss_includes_running_children():
    alone = tree_rss_mb()
    kids = _holders(2)
    try:
        together = tree_rss_mb()
    finally:
        _release(kids)
    assert together - alone > 250          # two children of ~150 MB each, counted together


def test_peak_memory_keeps_the_maximum():
    with PeakMemory(interval=0.05) as peak:
        kids = _holders(1)
        try:
            # the sampler runs in its own thread: wait (not a fixed time) until
            # it has seen the child at its size
            deadline = time.monotonic() + 120
            while peak.mb < tree_rss_mb() - 50 and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            _release(kids)
    assert peak.mb > tree_rss_mb() + 100

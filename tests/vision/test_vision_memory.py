"""The process-tree memory figure counts children that run at the same time."""
import subprocess
import sys
import time

from vision.memory import PeakMemory, tree_rss_mb

HOLD = "import time; b = bytearray(150 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); time.sleep(3)"


def test_tree_rss_includes_running_children():
    alone = tree_rss_mb()
    kids = [subprocess.Popen([sys.executable, "-c", HOLD]) for _ in range(2)]
    try:
        time.sleep(1.5)
        together = tree_rss_mb()
    finally:
        for k in kids:
            k.wait()
    assert together - alone > 250          # two children of ~150 MB each, counted together


def test_peak_memory_keeps_the_maximum():
    with PeakMemory(interval=0.05) as peak:
        p = subprocess.Popen([sys.executable, "-c", HOLD])
        p.wait()
    assert peak.mb > tree_rss_mb() + 100

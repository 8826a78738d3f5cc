"""Named, independent random streams derived from one seed.

Each step draws from its own stream (`stream(seed, "timing")`), so adding a
draw in one step never shifts the numbers another step sees: the same seed and
options always give byte-identical outputs.
"""
from __future__ import annotations

import hashlib
import random


def stream(seed: int, name: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))

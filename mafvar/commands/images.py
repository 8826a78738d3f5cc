"""Still images named on the command line (`mafvar hands`, `mafvar stills`):
each one read, or one line on stderr saying why it cannot be."""
from __future__ import annotations

import sys
from typing import Iterable, Iterator

import numpy as np


def read_each(paths: Iterable[str], command: str) -> Iterator[tuple[str, np.ndarray | None, str | None]]:
    """(path, RGB image, None) for a readable image; (path, None, why) for a
    file that is not one, after printing `why` on stderr."""
    from vision.hands.detector import load_rgb

    for path in paths:
        try:
            yield path, load_rgb(path), None
        except ValueError as exc:
            print(f"mafvar {command}: error: {exc}", file=sys.stderr)
            yield path, None, str(exc)

"""MediaPipe's native start-up chatter kept off the terminal (shared by the hand models)."""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def quiet_native_stderr(enabled: bool) -> Iterator[None]:
    """Silence MediaPipe's C++ start-up chatter (TFLite, absl warnings) on fd 2.

    It writes straight to the file descriptor, so redirecting sys.stderr is
    not enough. Used only around graph creation and the first inference.
    """
    if not enabled:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)

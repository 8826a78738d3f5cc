"""MediaPipe's native start-up chatter kept off the terminal: silenced around a
graph's creation (the hand models), or, for a whole command, sent to a log file."""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TextIO
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


@contextmanager
def native_log_to(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """Send everything written to fd 2 (TensorFlow Lite, absl, MediaPipe, and
    Python's own stderr) to the file `path` for the duration; yield a stream
    to the real terminal for what the person running the command should see.

    Extraction workers started inside inherit the redirected fd 2, so their
    libraries' start-up lines land in the file too.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    terminal = os.fdopen(os.dup(saved), "w", buffering=1, errors="replace")
    with open(path, "ab") as log:
        os.dup2(log.fileno(), 2)
    try:
        yield terminal
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        terminal.flush()
        terminal.close()

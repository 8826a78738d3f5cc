"""What a long command shows on the terminal: one progress line, rewritten in
place, and nothing from the libraries underneath (their log goes to a file).

    with library_log(game_dir) as term:
        line = ProgressLine(term)
        analyze(game_dir, progress=line.show)
        line.close()
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, TextIO

LIBRARY_LOG = "third_party.log"     # in the game's analysis/ folder


class ProgressLine:
    """A `review.progress.ProgressReport` as one line (the app's bar says the same)."""

    def __init__(self, out: TextIO, label: str = "analysing") -> None:
        self.out, self.label = out, label
        self._width = 0
        self._tty = bool(getattr(out, "isatty", lambda: False)())

    def show(self, report) -> None:
        text = f"{self.label} {report.text}"[:110]
        if self._tty:
            pad = max(0, self._width - len(text))
            self.out.write("\r" + text + " " * pad)
            self._width = len(text)
        else:  # a log or a pipe: a line per change of stage, never a wall of carriage returns
            if report.stage == "load":
                # inputs are still being checked: a refusal there stays the one line it promises
                return
            key = (report.stage, int(report.fraction * 10))
            if key == getattr(self, "_last", None):
                return
            self._last = key
            self.out.write(text + "\n")
        self.out.flush()

    def close(self) -> None:
        if self._tty and self._width:
            self.out.write("\n")
            self.out.flush()
        self._width = 0


@contextmanager
def library_log(game_dir: str | Path) -> Iterator[TextIO]:
    """fd 2 into GAME_DIR/analysis/third_party.log while the command runs (analysis/
    is created in a game folder); yields the terminal's stream. A folder that is
    not a game leaves the terminal as it is (the command refuses it)."""
    import sys

    from vision.native_quiet import native_log_to

    from review.workspace import is_game_dir

    folder = Path(game_dir)
    if not folder.is_dir() or not is_game_dir(folder):
        yield sys.stderr
        return
    analysis = folder / "analysis"
    try:
        analysis.mkdir(exist_ok=True)
    except OSError:
        yield sys.stderr
        return
    with native_log_to(analysis / LIBRARY_LOG) as term:
        yield term

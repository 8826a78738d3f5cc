"""The verdict on a game's calibration, as `mafvar analyze`, `mafvar calibrate`
and the app all give it: the calibration read from the workspace, judged
against the recording's own frame size by `vision.calibration.calibration_verdict`.

A file that cannot be read is a refusal like any other, in the same words
everywhere; nothing here writes.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vision.calibration import (Calibration, CalibrationError, CalibrationIssue, IssueKind, Verdict,
                                calibration_verdict, load_calibration)
from vision.video import VideoError, probe

from .workspace import GameWorkspace, WorkspaceError

NOT_FOUND_HINT = ("propose the seats from the recording: the app's Calibration page, "
                  "or `mafvar calibrate GAME_DIR`")


@dataclass(frozen=True)
class WorkspaceVerdict:
    calibration: Calibration | None
    camera: str | None            # the camera the analysis reads (the file's first)
    frame_size: tuple[int, int] | None   # the recording's (width, height), when readable
    verdict: Verdict
    path: Path

    @property
    def usable(self) -> bool:
        return self.verdict.usable


def _refused(path: Path, message: str) -> Verdict:
    issue = CalibrationIssue("", 0, IssueKind.MISSING, message)
    return Verdict((issue,), "refused: " + message)


def video_size(ws: GameWorkspace) -> tuple[int, int] | None:
    """The first recording's frame size, or None when there is none readable."""
    try:
        videos = ws.require_videos()
        info = probe(videos[0])
    except (WorkspaceError, VideoError):
        return None
    return (info.width, info.height) if info.width and info.height else None


def workspace_verdict(game_dir: str | Path | GameWorkspace,
                      frame_size: tuple[int, int] | None = None) -> WorkspaceVerdict:
    """The verdict on GAME_DIR/calibration.json for its recording (`frame_size`
    when the caller already probed it)."""
    ws = game_dir if isinstance(game_dir, GameWorkspace) else GameWorkspace(game_dir)
    path = ws.calibration_path
    size = frame_size or video_size(ws)
    if not path.is_file():
        return WorkspaceVerdict(None, None, size, _refused(path, f"{path.name}: not found ({NOT_FOUND_HINT})"),
                                path)
    try:
        cal = load_calibration(path)
    except CalibrationError as exc:
        return WorkspaceVerdict(None, None, size, _refused(path, str(exc)), path)
    cam = next(iter(cal.cameras))
    return WorkspaceVerdict(cal, cam, size, calibration_verdict(cal, size, cam=cam), path)

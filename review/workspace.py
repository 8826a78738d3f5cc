"""One recorded game's folder: where each input and derived file lives.

Layout (docs/review-store.md):

    <game>/protocol.json  calibration.json  video.mp4 (or the cameras' files)
           truth.json (synthetic games)     review.db
           analysis/  observations.sqlite refine_plan.json landings.json
                      timeline.json alignment.json tracks.json recount.json
                      incidents.json stats.json report.html report.json
                      <step>.done markers   clips/

This module is the one place that spells these names: every other module
asks a `GameWorkspace` for a path, or uses the file-name constants below
where it has only a folder (finding games, writing a new one).

User files (protocol, calibration, videos, review.db, truth.json) are only
ever read here; nothing in this module deletes or rewrites them. Only
`analysis/` is derived and may be re-created.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from mafvar.limits import read_json_file
from review.atomic_write import write_json_atomic

VIDEO_SUFFIXES = (".mp4", ".mkv", ".mov", ".avi", ".webm", ".m4v")

# The game folder's own files (written by people, the synthetic generator or the app).
PROTOCOL_FILE = "protocol.json"
CALIBRATION_FILE = "calibration.json"
TRUTH_FILE = "truth.json"
REVIEW_DB_FILE = "review.db"
DEFAULT_VIDEO_FILE = "video.mp4"
# The derived folder and what the analysis writes there.
ANALYSIS_DIR = "analysis"
CLIPS_DIR = "clips"
OBSERVATIONS_FILE = "observations.sqlite"
REFINE_PLAN_FILE = "refine_plan.json"
LANDINGS_FILE = "landings.json"
APPEARANCE_MODEL_FILE = "appearance_model.json"  # which seat-window model ran (review.venues)
TIMELINE_FILE = "timeline.json"
ALIGNMENT_FILE = "alignment.json"
TRACKS_FILE = "tracks.json"
RECOUNT_FILE = "recount.json"
INCIDENTS_FILE = "incidents.json"
STATS_FILE = "stats.json"
REPORT_HTML_FILE = "report.html"
REPORT_JSON_FILE = "report.json"
AUDIT_STAMP_FILE = "audited.json"  # what `mafvar audit` analysed (not a step: no `.done`)

# The analysis steps `mafvar analyze` runs, in order; each writes
# analysis/<step>.done when it has finished so an interrupted run resumes.
ANALYSIS_STEPS = ("calibration_check", "extract", "align", "recount", "checks", "clips")
MARKER_SUFFIX = ".done"


class WorkspaceError(Exception):
    """The game folder is missing something a step needs; the message names the path."""


def is_game_dir(path: str | os.PathLike[str]) -> bool:
    """A game workspace is a folder holding a protocol."""
    return (Path(path) / PROTOCOL_FILE).is_file()


@dataclass(frozen=True)
class WorkspaceState:
    root: Path
    has_protocol: bool
    protocol_error: str | None  # protocol.json exists but is not readable JSON
    videos: tuple[Path, ...]  # video files present
    missing_videos: tuple[Path, ...]  # listed by the protocol's cameras but absent
    has_calibration: bool
    has_review_db: bool
    has_truth: bool
    has_incidents: bool
    has_recount: bool
    has_report: bool
    steps: dict[str, bool] = field(default_factory=dict)  # step -> done

    @property
    def analysed(self) -> bool:
        return all(self.steps.get(step, False) for step in ANALYSIS_STEPS)

    @property
    def next_step(self) -> str | None:
        for step in ANALYSIS_STEPS:
            if not self.steps.get(step, False):
                return step
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "root": str(self.root), "has_protocol": self.has_protocol,
            "protocol_error": self.protocol_error,
            "videos": [str(p) for p in self.videos],
            "missing_videos": [str(p) for p in self.missing_videos],
            "has_calibration": self.has_calibration, "has_review_db": self.has_review_db,
            "has_truth": self.has_truth, "has_incidents": self.has_incidents,
            "has_recount": self.has_recount, "has_report": self.has_report,
            "steps": dict(self.steps), "analysed": self.analysed, "next_step": self.next_step,
        }


class GameWorkspace:
    """Paths of one game folder. Construction fails clearly if the folder is missing."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not os.fspath(path).strip():
            # Path("") is the current folder: a report or an analysis would land
            # wherever the command happened to be started.
            raise WorkspaceError("no game folder given (the path is empty)")
        root = Path(path).expanduser()
        if not root.exists():
            raise WorkspaceError(f"game folder not found: {root}")
        if not root.is_dir():
            raise WorkspaceError(f"not a folder: {root} (give the game's folder)")
        self.root = root.resolve()

    def __repr__(self) -> str:
        return f"GameWorkspace({str(self.root)!r})"

    # -- fixed paths ---------------------------------------------------------------
    @property
    def protocol_path(self) -> Path:
        return self.root / PROTOCOL_FILE

    @property
    def calibration_path(self) -> Path:
        return self.root / CALIBRATION_FILE

    @property
    def review_db_path(self) -> Path:
        return self.root / REVIEW_DB_FILE

    @property
    def truth_path(self) -> Path:
        return self.root / TRUTH_FILE

    @property
    def analysis_dir(self) -> Path:
        return self.root / ANALYSIS_DIR

    @property
    def clips_dir(self) -> Path:
        return self.analysis_dir / CLIPS_DIR

    @property
    def incidents_path(self) -> Path:
        return self.analysis_dir / INCIDENTS_FILE

    @property
    def recount_path(self) -> Path:
        return self.analysis_dir / RECOUNT_FILE

    @property
    def report_html_path(self) -> Path:
        return self.analysis_dir / REPORT_HTML_FILE

    @property
    def report_json_path(self) -> Path:
        return self.analysis_dir / REPORT_JSON_FILE

    @property
    def observations_path(self) -> Path:
        return self.analysis_dir / OBSERVATIONS_FILE

    @property
    def refine_plan_path(self) -> Path:
        return self.analysis_dir / REFINE_PLAN_FILE

    @property
    def landings_path(self) -> Path:
        return self.analysis_dir / LANDINGS_FILE

    @property
    def appearance_model_path(self) -> Path:
        return self.analysis_dir / APPEARANCE_MODEL_FILE

    @property
    def timeline_path(self) -> Path:
        return self.analysis_dir / TIMELINE_FILE

    @property
    def alignment_path(self) -> Path:
        return self.analysis_dir / ALIGNMENT_FILE

    @property
    def tracks_path(self) -> Path:
        return self.analysis_dir / TRACKS_FILE

    @property
    def stats_path(self) -> Path:
        return self.analysis_dir / STATS_FILE

    @property
    def audit_stamp_path(self) -> Path:
        return self.analysis_dir / AUDIT_STAMP_FILE

    def resolve(self, relative: str) -> Path | None:
        """A path stored relative to the game folder (evidence), or None if it escapes it."""
        candidate = (self.root / relative).resolve()
        try:
            candidate.relative_to(self.root)
        except ValueError:
            return None
        return candidate

    # -- inputs -----------------------------------------------------------------------
    def read_protocol(self) -> dict[str, Any]:
        """The protocol as parsed JSON (validation is the engine's job)."""
        path = self.require_protocol()
        try:
            doc = read_json_file(path, what="protocol")
        except (OSError, ValueError) as exc:  # JSON errors and the input limits are ValueErrors
            raise WorkspaceError(f"protocol is not readable JSON: {path} ({exc})") from None
        if not isinstance(doc, dict):
            raise WorkspaceError(f"protocol is not a JSON object: {path}")
        return doc

    def require_protocol(self) -> Path:
        if not self.protocol_path.is_file():
            raise WorkspaceError(f"protocol not found: {self.protocol_path}")
        return self.protocol_path

    def require_calibration(self) -> Path:
        if not self.calibration_path.is_file():
            raise WorkspaceError(f"calibration not found: {self.calibration_path} "
                                 "(calibrate the seats first)")
        return self.calibration_path

    def expected_videos(self) -> tuple[Path, ...]:
        """The video files the protocol's cameras name; without cameras, any video here."""
        cameras = self._cameras()
        if cameras:
            return tuple(self.root / str(cam["file"]) for cam in cameras)
        return tuple(sorted(p for p in self.root.iterdir()
                            if p.is_file() and p.suffix.lower() in VIDEO_SUFFIXES))

    def videos(self) -> tuple[Path, ...]:
        return tuple(p for p in self.expected_videos() if p.is_file())

    def require_videos(self) -> tuple[Path, ...]:
        expected = self.expected_videos()
        missing = [p for p in expected if not p.is_file()]
        if missing:
            names = ", ".join(str(p) for p in missing)
            raise WorkspaceError(f"video not found: {names} (listed in {self.protocol_path})")
        if not expected:
            raise WorkspaceError(f"no video in {self.root} (expected e.g. {self.root / DEFAULT_VIDEO_FILE})")
        return expected

    def _cameras(self) -> list[Mapping[str, Any]]:
        try:
            doc = read_json_file(self.protocol_path, what="protocol")
        except (OSError, ValueError):
            return []
        cams = doc.get("cameras") if isinstance(doc, dict) else None
        if not isinstance(cams, list):
            return []
        return [c for c in cams if isinstance(c, dict) and isinstance(c.get("file"), str)
                and c["file"]]

    # -- analysis markers -----------------------------------------------------------
    def ensure_analysis_dirs(self) -> Path:
        self.clips_dir.mkdir(parents=True, exist_ok=True)
        return self.analysis_dir

    def marker_path(self, step: str) -> Path:
        if not step or "/" in step or step.startswith("."):
            raise ValueError(f"bad analysis step name {step!r}")
        return self.analysis_dir / f"{step}{MARKER_SUFFIX}"

    def mark_done(self, step: str, info: Mapping[str, Any] | None = None) -> Path:
        """Record that `step` finished (write it last, after the step's outputs)."""
        self.ensure_analysis_dirs()
        doc = {"step": step, "finished_at": datetime.now(timezone.utc).isoformat(),
               "info": dict(info or {})}
        return write_json_atomic(self.marker_path(step), doc)

    def is_done(self, step: str) -> bool:
        return self.marker_path(step).is_file()

    def marker_info(self, step: str) -> dict[str, Any] | None:
        try:
            doc = json.loads(self.marker_path(step).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def clear_marker(self, step: str) -> None:
        """Forget that a step finished (it will re-run); its outputs stay until rewritten."""
        try:
            self.marker_path(step).unlink()
        except FileNotFoundError:
            pass

    def done_steps(self) -> dict[str, bool]:
        steps = {step: self.is_done(step) for step in ANALYSIS_STEPS}
        if self.analysis_dir.is_dir():
            for marker in sorted(self.analysis_dir.glob(f"*{MARKER_SUFFIX}")):
                steps.setdefault(marker.name[: -len(MARKER_SUFFIX)], True)
        return steps

    def state(self) -> WorkspaceState:
        protocol_error = None
        if self.protocol_path.is_file():
            try:
                read_json_file(self.protocol_path, what="protocol")
            except (OSError, ValueError) as exc:
                protocol_error = f"protocol is not readable JSON: {exc}"
        expected = self.expected_videos()
        return WorkspaceState(
            root=self.root,
            has_protocol=self.protocol_path.is_file(),
            protocol_error=protocol_error,
            videos=tuple(p for p in expected if p.is_file()),
            missing_videos=tuple(p for p in expected if not p.is_file()),
            has_calibration=self.calibration_path.is_file(),
            has_review_db=self.review_db_path.is_file(),
            has_truth=self.truth_path.is_file(),
            has_incidents=self.incidents_path.is_file(),
            has_recount=self.recount_path.is_file(),
            has_report=self.report_html_path.is_file(),
            steps=self.done_steps(),
        )

"""Venue models beside the games: versions, the one in use, rollback, and the choice an analysis makes.

A venue is a named camera set-up (a hall, its camera and light). `mafvar
learn` writes each fine-tuned version of the seat windows beside the games
and never touches the committed model (vision/models/appearance.json):

    FOLDER/venues/NAME/
      venue.json       mafvar-venue v1: the version in use ("current", 0 = the
                       committed model), every version written (its model's
                       sha256) and a log of every learn and rollback
      v1/model.json    the windows (mafvar-appearance-model v1, as committed)
      v1/report.json   mafvar-venue-training v1: what it learned from, figures
      v1/examples.npz  the examples it was trained on, with their provenance
      v2/ ...

A game's venue models are in the `venues` folder of the folder holding the
game. `choose` is what an analysis asks: the committed model, or the
venue's current version, checked against the sha256 learn recorded; a
version that is missing or corrupt is an error said in one line, and the
committed model runs instead (`ModelChoice.fallback` says so, and the
analysis records it).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from vision.appearance import MODEL_PATH, WindowModel, committed_models, load_models

from .atomic_write import read_versioned_json, write_json_atomic

VENUES_DIR = "venues"
VENUE_FORMAT = "mafvar-venue"
VENUE_VERSION = 1
MODEL_FILE = "model.json"
REPORT_FILE = "report.json"
EXAMPLES_FILE = "examples.npz"
COMMITTED = "committed"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class VenueError(Exception):
    """A venue name, folder or record that cannot be used; the message says which and why."""


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or name.endswith("."):
        raise VenueError(f"venue name {name!r}: use 1-64 letters, digits, '_', '-' or '.', "
                         "starting with a letter or digit")
    return name


def venues_root(games_folder: str | Path) -> Path:
    return Path(games_folder) / VENUES_DIR


def venue_dir(games_folder: str | Path, name: str) -> Path:
    return venues_root(games_folder) / check_name(name)


def of_game(game_dir: str | Path) -> Path:
    """The folder whose `venues/` serves a game: the one holding it."""
    return Path(game_dir).resolve().parent


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


@dataclass
class VenueRecord:
    """venue.json: the version in use and the history."""
    name: str
    current: int = 0
    versions: list[dict[str, Any]] = field(default_factory=list)   # {"version", "sha256", "created_at", ...}
    log: list[dict[str, Any]] = field(default_factory=list)

    def version(self, n: int) -> dict[str, Any] | None:
        return next((v for v in self.versions if v["version"] == n), None)

    @property
    def latest(self) -> int:
        return max((v["version"] for v in self.versions), default=0)

    def to_json(self) -> dict[str, Any]:
        return {"format": VENUE_FORMAT, "version": VENUE_VERSION, "name": self.name,
                "current": self.current, "versions": self.versions, "log": self.log}


def read_venue(folder: str | Path, name: str) -> VenueRecord | None:
    """The venue's record (None: nothing learned for it yet); VenueError if unreadable."""
    path = venue_dir(folder, name) / "venue.json"
    try:
        doc = read_versioned_json(path, VENUE_FORMAT, VENUE_VERSION, VenueError)
    except FileNotFoundError:
        return None
    try:
        rec = VenueRecord(str(doc["name"]), int(doc["current"]), list(doc["versions"]), list(doc.get("log", [])))
        for v in rec.versions:
            int(v["version"]), str(v["sha256"])
    except (KeyError, TypeError, ValueError) as exc:
        raise VenueError(f"{path}: damaged venue record ({exc!r})") from None
    if rec.current and rec.version(rec.current) is None:
        raise VenueError(f"{path}: names version {rec.current} as current but has no such version")
    return rec


def write_venue(folder: str | Path, rec: VenueRecord) -> Path:
    path = venue_dir(folder, rec.name) / "venue.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_json_atomic(path, rec.to_json())


def version_dir(folder: str | Path, name: str, n: int) -> Path:
    return venue_dir(folder, name) / f"v{n}"


@dataclass(frozen=True)
class ModelChoice:
    """The seat-window model an analysis ran: the committed one or a venue version."""
    venue: str | None
    version: int                          # 0: the committed model
    path: Path
    sha256: str
    models: dict[str, WindowModel] = field(repr=False, compare=False, default_factory=dict)
    fallback: str | None = None           # why the committed model ran instead of the venue's
    # window -> seats whose held-out judged examples the venue's window read wrong (review.learn):
    # the analysis judges those seats through it nowhere (review.view `doubts`, `unlearned`)
    set_aside: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """What the analysis's fingerprints hold: unchanged for the committed model."""
        return COMMITTED if self.version == 0 else f"{self.venue}/v{self.version}/{self.sha256[:16]}"

    def to_json(self) -> dict[str, Any]:
        return {"venue": self.venue, "model_version": self.version,
                "model": COMMITTED if self.version == 0 else str(self.path), "sha256": self.sha256,
                "fallback": self.fallback, "set_aside": {k: list(v) for k, v in self.set_aside.items()}}

    def describe(self) -> str:
        if self.version == 0:
            return "the committed model" + (f" (venue {self.venue}: {self.fallback})" if self.fallback else "")
        return f"venue {self.venue} model v{self.version}"


def committed_choice(venue: str | None = None, fallback: str | None = None) -> ModelChoice:
    return ModelChoice(venue, 0, MODEL_PATH, sha256_file(MODEL_PATH) if MODEL_PATH.exists() else "",
                       committed_models(), fallback)


def load_version(folder: str | Path, rec: VenueRecord, n: int) -> ModelChoice:
    """Version n of the venue, checked against the sha256 learn recorded; VenueError if
    it is missing or corrupt."""
    entry = rec.version(n)
    path = version_dir(folder, rec.name, n) / MODEL_FILE
    if entry is None:
        raise VenueError(f"venue {rec.name} has no version {n}")
    try:
        digest = sha256_file(path)
    except OSError as exc:
        raise VenueError(f"{path}: venue model missing ({exc.strerror or exc})") from None
    if digest != entry["sha256"]:
        raise VenueError(f"{path}: venue model corrupt (its sha256 differs from the one "
                         f"`mafvar learn` recorded in venue.json)")
    try:
        models = load_models(path)
        aside = json.loads(path.read_text()).get("set_aside") or {}
        set_aside = {str(w): tuple(int(s) for s in seats) for w, seats in aside.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise VenueError(f"{path}: venue model unreadable ({exc})") from None
    return ModelChoice(rec.name, n, path, digest, models, set_aside=set_aside)


def choose(folder: str | Path, venue: str | None) -> ModelChoice:
    """The model an analysis of a game of `folder` runs with `--venue` (None: the committed
    one). Never raises for a broken venue model: the committed one is chosen and
    `fallback` says why (a bad name is still a VenueError)."""
    if venue is None:
        return committed_choice()
    check_name(venue)
    try:
        rec = read_venue(folder, venue)
        if rec is None or rec.current == 0:
            return committed_choice(venue)
        return load_version(folder, rec, rec.current)
    except VenueError as exc:
        return committed_choice(venue, f"{exc}; the committed model was used")


def rollback(folder: str | Path, name: str, to: int | None = None) -> tuple[int, int]:
    """Make an earlier version current (default: the one before the current one; 0 = the
    committed model). Nothing is deleted; returns (from, to)."""
    rec = read_venue(folder, name)
    if rec is None or not rec.versions:
        raise VenueError(f"venue {name} has no learned model to roll back")
    if to is None:
        older = [v["version"] for v in rec.versions if v["version"] < rec.current]
        to = max(older, default=0)
    if to != 0:
        load_version(folder, rec, to)   # refuse to roll back onto a broken version
    if to == rec.current:
        raise VenueError(f"venue {name}: version {to} is already the one in use")
    before = rec.current
    rec.current = to
    rec.log.append({"at": _now(), "act": "rollback", "from": before, "to": to})
    write_venue(folder, rec)
    return before, to


def add_version(folder: str | Path, name: str, models: dict[str, WindowModel], report: dict,
                meta: dict) -> int:
    """Write the next version (model, report) and make it current; returns its number.
    The caller writes its examples into the version's folder first (`next_version_dir`)."""
    from vision.appearance import save_models
    rec = read_venue(folder, name) or VenueRecord(name)
    n = rec.latest + 1
    vdir = version_dir(folder, name, n)
    vdir.mkdir(parents=True, exist_ok=True)
    save_models(models, vdir / MODEL_FILE, meta)
    write_json_atomic(vdir / REPORT_FILE, report)
    entry = {"version": n, "sha256": sha256_file(vdir / MODEL_FILE), "created_at": _now(),
             "games": report.get("games", []), "examples": report.get("examples", {}).get("total")}
    rec.versions.append(entry)
    rec.log.append({"at": entry["created_at"], "act": "learn", "from": rec.current, "to": n})
    rec.current = n
    write_venue(folder, rec)
    return n


def next_version_dir(folder: str | Path, name: str) -> Path:
    rec = read_venue(folder, name)
    return version_dir(folder, name, (rec.latest if rec else 0) + 1)


def list_venues(folder: str | Path) -> list[str]:
    root = venues_root(folder)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and _NAME.match(p.name))


def recorded_choice(doc: dict | None) -> str:
    """One line for what an analysis recorded (analysis/appearance_model.json)."""
    if not doc:
        return "the committed model"
    if doc.get("model_version"):
        return f"venue {doc.get('venue')} model v{doc['model_version']}"
    return "the committed model" + (f" (venue {doc.get('venue')})" if doc.get("venue") else "")


def read_json(path: Path) -> dict | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


__all__ = ["VenueError", "VenueRecord", "ModelChoice", "check_name", "venues_root", "venue_dir", "of_game",
           "read_venue", "write_venue", "version_dir", "choose", "committed_choice", "load_version",
           "rollback", "add_version", "next_version_dir", "list_venues", "recorded_choice", "COMMITTED"]

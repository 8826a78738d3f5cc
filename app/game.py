"""One game as the app shows it: the workspace plus whatever of its files could be read.

Loading never raises for a damaged derived file: each problem is kept as a
message for the page to show, so a bad incidents.json still lets a judge
see the video and the protocol.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from engine.profiles import Profile, ProfileError, get_profile, profile_for_game
from review.coverage import Coverage, coverage, timeline_intervals
from review.incidents import Incident, IncidentFormatError, load_incidents
from review.recount_file import RecountFile, RecountFormatError, load_recount
from review.workspace import GameWorkspace, WorkspaceError, WorkspaceState, is_game_dir

GAMES_ENV = "MAFVAR_GAMES"  # os.pathsep-separated game folders or folders of games


class GameLoadError(Exception):
    """The folder is not a game workspace at all; the message says why."""


@dataclass(frozen=True)
class LoadedGame:
    ws: GameWorkspace
    state: WorkspaceState
    protocol: dict[str, Any] | None
    incidents: tuple[Incident, ...]
    recount: RecountFile | None
    problems: tuple[str, ...]  # readable messages for what could not be loaded
    # where a seat could not be judged (incidents.json `abstentions`, review.view)
    abstentions: tuple[dict[str, Any], ...] = ()

    @property
    def root(self) -> Path:
        return self.ws.root

    @property
    def video(self) -> Path | None:
        vids = self.state.videos
        return vids[0] if vids else None

    @property
    def camera_id(self) -> str | None:
        cams = (self.protocol or {}).get("cameras") or []
        return str(cams[0].get("id")) if cams and isinstance(cams[0], dict) and cams[0].get("id") else None

    @property
    def profile(self) -> Profile:
        """The game's rule profile (the default one when the protocol names none it knows)."""
        game = (self.protocol or {}).get("game") or {}
        try:
            return profile_for_game(game if isinstance(game, dict) else {})
        except ProfileError:
            return get_profile()

    @property
    def title(self) -> str:
        game = (self.protocol or {}).get("game") or {}
        parts = [str(game[k]) for k in ("tournament",) if game.get(k)]
        if game.get("table") is not None:
            parts.append(f"table {game['table']}")
        if game.get("number") is not None:
            parts.append(f"game {game['number']}")
        return " · ".join(parts) or self.root.name

    def incident(self, incident_id: str) -> Incident | None:
        return next((i for i in self.incidents if i.id == incident_id), None)


def load_game(path: str | os.PathLike[str]) -> LoadedGame:
    try:
        ws = GameWorkspace(path)
    except WorkspaceError as exc:
        raise GameLoadError(str(exc)) from None
    state = ws.state()
    problems: list[str] = []
    if not state.has_protocol:
        raise GameLoadError(f"{ws.root} is not a game workspace: it has no protocol.json")
    protocol = None
    try:
        protocol = ws.read_protocol()
    except WorkspaceError as exc:
        problems.append(str(exc))
    if state.missing_videos:
        problems.append("video not found: " + ", ".join(p.name for p in state.missing_videos))
    incidents: tuple[Incident, ...] = ()
    abstentions: tuple[dict[str, Any], ...] = ()
    if state.has_incidents:
        try:
            inc_file = load_incidents(ws.incidents_path)
            incidents, abstentions = inc_file.incidents, inc_file.abstentions
        except (IncidentFormatError, OSError) as exc:
            problems.append(f"incidents.json cannot be read: {exc}")
    recount = None
    if state.has_recount:
        try:
            recount = load_recount(ws.recount_path)
        except (RecountFormatError, OSError) as exc:
            problems.append(f"recount.json cannot be read: {exc}")
    return LoadedGame(ws, state, protocol, incidents, recount, tuple(problems), abstentions)


def game_coverage(game: LoadedGame) -> Coverage | None:
    """How much of the game the picture judged (review.coverage), or None before a
    recount; a Coverage with no cells where the timeline names no vote call."""
    if game.recount is None:
        return None
    return coverage(game.recount.calls, timeline_intervals(game.ws.timeline_path), game.abstentions)


def read_record_fit(ws: GameWorkspace) -> dict[str, Any] | None:
    """analysis/record_fit.json (review.record_fit), or None before an analysis made it."""
    import json

    from review.record_fit import FILE, FORMAT
    path = ws.analysis_dir / FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == FORMAT else None


def read_stakes(ws: GameWorkspace) -> list[dict[str, Any]]:
    """The voting passes with cells the picture could not judge (analysis/stakes.json,
    review.stakes), those whose unread seats could have changed who left first."""
    from review.stakes import load_stakes
    # a vote whose record contradicts the picture first: its counts or its lists are wrong
    return sorted(load_stakes(ws.analysis_dir),
                  key=lambda p: (not p.get("decides"), p.get("record_fits") is not False, p.get("t0") or 0.0))


def read_analysis_warnings(ws: GameWorkspace, record_fit: dict[str, Any] | None = None) -> list[str]:
    """What the last analysis warned of on the terminal (analysis/stats.json), less what
    the page shows already: the record fit's message and the calibration's lines."""
    import json

    try:
        doc = json.loads(ws.stats_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    lines = doc.get("warnings") if isinstance(doc, dict) else None
    if not isinstance(lines, list):
        return []
    shown = {record_fit.get("message")} if record_fit else set()
    return [str(w) for w in lines if w not in shown and not str(w).startswith("calibration.json:")]


def find_games(roots: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Game folders among `roots`: each root is a game, or a folder holding games."""
    found: list[Path] = []
    for root in roots:
        p = Path(root).expanduser()
        if not p.is_dir():
            continue
        if is_game_dir(p):
            found.append(p.resolve())
            continue
        for child in sorted(p.iterdir()):
            if child.is_dir() and is_game_dir(child):
                found.append(child.resolve())
    seen: set[Path] = set()
    return [g for g in found if not (g in seen or seen.add(g))]


def roots_from_env(environ: dict[str, str] | None = None) -> list[str]:
    value = (environ if environ is not None else os.environ).get(GAMES_ENV, "")
    return [p for p in value.split(os.pathsep) if p.strip()]

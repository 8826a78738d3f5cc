"""The organiser's overview: one summary row per game in a folder."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.game import GameLoadError, load_game


@dataclass(frozen=True)
class GameSummary:
    path: Path
    title: str
    incidents: int
    result_changing: int
    decided: int
    open_appeals: int
    appeals: int
    analysed: bool
    has_report: bool
    problem: str = ""

    @property
    def review_status(self) -> str:
        if self.problem:
            return "cannot read"
        if not self.analysed and not self.incidents:
            return "not analysed"
        if self.open_appeals:
            return "appeal open"
        if self.decided < self.incidents:
            return f"{self.incidents - self.decided} to review"
        return "reviewed"


def summarise(path: Path) -> GameSummary:
    from review.store import ReviewStore

    try:
        game = load_game(path)
    except GameLoadError as exc:
        return GameSummary(path, path.name, 0, 0, 0, 0, 0, False, False, str(exc))
    decided = open_appeals = appeals = 0
    problem = ""
    if game.ws.review_db_path.exists():
        try:
            with ReviewStore.open(game.ws.review_db_path) as s:
                ids = {i.id for i in game.incidents}
                decided = len(ids & set(s.current_decisions()))
                all_appeals = s.appeals()
                appeals = len(all_appeals)
                open_appeals = sum(1 for a in all_appeals if a.status == "open")
        except Exception as exc:
            problem = f"review.db: {exc}"
    return GameSummary(game.root, game.title, len(game.incidents),
                       sum(1 for i in game.incidents if i.impact.changes_result), decided,
                       open_appeals, appeals, game.state.analysed or game.state.has_incidents,
                       game.state.has_report, problem)

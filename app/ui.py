"""What every page shares: the open game, the reviewer, page links and safe store access.

Pages call `require_game()` first; it shows a clear error and stops the
page (never raises) when no game is open or the folder is not a game.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import streamlit as st

from app.game import GameLoadError, LoadedGame, load_game
from app.identity import Reviewer, reviewer_from

GAME_KEY = "game_dir"
INCIDENT_KEY = "incident_id"
NAME_KEY = "reviewer_name"
ROLE_KEY = "reviewer_role"

PAGE_FILES = {
    "games": "views/games.py",
    "calibration": "views/calibration.py",
    "timeline": "views/timeline.py",
    "queue": "views/queue.py",
    "incident": "views/incident.py",
    "votes": "views/votes.py",
    "appeals": "views/appeals.py",
    "audit": "views/audit.py",
}


def open_game(path: str | Path) -> None:
    st.session_state[GAME_KEY] = str(Path(path).expanduser().resolve())
    st.session_state.pop(INCIDENT_KEY, None)


def current_game_dir() -> str | None:
    value = st.session_state.get(GAME_KEY)
    return value if isinstance(value, str) and value else None


def require_game() -> LoadedGame:
    path = current_game_dir()
    if path is None:
        st.error("No game is open. Open a game on the Games page first.")
        st.page_link(PAGE_FILES["games"], label="Go to Games", icon=":material/folder_open:")
        st.stop()
    try:
        game = load_game(path)
    except GameLoadError as exc:
        st.error(f"Cannot open the game: {exc}")
        st.stop()
    except Exception as exc:  # a page must never show a traceback to a judge
        st.error(f"Cannot open the game at {path}: {exc}")
        st.stop()
    for problem in game.problems:
        st.warning(problem)
    return game


def reviewer() -> Reviewer | None:
    return reviewer_from(st.session_state.get(NAME_KEY), st.session_state.get(ROLE_KEY))


def require_reviewer(action: str) -> Reviewer | None:
    """The reviewer, or None after telling the user to identify first."""
    who = reviewer()
    if who is None:
        st.error(f"Enter your name and role in the sidebar before you {action}.")
    return who


@contextmanager
def store(game: LoadedGame, *, create: bool = False) -> Iterator[object | None]:
    """The game's ReviewStore, or None if it has no review.db yet and `create` is False.

    Reading never creates review.db; the first write does.
    """
    from review.store import ReviewStore, ReviewStoreError

    path = game.ws.review_db_path
    if not create and not path.exists():
        yield None
        return
    try:
        s = ReviewStore.open(path)
    except (ReviewStoreError, OSError) as exc:
        # a foreign or damaged review.db is left untouched; say so and stop the page
        st.error(f"review.db cannot be used: {exc}")
        st.stop()
    try:
        yield s
    finally:
        s.close()


def open_incident(incident_id: str) -> None:
    st.session_state[INCIDENT_KEY] = incident_id
    st.switch_page(PAGE_FILES["incident"])

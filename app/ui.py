"""What every page shares: the open game, the reviewer, page links and safe store access.

Pages call `require_game()` first; it shows a clear error and stops the
page (never raises) when no game is open or the folder is not a game.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import streamlit as st

from app.game import GameLoadError, LoadedGame, load_game
from app.identity import Reviewer, reviewer_from

if TYPE_CHECKING:
    from review.store import ReviewStore

GAME_KEY = "game_dir"
INCIDENT_KEY = "incident_id"
NAME_KEY = "reviewer_name"
ROLE_KEY = "reviewer_role"
PASS_INPUT_KEY = "reviewer_passphrase"    # the password field (server memory only, never the URL)
SIGNED_KEY = "reviewer_signed_in"         # who proved their role, and with which passphrase
SIGNIN_MSG_KEY = "reviewer_signin_message"

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


def rolebook_for(game_dir: str | None):
    """(the roles file governing the game or None, an error message or None)."""
    if not game_dir:
        return None, None
    from review.rolebook import RoleBookError, find_rolebook
    try:
        return find_rolebook(game_dir), None
    except RoleBookError as exc:
        return None, f"{exc}; nobody may act until the organiser repairs it"


def passphrases_on(game_dir: str | None) -> bool:
    book, err = rolebook_for(game_dir)
    return err is not None or (book is not None and book.protected)


def _claimed() -> Reviewer | None:
    return reviewer_from(st.session_state.get(NAME_KEY), st.session_state.get(ROLE_KEY))


def reviewer() -> Reviewer | None:
    """Who may act now: the name and role typed in the sidebar, and, when the game's
    folder has role passphrases, only after signing in with that role's passphrase."""
    who = _claimed()
    game = current_game_dir()
    if who is None or game is None:
        return who
    book, err = rolebook_for(game)
    if err is not None:
        return None
    if book is None or not book.protected:
        return who  # open practice mode
    signed = st.session_state.get(SIGNED_KEY) or {}
    if (signed.get("name"), signed.get("role"), signed.get("folder")) == (
            who.name, who.role.value, str(book.folder)):
        return who
    return None


def passphrase() -> str | None:
    """The signed-in role's passphrase, for the store (which checks it again)."""
    if reviewer() is None:
        return None
    return (st.session_state.get(SIGNED_KEY) or {}).get("passphrase")


def sign_in() -> None:
    """The sidebar's Sign in button (a callback: it may clear the password field)."""
    from review.store import check_identity
    typed = st.session_state.get(PASS_INPUT_KEY) or ""
    st.session_state[PASS_INPUT_KEY] = ""
    who, game = _claimed(), current_game_dir()
    st.session_state.pop(SIGNED_KEY, None)
    if who is None or game is None:
        st.session_state[SIGNIN_MSG_KEY] = "Open a game and enter your name first."
        return
    try:
        check_identity(game, who.name, who.role.value, typed)
    except (PermissionError, ValueError) as exc:
        st.session_state[SIGNIN_MSG_KEY] = f"Not signed in: {exc}"
        return
    book, _ = rolebook_for(game)
    st.session_state[SIGNED_KEY] = {"name": who.name, "role": who.role.value,
                                    "folder": str(book.folder) if book else "",
                                    "passphrase": typed}
    st.session_state[SIGNIN_MSG_KEY] = f"Signed in as {who}."


def require_reviewer(action: str) -> Reviewer | None:
    """The reviewer, or None after telling the user to identify first."""
    who = reviewer()
    if who is None:
        if passphrases_on(current_game_dir()):
            st.error(f"Sign in (name, role and the role's passphrase) in the sidebar before you "
                     f"{action}.")
        else:
            st.error(f"Enter your name and role in the sidebar before you {action}.")
    return who


def authorise_export(game_dir: Path, who: Reviewer) -> None:
    """Exports are the chief judge's or the organiser's; logged in review.db when it exists
    (an export never creates it). PermissionError / ReviewStoreError if refused."""
    from review.roles import Action, ReviewerRole, require_permission
    from review.store import ReviewStore, check_identity
    require_permission(ReviewerRole(who.role.value), Action.EXPORT, who.name)
    db = Path(game_dir) / "review.db"
    if db.is_file():
        with ReviewStore.open(db) as s:
            s.record_export(who.name, who.role.value, "report", passphrase=passphrase())
    else:
        check_identity(game_dir, who.name, who.role.value, passphrase())


@contextmanager
def store(game: LoadedGame, *, create: bool = False) -> Iterator[ReviewStore | None]:
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

"""The appeals review app: `streamlit run app/main.py` (or `mafvar review`).

The reviewer's identity and the open game live in session state and are
mirrored in the URL's query parameters, so a reload (or a link shared with
another judge) reopens the same game and incident.
"""
from __future__ import annotations

import sys
from pathlib import Path

# `streamlit run app/main.py` puts app/ first on sys.path; the project root
# must be importable for `app.*`, `review.*` and `engine.*`.
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import streamlit as st  # noqa: E402

from app.game import find_games, roots_from_env  # noqa: E402
from review.store import ReviewerRole  # noqa: E402
from app.ui import GAME_KEY, INCIDENT_KEY, NAME_KEY, PAGE_FILES, ROLE_KEY, reviewer  # noqa: E402

st.set_page_config(page_title="mafvar review", page_icon="⚖️", layout="wide")

QUERY_KEYS = {"game": GAME_KEY, "incident": INCIDENT_KEY, "reviewer": NAME_KEY, "role": ROLE_KEY}


def restore_from_url() -> None:
    for param, key in QUERY_KEYS.items():
        value = st.query_params.get(param)
        if value and not st.session_state.get(key):
            st.session_state[key] = value
    if not st.session_state.get(GAME_KEY):
        games = find_games(roots_from_env())
        if len(games) == 1:  # started on one game: open it
            st.session_state[GAME_KEY] = str(games[0])
    if st.session_state.get(ROLE_KEY) not in {r.value for r in ReviewerRole}:
        st.session_state[ROLE_KEY] = ReviewerRole.CHIEF_JUDGE.value


def mirror_to_url() -> None:
    for param, key in QUERY_KEYS.items():
        value = st.session_state.get(key)
        if value:
            if st.query_params.get(param) != value:
                st.query_params[param] = value
        elif param in st.query_params:
            del st.query_params[param]


def identity_sidebar() -> None:
    with st.sidebar:
        st.subheader("Reviewer")
        st.text_input("Your name", key=NAME_KEY, placeholder="e.g. Anna Petrova")
        roles = [r.value for r in ReviewerRole]
        st.selectbox("Role", roles, key=ROLE_KEY,
                     format_func=lambda v: ReviewerRole(v).label)
        who = reviewer()
        if who is None:
            st.caption("Enter your name: decisions are signed with it.")
        game = st.session_state.get(GAME_KEY)
        if game:
            st.caption(f"Game: `{Path(game).name}`")


restore_from_url()
identity_sidebar()

pages = [
    st.Page(PAGE_FILES["games"], title="Games", icon=":material/folder_open:", default=True),
    st.Page(PAGE_FILES["calibration"], title="Calibration", icon=":material/crop_free:"),
    st.Page(PAGE_FILES["timeline"], title="Timeline", icon=":material/timeline:"),
    st.Page(PAGE_FILES["queue"], title="Incidents", icon=":material/list:"),
    st.Page(PAGE_FILES["incident"], title="Incident", icon=":material/visibility:"),
    st.Page(PAGE_FILES["votes"], title="Vote verification", icon=":material/how_to_vote:"),
    st.Page(PAGE_FILES["appeals"], title="Appeals", icon=":material/gavel:"),
    st.Page(PAGE_FILES["audit"], title="Audit", icon=":material/fact_check:"),
]
page = st.navigation(pages)
mirror_to_url()
page.run()
mirror_to_url()

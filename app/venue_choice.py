"""The Games page's venue setting: which seat-window model the game's analysis runs.

A venue (a named camera set-up) gets its own model from `mafvar learn` once
its judges have decided incidents and verified votes; until then its games
run the committed model but are counted as the venue's (review.venues).
"""
from __future__ import annotations

import streamlit as st

from review.venues import VenueError, check_name, list_venues, of_game, read_json, read_venue, recorded_choice

COMMITTED_LABEL = "(committed model)"
NEW_LABEL = "(new venue…)"


def venue_picker(game) -> tuple[str | None, bool]:
    """(the venue to analyse for, None for the committed model; whether the choice is usable)."""
    folder = of_game(game.root)
    recorded = read_json(game.ws.appearance_model_path)
    if recorded is not None:
        # nothing to say before an analysis has recorded which model ran
        st.caption(f"Seat windows of the last analysis: {recorded_choice(recorded)}"
                   + (f" — {recorded['fallback']}" if recorded.get("fallback") else ""))
    known = list_venues(folder)
    options = [COMMITTED_LABEL, *known, NEW_LABEL]
    last = (recorded or {}).get("venue")
    choice = st.selectbox("Venue (camera set-up)", options, key="venue_pick",
                          index=options.index(last) if last in known else 0,
                          help="The game's analysis runs this venue's model from `mafvar learn` "
                               "(the committed one until the venue has learned).")
    if choice == COMMITTED_LABEL:
        return None, True
    name = st.text_input("New venue name", key="venue_new") if choice == NEW_LABEL else choice
    if not name:
        return None, False
    try:
        check_name(name)
        rec = read_venue(folder, name)
    except VenueError as exc:
        st.error(str(exc))
        return None, False
    st.caption(f"Venue {name}: " + (f"model v{rec.current} in use" if rec and rec.current
                                    else "no learned model yet; the committed one runs"))
    return name, True

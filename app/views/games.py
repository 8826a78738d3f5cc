"""Games: open a workspace, create one from uploads, see and run its analysis."""
from __future__ import annotations

import time
from pathlib import Path

import streamlit as st

from app.analysis import Progress
from app.game import GameLoadError, find_games, load_game, roots_from_env
from app.seat_regions import check_file
from app.ui import current_game_dir, open_game
from app.venue_choice import venue_picker
from app.uploads import ProtocolKind, Upload, UploadRefused, create_workspace, size_limit
from review.pipeline import analyze
from review.workspace import ANALYSIS_STEPS, is_game_dir

st.title("Games")

# -- open --------------------------------------------------------------------------------
roots = roots_from_env()
games = find_games(roots)
col_list, col_path = st.columns(2)
with col_list:
    if games:
        choice = st.selectbox("Games in the configured folders", [str(g) for g in games],
                              format_func=lambda p: Path(p).name, key="games_pick")
        if st.button("Open selected game", key="open_selected", type="primary"):
            open_game(choice)
            st.rerun()
    else:
        st.info("No game folders were given at start-up (`mafvar review GAME_DIR...`). "
                "Open one by its path.")
with col_path:
    typed = st.text_input("Game folder path", key="game_path_input",
                          placeholder="/path/to/game")
    if st.button("Open this folder", key="open_path"):
        try:
            load_game(typed)
        except GameLoadError as exc:
            st.error(f"Cannot open it: {exc}")
        else:
            open_game(typed)
            st.rerun()

# -- the open game -----------------------------------------------------------------------
path = current_game_dir()
if path:
    try:
        game = load_game(path)
    except GameLoadError as exc:
        st.error(f"Cannot open the game: {exc}")
        game = None
    if game is not None:
        st.header(game.title)
        st.caption(f"`{game.root}` · profile `{game.profile.name}`")
        for problem in game.problems:
            st.warning(problem)
        state = game.state
        c1, c2, c3, c4 = st.columns(4)
        c1.metric("Incidents", len(game.incidents))
        c2.metric("Vote calls recounted", len(game.recount.calls) if game.recount else 0)
        c3.metric("Video", "present" if state.videos else "missing")
        c4.metric("Calibration", "present" if state.has_calibration else "missing")
        steps = " · ".join(f"{':green[:material/check_circle:]' if done else ':gray[:material/radio_button_unchecked:]'} {step}"
                           for step, done in state.steps.items())
        st.markdown(f"**Analysis**: {'complete' if state.analysed else 'next step: ' + str(state.next_step)}"
                    f"  \n{steps}")

        calib = check_file(game.ws.calibration_path)
        if not calib.ok:
            st.error("Analysis refused: the calibration is invalid. Fix it on the Calibration "
                     "page.  \n" + "  \n".join(calib.problems))
        label = "Resume analysis" if any(state.steps.values()) and not state.analysed else "Run analysis"
        venue, venue_ok = venue_picker(game)
        if st.button(label, key="run_analysis", disabled=not calib.ok or not venue_ok):
            bar = st.progress(0.0, text="starting…")
            progress = Progress(time.monotonic, steps=ANALYSIS_STEPS)

            def report(*args, **kwargs):
                frac, msg = progress.update(*args, **kwargs)
                bar.progress(min(max(frac, 0.0), 1.0), text=progress.text(msg))

            try:
                analyze(game.root, progress=report, venue=venue)
            except Exception as exc:  # the pipeline's error is the user's message
                st.error(f"Analysis stopped: {exc}. Finished steps are kept; "
                         "press Resume to continue.")
            else:
                bar.progress(1.0, text="done")
                st.success("Analysis finished.")

# -- create ------------------------------------------------------------------------------
st.divider()
st.subheader("New game from a recording and a protocol")
default_root = next((r for r in roots if not is_game_dir(r)),
                    str(Path.cwd() / "games"))
with st.form("create_game", clear_on_submit=False):
    new_root = st.text_input("Create it in folder", value=default_root, key="new_root")
    new_name = st.text_input("Game name (a new folder)", key="new_name", placeholder="final-table1-game3")
    kind = st.radio("Protocol format", [k.value for k in ProtocolKind], horizontal=True, key="new_kind")
    video_file = st.file_uploader("Video", type=["mp4", "mkv", "mov", "avi", "webm", "m4v"],
                                  key="new_video")
    proto_file = st.file_uploader("Protocol (JSON)", type=["json"], key="new_protocol")
    st.caption(f"Upload limit: {size_limit() / 1024 ** 3:.1f} GB. Existing folders are never overwritten.")
    submitted = st.form_submit_button("Create game")
if submitted:
    if video_file is None or proto_file is None:
        st.error("Choose both a video and a protocol file.")
    else:
        try:
            created = create_workspace(Path(new_root), new_name.strip(),
                                       Upload(video_file.name, video_file.getvalue()),
                                       Upload(proto_file.name, proto_file.getvalue()),
                                       ProtocolKind(kind))
        except UploadRefused as exc:
            st.error(f"Refused: {exc}")
        except OSError as exc:
            st.error(f"Could not create the game folder: {exc}")
        else:
            open_game(created)
            st.success(f"Created {created}. Calibrate the seats, then run the analysis.")

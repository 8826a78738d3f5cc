"""Games: open a workspace, create one from uploads, see and run its analysis."""
from __future__ import annotations

import time
from pathlib import Path

import streamlit as st

from app.analysis_state import analysis_summary
from app.game import (GameLoadError, find_games, game_coverage, load_game, read_analysis_warnings, read_record_fit, read_stakes,
                      roots_from_env)
from app.ui import PAGE_FILES, current_game_dir, open_game
from app.venue_choice import venue_picker
from app.uploads import ProtocolKind, Upload, UploadRefused, create_workspace, size_limit
from review.calibration_verdict import workspace_verdict
from review.coverage import coverage_text
from review.pipeline import analyze
from review.progress import ProgressReport, format_duration
from review.workspace import is_game_dir

FINISHED_KEY = "analysis_finished"      # {"game", "wall_s"} of the run this session just finished
CREATED_KEY = "game_created"            # the folder the form just created, said once after the rerun

st.title("Games")
# the game the form below created on the run before this one
created_now = st.session_state.pop(CREATED_KEY, None)
if created_now:
    st.success(f"Created {created_now}.")

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
    elif roots:
        # the folder the app was started on, still empty: say so, not that none was given
        st.info("No game yet in " + ", ".join(f"`{r}`" for r in roots)
                + ". Create one below from a recording and its protocol, or open a game folder by its path.")
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
        said, rows = analysis_summary(state.steps)
        steps = " · ".join(f"{':green[:material/check_circle:]' if ok else ':gray[:material/radio_button_unchecked:]'} {label}"
                           for label, ok in rows)
        st.markdown(f"**Analysis**: {said}  \n{steps}")

        fit = read_record_fit(game.ws)
        if fit is not None:
            # a fit with nothing compared (no mark of the record in the video) is not a success
            (st.success if fit.get("fits") and not fit.get("withheld") and fit.get("marks_expected") else
             st.warning if fit.get("fits") else st.error)(fit.get("message", ""))
        cov = game_coverage(game) if state.analysed else None
        if cov is not None and cov.cells:
            # how much the picture could judge, before anything else: "0 incidents" on a game
            # where every seat abstained is not a clean game
            (st.warning if cov.thin else st.caption)(coverage_text(cov))
        if state.analysed:
            # what the terminal said too: a recording shorter than the record, marks not found
            warned = read_analysis_warnings(game.ws, fit)
            if warned:
                st.warning("The last analysis warned:  \n" + "  \n".join(f"• {w}" for w in warned))
            # votes the recount could not settle where it matters: where the record and the
            # picture disagree first (its counts or its lists are wrong), then the rest
            at_stake = [p for p in read_stakes(game.ws) if p.get("decides")]
            clash = [p for p in at_stake if p.get("record_fits") is False]
            rest = [p for p in at_stake if p.get("record_fits") is not False]
            if clash:
                st.warning(f"**The record and the picture disagree** in {len(clash)} vote(s) that seats the "
                           "picture could not judge could have decided: look at those seats yourself.  \n"
                           + "  \n".join(f"• {p['text']}" for p in clash))
            if rest:
                # "agrees" only where the record was checked against judged cells (record_fits true);
                # with nothing judged there was nothing to agree with
                checked = [p.get("record_fits") for p in rest]
                why = (" (the record agrees with what it saw)" if all(f is True for f in checked) else
                       " (the picture judged too little of them to check the record)" if all(f is None for f in checked)
                       else "")
                with st.expander(f"{len(rest)} {'other ' if clash else ''}vote(s) where seats the picture could "
                                 f"not judge could have changed who left{why}"):
                    st.markdown("\n".join(f"- {p['text']}" for p in rest))
            if at_stake:
                st.page_link(PAGE_FILES["votes"], label="Open the vote verification", icon=":material/how_to_vote:")
        checked = workspace_verdict(game.ws)
        if not checked.usable and not state.has_calibration:
            # a new game: the seats are the next step, not a fault
            st.info("Next: the seats. The analysis runs once they are calibrated: propose them from the "
                    "recording on the Calibration page.")
            st.page_link(PAGE_FILES["calibration"], label="Calibrate the seats (propose them from the recording)",
                         icon=":material/crop_free:")
        elif not checked.usable:
            st.error(("The analysis shown was made with an earlier calibration. " if state.analysed else "")
                     + f"The analysis is refused until the seats are calibrated: {checked.verdict.summary}.  \n"
                     + "  \n".join(f"• {p}" for p in checked.verdict.refusal_lines))
            st.page_link(PAGE_FILES["calibration"], label="Calibrate the seats (propose them from the recording)",
                         icon=":material/crop_free:")
        elif checked.verdict.warnings:
            with st.expander(f"Calibration usable, {len(checked.verdict.warnings)} warning(s): what they cost"):
                for line in checked.verdict.warning_lines:
                    st.markdown(f"- {line}")
        done = st.session_state.get(FINISHED_KEY)
        if done and done.get("game") == str(game.root):
            st.success(f"Analysis finished in {format_duration(done['wall_s'], about=False)}: "
                       f"{len(game.incidents)} incident(s) to review.")
        if state.analysed:
            st.page_link(PAGE_FILES["queue"], label=f"Open the incident queue ({len(game.incidents)})",
                         icon=":material/list:")
        label = "Resume analysis" if any(state.steps.values()) and not state.analysed else "Run analysis"
        venue, venue_ok = venue_picker(game)
        if st.button(label, key="run_analysis", disabled=not checked.usable or not venue_ok):
            bar = st.progress(0.0, text="starting…")

            def report(r: ProgressReport) -> None:
                bar.progress(min(max(r.fraction, 0.0), 1.0), text=r.text)

            t0 = time.monotonic()
            try:
                analyze(game.root, progress=report, venue=venue)
            except Exception as exc:  # the pipeline's error is the user's message
                st.error(f"Analysis stopped: {exc}. Finished steps are kept; "
                         "press Resume to continue.")
            else:
                st.session_state[FINISHED_KEY] = {"game": str(game.root), "wall_s": time.monotonic() - t0}
                st.rerun()     # the counts, the steps and the record's fit above are now stale

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
            # once more from the top: the new game is then listed and shown as open above
            st.session_state[CREATED_KEY] = str(created)
            st.rerun()

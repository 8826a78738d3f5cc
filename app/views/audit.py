"""Audit: every game of a folder at a glance, with reports to export."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from app.audit_view import summarise
from app.game import find_games, roots_from_env
from review.store import ReviewerRole
from app.ui import current_game_dir, open_game, reviewer
from review.report import write_report
from review.workspace import GameWorkspace

st.title("Audit")
me = reviewer()
if me is not None and me.role is not ReviewerRole.ORGANISER:
    st.caption("This overview is meant for organisers; judges may read it too.")

roots = roots_from_env()
parent = str(Path(current_game_dir()).parent) if current_game_dir() else (roots[0] if roots else "")
folder = st.text_input("Folder of games", value=parent, key="audit_folder")
if not folder or not Path(folder).expanduser().is_dir():
    st.error(f"Not a folder: {folder or '(empty)'}. Give the folder that holds the game folders.")
    st.stop()
games = find_games([folder])
if not games:
    st.info("No game folders (with a protocol.json) in this folder.")
    st.stop()

summaries = [summarise(g) for g in games]
st.dataframe(pd.DataFrame([{
    "game": s.path.name, "title": s.title, "incidents": s.incidents,
    "change the result": s.result_changing, "decided": s.decided,
    "appeals": s.appeals, "open appeals": s.open_appeals, "status": s.review_status,
    "report": "yes" if s.has_report else "—", "problem": s.problem} for s in summaries]),
    hide_index=True, width="stretch")

st.subheader("Reports")
for s in summaries:
    c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="center")
    c1.markdown(f"**{s.path.name}** · {s.review_status}")
    if c2.button("Open", key=f"audit_open_{s.path.name}"):
        open_game(s.path)
        st.switch_page("views/queue.py")
    html = GameWorkspace(s.path).report_html_path
    if c3.button("Export report", key=f"audit_export_{s.path.name}"):
        try:
            write_report(s.path)
        except Exception as exc:
            st.error(f"{s.path.name}: the report could not be written: {exc}")
    if html.is_file():
        st.download_button(f"Download {s.path.name} report (HTML)", html.read_bytes(),
                           file_name=f"{s.path.name}-report.html", mime="text/html",
                           key=f"audit_dl_{s.path.name}")

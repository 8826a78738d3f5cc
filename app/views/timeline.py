"""Timeline: the game's phases over the video clock, incidents as markers."""
from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from app.anchoring import alignment_doc, anchor_section, needs_anchor_section
from app.frames import FrameError, read_frame, video_meta
from app.incident_queue import IMPACT_LABEL, PLACED_BY, clock, one_line
from app.phases import game_phases, phases_from_alignment
from app.ui import open_incident, require_game

st.title("Timeline")
game = require_game()
if game.protocol is None:
    st.error("The protocol cannot be read, so there is no timeline.")
    st.stop()
aligned = alignment_doc(game.root)
# the phases as the analysis placed them (the only timeline of an untimed protocol), else the protocol's
phases = phases_from_alignment(aligned) if aligned else game_phases(game.protocol)
if not phases and not game.incidents:
    st.info("The protocol has no event times and there are no incidents to place: analyse the game "
            "first, the analysis places its phases from what it hears and sees.")
    st.stop()

lanes = list(dict.fromkeys([p.kind.replace("_", " ") for p in phases])) + ["incidents"]
rows = [{"lane": p.kind.replace("_", " "), "t0": p.t0, "t1": max(p.t1, p.t0 + 0.2), "label": p.label,
         "id": "", "impact": "", "start": clock(p.t0), "end": clock(p.t1), "layer": "phase"}
        for p in phases]
rows += [{"lane": "incidents", "t0": i.t0, "t1": i.t0, "label": one_line(i), "id": i.id,
          "impact": IMPACT_LABEL[i.impact.rank], "start": clock(i.t0), "end": clock(i.t1),
          "layer": "incident"} for i in game.incidents if i.t0 is not None]
data = pd.DataFrame(rows)
pick_phase = alt.selection_point(name="phase", fields=["label"])
pick_inc = alt.selection_point(name="incident", fields=["id"])
base = alt.Chart(data).encode(
    x=alt.X("t0:Q", title="video time (s)"),
    y=alt.Y("lane:N", title=None, sort=lanes, axis=alt.Axis(labelOverlap=False)),
    tooltip=["label", "start", "end"])
bars = base.transform_filter(alt.datum.layer == "phase").mark_bar(size=14).encode(
    x2="t1:Q", color=alt.Color("lane:N", legend=None, sort=lanes),
    opacity=alt.condition(pick_phase, alt.value(0.95), alt.value(0.35))).add_params(pick_phase)
marks = base.transform_filter(alt.datum.layer == "incident").mark_point(
    filled=True, size=220, shape="diamond", opacity=1).encode(
    color=alt.Color("impact:N", title="incident impact", scale=alt.Scale(
        domain=list(IMPACT_LABEL.values()), range=["#d62728", "#ff7f0e", "#7f7f7f"]))
).add_params(pick_inc)
chart = alt.layer(bars, marks).resolve_scale(color="independent").properties(
    height=max(160, 34 * len(lanes)))
event = st.altair_chart(chart, on_select="rerun", key="timeline_chart", width="stretch")

selection = getattr(event, "selection", None) or {}
picked_inc = [p.get("id") for p in selection.get("incident", []) if isinstance(p, dict)]
picked_phase = [p.get("label") for p in selection.get("phase", []) if isinstance(p, dict)]
if picked_inc and picked_inc[0]:
    open_incident(picked_inc[0])

st.caption("Click a marker to open the incident; click a phase to see it below.")
labels = [p.label for p in phases]
default = labels.index(picked_phase[0]) if picked_phase and picked_phase[0] in labels else 0
if labels:
    label = st.selectbox("Phase", labels, index=default, key="timeline_phase")
    phase = phases[labels.index(label)]
    st.markdown(f"**{phase.label}** · {clock(phase.t0)} – {clock(phase.t1)}"
                + (f" · seats {', '.join(map(str, phase.seats))}" if phase.seats else "")
                + (f" · placed from {PLACED_BY.get(phase.anchored_by, phase.anchored_by)}"
                   + (f" ({phase.confidence:.0%})" if phase.confidence is not None else "")
                   if phase.anchored_by else ""))
    inside = [i for i in game.incidents if i.t0 is not None and phase.t0 - 0.5 <= i.t0 <= phase.t1 + 0.5]
    left, right = st.columns([2, 3])
    if game.video is not None:
        try:
            meta = video_meta(game.video)
            left.image(read_frame(game.video, meta.index_at(phase.t0)),
                       caption=f"Start of the phase ({clock(phase.t0)})", width="stretch")
        except FrameError as exc:
            left.warning(str(exc))
    with right:
        if inside:
            for inc in inside:
                if st.button(one_line(inc), key=f"tl_open_{inc.id}"):
                    open_incident(inc.id)
        else:
            st.caption("No incidents in this phase.")

    anchor_section(game, phase)
needs_anchor_section(aligned)

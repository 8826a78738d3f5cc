"""Vote verification: candidates × seats for one day; a side judge checks any cell."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app.frames import FrameError, crop, read_frame, video_meta
from app.game import read_stakes
from review.store import ReviewerRole
from app.incident_queue import clock
from app.seat_regions import CalibrationError, regions_for
from app.ui import open_incident, passphrase, require_game, require_reviewer, store
from app.vote_grid import (SEATS, call_label, calls_of, day_label, grid_html, grid_rows, open_cells, outcome, rounds,
                            totals)
from review.incidents import IncidentType



def union(a, b):
    if a is None or b is None:
        return a or b
    x0, y0 = min(a[0], b[0]), min(a[1], b[1])
    x1, y1 = max(a[0] + a[2], b[0] + b[2]), max(a[1] + a[3], b[1] + b[3])
    return (x0, y0, x1 - x0, y1 - y0)


st.title("Vote verification")
game = require_game()
if game.recount is None:
    st.info("No vote recount for this game (analysis not run, or the protocol has no votes).")
    st.stop()
days = rounds(game.recount)
if not days:
    st.info("The recount has no vote calls.")
    st.stop()
round_ = st.selectbox("Day", days, format_func=day_label, key="vote_day")
calls = calls_of(game.recount, round_)

with store(game) as s:
    verifications = s.current_verifications() if s is not None else []
rows = grid_rows(calls, verifications)
index = [call_label(c) + (f" @ {clock(c.t_call)}" if c.t_call is not None else "") for c in calls]
st.markdown(f"**{day_label(round_)}** — rows: vote calls; columns: voter seats. "
            "Green ✔ counted, orange ✖ void, lilac: default vote; grey ?: cannot judge (the picture "
            "does not show this seat's hand well enough: check it yourself); time after the call, "
            "detector confidence, hand form; a blue frame = verified by a judge.")
st.html(grid_html(index, rows))

st.markdown("#### Announced against recount")
if any(c.announced_from == "ballots" for c in calls):
    st.caption("The record gives no counts: \"announced\" is the count its ballots give (whom it lists "
               "voting for each candidate, and the non-voters the profile counts for the last one).")
st.dataframe(pd.DataFrame(totals(calls)), hide_index=True)
ann, rec = outcome(calls, "announced"), outcome(calls, "recount")
unjudged = open_cells(calls)
if unjudged:
    # the recount counts judged cells only: its totals are lower bounds, not who left
    st.info(f"By the announced counts {ann}. The recount cannot say who left: {unjudged} cell(s) of "
            "this vote were not judged from the picture (whether they could have changed it is said below).")
elif ann != rec:
    st.warning(f"Outcome impact: by the announced counts {ann}; by the recount {rec}.")
else:
    st.success(f"Outcome unchanged: {ann}.")
# the seats the picture could not judge in this day's votes, and whether they could have decided it
for stake in read_stakes(game.ws):
    if stake.get("round") == round_:
        (st.warning if stake.get("decides") else st.caption)(stake["text"])
t_lo = min((c.t_call for c in calls if c.t_call is not None), default=None)
t_hi = max((c.t_thanks for c in calls if c.t_thanks is not None), default=None)
miscounts = [i for i in game.incidents if i.type is IncidentType.MISCOUNT and i.t0 is not None
             and t_lo is not None and t_hi is not None and t_lo - 1 <= i.t0 <= t_hi + 1]
for inc in miscounts:
    if st.button(f"Open miscount incident: {inc.impact.summary or inc.id}", key=f"vg_inc_{inc.id}"):
        open_incident(inc.id)

# -- verify one cell ---------------------------------------------------------------------
st.markdown("#### Check a cell")
c1, c2 = st.columns(2)
call_i = c1.selectbox("Vote call", range(len(calls)), format_func=lambda i: index[i], key="vg_call")
seat = c2.selectbox("Voter seat", SEATS, key="vg_seat")
call = calls[call_i]
cellv = rows[call_i][str(seat)]
st.caption(f"Detected: {cellv.text or 'nothing'}" + (f" · verified: {cellv.verified}" if cellv.verified else ""))

if game.video is not None:
    try:
        meta = video_meta(game.video)
        regions = regions_for(game.ws.calibration_path, game.camera_id)
        box = union(regions.boxes.get(seat), regions.zones.get(seat))  # the arm and the table
        rec_ = next((v for v in call.voters if v.seat == seat), None)
        centre = rec_.t_place if rec_ is not None and rec_.t_place is not None else None
        if centre is not None:
            times = [centre + d for d in (-0.4, -0.2, 0.0, 0.2, 0.4, 0.6)]
        else:
            t0 = call.t_call or 0.0
            t1 = (call.t_thanks or t0 + 1.5) + 0.3
            times = [t0 + (t1 - t0) * k / 5 for k in range(6)]
        strip = st.columns(len(times))
        for col, t in zip(strip, times):
            frame = read_frame(game.video, meta.index_at(max(t, 0.0)))
            img = crop(frame, box, zoom=2.0) if box else frame
            rel = f" ({round(t - call.t_call, 1) + 0.0:+.1f} s)" if call.t_call is not None else ""
            col.image(img, caption=f"{clock(t)}{rel}", width="stretch")
    except (FrameError, CalibrationError) as exc:
        st.warning(f"Frame strip unavailable: {exc}")

with st.form("verify_cell", clear_on_submit=True):
    verdict = st.radio("What the frames show", ["voted", "not_voted", "wrong_form", "late"],
                       horizontal=True, format_func=lambda v: v.replace("_", " "), key="vg_verdict")
    note = st.text_input("Note", key="vg_note")
    sent = st.form_submit_button("Record verification", type="primary")
if sent:
    me = require_reviewer("verify a vote")
    if me is not None:
        if me.role is ReviewerRole.ORGANISER:
            st.error("Organisers cannot verify votes; a side judge or the chief judge does.")
        else:
            try:
                with store(game, create=True) as s:
                    s.verify_vote(call.round, call.pass_, call.candidate, seat, verdict,
                                  me.name, me.role.value, note, passphrase=passphrase())
            except Exception as exc:
                st.error(f"The verification was not saved: {exc}")
            else:
                st.toast(f"Seat {seat}: {verdict}")
                st.rerun()

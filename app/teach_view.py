"""The queue's "Teach the model" section: the few frames whose answer teaches the seat windows most.

review.questions picks them (the lowest-margin and abstained seat-frames
where the rules need the answer); each is shown zoomed on the seat's head or
table zone with one-click answers. The answer goes through the store API
(`ReviewStore.answer_frame`: judges only, passphrase checked) and is used
by `mafvar learn` for the game's venue.
"""
from __future__ import annotations

import streamlit as st

from app.frames import FrameError, crop, read_frame, video_meta
from app.incident_queue import clock
from app.ui import passphrase, require_reviewer, store
from review.questions import MASK, game_questions
from review.roles import ReviewerRole
from vision.appearance import window_box
from vision.calibration import load_calibration

CHOICES = {MASK: (("mask_on", "Mask on"), ("mask_off", "Mask off"), ("cannot_tell", "Can't tell")),
           "fist": (("fist", "Fist"), ("no_fist", "No fist"), ("cannot_tell", "Can't tell"))}
ASK = {MASK: "mask on or off?", "fist": "a vote fist on the table?"}
SHOWN = 6


def _answer(game, q, value: str) -> None:
    me = require_reviewer("answer a question about a frame")
    if me is None:
        return
    if me.role is ReviewerRole.ORGANISER:
        st.error("Organisers do not answer frame questions; a side judge or the chief judge does.")
        return
    try:
        with store(game, create=True) as s:
            if s is None:   # create=True opens or creates it; None only if that was refused (said)
                return
            s.answer_frame(q.t, q.seat, q.question, value, me.name, me.role.value, passphrase=passphrase())
    except Exception as exc:  # the store's refusal is the user's message
        st.error(f"The answer was not saved: {exc}")
        return
    st.toast(f"Seat {q.seat} at {clock(q.t)}: {value.replace('_', ' ')}")
    st.rerun()


def teach_section(game) -> None:
    """Render the section for a loaded game (app.game.LoadedGame)."""
    st.divider()
    st.subheader("Teach the model")
    with store(game) as s:
        answered = [a.frame for a in s.current_frame_answers()] if s is not None else []
    qs = game_questions(game.root, answered, SHOWN)
    if not qs:
        st.caption("No frame needs a judge's answer now (or the game is not analysed yet).")
        return
    st.caption("The frames the seat windows were least sure of, where the rules need the answer. "
               f"{len(answered)} answered so far; `mafvar learn` uses every answer for this venue's model.")
    try:
        cal = load_calibration(game.ws.calibration_path)
        cam = cal.camera(game.camera_id) if game.camera_id in cal.cameras else cal.camera(next(iter(cal.cameras)))
        meta = video_meta(game.video) if game.video is not None else None
    except (FrameError, OSError, ValueError) as exc:
        st.warning(f"Frames unavailable: {exc}")
        return
    cols = st.columns(3)
    for i, q in enumerate(qs):
        with cols[i % 3]:
            kind = "head" if q.question == MASK else "zone"
            region = cam.seats.get(q.seat)
            if meta is not None and region is not None:
                try:
                    x0, y0, x1, y1 = window_box(kind, region)
                    frame = read_frame(game.video, meta.index_at(q.t))
                    st.image(crop(frame, (int(x0), int(y0), int(x1 - x0), int(y1 - y0)), zoom=2.0),
                             width="stretch")
                except FrameError as exc:
                    st.caption(f"frame unavailable: {exc}")
            st.markdown(f"**Seat {q.seat} at {clock(q.t)}**: {ASK[q.question]}")
            st.caption(q.why)
            buttons = st.columns(3)
            for b, (value, label) in zip(buttons, CHOICES[q.question]):
                if b.button(label, key=f"teach_{q.question}_{q.seat}_{q.t}_{value}"):
                    _answer(game, q, value)

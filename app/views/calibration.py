"""Calibration: the seat regions over a frame; adjust a seat and re-check."""
from __future__ import annotations

import streamlit as st

from app.frames import FrameError, draw_seats, read_frame, video_meta
from app.seat_regions import REGION_KINDS, CalibrationError, check_file, load_regions, set_box
from app.ui import require_game, require_reviewer

st.title("Calibration")
game = require_game()
path = game.ws.calibration_path
try:
    cams = load_regions(path)
except CalibrationError as exc:
    st.error(f"{exc}. The analysis will refuse to run until the seats are calibrated.")
    st.stop()

cam = cams[0]
if len(cams) > 1:
    cam_id = st.selectbox("Camera", [c.camera for c in cams], key="cal_cam")
    cam = next(c for c in cams if c.camera == cam_id)

meta = None
frame = None
if game.video is not None:
    try:
        meta = video_meta(game.video)
        t = st.slider("Frame at (s)", 0.0, max(meta.duration - 1 / meta.fps, 0.0), 0.0, 0.5, key="cal_t")
        frame = read_frame(game.video, meta.index_at(t))
    except FrameError as exc:
        st.warning(str(exc))
size = (meta.width, meta.height) if meta else None
result = check_file(path, size, cam.camera)
if result.ok:
    st.success("Calibration valid: ten seat regions inside the frame, large enough, none overlapping.")
else:
    st.error("Calibration invalid — the analysis is refused until this is fixed:  \n"
             + "  \n".join(f"• {p}" for p in result.problems))
if frame is not None:
    show_zones = st.toggle("Show table zones instead of bodies", key="cal_zones")
    st.image(draw_seats(frame, cam.zones if show_zones else cam.boxes, invalid=result.bad_seats,
                        highlight=[st.session_state.get("cal_seat", 1)]),
             caption=f"Camera {cam.camera}: seat {'table zones' if show_zones else 'body regions'}"
                     " (red = a problem)", width="stretch")

st.subheader("Adjust a seat")
c1, c2 = st.columns(2)
seat = c1.selectbox("Seat", list(range(1, 11)), key="cal_seat")
region = c2.radio("Region", REGION_KINDS, horizontal=True, key="cal_region",
                  format_func=lambda r: r.replace("_", " "))
x0, y0, w0, h0 = (cam.boxes if region == "body" else cam.zones).get(seat, (0, 0, 100, 100))
with st.form(f"adjust_{region}_{seat}"):
    c = st.columns(4)
    x = c[0].number_input("x", value=int(x0), step=1, key=f"cal_x_{region}_{seat}")
    y = c[1].number_input("y", value=int(y0), step=1, key=f"cal_y_{region}_{seat}")
    w = c[2].number_input("width", value=int(w0), step=1, min_value=1, key=f"cal_w_{region}_{seat}")
    h = c[3].number_input("height", value=int(h0), step=1, min_value=1, key=f"cal_h_{region}_{seat}")
    save = st.form_submit_button("Save and re-check")
if save:
    me = require_reviewer("change the calibration")
    if me is not None:
        try:
            set_box(path, cam.camera, seat, (x, y, w, h), region=region, confirmed_by=me.name)
        except (CalibrationError, OSError, ValueError) as exc:
            st.error(f"Not saved: {exc}")
        else:
            st.toast(f"Seat {seat} saved; the previous calibration was kept as a backup.")
            st.rerun()

"""Calibration: seats proposed from the recording, drawn over a frame, renumbered
in one click, adjusted seat by seat; the verdict the analysis will give."""
from __future__ import annotations

import streamlit as st

from app.frames import FrameError, draw_head_grid, draw_seats, read_frame, video_meta
from app.seat_regions import (REGION_KINDS, CalibrationError, CameraRegions, regions_of, renumber_file,
                              set_box)
from app.ui import PAGE_FILES, require_game, require_reviewer
from review.calibration_verdict import workspace_verdict

PROPOSAL_KEY = "cal_proposal"     # session: {"game": path, "proposal": GameProposal}

st.title("Calibration")
game = require_game()
path = game.ws.calibration_path


_decoded: dict[int, object] = {}     # frame index -> RGB frame, this run of the page only


def _default_t(meta) -> float:
    """The slider's first time: inside the first day, away from the deal night."""
    return min(30.0, max(meta.duration / 4, 0.0))


def _frame(t: float | None = None):
    """A frame of the recording (the first proposal frame, or the slider's time);
    the heads' grid and the proposal show the same frame, decoded once."""
    if game.video is None:
        return None, None
    try:
        meta = video_meta(game.video)
        if t is None:
            t = st.slider("Frame at (s)", 0.0, max(meta.duration - 1 / meta.fps, 0.0), _default_t(meta), 0.5,
                          key="cal_t")
        index = meta.index_at(t)
        if index not in _decoded:
            _decoded[index] = read_frame(game.video, index)
        return _decoded[index], meta
    except FrameError as exc:
        st.warning(str(exc))
        return None, None


def _show_verdict(verdict, what: str, guess: bool = False) -> None:
    if verdict.usable:
        # regions a table can be analysed on, but not green beside "the seats are a guess"
        (st.info if guess else st.success)(
            f"{what}: {verdict.summary}." + (" The regions are usable; whether they are the right seats "
                                             "is the check above." if guess else ""))
        if verdict.warnings:
            with st.expander(f"{len(verdict.warnings)} warning(s): what they cost", expanded=False):
                for line in verdict.warning_lines:
                    st.markdown(f"- {line}")
    else:
        st.error(f"{what}: {verdict.summary}.  \n" + "  \n".join(f"• {p}" for p in verdict.refusal_lines))


def _draw(cam: CameraRegions, frame, bad=(), show_zones: bool = False, seen: dict | None = None) -> None:
    boxes = cam.zones if show_zones else cam.boxes
    st.image(draw_seats(frame, boxes, invalid=bad, highlight=[st.session_state.get("cal_seat", 1)]),
             caption=f"Camera {cam.camera}: seat {'table zones' if show_zones else 'body regions'}, numbered "
                     "clockwise from the judge's left (red = a refused seat)" + _unseen_note(seen),
             width="stretch")


def _not_judged(calibration, box) -> None:
    """What the analysis will not judge on the seats of `calibration`'s first camera, in `box`."""
    from review.calibrate import judged_windows, zone_note
    doubted = [(s, r) for s, r in sorted(next(iter(calibration.cameras.values())).seats.items())
               if any(judged_windows(r).values())]
    if doubted:
        box("What the analysis will not judge on these seats (as `mafvar calibrate` says it):  \n"
            + "  \n".join(f"• seat {s}: {zone_note(r)}" for s, r in doubted))


def _unseen_note(seen: dict | None) -> str:
    """The caption's word on seats placed without their player found."""
    if seen is None:
        return ""
    unseen = [str(s) for s, ok in sorted(seen.items()) if not ok]
    if not unseen:
        return "; every seat's player was found"
    return (f"; seat{'s' if len(unseen) > 1 else ''} {', '.join(unseen)}: the player was not found, "
            "placed by the table's shape")


def _renumber_controls(prefix: str, on_change) -> None:
    """One click: flip the direction, or make another seat number 1."""
    c1, c2, c3 = st.columns([1, 1, 1])
    if c1.button("Flip the direction", key=f"{prefix}_flip",
                 help="number the seats the other way round the table (seat 1 stays)"):
        on_change(1, True)
    new_first = c2.selectbox("Seat 1 is the seat now numbered", list(range(1, 11)), index=0,
                             key=f"{prefix}_first", help="the player on the judge's left")
    if c3.button("Move seat 1 there", key=f"{prefix}_move", disabled=new_first == 1):
        on_change(int(new_first), False)


# -- a proposal from the recording (nothing is written until it is accepted) --------------
held = st.session_state.get(PROPOSAL_KEY)
if held is not None and held.get("game") != str(game.root):
    held = None
    st.session_state.pop(PROPOSAL_KEY, None)

if not path.is_file() and held is None:
    st.info("This game has no calibration yet. The seats can be proposed from the recording: the "
            "players are found on a few day frames, the table and the camera are fitted to them, and every "
            "seat gets its body box, table zone and head, numbered clockwise from the judge's left.")
propose_label = "Propose seats from the recording" if not path.is_file() else "Propose the seats again"
if game.video is not None and st.button(propose_label, key="cal_propose", type="primary" if not path.is_file()
                                        else "secondary"):
    from review.calibrate import CalibrateError, propose_for_game
    bar = st.progress(0.0, text="reading day frames…")

    def frame_done(done: int, total: int) -> None:
        bar.progress(done / total, text=f"finding the players: frame {done} of {total}")
    try:
        proposal = propose_for_game(game.root, progress=frame_done)   # the same frames as `mafvar calibrate`
    except CalibrateError as exc:
        st.error(f"No proposal: {exc}")
    else:
        bar.progress(1.0, text="done")
        st.session_state[PROPOSAL_KEY] = {"game": str(game.root), "proposal": proposal}
        held = st.session_state[PROPOSAL_KEY]



def _known_heads() -> dict[int, tuple[float, float]]:
    """The heads to start from: the proposal's on screen, else the saved calibration's."""
    from vision.calibration import load_calibration
    cal = None
    if held is not None:
        cal = held["proposal"].calibration
    elif path.is_file():
        try:
            cal = load_calibration(path)
        except (CalibrationError, OSError, ValueError):      # a broken file: its verdict says so below
            cal = None
    if cal is None or not cal.cameras:
        return {}
    seats = next(iter(cal.cameras.values())).seats
    return {s: (float(r.head[0]), float(r.head[1])) for s, r in seats.items() if r.head is not None}


# a toggle, not an expander: a collapsed expander still decodes and sends its frame on every rerun
if game.video is not None and st.toggle("Place the table from the players' heads (when the proposal is wrong)",
                                        key="cal_heads_open",
                                        value=held is not None and held["proposal"].uncertain is not None):
    with st.container(border=True):
        st.caption("Give the centre of each player's head, in pixels of this frame (read it off the grid), "
                   "seat 1 being the player on the judge's left and the numbers going clockwise. Seven heads "
                   "or more fix the table; the seats you leave empty follow from it. Nothing is saved until "
                   "you accept the seats.")
        # the proposal's first frame, else the slider's default time (no second slider on the page)
        grid_t = (held["proposal"].times[0] if held is not None and held["proposal"].times else
                  _default_t(video_meta(game.video)))
        grid_frame, _ = _frame(grid_t)
        start = _known_heads()
        if grid_frame is not None:
            st.image(draw_head_grid(grid_frame, start), width="stretch",
                     caption="pixel grid every 50 px; the heads placed now, numbered")
        with st.form("cal_heads_form"):
            named = {}
            for row in (range(1, 6), range(6, 11)):
                cols = st.columns(10)
                for i, seat in enumerate(row):
                    x0, y0 = start.get(seat, (None, None))
                    x = cols[2 * i].number_input(f"seat {seat} x", value=None if x0 is None else round(x0),
                                                 min_value=0, step=1, key=f"cal_head_x_{seat}")
                    y = cols[2 * i + 1].number_input(f"seat {seat} y", value=None if y0 is None else round(y0),
                                                     min_value=0, step=1, key=f"cal_head_y_{seat}")
                    if x is not None and y is not None:
                        named[seat] = (float(x), float(y))
            place = st.form_submit_button("Fit the table to these heads")
        if place:
            from review.calibrate import CalibrateError, propose_for_game
            from vision.table_model import NAMED_MIN
            try:
                if len(named) < NAMED_MIN:     # said before any frame is read
                    raise CalibrateError(f"{len(named)} heads given: at least {NAMED_MIN} are needed to place "
                                         f"the table")
                proposal = propose_for_game(game.root, heads=named)
            except CalibrateError as exc:
                st.error(f"No proposal: {exc}")
            else:
                st.session_state[PROPOSAL_KEY] = {"game": str(game.root), "proposal": proposal}
                st.rerun()

if held is not None:
    proposal = held["proposal"]
    st.subheader("Proposed seats")
    for p in proposal.problems:
        st.error(p)
    if proposal.uncertain:
        st.warning(f"Check before accepting: {proposal.uncertain}.")
    cams = regions_of(proposal.calibration)
    if cams and cams[0].boxes:
        frame, _ = _frame(proposal.times[0] if proposal.times else None)
        _show_verdict(proposal.verdict, "The proposal", guess=bool(proposal.uncertain))
        if frame is not None:
            _draw(cams[0], frame, proposal.verdict.seats_refused,
                  st.toggle("Show table zones", key="cal_prop_zones"), proposal.seen)
        _not_judged(proposal.calibration, st.info)

        def change_proposal(first: int, reverse: bool) -> None:
            from vision.calibration import calibration_verdict, renumber, renumbering
            cam = next(iter(proposal.calibration.cameras))
            proposal.calibration = renumber(proposal.calibration, cam, first, reverse)
            proposal.seen = {new: proposal.seen.get(old, False) for new, old in renumbering(first, reverse).items()}
            proposal.verdict = calibration_verdict(proposal.calibration, proposal.frame_size, cam=cam)
            st.rerun()
        _renumber_controls("cal_prop", change_proposal)
        a1, a2 = st.columns(2)
        if a1.button("Accept these seats", key="cal_accept", type="primary",
                     disabled=not proposal.verdict.usable):
            me = require_reviewer("accept the seats")
            if me is not None:
                from review.calibrate import CalibrateError, save_proposal
                proposal.calibration.confirmed_by = me.name
                try:
                    save_proposal(game.root, proposal.calibration, force=True)
                except (CalibrateError, CalibrationError, OSError) as exc:
                    st.error(f"Not saved: {exc}")
                else:
                    st.session_state.pop(PROPOSAL_KEY, None)
                    st.toast("Seats saved" + (" (the previous calibration was kept as calibration.json.bak)"
                                              if path.with_name(path.name + ".bak").is_file() else ""))
                    st.rerun()
        if a2.button("Discard the proposal", key="cal_discard"):
            st.session_state.pop(PROPOSAL_KEY, None)
            st.rerun()
    st.stop()

if not path.is_file():
    st.stop()

# -- the saved calibration ---------------------------------------------------------------
checked = workspace_verdict(game.ws)
_show_verdict(checked.verdict, "calibration.json")
if checked.calibration is not None:
    # a proposal accepted as a guess, or seats whose player was not found: said here too, where
    # the judge comes back before running the analysis, not only while the proposal was open
    _not_judged(checked.calibration, st.warning)
if checked.verdict.usable:
    st.page_link(PAGE_FILES["games"], label="Run the analysis on the Games page", icon=":material/play_arrow:")
if checked.calibration is None:
    st.stop()
cams = regions_of(checked.calibration)
cam = cams[0]
if len(cams) > 1:
    cam_id = st.selectbox("Camera", [c.camera for c in cams], key="cal_cam")
    cam = next(c for c in cams if c.camera == cam_id)
frame, meta = _frame()
if frame is not None:
    _draw(cam, frame, checked.verdict.seats_refused, st.toggle("Show table zones instead of bodies", key="cal_zones"))


def change_saved(first: int, reverse: bool) -> None:
    me = require_reviewer("renumber the seats")
    if me is None:
        return
    try:
        renumber_file(path, cam.camera, first, reverse, confirmed_by=me.name)
    except (CalibrationError, OSError) as exc:
        st.error(f"Not saved: {exc}")
    else:
        st.toast("Seats renumbered; the previous calibration was kept as calibration.json.bak.")
        st.rerun()


_renumber_controls("cal_saved", change_saved)

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

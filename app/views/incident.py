"""Incident view: clip, frame-accurate stepping, seat zoom, rule text and the decision."""
from __future__ import annotations

import streamlit as st

from app.frames import FrameError, crop, cut_clip, draw_seats, read_frame, video_meta
from app.incident_queue import IMPACT_LABEL, clock, one_line, placement_note, who
from app.player import can_inline, player_html
from app.rule_text import RULEBOOKS_ENV, clause_label, clause_text
from app.seat_regions import CalibrationError, regions_for
from app.ui import INCIDENT_KEY, passphrase, require_game, require_reviewer, reviewer, store
from review.fouls import FOUL_OF
from review.incidents import EvidenceKind, sort_by_priority
from vision.drawing import draw_hand_landmarks

st.title("Incident")
game = require_game()
if not game.incidents:
    st.info("This game has no incidents to review.")
    st.stop()

ordered = sort_by_priority(game.incidents)
ids = [inc.id for inc in ordered]
current = st.session_state.get(INCIDENT_KEY)
if current not in ids:
    if current:
        st.warning(f"Incident {current} is not in this game's analysis; showing the first in the queue.")
    current = ids[0]
    st.session_state[INCIDENT_KEY] = current
labels = {inc.id: one_line(inc) for inc in ordered}
picked = st.selectbox("Incident", ids, index=ids.index(current), format_func=lambda i: labels[i],
                      key=f"pick_{current}")
if picked != current:
    st.session_state[INCIDENT_KEY] = picked
    st.rerun()
inc = game.incident(current)
assert inc is not None

st.subheader(f"{inc.type.value.replace('_', ' ')} · {who(inc)} · {clock(inc.t0)}–{clock(inc.t1)}")
# st.metric cuts a long value to one line ("no effect on the o…"): these wrap instead
for col, (name, value) in zip(st.columns([2, 1, 2]), (
        ("Impact", IMPACT_LABEL[inc.impact.rank]),
        ("Confidence", f"{inc.confidence:.0%}"),
        ("Clause", clause_label(inc.clause, game.profile) if inc.clause else "—"))):
    col.caption(name)
    col.markdown(f"**{value}**")
if inc.impact.summary:
    st.markdown(f"**Impact:** {inc.impact.summary}")
if inc.sanction:
    # a judge's error (a miscount) is no player's foul: its rule says what may follow, not a sanction
    judges = inc.type in FOUL_OF and FOUL_OF[inc.type].violation is None
    st.markdown(f"**{'What the rules allow' if judges else 'Suggested sanction'}:** {inc.sanction}")
st.caption(f"Phase: {inc.phase.label} · id `{inc.id}` · source {inc.source.value}")
if inc.placement and inc.placement.get("inferred"):
    st.info(placement_note(inc.placement))

video = game.video
meta = None
if video is None:
    st.error("The game's video is missing, so frames cannot be shown.")
else:
    try:
        meta = video_meta(video)
    except FrameError as exc:
        st.error(str(exc))

# -- the clip ----------------------------------------------------------------------------
st.markdown("#### Clip")
clip = None
for ev in inc.evidence:
    if ev.kind is EvidenceKind.CLIP:
        p = game.ws.resolve(ev.path)
        if p is not None and p.is_file():
            clip = p
            break
if clip is None and video is not None and inc.t0 is not None:
    try:
        clip = cut_clip(video, max(inc.t0 - 1.5, 0.0), (inc.t1 or inc.t0) + 1.5)
    except FrameError as exc:
        st.warning(str(exc))
if clip is not None and can_inline(clip):
    st.iframe(player_html(clip), height=420)
elif clip is not None:
    st.video(str(clip), loop=True)
else:
    st.info("No clip for this incident.")

# -- frame stepping ----------------------------------------------------------------------
if meta is not None:
    st.markdown("#### Frames")
    fkey = f"frame_{inc.id}"
    if fkey not in st.session_state:
        st.session_state[fkey] = meta.index_at(inc.t0 or 0.0)
    moments: list[tuple[str, float]] = []
    if inc.t0 is not None:
        moments.append(("start", inc.t0))
    for km in inc.details.get("key_moments", []) or []:
        if isinstance(km, dict) and isinstance(km.get("t"), (int, float)):
            moments.append((str(km.get("label", "moment")), float(km["t"])))
    for ev in inc.evidence:
        if ev.t is not None:
            moments.append((f"{ev.kind.value}", ev.t))
    if inc.t1 is not None:
        moments.append(("end", inc.t1))
    seen: set[int] = set()  # one button per distinct frame
    moments = [m for m in moments if not (meta.index_at(m[1]) in seen or seen.add(meta.index_at(m[1])))]

    step = int(round(meta.fps))
    row = st.container(horizontal=True, gap="small")
    moves = [("−1 s", -step), ("◀ previous frame", -1), ("next frame ▶", 1), ("+1 s", step)]
    for label, delta in moves:
        if row.button(label, key=f"step_{delta}_{inc.id}"):
            st.session_state[fkey] = min(max(st.session_state[fkey] + delta, 0), meta.frame_count - 1)
    for label, t in moments:
        if row.button(f"⤓ {label} {clock(t)}", key=f"jump_{label}_{t}_{inc.id}"):
            st.session_state[fkey] = meta.index_at(t)
    idx = st.session_state[fkey]
    st.markdown(f"**Frame {idx}** of {meta.frame_count} · t = {meta.time_of(idx):.3f} s "
                f"({clock(meta.time_of(idx))}) · {meta.fps:g} fps")

    boxes = {}
    try:
        boxes = regions_for(game.ws.calibration_path, game.camera_id).boxes
    except CalibrationError as exc:
        st.warning(f"Seat regions unavailable: {exc}")
    try:
        frame = read_frame(video, idx)
    except FrameError as exc:
        st.error(str(exc))
        frame = None
    if frame is not None:
        full, zoom = st.columns([5, 2])
        full.image(draw_seats(frame, boxes, highlight=inc.seats), caption="Full frame",
                   width="stretch")
        seat_choices = [s for s in inc.seats if s in boxes] or sorted(boxes)
        with zoom:
            if seat_choices:
                seat = st.selectbox("Zoomed seat", seat_choices, key=f"zoom_seat_{inc.id}")
                try:
                    part = crop(frame, boxes[seat])
                    if st.toggle("Draw hand landmarks", key=f"lm_{inc.id}"):
                        part, n = draw_hand_landmarks(part)
                        st.caption(f"{n} hand(s) found by MediaPipe")
                    st.image(part, caption=f"Seat {seat}", width="stretch")
                except FrameError as exc:
                    st.warning(str(exc))
            else:
                st.info("No seat regions to zoom into.")

stills = [ev for ev in inc.evidence if ev.kind in (EvidenceKind.FRAME, EvidenceKind.CROP)]
if stills:
    with st.expander(f"Evidence stills ({len(stills)})"):
        cols = st.columns(min(len(stills), 3))
        for i, ev in enumerate(stills):
            p = game.ws.resolve(ev.path)
            if p is not None and p.is_file():
                cols[i % len(cols)].image(str(p), caption=f"{ev.kind.value} at {clock(ev.t)}")

# -- the rule ----------------------------------------------------------------------------
st.markdown("#### Rule")
text = clause_text(inc.clause, game.profile)
label = clause_label(inc.clause, game.profile) if inc.clause else "No clause"
if text:
    st.markdown(f"**{label}** ({game.profile.title}): {text}")
elif inc.clause:
    st.caption(f"{label} ({game.profile.title}): the rulebook's text of this clause was not found "
               f"(rulebooks are read from `{RULEBOOKS_ENV}` or ../shared/seeds).")
else:
    st.caption("No clause of the game's rules names this; see the incident's details.")

# -- decision ----------------------------------------------------------------------------
st.markdown("#### Decision")
try:
    with store(game) as s:
        history = s.decision_history(inc.id) if s is not None else []
except Exception as exc:
    st.error(f"review.db cannot be read: {exc}")
    history = []
if history:
    cur = history[-1]
    st.success(f"Current decision: **{cur.verdict.value}** by {cur.reviewer} "
               f"({cur.role.value.replace('_', ' ')}) at {cur.created_at:%Y-%m-%d %H:%M:%S} UTC"
               + (f" — {cur.note}" if cur.note else ""), icon=":material/verified:")
    if len(history) > 1:
        with st.expander(f"History ({len(history)} decisions)"):
            st.table([{"when": d.created_at.strftime("%H:%M:%S"), "verdict": d.verdict.value,
                       "by": d.reviewer, "role": d.role.value, "note": d.note} for d in history])
else:
    st.info("No decision yet.")

me = reviewer()
with st.form(f"decide_{inc.id}", clear_on_submit=True):
    verdict = st.radio("Verdict", ["confirmed", "rejected", "unsure"], horizontal=True,
                       format_func=lambda v: {"confirmed": "Confirm", "rejected": "Reject",
                                              "unsure": "Unsure"}[v], key=f"verdict_{inc.id}")
    note = st.text_area("Note", key=f"note_{inc.id}", placeholder="What you saw, frame numbers…")
    st.caption(f"Signed as {me}" if me else "Enter your name in the sidebar to sign.")
    sent = st.form_submit_button("Record decision", type="primary")
if sent:
    me = require_reviewer("record a decision")
    if me is not None:
        try:
            with store(game, create=True) as s:
                d = s.decide(inc.id, me.name, me.role.value, verdict, note,
                             passphrase=passphrase())
        except Exception as exc:
            st.error(f"The decision was not saved: {exc}")
        else:
            st.toast(f"Saved: {d.verdict.value}")
            st.rerun()

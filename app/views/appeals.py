"""Appeals: file (late filings flagged, MC 4.20), attach incidents, and the chief judge's ruling."""
from __future__ import annotations

from datetime import datetime, timezone

import streamlit as st

from app.incident_queue import one_line
from app.ui import passphrase, require_game, require_reviewer, reviewer, store
from review.incidents import sort_by_priority
from review.store import DEFAULT_APPEAL_DEADLINE_MINUTES, appeal_is_late

st.title("Appeals")
game = require_game()
labels = {inc.id: one_line(inc) for inc in sort_by_priority(game.incidents)}

try:
    with store(game) as s:
        appeals = s.appeals() if s is not None else []
except Exception as exc:
    st.error(f"review.db cannot be read: {exc}")
    st.stop()

# -- list --------------------------------------------------------------------------------
if appeals:
    for ap in appeals:
        late = {True: ":red-badge[LATE]", False: ":green-badge[in time]", None: ":gray-badge[end unknown]"}[ap.late]
        mins = f"{ap.minutes_after_end:.0f} min after the end" if ap.minutes_after_end is not None else ""
        with st.container(border=True):
            st.markdown(f"**Appeal #{ap.id}** · seat {ap.filed_by_seat} · {late} {mins} · "
                        f"status **{ap.status.replace('_', ' ')}**")
            st.markdown(f"Grounds: {ap.grounds}")
            st.caption(f"Filed {ap.filed_at:%Y-%m-%d %H:%M} UTC, recorded by {ap.recorded_by}")
            if ap.incident_ids:
                st.markdown("Incidents: " + "; ".join(labels.get(i, i) for i in ap.incident_ids))
            if ap.ruling:
                st.markdown(f"Ruling: **{ap.ruling.ruling.value.replace('_', ' ')}** by "
                            f"{ap.ruling.reviewer} — {ap.ruling.reasons}")
else:
    st.info("No appeals filed for this game.")

# -- file --------------------------------------------------------------------------------
st.subheader("File an appeal")
now = datetime.now(timezone.utc).replace(second=0, microsecond=0)
with st.form("file_appeal"):
    seat = st.number_input("Filed by seat", min_value=1, max_value=10, step=1, key="ap_seat")
    grounds = st.text_area("Grounds", key="ap_grounds")
    c1, c2, c3, c4 = st.columns(4)
    end_d = c1.date_input("Game ended (UTC date)", value=now.date(), key="ap_end_d")
    end_t = c2.time_input("Game ended (UTC time)", value=now.time(), key="ap_end_t", step=60)
    filed_d = c3.date_input("Filed (UTC date)", value=now.date(), key="ap_filed_d")
    filed_t = c4.time_input("Filed (UTC time)", value=now.time(), key="ap_filed_t", step=60)
    attach = st.multiselect("Attach incidents", list(labels), format_func=lambda i: labels[i],
                            key="ap_attach")
    filed = st.form_submit_button("File appeal")
if filed:
    me = require_reviewer("record an appeal")
    end_at = datetime.combine(end_d, end_t, tzinfo=timezone.utc)
    filed_at = datetime.combine(filed_d, filed_t, tzinfo=timezone.utc)
    if me is not None:
        if not grounds.strip():
            st.error("An appeal needs its grounds.")
        else:
            try:
                with store(game, create=True) as s:
                    ap = s.file_appeal(int(seat), grounds, reviewer=me.name, role=me.role.value,
                                       filed_at=filed_at, game_end_at=end_at, incident_ids=attach,
                                       passphrase=passphrase())
            except Exception as exc:
                st.error(f"The appeal was not saved: {exc}")
            else:
                if appeal_is_late(filed_at, end_at, DEFAULT_APPEAL_DEADLINE_MINUTES):
                    st.session_state["ap_flash"] = (f"Appeal #{ap.id} filed LATE: "
                                                    f"{ap.minutes_after_end:.0f} min after the end "
                                                    f"(limit {DEFAULT_APPEAL_DEADLINE_MINUTES:.0f} min, MC 4.20).")
                else:
                    st.session_state["ap_flash"] = f"Appeal #{ap.id} filed in time."
                st.rerun()
flash = st.session_state.pop("ap_flash", None)
if flash:
    (st.warning if "LATE" in flash else st.success)(flash)

# -- attach / rule -----------------------------------------------------------------------
if appeals:
    st.subheader("Attach incidents")
    with st.form("attach_incidents"):
        ap_id = st.selectbox("Appeal", [a.id for a in appeals], format_func=lambda i: f"#{i}", key="at_ap")
        more = st.multiselect("Incidents", list(labels), format_func=lambda i: labels[i], key="at_inc")
        go = st.form_submit_button("Attach")
    if go and more:
        me = require_reviewer("attach incidents")
        if me is not None:
            try:
                with store(game, create=True) as s:
                    s.attach_incidents(ap_id, more, reviewer=me.name, role=me.role.value,
                                       passphrase=passphrase())
            except Exception as exc:
                st.error(f"Not attached: {exc}")
            else:
                st.rerun()

    st.subheader("Ruling")
    me = reviewer()
    if me is not None and not me.can_rule_appeals:
        st.warning("Only the chief judge may rule on an appeal (rules-spec §5).")
    with st.form("rule_appeal"):
        ap_id = st.selectbox("Appeal", [a.id for a in appeals], format_func=lambda i: f"#{i}", key="ru_ap")
        ruling = st.radio("Ruling", ["upheld", "rejected", "replay", "result_changed"], horizontal=True,
                          format_func=lambda v: v.replace("_", " "), key="ru_ruling")
        reasons = st.text_area("Reasons", key="ru_reasons")
        ruled = st.form_submit_button("Record ruling", type="primary")
    if ruled:
        me = require_reviewer("rule on an appeal")
        if me is not None:
            try:
                with store(game, create=True) as s:
                    s.rule_appeal(ap_id, me.name, me.role.value, ruling, reasons,
                                  passphrase=passphrase())
            except PermissionError as exc:
                st.error(f"Refused: {exc}")
            except Exception as exc:
                st.error(f"The ruling was not saved: {exc}")
            else:
                st.rerun()

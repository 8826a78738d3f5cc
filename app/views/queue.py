"""Incidents queue: highest impact first, then most confident; filter and open."""
from __future__ import annotations

import streamlit as st

from app.game import game_coverage
from app.incident_queue import UNDECIDED, QueueFilter, not_judged, one_line, phase_labels, queue
from app.teach_view import teach_section
from app.ui import open_incident, require_game, store
from review.coverage import coverage_text

st.title("Incidents")
game = require_game()
if game.abstentions:
    lines = not_judged(game.abstentions)
    with st.expander(f"Could not be judged: {len({(a['seat'], a['key']) for a in game.abstentions})} "
                     "seat-intervals (no foul raised there: look yourself)"):
        st.markdown("\n".join(f"- {line}" for line in lines))
cov = game_coverage(game)
thin = cov is not None and cov.cells > 0 and cov.thin
if thin:
    # said above the queue, empty or not: what it holds is from the seats it could judge
    st.warning(coverage_text(cov))
if not game.incidents:
    if not game.state.analysed:
        st.info("This game has no incidents yet: it has not been analysed (Games page: Run analysis).")
    elif thin:
        st.info("The analysis raised no incident on the seats it could judge.")
    else:
        st.info("The analysis raised no incident.")
    teach_section(game)
    st.stop()

with store(game) as s:
    decided = s.current_decisions() if s is not None else {}
statuses = {inc.id: (decided[inc.id].verdict.value if inc.id in decided else UNDECIDED)
            for inc in game.incidents}

types = sorted({inc.type.value for inc in game.incidents})
seats = sorted({s for inc in game.incidents for s in inc.seats})
c1, c2, c3, c4 = st.columns(4)
f_types = c1.multiselect("Type", types, key="f_type", format_func=lambda t: t.replace("_", " "))
f_seats = c2.multiselect("Seat", seats, key="f_seat")
f_status = c3.multiselect("Status", [UNDECIDED, "confirmed", "rejected", "unsure"], key="f_status")
f_phase = c4.multiselect("Phase", phase_labels(game.incidents), key="f_phase")
flt = QueueFilter(frozenset(f_types), frozenset(f_seats), frozenset(f_status), frozenset(f_phase))

rows = queue(game.incidents, statuses, flt)
st.caption(f"{len(rows)} of {len(game.incidents)} incidents")
for inc in rows:
    status = statuses[inc.id]
    badge = {2: ":red-badge[result]", 1: ":orange-badge[exit]", 0: ":gray-badge[minor]"}[inc.impact.rank]
    left, right = st.columns([6, 1], vertical_alignment="center")
    left.markdown(f"{badge} **{one_line(inc)}** · confidence {inc.confidence:.0%} · "
                  f"status **{status}**")
    if inc.impact.summary:
        left.caption(inc.impact.summary)
    if right.button("Open", key=f"open_{inc.id}"):
        open_incident(inc.id)

teach_section(game)

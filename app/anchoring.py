"""Manual anchors on the timeline page: "this is where night 2 falls", "this vote call".

A judge steps to the frame where the call happens, says what it is, and the
alignment, the recount and the incidents are redone from what the analysis
already extracted (`review.pipeline.realign`, seconds). The anchor is kept in
the game folder's `anchors.json` with who set it (`review/anchors.py`): it is
what a person said, never overwritten, and every later analysis uses it.
"""
from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from app.frames import FrameError, read_frame, video_meta
from app.incident_queue import clock
from app.phases import ANCHORS, PhaseSpan
from app.ui import require_reviewer


def alignment_doc(root: Path) -> dict | None:
    """analysis/alignment.json, or None before the analysis placed anything."""
    path = Path(root) / "analysis" / "alignment.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("intervals") else None


def _history(root: Path):
    from review.anchors import AnchorError, load_history
    try:
        return load_history(root), None
    except AnchorError as exc:
        return [], str(exc)


def _apply(game, mark: str, t: float | None) -> None:
    """Store the anchor (t None: clear it) and redo the alignment and incidents."""
    from review.anchors import AnchorError, set_anchor
    from review.pipeline import AnalysisError, realign
    who = require_reviewer("set an anchor")
    if who is None:
        return
    try:
        set_anchor(game.root, mark, t, who.name, who.role.value)
    except (AnchorError, OSError) as exc:
        st.error(f"The anchor was not stored: {exc}")
        return
    with st.spinner("Placing the phases again and re-checking the incidents ..."):
        try:
            realign(game.root)
        except AnalysisError as exc:
            st.error(f"The anchor is stored, but the analysis could not be redone: {exc}")
            return
    st.session_state["anchor_done"] = (f"Anchor {'set' if t is not None else 'cleared'}: {mark}"
                                       + (f" at {clock(t)}" if t is not None else "")
                                       + f" by {who.name}. The alignment and the incidents were redone.")
    st.rerun()


def anchor_section(game, phase: PhaseSpan) -> None:
    """The anchor form for one phase: a time (frame by frame), what happens there, the button."""
    choices = ANCHORS.get(phase.kind)
    if not choices or not phase.key:
        return
    st.markdown("#### Manual anchor")
    done = st.session_state.pop("anchor_done", None)
    if done:
        st.success(done)
    st.caption("Step to the frame where the judge's call happens and say what it is: the phases it "
               "moves are placed again and their incidents re-checked.")
    duration = None
    meta = None
    if game.video is not None:
        try:
            meta = video_meta(game.video)
            duration = meta.duration
        except (FrameError, AttributeError):
            meta = None
    step = 1.0 / float(getattr(meta, "fps", 25.0) or 25.0)
    t = st.number_input("Video time (s)", min_value=0.0,
                        max_value=float(duration) if duration else None,
                        value=float(phase.t0), step=step, format="%.2f", key=f"anchor_t_{phase.key}")
    left, right = st.columns([2, 3])
    if meta is not None:
        try:
            left.image(read_frame(game.video, meta.index_at(t)), caption=f"Frame at {clock(t)}", width="stretch")
        except FrameError as exc:
            left.warning(str(exc))
    with right:
        labels = [label for _, label in choices]
        picked = st.radio("At this frame", labels, key=f"anchor_what_{phase.key}")
        kind = choices[labels.index(picked)][0]
        mark = f"{kind}:{phase.key}"
        if st.button("Set anchor here", key=f"anchor_set_{phase.key}", type="primary"):
            _apply(game, mark, float(t))
        history, problem = _history(game.root)
        if problem:
            st.error(problem)
        latest = {a.mark: a for a in history if a.mark.endswith(":" + phase.key) or a.mark == phase.key}
        for m, a in latest.items():
            if a.t is None:
                continue
            st.markdown(f"Anchor in force: `{m}` at {clock(a.t)} · set by {a.set_by}"
                        f"{' (' + a.role + ')' if a.role else ''} · {a.set_at}")
            if st.button("Clear this anchor", key=f"anchor_clear_{m}"):
                _apply(game, m, None)


def needs_anchor_section(doc: dict | None) -> None:
    """The calls the analysis could not place within a second: where an anchor helps."""
    if not doc:
        return
    items = doc.get("needs_anchor") or []
    st.markdown("#### Calls to anchor")
    if not items:
        st.caption("Every nightfall, vote call and vote window was placed within a second.")
        return
    st.caption(f"{len(items)} calls could not be placed within a second; anchor them above "
               "(pick the phase, step to the frame).")
    st.dataframe([{"phase": i.get("label"), "what": i.get("what"), "placed": clock(i.get("placed")),
                   "why": i.get("reason")} for i in items], hide_index=True)

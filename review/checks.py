"""Rule checks: what the seats did (tracks) inside what the rules allow (timeline).

Each check reads the tracks that overlap a timeline interval and emits
incidents for behaviour the interval does not permit. Times here are video
seconds: the caller has already placed the timeline on the video clock
(review.align). Vote-form and vote-timing findings come from the recount;
miscounts carry their impact; the engine's protocol-only audit joins as
protocol incidents.

What each foul is, where it is looked for, what shows it and what excuses it
is declared in review.fouls; the checks read it from there, and run in the
order the declarations name them (`run_checks`).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping, Sequence

from engine.profiles import Profile
from engine.protocol import Protocol
from engine.replay import Replay
from engine.timeline import Interval, Kind, Permit
from vision.tracks import Observed, Track

from .fouls import AWAKE_PERMITS, CHECK_NAMES, FOUL_OF, SUBSUMED_BY, IncidentType
from .impact import pass_impact
from .incidents import Impact, Incident, Phase, Source, incident_id
from .recount import CallRecount

T = IncidentType
S = Observed


@dataclass(frozen=True)
class CheckContext:
    protocol: Protocol
    replay: Replay
    intervals: Sequence[Interval]       # on the video clock
    tracks: Sequence[Track]
    recounts: Sequence[CallRecount] = ()
    # interval key -> seconds either side its placement may be off (an untimed record
    # placed from the picture or between neighbours: review.pipeline.PLACEMENT_SLACK)
    slack: Mapping[str, float] = field(default_factory=dict)
    # seat -> the seats whose arms move through its body window (their heads lie
    # in its body box: vision.neighbour_arms.crossing_seats); empty: not known
    neighbours: Mapping[int, tuple[int, ...]] = field(default_factory=dict)

    @property
    def profile(self) -> Profile:
        """The game's profile: what each finding cites."""
        return self.replay.profile


def _make(ctx: CheckContext, type_: IncidentType, seats, t0, t1, phase: Interval | None,
          confidence: float, details: dict | None = None, impact: Impact | None = None,
          extra: str = "", phase_label: str | None = None, phase_key: str | None = None) -> Incident | None:
    """The incident, or None when clipping a track to its phase left no span
    (a track that only touches the phase's edge)."""
    if t0 is not None and t1 is not None and t1 < t0:
        return None
    foul = FOUL_OF[type_]
    clause, sanction = foul.cite(ctx.profile)
    label = phase_label or (phase.label if phase else "")
    key = phase_key or (phase.key if phase else "")
    return Incident(
        id=incident_id(type_, seats, key, t0, extra), type=type_, seats=tuple(sorted(seats)),
        t0=None if t0 is None else round(t0, 2), t1=None if t1 is None else round(t1, 2),
        phase=Phase(label, key), confidence=round(float(confidence), 3), violation=foul.violation,
        clause=clause, sanction=sanction, impact=impact or Impact(), details=details or {},
        source=Source.VIDEO)


# The least evidence each state needs before it can accuse anyone: a track's
# mean confidence and its length in seconds. A missed foul is a judge's call
# to make; a false one wastes the 15 minutes of an appeal.
# A shot (raised fingers curling) must be seen for 0.3 s, three frames of the
# shooting's 6 fps. Every shot track has the same confidence
# (vision.seat_states.SHOT_CONF), so its length is the only evidence of its
# strength, and a shot at another number than recorded claims the night's
# kill was wrong. Measured: fresh seed 3805's seat 6 (mafia) held two fingers
# up from 91.5 to 100.7 s, two frames at 95.7 s read curled, and a shot
# mismatch was raised (seen at call 6, recorded 2). A real flex lasts about
# half a second (docs/acting.md: `curl_time`), so a two-frame one is lost too;
# none is lost measured: over the six games analysed in session 43 (the
# sample, the full-length game, seeds 3801, 3803-3805; 36 true shots) that
# was the only shot track at all (the flex is not seen yet).
MIN_EVIDENCE: dict[Observed, tuple[float, float]] = {
    S.MASK_LIFTED: (0.5, 0.5), S.MASK_OFF: (0.7, 0.5), S.HAND_AT_MASK: (0.6, 0.5),
    S.HEAD_UP: (0.7, 1.5), S.STANDING: (0.85, 1.0), S.TOUCH: (0.6, 0.3),
    S.HAND_RAISED: (0.6, 0.3), S.ARM_UP: (0.6, 0.3), S.SHOT: (0.6, 0.3), S.POINTING: (0.6, 0.5),
    S.FINGERS_SHOWN: (0.6, 0.5),
}


# A shot's 0.3 s must be frames read curled, not a span: fresh seed 3815's
# seat 4 (mafia, its raised hand seen from behind and above) held one finger
# up through the calls and read curled in single frames at 94.5 s and 94.83 s,
# fingers up in the frame between (the index hidden behind the hand every
# other look). Those two frames span 0.33 s, and a shot mismatch was raised
# (seen at call 3, recorded 9). Three frames read curled is the evidence the
# 0.3 s stood for at 6 fps. Measured on the sixteen analyses of sessions
# 49-50: the three shot tracks there were all two frames, none a true shot.
# A mask off or lifted likewise: fresh seed 3815's seat 10, seen from behind as
# he sat up at night, read "off" in the two frames a second apart that the
# night's sampling took there (its proposal with wider head boxes, tried in
# session 52 and not kept): a false peek from two looks. Over every analysis
# at hand (sessions 46-52, docs/vision.md) 427 strong mask tracks were read in
# fewer than three frames and that peek was the only incident resting on one;
# every true peek had four frames or more.
MIN_FRAMES: dict[Observed, int] = {S.SHOT: 3, S.MASK_OFF: 3, S.MASK_LIFTED: 3}


def _strong(tr: Track) -> bool:
    conf, secs = MIN_EVIDENCE.get(tr.state, (0.0, 0.0))
    return tr.confidence >= conf and tr.t1 - tr.t0 >= secs and tr.frames >= MIN_FRAMES.get(tr.state, 0)


def _of(tracks: Iterable[Track], *states: Observed) -> list[Track]:
    return [tr for tr in tracks if tr.state in states and _strong(tr)]


def _kinds(ctx: CheckContext, *kinds: Kind) -> list[Interval]:
    return [iv for iv in ctx.intervals if iv.kind in kinds and iv.timed]


def _permitted(ctx: CheckContext, seat: int, permit: Permit, a: float, b: float) -> bool:
    """Is [a, b] mostly inside an interval that grants `permit` to the seat? An interval
    placed only to within some seconds (`ctx.slack`) grants it that much either side:
    acting outside a phase is claimed only beyond what the placement can tell (measured:
    muted and untimed, the Don's and the Sheriff's checks placed from their own masks
    coming off made the start of each check a "peek", 5 false ones on fresh seed 2301)."""
    def span(iv: Interval) -> tuple[float, float]:
        d = ctx.slack.get(iv.key, 0.0)
        return iv.t0 - d, iv.t1 + d
    grants = [span(iv) for iv in ctx.intervals if iv.timed and iv.allowed(seat, permit)]
    if b > a:
        return sum(max(0.0, min(b, t1) - max(a, t0)) for t0, t1 in grants) > (b - a) * 0.5
    return any(t0 <= a <= t1 for t0, t1 in grants)


# ------------------------------------------------------------------ night checks

def check_masking(ctx: CheckContext) -> list[Incident]:
    """V1: mask still off when the time allowed after "Night" has run out."""
    out = []
    foul = FOUL_OF[T.MASK_LATE]
    for iv in _kinds(ctx, *foul.window):
        deadline = iv.t1
        for seat in iv.in_game:
            # a lift that begins just after the deadline is late only if the
            # mask was not seen on at it
            masked = _masked_by(ctx, seat, deadline)
            late = [tr for tr in _of(ctx.tracks, *foul.evidence)
                    if tr.seat == seat and tr.t0 <= deadline + 0.2 and tr.t1 > deadline + 0.3
                    and not (masked and tr.t0 > deadline)]
            if late:
                tr = max(late, key=lambda x: x.t1)
                on = next((m.t0 for m in _of(ctx.tracks, S.MASK_ON) if m.seat == seat and m.t0 >= deadline), tr.t1)
                out.append(_make(ctx, T.MASK_LATE, (seat,), iv.t0, on, iv, tr.confidence,
                                 {"nightfall": iv.t0, "deadline": deadline, "mask_on_at": on,
                                  "late_by": round(on - deadline, 2)}))
    return out


# a mask-on track ending this close before the deadline still holds it: the
# dense frames of a masking window are 0.2 s apart, so a mask seen on at the
# last frame before the deadline and lifted at the next leaves the deadline
# between them (the late check likewise takes a lift first seen up to 0.2 s
# after the deadline as possibly there at it). Measured: fresh seed 3806's
# Don (seat 10), on at 5.40 s, lifted at 5.60 s (the mafia's deal-night
# meeting), deadline 5.52 s: a false late mask with 0.1
MASKED_BY_SLACK = 0.2


def _masked_by(ctx: CheckContext, seat: int, deadline: float) -> bool:
    """Was the seat's mask seen on at the deadline (a mask-on track spanning it)?
    Then a lift beginning after the deadline is the night's to judge (a peek,
    or the mafia's own wake), not late masking; a mask seen off across the
    deadline stays late whatever else was read there. Measured: fresh
    seed 3804, seat 7 (mafia) masked 1.8 s before the deadline of the deal
    night and lifted the mask for the mafia's meeting from the next frame, 0.2 s
    past it: a late mask was raised, the lift taken for a mask never put on."""
    return any(m.seat == seat and m.t0 <= deadline and m.t1 >= deadline - MASKED_BY_SLACK
               for m in _of(ctx.tracks, S.MASK_ON))


def _night_spans(ctx: CheckContext) -> list[tuple[Interval, float, float]]:
    """Nights after their masking window: when every seat must keep the night pose."""
    out = []
    masking = {iv.round: iv for iv in _kinds(ctx, Kind.MASKING)}
    for night in _kinds(ctx, Kind.NIGHT):
        m = masking.get(night.round)
        start = m.t1 if m is not None else night.t0
        out.append((night, start, night.t1))
    return out


def check_night_behaviour(ctx: CheckContext) -> list[Incident]:
    """V4 peeking, V3 hand at the mask, V5 pose, V10 touching, V15 standing, at night."""
    out = []
    # a hand near the mask is no foul for a player awake by right: the mafia's
    # shot hand passes the face (measured: the body window reads it as a hand
    # at the face on a rendered game); an arm up is read below, as a reach
    acts = [(state, f) for f in map(FOUL_OF.__getitem__, NIGHT_ACTS) for state in f.evidence
            if state is not S.ARM_UP]
    pose = FOUL_OF[T.NIGHT_POSE]
    for night, a, b in _night_spans(ctx):
        for tr in ctx.tracks:
            if tr.seat not in night.in_game or not tr.overlaps(a, b) or not _strong(tr):
                continue
            t0, t1 = max(tr.t0, a), min(tr.t1, b)
            if t1 - t0 < 0.3:
                continue
            for state, foul in acts:
                if tr.state is not state:
                    continue
                if any(_permitted(ctx, tr.seat, p, t0, t1) for p in foul.excused_by):
                    continue
                if state is S.TOUCH and _raised_by_right(ctx, tr, t0, t1):
                    continue
                seats = (tr.seat,) if state is not S.TOUCH or tr.value is None else (tr.seat, int(tr.value))
                out.append(_make(ctx, foul.type, seats, t0, t1, night, tr.confidence,
                                 {"state": tr.state, "value": tr.value}))
            if tr.state is S.ARM_UP and not any(_permitted(ctx, tr.seat, p, t0, t1) for p in AWAKE_PERMITS):
                reach = _reach(ctx, tr)
                if reach is not None:
                    seats = (tr.seat,) if reach.value is None else (tr.seat, int(reach.value))
                    out.append(_make(ctx, T.TOUCH_NIGHT, seats, t0, t1, night,
                                     min(tr.confidence, reach.confidence),
                                     {"state": "arm_up", "value": reach.value, "touch_seen": [reach.t0, reach.t1]}))
            # arms_open is not used: pose rarely sees crossed arms on a masked,
            # bowed player (measured recall under 10%), so "open" is the default
            if tr.state in pose.evidence:
                # awake by right: the mafia shooting, the Don or Sheriff checking
                if not any(_permitted(ctx, tr.seat, p, t0, t1) for p in pose.excused_by):
                    out.append(_make(ctx, T.NIGHT_POSE, (tr.seat,), t0, t1, night, tr.confidence,
                                     {"state": tr.state}))
    return out


# the night acts a track shows directly (a state of their evidence)
NIGHT_ACTS = (T.PEEK, T.MASK_TOUCH, T.TOUCH_NIGHT, T.STAND_UP)


# seconds between a touch's end and the start of the seat's raise by right
# for the touch to be the arm rising to it (frames are 0.17-0.2 s apart)
RAISE_LEAD_IN = 0.5


def _raised_by_right(ctx: CheckContext, touch: Track, t0: float, t1: float) -> bool:
    """Is a touch only the body window read (no hand of the seat reached a
    neighbour's zone, so no touched seat is named) on a player whose arm is
    up by right then (the mafia shooting)? The window's "touch" and "raised"
    are both an arm out of the pose; which one it says depends on where the
    box cuts the arm. Measured: fresh seed 3801 on the seats `mafvar
    calibrate` proposed (seat 3's box 10 px lower than the rendered one), the
    Don's own shot hand read "touch" 0.46-0.99 for whole stretches of both
    shootings, alternating with "raised": 4 false night touches (on its
    rendered calibration the same frames read "raised" 0.7-1.0). A touch a
    hand names stays a touch.

    The same arm on its way up: a touch ending where the seat's own raise by
    right begins (`RAISE_LEAD_IN`). Fresh seed 3815's proposal: the mafia seat
    6 lifted her arm from the night pose 0.75 s before the shooting was placed
    (90.15 s); the window read "touch" 0.67-0.90 from 89.4 s to 90.0 s and
    "arm up" from 90.2 s: a false night touch. Over every analysis at hand
    (sessions 46-52) no true night touch ended that near a raise of its seat."""
    if touch.value is not None:
        return False
    return _permitted(ctx, touch.seat, Permit.RAISE_HAND, t0, t1) or any(
        r.seat == touch.seat and abs(r.t0 - touch.t1) <= RAISE_LEAD_IN
        and _permitted(ctx, touch.seat, Permit.RAISE_HAND, r.t0, r.t1) for r in _of(ctx.tracks, *RAISED_ARM))


# a touch frame's least confidence to name a raised arm a reach
REACH_TOUCH = 0.6


def _touches(ctx: CheckContext, arm: Track) -> list[Track]:
    """The seat's touches (any length) inside an arm out of its pose."""
    return [t for t in ctx.tracks if t.seat == arm.seat and t.state is S.TOUCH
            and t.confidence >= REACH_TOUCH and t.overlaps(arm.t0, arm.t1)]


def _reach(ctx: CheckContext, arm: Track) -> Track | None:
    """The touch inside an arm out of the night pose, when the window read
    the reach as a raised arm in most frames and as a touch in too few for a
    touch track of its own (measured: a night touch on a fresh seed was
    "raised" in most frames, "touch" in one). None when the arm touched
    nothing the window saw, or when the touch has its own strong track (the
    touch check reports that one)."""
    touches = _touches(ctx, arm)
    if not touches or any(_strong(t) for t in touches):
        return None
    return max(touches, key=lambda t: t.confidence)


def _one_per_act(tracks: list[Track]) -> list[Track]:
    """A raised hand seen by both the hands model and the body window is one
    act: an arm_up track overlapping a hand_raised or shot track of the same
    seat is dropped."""
    hands = [t for t in tracks if t.state is not S.ARM_UP]
    return hands + [t for t in tracks if t.state is S.ARM_UP and not any(
        h.seat == t.seat and h.overlaps(t.t0, t.t1) for h in hands)]


# what a neighbour's raised arm is read as on her own seat
RAISED_ARM = (S.ARM_UP, S.HAND_RAISED, S.SHOT)


def _beside_a_shooter(ctx: CheckContext, arm: Track, sh: Interval, permits: Sequence[Permit]) -> bool:
    """Was a neighbour whose arms move through the seat's body window raising
    her arm by right (a shooter) while the window alone read the seat's arm up?
    The window reads its whole box, the neighbour's raised arm included, so the
    raise is not the seat's for sure. Measured: fresh seed 3801 (default
    conditions), seat 4's night touch of seat 3, an arm along the table, was read
    "raised" by seat 4's window while seat 3, the Don, had her arm up for the
    shot; the hands seat 4's crop found lay at the table, and a false shot was
    raised on seat 4 in sessions 38-41. A true false shot's raised hand is seen
    by the hands model in some of its frames (the committed sample's, seed
    3801's): that track (`_one_per_act`) still stands."""
    near = ctx.neighbours.get(arm.seat, ())
    return any(t.seat in near and t.state in RAISED_ARM and t.overlaps(arm.t0, arm.t1)
               and any(sh.allowed(t.seat, p) for p in permits) for t in ctx.tracks)


def check_shooting(ctx: CheckContext) -> list[Incident]:
    """V6 a non-mafia hand up during the shooting; V7 shot gestures vs the recorded shots;
    V8 gestures between "Night" and the shooting."""
    out = []
    false_shot, mismatch, early = FOUL_OF[T.FALSE_SHOT], FOUL_OF[T.SHOT_MISMATCH], FOUL_OF[T.EARLY_GESTURE]
    for sh in _kinds(ctx, Kind.SHOOTING):
        # the hands model often misses a hand raised over a masked head: the
        # body window's arm_up says it too (measured: 2 of 2 false shots on
        # fresh seeds had arm_up and no hand_raised)
        for tr in _one_per_act(_of(ctx.tracks, *false_shot.evidence)):
            if tr.state is S.ARM_UP and _touches(ctx, tr):
                continue  # an arm out to the neighbour: the touch check reports it
            if tr.state is S.ARM_UP and _beside_a_shooter(ctx, tr, sh, false_shot.excused_by):
                continue  # the window may be reading the shooter's arm: not the seat's for sure
            if tr.seat in sh.in_game and tr.overlaps(sh.t0, sh.t1) and \
                    not any(sh.allowed(tr.seat, p) for p in false_shot.excused_by):
                out.append(_make(ctx, T.FALSE_SHOT, (tr.seat,), max(tr.t0, sh.t0), min(tr.t1, sh.t1), sh,
                                 tr.confidence, {"state": tr.state, "fingers": tr.value}))
        calls = [iv for iv in _kinds(ctx, Kind.SHOOTING_CALL) if iv.round == sh.round]
        recorded = {}
        for i, ev in enumerate(ctx.protocol.events):
            st = ctx.replay.states[i]
            if ev.type == "shot" and st.round == sh.round:
                recorded[ev.by] = ev.target
        for seat in sh.seats:
            flexes = [tr for tr in _of(ctx.tracks, *mismatch.evidence) if tr.seat == seat and tr.overlaps(sh.t0, sh.t1)]
            seen = []
            for tr in flexes:
                call = next((c for c in calls if c.t0 <= tr.t0 < c.t1), None)
                if call is not None:
                    seen.append((call.details["called"], tr))
            targets = sorted({s for s, _ in seen})
            want = recorded.get(seat)
            if len(targets) > 1 or (targets and want is not None and targets[0] != want) or \
                    (want is not None and calls and not targets and flexes):
                tr = seen[0][1] if seen else flexes[0]
                out.append(_make(ctx, T.SHOT_MISMATCH, (seat,), tr.t0, tr.t1, sh, tr.confidence,
                                 {"seen_targets": targets, "recorded_target": want}))
        masking = next((m for m in _kinds(ctx, Kind.MASKING) if m.round == sh.round), None)
        if masking is not None:
            for tr in _of(ctx.tracks, *early.evidence):
                if tr.seat in sh.in_game and tr.overlaps(masking.t1, sh.t0 - 0.3) and tr.t0 < sh.t0 - 0.3:
                    out.append(_make(ctx, T.EARLY_GESTURE, (tr.seat,), max(tr.t0, masking.t1),
                                     min(tr.t1, sh.t0), sh, tr.confidence, {"state": tr.state}))
    return out


def check_checks(ctx: CheckContext) -> list[Incident]:
    """V9: someone else pointing or showing numbers while the Don or Sheriff checks."""
    out = []
    foul = FOUL_OF[T.CHECK_POINTING]
    for iv in _kinds(ctx, *foul.window):
        for tr in _of(ctx.tracks, *foul.evidence):
            if tr.seat in iv.in_game and tr.overlaps(iv.t0, iv.t1) and \
                    not any(iv.allowed(tr.seat, p) for p in foul.excused_by):
                out.append(_make(ctx, T.CHECK_POINTING, (tr.seat,), max(tr.t0, iv.t0), min(tr.t1, iv.t1),
                                 iv, tr.confidence, {"state": tr.state, "checker": list(iv.seats)}))
    return out


# ------------------------------------------------------------------ day checks

def check_day_behaviour(ctx: CheckContext) -> list[Incident]:
    """V11 touching a neighbour, V15 standing up, V22 gestures while voting."""
    out = []
    touch, stand, gesture = FOUL_OF[T.TOUCH_DAY], FOUL_OF[T.STAND_UP], FOUL_OF[T.VOTE_GESTURE]
    for day in _kinds(ctx, Kind.DAY):
        for tr in _of(ctx.tracks, *touch.evidence, *stand.evidence):
            # the part inside the day must itself last (a track that only touches its edge is not in it)
            if tr.seat in day.in_game and min(tr.t1, day.t1) - max(tr.t0, day.t0) >= 0.3:
                if tr.state in stand.evidence and _leaves(ctx, tr):
                    continue
                if tr.state in touch.evidence and _voting(ctx, tr):
                    continue
                type_ = T.TOUCH_DAY if tr.state in touch.evidence else T.STAND_UP
                seats = (tr.seat,) if tr.state is not S.TOUCH or tr.value is None else (tr.seat, int(tr.value))
                out.append(_make(ctx, type_, seats, max(tr.t0, day.t0), min(tr.t1, day.t1), day,
                                 tr.confidence, {"state": tr.state}))
    for v in _kinds(ctx, *gesture.window):
        for tr in _of(ctx.tracks, *gesture.evidence):
            if tr.seat in v.in_game and min(tr.t1, v.t1) - max(tr.t0, v.t0) >= 0.3:
                out.append(_make(ctx, T.VOTE_GESTURE, (tr.seat,), max(tr.t0, v.t0), min(tr.t1, v.t1), v,
                                 tr.confidence, {"state": tr.state, "value": tr.value}))
    return out


# the arm travels to the table this long before the fist is seen standing there
REACH_TO_VOTE = 0.5
# why a zone_unread track may be a vote: the window sees one the hands did not
# confirm, or a hand read as a thumb-up once that its other readings do not bear out
UNREAD_VOTE = ("no_hand", "open_hand", "forms_disagree", "readings_disagree", "weak_fist")


def _voting(ctx: CheckContext, tr: Track) -> bool:
    """The arm that seems to reach over is the seat's own vote, on its way to
    the table or standing there, for most of the "touch" (measured: the body
    window reads an arm stretched to the table beside a neighbour's fist, and
    the arm coming down to vote, as a touch). A vote the zone window sees and
    no hand read confirms (`zone_unread`, not a zone too small to see) counts
    too: venue seeds 7101/7102 after learning, seat 4's fist at 75.0 s."""
    held = sum(max(0.0, min(tr.t1, f.t1) - max(tr.t0, f.t0 - REACH_TO_VOTE))
               for f in ctx.tracks if f.seat == tr.seat and (
                   f.state is S.FIST_ON_TABLE or (f.state is S.ZONE_UNREAD and f.value in UNREAD_VOTE)))
    return held >= 0.5 * (tr.t1 - tr.t0) - 1e-6


def _leaves(ctx: CheckContext, tr: Track, within: float = 3.0) -> bool:
    """The player stands up to leave the table (eliminated or removed): the
    seat is empty right after. Whether the exit was recorded is the protocol
    audit's question, not a standing foul."""
    return any(e.seat == tr.seat and e.state is S.SEAT_EMPTY and tr.t1 - 0.5 <= e.t0 <= tr.t1 + within
               for e in ctx.tracks)


# ------------------------------------------------------------------ votes

def _vote_moments(rc: CallRecount, v) -> list[dict]:
    """The frames a judge steps to for a vote flag: the call, the window's
    opening and "Thank you", the fist landing and lifting."""
    marks = [("call", rc.t_call), ("window opens", rc.window_open), ("thank you", rc.window_close),
             ("fist landed", v.t_place), ("fist lifted", v.t_lift)]
    return [{"label": label, "t": round(t, 3)} for label, t in marks if t is not None]


def vote_incidents(ctx: CheckContext) -> list[Incident]:
    """Flags from the recount (V16, V17, V18, V20, V21: a flag is the incident
    type it finds) and miscounts with their impact."""
    recounts = ctx.recounts
    calls = {iv.key: iv for iv in ctx.intervals if iv.kind is Kind.VOTE_CALL}
    out = []
    for rc in recounts:
        iv = calls.get(rc.key)
        for v in rc.voters:
            for flag in v.flags:
                t1 = v.t_lift if v.t_lift is not None else v.t_place
                out.append(_make(ctx, IncidentType(flag), (v.seat,), v.t_place, t1, iv, v.confidence,
                                 {"candidate": rc.candidate, "counted": v.counted, "form": v.form,
                                  "window": [rc.window_open, rc.window_close], "reason": v.reason,
                                  "timing": {"place": v.timing, "lift": v.lift_timing},
                                  "key_moments": _vote_moments(rc, v)}))
    passes: dict[tuple[int, int], list[CallRecount]] = {}
    for rc in recounts:
        passes.setdefault((rc.round, rc.pass_index), []).append(rc)
    for group in passes.values():
        wrong = [rc for rc in group if rc.differs]
        if not wrong:
            continue
        imp = pass_impact(ctx.protocol, group)
        # One judge error per pass: a missed (or phantom) fist moves the default
        # votes too, so several calls differ. Anchor it where a fist went uncounted.
        origin = next((rc for rc in wrong if rc.recount > (rc.announced or 0)), wrong[0])
        iv = calls.get(origin.key)
        seen = sorted(v.seat for v in origin.voters if v.counted and v.reason != "default")
        conf = min([v.confidence for v in origin.voters if v.counted] or [1.0])
        out.append(_make(ctx, T.MISCOUNT, tuple(rc.candidate for rc in wrong), origin.t_call,
                         max(rc.window_close or rc.t_call or 0 for rc in wrong), iv, conf,
                         {"candidate": origin.candidate, "announced": origin.announced,
                          # "ballots": the record gave no count; `announced` is what its ballots give
                          "announced_from": origin.announced_from,
                          "recount": origin.recount, "voters_seen": seen,
                          "calls": [{"candidate": rc.candidate, "announced": rc.announced,
                                     "recount": rc.recount} for rc in group],
                          "as_played": imp.as_played, "corrected": imp.corrected},
                         impact=imp.impact, phase_key=f"r{origin.round}.vote.p{origin.pass_index}"))
    return out


def protocol_incidents(ctx: CheckContext) -> list[Incident]:
    """The engine's protocol-only audit findings (judge errors), as incidents."""
    out = []
    for n, issue in enumerate(ctx.replay.issues):
        if issue.severity.value != "audit":
            continue
        ev = ctx.protocol.events[issue.event] if issue.event is not None and issue.event < len(ctx.protocol.events) else None
        t = ev.t if ev is not None else None
        key = f"event {issue.event}" if issue.event is not None else "game"
        out.append(Incident(
            id=incident_id(T.PROTOCOL_AUDIT, (), key, t, f"{issue.code}:{n}"), type=T.PROTOCOL_AUDIT,
            seats=(), t0=t, t1=t, phase=Phase(f"protocol event {issue.event}" if ev else "protocol", key),
            confidence=1.0, clause=issue.clause, sanction="judge error: see the appeal rules (rules-spec §4.2, §5)",
            details={"code": issue.code, "message": issue.message, "event": issue.event},
            source=Source.PROTOCOL))
    return out


def _subsumed(inc: Incident, others: Sequence[Incident]) -> bool:
    kinds = SUBSUMED_BY.get(inc.type, ())
    return any(o.type in kinds and set(o.seats) & set(inc.seats) and o.t0 is not None and inc.t0 is not None
               and o.t0 <= (inc.t1 or inc.t0) + 0.5 and inc.t0 <= (o.t1 or o.t0) + 0.5 for o in others)


Check = Callable[[CheckContext], list[Incident]]


def all_checks() -> tuple[Check, ...]:
    """The checks the foul declarations name, in their order (review.fouls)."""
    here = sys.modules[__name__]
    return tuple(getattr(here, name) for name in CHECK_NAMES)


def run_checks(ctx: CheckContext, recounts: Sequence[CallRecount]) -> list[Incident]:
    """Every check over the game; one incident per id, none that another subsumes."""
    ctx = replace(ctx, recounts=tuple(recounts))
    found: dict[str, Incident] = {}
    for check in all_checks():
        for inc in check(ctx):
            if inc is not None:
                found.setdefault(inc.id, inc)
    every = list(found.values())
    return [inc for inc in every if not _subsumed(inc, every)]

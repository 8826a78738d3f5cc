"""Vote recount: who voted, when and for whom, under the game's profile (rules-spec 4.1).

Input: the engine timeline's vote-call intervals (each with its window) and,
per seat, the fist placements the vision layer saw (time placed, time lifted,
form). Output: per call the recounted number and a verdict for every eligible
voter, plus the flags the rule checks turn into incidents. Pure functions: no
video, no I/O.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Iterable, Mapping

from engine.profiles import Profile
from engine.timeline import Interval, Kind
from engine.voting import VoteWindow
from vision.view_quality import Blind

from .fouls import IncidentType as T

SAMPLED, FULL_RATE = "sampled", "full_rate"

# Forms the vision layer reports for a hand on the table during a vote.
GOOD_FORMS = frozenset({"thumb_up", "fist"})
# A fist whose thumb was never seen counts, but says nothing of when it was
# placed or lifted: a hand held or resting over the table before the call reads
# the same. Of the vote flags of ten analyses (session 49, README), those raised
# on such a fist were 11 false and 1 true; on a thumb-up, 3 false and 8 true.
# Its timing flags are held back (`VoterVerdict.held`) and said as an abstention.
# Only where the profile's vote is a thumb-up fist (`Profile.vote_form`): under
# SM 6.4 the upright fist without thumb is the vote itself.
UNTIMED_FORMS = frozenset({"fist"})


def untimed(form: str | None, profile: Profile) -> bool:
    """Is a fist of this form silent on its timing under the profile?"""
    return profile.vote_form == "thumb_up" and form in UNTIMED_FORMS


# ... unless it rested like a vote: the seat's only hand on the table in the pass,
# lifted at its call's "Thank you", within this long after it. Then it was that call's vote
# and its early or late landing is one. Players lift at "Thank you" (the renders:
# within 0.81 s of it, the 88 votes of seven games matched to their call); a hand held or resting over the
# table stays (fresh seed 3812's proposal: 5.4 s after it, a false early vote).
# Measured (session 50, README): the full-length game's true early vote (lifted
# 1.0 s after) and the sample's true late vote (1.1 s) come back.
VOTE_LIFT = 2.0
# the flags such a fist still times: its landing against the window. An early
# lift or a second vote is a hand leaving or coming back, which it cannot tell.
LANDING_FLAGS = frozenset({T.EARLY_VOTE.value, T.LATE_VOTE.value})


def rested_like_a_vote(pl: Placement, call: Interval, alone: bool) -> bool:
    """Did an untimed fist (`untimed`) behave as its call's vote: the seat's only
    placement of the pass (`alone`), lifted at "Thank you" (not before it by more
    than a frame, not after it by more than VOTE_LIFT)?"""
    close = call.details.get("window_close")
    lift = pl.latest_lift
    return (alone and close is not None and lift is not None
            and close - _margin(pl.lift_timing) <= lift <= close + VOTE_LIFT)


@dataclass(frozen=True)
class Placement:
    """A hand that landed on the table in a seat's zone during voting."""
    seat: int
    t_place: float
    t_lift: float | None          # None: still down when observation stopped
    form: str = "thumb_up"        # thumb_up | fist | palm | fingertip
    confidence: float = 1.0
    # how t_place and t_lift were found: "sampled" (the first / last frame
    # seen at the vote rate) or "full_rate" (the fist coming to rest / leaving
    # the table, read at the full frame rate near "Thank you": review.landing)
    timing: str = SAMPLED
    lift_timing: str = SAMPLED
    # the zone could not be read from the last sighting until then (the window saw
    # a vote no hand confirmed): the fist may have stayed, so the lift is no earlier
    # than t_lift and no later than this (None: the zone was read empty after it)
    lift_unseen_until: float | None = None
    # the first frame read in its form (`vision.tracks.Track.t_value`; None: t_place)
    t_form: float | None = None

    @property
    def latest_lift(self) -> float | None:
        """The latest the fist can have left the table, as far as the frames tell."""
        if self.t_lift is None or self.lift_unseen_until is None:
            return self.t_lift
        return max(self.t_lift, self.lift_unseen_until)


@dataclass
class VoterVerdict:
    seat: int
    counted: bool
    reason: str                   # in_window | early | default | late | wrong_form | second_vote | none
    t_place: float | None = None
    t_lift: float | None = None
    form: str | None = None
    confidence: float = 1.0
    flags: list[str] = field(default_factory=list)   # incident types: early_vote, early_lift, ...
    # flags not raised because the form says nothing of the timing (UNTIMED_FORMS)
    held: list[str] = field(default_factory=list)
    timing: str | None = None                        # Placement.timing (None for a default vote)
    lift_timing: str | None = None


@dataclass
class CallRecount:
    key: str
    round: int
    pass_index: int
    candidate: int
    event: int | None
    t_call: float | None
    window_open: float | None
    window_close: float | None
    announced: int | None
    recount: int
    voters: list[VoterVerdict]         # counted and uncounted placements in this call, and defaults
    defaults: list[int]
    eligible: list[int] = field(default_factory=list)
    # seats whose cell in this call could not be judged (review.view): seat -> why.
    # `recount` counts the judged cells only; each unverified one may add a vote.
    unverified: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # "ballots" where the record gives no count and `announced` is the count its
    # ballots give (a platform's record, engine.timeline `record_count`); else None
    announced_from: str | None = None

    @property
    def recount_max(self) -> int:
        return self.recount + len(self.unverified)

    @property
    def differs(self) -> bool:
        """The announced count is outside what the judged cells allow (a
        miscount whatever the unverified cells hold)."""
        return self.announced is not None and not self.recount <= self.announced <= self.recount_max

    def to_dict(self) -> dict:
        d = asdict(self)
        d["pass"] = d.pop("pass_index")
        d["voters"] = [{**asdict(v), "t_rel": None if v.t_place is None or self.t_call is None
                        else round(v.t_place - self.t_call, 2)} for v in self.voters]
        return d


# The sampling interval of vote windows (review/plan.py samples them at 5 fps):
# a placement or a lift is known to within one frame, so a timing foul is only
# flagged when it is clear by more than that.
TIMING_MARGIN = 0.2


def _margin(timing: str) -> float:
    """How clear of a window's edge a time must be to make a timing foul:
    a sampled time by a frame of the vote rate, one timed at the full rate
    not at all (it is the edge itself)."""
    return 0.0 if timing == FULL_RATE else TIMING_MARGIN


# A sampled first sighting is up to 0.3 s before the fist rests (the zone reads
# the descending hand: 0.22-0.30 s on the committed sample's 26 fists at 25 fps,
# docs/vision.md), and a window's opening is placed to about 0.1 s (the end of
# the judge's call, heard or timed: within 0.08 s on every measured game). An
# early vote is claimed only clear of both: fresh seed 2304 had a fist first
# seen 0.22 s before the opening, landed 0.1 s after it (a false early vote in
# the timed run, none untimed, where the opening was placed 0.15 s earlier);
# the true early votes measured were 1.5 s or more before it.
EARLY_SIGHTING = 0.3
OPENING_PLACED = 0.1


def _early_margin(timing: str) -> float:
    """How far before a window's opening a landing must be to be an early vote."""
    return OPENING_PLACED + (0.0 if timing == FULL_RATE else EARLY_SIGHTING)


def _landed(pl: Placement) -> float:
    """When a placement is known to be a vote on the table, for an early vote: a
    thumb-up from its first frame read with the thumb up. Frames before it read a
    thumbless fist or another form, and a hand resting on the table reads so (fresh
    seed 3816, the seat nearest a camera at 320 degrees: the other hand resting in
    the zone read as a fist 0.6-0.8 s before the vote hand came to rest, two false
    early votes). Only the early vote is timed so: the count and the window the
    fist belongs to keep its first sighting."""
    if pl.form == "thumb_up" and pl.t_form is not None:
        return max(pl.t_place, pl.t_form)
    return pl.t_place


def _passes(intervals: Iterable[Interval]) -> list[list[Interval]]:
    """Vote-call intervals grouped by (round, pass), in call order."""
    groups: dict[tuple[int, int], list[Interval]] = {}
    for iv in intervals:
        if iv.kind is Kind.VOTE_CALL:
            groups.setdefault((iv.round, iv.details["pass_index"]), []).append(iv)
    return [sorted(g, key=lambda iv: iv.event if iv.event is not None else 0)
            for _, g in sorted(groups.items())]


def _window(call: Interval, profile: Profile) -> VoteWindow:
    """The call's window as the alignment placed it, under the profile's rule."""
    return VoteWindow.of(profile, call.details.get("window_open"), call.details.get("window_close"))


UNVERIFIED = "unverified"


def _blind_from(calls: list[Interval], unseen: Mapping[str, Mapping[int, tuple[str, ...]]], seat: int) -> int:
    """The index of the first call whose zone the seat could not be judged in (len(calls): none)."""
    return next((i for i, c in enumerate(calls) if seat in unseen.get(c.key, {})), len(calls))


NO_THUMB = Blind.NO_THUMB.value


def _with_untimed_fists(calls: list[Interval], assigned: Mapping[int, list[tuple[Placement, int, str]]],
                        profile: Profile, unseen: Mapping[str, Mapping[int, tuple[str, ...]]]
                        ) -> Mapping[str, Mapping[int, tuple[str, ...]]]:
    """`unseen` with the cells an untimed fist leaves open: a seat whose first vote
    of the pass is a fist never seen with its thumb (`untimed`) and who places
    a hand again later in the pass. Which of the two was the vote cannot be told
    (a hand hovering over the table before the call reads as that fist), so the
    seat's cells from that fist's call on are open, not a count and a double vote.
    Measured on a corner camera (fresh seed 3812): such a fist counted for the
    wrong candidate and raised the double votes of the seat's real vote.
    `assigned`: seat -> its placements in this pass with their call and how (`_assign`)."""
    out = {k: dict(v) for k, v in unseen.items()}
    for seat, seen in assigned.items():
        first = next((n for n, (pl, _, reason) in enumerate(seen) if reason != "late" and pl.form in GOOD_FORMS),
                     None)
        if first is None or not untimed(seen[first][0].form, profile) or first == len(seen) - 1:
            continue
        cell = out.setdefault(calls[seen[first][1]].key, {})
        cell[seat] = tuple(dict.fromkeys(cell.get(seat, ()) + (NO_THUMB,)))
    return out


BALLOTS = "ballots"


def announced_of(call: Interval) -> tuple[int | None, str | None]:
    """The judge's count of a call and where it comes from: announced (None), else
    the count the record's ballots give (BALLOTS: a platform record lists who voted
    for whom and no counts; its ballots are the judge's reading of the vote, and the
    game went on by them)."""
    announced = call.details.get("announced")
    if announced is not None:
        return announced, None
    ballots = call.details.get("record_count")
    return ballots, BALLOTS if ballots is not None else None


def recount_pass(calls: list[Interval], placements: Mapping[int, list[Placement]],
                 profile: Profile, until: float | None = None,
                 unseen: Mapping[str, Mapping[int, tuple[str, ...]]] | None = None) -> list[CallRecount]:
    """Recount one voting pass (a list of candidate calls in order).

    `unseen`: call key -> seat -> why, the cells whose zone could not be
    judged (review.view). From a seat's first such call on, its cells are
    unverified unless its counted vote came before (a later fist is then a
    second vote whatever it was): its placements there count for nothing and
    raise no flag, and it is no default vote."""
    form_voids = profile.wrong_form in ("removal_vote_void",)
    eligible = list(calls[0].details["eligible"]) if calls else []
    verdicts: dict[str, list[VoterVerdict]] = {c.key: [] for c in calls}
    voted: set[int] = set()
    # each seat's placements in this pass, with their call and how (the rest lie outside it)
    assigned = {seat: [(pl, idx, reason) for pl in sorted(placements.get(seat, []), key=lambda p: p.t_place)
                       for idx, reason in [_assign(pl, calls, profile, until)] if idx is not None]
                for seat in eligible}
    unseen = _with_untimed_fists(calls, assigned, profile, unseen or {})
    blind_from = {seat: _blind_from(calls, unseen, seat) for seat in eligible}
    for seat in eligible:
        for pl, idx, reason in assigned[seat]:
            call = calls[idx]
            v = VoterVerdict(seat, False, reason, pl.t_place, pl.t_lift, pl.form, pl.confidence, timing=pl.timing,
                        lift_timing=pl.lift_timing)
            if idx >= blind_from[seat] and seat not in voted:
                v.reason = UNVERIFIED   # seen, but in a view that cannot be judged: neither counted nor flagged
            elif seat in voted:
                v.reason = "second_vote"
                v.flags.append(T.DOUBLE_VOTE.value)
            elif reason == "late":
                v.flags.append(T.LATE_VOTE.value)
            elif pl.form not in GOOD_FORMS:
                v.flags.append(T.WRONG_FORM.value)
                v.reason = "wrong_form"
                v.counted = not form_voids
                if v.counted:
                    voted.add(seat)
            else:
                v.counted = True
                voted.add(seat)
                open_ = call.details.get("window_open")
                # a fist first seen just before the window may have landed on time
                if reason == "early" and open_ is not None and open_ - _landed(pl) > _early_margin(pl.timing):
                    v.flags.append(T.EARLY_VOTE.value)
            close = call.details.get("window_close")
            # a sampled t_lift is the last frame the fist was seen: it rose within
            # the next frame; one timed at the full rate is the lift itself
            lift = pl.latest_lift
            if v.counted and close is not None and lift is not None and lift + _margin(pl.lift_timing) < close:
                v.flags.append(T.EARLY_LIFT.value)
            if untimed(pl.form, profile):
                timed = LANDING_FLAGS if rested_like_a_vote(pl, call, len(assigned[seat]) == 1) else frozenset()
                v.held, v.flags = [f for f in v.flags if f not in timed], [f for f in v.flags if f in timed]
            verdicts[call.key].append(v)
    out: list[CallRecount] = []
    last = len(calls) - 1
    defaulted = profile.default_votes == "last_candidate"
    # Where non-voters count for the last candidate, a seat unseen only in the
    # last call counts for it whatever it did there (voted, or not: a default;
    # a late or void fist: a default too): its cell is decided, only a flag
    # there could not be judged.
    open_from = {s: b if not (defaulted and b == last) else len(calls) for s, b in blind_from.items()}
    for i, call in enumerate(calls):
        vs = verdicts[call.key]
        defaults: list[int] = []
        if i == last and defaulted:
            defaults = [s for s in eligible if s not in voted and open_from[s] == len(calls)]
            vs = vs + [VoterVerdict(s, True, "default") for s in defaults]
        # from its first blind call on, the seat's cells are open (why: that call's)
        unverified = {s: tuple(unseen[calls[open_from[s]].key][s])
                      for s in eligible if s not in voted and open_from[s] <= i}
        announced, announced_from = announced_of(call)
        out.append(CallRecount(
            key=call.key, round=call.round, pass_index=call.details["pass_index"],
            candidate=call.details["candidate"], event=call.event, t_call=call.t0,
            window_open=call.details.get("window_open"), window_close=call.details.get("window_close"),
            announced=announced, recount=sum(1 for v in vs if v.counted),
            voters=vs, defaults=defaults, eligible=eligible, unverified=unverified,
            announced_from=announced_from))
    return out


def _assign(pl: Placement, calls: list[Interval], profile: Profile,
            until: float | None = None) -> tuple[int | None, str]:
    """Which call a placement belongs to, and how (rules-spec 4.1, rules 1 and the windows)."""
    t = pl.t_place
    lift = pl.t_lift if pl.t_lift is not None else float("inf")
    for i, call in enumerate(calls):
        window = _window(call, profile)
        inside = window.contains(t)
        if inside is None:
            continue
        # A sampled first sighting just after "Thank you" may have landed before it
        # (within one frame of the vote rate; the landing step could not time it):
        # not a late vote. Fresh seed 3812 (a corner camera): a vote landed 1 s
        # before "Thank you", the hand model first saw it 0.18 s after: a false late
        # vote and a cell counted wrong. Injected late votes land 0.08-0.35 s after
        # and are timed at the full rate (the committed sample's, 0.27 s).
        if inside or (window.opens is not None and t > window.opens and window.contains(t - _margin(pl.timing))):
            return i, "in_window"
        open_ = window.opens
        if open_ is not None and t < open_:
            # Placed before this call's window: premature if still down when it opens
            # (counted and flagged, rules-spec 4.1.1); otherwise late for the previous call.
            if lift > open_:
                return i, "early"
            return (i - 1, "late") if i > 0 else (None, "")
    last = calls[-1] if calls else None
    if last is not None and last.details.get("window_close") is not None and t >= last.details["window_close"]:
        # After the last "thank you": late only while the pass is still being counted.
        end = last.t1 if last.t1 is not None else last.details["window_close"]
        # ... and not once the next vote (a revote, an "all leave?" vote) has begun
        if t < min(end + 3.0, until if until is not None else float("inf")):
            return len(calls) - 1, "late"
    return None, ""


def recount(intervals: list[Interval], placements: Mapping[int, list[Placement]],
            profile: Profile, unseen: Mapping[str, Mapping[int, tuple[str, ...]]] | None = None
            ) -> list[CallRecount]:
    """Recount every pass of the game (`unseen`: see recount_pass)."""
    out: list[CallRecount] = []
    votes = sorted(iv.t0 for iv in intervals if iv.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE) and iv.t0 is not None)
    for calls in _passes(intervals):
        last = calls[-1].t0
        until = next((t for t in votes if last is not None and t > last and
                      not any(c.t0 == t for c in calls)), None)
        out.extend(recount_pass(calls, placements, profile, until, _with_unplaced(calls, unseen or {})))
    return out


NOT_PLACED = "call_not_placed"
RECORD_NOT_FIT = "record_does_not_fit"
NOT_IN_VIDEO = "not_in_the_video"


def calls_outside(intervals: Iterable[Interval], duration: float) -> list[str]:
    """The vote calls whose window the recording does not hold from the call to its
    close (it starts later or ends earlier): no fist can be seen there, and "no
    fist" would make every seat a default vote for the last candidate and a
    miscount of it (a record running past a recording cut short gave one, at
    100 %, changing who leaves)."""
    out = []
    for iv in intervals:
        if iv.kind not in (Kind.VOTE_CALL, Kind.RAISE_VOTE) or iv.t0 is None:
            continue
        close = iv.details.get("window_close")
        end = close if close is not None else (iv.t1 if iv.t1 is not None else iv.t0)
        if iv.t0 < 0.0 or end > duration:
            out.append(iv.key)
    return out


def _with_unplaced(calls: list[Interval], unseen: Mapping[str, Mapping[int, tuple[str, ...]]]
                   ) -> Mapping[str, Mapping[int, tuple[str, ...]]]:
    """`unseen` with every cell of a call the alignment could not place on the
    video: no fist can be assigned to it, so its cells (and, as for any blind
    call, the seat's later ones) are open, not "no vote" (a last candidate
    would otherwise get every seat by default and a miscount with it)."""
    return with_open_calls(calls, unseen, {c.key for c in calls if c.t0 is None}, NOT_PLACED)


def with_open_calls(intervals: Iterable[Interval], unseen: Mapping[str, Mapping[int, tuple[str, ...]]],
                    keys: Iterable[str], reason: str) -> Mapping[str, Mapping[int, tuple[str, ...]]]:
    """`unseen` with every eligible cell of the vote calls `keys` open for `reason`."""
    wanted = set(keys)
    calls = [iv for iv in intervals if iv.key in wanted and iv.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE)]
    if not calls:
        return unseen
    out = {k: dict(v) for k, v in unseen.items()}
    for c in calls:
        out[c.key] = {s: (reason,) for s in c.details["eligible"]}
    return out


def recount_accuracy(recounts: list[CallRecount], truth_votes: Mapping[tuple[int, int, int], set[int]]) -> float:
    """Share of (call, eligible voter) cells where "this seat's vote counts for this
    candidate" agrees with the truth. truth_votes: (round, pass, candidate) -> seats."""
    cells = agree = 0
    for rc in recounts:
        counted = {v.seat for v in rc.voters if v.counted}
        true = truth_votes.get((rc.round, rc.pass_index, rc.candidate), set())
        for seat in rc.eligible:
            cells += 1
            agree += (seat in counted) == (seat in true)
    return agree / cells if cells else 1.0

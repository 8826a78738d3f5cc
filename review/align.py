"""Alignment: place the engine's timeline on the video clock.

Three kinds of evidence, in order of trust:
- manual anchors ("night 2 starts at 41:12") from a judge;
- marks seen in the recording: the judge's call cues in the audio track, most
  seats masking within seconds (nightfall), masks coming off (morning), fists
  landing together (a vote call);
- the protocol's own times, mapped by a fitted clock (offset and drift).

A video mark next to an audio cue of the same kind confirms it (the cue's
time is kept: a tone is timed to 10 ms, masks and fists only to the frame
sampling). Marks are matched to the expected sequence of the game with an ordered
(monotone) matching, never nearest-neighbour, so one missed nightfall cannot
shift every later night. Intervals without a matched mark are placed between
their neighbours and get a lower confidence.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

import numpy as np

from engine.timeline import Interval, Kind
from vision.tracks import MASK_STATES, Observed, Track

from .vote_runs import RunShape, assign_runs, at_window, judge_window_for, judge_window_of, vote_runs

T = TypeVar("T")

# Keys in Interval.details that hold protocol-clock times.
TIME_DETAILS = ("window_open", "window_close", "t_call_end", "t_call2", "t_thanks")
# Typical judge timing, used only where neither the protocol nor the video says.
CALL_SECONDS = 1.0       # "who votes against number N"
CALL_MAX_SECONDS = 3.0
SHOOTING_LEAD = 0.8      # "the mafia goes hunting" before the first seat number   # an utterance longer than this is not one vote call
WINDOW_SECONDS = 1.5     # call end to "thank you"
# A cue tone: its band jumps CUE_RISE_DB over the previous 10 ms and stays that far
# above the band's usual level for CUE_HOLD_SECONDS.
CUE_RISE_DB = 15.0
CUE_HOLD_SECONDS = 0.08
# ... and holds at least the share of the speech band's energy this many dB below all
# of it (a pure tone: about 0 dB; a voice's harmonic: 10 dB and more below)
TONE_WIDE_BAND = (300.0, 4000.0)
TONE_PURITY_DB = 4.0
# A video mark this close to an audio mark of the same kind is the same moment.
FUSE_SECONDS = 2.0
# masks go on (nightfall) and come off (morning) this long after the call, at the
# middle of the table's movement (the synthetic games' players: 0.9-1.7 s)
MASK_LAG_SECONDS = 1.2
# Without protocol times: a vote-call mark with a "thanks" mark or another call at
# most the call and window lengths plus PAIR_SLACK s away is preferred (by
# PAIR_BONUS) to a lone one.
PAIR_SLACK = 3.0
PAIR_BONUS = 0.05


@dataclass(frozen=True)
class Mark:
    """An observed moment on the video clock."""
    kind: str            # nightfall | morning | vote_call | thanks | shooting_call | don_check(_end)
                         # | sheriff_check(_end) | speech (an utterance, whoever said it)
    t: float
    confidence: float
    source: str          # audio | speech | video | manual
    t_end: float | None = None   # an utterance's end (a vote call's end opens the window)
    n: int | None = None         # fists landing together (a vote call seen)
    seats: frozenset[int] | None = None  # whose fists they are (a vote call seen)
    fits: frozenset[str] | None = None  # an utterance: the calls it can be (None: any spoken call)


@dataclass(frozen=True)
class Expected:
    kind: str
    key: str             # the interval key the mark anchors
    t: float | None      # protocol time, if any
    order: int
    hands: int | None = None  # a vote call: the fists the protocol says were raised
    voters: frozenset[int] | None = None  # a vote call: whose, where the record names them


@dataclass(frozen=True)
class Clock:
    offset: float = 0.0
    drift: float = 1.0

    def __call__(self, t: float | None) -> float | None:
        return None if t is None else self.offset + self.drift * t


@dataclass(frozen=True)
class PlacedInterval:
    interval: Interval           # times on the video clock
    confidence: float
    anchored_by: str             # manual | audio | video | protocol | interpolated


@dataclass(frozen=True)
class Alignment:
    placements: tuple[PlacedInterval, ...]
    clock: Clock | None
    matched: Mapping[str, Mark]  # expected key (kind:key) -> mark
    unmatched_expected: tuple[str, ...]
    # "kind:key" -> why the utterance first taken for that call was not trusted (the call
    # was then placed between its neighbours, and is listed for an anchor)
    doubts: Mapping[str, str] = field(default_factory=dict)

    @property
    def intervals(self) -> list[Interval]:
        return [p.interval for p in self.placements]

    @property
    def needs_anchor(self) -> list[dict]:
        """The calls a person should anchor: every nightfall, vote call and vote window
        edge (and night check) the recording did not place within ANCHOR_TOLERANCE s."""
        return needs_anchor(self)

    def to_dict(self) -> dict:
        return {"format": "mafvar-alignment", "version": 1,
                "clock": None if self.clock is None else {"offset": self.clock.offset, "drift": self.clock.drift},
                "matched": {k: {"t": m.t, "source": m.source, "confidence": m.confidence}
                            for k, m in self.matched.items()},
                "unmatched": list(self.unmatched_expected),
                "doubted": [{"mark": k, "why": w} for k, w in self.doubts.items()],
                "intervals": [{**p.interval.to_dict(), "confidence": round(p.confidence, 3),
                               "anchored_by": p.anchored_by} for p in self.placements],
                "needs_anchor": self.needs_anchor}


# ------------------------------------------------------------------ marks from the recording

def audio_marks(audio, tones: Mapping[str, Sequence[float]] | None = None) -> list[Mark]:
    """The judge's call cues in the audio track (vision.audio.Audio).

    `tones` maps a cue to its frequencies; the default is the convention of
    mafvar's synthetic games (sample_videos/audio.py). A tournament with an
    electronic clicker sets its own."""
    from vision.audio import band_energies, onsets
    tones = tones or {"vote_call": (1000.0,), "thanks": (1500.0,),
                      "nightfall": (1200.0, 800.0), "morning": (800.0, 1200.0)}
    if audio is None or audio.samples.size == 0:
        return []
    hits: dict[float, list[tuple[float, float]]] = {}
    freqs = sorted({f for fs in tones.values() for f in fs})
    envs = band_energies(audio, [(f - 40.0, f + 40.0) for f in freqs] + [TONE_WIDE_BAND], win=0.04, hop=0.01)
    wide = envs.pop()
    for f, env in zip(freqs, envs):
        found = _standing_out(env, onsets(env, rise_db=CUE_RISE_DB, min_gap=0.3))
        hits[f] = [(t, 1.0) for t in found if _pure(env, wide, t)]
    out: list[Mark] = []
    used: set[tuple[float, float]] = set()
    # Two-tone cues first: a falling or rising pair 0.2 s apart.
    for kind, fs in tones.items():
        if len(fs) != 2:
            continue
        for t, _ in hits[fs[0]]:
            if any(abs(t2 - (t + 0.2)) < 0.08 for t2, _ in hits[fs[1]]):
                out.append(Mark(kind, round(t, 3), 0.95, "audio"))
                used.add((fs[0], t))
                used.update((fs[1], t2) for t2, _ in hits[fs[1]] if abs(t2 - (t + 0.2)) < 0.08)
    for kind, fs in tones.items():
        if len(fs) != 1:
            continue
        for t, _ in hits[fs[0]]:
            if (fs[0], t) not in used:
                out.append(Mark(kind, round(t, 3), 0.9, "audio"))
    return sorted(out, key=lambda m: m.t)


def _pure(narrow, wide, t: float, hold: float = CUE_HOLD_SECONDS) -> bool:
    """A tone holds nearly all the energy around it; a voice spreads over the band (its
    harmonics cross a tone's frequency too, and once rose above the room like a tone)."""
    i = int(np.searchsorted(narrow.times, t - 1e-6))
    j = max(i + 1, int(np.searchsorted(narrow.times, t + hold + 1e-6)))
    return bool(np.median(narrow.db[i:j] - wide.db[i:j]) >= -TONE_PURITY_DB)


def _standing_out(env, times: Sequence[float], rise_db: float | None = None,
                  hold: float = CUE_HOLD_SECONDS) -> list[float]:
    """The onsets after which the band stays `rise_db` above its usual level for
    `hold` seconds: a cue tone. A jump that only climbs back out of a brief dip
    in the room noise (which `onsets` also reports) is not one."""
    rise_db = CUE_RISE_DB if rise_db is None else rise_db
    if not len(times) or not len(env.db):
        return []
    floor = float(np.median(env.db))
    out = []
    for t in times:
        i = int(np.searchsorted(env.times, t - 1e-6))
        j = int(np.searchsorted(env.times, t + hold + 1e-6))
        seg = env.db[i:max(j, i + 1)]
        if seg.size and float(np.median(seg)) >= floor + rise_db:
            out.append(t)
    return out


def fuse_marks(marks: Sequence[Mark], window: float = FUSE_SECONDS) -> list[Mark]:
    """One mark per moment: a video mark within `window` s of an audio (or manual)
    mark of the same kind confirms it instead of competing with it. The cue's time
    is kept (a tone is timed to 10 ms, masks and fists only to the sampling of the
    frames) and the confidences combine. Each precise mark takes at most one video
    mark, the nearest; unconfirmed marks pass through unchanged."""
    precise = [m for m in marks if m.source != "video"]
    video = [m for m in marks if m.source == "video"]
    taken: dict[int, int] = {}   # video index -> precise index
    for vi, v in enumerate(video):
        near = [(abs(p.t - v.t), pi) for pi, p in enumerate(precise) if p.kind == v.kind and abs(p.t - v.t) <= window]
        if near:
            d, pi = min(near)
            prev = next((k for k, q in taken.items() if q == pi), None)
            if prev is None or abs(video[prev].t - precise[pi].t) > d:
                if prev is not None:
                    del taken[prev]
                taken[vi] = pi
    boost = {pi: video[vi].confidence for vi, pi in taken.items()}
    out = [replace(p, confidence=round(1.0 - (1.0 - p.confidence) * (1.0 - boost[pi]) ** 0.5, 4))
           if pi in boost else p for pi, p in enumerate(precise)]
    out += [v for vi, v in enumerate(video) if vi not in taken]
    return sorted(out, key=lambda m: m.t)


def _clusters(items: Iterable[T], span: float, min_count: int,
              at: Callable[[T], float]) -> list[list[T]]:
    """Groups of items whose times (`at`) lie within `span` seconds of the
    group's first, in time order, each of at least `min_count`."""
    xs = sorted(items, key=at)
    out, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and at(xs[j + 1]) - at(xs[i]) <= span:
            j += 1
        if j - i + 1 >= min_count:
            out.append(xs[i:j + 1])
            i = j + 1
        else:
            i += 1
    return out


# The fewest seats whose masks going on (off) together are the table's nightfall (morning).
MIN_TABLE = 3
WATCHED_AROUND = 10.0


def _watched(tracks: Sequence[Track], t: float, seats: int, empty: set[int]) -> int:
    """How many seats hold a player around `t`: seats with a track within WATCHED_AROUND s,
    less those seen empty at `t` (`empty`: a player who left). Half of them masking together is the
    table's nightfall: half of ten at the start, two of four at the last night (the
    full-length game's last night, four players, had no mark with half of ten)."""
    near = {tr.seat for tr in tracks if tr.t0 <= t + WATCHED_AROUND and tr.t1 >= t - WATCHED_AROUND}
    present = near - empty
    return max(1, min(seats, len(present))) if present else seats


def _empty_seats(tracks: Sequence[Track], t: float) -> set[int]:
    return {tr.seat for tr in tracks if tr.state is Observed.SEAT_EMPTY and tr.t0 <= t <= tr.t1}


TURN_SECONDS = 6.0


def _turned(tracks: Sequence[Track], tr: Track) -> bool:
    """A mask going on (off) where the seat was last seen with it off (on) within
    TURN_SECONDS, or not seen at all: not a track of the same state resuming after a
    break (a player's head turned away mid-day), which is no call."""
    before = [o for o in tracks if o.seat == tr.seat and o is not tr and o.state in MASK_STATES
              and o.t1 <= tr.t0 + 0.5 and o.t1 >= tr.t0 - TURN_SECONDS]
    if not before:
        return True
    return max(before, key=lambda o: o.t1).state is not tr.state


def video_marks(tracks: Iterable[Track], seats: int = 10) -> list[Mark]:
    """Nightfalls (most seats masking together), mornings (masks off together) and
    vote calls (fists landing together) from the seat tracks."""
    tracks = list(tracks)
    out = []
    for state, kind in ((Observed.MASK_ON, "nightfall"), (Observed.MASK_OFF, "morning")):
        onsets = [tr for tr in tracks if tr.state is state and _turned(tracks, tr)]
        for group in _clusters(onsets, 4.0, MIN_TABLE, at=lambda tr: tr.t0):
            # the table masks within a second or two of the call: the cluster's median
            # onset, less that lag (its first onset may be one seat's misreading, e.g.
            # an empty seat's, and a call is the table's, not one seat's)
            mid = float(np.median([tr.t0 for tr in group]))
            empty = _empty_seats(tracks, mid)
            members = {tr.seat for tr in group} - empty
            watched = _watched(tracks, mid, seats, empty)
            if len(members) < max(MIN_TABLE, watched // 2):
                continue
            out.append(Mark(kind, round(mid - MASK_LAG_SECONDS, 3), min(1.0, len(members) / watched), "video"))
    fists = [tr for tr in tracks if tr.state is Observed.FIST_ON_TABLE]
    for landed in _clusters(fists, 1.2, 1, at=lambda tr: tr.t0):
        # fists land after the call ends: the call started about a call's length before
        n = len(landed)
        conf = LONE_FIST_CONFIDENCE if n == 1 else min(1.0, 0.5 + n / 10)
        out.append(Mark("vote_call", round(landed[0].t0 - CALL_SECONDS - 0.3, 3), conf, "video", n=n,
                        seats=frozenset(tr.seat for tr in landed)))
    return sorted(out, key=lambda m: m.t)


# A call one player votes at shows one fist: with the sound muted and no times in the
# record it is the call's only mark (the committed sample's day 2: a one-vote call
# unmarked let the next call's fists be taken for it, and both were placed 3 s late).
# One fist is also what one misread seat looks like, so it is the weakest mark: a
# record with times (the protocol's clock) or a judge heard (the spoken calls) places
# the call without it (`align`).
LONE_FIST_CONFIDENCE = 0.4


def _lone_fist(m: Mark) -> bool:
    return m.kind == "vote_call" and m.source == "video" and m.n == 1


def music_marks(intervals: Sequence[tuple[float, float]]) -> list[Mark]:
    """A club's night music (vision.audio.music_intervals): it starts when the night falls
    and stops at the morning. Only where the judge plays it; its edges are a fade away
    from the call, so an utterance near them places the call (`_refine_with_speech`)."""
    out = []
    for t0, t1 in intervals:
        out.append(Mark("nightfall", round(t0, 3), MUSIC_CONFIDENCE, "music"))
        out.append(Mark("morning", round(t1, 3), MUSIC_CONFIDENCE, "music"))
    return out


MUSIC_CONFIDENCE = 0.8


# ------------------------------------------------------------------ speech: utterances, whoever says them

# What the judge says aloud at an expected mark (docs/synth.md "Sound"; every rulebook
# has the judge call these): an utterance starting there can place it.
SPOKEN = frozenset({"nightfall", "morning", "vote_call", "thanks", "shooting_call", "don_check",
                    "don_check_end", "sheriff_check", "sheriff_check_end"})
START_KINDS = frozenset({"nightfall", "vote_call", "shooting_call", "don_check", "sheriff_check"})
# An utterance matched to a mark it was predicted near: how far it may be, by what the
# prediction rests on (a mark seen, the protocol's clock, or only the order of events).
SPEECH_TOLERANCE = 2.0
SPEECH_TOLERANCE_VIDEO = 4.0
SPEECH_TOLERANCE_INTERPOLATED = 40.0
SPEECH_GAIN = 0.6


def speech_marks(segments) -> list[Mark]:
    """Utterances (vision.audio.speech_segments) as marks of kind "speech": they can
    place a spoken call, but say nothing of which one; louder is likelier the judge.

    One thing tells a vote call from any other utterance, in every rulebook: the
    judge says "thank you" a window's length after it (MC 2.4.7: about 1.5 s). So an
    utterance can be a vote call only when a short one starts THANKS_AFTER s after its
    end, and a short one can be "thank you" only after such a call."""
    segs = list(segments)
    out = []
    lo, hi = UTTERANCE_SECONDS["vote_call"]
    t_lo, t_hi = UTTERANCE_SECONDS["thanks"]
    for k, s in enumerate(segs):
        fits = set(SPOKEN - {"vote_call", "thanks"})
        dur = s.t1 - s.t0
        if lo <= dur <= hi and any(t_lo <= n.t1 - n.t0 <= t_hi and THANKS_AFTER[0] <= n.t0 - s.t1 <= THANKS_AFTER[1]
                                   for n in segs[k + 1:k + 4]):
            fits.add("vote_call")
        if t_lo <= dur <= t_hi and any(lo <= p.t1 - p.t0 <= hi and THANKS_AFTER[0] <= s.t0 - p.t1 <= THANKS_AFTER[1]
                                       for p in segs[max(0, k - 3):k]):
            fits.add("thanks")
        out.append(Mark("speech", s.t0, round(min(0.9, 0.4 + max(0.0, s.rise_db) / 40.0), 3), "speech",
                        t_end=s.t1, fits=frozenset(fits)))
    return out


# "thank you" starts this long after the end of the vote call it closes (s)
THANKS_AFTER = (0.4, 3.5)


def _role_seats(roles: Mapping[int, str] | None, *names: str) -> list[int]:
    return sorted(s for s, r in (roles or {}).items() if str(r) in names)


def check_marks(tracks: Sequence[Track], roles: Mapping[int, str] | None) -> list[Mark]:
    """The Don's and the Sheriff's night checks seen: the checker's mask comes off (or
    up) for a few seconds while most of the table stays masked. The judge's call comes
    a moment before the mask moves and "falls asleep" a moment after it is back."""
    out = []
    masked = [tr for tr in tracks if tr.state is Observed.MASK_ON]
    for kind, role in (("don_check", "don"), ("sheriff_check", "sheriff")):
        for seat in _role_seats(roles, role):
            for t0, t1 in _unmasked_spans(tracks, seat):
                if not CHECK_SECONDS[0] <= t1 - t0 <= CHECK_SECONDS[1]:
                    continue
                mid = (t0 + t1) / 2
                others = {m.seat for m in masked if m.seat != seat and m.t0 <= mid <= m.t1}
                if len(others) < 4:
                    continue
                conf = min(0.9, 0.4 + 0.06 * len(others))
                out.append(Mark(kind, round(t0 - CHECK_LEAD, 3), conf, "video"))
                out.append(Mark(f"{kind}_end", round(t1 + CHECK_TRAIL, 3), conf, "video"))
    return sorted(out, key=lambda m: m.t)


def _unmasked_spans(tracks: Sequence[Track], seat: int) -> list[tuple[float, float]]:
    """The seat's stretches with the mask off or lifted; two of them CHECK_FLICKER or
    less apart are one where together they last no longer than a check (a check
    ending just before the morning's unmasking stays a check)."""
    spans: list[list[float]] = []
    for tr in sorted((tr for tr in tracks if tr.seat == seat
                      and tr.state in (Observed.MASK_OFF, Observed.MASK_LIFTED)), key=lambda tr: tr.t0):
        if spans and tr.t0 - spans[-1][1] <= CHECK_FLICKER and tr.t1 - spans[-1][0] <= CHECK_SECONDS[1]:
            spans[-1][1] = max(spans[-1][1], tr.t1)
        else:
            spans.append([tr.t0, tr.t1])
    return [(a, b) for a, b in spans]


# the checker's mask moves this long after the wake call / before the sleep call
CHECK_LEAD = 0.3
CHECK_TRAIL = 0.3
# A gap this long or less between two stretches of a checker's mask off is a reading's
# flicker, not the check's end, while the two together are no longer than a check:
# one frame misread at the night's 1 fps leaves 2 s (measured on the full-length
# game's night 3: the Don off 2289.0-2293.8 s, read on for 0.8 s, off again to
# 2297.8 s; the Sheriff lifted 2300-2302 s and 2304-2308 s; with the record imported
# untimed, each second half let night 4 be placed inside night 3).
CHECK_FLICKER = 2.1
CHECK_SECONDS = (1.0, 25.0)

# The marks each role's night call leaves. The deal night's wakes of the Don and the
# Sheriff look and sound like a night's checks (the role's mask off alone for seconds,
# the judge calling the role): expected like them, so those marks place the deal night
# and not night 1 (measured: the full-length game's record imported from mafiaratings,
# untimed, put night 1 on the deal night's wakes, every later night one round early).
CHECK_MARK = MappingProxyType({Kind.DON_CHECK: "don_check", Kind.SHERIFF_CHECK: "sheriff_check",
                               Kind.DON_WAKE: "don_check", Kind.SHERIFF_WAKE: "sheriff_check"})


# ------------------------------------------------------------------ what the game expects

def expected_marks(intervals: Sequence[Interval]) -> list[Expected]:
    out = []
    for iv in intervals:
        if iv.kind is Kind.NIGHT:
            out.append(Expected("nightfall", iv.key, iv.t0, iv.event or 0))
            end = iv.details.get("ended_by")
            if end is not None:
                out.append(Expected("morning", iv.key, iv.t1, end))
        elif iv.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE):
            voters = iv.details.get("voters")
            out.append(Expected("vote_call", iv.key, iv.t0, iv.event or 0, iv.details.get("hands_expected"),
                                None if voters is None else frozenset(voters)))
            out.append(Expected("thanks", iv.key, iv.details.get("window_close"), iv.event or 0))
        elif iv.kind is Kind.SHOOTING_CALL:
            out.append(Expected("shooting_call", iv.key, iv.t0, iv.event or 0))
        elif iv.kind in CHECK_MARK:
            out.append(Expected(CHECK_MARK[iv.kind], iv.key, iv.t0, iv.event or 0))
            out.append(Expected(f"{CHECK_MARK[iv.kind]}_end", iv.key, iv.t1, iv.event or 0))
    out.sort(key=lambda e: (e.order, 0 if e.kind in START_KINDS else 1))
    return out


def _kinds_fit(e: Expected, mk: Mark) -> bool:
    if mk.kind == "speech":
        if e.kind not in SPOKEN or (mk.fits is not None and e.kind not in mk.fits):
            return False
        lo, hi = UTTERANCE_SECONDS.get(e.kind, (0.0, CALL_MAX_SECONDS * 2))
        return mk.t_end is None or lo <= mk.t_end - mk.t <= hi
    return e.kind == mk.kind


# How long each call takes to say (s): "thank you" and a seat number are short, "who
# votes against number N" is not; an utterance outside its call's span is another one.
UTTERANCE_SECONDS = {"thanks": (0.1, 0.9), "shooting_call": (0.1, 1.2), "vote_call": (0.45, CALL_MAX_SECONDS)}


def ordered_match(expected: Sequence[Expected], marks: Sequence[Mark],
                  predicted: Callable[[Expected], float | None] | None = None,
                  tolerance: float | Callable[[Expected], float] = 3.0,
                  earliest: Callable[[Expected], float] | None = None) -> dict[int, Mark]:
    """Monotone matching of expected marks to observed ones (same kind; an utterance,
    kind "speech", fits any spoken call).

    Maximises the summed confidence (minus a distance penalty when a predicted
    time exists); both sequences keep their order; a mark before `earliest(e)`
    cannot be e's. O(n·m) dynamic programming."""
    tol_of = tolerance if callable(tolerance) else (lambda e: float(tolerance))
    n, m = len(expected), len(marks)
    score = np.zeros((n + 1, m + 1))
    move = np.zeros((n + 1, m + 1), dtype=np.int8)  # 0 skip expected, 1 skip mark, 2 match
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            best, how = score[i - 1, j], 0
            if score[i, j - 1] > best:
                best, how = score[i, j - 1], 1
            e, mk = expected[i - 1], marks[j - 1]
            if _kinds_fit(e, mk) and (earliest is None or mk.t >= earliest(e)):
                gain = mk.confidence
                if mk.seats is not None and e.voters is not None:
                    # the fists of the seats the record says voted: likelier this call's.
                    # Counting alone let the committed sample's first call (five voters,
                    # one early) give its four fists to the next call of four voters
                    # (muted, untimed): the seats tell them apart
                    gain /= 1.0 + len(mk.seats ^ e.voters) / 2.0
                elif mk.n is not None and e.hands is not None:
                    # as many fists as the protocol has votes: likelier this call's
                    gain /= 1.0 + abs(mk.n - e.hands) / 2.0
                p = predicted(e) if predicted else None
                if p is not None:
                    tol = tol_of(e)
                    d = abs(p - mk.t)
                    if d > tol:
                        gain = -1.0
                    elif mk.kind == "speech":
                        # an utterance is where the call was said: how far the rough
                        # prediction was matters less than keeping every call matched
                        gain = gain * (1.0 - (d / tol) ** 2)
                        # a call predicted closely claims its utterance before one the order of
                        # events alone put somewhere in a long stretch
                        gain *= min(1.0, SPEECH_TOLERANCE_VIDEO / tol)
                    else:
                        gain = gain - d / tol
                if gain > 0 and score[i - 1, j - 1] + gain > best:
                    best, how = score[i - 1, j - 1] + gain, 2
            score[i, j], move[i, j] = best, how
    out: dict[int, Mark] = {}
    i, j = n, m
    while i > 0 and j > 0:
        how = move[i, j]
        if how == 2:
            out[i - 1] = marks[j - 1]
            i, j = i - 1, j - 1
        elif how == 1:
            j -= 1
        else:
            i -= 1
    return out


def fit_clock(pairs: Sequence[tuple[float, float]]) -> Clock:
    """Least-squares offset and drift from (protocol t, video t) pairs, one outlier pass."""
    if not pairs:
        return Clock()
    a = np.array(pairs, dtype=float)
    if len(a) == 1 or np.ptp(a[:, 0]) < 1.0:
        return Clock(float(np.median(a[:, 1] - a[:, 0])), 1.0)
    for _ in range(2):
        drift, offset = np.polyfit(a[:, 0], a[:, 1], 1)
        resid = np.abs(a[:, 1] - (offset + drift * a[:, 0]))
        keep = resid <= max(1.0, 3 * np.median(resid))
        if keep.all() or keep.sum() < 2:
            break
        a = a[keep]
    return Clock(float(offset), float(drift))


def _coarse_offset(expected: Sequence[Expected], marks: Sequence[Mark]) -> float:
    """The offset that lines up the most marks within 1.5 s (a vote over candidate shifts)."""
    best, best_n = 0.0, -1
    cands = {round(m.t - e.t, 1) for e in expected for m in marks
             if e.t is not None and e.kind == m.kind and e.kind in ("nightfall", "morning")}
    cands.add(0.0)
    for off in cands:
        n = sum(1 for e in expected if e.t is not None
                for m in marks if m.kind == e.kind and abs(m.t - (e.t + off)) <= 1.5)
        if n > best_n or (n == best_n and abs(off) < abs(best)):
            best, best_n = off, n
    return best


# ------------------------------------------------------------------ placing intervals

def _map_interval(iv: Interval, f: Callable[[float | None], float | None]) -> Interval:
    details = dict(iv.details)
    for k in TIME_DETAILS:
        if details.get(k) is not None:
            details[k] = f(details[k])
    return replace(iv, t0=f(iv.t0), t1=f(iv.t1), details=details)


def align(intervals: Sequence[Interval], marks: Sequence[Mark] = (),
          anchors: Mapping[str, float] | None = None, use_protocol_times: bool = True) -> Alignment:
    """Place every interval on the video clock.

    anchors: interval key (e.g. "r2.night") or "kind:key" -> video time, set by a
    person; they are matched first and override everything near them.

    Utterances (marks of kind "speech") come second: once the other marks and the
    protocol's clock (or only the order of events) have placed every call roughly,
    each spoken call takes the utterance starting nearest where it was predicted,
    in order (`_refine_with_speech`)."""
    expected = expected_marks(intervals)
    speech = [m for m in marks if m.kind == "speech"]
    marks = [m for m in marks if m.kind != "speech"]
    pinned: dict[int, Mark] = {}
    for k, t in (anchors or {}).items():
        kind, key = k.split(":", 1) if ":" in k else (None, k)
        for i, e in enumerate(expected):
            if e.key == key and (kind is None or e.kind == kind):
                pinned[i] = Mark(e.kind, float(t), 1.0, "manual")
                break
    timed = use_protocol_times and any(e.t is not None for e in expected)
    marks = fuse_marks([m for m in marks if not ((timed or speech) and _lone_fist(m))])
    clock = None
    if timed:
        off = _coarse_offset(expected, marks)
        matches = _match_around(expected, marks, pinned, lambda e: None if e.t is None else e.t + off)
        pairs = [(expected[i].t, mk.t) for i, mk in matches.items() if expected[i].t is not None]
        clock = fit_clock(pairs) if len(pairs) >= 2 else Clock(off)
        # refit the matching with the fitted clock, then the clock with the matching
        matches = _match_around(expected, marks, pinned, lambda e: clock(e.t), tolerance=2.0)
        pairs = [(expected[i].t, mk.t) for i, mk in matches.items() if expected[i].t is not None]
        if len(pairs) >= 2:
            clock = fit_clock(pairs)
    else:
        # Order alone cannot tell a real call from a spurious one in the same day:
        # prefer the call a "thank you" follows as closely as the judge's script says.
        paired = _paired_calls(marks)
        scored = [replace(m, confidence=m.confidence + PAIR_BONUS) if i in paired else m
                  for i, m in enumerate(marks)]
        back = {id(sm): m for sm, m in zip(scored, marks)}
        matches = {i: back.get(id(mk), mk)
                   for i, mk in _match_around(expected, scored, pinned, elapsed=least_elapsed(intervals)).items()}
    doubts: dict[int, str] = {}
    if speech:
        basis: dict[int, str] = {}
        heard, window = ({}, None) if clock is not None else votes_heard(expected, matches, speech)
        matches = {**{i: mk for i, mk in matches.items() if i not in heard}, **heard}
        basis.update({i: "vote" for i in heard})
        matches = _refine_with_speech(intervals, expected, matches, speech, {**pinned, **heard}, clock, basis,
                                      fixed=frozenset(heard))
        if clock is None:
            doubts = doubtful(expected, matches, basis, music=any(m.source == "music" for m in marks),
                              speech=speech, window=window)
            matches = {i: mk for i, mk in matches.items() if i not in doubts}
    matched = {f"{expected[i].kind}:{expected[i].key}": mk for i, mk in matches.items()}
    unmatched = tuple(f"{e.kind}:{e.key}" for i, e in enumerate(expected) if i not in matches)
    placements = _place(intervals, matched, clock)
    return Alignment(tuple(placements), clock, matched, unmatched,
                     {f"{expected[i].kind}:{expected[i].key}": why for i, why in doubts.items()})


def _expected_times(placements: Sequence[PlacedInterval]) -> dict[str, float]:
    """Where each expected mark lies in a placement ("kind:key" -> video time)."""
    out: dict[str, float] = {}
    for p in placements:
        iv = p.interval
        d = iv.details
        pairs: list[tuple[str, float | None]] = []
        if iv.kind is Kind.NIGHT:
            pairs = [("nightfall", iv.t0), ("morning", iv.t1)]
        elif iv.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE):
            pairs = [("vote_call", iv.t0), ("thanks", d.get("window_close", iv.t1))]
        elif iv.kind is Kind.SHOOTING_CALL:
            pairs = [("shooting_call", iv.t0)]
        elif iv.kind in CHECK_MARK:
            pairs = [(CHECK_MARK[iv.kind], iv.t0), (f"{CHECK_MARK[iv.kind]}_end", iv.t1)]
        out.update({f"{k}:{iv.key}": t for k, t in pairs if t is not None})
    return out


def _refine_with_speech(intervals: Sequence[Interval], expected: Sequence[Expected], matches: dict[int, Mark],
                        speech: Sequence[Mark], pinned: Mapping[int, Mark], clock: Clock | None,
                        basis: dict[int, str] | None = None, fixed: frozenset[int] = frozenset()
                        ) -> dict[int, Mark]:
    """Every spoken call takes the utterance starting nearest where the other evidence
    put it (ordered, so two calls never share one). A call placed by a mark seen or by
    the protocol's clock looks SPEECH_TOLERANCE s around it (SPEECH_TOLERANCE_VIDEO for
    the picture's rough marks); one placed only by the order of events looks further (a
    night's calls are the only voice in the night). "Thank you" comes second: it is
    looked for a window's length after the end of its call, once the calls are placed."""
    out = dict(matches)
    for kinds in (SPOKEN - {"thanks"}, frozenset({"thanks"})):
        out = _speech_pass(intervals, expected, out, speech, pinned, clock, kinds,
                           basis if basis is not None else {}, fixed)
    return out


def _speech_pass(intervals: Sequence[Interval], expected: Sequence[Expected], matches: dict[int, Mark],
                 speech: Sequence[Mark], pinned: Mapping[int, Mark], clock: Clock | None,
                 kinds: frozenset[str], basis: dict[int, str], fixed: frozenset[int] = frozenset()
                 ) -> dict[int, Mark]:
    """One pass of `_refine_with_speech` over `kinds`. `basis` gets, for every call an
    utterance places, what its predicted time rested on: `clock` (the protocol's time),
    `heard` (a window after its call heard), `seen:SOURCE` (a mark: `seen:video` the picture's,
    `seen:music` the night music's), `order`
    (only the order of events: the utterance taken is the likeliest of many)."""
    placed = _place(intervals, {f"{expected[i].kind}:{expected[i].key}": m for i, m in matches.items()}, clock)
    prelim = _expected_times(placed)
    # a "thank you" closes a window its call has opened: an utterance before the placed
    # call's end is not its thank-you (fresh seed 5900: the second half of "who votes
    # against number 8", heard as two short utterances, was taken for it, 2.1 s before the
    # real one, and the window closed before it opened: four votes in time read late)
    opens = {p.interval.key: p.interval.details["window_open"] for p in placed
             if p.interval.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE)
             and p.interval.details.get("window_open") is not None}
    spoken = [i for i, e in enumerate(expected) if e.kind in kinds]
    sub = [expected[i] for i in spoken]
    where = {id(e): k for k, e in enumerate(sub)}

    def predicted(e: Expected) -> float | None:
        return prelim.get(f"{e.kind}:{e.key}")

    def tolerance(e: Expected) -> float:
        i = spoken[where[id(e)]]
        how = _basis(expected, matches, i, clock)
        if how == "seen:video":
            return SPEECH_TOLERANCE_VIDEO  # the picture times a call only roughly (masks, fists come after it)
        return SPEECH_TOLERANCE_INTERPOLATED if how == "order" else SPEECH_TOLERANCE

    sub_pinned = {k: pinned[i] for k, i in enumerate(spoken) if i in pinned}
    def not_before(e: Expected) -> float:
        return opens.get(e.key, float("-inf")) if e.kind == "thanks" else float("-inf")

    found = _match_around(sub, speech, sub_pinned, predicted, tolerance, not_before=not_before)
    out = dict(matches)
    for k, mk in found.items():
        i = spoken[k]
        old = out.get(i)
        if mk.source == "manual" or i in fixed or (old is not None and old.source in ("manual", "audio")):
            continue  # a person's anchor, a vote heard whole, or a call tone timed to 10 ms, stays
        conf = mk.confidence * SPEECH_GAIN if old is None else \
            1.0 - (1.0 - mk.confidence) * (1.0 - old.confidence) ** 0.5
        out[i] = Mark(expected[i].kind, mk.t, round(min(1.0, conf), 4), "speech", t_end=mk.t_end)
        basis[i] = _basis(expected, matches, i, clock)
    return out


def _basis(expected: Sequence[Expected], matches: Mapping[int, Mark], i: int, clock: Clock | None) -> str:
    """What the predicted time of expected[i] rested on when an utterance was taken for it."""
    e = expected[i]
    if clock is not None and e.t is not None:
        return "clock"
    if e.kind == "thanks":
        call = matches.get(next((j for j, x in enumerate(expected) if x.kind == "vote_call" and x.key == e.key), -1))
        if call is not None and call.source in ("speech", "manual", "audio"):
            return "heard"
    seen = matches.get(i)
    return "order" if seen is None else f"seen:{seen.source}"


def votes_heard(expected: Sequence[Expected], matches: Mapping[int, Mark], speech: Sequence[Mark]
                ) -> tuple[dict[int, Mark], float | None]:
    """The calls and thank-yous of every vote heard whole (review/vote_runs.py): a run of
    the judge's utterances with as many calls as the vote, between the marks already
    placed around it, and no other run that could be it. Votes a person anchored or a
    call tone timed are left as they are. Also the judge's window that the record's votes
    fit best (`judge_window_for`), which `doubtful` then holds every vote to."""
    passes: dict[str, list[int]] = {}
    for i, e in enumerate(expected):
        if e.kind == "vote_call":
            passes.setdefault(e.key.rsplit(".", 1)[0], []).append(i)
    firm = {i: mk for i, mk in matches.items() if mk.source in ("manual", "audio", "video")}
    todo = [calls for calls in passes.values() if not any(matches.get(i) is not None and
                                                          matches[i].source in ("manual", "audio")
                                                          for i in calls)]
    own = {i for calls in todo for i in calls}
    thanks_of = {e.key: i for i, e in enumerate(expected) if e.kind == "thanks"}
    own |= {thanks_of[expected[i].key] for i in own if expected[i].key in thanks_of}
    windows = []
    for calls in todo:
        before = [mk.t for i, mk in firm.items() if i < calls[0] and i not in own]
        after = [mk.t for i, mk in firm.items() if i > calls[-1] and i not in own]
        windows.append((max(before, default=float("-inf")), min(after, default=float("inf"))))
    sizes = [len(c) for c in todo]
    runs = vote_runs(speech, VOTE_SHAPE, like_the_judge=False)
    window = judge_window_for(sizes, windows, runs, VOTE_SHAPE)
    if window is not None:
        runs = at_window(runs, window, VOTE_SHAPE)
    out: dict[int, Mark] = {}
    for p, run in assign_runs(sizes, windows, runs, VOTE_SHAPE, window).items():
        for i, call, thanks in zip(todo[p], run.calls, run.thanks):
            conf = round(min(0.9, run.confidence), 4)
            out[i] = Mark("vote_call", call.t, conf, "speech", t_end=call.t_end)
            k = thanks_of.get(expected[i].key)
            if k is not None:
                out[k] = Mark("thanks", thanks.t, conf, "speech", t_end=thanks.t_end)
    return out, window


# A vote's calls follow each other: the call, the window, "thank you", a short pause, the
# next call. Two calls of one vote further apart than this are not both right.
NEXT_CALL_PAUSE = 2.0
CHAIN_GAP = CALL_MAX_SECONDS + THANKS_AFTER[1] + UTTERANCE_SECONDS["thanks"][1] + NEXT_CALL_PAUSE
# the calls whose placement must be trusted within a second (what needs_anchor lists)
VOTE_SHAPE = RunShape(call=UTTERANCE_SECONDS["vote_call"], thanks=UTTERANCE_SECONDS["thanks"],
                      thanks_after=THANKS_AFTER, next_call=NEXT_CALL_PAUSE)
# the calls whose placement must be trusted within a second (what needs_anchor lists)
CHECKED_KINDS = frozenset({"nightfall", "vote_call", "thanks", "don_check", "don_check_end",
                           "sheriff_check", "sheriff_check_end"})


def doubtful(expected: Sequence[Expected], matches: Mapping[int, Mark], basis: Mapping[int, str],
             music: bool = False, speech: Sequence[Mark] = (), window: float | None = None) -> dict[int, str]:
    """The calls an utterance placed without support, each with why (an untimed protocol:
    nothing else says where they are). Such a call is placed between its neighbours and
    listed for an anchor rather than presented as heard:

    - a nightfall or a night check placed only by the order of events: the utterance
      taken is one of many that could be it;
    - a vote's calls placed only by the order of events: a vote heard whole (one run of
      call-and-"thank you" utterances, as many as the vote has calls, that no other run
      could replace: `votes_heard`) is placed before this, so what is left is a guess;
    - a vote whose calls lie further apart than a vote's calls can (CHAIN_GAP), however
      they were placed: the picture or the voice was wrong somewhere in it;
    - a vote whose utterances contradict a vote (`_tangled`): a "thank you" that is the
      next call's utterance or not between its call and the next, or, where the judge's
      window is known from the votes heard whole, a "thank you" not that window after
      its call (the picture's fists put the call near talk that only looks like one);
    - a "thank you" whose call is doubted, or taken only by the order of events;
    - in a club that plays night music (`music`: some heard), a nightfall only the
      picture saw: the music did not start there."""
    out: dict[int, str] = {}
    passes: dict[str, list[int]] = {}
    for i, e in enumerate(expected):
        if e.kind == "vote_call":
            passes.setdefault(e.key.rsplit(".", 1)[0], []).append(i)
    thanks_of = {e.key: i for i, e in enumerate(expected) if e.kind == "thanks"}
    if window is None:
        window = judge_window(speech)
    for calls in passes.values():
        placed = [matches.get(i) for i in calls]
        movable = [i for i in calls if i in matches and matches[i].source not in ("manual", "audio")]
        times = [m.t for m in placed if m is not None]
        if any(b - a > CHAIN_GAP for a, b in zip(times, times[1:])):
            for i in movable:
                out[i] = (f"the calls of this vote were placed {max(b - a for a, b in zip(times, times[1:])):.0f} s "
                          f"apart; a vote's calls follow within {CHAIN_GAP:.0f} s")
            continue
        tangled = _tangled(expected, calls, matches, thanks_of, window)
        for i in calls:
            if tangled and i in movable and basis.get(i) != "vote":
                out[i] = tangled
            elif basis.get(i) == "order":
                out[i] = ("no run of the judge's calls and thank-yous could be told to be this vote: "
                          "the utterance taken is one of many that could be it")
    for i, e in enumerate(expected):
        if i in out or i not in matches or e.kind not in CHECKED_KINDS or e.kind == "vote_call":
            continue
        if e.kind == "thanks":
            call = next((j for j in passes.get(e.key.rsplit(".", 1)[0], []) if expected[j].key == e.key), None)
            if call in out:
                out[i] = out[call]
            elif basis.get(i) == "order":
                out[i] = "no call heard before it: the utterance taken is one of many that could be it"
        elif basis.get(i) == "order":
            out[i] = ("heard only where the order of events put it (no mark of the picture near): "
                      "the utterance taken is one of many that could be it")
        elif music and e.kind == "nightfall" and basis.get(i) == "seen:video":
            out[i] = ("the picture saw the masks go on here, but the night music heard at other nights "
                      "did not start here")
    return out


def judge_window(speech: Sequence[Mark]) -> float | None:
    """The judge's window (a call's end to its "thank you", s) from the runs heard alone
    (`judge_window_of`), where no record's votes chose it (`votes_heard`); None when no
    run of two calls was heard."""
    return judge_window_of(vote_runs(speech, VOTE_SHAPE, like_the_judge=False), VOTE_SHAPE)


def _tangled(expected: Sequence[Expected], calls: Sequence[int], matches: Mapping[int, Mark],
             thanks_of: Mapping[str, int], window: float | None) -> str | None:
    """Why the utterances placing one vote's calls and thank-yous cannot be that vote."""
    heard = [(matches.get(i), matches.get(thanks_of.get(expected[i].key, -1))) for i in calls]
    for k, (call, thanks) in enumerate(heard):
        if call is None or thanks is None or call.source != "speech" or thanks.source != "speech":
            continue
        nxt = heard[k + 1][0] if k + 1 < len(heard) else None
        if thanks.t <= call.t or (nxt is not None and nxt.source == "speech" and thanks.t >= nxt.t):
            return ("the utterances taken for this vote overlap: a \"thank you\" is not between its call "
                    "and the next")
        if window is not None and call.t_end is not None \
                and abs(thanks.t - call.t_end - window) > VOTE_SHAPE.window_jitter:
            return (f"a \"thank you\" taken {thanks.t - call.t_end:.1f} s after its call, where the judge's "
                    f"votes heard elsewhere keep {window:.1f} s")
    return None


def _paired_calls(marks: Sequence[Mark], slack: float = PAIR_SLACK) -> set[int]:
    """Indexes of the vote-call marks that look like part of a vote: a "thanks" mark
    or another vote call follows (or another call precedes) within the call and
    window lengths plus `slack`. A lone call cue in the middle of a day is neither."""
    span = CALL_SECONDS + WINDOW_SECONDS + slack
    calls = [i for i, m in enumerate(marks) if m.kind == "vote_call"]
    out = set()
    for a, b in zip(calls, calls[1:]):
        if marks[b].t - marks[a].t <= span:
            out.update((a, b))
    for i in calls:
        for n in marks[i + 1:]:
            if n.t - marks[i].t > span or n.kind == "vote_call":
                break
            if n.kind == "thanks" and n.t - marks[i].t >= CALL_SECONDS * 0.5:
                out.add(i)
                break
    return out


def _match_around(expected: Sequence[Expected], marks: Sequence[Mark], pinned: Mapping[int, Mark],
                  predicted=None, tolerance: float | Callable[[Expected], float] = 3.0,
                  elapsed: Mapping[int, float] | None = None,
                  not_before: Callable[[Expected], float] | None = None) -> dict[int, Mark]:
    """Ordered matching between manual anchors: each anchor fixes its own mark,
    and the segments before, between and after them are matched separately, with
    only the marks that fall in the matching time span. `elapsed` (expected
    order -> the least time the record's events before it take, `least_elapsed`):
    no mark is matched earlier than that after the segment's start (the video's
    start, or the anchor before it). `not_before(e)`: no mark earlier than that is e's."""
    out = dict(pinned)
    cuts = sorted(pinned)
    bounds = [(-1, float("-inf"))] + [(i, pinned[i].t) for i in cuts] + [(len(expected), float("inf"))]
    for (i0, t0), (i1, t1) in zip(bounds, bounds[1:]):
        seg = list(range(i0 + 1, i1))
        seg_marks = [m for m in marks if t0 < m.t < t1]
        if not seg or not seg_marks:
            continue
        earliest = not_before
        if elapsed is not None:
            start, base = (0.0, 0.0) if i0 < 0 else (t0, elapsed.get(expected[i0].order, 0.0))
            floor = not_before or (lambda e: float("-inf"))
            earliest = (lambda e, start=start, base=base:
                        max(start + elapsed.get(e.order, 0.0) - base - EARLIEST_SLACK, floor(e)))
        found = ordered_match([expected[i] for i in seg], seg_marks, predicted, tolerance, earliest)
        out.update({seg[k]: m for k, m in found.items()})
    return out


# The least a phase of the record can last (s): a player who passes still stands up
# for a second, a vote call and its window are a second and a half at the quickest.
# Real games take many times this (speeches up to a minute); the bound only keeps
# the untimed matching from squeezing a whole day into a few seconds (measured: a
# noisy check mark made it place night 1 on the deal night's nightfall, 3 s into
# the sample video, with day 1's ten speeches and four calls before it).
LEAST_SECONDS = MappingProxyType({Kind.SPEECH: 1.0, Kind.VOTE_CALL: 1.5, Kind.RAISE_VOTE: 1.5,
                                  Kind.MASKING: 1.0, Kind.MAFIA_WAKE: 1.0, Kind.DON_CHECK: 1.0,
                                  Kind.SHERIFF_CHECK: 1.0, Kind.DON_WAKE: 1.0, Kind.SHERIFF_WAKE: 1.0,
                                  Kind.SHOOTING_CALL: 0.3})
EARLIEST_SLACK = 1.0


def least_elapsed(intervals: Sequence[Interval]) -> dict[int, float]:
    """Event index -> the least time the record's phases before that event take."""
    steps = sorted((iv.event, LEAST_SECONDS[iv.kind]) for iv in intervals
                   if iv.event is not None and iv.kind in LEAST_SECONDS)
    out: dict[int, float] = {}
    total, k = 0.0, 0
    for ev in sorted({iv.event for iv in intervals if iv.event is not None}):
        while k < len(steps) and steps[k][0] < ev:
            total += steps[k][1]
            k += 1
        out[ev] = total
    return out


def _place(intervals: Sequence[Interval], matched: Mapping[str, Mark], clock: Clock | None) -> list[PlacedInterval]:
    out: list[PlacedInterval] = []
    for iv in intervals:
        base = _map_interval(iv, clock) if clock is not None else iv
        t0, t1, details = base.t0, base.t1, dict(base.details)
        how, conf = ("protocol", 0.8) if clock is not None and iv.t0 is not None else ("interpolated", 0.3)
        if iv.kind is Kind.NIGHT:
            a, b = matched.get(f"nightfall:{iv.key}"), matched.get(f"morning:{iv.key}")
            if a:
                t0, how, conf = a.t, a.source, max(conf, min(1.0, a.confidence))
            if b:
                t1 = b.t
        elif iv.kind is Kind.MASKING:
            a = matched.get(f"nightfall:r{iv.round}.night")
            if a:
                tol = iv.details.get("tolerance", 3)
                t0, t1, how, conf = a.t, a.t + tol, a.source, min(1.0, a.confidence)
        elif iv.kind is Kind.DAY:
            a = matched.get(f"morning:r{iv.round}.night")
            if a:
                t0, how, conf = a.t, a.source, min(1.0, a.confidence)
            # the day lasts to the next nightfall (an untimed day would otherwise end
            # one event after its morning, and its speeches go unsampled)
            b = matched.get(f"nightfall:r{iv.round + 1}.night")
            if b and (t0 is None or b.t > t0):
                t1 = b.t
        elif iv.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE):
            a, b = matched.get(f"vote_call:{iv.key}"), matched.get(f"thanks:{iv.key}")
            if a:
                shift = a.t - (t0 if t0 is not None else a.t)
                t0, how, conf = a.t, a.source, min(1.0, a.confidence)
                for k in ("window_open", "t_call_end", "t_call2"):
                    if details.get(k) is not None:
                        details[k] = details[k] + shift
                if details.get("window_open") is None:
                    end = a.t_end if a.t_end is not None and a.t_end - a.t <= CALL_MAX_SECONDS else None
                    details["window_open"] = a.t if iv.kind is Kind.RAISE_VOTE else (
                        end if end is not None else a.t + CALL_SECONDS)
                    details["t_call_end"] = details["window_open"]
            if b:
                details["window_close"] = details["t_thanks"] = b.t
                t1 = b.t
            elif a and details.get("window_close") is None:
                details["window_close"] = details["window_open"] + WINDOW_SECONDS
                t1 = details["window_close"]
        elif iv.kind is Kind.SHOOTING_CALL:
            a = matched.get(f"shooting_call:{iv.key}")
            if a:
                if t0 is not None and t1 is not None:
                    t1 = a.t + (t1 - t0)
                t0, how, conf = a.t, a.source, min(1.0, a.confidence)
        elif iv.kind in CHECK_MARK:
            a, b = matched.get(f"{CHECK_MARK[iv.kind]}:{iv.key}"), matched.get(f"{CHECK_MARK[iv.kind]}_end:{iv.key}")
            if a:
                if t0 is not None and t1 is not None and not b:
                    t1 = a.t + (t1 - t0)
                t0, how, conf = a.t, a.source, min(1.0, a.confidence)
            if b:
                t1 = b.t
                if not a:
                    how, conf = b.source, min(1.0, b.confidence)
        out.append(PlacedInterval(replace(base, t0=t0, t1=t1, details=details), conf, how))
    return _night_internals(_default_windows(_interpolate(out)))


def _default_windows(placements: list[PlacedInterval]) -> list[PlacedInterval]:
    """A vote call placed without its window (between its neighbours): the window
    opens a call's length after it and closes a window's length later."""
    out = []
    for p in placements:
        iv = p.interval
        if iv.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE) and iv.t0 is not None \
                and iv.details.get("window_open") is None:
            d = dict(iv.details)
            d["window_open"] = d["t_call_end"] = iv.t0 + (CALL_SECONDS if iv.kind is Kind.VOTE_CALL else 0.0)
            if d.get("window_close") is None:
                d["window_close"] = d["window_open"] + WINDOW_SECONDS
            p = replace(p, interval=replace(iv, t1=max(iv.t1 or d["window_close"], d["window_close"]),
                                            details=d))
        out.append(p)
    return out


def _night_internals(placements: list[PlacedInterval]) -> list[PlacedInterval]:
    """A night's shooting is its calls: each call lasts to the next (the last to the
    shooting's end), and the shooting spans its calls (ends where the first check or
    the guess begins). Only where the calls were placed from the recording or the
    order of events; a timed protocol's own shooting stays."""
    by_round: dict[int, list[int]] = {}
    for i, p in enumerate(placements):
        if p.interval.kind is Kind.SHOOTING_CALL and p.anchored_by != "protocol":
            by_round.setdefault(p.interval.round, []).append(i)
    out = list(placements)
    for r, idx in by_round.items():
        idx.sort(key=lambda i: (out[i].interval.t0 or 0.0))
        after = [p.interval.t0 for p in out if p.interval.round == r and p.interval.t0 is not None
                 and p.interval.kind in (Kind.DON_CHECK, Kind.SHERIFF_CHECK, Kind.GUESS)]
        shoot = next((k for k, p in enumerate(out) if p.interval.kind is Kind.SHOOTING and p.interval.round == r), None)
        last_t0 = out[idx[-1]].interval.t0
        end = min((t for t in after if last_t0 is not None and t > last_t0), default=None)
        if end is None and last_t0 is not None:
            end = last_t0 + 1.5
        for a, b in zip(idx, idx[1:] + [None]):
            t1 = out[b].interval.t0 if b is not None else end
            iv = out[a].interval
            if iv.t0 is not None and t1 is not None and t1 > iv.t0:
                out[a] = replace(out[a], interval=replace(iv, t1=t1))
        if shoot is not None and out[idx[0]].interval.t0 is not None:
            sh = out[shoot].interval
            # "the mafia goes hunting" comes just before the first number
            out[shoot] = replace(out[shoot], interval=replace(sh, t0=out[idx[0]].interval.t0 - SHOOTING_LEAD,
                                                              t1=end if end is not None else sh.t1))
    return out


def _interpolate(placements: list[PlacedInterval]) -> list[PlacedInterval]:
    """Give untimed intervals times between their timed neighbours (by protocol order)."""
    known = [(p.interval.event, p.interval.t0) for p in placements
             if p.interval.t0 is not None and p.interval.event is not None]
    if len(known) < 2:
        return placements
    known.sort()
    ev = np.array([k[0] for k in known], dtype=float)
    ts = np.maximum.accumulate(np.array([k[1] for k in known], dtype=float))
    out = []
    for p in placements:
        iv = p.interval
        if iv.t0 is None and iv.event is not None:
            t0 = float(np.interp(iv.event, ev, ts))
            t1 = iv.t1 if iv.t1 is not None else float(np.interp(iv.event + 1, ev, ts))
            p = PlacedInterval(replace(iv, t0=t0, t1=max(t0, t1)), min(p.confidence, 0.3), "interpolated")
        elif iv.t1 is None and iv.t0 is not None and iv.event is not None:
            p = PlacedInterval(replace(iv, t1=max(iv.t0, float(np.interp(iv.event + 1, ev, ts)))), p.confidence, p.anchored_by)
        if p.interval.t0 is not None and p.interval.t1 is not None and p.interval.kind is Kind.DAY:
            # a day without its next nightfall placed ends where the last known time is
            p = replace(p, interval=replace(p.interval, t1=max(p.interval.t1, *(t for e, t in known if e >= iv.event)))) \
                if iv.event is not None and any(e >= iv.event for e, _ in known) and p.interval.t1 <= p.interval.t0 + 1 else p
        out.append(p)
    return out


# ------------------------------------------------------------------ what a person should anchor

ANCHOR_TOLERANCE = 1.0
# How far from the truth a mark of each source can be (seconds, measured on the
# synthetic games, docs/vision.md "Alignment"): an utterance's onset, a call tone
# and a person's anchor are exact to a few hundredths; masks going on, fists
# landing and a checker's mask are seen only at the frames sampled, after the call;
# night music may start a moment after "night falls" (a person starts it).
MARK_ERROR = {"manual": 0.05, "audio": 0.05, "speech": 0.2, "video": 1.5, "music": 2.0}


def needs_anchor(al: Alignment, tolerance: float = ANCHOR_TOLERANCE) -> list[dict]:
    """Every nightfall, vote call, window edge and night check whose placement cannot be
    trusted within `tolerance` s: no mark placed it (the protocol's own times aside) or
    only a mark as coarse as the picture. Listed for a manual anchor (`analyze --anchor`,
    the app's timeline page)."""
    out = []
    timed = al.clock is not None
    for p in al.placements:
        iv = p.interval
        edges: list[tuple[str, str, float | None]] = []
        if iv.kind is Kind.NIGHT:
            edges = [("nightfall", "nightfall", iv.t0)]
        elif iv.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE):
            call = al.matched.get(f"vote_call:{iv.key}")
            edges = [("call", "vote_call", iv.t0), ("window_close", "thanks", iv.details.get("window_close"))]
            # the window opens at the end of the call: an utterance's end, else the call's length guessed
            opened_by = "speech" if call is not None and call.t_end is not None else (
                call.source if call is not None and call.source in ("manual", "audio") else None)
            edges.append(("window_open", opened_by or "", iv.details.get("window_open")))
        elif iv.kind in (Kind.DON_CHECK, Kind.SHERIFF_CHECK):
            edges = [(iv.kind.value, iv.kind.value, iv.t0)]
        for what, mark_kind, t in edges:
            if what == "window_open":
                source = mark_kind or None
            else:
                mk = al.matched.get(f"{mark_kind}:{iv.key}")
                source = mk.source if mk is not None else None
            if timed and p.anchored_by != "interpolated":
                continue  # the protocol's own time, on a clock fitted to what was heard and seen
            error = MARK_ERROR.get(source or "", None)
            if error is not None and error <= tolerance:
                continue
            doubt = al.doubts.get(f"{mark_kind or 'vote_call'}:{iv.key}")
            reason = (f"placed from the picture only (about {error:g} s)" if error is not None
                      else f"placed between its neighbours: {doubt}" if doubt
                      else "no call heard or seen: placed between its neighbours")
            out.append({"key": iv.key, "what": what, "label": iv.label,
                        "placed": None if t is None else round(float(t), 3),
                        "anchored_by": source or p.anchored_by, "reason": reason,
                        "anchor": f"{mark_kind or 'vote_call'}:{iv.key}" if what != "window_open"
                        else f"vote_call:{iv.key}"})
    return out

"""What the judges' decisions teach the seat windows: labelled seat windows at chosen times.

Every human act in `review.db` says what a seat window showed at some time:

* a decided incident (`review.store.Decision`): a confirmed mask_late means the
  mask was off after the deadline, a rejected one that it was on; a
  confirmed touch is the body window's `touch`, a rejected one "not a touch"
  (`LESSONS`, one row per incident type);
* a verified vote cell (`VoteVerification`): voted = a fist stood in the seat's
  table zone at "Thank you", not voted = nothing did through the call, wrong
  form = a palm or fingertip;
* a frame answer (`FrameAnswer`, asked by `questions`): mask on / off, fist /
  no fist at that seat and frame.

Only the current decision, verification and answer of each incident, cell
and frame count: a superseded one teaches nothing, so a venue model rebuilt
after a decision changed learns from the current decisions only.

Unremarkable frames of the same game, where the analysis was sure of the
state the timeline expects (masks on and the night pose at night, masks off
by day, an empty zone outside votes), are added as the venue's everyday look
(`confident_lessons`).

A `Lesson` either names the window's class ("mask_on") or denies one
("not a touch": `negative`), which a rejected incident often is: the judge
said what was not there, not what was. Pure functions; the frames are read
by vision.window_samples and the training is vision.training.venue_fit.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .fouls import IncidentType as T
from .incidents import Incident

HEAD, ZONE, BODY = "head", "zone", "body"

# Relative weight of each source (vision.training.venue_fit rescales the venue's total)
WEIGHT = MappingProxyType({"decision": 4.0, "verification": 2.0, "answer": 4.0, "confident": 1.0,
                           "baseline": 1.0})
# the sources no person named (the analysis's own sure frames, the baseline of a misread window)
UNJUDGED = frozenset({"confident", "baseline"})
FRAMES_PER_SPAN = 6     # frames taken inside one labelled span
SPAN_STEP = 0.12        # seconds at least between them (3 frames at 25 fps apart)
CONFIDENT = 0.95        # a window's probability for an unremarkable frame to count as its everyday look
CLEAR_OF = 2.0          # seconds an unremarkable frame keeps from any incident or lesson of its seat
# Where a verified vote's fist stood, around "Thank you" (a vote that counts stands then): on
# the four rendered venue games 7101/7102/7111/7112 every counted fist landed 0.55-1.38 s before
# it and lifted 0.40-0.79 s after. The analysis's own fist track widens that only where it
# covers "Thank you": in a venue the analysis misreads its track can start seconds early
# (g7112 seat 9: seen from 72.0 s, landed at 73.8 s), and "vote" labels on an empty zone
# teach the window the very mistake the judge corrected.
STOOD_BEFORE, STOOD_AFTER = 0.3, 0.2        # seconds around "Thank you" a verified fist surely stood
STOOD_MAX_BEFORE, STOOD_MAX_AFTER = 0.5, 0.3  # at most this far, when the analysis's track covers it
EVERYDAY_TIMES = 24     # frame times per window class for the everyday look (each a short decode)
EVERYDAY_PER_CLASS = 200


@dataclass(frozen=True)
class Lesson:
    """One seat window at one time, labelled by a judge (or by a sure analysis)."""
    t: float
    seat: int
    window: str           # head | zone | body
    label: str            # a class of the window (vision.appearance)
    negative: bool        # True: "not this class"
    source: str           # decision | verification | answer | confident
    ref: str              # the decision, verification or answer id ("" for confident frames)
    reviewer: str | None
    game: str = ""

    @property
    def weight(self) -> float:
        return WEIGHT[self.source]

    @property
    def want(self) -> tuple[float, int, str]:
        return (self.t, self.seat, self.window)

    def to_json(self) -> dict[str, Any]:
        return {"t": self.t, "seat": self.seat, "window": self.window, "label": self.label,
                "negative": self.negative, "source": self.source, "ref": self.ref,
                "reviewer": self.reviewer, "game": self.game}


@dataclass(frozen=True)
class Teaching:
    """What a decided incident type teaches: the window, and per verdict the
    class ("!class": its denial), None where the verdict says nothing of the pixels."""
    window: str
    confirmed: str | None
    rejected: str | None


LESSONS: Mapping[T, Teaching] = MappingProxyType({
    T.MASK_LATE: Teaching(HEAD, "mask_off", "mask_on"),
    T.PEEK: Teaching(HEAD, "mask_lifted", "mask_on"),
    T.MASK_TOUCH: Teaching(BODY, "hand_face", "!hand_face"),
    T.NIGHT_POSE: Teaching(BODY, "!night", "night"),
    T.TOUCH_NIGHT: Teaching(BODY, "touch", "!touch"),
    T.TOUCH_DAY: Teaching(BODY, "touch", "!touch"),
    T.STAND_UP: Teaching(BODY, "standing", "!standing"),
    T.FALSE_SHOT: Teaching(BODY, "raised", "!raised"),
    T.EARLY_GESTURE: Teaching(BODY, "raised", "!raised"),
    T.CHECK_POINTING: Teaching(BODY, "raised", "!raised"),
    T.VOTE_GESTURE: Teaching(BODY, "raised", "!raised"),
    # the vote flags: a confirmed one says a fist stood there from its landing to its
    # lift; a rejected one may be about the timing, not the fist (the vote grid says it)
    T.EARLY_VOTE: Teaching(ZONE, "vote", None),
    T.LATE_VOTE: Teaching(ZONE, "vote", None),
    T.DOUBLE_VOTE: Teaching(ZONE, "vote", None),
    T.WRONG_FORM: Teaching(ZONE, "wrong", "!wrong"),
    # an early lift: from the lift to "Thank you" the zone was empty (confirmed) or held the fist
    T.EARLY_LIFT: Teaching(ZONE, "!vote", "vote"),
})


def span_times(a: float, b: float, n: int = FRAMES_PER_SPAN) -> list[float]:
    """Up to n times evenly inside [a, b], at least SPAN_STEP apart (its middle when it is short)."""
    if b - a < 0.2 or n <= 1:
        return [round((a + b) / 2.0, 3)]
    k = min(n, max(2, int((b - a) / SPAN_STEP)))
    return [round(a + (b - a) * (i + 0.5) / k, 3) for i in range(k)]


def _span(inc: Incident) -> tuple[float, float] | None:
    """Where an incident's pixels show what it is about."""
    if inc.t0 is None:
        return None
    t1 = inc.t1 if inc.t1 is not None else inc.t0
    d = inc.details or {}
    if inc.type is T.MASK_LATE and d.get("deadline") is not None:
        on = d.get("mask_on_at", t1)
        return float(d["deadline"]) + 0.3, max(float(d["deadline"]) + 0.5, float(on) - 0.2)
    if inc.type is T.EARLY_LIFT:
        close = (d.get("window") or [None, None])[1]
        if close is None or close - t1 < 0.3:
            return None
        return t1 + 0.2, float(close) - 0.05
    if inc.type in (T.EARLY_VOTE, T.LATE_VOTE, T.DOUBLE_VOTE, T.WRONG_FORM):
        return (inc.t0 + 0.25, t1 - 0.2) if t1 - inc.t0 > 0.6 else (inc.t0 + 0.1, max(inc.t0 + 0.15, t1))
    return (inc.t0 + 0.1, t1 - 0.1) if t1 - inc.t0 > 0.4 else (inc.t0, t1)


def _label(text: str) -> tuple[str, bool]:
    return (text[1:], True) if text.startswith("!") else (text, False)


def from_decision(inc: Incident, decision) -> list[Lesson]:
    """The lessons of one decided incident (`decision`: review.store.Decision)."""
    teach = LESSONS.get(inc.type)
    verdict = getattr(decision.verdict, "value", decision.verdict)
    if teach is None or verdict not in ("confirmed", "rejected"):
        return []
    what = teach.confirmed if verdict == "confirmed" else teach.rejected
    span = _span(inc)
    if what is None or span is None or not inc.seats:
        return []
    label, negative = _label(what)
    return [Lesson(t, seat, teach.window, label, negative, "decision", str(decision.id), decision.reviewer)
            for seat in inc.seats for t in span_times(*span)]


def from_verification(call, verification) -> list[Lesson]:
    """The lessons of one verified vote cell (`call`: review.recount_file.VoteCall of
    the cell; `verification`: review.store.VoteVerification)."""
    if call.t_thanks is None or call.t_call is None:
        return []
    seat = verification.voter_seat
    verdict = getattr(verification.verdict, "value", verification.verdict)
    rec = next((v for v in call.voters if v.seat == seat), None)
    raise_vote = call.candidate is None
    window = BODY if raise_vote else ZONE
    present = "raised" if raise_vote else "vote"
    thanks, start = float(call.t_thanks), float(call.t_call)
    # around "Thank you", wider where the analysis saw the fist standing across it
    stood = (thanks - STOOD_BEFORE, thanks + STOOD_AFTER)
    if rec is not None and rec.t_place is not None and rec.t_lift is not None \
            and rec.t_place + 0.25 <= thanks <= rec.t_lift - 0.15:
        stood = (max(rec.t_place + 0.25, thanks - STOOD_MAX_BEFORE), min(rec.t_lift - 0.15, thanks + STOOD_MAX_AFTER))
    before = (start + 0.3, thanks - 0.15)
    out: list[tuple[tuple[float, float], str, bool]] = []
    if verdict == "voted":
        out.append((stood, present, False))
    elif verdict == "not_voted":
        out.append((before, "none" if not raise_vote else present, raise_vote))
    elif verdict == "wrong_form" and not raise_vote:
        out.append((stood, "wrong", False))
    elif verdict == "late":
        out.append((before, present, True))
    ref, who = str(verification.id), verification.reviewer
    return [Lesson(t, seat, window, label, neg, "verification", ref, who)
            for span, label, neg in out if span[1] > span[0] for t in span_times(*span)]


# "mask off" is "not on": a lifted mask is off too, and the head window tells those apart itself
ANSWER_LABEL = MappingProxyType({"mask_on": (HEAD, "mask_on", False), "mask_off": (HEAD, "mask_on", True),
                                 "fist": (ZONE, "vote", False), "no_fist": (ZONE, "vote", True)})


def from_answer(answer) -> list[Lesson]:
    """The lesson of one frame answer (review.store.FrameAnswer); none for "cannot tell"."""
    value = getattr(answer.answer, "value", answer.answer)
    if value not in ANSWER_LABEL:
        return []
    window, label, negative = ANSWER_LABEL[value]
    return [Lesson(round(float(answer.t), 3), answer.seat, window, label, negative, "answer", str(answer.id),
                   answer.reviewer)]


# -- the timeline's expectations ------------------------------------------------------------

def _iv(d: Mapping, key: str) -> float | None:
    v = d.get(key)
    return None if v is None else float(v)


@dataclass(frozen=True)
class Expectation:
    """Where the timeline (analysis/alignment.json intervals, video clock) expects a seat's
    windows in their everyday state."""
    nights: tuple[tuple[float, float, tuple[int, ...]], ...]      # after the masking deadline
    days: tuple[tuple[float, float, tuple[int, ...]], ...]        # 2 s after the morning
    awake: tuple[tuple[float, float, int], ...]                   # a seat permitted to move or unmask
    votes: tuple[tuple[float, float], ...]                        # vote calls, with margins
    raises: tuple[tuple[float, float], ...]

    @staticmethod
    def of(intervals: Sequence[Mapping]) -> "Expectation":
        masking = {d.get("round"): _iv(d, "t1") for d in intervals if d.get("kind") == "masking"}
        nights, days, awake, votes, raises = [], [], [], [], []
        for d in intervals:
            t0, t1, kind = _iv(d, "t0"), _iv(d, "t1"), d.get("kind")
            if t0 is None or t1 is None:
                continue
            seats = tuple(int(s) for s in d.get("in_game", ()))
            if kind == "night":
                start = masking.get(d.get("round")) or t0
                nights.append((start + 0.5, t1, seats))
            elif kind == "day":
                days.append((t0 + 2.0, t1, seats))
            elif kind == "vote_call":
                close = (d.get("details") or {}).get("window_close") or t1
                votes.append((t0 - 1.0, float(close) + 1.5))
            elif kind == "raise_vote":
                raises.append((t0 - 1.0, t1 + 1.5))
            for seat, permits in (d.get("permits") or {}).items():
                if kind not in ("day", "speech", "voting", "vote_call") and \
                        set(permits) & {"unmask", "move", "raise_hand", "gesture"}:
                    awake.append((t0, t1 + 1.5, int(seat)))
        return Expectation(tuple(nights), tuple(days), tuple(awake), tuple(votes), tuple(raises))

    def expected(self, seat: int, t: float) -> dict[str, str]:
        """window -> the class the timeline expects here (absent: no expectation)."""
        out: dict[str, str] = {}
        if any(a <= t <= b and s == seat for a, b, s in self.awake):
            return out
        if any(a <= t <= b and seat in s for a, b, s in self.nights):
            out[HEAD], out[BODY] = "mask_on", "night"
        elif any(a <= t <= b and seat in s for a, b, s in self.days):
            out[HEAD] = "mask_off"
            if not any(a <= t <= b for a, b in self.raises):
                out[BODY] = "rest"
        in_play = any(a <= t <= b and seat in s for a, b, s in self.nights + self.days)
        if in_play and not any(a <= t <= b for a, b in self.votes):
            out[ZONE] = "none"
        return out


def confident_lessons(features: Iterable[tuple[int, float, Mapping[str, float]]], intervals: Sequence[Mapping],
                      busy: Mapping[int, Sequence[tuple[float, float]]], per_class: int = EVERYDAY_PER_CLASS,
                      times_per_class: int = EVERYDAY_TIMES, seed: int = 0,
                      misread: Iterable[tuple[int, str]] = ()) -> list[Lesson]:
    """Seat windows the analysis was sure of (p >= CONFIDENT) in the state the
    timeline expects, away (CLEAR_OF) from the seat's incidents and lessons (`busy`:
    seat -> spans): the venue's everyday look. Few frame times (each is a
    seek), at most `per_class` windows per window class.

    `misread`: the (seat, window) pairs the analysis did not believe because the
    window read the seat against the game's baseline all game (review.view
    `implausible`, `misread_venue`). There the window is confidently wrong, so
    its confidence says nothing: the seat's baseline frames of a game the judges
    reviewed are taken as the timeline expects them, sure or not (source
    "baseline"), which is exactly what the view check will hold the venue model to."""
    exp = Expectation.of(intervals)
    wrong = set(misread)
    by_class: dict[tuple[str, str, str], list[tuple[float, int]]] = {}
    for seat, t, f in features:
        if any(a - CLEAR_OF <= t <= b + CLEAR_OF for a, b in busy.get(seat, ())):
            continue
        for window, want in exp.expected(seat, t).items():
            if (seat, window) in wrong and f"app_{window}_{want}" in f:
                by_class.setdefault((window, want, "baseline"), []).append((round(float(t), 3), seat))
            elif f.get(f"app_{window}_{want}", 0.0) >= CONFIDENT:
                by_class.setdefault((window, want, "confident"), []).append((round(float(t), 3), seat))
    rng = np.random.default_rng(seed)
    times: set[float] = set()
    for key in sorted(by_class):
        ts = sorted({t for t, _ in by_class[key]})
        if len(ts) > times_per_class:
            ts = [ts[int(i)] for i in np.linspace(0, len(ts) - 1, times_per_class)]
        times.update(ts)
    out: list[Lesson] = []
    for (window, want, source), items in sorted(by_class.items()):
        pick = [it for it in items if it[0] in times]
        if len(pick) > per_class:
            pick = [pick[int(i)] for i in sorted(rng.choice(len(pick), per_class, replace=False))]
        out.extend(Lesson(t, seat, window, want, False, source, "", None) for t, seat in pick)
    return out


def busy_spans(incidents: Iterable[Incident], lessons: Iterable[Lesson]) -> dict[int, list[tuple[float, float]]]:
    """seat -> the spans of its incidents (decided or not) and of its judged lessons."""
    out: dict[int, list[tuple[float, float]]] = {}
    for inc in incidents:
        if inc.t0 is None:
            continue
        for seat in inc.seats:
            out.setdefault(seat, []).append((inc.t0, inc.t1 if inc.t1 is not None else inc.t0))
    for ls in lessons:
        out.setdefault(ls.seat, []).append((ls.t, ls.t))
    return out


__all__ = ["Lesson", "Teaching", "LESSONS", "WEIGHT", "UNJUDGED", "span_times", "from_decision", "from_verification",
           "from_answer", "Expectation", "confident_lessons", "busy_spans", "HEAD", "ZONE", "BODY"]

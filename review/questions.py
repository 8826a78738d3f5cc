"""Which frames to ask the judge about: where one answer teaches the seat windows most.

The analysis stored, for every analysed seat-frame, each window's class
probabilities and how far its input lay from the training data
(`app_<window>_<class>`, `far_<window>`: vision.appearance). A frame the
window could not decide (its two answers nearly level) or could not judge
(an input unlike anything it was trained on, where the analysis abstains)
is where the model is weakest; a judge's one-click answer there ("mask on /
off", "fist / no fist", stored by `ReviewStore.answer_frame`) is the
example `mafvar learn` gains most from.

The seats the analysis abstained on (analysis/incidents.json
"abstentions", review.view) are asked first, sure or not: a window that
misreads a seat all game (`implausible`) or a whole venue is confidently
wrong there, and those are the frames a venue model must learn to read
before review believes it again. A head narrower than the mask reading
works at (vision.seat_states.MIN_MASK_HEAD_PX) is not asked about: no
model reads its mask, so the answer would teach nothing used.

Asked only where the answer matters to the rules: the mask at night and in
the masking window, the fist in a vote call's window. One question per seat
and few seconds, never one already answered. Pure functions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

MASK, FIST = "mask", "fist"
FAR_LIMIT = 12.0        # far_<window> above this: unlike the training data (the analysis abstains there)
MAX_MARGIN = 0.6        # a clearer frame than this is not worth a judge's click
BLOCK = 4.0             # seconds: one question per seat, question and block


@dataclass(frozen=True)
class Question:
    t: float
    seat: int
    question: str        # mask | fist
    margin: float        # how clearly the window answered (0: a coin toss)
    far: float | None
    p: float             # the window's probability of "mask on" / "fist"
    abstained: str | None = None   # why the analysis could not judge this seat here (review.view)

    @property
    def why(self) -> str:
        if self.abstained:
            return f"the analysis could not judge this seat here ({self.abstained})"
        if self.far is not None and self.far > FAR_LIMIT:
            return "the view is unlike anything the model was trained on"
        return f"the model cannot decide ({self.p:.0%} {'mask on' if self.question == MASK else 'fist'})"

    @property
    def score(self) -> float:
        """Lower asks first: abstained seats, then unfamiliar views, then by margin."""
        return (self.margin - (1.0 if self.far is not None and self.far > FAR_LIMIT else 0.0)
                - (2.0 if self.abstained else 0.0))


Abstained = tuple[int, str, float, float, str]      # (seat, window, t0, t1, reason)


def abstained_spans(abstentions: Iterable[Mapping]) -> list[Abstained]:
    """incidents.json "abstentions" as (seat, window, t0, t1, reason)."""
    out = []
    for a in abstentions:
        try:
            out.append((int(a["seat"]), str(a["window"]), float(a["t0"]), float(a["t1"]),
                        str(a.get("reason") or ", ".join(a.get("why", ())))))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def _spans(intervals: Sequence[Mapping], kinds: tuple[str, ...], tail: float = 0.0) -> list[tuple[float, float]]:
    out = []
    for d in intervals:
        if d.get("kind") in kinds and d.get("t0") is not None and d.get("t1") is not None:
            close = (d.get("details") or {}).get("window_close") if d.get("kind") == "vote_call" else None
            out.append((float(d["t0"]), float(close if close is not None else d["t1"]) + tail))
    return out


def candidates(features: Iterable[tuple[int, float, Mapping[str, float]]],
               intervals: Sequence[Mapping], abstained: Sequence[Abstained] = (),
               unread_heads: Iterable[int] = ()) -> list[Question]:
    """Every seat-frame where an answer would matter and the window was not clear,
    or the analysis abstained on that seat's window (`abstained`); never the
    heads of `unread_heads` (seats too small for any mask reading)."""
    asks = ((MASK, "head", "mask_on", _spans(intervals, ("night", "masking"))),
            (FIST, "zone", "vote", _spans(intervals, ("vote_call",), tail=1.0)))
    skip = set(unread_heads)
    out: list[Question] = []
    for seat, t, f in features:
        for question, window, cls, spans in asks:
            if f"app_{window}_{cls}" not in f or not any(a <= t <= b for a, b in spans) \
                    or (window == "head" and seat in skip):
                continue
            p = float(f[f"app_{window}_{cls}"])
            why = next((r for s, w, a, b, r in abstained if s == seat and w == window and a <= t <= b), None)
            q = Question(round(float(t), 3), seat, question, abs(2 * p - 1), f.get(f"far_{window}"), p, why)
            if q.score <= MAX_MARGIN:
                out.append(q)
    return out


def pick(cands: Iterable[Question], answered: Iterable[tuple[float, int, str]] = (), n: int = 6) -> list[Question]:
    """The n most useful questions: lowest score first, one per seat, question and
    BLOCK seconds, none within a block of a frame already answered; mask and fist
    questions take turns while both remain."""
    done = {(seat, q, int(t // BLOCK)) for t, seat, q in answered}
    best: dict[tuple[int, str, int], Question] = {}
    for c in cands:
        key = (c.seat, c.question, int(c.t // BLOCK))
        if key in done:
            continue
        if key not in best or (c.score, c.t) < (best[key].score, best[key].t):
            best[key] = c
    queues = {k: sorted((c for c in best.values() if c.question == k), key=lambda c: (c.score, c.t, c.seat))
              for k in (MASK, FIST)}
    out: list[Question] = []
    while len(out) < n and any(queues.values()):
        for k in (MASK, FIST):
            if queues[k] and len(out) < n:
                out.append(queues[k].pop(0))
    return sorted(out, key=lambda c: (c.score, c.t))


def questions(features: Iterable[tuple[int, float, Mapping[str, float]]], intervals: Sequence[Mapping],
              answered: Iterable[tuple[float, int, str]] = (), n: int = 6, abstained: Sequence[Abstained] = (),
              unread_heads: Iterable[int] = ()) -> list[Question]:
    return pick(candidates(features, intervals, abstained, unread_heads), answered, n)


def game_questions(game_dir, answered: Iterable[tuple[float, int, str]] = (), n: int = 6) -> list[Question]:
    """The questions for an analysed game folder ([] before its analysis): reads the
    stored window features (analysis/observations.sqlite) and the placed timeline
    (analysis/alignment.json)."""
    import json
    from pathlib import Path

    from vision.calibration import expected_head, load_calibration
    from vision.seat_states import MIN_MASK_HEAD_PX
    from vision.store import ObservationStore

    from .incidents import IncidentFormatError, load_incidents
    from .workspace import GameWorkspace
    ws = GameWorkspace(Path(game_dir))
    if not ws.observations_path.is_file() or not ws.alignment_path.is_file():
        return []
    try:
        intervals = json.loads(ws.alignment_path.read_text(encoding="utf-8")).get("intervals", [])
        cal = load_calibration(ws.calibration_path)
        cam = next(iter(cal.cameras))
    except (OSError, ValueError, StopIteration):
        return []
    small = [seat for seat, r in cal.camera(cam).seats.items() if expected_head(r)[1] < MIN_MASK_HEAD_PX]
    try:
        abstained = abstained_spans(load_incidents(ws.incidents_path).abstentions) \
            if ws.incidents_path.is_file() else []
    except (OSError, IncidentFormatError):
        abstained = []
    with ObservationStore(ws.observations_path) as db:
        return questions(list(db.window_features(cam=cam)), intervals, answered, n, abstained, small)


__all__ = ["Question", "MASK", "FIST", "FAR_LIMIT", "Abstained", "abstained_spans", "candidates", "pick", "questions",
           "game_questions"]

"""The game's phases on the video clock, for the timeline chart.

Uses `engine.timeline`; when the engine cannot replay the protocol, derives a
coarse list (nights, speeches, vote calls) from the protocol's own event
times, which is enough to navigate: every event with a time and a camera
offset lands on the video clock.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from engine.protocol import Protocol
from engine.replay import replay
from engine.timeline import build_timeline


@dataclass(frozen=True)
class PhaseSpan:
    kind: str  # night, speech, vote, day
    round: int
    label: str
    t0: float
    t1: float
    seats: tuple[int, ...] = ()
    key: str = ""              # the timeline key (r2.night, r1.vote.p0.c10), when known
    anchored_by: str = ""      # how the analysis placed it: manual, audio, speech, music, video, protocol, interpolated
    confidence: float | None = None


# what a person can anchor on a phase, by its kind: (mark kind, what the button says)
ANCHORS = {"night": (("nightfall", "this is where the night falls"),),
           "vote_call": (("vote_call", "this vote call"), ("thanks", "this \"thank you\"")),
           "raise_vote": (("vote_call", "this vote call"), ("thanks", "this \"thank you\"")),
           "don_check": (("don_check", "the Don wakes up here"), ("don_check_end", "the Don falls asleep here")),
           "sheriff_check": (("sheriff_check", "the Sheriff wakes up here"),
                             ("sheriff_check_end", "the Sheriff falls asleep here")),
           "shooting_call": (("shooting_call", "this seat is called here"),)}


def phases_from_alignment(doc: Mapping[str, Any]) -> list[PhaseSpan]:
    """The phases as the analysis placed them on the video clock (analysis/alignment.json):
    the only timeline an untimed protocol (every rating-platform import) has."""
    out = []
    for iv in doc.get("intervals") or []:
        if not isinstance(iv, Mapping) or iv.get("t0") is None:
            continue
        t0 = float(iv["t0"])
        t1 = float(iv["t1"]) if iv.get("t1") is not None else t0
        conf = iv.get("confidence")
        out.append(PhaseSpan(str(iv.get("kind", "")), int(iv.get("round") or 0), str(iv.get("label", "")),
                             t0, max(t0, t1), tuple(iv.get("seats") or ()), str(iv.get("key", "")),
                             str(iv.get("anchored_by", "")), float(conf) if conf is not None else None))
    return sorted(out, key=lambda s: (s.t0, s.t1))


def phases_from_engine(protocol_doc: Mapping[str, Any]) -> list[PhaseSpan] | None:
    """The engine's phase timeline on the video clock, or None when the engine cannot give it."""
    try:
        proto = Protocol.from_dict(dict(protocol_doc))
        intervals = build_timeline(proto, replay(proto))
    except Exception:  # an engine failure must not take the page down; fall back
        return None
    offset = _offset(protocol_doc)
    out = []
    for iv in intervals:
        if iv.t0 is None:
            continue  # untimed intervals are placed by alignment, not shown here
        t1 = iv.t0 if iv.t1 is None else iv.t1
        kind = getattr(iv.kind, "value", str(iv.kind))
        out.append(PhaseSpan(kind, int(iv.round or 0), str(iv.label), iv.t0 + offset, t1 + offset,
                             tuple(iv.seats or ())))
    return out


def _offset(doc: Mapping[str, Any]) -> float:
    cams = doc.get("cameras") or []
    if cams and isinstance(cams[0], Mapping):
        try:
            return float(cams[0].get("offset", 0.0) or 0.0)
        except (TypeError, ValueError):
            return 0.0
    return 0.0


def phases_from_protocol(doc: Mapping[str, Any]) -> list[PhaseSpan]:
    """Nights (nightfall→morning), speeches and vote calls from the events' times."""
    events: Sequence[Mapping[str, Any]] = [e for e in doc.get("events", []) if isinstance(e, Mapping)]
    offset = _offset(doc)
    spans: list[PhaseSpan] = []
    night_no, day_no = -1, 0
    night_start: float | None = None
    last_t = 0.0

    def t_of(e: Mapping[str, Any], key: str = "t") -> float | None:
        v = e.get(key)
        return float(v) + offset if isinstance(v, (int, float)) else None

    for i, e in enumerate(events):
        kind = e.get("type")
        t = t_of(e)
        if t is not None:
            last_t = max(last_t, t)
        if kind == "nightfall":
            night_no += 1
            night_start = t
        elif kind == "morning":
            day_no += 1
            if night_start is not None and t is not None:
                spans.append(PhaseSpan("night", night_no, f"Night {night_no}", night_start, t))
            night_start = None
        elif kind == "speech" and t is not None:
            end = t_of(e, "t_end") or t
            seat = int(e.get("seat", 0) or 0)
            label = f"Day {max(day_no, 1)}, " + {"last_word": "last word", "farewell": "farewell",
                                                 "tie": "tie speech"}.get(str(e.get("kind")), "speech")
            spans.append(PhaseSpan("speech", max(night_no, 0), f"{label} of seat {seat}", t, end, (seat,)))
        elif kind == "vote" and t is not None:
            end = t_of(e, "t_thanks") or t_of(e, "t_call_end") or t
            cand = e.get("candidate")
            spans.append(PhaseSpan("vote", max(night_no, 0),
                                   f"Day {max(day_no, 1)}, vote on seat {cand}", t, end,
                                   (int(cand),) if isinstance(cand, int) else ()))
        elif kind == "raise_vote" and t is not None:
            end = t_of(e, "t_thanks") or t
            spans.append(PhaseSpan("vote", max(night_no, 0), f"Day {max(day_no, 1)}, all-leave vote", t, end))
    if night_start is not None:  # the recording ends during a night
        spans.append(PhaseSpan("night", night_no, f"Night {night_no}", night_start,
                               max(last_t, night_start + 1.0)))
    return sorted(spans, key=lambda s: (s.t0, s.t1))


def game_phases(protocol_doc: Mapping[str, Any]) -> list[PhaseSpan]:
    from_engine = phases_from_engine(protocol_doc)
    return from_engine if from_engine else phases_from_protocol(protocol_doc)

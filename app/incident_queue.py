"""The incident queue: one-line summaries, priority order and filters (pure functions)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from app.rule_text import clause_label
from review.incidents import Incident, sort_by_priority
from review.view import Abstention, sentence

IMPACT_LABEL = {2: "changes the result", 1: "changes who leaves", 0: "no effect on the outcome"}
UNDECIDED = "open"


def clock(t: float | None) -> str:
    """Video seconds as m:ss.s (h:mm:ss.s past an hour); '—' when unknown."""
    if t is None:
        return "—"
    t = max(0.0, float(t))
    h, rem = divmod(t, 3600)
    m, s = divmod(rem, 60)
    return f"{int(h)}:{int(m):02d}:{s:04.1f}" if h else f"{int(m)}:{s:04.1f}"


def what(inc: Incident) -> str:
    return inc.type.value.replace("_", " ")


def who(inc: Incident) -> str:
    if not inc.seats:
        return "judge"
    return ("seat " if len(inc.seats) == 1 else "seats ") + ", ".join(str(s) for s in inc.seats)


def one_line(inc: Incident) -> str:
    """What, who, when, the clause and the impact in one line."""
    clause = clause_label(inc.clause) if inc.clause else "no clause"
    line = (f"{what(inc)} · {who(inc)} · {clock(inc.t0)} ({inc.phase.label}) · {clause}"
            f" · {IMPACT_LABEL[inc.impact.rank]}")
    if inc.placement and inc.placement.get("inferred"):
        line += f" · times inferred ({float(inc.placement.get('confidence') or 0):.0%})"
    return line


PLACED_BY = {"speech": "the judge's spoken call", "audio": "the judge's call tone", "video": "the picture alone",
             "music": "the night music starting or stopping",
             "interpolated": "the order of events only", "protocol": "the protocol's clock",
             "manual": "a manual anchor"}


def placement_note(placement: Mapping) -> str:
    """For an incident whose phase the protocol gave no time: how it was placed, how sure."""
    by = PLACED_BY.get(str(placement.get("anchored_by")), str(placement.get("anchored_by")))
    conf = float(placement.get("confidence") or 0.0)
    return (f"The protocol has no times for this phase: it was placed on the video from {by} "
            f"(alignment confidence {conf:.0%}). Check the clip; if the phase is off, set a manual "
            f"anchor on the Timeline page.")


@dataclass(frozen=True)
class QueueFilter:
    types: frozenset[str] = field(default_factory=frozenset)  # empty = all
    seats: frozenset[int] = field(default_factory=frozenset)
    statuses: frozenset[str] = field(default_factory=frozenset)
    phases: frozenset[str] = field(default_factory=frozenset)  # phase labels

    def keeps(self, inc: Incident, status: str) -> bool:
        if self.types and inc.type.value not in self.types:
            return False
        if self.seats and not self.seats.intersection(inc.seats):
            return False
        if self.statuses and status not in self.statuses:
            return False
        if self.phases and inc.phase.label not in self.phases:
            return False
        return True


def queue(incidents: Iterable[Incident], statuses: Mapping[str, str],
          flt: QueueFilter = QueueFilter()) -> list[Incident]:
    """Incidents kept by the filter, highest impact first, then most confident."""
    return [inc for inc in sort_by_priority(incidents)
            if flt.keeps(inc, statuses.get(inc.id, UNDECIDED))]


def phase_labels(incidents: Iterable[Incident]) -> list[str]:
    """Phase labels in video order (first occurrence)."""
    seen: dict[str, float] = {}
    for inc in incidents:
        t = inc.t0 if inc.t0 is not None else float("inf")
        seen[inc.phase.label] = min(seen.get(inc.phase.label, t), t)
    return sorted(seen, key=lambda label: (seen[label], label))


def not_judged(abstentions: Iterable[Mapping]) -> list[str]:
    """One line per seat and interval the analysis could not judge, in video
    order: "0:41.2 · cannot judge seat 4's mask in night 1: too dark"."""
    items = sorted((Abstention.from_json(a) for a in abstentions), key=lambda a: (a.t0, a.seat, a.window))
    return [f"{clock(a.t0)} · {sentence(a)}" + (f" (not raised: {', '.join(a.withheld)})" if a.withheld else "")
            for a in items]

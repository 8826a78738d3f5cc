"""How far a game's analysis has got and how much of the game it could judge, in the
words a judge reads on the Games page (the steps' own names,
`review.workspace.ANALYSIS_STEPS`, are the pipeline's)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from review.workspace import ANALYSIS_STEPS

STEP_LABELS: Mapping[str, str] = MappingProxyType({
    "calibration_check": "seats checked",
    "extract": "video read",
    "align": "record placed on the video",
    "recount": "votes recounted",
    "checks": "fouls looked for",
    "clips": "evidence clips cut",
})


def analysis_summary(steps: Mapping[str, bool]) -> tuple[str, list[tuple[str, bool]]]:
    """("complete" / "not run yet" / "stopped after ...", [(step label, done), ...] in order)."""
    done = [step for step in ANALYSIS_STEPS if steps.get(step, False)]
    rows = [(STEP_LABELS.get(step, step), step in done) for step in ANALYSIS_STEPS]
    if len(done) == len(ANALYSIS_STEPS):
        return "complete", rows
    if not done:
        return "not run yet", rows
    last = next(label for label, ok in reversed(rows) if ok)
    return f"stopped after \u201c{last}\u201d (resume to go on; finished steps are kept)", rows


@dataclass(frozen=True)
class Coverage:
    """What the picture could judge: vote cells (call x eligible seat) and the
    seat-intervals review.view abstained on, with the reasons' tally."""
    cells: int
    cells_judged: int
    seat_intervals: int
    reasons: tuple[tuple[str, int], ...]    # most frequent first

    @property
    def judged_share(self) -> float:
        return self.cells_judged / self.cells if self.cells else 1.0

    @property
    def thin(self) -> bool:
        """Too little judged for "no incident" to read as a clean game."""
        return self.judged_share < THIN_SHARE


# Under this share of the vote cells judged, the Games page warns that no
# incident does not mean a clean game (issue 16 asks >= 95% of cells judged).
THIN_SHARE = 0.95


def _call_key(call: Any) -> str:
    if call.kind == "raise":
        return f"r{call.round}.raise"
    return f"r{call.round}.vote.p{call.pass_ - 1}.c{call.candidate}"


def coverage(calls: Sequence[Any], intervals: Sequence[Mapping[str, Any]],
             abstentions: Sequence[Mapping[str, Any]]) -> Coverage:
    """`calls`: recount.json's (review.recount_file.VoteCall); `intervals`: timeline.json's,
    whose vote calls name their eligible voters; `abstentions`: incidents.json's."""
    eligible = {iv["key"]: len(iv.get("details", {}).get("eligible") or iv.get("in_game") or ())
                for iv in intervals if iv.get("kind") in ("vote_call", "raise_vote")}
    cells = judged = 0
    for call in calls:
        n = eligible.get(_call_key(call))
        if not n:
            continue    # a call the timeline does not name: its cells are not known
        cells += n
        judged += max(0, n - len(call.unverified_seats))
    tally = Counter(why for a in abstentions for why in (a.get("why") or ["not seen"]))
    seat_intervals = len({(a.get("seat"), a.get("key")) for a in abstentions})
    return Coverage(cells, judged, seat_intervals, tuple(tally.most_common()))


def coverage_text(cov: Coverage) -> str:
    """One paragraph for the Games page."""
    reasons = ", ".join(f"{why.replace('_', ' ')} {n}" for why, n in cov.reasons[:4])
    said = (f"Judged from the picture: {cov.cells_judged} of {cov.cells} vote cells"
            + (f"; {cov.seat_intervals} seat-intervals could not be judged ({reasons})" if cov.seat_intervals else
               "; every seat-interval judged"))
    said += "."
    if cov.thin:
        said += ("  \n**No incident here does not mean a clean game**: no foul is raised and no vote counted "
                 "where the picture could not be judged. The vote verification and the incident queue list "
                 "those seats and phases: look at them yourself.")
    return said

"""How far a game's analysis has got, in the words a judge reads on the Games page
(the steps' own names, `review.workspace.ANALYSIS_STEPS`, are the pipeline's).
How much of the game it could judge: review.coverage."""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

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


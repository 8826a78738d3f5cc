"""One progress bar over a whole analysis, with the time left.

The analysis runs steps of very different cost (extraction is most of it;
the closer look, the alignment, the landings and the evidence clips follow).
A bar per step restarts at every step and an ETA from the first step's
speed is wrong for the next. So the run is planned up front: each stage gets
an expected cost in seconds from what it has to do (frames to analyse,
seconds of video, incidents to cut) times a unit cost measured on a 2-core
machine (`UNIT_COSTS`, from `mafvar bench`'s per-stage figures). As the run
goes, the units it has finished show how fast this machine is today, and the
remaining work is re-estimated with that speed. The fraction never goes
back.

The pipeline reports `(stage, fraction of the stage, message)`;
`RunProgress.reporter` turns that into a `ProgressReport` for the caller.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

# Seconds of wall time per unit on two cores (measured: `mafvar bench` on the
# committed sample, where extraction ran 1,960 scheduled frames in 31 s and
# the other steps took the rest of its 41.9 s).
UNIT_COSTS = {
    "load": 1.5,              # per game: protocol, replay, probe, calibration verdict
    "extract": 0.016,         # per scheduled frame (ten seats, two workers; also the closer look)
    "align": 0.012,           # per second of video: states, tracks, audio cues
    "landing": 0.05,          # per second of video in vote calls (fists timed at 25 fps)
    "recount": 0.3,           # per game
    "checks": 0.5,            # per game
    "clips": 1.6,             # per incident: clip, zoomed clip, stills
}
# The closer look is planned only after extraction: until then it is expected
# to add this share of the extraction's frames (measured 3-8 %).
REFINE_SHARE = 0.06
# An incident count is known only after the checks: expected until then.
EXPECTED_INCIDENTS = 8


@dataclass(frozen=True)
class ProgressReport:
    """What a person is shown: the whole run's fraction, the time left, what runs now."""
    fraction: float                 # 0..1 over the whole analysis, never decreasing
    eta_s: float | None             # seconds left (None until there is a measured speed)
    stage: str                      # the step running now
    message: str                    # its own detail ("1200/2800 frames")
    elapsed_s: float

    @property
    def text(self) -> str:
        left = "" if self.eta_s is None else f" · {format_duration(self.eta_s)} left"
        detail = f" · {self.stage}" + (f": {self.message}" if self.message else "")
        return f"{self.fraction * 100:.0f}%{left}{detail}"


def format_duration(seconds: float, about: bool = True) -> str:
    s = max(0, int(round(seconds)))
    text = f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"
    return f"about {text}" if about else text


@dataclass
class RunProgress:
    """Expected seconds per stage, corrected by the speed measured so far."""
    plan: dict[str, float]                              # stage -> expected seconds (prior)
    clock: Callable[[], float] = time.monotonic
    started: float | None = None
    done: dict[str, float] = field(default_factory=dict)    # stage -> fraction finished
    shown: float = 0.0
    stage: str = ""

    @staticmethod
    def for_game() -> "RunProgress":
        """Before anything is known: loading, then placeholders `plan_game` sizes."""
        return RunProgress({"load": UNIT_COSTS["load"]})

    def plan_game(self, video_s: float, frames: int, vote_s: float, timed: bool) -> None:
        """The stages of a game of `video_s` seconds whose first extraction analyses
        `frames` frames (`vote_s`: seconds inside vote calls). Without protocol times
        the first pass is coarse and a dense one follows the alignment."""
        ext = UNIT_COSTS["extract"] * frames
        self.plan.update({"extract": ext, "extract_refine": ext * REFINE_SHARE,
                          "align": UNIT_COSTS["align"] * video_s})
        if not timed:
            self.plan["extract_dense"] = ext
        self.plan.update({"landing": UNIT_COSTS["landing"] * vote_s,
                          "recount": UNIT_COSTS["recount"], "checks": UNIT_COSTS["checks"],
                          "clips": UNIT_COSTS["clips"] * EXPECTED_INCIDENTS})

    def replan(self, stage: str, expected_s: float) -> None:
        """A stage's cost once its work is known (the closer look's frames, the incidents)."""
        self.plan[stage] = max(0.0, expected_s)

    def add_stage(self, stage: str, expected_s: float) -> None:
        """Another stage (a second extraction when the protocol has no times)."""
        self.plan[stage] = self.plan.get(stage, 0.0) + max(0.0, expected_s)

    def _fraction(self) -> float:
        total = sum(self.plan.values()) or 1.0
        return sum(self.plan[s] * min(1.0, self.done.get(s, 0.0)) for s in self.plan) / total

    def update(self, stage: str, fraction: float, message: str = "") -> ProgressReport:
        now = self.clock()
        if self.started is None:
            self.started = now
        if stage != self.stage and self.stage in self.plan:
            self.done[self.stage] = 1.0     # the stage that ran until now has finished
        if stage in self.plan:
            self.done[stage] = max(self.done.get(stage, 0.0), min(max(fraction, 0.0), 1.0))
        elif stage == "done":
            self.done = {s: 1.0 for s in self.plan}
        self.stage = stage
        self.shown = max(self.shown, self._fraction())
        elapsed = now - self.started
        return ProgressReport(self.shown, self._eta(elapsed), stage, message, elapsed)

    def _eta(self, elapsed: float) -> float | None:
        if self.shown >= 1.0:
            return 0.0
        # the measured speed: expected seconds of the work finished per real second
        finished = self.shown * (sum(self.plan.values()) or 1.0)
        if elapsed < 2.0 or finished <= 0:
            return None
        speed = finished / elapsed
        remaining = (1.0 - self.shown) * sum(self.plan.values())
        return remaining / speed

    def reporter(self, sink: Callable[[ProgressReport], None] | None):
        """The pipeline's `say(stage, fraction, message)`, feeding `sink`."""
        def say(stage: str, fraction: float, message: str = "") -> None:
            report = self.update(stage, fraction, message)
            if sink is not None:
                sink(report)
        return say

"""A progress reader with time left, for `review.pipeline.analyze`'s reports."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Progress:
    """Turns whatever the pipeline reports into a fraction, a message and an ETA.

    Accepts `cb(fraction)`, `cb(fraction, message)`, `cb(done, total)`,
    `cb(step, done, total)` or keyword forms (fraction=, done=, total=, message=),
    and objects with those attributes, since the hook's signature is not fixed.
    """
    clock: Callable[[], float]
    steps: tuple[str, ...] = ()  # named steps: a step's own fraction maps into its share
    started: float | None = None
    fraction: float = 0.0
    history: list[tuple[float, float]] = field(default_factory=list)

    def update(self, *args: Any, **kwargs: Any) -> tuple[float, str]:
        now = self.clock()
        if self.started is None:
            self.started = now
        msg = ""
        nums: list[float] = []
        values = list(args) + list(kwargs.values())
        if len(values) == 1 and not isinstance(values[0], (int, float, str)):
            obj = values[0]
            values = [getattr(obj, k) for k in ("fraction", "done", "total", "message", "step")
                      if getattr(obj, k, None) is not None]
        for v in values:
            if isinstance(v, bool):
                continue
            if isinstance(v, (int, float)):
                nums.append(float(v))
            elif isinstance(v, str):
                msg = (msg + " " + v).strip()
        frac = kwargs.get("fraction")
        if frac is None:
            if "done" in kwargs and kwargs.get("total"):
                frac = float(kwargs["done"]) / float(kwargs["total"])
            elif len(nums) >= 2 and nums[-1] > 0:
                frac = nums[-2] / nums[-1]
            elif len(nums) == 1 and 0.0 <= nums[0] <= 1.0:
                frac = nums[0]
        step = next((v for v in values if isinstance(v, str) and v in self.steps), None)
        if frac is not None and step is not None:
            # review.pipeline reports (step, fraction of that step, message)
            frac = (self.steps.index(step) + min(max(float(frac), 0.0), 1.0)) / len(self.steps)
            msg = " ".join(v for v in values if isinstance(v, str) and v != step)
            msg = f"{step}: {msg}" if msg else step
        if frac is not None:
            self.fraction = min(max(float(frac), 0.0), 1.0)
        self.history.append((now, self.fraction))
        return self.fraction, msg

    def eta_seconds(self) -> float | None:
        if self.started is None or self.fraction <= 0.0 or not self.history:
            return None
        elapsed = self.history[-1][0] - self.started
        if elapsed <= 0:
            return None
        return elapsed * (1.0 - self.fraction) / self.fraction

    def text(self, msg: str = "") -> str:
        eta = self.eta_seconds()
        left = "" if eta is None else f" · about {int(eta // 60)} min {int(eta % 60):02d} s left"
        return f"{self.fraction * 100:.0f}%{left}" + (f" · {msg}" if msg else "")

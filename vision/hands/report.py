"""What `mafvar hands` says about each hand: one record, as a dict or a text line."""
from __future__ import annotations

from dataclasses import dataclass

from vision.hands.classify import HandClassification, HandState, classify_hand
from vision.hands.detector import HandObservation


@dataclass(frozen=True)
class HandReport:
    box: tuple[float, float, float, float]
    handedness: str  # "left", "right" or "unknown"
    state: HandState
    count: int
    confidence: float

    def to_dict(self) -> dict:
        """The JSON record: {box: [x0,y0,x1,y1], handedness, state, count, confidence}."""
        return {
            "box": [round(v, 1) for v in self.box],
            "handedness": self.handedness,
            "state": self.state.value,
            "count": self.count,
            "confidence": round(self.confidence, 3),
        }

    def to_text(self) -> str:
        x0, y0, x1, y1 = self.box
        return (
            f"box [{x0:.0f}, {y0:.0f}, {x1:.0f}, {y1:.0f}]  {self.handedness:<7} "
            f"state={self.state.value}  count={self.count}  confidence={self.confidence:.2f}"
        )


def report_hand(observation: HandObservation) -> HandReport:
    # Image pixels (y down) are the frame in which "thumb up" is judged.
    result: HandClassification = classify_hand(observation.landmarks_px[:, :3])
    return HandReport(
        box=observation.box,
        handedness=observation.handedness.lower(),
        state=result.state,
        count=result.count,
        confidence=result.confidence,
    )

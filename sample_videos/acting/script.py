"""Per-seat action scripts: the format the director writes and the actor reads.

See docs/acting.md.  A script is a list of timed events per seat; each event
belongs to one channel (body, head, mask) and holds until the next event of
the same channel, entered with an eased transition.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

FORMAT = "mafvar-acting"
VERSION = 1


class Channel(str, Enum):
    BODY = "body"
    HEAD = "head"
    MASK = "mask"


class Action(str, Enum):
    MASK_ON = "mask_on"
    MASK_OFF = "mask_off"
    MASK_LIFT = "mask_lift"
    REST = "rest"
    NIGHT_POSE = "night_pose"
    VOTE = "vote"
    RAISE_HAND = "raise_hand"
    SHOT = "shot"
    SHOW_FINGERS = "show_fingers"
    STAND_UP = "stand_up"
    LEAVE = "leave"  # stands up and is gone (an eliminated player)
    TOUCH_NEIGHBOUR = "touch_neighbour"
    HAND_TO_MASK = "hand_to_mask"
    HEAD_TURN = "head_turn"
    SPEAK = "speak"
    LOOK = "look"  # head back to its default (toward the judge)

    @property
    def channel(self) -> Channel:
        if self in (Action.MASK_ON, Action.MASK_OFF, Action.MASK_LIFT):
            return Channel.MASK
        if self in (Action.HEAD_TURN, Action.SPEAK, Action.LOOK):
            return Channel.HEAD
        return Channel.BODY


# Allowed parameters per action with their defaults; anything else is an error.
PARAMS: dict[Action, dict[str, Any]] = {
    Action.MASK_ON: {},
    Action.MASK_OFF: {"where": "forehead"},          # forehead | table
    Action.MASK_LIFT: {"amount": 0.7},               # 0 = on the eyes, 1 = forehead
    Action.REST: {},
    Action.NIGHT_POSE: {"head_down": 35.0},          # degrees, 25..45
    Action.VOTE: {"form": "thumb_up", "hand": "right", "hold": None, "lift": 0.6},
    Action.RAISE_HAND: {"fingers": 1, "hand": "right"},
    Action.SHOT: {"fingers": 1, "hand": "right", "curl_at": 0.5, "curl_time": 0.5},
    Action.SHOW_FINGERS: {"count": 1, "hand": "right"},
    Action.STAND_UP: {},
    Action.LEAVE: {"after": 1.2},                    # seconds standing before the seat is empty
    Action.TOUCH_NEIGHBOUR: {"side": "right", "hand": None},
    Action.HAND_TO_MASK: {"hand": "right"},
    Action.HEAD_TURN: {"yaw": 0.0, "pitch": 0.0},   # degrees; +yaw = to the player's left
    Action.SPEAK: {"amplitude": 1.0},
    Action.LOOK: {},
}

CHOICES = {
    ("mask_off", "where"): ("forehead", "table"),
    ("vote", "form"): ("thumb_up", "palm", "fingertip"),
    ("vote", "hand"): ("right", "left"),
    ("raise_hand", "hand"): ("right", "left"),
    ("shot", "hand"): ("right", "left"),
    ("show_fingers", "hand"): ("right", "left"),
    ("hand_to_mask", "hand"): ("right", "left"),
    ("touch_neighbour", "side"): ("right", "left"),
    ("raise_hand", "fingers"): (1, 2),
    ("shot", "fingers"): (1, 2),
    ("show_fingers", "count"): (0, 1, 2, 3, 4, 5),
}


class ScriptError(ValueError):
    """A malformed acting script (unknown action, parameter or value)."""


@dataclass(frozen=True)
class ActionEvent:
    t: float
    action: Action
    params: tuple[tuple[str, Any], ...] = ()
    transition: float = 0.45

    def param(self, name: str) -> Any:
        for k, v in self.params:
            if k == name:
                return v
        return PARAMS[self.action][name]

    def to_json(self) -> dict:
        d = {"t": round(self.t, 4), "action": self.action.value}
        if self.transition != 0.45:
            d["transition"] = self.transition
        d.update(dict(self.params))
        return d


def event(t: float, action: str | Action, transition: float = 0.45, **params) -> ActionEvent:
    """Build a validated event: `event(12.0, "vote", form="palm")`."""
    try:
        act = Action(action)
    except ValueError:
        raise ScriptError(f"unknown action {action!r}") from None
    allowed = PARAMS[act]
    for k, v in params.items():
        if k not in allowed:
            raise ScriptError(f"{act.value}: unknown parameter {k!r} (allowed: {sorted(allowed)})")
        choices = CHOICES.get((act.value, k))
        if choices is not None and v not in choices and not (k == "hand" and v is None):
            raise ScriptError(f"{act.value}: {k}={v!r} not one of {choices}")
    if not (0.05 <= transition <= 3.0):
        raise ScriptError(f"{act.value}: transition {transition} s out of 0.05..3")
    return ActionEvent(float(t), act, tuple(sorted(params.items())), float(transition))


@dataclass(frozen=True)
class SeatScript:
    """One seat's events, kept sorted by time (stable for equal times)."""
    seat: int
    events: tuple[ActionEvent, ...] = field(default_factory=tuple)

    def __post_init__(self):
        object.__setattr__(self, "events", tuple(sorted(self.events, key=lambda e: e.t)))

    def channel(self, ch: Channel) -> tuple[ActionEvent, ...]:
        return tuple(e for e in self.events if e.action.channel is ch)



Scripts = dict[int, SeatScript]


def scripts_to_json(scripts: Scripts) -> dict:
    return {"format": FORMAT, "version": VERSION,
            "seats": {str(s): [e.to_json() for e in sc.events] for s, sc in sorted(scripts.items())}}


def scripts_from_json(obj: dict) -> Scripts:
    if obj.get("format") != FORMAT or obj.get("version") != VERSION:
        raise ScriptError(f"not a {FORMAT} v{VERSION} document")
    out: Scripts = {}
    for key, evs in obj.get("seats", {}).items():
        seat = int(key)
        if not 1 <= seat <= 10:
            raise ScriptError(f"seat {seat} out of 1..10")
        items = []
        for i, e in enumerate(evs):
            e = dict(e)
            try:
                t, act = e.pop("t"), e.pop("action")
            except KeyError as exc:
                raise ScriptError(f"seat {seat} event {i}: missing {exc}") from None
            tr = e.pop("transition", 0.45)
            items.append(event(t, act, tr, **e))
        out[seat] = SeatScript(seat, tuple(items))
    return out


def load_scripts(path: str | Path) -> Scripts:
    return scripts_from_json(json.loads(Path(path).read_text()))


def save_scripts(scripts: Scripts, path: str | Path) -> None:
    Path(path).write_text(json.dumps(scripts_to_json(scripts), indent=1))

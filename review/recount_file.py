"""`analysis/recount.json`: the vote recount, one entry per vote call.

The recount step writes it; the report, the app's vote grid and `mafvar eval`
read it. Times are video seconds. Each voter row says whether the placement
counted and why, so a side judge can check a cell without re-deriving rules.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from review.atomic_write import read_versioned_json, write_json_atomic

RECOUNT_FORMAT = "mafvar-recount"
RECOUNT_VERSION = 1


class RecountFormatError(ValueError):
    """recount.json does not follow the format."""


@dataclass(frozen=True)
class VoterRecord:
    seat: int
    t_place: float | None = None  # first frame the fist touches the table
    t_lift: float | None = None
    form: str = "unknown"  # "fist_thumb_up", "fist", "palm", "fingertip", "other_hand", "unknown"
    counted: bool = False
    reason: str = ""  # "in_window", "late", "early", "wrong_form", "second_vote", ...
    confidence: float | None = None
    # how t_place and t_lift were timed: "sampled" (vote-rate frames) or
    # "full_rate" (the fist coming to rest / leaving the table, read at the
    # full frame rate); absent for defaults and in older files
    timing: str | None = None
    lift_timing: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "t_place": self.t_place, "t_lift": self.t_lift,
                               "form": self.form, "counted": self.counted, "reason": self.reason}
        if self.confidence is not None:
            out["confidence"] = self.confidence
        if self.timing is not None:
            out["timing"] = self.timing
        if self.lift_timing is not None:
            out["lift_timing"] = self.lift_timing
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "VoterRecord":
        return cls(seat=int(obj["seat"]), t_place=obj.get("t_place"), t_lift=obj.get("t_lift"),
                   form=str(obj.get("form", "unknown")), counted=bool(obj.get("counted", False)),
                   reason=str(obj.get("reason", "")), confidence=obj.get("confidence"),
                   timing=obj.get("timing"), lift_timing=obj.get("lift_timing"))


@dataclass(frozen=True)
class VoteCall:
    round: int  # mafiaratings rounds: 0 = N0 + first day
    pass_: int  # 1 = first vote of the day, 2 = revote after a tie, ...
    candidate: int | None  # None for the "all tied leave?" raise vote
    t_call: float | None = None
    t_thanks: float | None = None
    announced: int | None = None  # the judge's count; None if the protocol has none
    recount: int | None = None  # counted placements + defaults
    voters: tuple[VoterRecord, ...] = ()
    defaults: tuple[int, ...] = ()  # seats added by default (non-voters, last candidate)
    kind: str = "candidate"  # "candidate" or "raise"
    # cells that could not be judged (review.view): (seat, why); `recount`
    # counts the judged cells only, each of these may add one. Absent in older files.
    unverified: tuple[tuple[int, tuple[str, ...]], ...] = ()
    # "ballots": the record gives no count, `announced` is what its ballots give
    # (a platform's record; additive, absent otherwise)
    announced_from: str | None = None

    @property
    def unverified_seats(self) -> frozenset[int]:
        return frozenset(s for s, _ in self.unverified)

    @property
    def mismatch(self) -> bool:
        """The announced count is outside what the judged cells allow."""
        return (self.announced is not None and self.recount is not None
                and not self.recount <= self.announced <= self.recount + len(self.unverified))

    def to_json(self) -> dict[str, Any]:
        out = {"round": self.round, "pass": self.pass_, "kind": self.kind,
               "candidate": self.candidate, "t_call": self.t_call, "t_thanks": self.t_thanks,
               "announced": self.announced, "recount": self.recount,
               "voters": [v.to_json() for v in self.voters], "defaults": list(self.defaults),
               "unverified": [{"seat": s, "why": list(why)} for s, why in self.unverified]}
        if self.announced_from is not None:
            out["announced_from"] = self.announced_from
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "VoteCall":
        return cls(round=int(obj["round"]), pass_=int(obj.get("pass", 1)),
                   candidate=obj.get("candidate"), t_call=obj.get("t_call"),
                   t_thanks=obj.get("t_thanks"), announced=obj.get("announced"),
                   recount=obj.get("recount"),
                   voters=tuple(VoterRecord.from_json(v) for v in obj.get("voters", ())),
                   defaults=tuple(int(s) for s in obj.get("defaults", ())),
                   kind=str(obj.get("kind", "candidate")),
                   unverified=tuple((int(u["seat"]), tuple(str(w) for w in u.get("why", ())))
                                    for u in obj.get("unverified", ())),
                   announced_from=None if obj.get("announced_from") is None else str(obj["announced_from"]))


@dataclass(frozen=True)
class RecountFile:
    calls: tuple[VoteCall, ...]
    game: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"format": RECOUNT_FORMAT, "version": RECOUNT_VERSION, "game": self.game,
                "calls": [c.to_json() for c in self.calls]}


def save_recount(path: str | os.PathLike[str], calls: Iterable[VoteCall],
                 game: Mapping[str, Any] | None = None) -> Path:
    return write_json_atomic(path, RecountFile(calls=tuple(calls), game=dict(game or {})).to_json())


def load_recount(path: str | os.PathLike[str]) -> RecountFile:
    file = Path(path)
    doc = read_versioned_json(file, RECOUNT_FORMAT, RECOUNT_VERSION, RecountFormatError)
    try:
        calls = tuple(VoteCall.from_json(c) for c in doc.get("calls", ()))
    except (KeyError, TypeError, ValueError) as exc:
        raise RecountFormatError(f"{file}: bad vote call ({exc!r})") from None
    game = doc.get("game") or {}
    return RecountFile(calls=calls, game=dict(game) if isinstance(game, dict) else {})

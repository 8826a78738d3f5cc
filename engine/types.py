"""Domain vocabulary shared by every engine module: seats, roles, teams, exits, issues."""
from __future__ import annotations

from dataclasses import dataclass, asdict
from enum import Enum

Seat = int  # 1..10; a plain int keeps protocols JSON-friendly
SEATS: tuple[Seat, ...] = tuple(range(1, 11))


class Team(str, Enum):
    RED = "red"
    BLACK = "black"

    @property
    def result_name(self) -> str:
        """The winner name used in protocols and mafiaratings (`civ` / `maf`)."""
        return "civ" if self is Team.RED else "maf"

    @classmethod
    def from_result_name(cls, name: str) -> "Team":
        return cls.RED if name == "civ" else cls.BLACK

    @property
    def other(self) -> "Team":
        return Team.BLACK if self is Team.RED else Team.RED


class Role(str, Enum):
    CIV = "civ"
    SHERIFF = "sheriff"
    MAF = "maf"
    DON = "don"

    @property
    def team(self) -> Team:
        return Team.BLACK if self in (Role.MAF, Role.DON) else Team.RED

    @property
    def is_black(self) -> bool:
        return self.team is Team.BLACK


class ExitType(str, Enum):
    """How a player left the game (mafiaratings `death.type` vocabulary)."""
    DAY = "day"
    NIGHT = "night"
    WARNINGS = "warnings"
    TECH_FOULS = "techFouls"
    KICK_OUT = "kickOut"
    TEAM_KICK_OUT = "teamKickOut"
    GIVE_UP = "giveUp"

    @property
    def is_removal(self) -> bool:
        """Removals (not a vote or a shot) trigger the removal-effect rules."""
        return self not in (ExitType.DAY, ExitType.NIGHT)


class Severity(str, Enum):
    ERROR = "error"   # the protocol is invalid: an impossible step
    AUDIT = "audit"   # a judge error visible from the protocol alone
    NOTE = "note"     # information: a step taken from a record, an unknown vote


@dataclass(frozen=True)
class Issue:
    severity: Severity
    code: str
    event: int | None  # index into protocol.events; None = the whole protocol
    message: str
    clause: str = ""

    def to_dict(self) -> dict:
        d = asdict(self)
        d["severity"] = self.severity.value
        return d

    def __str__(self) -> str:
        where = f"event {self.event}" if self.event is not None else "protocol"
        clause = f" [{self.clause}]" if self.clause else ""
        return f"{self.severity.value}: {where}: {self.message} ({self.code}){clause}"


def error(code: str, event: int | None, message: str, clause: str = "") -> Issue:
    return Issue(Severity.ERROR, code, event, message, clause)


def audit(code: str, event: int | None, message: str, clause: str = "") -> Issue:
    return Issue(Severity.AUDIT, code, event, message, clause)


def note(code: str, event: int | None, message: str, clause: str = "") -> Issue:
    return Issue(Severity.NOTE, code, event, message, clause)

"""The incident data model: one probable rule breach (or judge error) with its evidence.

Rule checks fill these, `incidents.json` stores them, the app and the report
show them, and `review.db` decisions refer to them by `id`. The id is derived
from what the incident *is* (type, seats, phase, rounded time), so re-running
the analysis yields the same ids and earlier decisions stay attached.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from review.atomic_write import read_versioned_json, write_json_atomic
from review.fouls import VIOLATION_OF, IncidentType

INCIDENTS_FORMAT = "mafvar-incidents"
INCIDENTS_VERSION = 1


class IncidentFormatError(ValueError):
    """incidents.json (or one incident in it) does not follow the format."""


# IncidentType and each type's violation code are declared in review.fouls
__all__ = ["IncidentType", "VIOLATION_OF", "Source", "EvidenceKind", "Evidence", "Impact", "Phase",
           "Incident", "IncidentsFile", "IncidentFormatError", "INCIDENTS_FORMAT", "INCIDENTS_VERSION",
           "incident_id", "sort_by_priority", "save_incidents", "load_incidents", "parse_enum"]


class Source(str, Enum):
    VIDEO = "video"
    PROTOCOL = "protocol"


class EvidenceKind(str, Enum):
    FRAME = "frame"  # the full video frame at a key moment
    CROP = "crop"  # the zoomed seat region, landmarks drawn
    CLIP = "clip"  # browser-playable H.264 clip with pre- and post-roll


@dataclass(frozen=True)
class Evidence:
    kind: EvidenceKind
    path: str  # relative to the game folder, "/"-separated
    t: float | None = None  # video seconds this evidence shows (a clip: its key moment)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _enum(EvidenceKind, self.kind, "evidence kind"))
        if not isinstance(self.path, str) or not self.path:
            raise IncidentFormatError("evidence path must be a non-empty string")
        if Path(self.path).is_absolute() or ".." in Path(self.path).parts:
            raise IncidentFormatError(
                f"evidence path must be relative to the game folder, got {self.path!r}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "path": self.path}
        if self.t is not None:
            out["t"] = self.t
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Evidence":
        return cls(kind=obj["kind"], path=obj["path"], t=obj.get("t"))


@dataclass(frozen=True)
class Impact:
    changes_exit: bool = False  # correcting it changes who leaves the table
    changes_result: bool = False  # correcting it changes who wins
    summary: str = ""

    @property
    def rank(self) -> int:
        """2 = changes the result, 1 = changes an exit, 0 = neither."""
        return 2 if self.changes_result else 1 if self.changes_exit else 0

    def to_json(self) -> dict[str, Any]:
        return {"changes_exit": self.changes_exit, "changes_result": self.changes_result,
                "summary": self.summary}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Impact":
        return cls(changes_exit=bool(obj.get("changes_exit", False)),
                   changes_result=bool(obj.get("changes_result", False)),
                   summary=str(obj.get("summary", "")))


@dataclass(frozen=True)
class Phase:
    label: str  # for people: "Day 2, vote on seat 5"
    key: str  # stable machine key: "day 2 vote on 5"; part of the incident id

    def to_json(self) -> dict[str, str]:
        return {"label": self.label, "key": self.key}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Phase":
        return cls(label=str(obj.get("label", "")), key=str(obj["key"]))


def incident_id(type_: IncidentType | str, seats: Iterable[int], phase_key: str,
                t: float | None, extra: str = "") -> str:
    """A deterministic id: the same finding in the same place gets the same id.

    Time is rounded to the whole second so detection jitter of a few frames
    does not change the id; `extra` separates two findings that would
    otherwise coincide (for example two audit issues on one event).
    """
    kind = _enum(IncidentType, type_, "incident type")
    rounded = None if t is None else int(math.floor(float(t) + 0.5))
    canon = json.dumps([kind.value, sorted(int(s) for s in seats), phase_key, rounded, extra],
                       separators=(",", ":"))
    return f"{kind.value}-{hashlib.sha1(canon.encode('utf-8')).hexdigest()[:10]}"


@dataclass(frozen=True)
class Incident:
    id: str
    type: IncidentType
    seats: tuple[int, ...]
    t0: float | None  # video seconds; None for protocol findings without a time
    t1: float | None
    phase: Phase
    confidence: float  # 0..1: how sure the detector is that it happened
    violation: str | None = None  # rules-spec §3 code, "V1" ...
    clause: str = ""  # the clause in the game's profile, "MC 2.4.7"
    sanction: str = ""  # suggested sanction under the profile
    evidence: tuple[Evidence, ...] = ()
    impact: Impact = field(default_factory=Impact)
    details: dict[str, Any] = field(default_factory=dict)
    source: Source = Source.VIDEO
    # how the phase was placed on the video clock: {inferred, anchored_by, confidence}
    # (inferred: the protocol had no time for it; review.pipeline.with_placement)
    placement: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", _enum(IncidentType, self.type, "incident type"))
        object.__setattr__(self, "source", _enum(Source, self.source, "incident source"))
        if not isinstance(self.id, str) or not self.id:
            raise IncidentFormatError("incident id must be a non-empty string")
        seats = tuple(self.seats)
        for seat in seats:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 10:
                raise IncidentFormatError(f"incident {self.id}: seat {seat!r} is not 1..10")
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "evidence", tuple(self.evidence))
        if not (isinstance(self.confidence, (int, float)) and 0.0 <= self.confidence <= 1.0):
            raise IncidentFormatError(
                f"incident {self.id}: confidence {self.confidence!r} is not within 0..1")
        if self.t0 is not None and self.t1 is not None and self.t1 < self.t0:
            raise IncidentFormatError(f"incident {self.id}: t1 {self.t1} is before t0 {self.t0}")

    @classmethod
    def create(cls, type: IncidentType | str, seats: Sequence[int], t0: float | None,
               t1: float | None, phase: Phase, confidence: float, *, id_extra: str = "",
               **fields: Any) -> "Incident":
        """Build an incident with its deterministic id and the type's violation code."""
        kind = _enum(IncidentType, type, "incident type")
        fields.setdefault("violation", VIOLATION_OF[kind])
        return cls(id=incident_id(kind, seats, phase.key, t0, id_extra), type=kind,
                   seats=tuple(seats), t0=t0, t1=t1, phase=phase, confidence=confidence,
                   **fields)

    @property
    def priority(self) -> tuple[int, float, float]:
        """Sort key: highest impact first, then most confident, then earliest."""
        t = self.t0 if self.t0 is not None else math.inf
        return (-self.impact.rank, -self.confidence, t)

    def to_json(self) -> dict[str, Any]:
        out = self._to_json()
        if self.placement is not None:
            out["placement"] = self.placement
        return out

    def _to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type.value,
            "violation": self.violation,
            "seats": list(self.seats),
            "t0": self.t0,
            "t1": self.t1,
            "phase": self.phase.to_json(),
            "confidence": self.confidence,
            "clause": self.clause,
            "sanction": self.sanction,
            "evidence": [e.to_json() for e in self.evidence],
            "impact": self.impact.to_json(),
            "details": self.details,
            "source": self.source.value,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Incident":
        try:
            return cls(
                id=obj["id"], type=obj["type"], violation=obj.get("violation"),
                seats=tuple(obj.get("seats", ())), t0=obj.get("t0"), t1=obj.get("t1"),
                phase=Phase.from_json(obj["phase"]), confidence=obj["confidence"],
                clause=obj.get("clause", ""), sanction=obj.get("sanction", ""),
                evidence=tuple(Evidence.from_json(e) for e in obj.get("evidence", ())),
                impact=Impact.from_json(obj.get("impact", {})),
                details=dict(obj.get("details", {})), source=obj.get("source", "video"),
                placement=dict(obj["placement"]) if isinstance(obj.get("placement"), dict) else None,
            )
        except KeyError as exc:
            raise IncidentFormatError(
                f"incident {obj.get('id', '?')}: missing field {exc.args[0]!r}") from None
        except TypeError as exc:
            raise IncidentFormatError(f"incident {obj.get('id', '?')}: {exc}") from None


def sort_by_priority(incidents: Iterable[Incident]) -> list[Incident]:
    return sorted(incidents, key=lambda inc: (inc.priority, inc.id))


@dataclass(frozen=True)
class IncidentsFile:
    game: dict[str, Any]
    incidents: tuple[Incident, ...]
    # where a seat could not be judged (review.view.Abstention as JSON); absent in older files
    abstentions: tuple[dict[str, Any], ...] = ()

    def by_id(self) -> dict[str, Incident]:
        return {inc.id: inc for inc in self.incidents}

    def to_json(self) -> dict[str, Any]:
        return {"format": INCIDENTS_FORMAT, "version": INCIDENTS_VERSION, "game": self.game,
                "incidents": [inc.to_json() for inc in self.incidents],
                "abstentions": list(self.abstentions)}


def save_incidents(path: str | os.PathLike[str], incidents: Iterable[Incident],
                   game: Mapping[str, Any] | None = None,
                   abstentions: Iterable[Mapping[str, Any]] = ()) -> Path:
    """Write incidents.json atomically; refuses duplicate ids (they would merge decisions)."""
    items = tuple(incidents)
    _check_unique(items)
    doc = IncidentsFile(game=dict(game or {}), incidents=items,
                        abstentions=tuple(dict(a) for a in abstentions)).to_json()
    return write_json_atomic(path, doc)


def load_incidents(path: str | os.PathLike[str]) -> IncidentsFile:
    file = Path(path)
    doc = read_versioned_json(file, INCIDENTS_FORMAT, INCIDENTS_VERSION, IncidentFormatError)
    raw = doc.get("incidents")
    if not isinstance(raw, list):
        raise IncidentFormatError(f"{file}: 'incidents' must be a list")
    items = tuple(Incident.from_json(obj) for obj in raw)
    _check_unique(items)
    game = doc.get("game") or {}
    abst = doc.get("abstentions") or []
    if not isinstance(abst, list) or not all(isinstance(a, dict) for a in abst):
        raise IncidentFormatError(f"{file}: 'abstentions' must be a list of objects")
    return IncidentsFile(game=dict(game) if isinstance(game, dict) else {}, incidents=items,
                         abstentions=tuple(abst))


def _check_unique(items: Sequence[Incident]) -> None:
    seen: set[str] = set()
    for inc in items:
        if inc.id in seen:
            raise IncidentFormatError(
                f"duplicate incident id {inc.id}: give one of them an id_extra")
        seen.add(inc.id)


def parse_enum(enum_cls: type[Enum], value: Any, what: str, error: type[Exception] = ValueError) -> Any:
    """`value` as a member of `enum_cls`, or `error` listing the allowed values."""
    if isinstance(value, enum_cls):
        return value
    try:
        return enum_cls(value)
    except ValueError:
        allowed = ", ".join(m.value for m in enum_cls)
        raise error(f"unknown {what} {value!r} (expected one of: {allowed})") from None


def _enum(enum_cls: type[Enum], value: Any, what: str) -> Any:
    return parse_enum(enum_cls, value, what, IncidentFormatError)

"""The native protocol (docs/protocol.md): typed events, load/validate, dict round-trip.

`load_protocol(path)` and `parse_protocol(text)` raise `ProtocolError` whose
`issues` name the event index and field; `Protocol.from_dict` assumes a
document that passed `schema_issues` (the CLI validates first).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from mafvar.limits import LIMITS, InputLimitError, check_number, check_tree, parse_json_text

from .files import read_text
from .types import Issue, Role, error

FORMAT = "mafvar-protocol"
VERSION = 1
SCHEMA_PATH = Path(__file__).parent / "schema" / "protocol-v1.schema.json"


class ProtocolError(ValueError):
    """An unreadable or schema-invalid protocol. `issues` holds one error per problem."""

    def __init__(self, message: str, issues: list[Issue] | None = None):
        super().__init__(message)
        self.issues = issues or [error("protocol", None, message)]


# ---------------------------------------------------------------- events

@dataclass(frozen=True)
class Event:
    """Fields every event may carry: protocol-clock times and the importer's flag."""
    type: ClassVar[str] = ""
    t: float | None = None
    t_end: float | None = None
    taken_from_record: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None or (f.name == "taken_from_record" and not value):
                continue  # omitted, never null-filled (docs/protocol.md)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class Nightfall(Event):
    """"Night". `leaves` (with `taken_from_record`): the night's outcome as the source
    record states it (the killed seat, or [] for a miss), which stands over the shots."""
    type: ClassVar[str] = "nightfall"
    leaves: tuple[int, ...] | None = None


@dataclass(frozen=True)
class CardPick(Event):
    type: ClassVar[str] = "card_pick"
    seat: int = 0


@dataclass(frozen=True)
class MafiaWake(Event):
    type: ClassVar[str] = "mafia_wake"


@dataclass(frozen=True)
class DonWake(Event):
    type: ClassVar[str] = "don_wake"


@dataclass(frozen=True)
class SheriffWake(Event):
    type: ClassVar[str] = "sheriff_wake"


@dataclass(frozen=True)
class FreeSeating(Event):
    type: ClassVar[str] = "free_seating"


@dataclass(frozen=True)
class ShootingCall(Event):
    type: ClassVar[str] = "shooting_call"
    seat: int = 0


@dataclass(frozen=True)
class Shot(Event):
    type: ClassVar[str] = "shot"
    by: int = 0
    target: int = 0


@dataclass(frozen=True)
class DonCheck(Event):
    type: ClassVar[str] = "don_check"
    target: int = 0
    answer: bool | None = None  # "is the Sheriff"


@dataclass(frozen=True)
class SheriffCheck(Event):
    type: ClassVar[str] = "sheriff_check"
    target: int = 0
    answer: bool | None = None  # "is black"


@dataclass(frozen=True)
class Guess(Event):
    type: ClassVar[str] = "guess"
    seat: int = 0
    targets: tuple[int, ...] = ()


@dataclass(frozen=True)
class Morning(Event):
    """"Morning". `leaves` (with `taken_from_record`): the day's vote outcome as the
    source record states it (who is voted out, [] for nobody), which stands over the ballots."""
    type: ClassVar[str] = "morning"
    leaves: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Speech(Event):
    type: ClassVar[str] = "speech"
    seat: int = 0
    kind: str | None = None  # normal (default), tie, last_word, farewell
    end: str | None = None   # pass, thanks, timeout

    @property
    def speech_kind(self) -> str:
        return self.kind or "normal"


@dataclass(frozen=True)
class Nominate(Event):
    type: ClassVar[str] = "nominate"
    by: int = 0
    target: int = 0


@dataclass(frozen=True)
class Withdraw(Event):
    type: ClassVar[str] = "withdraw"
    by: int = 0
    target: int = 0


@dataclass(frozen=True)
class VoteAnnounce(Event):
    type: ClassVar[str] = "vote_announce"
    candidates: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Vote(Event):
    """One candidate's call. `t` is the call ("who votes against N")."""
    type: ClassVar[str] = "vote"
    candidate: int = 0
    t_call_end: float | None = None
    t_call2: float | None = None
    t_thanks: float | None = None
    announced: int | None = None
    voters: tuple[int, ...] | None = None


@dataclass(frozen=True)
class RaiseVote(Event):
    """The "all tied leave?" vote: a count (`announced`/`voters`) or a stated outcome (`passed`)."""
    type: ClassVar[str] = "raise_vote"
    t_thanks: float | None = None
    announced: int | None = None
    voters: tuple[int, ...] | None = None
    passed: bool | None = None


@dataclass(frozen=True)
class Foul(Event):
    type: ClassVar[str] = "foul"
    seat: int = 0
    kind: str | None = None  # ordinary (default) or technical
    note: str | None = None

    @property
    def technical(self) -> bool:
        return self.kind == "technical"


@dataclass(frozen=True)
class Removal(Event):
    type: ClassVar[str] = "removal"
    seat: int = 0
    reason: str | None = None
    team: bool | None = None  # teamKickOut: the player's team loses


@dataclass(frozen=True)
class GiveUp(Event):
    type: ClassVar[str] = "give_up"
    seat: int = 0


@dataclass(frozen=True)
class Card(Event):
    type: ClassVar[str] = "card"
    seat: int = 0
    color: str = "yellow"


@dataclass(frozen=True)
class Pause(Event):
    type: ClassVar[str] = "pause"


@dataclass(frozen=True)
class InstantReplay(Event):
    type: ClassVar[str] = "replay"


@dataclass(frozen=True)
class Otv(Event):
    type: ClassVar[str] = "otv"
    team: str = "civ"  # the team that wins


@dataclass(frozen=True)
class Concede(Event):
    type: ClassVar[str] = "concede"
    team: str = "civ"  # the team that concedes


@dataclass(frozen=True)
class Result(Event):
    type: ClassVar[str] = "result"
    winner: str = "tie"


@dataclass(frozen=True)
class Bonus(Event):
    type: ClassVar[str] = "bonus"
    seat: int = 0
    points: float = 0.0
    reason: str | None = None


@dataclass(frozen=True)
class Appeal(Event):
    type: ClassVar[str] = "appeal"
    seat: int = 0
    grounds: str | None = None


@dataclass(frozen=True)
class Note(Event):
    type: ClassVar[str] = "note"
    text: str = ""


EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in (
    Nightfall, CardPick, MafiaWake, DonWake, SheriffWake, FreeSeating, ShootingCall, Shot,
    DonCheck, SheriffCheck, Guess, Morning, Speech, Nominate, Withdraw, VoteAnnounce, Vote,
    RaiseVote, Foul, Removal, GiveUp, Card, Pause, InstantReplay, Otv, Concede, Result, Bonus,
    Appeal, Note)}


def event_from_dict(d: dict[str, Any]) -> Event:
    cls = EVENT_TYPES[d["type"]]
    names = {f.name for f in dataclasses.fields(cls)}
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items() if k in names}
    return cls(**kwargs)


# ---------------------------------------------------------------- protocol

@dataclass(frozen=True)
class CameraFile:
    id: str
    file: str
    offset: float = 0.0


@dataclass(frozen=True)
class SeatEntry:
    seat: int
    role: Role
    name: str | None = None


@dataclass(frozen=True)
class Protocol:
    """One game as the judge recorded it. `game` keeps the metadata object as written."""
    seats: tuple[SeatEntry, ...]
    events: tuple[Event, ...]
    game: dict[str, Any] = field(default_factory=dict)
    cameras: tuple[CameraFile, ...] = ()

    @property
    def roles(self) -> dict[int, Role]:
        return {s.seat: s.role for s in self.seats}

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> "Protocol":
        seats = tuple(SeatEntry(seat=s["seat"], role=Role(s["role"]), name=s.get("name"))
                      for s in doc["seats"])
        cams = tuple(CameraFile(c["id"], c["file"], float(c.get("offset", 0.0)))
                     for c in doc.get("cameras", []))
        return cls(seats=seats, events=tuple(event_from_dict(e) for e in doc["events"]),
                   game=dict(doc.get("game", {})), cameras=cams)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        if self.game:
            out["game"] = self.game
        if self.cameras:
            out["cameras"] = [{"id": c.id, "file": c.file, "offset": c.offset} for c in self.cameras]
        out["seats"] = [{"seat": s.seat, **({"name": s.name} if s.name is not None else {}),
                         "role": s.role.value} for s in self.seats]
        out["events"] = [e.to_dict() for e in self.events]
        return out


# ---------------------------------------------------------------- validation

@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator():
    import jsonschema
    return jsonschema.Draft202012Validator(_schema())


@lru_cache(maxsize=None)
def _event_validator(kind: str | None):
    """The schema of one event of type `kind` (None: type unknown or missing).

    The full schema checks each event against thirty if/then branches, about
    2 ms an event; an event checked against its own branch gives the same
    errors in a fraction of that (the same `items` keywords, the one `then`
    that applies), which keeps a 10,000-event protocol in seconds.
    """
    import jsonschema
    schema = _schema()
    items = schema["properties"]["events"]["items"]
    sub: dict[str, Any] = {"$schema": schema["$schema"], "$defs": schema["$defs"],
                           "type": items.get("type", "object"), "required": items["required"],
                           "properties": items["properties"]}
    if kind is not None:
        sub["allOf"] = [{"$ref": f"#/$defs/ev_{kind}"}]
    return jsonschema.Draft202012Validator(sub)


def _schema_errors(doc: Any):
    """The full schema's errors, with every event checked against its own type's schema."""
    if not isinstance(doc, dict) or not isinstance(doc.get("events"), list):
        yield from _validator().iter_errors(doc)
        return
    yield from _validator().iter_errors({**doc, "events": []})
    defs = _schema()["$defs"]
    for i, ev in enumerate(doc["events"]):
        kind = ev.get("type") if isinstance(ev, dict) else None
        known = isinstance(kind, str) and f"ev_{kind}" in defs
        for err in _event_validator(kind if known else None).iter_errors(ev):
            err.path.appendleft(i)
            err.path.appendleft("events")
            yield err


def _field_path(path) -> tuple[int | None, str]:
    parts = list(path)
    if len(parts) >= 2 and parts[0] == "events" and isinstance(parts[1], int):
        rest = ".".join(str(p) for p in parts[2:])
        return parts[1], rest
    return None, ".".join(str(p) for p in parts)


# Fields holding protocol-clock seconds (events) or a camera's offset.
TIME_FIELDS = ("t", "t_end", "t_call_end", "t_call2", "t_thanks")


def without_times(doc: dict) -> dict:
    """A copy of a protocol document with every event time removed (an untimed record:
    the events keep their order and everything else)."""
    out = json.loads(json.dumps(doc))
    out["events"] = [{k: v for k, v in ev.items() if k not in TIME_FIELDS} for ev in out["events"]]
    return out


def limit_issues(doc: Any) -> list[Issue]:
    """Size and magnitude limits checked before the schema (and before any replay).

    A tree that passed `mafvar.limits.check_tree` is small; this adds what is
    specific to a protocol: how many events, and times within `max_seconds`.
    """
    try:
        check_tree(doc, what="")
    except InputLimitError as exc:
        return [error("limit", None, str(exc), "docs/protocol.md")]
    if not isinstance(doc, dict):
        return []
    events = doc.get("events")
    if isinstance(events, list) and len(events) > LIMITS.max_events:
        return [error("limit", None, f"protocol has {len(events):,} events, over the limit of "
                      f"{LIMITS.max_events:,}", "docs/protocol.md")]
    issues: list[Issue] = []
    for i, ev in enumerate(events if isinstance(events, list) else []):
        if not isinstance(ev, dict):
            continue
        for name in TIME_FIELDS:
            try:
                check_number(ev.get(name), -LIMITS.max_seconds,
                             LIMITS.max_seconds, f"event {i}, field '{name}'")
            except InputLimitError as exc:
                issues.append(error("limit", i, f"{exc} (seconds)", "docs/protocol.md"))
    for k, cam in enumerate(doc.get("cameras") if isinstance(doc.get("cameras"), list) else []):
        if isinstance(cam, dict):
            try:
                check_number(cam.get("offset"), -LIMITS.max_seconds, LIMITS.max_seconds,
                             f"cameras[{k}], field 'offset'")
            except InputLimitError as exc:
                issues.append(error("limit", None, f"{exc} (seconds)", "docs/protocol.md"))
    return issues


def schema_issues(doc: Any) -> list[Issue]:
    """Limit issues first (see `limit_issues`); else one `error` issue per schema
    violation, naming the event index and field."""
    issues: list[Issue] = limit_issues(doc)
    if issues:
        return issues
    seen: set[tuple] = set()
    errors = sorted(_schema_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    for err in errors:
        # an if/then failure repeats its inner errors; keep the innermost one per place
        leaf = err
        while leaf.context:
            leaf = sorted(leaf.context, key=lambda e: len(e.absolute_path))[-1]
        event, where = _field_path(leaf.absolute_path)
        key = (event, where, leaf.message)
        if key in seen:
            continue
        seen.add(key)
        etype = ""
        if event is not None and isinstance(doc, dict):
            try:
                etype = f" ({doc['events'][event].get('type')})"
            except (AttributeError, IndexError, KeyError, TypeError):
                etype = ""
        place = f"event {event}{etype}" if event is not None else "protocol"
        fld = f", field '{where}'" if where else ""
        issues.append(error("schema", event, f"{place}{fld}: {leaf.message}", "docs/protocol.md"))
    return issues


def parse_json(text: str) -> Any:
    """JSON text to a document; bad JSON raises ProtocolError with line and column.

    Size and magnitude limits (mafvar.limits) are checked while parsing, so an
    integer of thousands of digits or a lone surrogate is refused by name.
    """
    try:
        return parse_json_text(text, what="JSON text")
    except json.JSONDecodeError as exc:
        msg = f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        raise ProtocolError(msg) from None
    except InputLimitError as exc:
        raise ProtocolError(str(exc)) from None


def parse_protocol(text: str) -> Protocol:
    doc = parse_json(text)
    issues = schema_issues(doc)
    if issues:
        raise ProtocolError(f"{len(issues)} schema error(s); first: {issues[0].message}", issues)
    return Protocol.from_dict(doc)


def load_protocol(path: str | Path) -> Protocol:
    """Read, parse and schema-validate a protocol file. Raises ProtocolError."""
    return parse_protocol(read_protocol_text(path))


class _FileProblem(Exception):
    pass


def read_protocol_text(path: str | Path) -> str:
    """The text of a protocol file, refusing one over the size limit before reading it.

    Raises ProtocolError whose one issue has the code `file`.
    """
    try:
        return read_text(path, _FileProblem, what="protocol")
    except _FileProblem as exc:
        raise ProtocolError(str(exc), [error("file", None, str(exc))]) from None

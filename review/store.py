"""`review.db`: reviewers, decisions, vote verifications, appeals and the audit log.

A SQLite file in WAL mode, one per game folder. Every write is a single
`BEGIN IMMEDIATE` transaction that also appends its audit-log row, retried
while another process holds the write lock, so concurrent reviewers never
lose a write. Rows are never updated or deleted (triggers refuse it): a new
decision *supersedes* the previous one and the chain is the history.

A file at the path that is not a mafvar review database (another program's
SQLite file, a corrupt file, anything else) is refused and left byte-for-byte
untouched.
"""
from __future__ import annotations

import json
import os
import random
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, TypeVar

from review.incidents import parse_enum
from review.store_schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

T = TypeVar("T")

DEFAULT_APPEAL_DEADLINE_MINUTES = 15.0  # MC 4.20
SQLITE_HEADER = b"SQLite format 3\x00"


class ReviewStoreError(Exception):
    """review.db cannot be used; the message says why and what to do."""


class ReviewerRole(str, Enum):
    CHIEF_JUDGE = "chief_judge"
    SIDE_JUDGE = "side_judge"
    ORGANISER = "organiser"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ").capitalize()


class Verdict(str, Enum):
    CONFIRMED = "confirmed"
    REJECTED = "rejected"
    UNSURE = "unsure"


class VoteVerdict(str, Enum):
    VOTED = "voted"
    NOT_VOTED = "not_voted"
    WRONG_FORM = "wrong_form"
    LATE = "late"


class Ruling(str, Enum):
    UPHELD = "upheld"
    REJECTED = "rejected"
    REPLAY = "replay"
    RESULT_CHANGED = "result_changed"


OPEN = "open"  # an appeal's status before any ruling


# -- records ----------------------------------------------------------------------------

@dataclass(frozen=True)
class ReviewerRecord:
    name: str
    role: ReviewerRole
    created_at: datetime


@dataclass(frozen=True)
class Decision:
    id: int
    incident_id: str
    reviewer: str
    role: ReviewerRole
    verdict: Verdict
    note: str
    created_at: datetime
    supersedes: int | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "incident_id": self.incident_id, "reviewer": self.reviewer,
                "role": self.role.value, "verdict": self.verdict.value, "note": self.note,
                "created_at": self.created_at.isoformat(), "supersedes": self.supersedes}


@dataclass(frozen=True)
class VoteVerification:
    id: int
    round: int
    pass_: int
    candidate: int | None  # None: the "all leave?" raise vote
    voter_seat: int
    verdict: VoteVerdict
    reviewer: str
    role: ReviewerRole
    note: str
    created_at: datetime
    supersedes: int | None

    @property
    def cell(self) -> tuple[int, int, int | None, int]:
        return (self.round, self.pass_, self.candidate, self.voter_seat)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "round": self.round, "pass": self.pass_,
                "candidate": self.candidate, "voter_seat": self.voter_seat,
                "verdict": self.verdict.value, "reviewer": self.reviewer,
                "role": self.role.value, "note": self.note,
                "created_at": self.created_at.isoformat(), "supersedes": self.supersedes}


@dataclass(frozen=True)
class AppealRuling:
    id: int
    appeal_id: int
    reviewer: str
    role: ReviewerRole
    ruling: Ruling
    reasons: str
    created_at: datetime
    supersedes: int | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "appeal_id": self.appeal_id, "reviewer": self.reviewer,
                "role": self.role.value, "ruling": self.ruling.value, "reasons": self.reasons,
                "created_at": self.created_at.isoformat(), "supersedes": self.supersedes}


@dataclass(frozen=True)
class AppealRecord:
    id: int
    filed_by_seat: int
    grounds: str
    filed_at: datetime
    game_end_at: datetime | None
    deadline_minutes: float
    late: bool | None  # None when the game's end time is unknown
    recorded_by: str
    role: ReviewerRole
    created_at: datetime
    incident_ids: tuple[str, ...]
    rulings: tuple[AppealRuling, ...]  # oldest first; the last one stands

    @property
    def ruling(self) -> AppealRuling | None:
        return self.rulings[-1] if self.rulings else None

    @property
    def status(self) -> str:
        """"open", or the standing ruling: upheld | rejected | replay | result_changed."""
        return self.ruling.ruling.value if self.ruling else OPEN

    @property
    def minutes_after_end(self) -> float | None:
        if self.game_end_at is None:
            return None
        return (self.filed_at - self.game_end_at).total_seconds() / 60.0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "filed_by_seat": self.filed_by_seat, "grounds": self.grounds,
                "filed_at": self.filed_at.isoformat(),
                "game_end_at": self.game_end_at.isoformat() if self.game_end_at else None,
                "deadline_minutes": self.deadline_minutes, "late": self.late,
                "minutes_after_end": self.minutes_after_end,
                "recorded_by": self.recorded_by, "role": self.role.value,
                "created_at": self.created_at.isoformat(),
                "incident_ids": list(self.incident_ids), "status": self.status,
                "ruling": self.ruling.to_json() if self.ruling else None,
                "rulings": [r.to_json() for r in self.rulings]}


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: datetime
    actor: str
    role: str | None
    action: str
    payload: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "at": self.at.isoformat(), "actor": self.actor,
                "role": self.role, "action": self.action, "payload": self.payload}


# -- the store --------------------------------------------------------------------------

class ReviewStore:
    """Open with `ReviewStore.open(path)`; safe to share between threads of one process."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *,
                 appeal_deadline_minutes: float, write_timeout_s: float,
                 clock: Callable[[], datetime]) -> None:
        self._conn = conn
        self.path = path
        self.appeal_deadline_minutes = appeal_deadline_minutes
        self._write_timeout_s = write_timeout_s
        self._clock = clock
        self._lock = threading.RLock()

    @classmethod
    def open(cls, path: str | os.PathLike[str], *,
             appeal_deadline_minutes: float = DEFAULT_APPEAL_DEADLINE_MINUTES,
             busy_timeout_ms: int = 5000, write_timeout_s: float = 60.0,
             clock: Callable[[], datetime] | None = None) -> "ReviewStore":
        """Open (creating if absent) the review database at `path`.

        Raises ReviewStoreError, leaving the file untouched, if `path` holds
        anything other than a mafvar review database.
        """
        if appeal_deadline_minutes <= 0:
            raise ValueError("appeal_deadline_minutes must be positive")
        file = Path(path)
        _refuse_foreign_bytes(file)
        conn = _connect(file, busy_timeout_ms)
        try:
            _refuse_foreign_database(conn, file, write_timeout_s)
            _retry_busy(lambda: _enable_wal(conn, file), write_timeout_s)
            _retry_busy(lambda: _migrate(conn), write_timeout_s)
        except sqlite3.Error as exc:  # e.g. a read-only folder or a full disk
            conn.close()
            raise ReviewStoreError(f"cannot open review database {file}: {exc}") from None
        except BaseException:
            conn.close()
            raise
        return cls(conn, file, appeal_deadline_minutes=appeal_deadline_minutes,
                   write_timeout_s=write_timeout_s,
                   clock=clock or (lambda: datetime.now(timezone.utc)))

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "ReviewStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return self._read(lambda c: c.execute("PRAGMA user_version").fetchone()[0])

    # -- reviewers -------------------------------------------------------------------
    def add_reviewer(self, name: str, role: ReviewerRole | str) -> ReviewerRecord:
        """Register a reviewer in a role (idempotent: an existing pair is returned as is)."""
        name = _name(name)
        role = _enum(ReviewerRole, role, "role")

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[ReviewerRecord, None]:
            self._ensure_reviewer(conn, name, role, now)  # logs the registration itself
            row = conn.execute("SELECT created_at FROM reviewers WHERE name = ? AND role = ?",
                               (name, role.value)).fetchone()
            return ReviewerRecord(name, role, _dt(row[0])), None

        return self._write(name, role, "add_reviewer", body)

    def reviewers(self) -> list[ReviewerRecord]:
        rows = self._read(lambda c: c.execute(
            "SELECT name, role, created_at FROM reviewers ORDER BY id").fetchall())
        return [ReviewerRecord(r[0], ReviewerRole(r[1]), _dt(r[2])) for r in rows]

    # -- decisions -------------------------------------------------------------------
    def decide(self, incident_id: str, reviewer: str, role: ReviewerRole | str,
               verdict: Verdict | str, note: str = "") -> Decision:
        """Record a verdict on an incident; it supersedes the incident's current decision."""
        if not isinstance(incident_id, str) or not incident_id.strip():
            raise ValueError("incident_id must be a non-empty string")
        reviewer = _name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        verdict = _enum(Verdict, verdict, "verdict")
        note = _text(note)

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[Decision, dict]:
            self._ensure_reviewer(conn, reviewer, role, now)
            prev = conn.execute("SELECT max(id) FROM decisions WHERE incident_id = ?",
                                (incident_id,)).fetchone()[0]
            cur = conn.execute(
                "INSERT INTO decisions (incident_id, reviewer, role, verdict, note, created_at,"
                " supersedes) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (incident_id, reviewer, role.value, verdict.value, note, _iso(now), prev))
            decision = Decision(cur.lastrowid, incident_id, reviewer, role, verdict, note, now, prev)
            return decision, decision.to_json()

        return self._write(reviewer, role, "decide", body)

    def current_decision(self, incident_id: str) -> Decision | None:
        row = self._read(lambda c: c.execute(
            f"SELECT {_DECISION_COLS} FROM decisions WHERE incident_id = ?"
            " ORDER BY id DESC LIMIT 1", (incident_id,)).fetchone())
        return _decision(row) if row else None

    def decision_history(self, incident_id: str) -> list[Decision]:
        """All decisions on the incident, oldest first; the last one is current."""
        rows = self._read(lambda c: c.execute(
            f"SELECT {_DECISION_COLS} FROM decisions WHERE incident_id = ? ORDER BY id",
            (incident_id,)).fetchall())
        return [_decision(r) for r in rows]

    def current_decisions(self) -> dict[str, Decision]:
        """incident id -> its current decision, for every decided incident."""
        rows = self._read(lambda c: c.execute(
            f"SELECT {_DECISION_COLS} FROM decisions WHERE id IN"
            " (SELECT max(id) FROM decisions GROUP BY incident_id) ORDER BY id").fetchall())
        return {r[1]: _decision(r) for r in rows}

    def all_decisions(self) -> list[Decision]:
        rows = self._read(lambda c: c.execute(
            f"SELECT {_DECISION_COLS} FROM decisions ORDER BY id").fetchall())
        return [_decision(r) for r in rows]

    # -- vote verifications ----------------------------------------------------------
    def verify_vote(self, round: int, pass_: int, candidate: int | None, voter_seat: int,
                    verdict: VoteVerdict | str, reviewer: str, role: ReviewerRole | str,
                    note: str = "") -> VoteVerification:
        """A reviewer's reading of one cell of the vote grid (candidate None: raise vote)."""
        _int_in(round, 0, 1000, "round")
        _int_in(pass_, 1, 100, "pass")
        if candidate is not None:
            _int_in(candidate, 1, 10, "candidate")
        _int_in(voter_seat, 1, 10, "voter seat")
        verdict = _enum(VoteVerdict, verdict, "vote verdict")
        reviewer = _name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        note = _text(note)

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[VoteVerification, dict]:
            self._ensure_reviewer(conn, reviewer, role, now)
            prev = conn.execute(
                "SELECT max(id) FROM vote_verifications WHERE round = ? AND pass = ?"
                " AND candidate IS ? AND voter_seat = ?",
                (round, pass_, candidate, voter_seat)).fetchone()[0]
            cur = conn.execute(
                "INSERT INTO vote_verifications (round, pass, candidate, voter_seat, verdict,"
                " reviewer, role, note, created_at, supersedes)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (round, pass_, candidate, voter_seat, verdict.value, reviewer, role.value, note,
                 _iso(now), prev))
            record = VoteVerification(cur.lastrowid, round, pass_, candidate, voter_seat, verdict,
                                      reviewer, role, note, now, prev)
            return record, record.to_json()

        return self._write(reviewer, role, "verify_vote", body)

    def current_verifications(self) -> list[VoteVerification]:
        """The standing verification of every verified cell, in grid order."""
        rows = self._read(lambda c: c.execute(
            f"SELECT {_VERIFY_COLS} FROM vote_verifications WHERE id IN"
            " (SELECT max(id) FROM vote_verifications"
            "  GROUP BY round, pass, candidate, voter_seat)"
            " ORDER BY round, pass, candidate, voter_seat").fetchall())
        return [_verification(r) for r in rows]

    def verification_history(self, round: int, pass_: int, candidate: int | None,
                             voter_seat: int) -> list[VoteVerification]:
        rows = self._read(lambda c: c.execute(
            f"SELECT {_VERIFY_COLS} FROM vote_verifications WHERE round = ? AND pass = ?"
            " AND candidate IS ? AND voter_seat = ? ORDER BY id",
            (round, pass_, candidate, voter_seat)).fetchall())
        return [_verification(r) for r in rows]

    # -- appeals ---------------------------------------------------------------------
    def file_appeal(self, filed_by_seat: int, grounds: str, *, reviewer: str,
                    role: ReviewerRole | str, filed_at: datetime | None = None,
                    game_end_at: datetime | None = None,
                    incident_ids: Iterable[str] = (),
                    deadline_minutes: float | None = None) -> AppealRecord:
        """Record an appeal; `late` is computed against the deadline (MC 4.20: 15 min).

        `reviewer`/`role` is who records it (a player files through the
        judges). Naive datetimes are taken as local time.
        """
        _int_in(filed_by_seat, 1, 10, "seat")
        if not isinstance(grounds, str) or not grounds.strip():
            raise ValueError("an appeal needs its grounds")
        reviewer = _name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        deadline = self.appeal_deadline_minutes if deadline_minutes is None else float(deadline_minutes)
        if deadline <= 0:
            raise ValueError("deadline_minutes must be positive")
        ids = _incident_ids(incident_ids)

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[int, dict]:
            self._ensure_reviewer(conn, reviewer, role, now)
            filed = _utc(filed_at) if filed_at is not None else now
            end = _utc(game_end_at) if game_end_at is not None else None
            late = appeal_is_late(filed, end, deadline)
            cur = conn.execute(
                "INSERT INTO appeals (filed_by_seat, grounds, filed_at, game_end_at,"
                " deadline_minutes, late, recorded_by, role, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (filed_by_seat, grounds, _iso(filed), _iso(end) if end else None, deadline,
                 None if late is None else int(late), reviewer, role.value, _iso(now)))
            appeal_id = cur.lastrowid
            for incident in ids:
                conn.execute("INSERT INTO appeal_incidents VALUES (?, ?, ?, ?, ?)",
                             (appeal_id, incident, reviewer, role.value, _iso(now)))
            payload = {"appeal_id": appeal_id, "filed_by_seat": filed_by_seat,
                       "grounds": grounds, "filed_at": _iso(filed),
                       "game_end_at": _iso(end) if end else None,
                       "deadline_minutes": deadline, "late": late, "incident_ids": list(ids)}
            return appeal_id, payload

        appeal_id = self._write(reviewer, role, "file_appeal", body)
        return self.appeal(appeal_id)

    def attach_incidents(self, appeal_id: int, incident_ids: Iterable[str], *,
                         reviewer: str, role: ReviewerRole | str) -> AppealRecord:
        """Attach more incidents to an appeal (already attached ones are skipped)."""
        reviewer = _name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        ids = _incident_ids(incident_ids)

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[list[str], dict | None]:
            self._require_appeal(conn, appeal_id)
            have = {r[0] for r in conn.execute(
                "SELECT incident_id FROM appeal_incidents WHERE appeal_id = ?", (appeal_id,))}
            new = [i for i in ids if i not in have]
            if not new:
                return new, None
            self._ensure_reviewer(conn, reviewer, role, now)
            for incident in new:
                conn.execute("INSERT INTO appeal_incidents VALUES (?, ?, ?, ?, ?)",
                             (appeal_id, incident, reviewer, role.value, _iso(now)))
            return new, {"appeal_id": appeal_id, "incident_ids": new}

        self._write(reviewer, role, "attach_incidents", body)
        return self.appeal(appeal_id)

    def rule_appeal(self, appeal_id: int, reviewer: str, role: ReviewerRole | str,
                    ruling: Ruling | str, reasons: str) -> AppealRuling:
        """The chief judge's ruling; a later ruling supersedes an earlier one.

        Raises PermissionError for any other role.
        """
        reviewer = _name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        ruling = _enum(Ruling, ruling, "ruling")
        if role is not ReviewerRole.CHIEF_JUDGE:
            raise PermissionError(
                f"only the chief judge may rule on an appeal; {reviewer} is acting as "
                f"{role.value.replace('_', ' ')}")
        if not isinstance(reasons, str) or not reasons.strip():
            raise ValueError("a ruling needs its reasons")

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[AppealRuling, dict]:
            self._require_appeal(conn, appeal_id)
            self._ensure_reviewer(conn, reviewer, role, now)
            prev = conn.execute("SELECT max(id) FROM appeal_rulings WHERE appeal_id = ?",
                                (appeal_id,)).fetchone()[0]
            cur = conn.execute(
                "INSERT INTO appeal_rulings (appeal_id, reviewer, role, ruling, reasons,"
                " created_at, supersedes) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (appeal_id, reviewer, role.value, ruling.value, reasons, _iso(now), prev))
            record = AppealRuling(cur.lastrowid, appeal_id, reviewer, role, ruling, reasons,
                                  now, prev)
            return record, record.to_json()

        return self._write(reviewer, role, "rule_appeal", body)

    def appeal(self, appeal_id: int) -> AppealRecord:
        appeals = self._read(lambda c: _load_appeals(c, appeal_id))
        if not appeals:
            raise LookupError(f"no appeal {appeal_id} in {self.path}")
        return appeals[0]

    def appeals(self) -> list[AppealRecord]:
        return self._read(lambda c: _load_appeals(c, None))

    # -- audit -----------------------------------------------------------------------
    def audit_log(self, action: str | None = None) -> list[AuditEntry]:
        sql = "SELECT id, at, actor, role, action, payload FROM audit_log"
        args: tuple[Any, ...] = ()
        if action is not None:
            sql += " WHERE action = ?"
            args = (action,)
        rows = self._read(lambda c: c.execute(sql + " ORDER BY id", args).fetchall())
        return [AuditEntry(r[0], _dt(r[1]), r[2], r[3], r[4], json.loads(r[5])) for r in rows]

    # -- internals -------------------------------------------------------------------
    def _ensure_reviewer(self, conn: sqlite3.Connection, name: str, role: ReviewerRole,
                         now: datetime) -> bool:
        """Register (name, role) on first use; True if it was new (logged with the write)."""
        if conn.execute("SELECT 1 FROM reviewers WHERE name = ? AND role = ?",
                        (name, role.value)).fetchone():
            return False
        conn.execute("INSERT INTO reviewers (name, role, created_at) VALUES (?, ?, ?)",
                     (name, role.value, _iso(now)))
        self._audit(conn, now, name, role, "add_reviewer", {"name": name, "role": role.value})
        return True

    @staticmethod
    def _require_appeal(conn: sqlite3.Connection, appeal_id: int) -> None:
        if conn.execute("SELECT 1 FROM appeals WHERE id = ?", (appeal_id,)).fetchone() is None:
            raise LookupError(f"no appeal {appeal_id}")

    @staticmethod
    def _audit(conn: sqlite3.Connection, now: datetime, actor: str, role: ReviewerRole | None,
               action: str, payload: Mapping[str, Any]) -> None:
        conn.execute("INSERT INTO audit_log (at, actor, role, action, payload)"
                     " VALUES (?, ?, ?, ?, ?)",
                     (_iso(now), actor, role.value if role else None, action,
                      json.dumps(payload, ensure_ascii=False, sort_keys=True)))

    def _write(self, actor: str, role: ReviewerRole, action: str,
               body: Callable[[sqlite3.Connection, datetime],
                              tuple[T, Mapping[str, Any] | None]]) -> T:
        """Run `body` in one BEGIN IMMEDIATE transaction together with its audit row.

        `body` returns (result, audit payload); a None payload means it wrote
        nothing worth logging (an idempotent no-op).
        """
        def attempt() -> T:
            with self._lock:
                conn = self._conn
                conn.execute("BEGIN IMMEDIATE")
                try:
                    now = self._clock()
                    result, payload = body(conn, now)
                    if payload is not None:
                        self._audit(conn, now, actor, role, action, payload)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                return result

        try:
            return _retry_busy(attempt, self._write_timeout_s)
        except sqlite3.IntegrityError as exc:
            raise ReviewStoreError(f"{self.path}: write refused: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise ReviewStoreError(f"{self.path}: write failed: {exc}") from None

    def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        def attempt() -> T:
            with self._lock:
                conn = self._conn
                conn.execute("BEGIN")  # one snapshot for multi-statement reads
                try:
                    return fn(conn)
                finally:
                    if conn.in_transaction:
                        conn.execute("COMMIT")

        try:
            return _retry_busy(attempt, self._write_timeout_s)
        except sqlite3.DatabaseError as exc:
            raise ReviewStoreError(f"{self.path}: read failed: {exc}") from None


def appeal_is_late(filed_at: datetime, game_end_at: datetime | None,
                   deadline_minutes: float = DEFAULT_APPEAL_DEADLINE_MINUTES) -> bool | None:
    """True if filed more than `deadline_minutes` after the end; None if the end is unknown.

    "Within 15 minutes" (MC 4.20): filing at exactly the deadline is on time.
    """
    if game_end_at is None:
        return None
    return (_utc(filed_at) - _utc(game_end_at)).total_seconds() > deadline_minutes * 60.0


# -- opening: refuse anything that is not ours ---------------------------------------------

def _refuse_foreign_bytes(file: Path) -> None:
    if file.is_dir():
        raise ReviewStoreError(f"{file} is a folder, not a review database")
    if not file.parent.is_dir():
        raise ReviewStoreError(f"folder not found for the review database: {file.parent}")
    try:
        size = file.stat().st_size
    except FileNotFoundError:
        return  # a new database
    if size == 0:
        return  # SQLite treats an empty file as an empty database
    with open(file, "rb") as handle:
        head = handle.read(len(SQLITE_HEADER))
    if head != SQLITE_HEADER:
        raise ReviewStoreError(
            f"{file} is not a mafvar review database (not an SQLite file); it was left "
            "untouched: move it away to start a new one")


def _connect(file: Path, busy_timeout_ms: int) -> sqlite3.Connection:
    try:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves.
        conn = sqlite3.connect(str(file), timeout=busy_timeout_ms / 1000.0,
                               isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise ReviewStoreError(f"cannot open review database {file}: {exc}") from None
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    return conn


def _refuse_foreign_database(conn: sqlite3.Connection, file: Path, timeout_s: float) -> None:
    """Read-only checks; nothing is written before the file is known to be ours."""
    def identify() -> tuple[int, int, int, list[str]]:
        return (conn.execute("PRAGMA application_id").fetchone()[0],
                conn.execute("PRAGMA user_version").fetchone()[0],
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0],
                [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()])

    try:
        # Another process creating or migrating the file holds a lock: wait, not "corrupt".
        app_id, version, objects, check = _retry_busy(identify, timeout_s)
    except ReviewStoreError:
        raise
    except sqlite3.DatabaseError as exc:
        raise ReviewStoreError(
            f"{file} is corrupt or not a review database ({exc}); it was left untouched: "
            "move it away (keep a copy) to start a new one") from None
    if check != ["ok"]:
        raise ReviewStoreError(
            f"{file} is corrupt ({'; '.join(check[:3])}); it was left untouched: keep a copy "
            "and move it away to start a new one")
    if app_id == APPLICATION_ID:
        if version > SCHEMA_VERSION:
            raise ReviewStoreError(
                f"{file} was written by a newer mafvar (schema {version}; this version reads up "
                f"to {SCHEMA_VERSION}): upgrade mafvar")
        return
    if app_id == 0 and version == 0 and objects == 0:
        return  # an empty SQLite database: adopt it
    raise ReviewStoreError(
        f"{file} is another program's SQLite database, not a mafvar review database; "
        "it was left untouched: move it away to start a new one")


def _enable_wal(conn: sqlite3.Connection, file: Path) -> None:
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise ReviewStoreError(f"{file}: cannot switch to WAL mode (got {mode!r})")
    conn.execute("PRAGMA synchronous = FULL")  # a recorded decision survives power loss
    conn.execute("PRAGMA foreign_keys = ON")
    # Belt and braces with the *_no_replace triggers: REPLACE's implicit delete
    # also hits the append-only delete triggers on our own connections.
    conn.execute("PRAGMA recursive_triggers = ON")


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # re-read under the lock
        for target in range(version + 1, SCHEMA_VERSION + 1):
            for statement in _statements(MIGRATIONS[target - 1]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {target}")
        if version == 0:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _statements(script: str) -> list[str]:
    """Split a migration into statements (executescript would commit our transaction)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        raise ValueError(f"incomplete SQL statement in migration: {buf[:60]!r}")
    return out


def _retry_busy(fn: Callable[[], T], timeout_s: float) -> T:
    """Call fn, retrying with jittered backoff while SQLite reports BUSY or LOCKED."""
    deadline = time.monotonic() + timeout_s
    delay = 0.005
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or time.monotonic() >= deadline:
                if _is_busy(exc):
                    raise ReviewStoreError(
                        f"review database stayed locked for {timeout_s:.0f} s: {exc}") from None
                raise
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, 0.25)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(exc).lower()
    return "locked" in text or "busy" in text


# -- row mapping and validation ---------------------------------------------------------

_DECISION_COLS = "id, incident_id, reviewer, role, verdict, note, created_at, supersedes"
_VERIFY_COLS = ("id, round, pass, candidate, voter_seat, verdict, reviewer, role, note,"
                " created_at, supersedes")


def _decision(r: tuple) -> Decision:
    return Decision(r[0], r[1], r[2], ReviewerRole(r[3]), Verdict(r[4]), r[5], _dt(r[6]), r[7])


def _verification(r: tuple) -> VoteVerification:
    return VoteVerification(r[0], r[1], r[2], r[3], r[4], VoteVerdict(r[5]), r[6], ReviewerRole(r[7]),
                            r[8], _dt(r[9]), r[10])


def _load_appeals(conn: sqlite3.Connection, appeal_id: int | None) -> list[AppealRecord]:
    where, args = ("WHERE id = ?", (appeal_id,)) if appeal_id is not None else ("", ())
    rows = conn.execute(
        "SELECT id, filed_by_seat, grounds, filed_at, game_end_at, deadline_minutes, late,"
        f" recorded_by, role, created_at FROM appeals {where} ORDER BY id", args).fetchall()
    out = []
    for r in rows:
        ids = tuple(i[0] for i in conn.execute(
            "SELECT incident_id FROM appeal_incidents WHERE appeal_id = ? ORDER BY rowid",
            (r[0],)))
        rulings = tuple(
            AppealRuling(x[0], x[1], x[2], ReviewerRole(x[3]), Ruling(x[4]), x[5], _dt(x[6]), x[7])
            for x in conn.execute(
                "SELECT id, appeal_id, reviewer, role, ruling, reasons, created_at, supersedes"
                " FROM appeal_rulings WHERE appeal_id = ? ORDER BY id", (r[0],)))
        out.append(AppealRecord(r[0], r[1], r[2], _dt(r[3]), _dt(r[4]) if r[4] else None, r[5],
                          None if r[6] is None else bool(r[6]), r[7], ReviewerRole(r[8]), _dt(r[9]),
                          ids, rulings))
    return out


_enum = parse_enum  # raises ValueError naming the allowed values


def _name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a reviewer needs a name")
    return name.strip()


def _text(note: Any) -> str:
    if note is None:
        return ""
    if not isinstance(note, str):
        raise ValueError("a note must be text")
    return note


def _int_in(value: Any, low: int, high: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} must be an integer {low}..{high}, got {value!r}")


def _incident_ids(ids: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for i in ids:
        if not isinstance(i, str) or not i.strip():
            raise ValueError(f"bad incident id {i!r}")
        if i not in out:
            out.append(i)
    return tuple(out)


def _utc(dt: datetime) -> datetime:
    return dt.astimezone(timezone.utc)  # naive values are read as local time


def _iso(dt: datetime) -> str:
    return _utc(dt).isoformat(timespec="microseconds")


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)

"""`review.db`: reviewers, decisions, vote verifications, appeals and the audit log.

A SQLite file in WAL mode, one per game folder. Every write is a single
`BEGIN IMMEDIATE` transaction that also appends its audit-log row, retried
while another process holds the write lock, so concurrent reviewers never
lose a write. Rows are never updated or deleted (triggers refuse it): a new
decision *supersedes* the previous one and the chain is the history.

A file at the path that is not a mafvar review database (another program's
SQLite file, a corrupt file, anything else) is refused and left byte-for-byte
untouched. A mafvar database that fails its integrity check (see
`review.store_integrity`: quick_check, schema and triggers, the audit log's
hash chain, every data row against the audit row that wrote it, the backup)
is refused too: nothing is written to it, and the message says how to restore
the automatic backup (`review.db.backup`, refreshed whenever the store is
opened and found intact).

Every write is authorised here, not only in the app: the role may do the act
(`review.roles`), the role's passphrase matches when the folder has a roles
file (`review.rolebook`), the name holds no other role in the tournament
unless the organiser granted it, a decision names an incident of the game,
and names and notes are normalised and bounded (`review.user_text`).
"""
from __future__ import annotations

import json
import os
import random
import sqlite3
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

from review import store_integrity as integrity
from review.incidents import parse_enum
from review.rolebook import (PASSPHRASE, PRACTICE, RoleBook, RoleBookError, authenticate,
                             find_rolebook)
from review.roles import Action, ReviewerRole, require_permission
from review.store_schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from review.user_text import clean_incident_id, clean_name, clean_note, name_key

T = TypeVar("T")

DEFAULT_APPEAL_DEADLINE_MINUTES = 15.0  # MC 4.20
SQLITE_HEADER = b"SQLite format 3\x00"


class ReviewStoreError(Exception):
    """review.db cannot be used; the message says why and what to do."""


class StoreIntegrityError(ReviewStoreError):
    """review.db is a mafvar store that fails its integrity check; `report` has the details."""

    def __init__(self, report: "integrity.IntegrityReport"):
        self.report = report
        super().__init__(f"{report.summary()}. Nothing will be written to it; "
                         f"{report.restore_hint()}")


class Verdict(str, Enum):
    CONFIRMED = "confirmed"
    REJECTED = "rejected"
    UNSURE = "unsure"


class VoteVerdict(str, Enum):
    VOTED = "voted"
    NOT_VOTED = "not_voted"
    WRONG_FORM = "wrong_form"
    LATE = "late"


class FrameQuestion(str, Enum):
    """What a judge is asked about one seat in one frame (review.lessons)."""
    MASK = "mask"      # mask on or off?
    FIST = "fist"      # a vote fist standing in the table zone, or not?


class FrameAnswerValue(str, Enum):
    MASK_ON = "mask_on"
    MASK_OFF = "mask_off"
    FIST = "fist"
    NO_FIST = "no_fist"
    CANNOT_TELL = "cannot_tell"


ANSWERS_TO: dict[FrameQuestion, tuple[FrameAnswerValue, ...]] = {
    FrameQuestion.MASK: (FrameAnswerValue.MASK_ON, FrameAnswerValue.MASK_OFF, FrameAnswerValue.CANNOT_TELL),
    FrameQuestion.FIST: (FrameAnswerValue.FIST, FrameAnswerValue.NO_FIST, FrameAnswerValue.CANNOT_TELL),
}


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
class FrameAnswer:
    """A judge's answer about one seat at one video time (seconds, to the millisecond)."""
    id: int
    t: float
    seat: int
    question: FrameQuestion
    answer: FrameAnswerValue
    reviewer: str
    role: ReviewerRole
    note: str
    created_at: datetime
    supersedes: int | None

    @property
    def frame(self) -> tuple[float, int, str]:
        return (self.t, self.seat, self.question.value)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "t": self.t, "seat": self.seat, "question": self.question.value,
                "answer": self.answer.value, "reviewer": self.reviewer, "role": self.role.value,
                "note": self.note, "created_at": self.created_at.isoformat(),
                "supersedes": self.supersedes}


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
    auth: str | None = None  # "practice", "passphrase", or None (mafvar itself; older rows)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "at": self.at.isoformat(), "actor": self.actor,
                "role": self.role, "action": self.action, "payload": self.payload,
                "auth": self.auth}


# -- the store --------------------------------------------------------------------------

class ReviewStore:
    """Open with `ReviewStore.open(path)`; safe to share between threads of one process."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *,
                 appeal_deadline_minutes: float, write_timeout_s: float,
                 clock: Callable[[], datetime], report: "integrity.IntegrityReport",
                 backup: bool = True) -> None:
        self._conn = conn
        self.path = path
        self.game_dir = path.parent
        self.appeal_deadline_minutes = appeal_deadline_minutes
        self._write_timeout_s = write_timeout_s
        self._clock = clock
        self._lock = threading.RLock()
        self._pending: list[tuple[str, ReviewerRole | None, str, Mapping[str, Any]]] | None = None
        self._auth_cache: set[tuple[str, str, str, str]] = set()
        self._wrote = False
        self._backup = backup
        self.integrity = report  # what the check at open found (ok)

    @classmethod
    def open(cls, path: str | os.PathLike[str], *,
             appeal_deadline_minutes: float = DEFAULT_APPEAL_DEADLINE_MINUTES,
             busy_timeout_ms: int = 5000, write_timeout_s: float = 60.0,
             clock: Callable[[], datetime] | None = None, backup: bool = True) -> "ReviewStore":
        """Open (creating if absent) the review database at `path`.

        Raises ReviewStoreError, leaving the file untouched, if `path` holds
        anything other than a mafvar review database, and StoreIntegrityError
        if it is one that fails its integrity check. An older schema is
        migrated in place (a copy of the file as it was is kept first).
        When the store is intact and has new rows since the last backup,
        `review.db.backup` is refreshed (`backup=False` skips that).
        """
        if appeal_deadline_minutes <= 0:
            raise ValueError("appeal_deadline_minutes must be positive")
        file = Path(path)
        _refuse_foreign_bytes(file)
        conn = _connect(file, busy_timeout_ms)
        clock = clock or (lambda: datetime.now(timezone.utc))
        try:
            version = _refuse_foreign_database(conn, file, write_timeout_s)
            if 0 < version < SCHEMA_VERSION:
                _keep_pre_migration_copy(conn, file, version)
            _retry_busy(lambda: _enable_wal(conn, file), write_timeout_s)
            _retry_busy(lambda: _migrate(conn, clock), write_timeout_s)
            state, backup_rows = integrity.read_backup(file)
            report = _retry_busy(lambda: _verify(conn, file, backup_rows), write_timeout_s)
            report.backup = state
            if not report.ok:
                raise StoreIntegrityError(report)
            if backup and report.audit_rows and report.audit_rows > (
                    state.audit_rows if state.ok else -1):
                try:
                    integrity.take_backup(conn, file)
                except (OSError, sqlite3.Error) as exc:  # a read-only folder: keep working
                    report.warnings.append(f"could not refresh {state.path.name}: {exc}")
        except sqlite3.Error as exc:  # e.g. a read-only folder or a full disk
            conn.close()
            raise ReviewStoreError(f"cannot open review database {file}: {exc}") from None
        except BaseException:
            conn.close()
            raise
        return cls(conn, file, appeal_deadline_minutes=appeal_deadline_minutes,
                   write_timeout_s=write_timeout_s, clock=clock, report=report, backup=backup)

    def close(self) -> None:
        """Close; after writes, refresh the backup if the store still verifies (a safe point)."""
        with self._lock:
            try:
                if self._wrote and self._backup:
                    self.backup_now()
            finally:
                self._conn.close()

    def backup_now(self) -> bool:
        """Verify, then copy the store to `review.db.backup` if it is intact and ahead of
        the backup. False (nothing copied) if it fails the check or cannot be copied."""
        with self._lock:
            try:
                report = self.verify()
                if not report.ok:
                    return False
                if report.backup is not None and report.backup.ok and \
                        report.backup.audit_rows >= report.audit_rows:
                    return True
                integrity.take_backup(self._conn, self.path)
                return True
            except (OSError, sqlite3.Error):
                return False

    def __enter__(self) -> "ReviewStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return self._read(lambda c: c.execute("PRAGMA user_version").fetchone()[0])

    # -- identity ----------------------------------------------------------------------
    def rolebook(self) -> RoleBook | None:
        """The roles file governing this game, read afresh (None: open practice mode)."""
        return _rolebook(self.game_dir)

    def sign_in(self, name: str, role: ReviewerRole | str, passphrase: str | None = None) -> str:
        """Check that `name` may act as `role` here, writing nothing; returns how
        (PRACTICE or PASSPHRASE). PermissionError / ValueError say why not."""
        name = clean_name(name)
        role = _enum(ReviewerRole, role, "role")
        auth = self._authenticate(role, passphrase)
        _check_tournament_roles(self.game_dir, name, role, self.rolebook(), self.path)
        self._read(lambda c: _check_roles_here(c, name, role, self.rolebook()))
        self._read(lambda c: _refuse_downgrade(c, auth, self.game_dir))
        return auth

    # -- reviewers -------------------------------------------------------------------
    def add_reviewer(self, name: str, role: ReviewerRole | str, *,
                     passphrase: str | None = None) -> ReviewerRecord:
        """Register a reviewer in a role (idempotent: an existing pair is returned as is)."""
        name = clean_name(name)
        role = _enum(ReviewerRole, role, "role")

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[ReviewerRecord, None]:
            self._ensure_reviewer(conn, name, role, now)  # logs the registration itself
            row = conn.execute("SELECT created_at FROM reviewers WHERE name = ? AND role = ?",
                               (name, role.value)).fetchone()
            return ReviewerRecord(name, role, _dt(row[0])), None

        return self._write(name, role, "add_reviewer", body, None, passphrase)

    def reviewers(self) -> list[ReviewerRecord]:
        rows = self._read(lambda c: c.execute(
            "SELECT name, role, created_at FROM reviewers ORDER BY id").fetchall())
        return [ReviewerRecord(r[0], ReviewerRole(r[1]), _dt(r[2])) for r in rows]

    # -- decisions -------------------------------------------------------------------
    def decide(self, incident_id: str, reviewer: str, role: ReviewerRole | str,
               verdict: Verdict | str, note: str = "", *,
               passphrase: str | None = None) -> Decision:
        """Record a verdict on an incident of this game (one in analysis/incidents.json);
        it supersedes the incident's current decision."""
        incident_id = clean_incident_id(incident_id)
        reviewer = clean_name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        verdict = _enum(Verdict, verdict, "verdict")
        note = clean_note(note)

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

        return self._write(reviewer, role, "decide", body, Action.DECIDE, passphrase,
                           incidents=(incident_id,))

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
                    note: str = "", *, passphrase: str | None = None) -> VoteVerification:
        """A reviewer's reading of one cell of the vote grid (candidate None: raise vote).
        Judges only: an organiser may not verify votes (docs/app.md)."""
        _int_in(round, 0, 1000, "round")
        _int_in(pass_, 1, 100, "pass")
        if candidate is not None:
            _int_in(candidate, 1, 10, "candidate")
        _int_in(voter_seat, 1, 10, "voter seat")
        verdict = _enum(VoteVerdict, verdict, "vote verdict")
        reviewer = clean_name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        note = clean_note(note)

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[VoteVerification, dict]:
            self._ensure_reviewer(conn, reviewer, role, now)
            rowid, prev = _chain_insert(
                conn, "vote_verifications",
                {"round": round, "pass": pass_, "candidate": candidate, "voter_seat": voter_seat},
                {"verdict": verdict.value, "reviewer": reviewer, "role": role.value, "note": note,
                 "created_at": _iso(now)})
            record = VoteVerification(rowid, round, pass_, candidate, voter_seat, verdict,
                                      reviewer, role, note, now, prev)
            return record, record.to_json()

        return self._write(reviewer, role, "verify_vote", body, Action.VERIFY_VOTE, passphrase)

    def current_verifications(self) -> list[VoteVerification]:
        """The standing verification of every verified cell, in grid order."""
        rows = self._read(lambda c: _standing_rows(c, "vote_verifications", _VERIFY_COLS,
                                                   ("round", "pass", "candidate", "voter_seat")))
        return [_verification(r) for r in rows]

    def verification_history(self, round: int, pass_: int, candidate: int | None,
                             voter_seat: int) -> list[VoteVerification]:
        rows = self._read(lambda c: _chain_rows(c, "vote_verifications", _VERIFY_COLS, {
            "round": round, "pass": pass_, "candidate": candidate, "voter_seat": voter_seat}))
        return [_verification(r) for r in rows]

    # -- frame answers (mafvar learn) -------------------------------------------------
    def answer_frame(self, t: float, seat: int, question: FrameQuestion | str,
                     answer: FrameAnswerValue | str, reviewer: str, role: ReviewerRole | str,
                     note: str = "", *, passphrase: str | None = None) -> FrameAnswer:
        """A judge's one-click answer about seat `seat` at video time `t` ("mask on or
        off?", "a fist or not?"); it supersedes an earlier answer about the same frame,
        seat and question. Judges only (an organiser does not read the footage for
        the record)."""
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= float(t) < 1e6:
            raise ValueError(f"t must be video seconds 0..1e6, got {t!r}")
        t = round(float(t), 3)
        _int_in(seat, 1, 10, "seat")
        question = _enum(FrameQuestion, question, "question")
        answer = _enum(FrameAnswerValue, answer, "answer")
        if answer not in ANSWERS_TO[question]:
            raise ValueError(f"answer {answer.value!r} does not answer the {question.value} question "
                             f"(one of {', '.join(a.value for a in ANSWERS_TO[question])})")
        reviewer = clean_name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        note = clean_note(note)

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[FrameAnswer, dict]:
            self._ensure_reviewer(conn, reviewer, role, now)
            rowid, prev = _chain_insert(
                conn, "frame_answers", {"t": t, "seat": seat, "question": question.value},
                {"answer": answer.value, "reviewer": reviewer, "role": role.value, "note": note,
                 "created_at": _iso(now)})
            record = FrameAnswer(rowid, t, seat, question, answer, reviewer, role, note, now, prev)
            return record, record.to_json()

        return self._write(reviewer, role, "answer_frame", body, Action.ANSWER_FRAME, passphrase)

    def current_frame_answers(self) -> list[FrameAnswer]:
        """The standing answer about every frame, seat and question asked, in time order."""
        rows = self._read(lambda c: _standing_rows(c, "frame_answers", _ANSWER_COLS, ("t", "seat", "question")))
        return [_frame_answer(r) for r in rows]

    def frame_answer_history(self, t: float, seat: int, question: FrameQuestion | str) -> list[FrameAnswer]:
        question = _enum(FrameQuestion, question, "question")
        key = {"t": round(float(t), 3), "seat": seat, "question": question.value}
        rows = self._read(lambda c: _chain_rows(c, "frame_answers", _ANSWER_COLS, key))
        return [_frame_answer(r) for r in rows]

    # -- appeals ---------------------------------------------------------------------
    def file_appeal(self, filed_by_seat: int, grounds: str, *, reviewer: str,
                    role: ReviewerRole | str, filed_at: datetime | None = None,
                    game_end_at: datetime | None = None,
                    incident_ids: Iterable[str] = (),
                    deadline_minutes: float | None = None,
                    passphrase: str | None = None) -> AppealRecord:
        """Record an appeal; `late` is computed against the deadline (MC 4.20: 15 min).

        `reviewer`/`role` is who records it (a player files through the
        judges). Naive datetimes are taken as local time. Attached incidents
        must be incidents of this game.
        """
        _int_in(filed_by_seat, 1, 10, "seat")
        grounds = clean_note(grounds, "an appeal's grounds", required=True)
        reviewer = clean_name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        deadline = self.appeal_deadline_minutes if deadline_minutes is None else float(deadline_minutes)
        if not 0 < deadline < 24 * 60:
            raise ValueError("deadline_minutes must be positive and under a day")
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

        appeal_id = self._write(reviewer, role, "file_appeal", body, Action.FILE_APPEAL,
                                passphrase, incidents=ids)
        return self.appeal(appeal_id)

    def attach_incidents(self, appeal_id: int, incident_ids: Iterable[str], *,
                         reviewer: str, role: ReviewerRole | str,
                         passphrase: str | None = None) -> AppealRecord:
        """Attach more incidents to an appeal (already attached ones are skipped)."""
        reviewer = clean_name(reviewer)
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

        self._write(reviewer, role, "attach_incidents", body, Action.ATTACH_INCIDENTS,
                    passphrase, incidents=ids)
        return self.appeal(appeal_id)

    def rule_appeal(self, appeal_id: int, reviewer: str, role: ReviewerRole | str,
                    ruling: Ruling | str, reasons: str, *,
                    passphrase: str | None = None) -> AppealRuling:
        """The chief judge's ruling; a later ruling supersedes an earlier one.

        Raises PermissionError for any other role, and for the chief judge's
        role without its passphrase when the folder has a roles file.
        """
        reviewer = clean_name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        ruling = _enum(Ruling, ruling, "ruling")
        require_permission(role, Action.RULE_APPEAL, reviewer)
        if not isinstance(reasons, str) or not reasons.strip():
            raise ValueError("a ruling needs its reasons")
        reasons = clean_note(reasons, "a ruling's reasons", required=True)

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

        return self._write(reviewer, role, "rule_appeal", body, Action.RULE_APPEAL, passphrase)

    def appeal(self, appeal_id: int) -> AppealRecord:
        appeals = self._read(lambda c: _load_appeals(c, appeal_id))
        if not appeals:
            raise LookupError(f"no appeal {appeal_id} in {self.path}")
        return appeals[0]

    def appeals(self) -> list[AppealRecord]:
        return self._read(lambda c: _load_appeals(c, None))

    # -- exports ---------------------------------------------------------------------
    def record_export(self, reviewer: str, role: ReviewerRole | str, what: str, *,
                      passphrase: str | None = None) -> None:
        """Authorise and log an export (a report written for others): chief judge or
        organiser only. Call it before writing the export."""
        reviewer = clean_name(reviewer)
        role = _enum(ReviewerRole, role, "role")
        what = clean_note(what, "what is exported", required=True)

        def body(conn: sqlite3.Connection, now: datetime) -> tuple[None, dict]:
            self._ensure_reviewer(conn, reviewer, role, now)
            return None, {"what": what}

        self._write(reviewer, role, "export", body, Action.EXPORT, passphrase)

    # -- audit -----------------------------------------------------------------------
    def audit_log(self, action: str | None = None) -> list[AuditEntry]:
        sql = "SELECT id, at, actor, role, action, payload, auth FROM audit_log"
        args: tuple[Any, ...] = ()
        if action is not None:
            sql += " WHERE action = ?"
            args = (action,)
        rows = self._read(lambda c: c.execute(sql + " ORDER BY id", args).fetchall())
        return [AuditEntry(r[0], _dt(r[1]), r[2], r[3], r[4], json.loads(r[5]), r[6])
                for r in rows]

    def verify(self) -> "integrity.IntegrityReport":
        """The integrity check of `mafvar store verify`, on this open store."""
        state, backup_rows = integrity.read_backup(self.path)
        with self._lock:
            report = _verify(self._conn, self.path, backup_rows)
        report.backup = state
        return report

    # -- internals -------------------------------------------------------------------
    def _ensure_reviewer(self, conn: sqlite3.Connection, name: str, role: ReviewerRole,
                         now: datetime) -> bool:
        """Register (name, role) on first use; True if it was new (logged with the write)."""
        if conn.execute("SELECT 1 FROM reviewers WHERE name = ? AND role = ?",
                        (name, role.value)).fetchone():
            return False
        conn.execute("INSERT INTO reviewers (name, role, created_at) VALUES (?, ?, ?)",
                     (name, role.value, _iso(now)))
        self._audit(name, role, "add_reviewer", {"name": name, "role": role.value})
        return True

    @staticmethod
    def _require_appeal(conn: sqlite3.Connection, appeal_id: int) -> None:
        if isinstance(appeal_id, bool) or not isinstance(appeal_id, int):
            raise LookupError(f"no appeal {appeal_id!r}")
        if conn.execute("SELECT 1 FROM appeals WHERE id = ?", (appeal_id,)).fetchone() is None:
            raise LookupError(f"no appeal {appeal_id}")

    def _audit(self, actor: str, role: ReviewerRole | None, action: str,
               payload: Mapping[str, Any]) -> None:
        """Queue an audit row; `_write` appends the queue, chained, before it commits."""
        assert self._pending is not None, "audit rows are written inside _write only"
        self._pending.append((actor, role, action, payload))

    def _authenticate(self, role: ReviewerRole, passphrase: str | None) -> str:
        book = self.rolebook()
        if book is None or not book.protected or not passphrase:
            return authenticate(book, role, passphrase)
        rec = book.passphrases.get(role) or {}
        key = (str(book.path), role.value, str(rec.get("hash")),
               integrity.hashlib.sha256(passphrase.encode("utf-8", "surrogatepass")).hexdigest())
        if key in self._auth_cache:  # the slow KDF once per store and passphrase
            return PASSPHRASE
        auth = authenticate(book, role, passphrase)
        self._auth_cache.add(key)
        return auth

    def _write(self, actor: str, role: ReviewerRole, action: str,
               body: Callable[[sqlite3.Connection, datetime],
                              tuple[T, Mapping[str, Any] | None]],
               permission: Action | None, passphrase: str | None, *,
               incidents: Iterable[str] = ()) -> T:
        """Authorise, then run `body` in one BEGIN IMMEDIATE transaction together with its
        audit rows (chained, the last one carrying the digests of the rows written).

        `body` returns (result, audit payload); a None payload means it wrote
        nothing worth logging (an idempotent no-op). Every refusal happens
        before anything is written.
        """
        if permission is not None:
            require_permission(role, permission, actor)
        auth = self._authenticate(role, passphrase)
        book = self.rolebook()
        self._require_incidents(incidents)
        if not self._read(lambda c: c.execute("SELECT 1 FROM reviewers WHERE name = ? AND role = ?",
                                              (actor, role.value)).fetchone()):
            # a new name here: no other game of the tournament may have it in another role
            _check_tournament_roles(self.game_dir, actor, role, book, self.path)

        def attempt() -> T:
            with self._lock:
                conn = self._conn
                conn.execute("BEGIN IMMEDIATE")
                self._pending = []
                try:
                    _check_before_write(conn, self.path)
                    _refuse_downgrade(conn, auth, self.game_dir)
                    _check_roles_here(conn, actor, role, book)
                    now = self._clock()
                    before = integrity.max_rowids(conn)
                    result, payload = body(conn, now)
                    if payload is not None:
                        self._pending.append((actor, role, action, payload))
                    if self._pending:
                        digests = integrity.new_row_digests(conn, before)
                        for k, (who, as_role, act, data) in enumerate(self._pending):
                            integrity.insert_chained(
                                conn, _iso(now), who, as_role.value if as_role else None, act,
                                json.dumps(data, ensure_ascii=False, sort_keys=True), auth,
                                digests if k == len(self._pending) - 1 else None)
                    conn.execute("COMMIT")
                    self._wrote = True
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                finally:
                    self._pending = None
                return result

        try:
            return _retry_busy(attempt, self._write_timeout_s)
        except sqlite3.IntegrityError as exc:
            raise ReviewStoreError(f"{self.path}: write refused: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise ReviewStoreError(f"{self.path}: write failed: {exc}") from None

    def _require_incidents(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        if not ids:
            return
        known = game_incident_ids(self.game_dir)
        for i in ids:
            if i not in known:
                raise LookupError(f"no incident {i!r} in {self.game_dir / 'analysis' / 'incidents.json'}"
                                  " (a decision refers to an incident of this game)")

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


# -- authorisation helpers (shared with the app's sign-in) ------------------------------------

def _rolebook(game_dir: Path) -> RoleBook | None:
    try:
        return find_rolebook(game_dir)
    except RoleBookError as exc:
        # a damaged roles file must not silently turn passphrases off
        raise PermissionError(f"{exc}; nobody may act until the organiser repairs it") from None


def game_incident_ids(game_dir: Path) -> frozenset[str]:
    """Ids in the game's analysis/incidents.json (LookupError when it cannot be read)."""
    from review.incidents import IncidentFormatError, load_incidents
    path = Path(game_dir) / "analysis" / "incidents.json"
    if not path.is_file():
        raise LookupError(f"{path} does not exist: analyse the game before deciding incidents")
    try:
        return frozenset(i.id for i in load_incidents(path).incidents)
    except (IncidentFormatError, OSError, ValueError) as exc:
        raise LookupError(f"cannot read the game's incidents: {exc}") from None


def check_identity(game_dir: str | os.PathLike[str], name: str, role: ReviewerRole | str,
                   passphrase: str | None = None) -> str:
    """The app's sign-in, also for a game without review.db yet: may `name` act as
    `role` here? Returns PRACTICE or PASSPHRASE; PermissionError / ValueError if not.
    Writes nothing."""
    game = Path(game_dir)
    name = clean_name(name)
    role = _enum(ReviewerRole, role, "role")
    book = _rolebook(game)
    auth = authenticate(book, role, passphrase)
    db = game / "review.db"
    _check_tournament_roles(game, name, role, book, db)
    if db.is_file():
        _check_roles_here_file(db, name, role, book, auth, game)
    return auth


def _roles_held(rows: Iterable[tuple[str, str]], name: str) -> set[ReviewerRole]:
    key = name_key(name)
    out: set[ReviewerRole] = set()
    for other, role in rows:
        try:
            same = name_key(other) == key
        except ValueError:  # a name stored before names were normalised
            same = str(other).strip().casefold() == key
        if same:
            try:
                out.add(ReviewerRole(role))
            except ValueError:
                pass
    return out


def _refuse_second_role(name: str, role: ReviewerRole, held: set[ReviewerRole], book: RoleBook | None,
                        where: str) -> None:
    others = held - {role}
    if not others:
        return
    granted = book.granted_roles(name) if book is not None else frozenset()
    if others | {role} <= granted:
        return
    folder = book.folder if book is not None else "FOLDER"
    listed = " and ".join(sorted(r.words for r in others))
    raise PermissionError(
        f"{name} already acts as {listed} {where}; one name holds one role in a tournament "
        f"unless the organiser grants more (`mafvar roles grant {folder} --name \"{name}\" "
        f"--role {role.value} " + " ".join(f"--role {r.value}" for r in sorted(others)) + "`)")


def _check_roles_here(conn: sqlite3.Connection, name: str, role: ReviewerRole,
                      book: RoleBook | None) -> None:
    rows = conn.execute("SELECT name, role FROM reviewers").fetchall()
    _refuse_second_role(name, role, _roles_held(rows, name), book, "in this game")


def _check_roles_here_file(db: Path, name: str, role: ReviewerRole, book: RoleBook | None,
                          auth: str, game: Path) -> None:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error:
        return  # the store's own open reports what is wrong with it
    try:
        _check_roles_here(conn, name, role, book)
        if "auth" in {r[1] for r in conn.execute("PRAGMA table_info(audit_log)")}:
            _refuse_downgrade(conn, auth, game)
    except sqlite3.Error:
        return
    finally:
        conn.close()


def _check_tournament_roles(game: Path, name: str, role: ReviewerRole, book: RoleBook | None,
                            own_db: Path) -> None:
    """The other games of the tournament (the roles file's folder) must not have this
    name in another role (read-only; a store that cannot be read is skipped here and
    refused when it is itself opened)."""
    if book is None:
        return
    for other in book.games():
        db = other / "review.db"
        if db.resolve() == own_db.resolve() or not db.is_file():
            continue
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None,
                                   timeout=5)
        except sqlite3.Error:
            continue
        try:
            rows = conn.execute("SELECT name, role FROM reviewers").fetchall()
        except sqlite3.Error:
            continue
        finally:
            conn.close()
        _refuse_second_role(name, role, _roles_held(rows, name), book,
                            f"in game {other.name} of this tournament")


def _refuse_downgrade(conn: sqlite3.Connection, auth: str, game: Path) -> None:
    """A store once written with passphrases is not written in practice mode: the roles
    file going missing must not open every role to everyone."""
    if auth != PRACTICE:
        return
    if conn.execute("SELECT 1 FROM audit_log WHERE auth = ? LIMIT 1", (PASSPHRASE,)).fetchone():
        raise PermissionError(
            f"{game / 'review.db'} was written with role passphrases, but no roles file with an "
            f"organiser passphrase governs {game} now (expected {game.parent / 'mafvar-roles.json'} "
            f"or {game / 'mafvar-roles.json'}): put the tournament's roles file back")


def _check_before_write(conn: sqlite3.Connection, path: Path) -> None:
    """Cheap checks at every write (the full one ran at open): the schema and the chain's
    last row, so a trigger dropped or a row edited since the open stops the write."""
    problems = integrity.schema_problems(conn, SCHEMA_VERSION)
    if not problems:
        row = conn.execute(f"SELECT {integrity.AUDIT_COLS} FROM audit_log ORDER BY id DESC"
                           " LIMIT 1").fetchone()
        if row is not None and row[9] is not None and integrity.audit_hash(
                row[8], *row[:8]) != row[9]:
            problems = [integrity.Problem("chain", f"audit_log row {row[0]}: its content does "
                                          "not match its hash (edited outside mafvar)",
                                          "audit_log", row[0])]
    if problems:
        report = integrity.IntegrityReport(path, problems)
        report.backup, _ = integrity.read_backup(path)
        raise StoreIntegrityError(report)

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


def _refuse_foreign_database(conn: sqlite3.Connection, file: Path, timeout_s: float) -> int:
    """Read-only checks; nothing is written before the file is known to be ours.
    Returns the file's schema version (0: a new or empty database)."""
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
        _raise_corrupt(file, f"SQLite finds it corrupt or cannot read it ({exc})")
    if check != ["ok"]:
        _raise_corrupt(file, f"SQLite finds it corrupt ({'; '.join(check[:3])})")
    if app_id == APPLICATION_ID:
        if version > SCHEMA_VERSION:
            raise ReviewStoreError(
                f"{file} was written by a newer mafvar (schema {version}; this version reads up "
                f"to {SCHEMA_VERSION}): upgrade mafvar")
        return version
    if app_id == 0 and version == 0 and objects == 0:
        return 0  # an empty SQLite database: adopt it
    raise ReviewStoreError(
        f"{file} is another program's SQLite database, not a mafvar review database; "
        "it was left untouched: move it away to start a new one")


def _raise_corrupt(file: Path, problem: str):
    report = integrity.IntegrityReport(file, [integrity.Problem("quick_check", problem)])
    report.backup, _ = integrity.read_backup(file)
    raise StoreIntegrityError(report)


def _enable_wal(conn: sqlite3.Connection, file: Path) -> None:
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise ReviewStoreError(f"{file}: cannot switch to WAL mode (got {mode!r})")
    conn.execute("PRAGMA synchronous = FULL")  # a recorded decision survives power loss
    conn.execute("PRAGMA foreign_keys = ON")
    # Belt and braces with the *_no_replace triggers: REPLACE's implicit delete
    # also hits the append-only delete triggers on our own connections.
    conn.execute("PRAGMA recursive_triggers = ON")


def _migrate(conn: sqlite3.Connection, clock: Callable[[], datetime]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # re-read under the lock
        for target in range(version + 1, SCHEMA_VERSION + 1):
            for statement in integrity.split_statements(MIGRATIONS[target - 1]):
                conn.execute(statement)
            if target == integrity.CHAIN_VERSION and version >= 1:
                # an existing store: the chain starts here and seals what was written before
                integrity.start_chain(conn, version, _iso(clock()))
            conn.execute(f"PRAGMA user_version = {target}")
        if version == 0:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _keep_pre_migration_copy(conn: sqlite3.Connection, file: Path, version: int) -> None:
    """Before an older store is upgraded, a copy of it as it was: `review.db.schema<N>`.
    Never overwritten (a copy already there is from an earlier, interrupted attempt)."""
    copy = file.with_name(f"{file.name}.schema{version}")
    if copy.exists():
        return
    fd, name = tempfile.mkstemp(prefix=copy.name + ".", suffix=".tmp", dir=file.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        dst = sqlite3.connect(tmp)
        try:
            conn.backup(dst)
            dst.execute("PRAGMA journal_mode = DELETE")
        finally:
            dst.close()
        try:
            os.link(tmp, copy)  # unlike a rename, never replaces a copy another process kept
        except FileExistsError:
            pass
    except (OSError, sqlite3.Error) as exc:
        raise ReviewStoreError(f"{file}: cannot keep a copy before upgrading it ({exc}); it "
                               "was left as it is") from None
    finally:
        tmp.unlink(missing_ok=True)


def _verify(conn: sqlite3.Connection, file: Path, backup_rows: list[tuple] | None
            ) -> "integrity.IntegrityReport":
    conn.execute("BEGIN")  # one snapshot, taken after the backup was read
    try:
        return integrity.verify_connection(conn, file, backup_rows=backup_rows)
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


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


def _key_where(key: Mapping[str, Any]) -> str:
    return " AND ".join(f"{k} IS ?" for k in key)


def _chain_insert(conn: sqlite3.Connection, table: str, key: Mapping[str, Any],
                  row: Mapping[str, Any]) -> tuple[int, int | None]:
    """Insert a row that supersedes the current row of its key's chain (the table's
    trigger refuses anything else); returns (its id, the id it supersedes)."""
    prev = conn.execute(f"SELECT max(id) FROM {table} WHERE {_key_where(key)}",
                        tuple(key.values())).fetchone()[0]
    cols = {**key, **row, "supersedes": prev}
    cur = conn.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                       tuple(cols.values()))
    return int(cur.lastrowid or 0), prev


def _chain_rows(conn: sqlite3.Connection, table: str, cols: str, key: Mapping[str, Any]) -> list[tuple]:
    """Every row of one key's chain, oldest first."""
    return conn.execute(f"SELECT {cols} FROM {table} WHERE {_key_where(key)} ORDER BY id",
                        tuple(key.values())).fetchall()


def _standing_rows(conn: sqlite3.Connection, table: str, cols: str, key: Sequence[str]) -> list[tuple]:
    """The standing (last) row of every key's chain, in key order."""
    by = ", ".join(key)
    return conn.execute(f"SELECT {cols} FROM {table} WHERE id IN (SELECT max(id) FROM {table} GROUP BY {by})"
                        f" ORDER BY {by}").fetchall()


_ANSWER_COLS = "id, t, seat, question, answer, reviewer, role, note, created_at, supersedes"


def _frame_answer(r: tuple) -> FrameAnswer:
    return FrameAnswer(r[0], float(r[1]), r[2], FrameQuestion(r[3]), FrameAnswerValue(r[4]), r[5],
                       ReviewerRole(r[6]), r[7], _dt(r[8]), r[9])


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


def _int_in(value: Any, low: int, high: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} must be an integer {low}..{high}, got {value!r}")


def _incident_ids(ids: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    if isinstance(ids, str):
        raise ValueError("incident ids must be a list of ids, not one string")
    for i in ids:
        i = clean_incident_id(i)
        if i not in out:
            out.append(i)
        if len(out) > 200:
            raise ValueError("an appeal attaches at most 200 incidents")
    return tuple(out)


def _utc(dt: datetime) -> datetime:
    return dt.astimezone(timezone.utc)  # naive values are read as local time


def _iso(dt: datetime) -> str:
    return _utc(dt).isoformat(timespec="microseconds")


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)

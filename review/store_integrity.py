"""Is `review.db` what mafvar wrote? Checks, the audit log's hash chain, and backups.

The append-only triggers stop an edit made by accident; they do not stop
someone who drops them first (`DROP TRIGGER`, or `PRAGMA writable_schema`).
What makes such an edit visible:

* every audit-log row carries the hash of the row before it and its own
  (sha256 over its content and that previous hash), so changing, removing or
  inserting a row breaks the chain from that row on;
* the audit row of every write also carries a digest of each data row that
  write added (`row_digests`), so a decision, verification, appeal or ruling
  changed afterwards no longer matches its digest, and a row no write added
  has none;
* the schema (tables, indexes, triggers) is compared with the one the
  migrations build, so a dropped or altered trigger is named;
* `sqlite_sequence` must equal the largest id of each table, so removing the
  last rows shows;
* the automatic backup (`review.db.backup`, taken at safe points) must be a
  prefix of the live history.

A store written before the chain existed (schema 1) is migrated in place: the
chain starts with a `chain_start` row whose payload lists a digest of every
older audit row and whose `row_digests` list every older data row, so the
rows from before the migration are sealed as well. The hash chain has no
secret: someone who rewrites history and recomputes every hash defeats it,
but not the backup comparison; `mafvar store verify --json` prints the head
hash so an organiser can keep it elsewhere.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from review.store_schema import APPEND_ONLY_TABLES, APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

CHAIN_VERSION = 2              # the schema version that brought the chain
GENESIS = "0" * 64             # prev_hash of the first row of a store born with the chain
DATA_TABLES = tuple(t for t in APPEND_ONLY_TABLES if t != "audit_log")
BACKUP_SUFFIX = ".backup"
VERIFY_FORMAT = "mafvar-store-verify"
VERIFY_VERSION = 1
AUDIT_COLS = ("id, at, actor, role, action, payload, auth, row_digests, prev_hash, hash")


# -- hashing -----------------------------------------------------------------------------

def canonical(value: Any) -> bytes:
    """One byte string per value: sorted keys, ASCII escapes (lone surrogates too)."""
    return json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":"),
                      default=_blob).encode("ascii")


def _blob(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"blob": bytes(value).hex()}
    raise TypeError(f"cannot hash {type(value).__name__}")


def row_digest(table: str, row: tuple) -> str:
    """sha256 of a data row (`row` starts with its rowid, then every column in order)."""
    return hashlib.sha256(canonical([table, *row])).hexdigest()


def v1_audit_digest(row: tuple) -> str:
    """Digest of an audit row written before the chain (id, at, actor, role, action, payload)."""
    return hashlib.sha256(canonical(["audit_log", *row[:6]])).hexdigest()


def audit_hash(prev_hash: str, id_: int, at: str, actor: str, role: str | None, action: str,
               payload: str, auth: str | None, row_digests: str | None) -> str:
    return hashlib.sha256(prev_hash.encode("ascii") + b"\n" + canonical(
        [id_, at, actor, role, action, payload, auth, row_digests])).hexdigest()


def present(conn: sqlite3.Connection, tables: tuple[str, ...] = DATA_TABLES) -> tuple[str, ...]:
    """The tables of `tables` this file has: an older schema lacks the newer ones
    (frame_answers came with schema 3), and a dropped one is a schema problem."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return tuple(t for t in tables if t in have)


def max_rowids(conn: sqlite3.Connection) -> dict[str, int]:
    return {t: conn.execute(f"SELECT coalesce(max(rowid), 0) FROM {t}").fetchone()[0]
            for t in present(conn)}


def new_row_digests(conn: sqlite3.Connection, before: dict[str, int]) -> list[list]:
    """[table, rowid, digest] of every data row added since `before` (one write's rows)."""
    out: list[list] = []
    for t in present(conn):
        for row in conn.execute(f"SELECT rowid, * FROM {t} WHERE rowid > ? ORDER BY rowid",
                                (before.get(t, 0),)):
            out.append([t, row[0], row_digest(t, tuple(row))])
    return out


def chain_tail(conn: sqlite3.Connection) -> tuple[int, str | None]:
    """(next audit id, hash of the last chained row or None)."""
    seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'").fetchone()
    top = conn.execute("SELECT coalesce(max(id), 0) FROM audit_log").fetchone()[0]
    last = conn.execute("SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1").fetchone()
    return max(top, seq[0] if seq else 0) + 1, (last[0] if last else None)


def insert_chained(conn: sqlite3.Connection, at: str, actor: str, role: str | None, action: str,
                   payload: str, auth: str | None, row_digests: list[list] | None) -> int:
    """Append one audit row linked to the last one; returns its id. Call inside a write
    transaction (the chain is only linear because writes are serialised)."""
    id_, prev = chain_tail(conn)
    if prev is None:
        prev = GENESIS if id_ == 1 else _pre_chain_digest(conn)
    digests = json.dumps(row_digests, separators=(",", ":")) if row_digests else None
    h = audit_hash(prev, id_, at, actor, role, action, payload, auth, digests)
    conn.execute("INSERT INTO audit_log (id, at, actor, role, action, payload, auth, row_digests,"
                 " prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (id_, at, actor, role, action, payload, auth, digests, prev, h))
    return id_


def _pre_chain_digest(conn: sqlite3.Connection) -> str:
    rows = conn.execute("SELECT id, at, actor, role, action, payload FROM audit_log"
                        " ORDER BY id").fetchall()
    return hashlib.sha256(canonical([v1_audit_digest(tuple(r)) for r in rows])).hexdigest()


def start_chain(conn: sqlite3.Connection, from_version: int, at: str) -> bool:
    """Seal the rows of a store migrated from before the chain; False when it has none."""
    audit_rows = conn.execute("SELECT id, at, actor, role, action, payload FROM audit_log"
                              " ORDER BY id").fetchall()
    data = new_row_digests(conn, {t: 0 for t in DATA_TABLES})
    if not audit_rows and not data:
        return False
    payload = {"migrated_from_schema": from_version, "audit_rows_before": len(audit_rows),
               "data_rows_before": len(data),
               "audit_digests": [[r[0], v1_audit_digest(tuple(r))] for r in audit_rows],
               "note": "the hash chain starts here; the rows before it are sealed by these "
                       "digests (review.db was written before mafvar kept a chain)"}
    insert_chained(conn, at, "mafvar", None, "chain_start",
                   json.dumps(payload, ensure_ascii=False, sort_keys=True), None, data)
    return True


# -- the expected schema ------------------------------------------------------------------

def split_statements(script: str) -> list[str]:
    """A migration's statements (executescript would commit the caller's transaction)."""
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


@lru_cache(maxsize=None)
def expected_schema(version: int = SCHEMA_VERSION) -> tuple[tuple[str, str, str, str], ...]:
    """(type, name, table, sql) of every object migrations 1..version create."""
    conn = sqlite3.connect(":memory:")
    try:
        for target in range(1, version + 1):
            for statement in split_statements(MIGRATIONS[target - 1]):
                conn.execute(statement)
        return actual_schema(conn)
    finally:
        conn.close()


def actual_schema(conn: sqlite3.Connection) -> tuple[tuple[str, str, str, str], ...]:
    rows = conn.execute("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master"
                        " WHERE name NOT LIKE 'sqlite_autoindex_%'").fetchall()
    return tuple(sorted((str(a), str(b), str(c), str(d)) for a, b, c, d in rows))


def schema_problems(conn: sqlite3.Connection, version: int) -> list["Problem"]:
    want = {(t, n): s for t, n, _, s in expected_schema(version)}
    have = {(t, n): s for t, n, _, s in actual_schema(conn)}
    out: list[Problem] = []
    for key in sorted(want):
        kind, name = key
        if key not in have:
            out.append(Problem("schema", f"{kind} {name} is missing (dropped outside mafvar)"))
        elif _squash(have[key]) != _squash(want[key]):
            out.append(Problem("schema", f"{kind} {name} differs from the one mafvar creates"))
    for key in sorted(set(have) - set(want)):
        out.append(Problem("schema", f"unexpected {key[0]} {key[1]} (created outside mafvar)"))
    return out


def _squash(sql: str) -> str:
    return " ".join(sql.split())


# -- verification ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    check: str                 # quick_check | identity | schema | chain | rows | sequence | backup
    message: str
    table: str | None = None
    row: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "table": self.table, "row": self.row,
                "message": self.message}


@dataclass
class BackupState:
    path: Path
    exists: bool
    ok: bool = False
    audit_rows: int = 0
    head: str | None = None
    taken_at: str | None = None
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "exists": self.exists, "ok": self.ok,
                "audit_rows": self.audit_rows, "head": self.head, "taken_at": self.taken_at,
                "problem": self.problem}


@dataclass
class IntegrityReport:
    path: Path
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    schema_version: int | None = None
    audit_rows: int = 0
    data_rows: int = 0
    chain_start: int | None = None       # id of the first chained audit row
    migrated_from: int | None = None     # schema version the chain was started from
    head: str | None = None              # hash of the last audit row
    backup: BackupState | None = None
    _audit: list[tuple] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first_bad(self) -> Problem | None:
        """The first problem that names a row (what was edited), else the first one."""
        with_row = [p for p in self.problems if p.row is not None]
        return with_row[0] if with_row else (self.problems[0] if self.problems else None)

    def summary(self) -> str:
        if self.ok:
            chain = ("no writes yet" if not self.audit_rows else
                     f"{self.audit_rows} audit rows, hash chain intact"
                     + (f" from row {self.chain_start} (started when migrated from schema "
                        f"{self.migrated_from})" if self.migrated_from else ""))
            return f"{self.path}: intact ({chain}; {self.data_rows} data rows match it)"
        first = self.first_bad
        assert first is not None  # not ok: there is a problem
        others = [p.message for p in self.problems if p is not first]
        more = f"; also: {others[0]}" if others else ""
        if len(others) > 1:
            more += f" (and {len(others) - 1} more)"
        return f"{self.path} failed its integrity check: {first.message}{more}"

    def restore_hint(self) -> str:
        b = self.backup
        game = self.path.parent
        if b is not None and b.ok:
            return (f"the last good copy is {b.path.name} ({b.audit_rows} audit rows, taken "
                    f"{b.taken_at or 'earlier'}): stop the review app and run `mafvar store "
                    f"restore {game}` (the damaged file is kept beside it as evidence)")
        return ("no good backup exists; keep the file as evidence and start a new review.db "
                "only after moving this one away")

    def to_json(self) -> dict[str, Any]:
        first = self.first_bad
        return {"format": VERIFY_FORMAT, "version": VERIFY_VERSION, "path": str(self.path),
                "ok": self.ok, "schema_version": self.schema_version,
                "audit_rows": self.audit_rows, "data_rows": self.data_rows,
                "chain": {"start_row": self.chain_start, "migrated_from": self.migrated_from,
                          "head": self.head},
                "first_bad": first.to_json() if first else None,
                "problems": [p.to_json() for p in self.problems],
                "warnings": list(self.warnings),
                "backup": self.backup.to_json() if self.backup else None,
                "restore": None if self.ok else self.restore_hint()}


def verify_connection(conn: sqlite3.Connection, path: Path, *,
                      backup_rows: list[tuple] | None = None) -> IntegrityReport:
    """Every check on an open connection (reads only). `backup_rows`: the backup's
    audit rows, read *before* this connection's snapshot so they are a prefix of it."""
    previous = conn.text_factory
    # text someone wrote outside mafvar may not even be UTF-8: read it, then judge it
    conn.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
    try:
        return _verify(conn, path, backup_rows)
    finally:
        conn.text_factory = previous


def _verify(conn: sqlite3.Connection, path: Path, backup_rows: list[tuple] | None
            ) -> IntegrityReport:
    report = IntegrityReport(path)
    try:
        check = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        report.problems.append(Problem("quick_check", f"SQLite cannot read it ({exc})"))
        return report
    if check != ["ok"]:
        report.problems.append(Problem("quick_check", "SQLite finds it corrupt: "
                                       + "; ".join(check[:3])))
        return report
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    report.schema_version = version
    if app_id != APPLICATION_ID or not 1 <= version <= SCHEMA_VERSION:
        report.problems.append(Problem("identity", f"not a mafvar review database this version "
                                       f"reads (application_id {app_id:#x}, schema {version})"))
        return report
    report.problems += schema_problems(conn, version)
    if version < CHAIN_VERSION:
        report.warnings.append(f"schema {version}: written before the hash chain; the chain "
                               "starts when mafvar next opens it for writing")
        _count(conn, report)
        return report
    _check_chain(conn, report)
    _check_rows(conn, report)
    _check_sequences(conn, report)
    if backup_rows is not None:
        _check_backup_prefix(report, backup_rows)
    return report


def _count(conn: sqlite3.Connection, report: IntegrityReport) -> None:
    report.audit_rows = conn.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    report.data_rows = sum(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                           for t in present(conn))


def _check_chain(conn: sqlite3.Connection, report: IntegrityReport) -> None:
    rows = conn.execute(f"SELECT {AUDIT_COLS} FROM audit_log ORDER BY id").fetchall()
    report._audit = [tuple(r) for r in rows]
    report.audit_rows = len(rows)
    pre = []
    prev: str | None = None
    for r in rows:
        id_, at, actor, role, action, payload, auth, digests, prev_hash, h = r
        if prev is None and h is None:
            pre.append(r)
            continue
        if prev is None:  # the first chained row
            report.chain_start = id_
            if pre or action == "chain_start":
                if action != "chain_start":
                    report.problems.append(Problem("chain", f"audit_log row {id_}: the chain "
                                                   "starts without sealing the rows before it",
                                                   "audit_log", id_))
                    return
                _check_seal(report, r, pre)
                if report.problems:
                    return
            elif prev_hash != GENESIS:
                report.problems.append(Problem("chain", f"audit_log row {id_}: the first row "
                                               "does not start the chain (rows before it were "
                                               "removed)", "audit_log", id_))
                return
            expected_prev = prev_hash
        else:
            expected_prev = prev
        if h is None or prev_hash != expected_prev:
            report.problems.append(Problem(
                "chain", f"audit_log row {id_}: does not follow the row before it (a row was "
                "removed, inserted or edited outside mafvar)", "audit_log", id_))
            return
        try:
            computed = audit_hash(prev_hash, id_, at, actor, role, action, payload, auth, digests)
        except (TypeError, ValueError, AttributeError):
            computed = None
        if computed != h:
            report.problems.append(Problem(
                "chain", f"audit_log row {id_} ({action} by {actor}): its content does not match "
                "its hash (edited outside mafvar)", "audit_log", id_))
            return
        prev = h
    report.head = prev
    if pre and report.chain_start is None:
        report.problems.append(Problem("chain", f"audit_log has {len(pre)} rows without a hash "
                                       "and no chain start (written outside mafvar)",
                                       "audit_log", pre[0][0]))


def _check_seal(report: IntegrityReport, start: tuple, pre: list[tuple]) -> None:
    try:
        payload = json.loads(start[5])
        listed = [(int(i), str(d)) for i, d in payload["audit_digests"]]
        report.migrated_from = int(payload["migrated_from_schema"])
    except (ValueError, KeyError, TypeError):
        report.problems.append(Problem("chain", f"audit_log row {start[0]}: the chain start's "
                                       "seal is unreadable", "audit_log", start[0]))
        return
    have = [(r[0], v1_audit_digest(tuple(r))) for r in pre]
    for (i, d), (j, e) in zip(listed, have):
        if i != j:
            report.problems.append(Problem("chain", f"audit_log row {min(i, j)}: removed or "
                                           "inserted before the chain start", "audit_log",
                                           min(i, j)))
            return
        if d != e:
            report.problems.append(Problem("chain", f"audit_log row {i} (before the chain "
                                           "start): changed since the migration sealed it",
                                           "audit_log", i))
            return
    if len(listed) != len(have):
        k = min(len(listed), len(have))
        row = (listed[k][0] if len(listed) > k else have[k][0])
        report.problems.append(Problem("chain", f"audit_log row {row}: removed or inserted "
                                       "before the chain start", "audit_log", row))


def _check_rows(conn: sqlite3.Connection, report: IntegrityReport) -> None:
    covered: dict[tuple[str, int], tuple[str, int]] = {}
    for r in report._audit:
        if r[7] is None or r[9] is None:
            continue
        try:
            for t, rowid, d in json.loads(r[7]):
                covered[(str(t), int(rowid))] = (str(d), r[0])
        except (ValueError, TypeError):
            report.problems.append(Problem("rows", f"audit_log row {r[0]}: unreadable row "
                                           "digests", "audit_log", r[0]))
            return
    seen: set[tuple[str, int]] = set()
    count = 0
    for t in present(conn):
        for row in conn.execute(f"SELECT rowid, * FROM {t} ORDER BY rowid"):
            count += 1
            key = (t, row[0])
            seen.add(key)
            entry = covered.get(key)
            if entry is None:
                report.problems.append(Problem(
                    "rows", f"{t} row {row[0]}: no audit-log entry wrote it (added outside "
                    "mafvar)", t, row[0]))
            elif entry[0] != row_digest(t, tuple(row)):
                report.problems.append(Problem(
                    "rows", f"{t} row {row[0]}: changed after audit-log row {entry[1]} recorded "
                    f"it (edited outside mafvar){_what(t, row)}", t, row[0]))
    for key in sorted(set(covered) - seen):
        report.problems.append(Problem("rows", f"{key[0]} row {key[1]}: deleted (audit-log row "
                                       f"{covered[key][1]} recorded it)", key[0], key[1]))
    report.data_rows = count


def _what(table: str, row: tuple) -> str:
    if table == "decisions" and len(row) >= 6:
        return f"; it now says {row[5]!r} on {row[2]!r}"
    return ""


def _check_sequences(conn: sqlite3.Connection, report: IntegrityReport) -> None:
    seqs = dict(conn.execute("SELECT name, seq FROM sqlite_sequence").fetchall())
    for t in present(conn, APPEND_ONLY_TABLES):
        if t == "appeal_incidents":
            continue  # no AUTOINCREMENT id
        top = conn.execute(f"SELECT coalesce(max(id), 0) FROM {t}").fetchone()[0]
        seq = seqs.get(t, 0)
        if seq != top:
            report.problems.append(Problem(
                "sequence", f"{t}: rows up to id {seq} were written but the last one now is "
                f"{top} (rows removed outside mafvar)", t, top + 1))


def _check_backup_prefix(report: IntegrityReport, backup_rows: list[tuple]) -> None:
    live = {r[0]: r for r in report._audit}
    for b in backup_rows:
        mine = live.get(b[0])
        if mine is None:
            report.problems.append(Problem(
                "backup", f"audit_log row {b[0]}: in the backup but gone from review.db (rows "
                "removed outside mafvar)", "audit_log", b[0]))
            return
        if tuple(mine) != tuple(b):
            report.problems.append(Problem(
                "backup", f"audit_log row {b[0]}: differs from the backup (history rewritten "
                "outside mafvar)", "audit_log", b[0]))
            return


# -- files ------------------------------------------------------------------------------------

def backup_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + BACKUP_SUFFIX)


def read_backup(db_path: Path) -> tuple[BackupState, list[tuple] | None]:
    """The backup's state (verified on its own) and its audit rows (None if unusable)."""
    path = backup_path(db_path)
    state = BackupState(path, path.exists())
    if not state.exists:
        return state, None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        state.problem = f"cannot open ({exc})"
        return state, None
    try:
        rep = verify_connection(conn, path)
        if not rep.ok or (rep.schema_version or 0) < CHAIN_VERSION:
            state.problem = rep.problems[0].message if rep.problems else "written before the chain"
            return state, None
        state.ok = True
        state.audit_rows = rep.audit_rows
        state.head = rep.head
        state.taken_at = _mtime(path)
        return state, rep._audit
    except sqlite3.Error as exc:
        state.problem = f"unreadable ({exc})"
        return state, None
    finally:
        conn.close()


def verify_file(db_path: str | os.PathLike[str]) -> IntegrityReport:
    """`mafvar store verify`: every check, reading only; never migrates or repairs."""
    path = Path(db_path)
    state, backup_rows = read_backup(path)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        report = IntegrityReport(path, [Problem("quick_check", f"cannot open ({exc})")])
        report.backup = state
        return report
    try:
        conn.execute("BEGIN")
        report = verify_connection(conn, path, backup_rows=backup_rows)
    except sqlite3.DatabaseError as exc:
        report = IntegrityReport(path, [Problem("quick_check", f"SQLite cannot read it ({exc})")])
    finally:
        conn.close()
    report.backup = state
    if state.exists and not state.ok:
        report.warnings.append(f"{state.path.name}: not a usable backup ({state.problem})")
    return report


def take_backup(conn: sqlite3.Connection, db_path: Path) -> Path:
    """Copy the database (one consistent snapshot, sqlite3's backup API) to the backup
    file, atomically: a reader never sees half a backup."""
    target = backup_path(db_path)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        dst = sqlite3.connect(tmp)
        try:
            conn.backup(dst)
            dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        finally:
            dst.close()
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def copy_database(src: Path, dst: Path) -> None:
    """A consistent copy of an SQLite file (WAL included) to a new path."""
    s = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    try:
        d = sqlite3.connect(dst)
        try:
            s.backup(d)
        finally:
            d.close()
    finally:
        s.close()


def _mtime(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).isoformat(
        timespec="seconds")


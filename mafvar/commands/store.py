"""`mafvar store verify` and `mafvar store restore`: the integrity of a game's review.db."""
from __future__ import annotations

import argparse
import json
import os
from datetime import datetime, timezone
from pathlib import Path

from mafvar.errors import UserError

VERIFY_EPILOG = """\
checks: SQLite's quick_check; the schema, tables and triggers against the ones
mafvar creates; the audit log's hash chain (each row carries the hash of the
previous one); every decision, verification, appeal and ruling against the
digest its audit row recorded; the id sequences; and that the history
continues the automatic backup (review.db.backup). The first bad row is named.
exit status: 0 intact (or no review.db yet), 2 damaged or unreadable.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    store = subparsers.add_parser("store", help="check or restore a game's review.db")
    sub = store.add_subparsers(dest="store_command", metavar="SUBCOMMAND")
    verify = sub.add_parser(
        "verify", help="check review.db for damage or edits made outside mafvar",
        description="Reads GAME_DIR/review.db (never writes it) and reports whether it is "
                    "what mafvar wrote.", epilog=VERIFY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    verify.add_argument("game_dir", metavar="GAME_DIR", help="the game's folder (or a review.db)")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(handler=_verify)
    restore = sub.add_parser(
        "restore", help="put the last good backup back in place of a damaged review.db",
        description="When GAME_DIR/review.db fails `mafvar store verify` and review.db.backup "
                    "passes it: the damaged file is renamed review.db.damaged-<UTC time> (kept as "
                    "evidence, never deleted) and the backup is copied to review.db. Stop the "
                    "review app first.")
    restore.add_argument("game_dir", metavar="GAME_DIR")
    restore.set_defaults(handler=_restore)
    store.set_defaults(handler=lambda args: (store.print_help(), 1)[1])


def _db_path(arg: str) -> Path:
    p = Path(arg).expanduser()
    if p.is_dir():
        return p / "review.db"
    if p.is_file() and p.suffix == ".db":
        return p
    raise UserError(f"not a game folder: {arg}")


def _verify(args: argparse.Namespace) -> int:
    from review.store_integrity import verify_file
    db = _db_path(args.game_dir)
    if not db.exists():
        if args.json:
            print(json.dumps({"format": "mafvar-store-verify", "version": 1, "path": str(db),
                              "exists": False, "ok": True, "problems": []}, indent=1))
        else:
            print(f"{db}: no review.db yet (nothing recorded)")
        return 0
    report = verify_file(db)
    if args.json:
        doc = {**report.to_json(), "exists": True}
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        print(report.summary())
        for problem in report.problems[1:6] if report.problems else ():
            print(f"  also: {problem.message}")
        for warning in report.warnings:
            print(f"  note: {warning}")
        if not report.ok:
            print(f"  to restore: {report.restore_hint()}")
        elif report.head:
            print(f"  head of the chain: {report.head} (keep it elsewhere to prove this history "
                  "later)")
    return 0 if report.ok else 2


def _restore(args: argparse.Namespace) -> int:
    from review.store_integrity import backup_path, copy_database, read_backup, verify_file
    db = _db_path(args.game_dir)
    if not db.exists():
        raise UserError(f"{db} does not exist: nothing to restore")
    report = verify_file(db)
    if report.ok:
        raise UserError(f"{db} is intact ({report.audit_rows} audit rows): nothing to restore")
    state, _ = read_backup(db)
    if not state.ok:
        why = state.problem or "it does not exist"
        raise UserError(f"{backup_path(db)} is not a good backup ({why}): cannot restore; "
                        f"{db} was left as it is")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    kept = db.with_name(f"{db.name}.damaged-{stamp}")
    n = 1
    while any(Path(str(kept) + s).exists() for s in ("", "-wal", "-shm")):
        n += 1
        kept = db.with_name(f"{db.name}.damaged-{stamp}-{n}")
    # the damaged file and its WAL move together (a WAL holds committed rows of that file)
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(db) + suffix)
        if src.exists():
            os.rename(src, Path(str(kept) + suffix))
    tmp = db.with_name(db.name + ".restoring")
    try:
        copy_database(backup_path(db), tmp)
        os.replace(tmp, db)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    after = verify_file(db)
    lost = max(0, report.audit_rows - state.audit_rows)
    print(f"restored {db} from {backup_path(db).name} ({state.audit_rows} audit rows); the "
          f"damaged file is kept as {kept.name}"
          + (f" ({lost} later audit rows are only there)" if lost else ""))
    if not after.ok:
        raise UserError(f"the restored {db} fails its check too: {after.summary()}")
    return 0

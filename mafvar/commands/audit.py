"""`mafvar audit`: analyse every game in a folder, locally or on a Dask cluster."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mafvar.errors import UserError

EPILOG = """\
exit status: 0 if every game was analysed or skipped (already analysed, inputs
unchanged), 1 if any game failed (each failure is named in the table and in
FOLDER/audit.json; the other games are still analysed), 2 if the audit could
not start (no such folder, no game in it, scheduler unreachable).

with --cluster: start a scheduler and workers yourself, e.g.
  dask scheduler --port 8786
  dask worker tcp://HOST:8786 --nthreads 1     (on each machine)
  mafvar audit /shared/tournament --cluster tcp://HOST:8786
Every worker must see the game folders at the same absolute path as this
machine (a shared filesystem) and have the same mafvar installed: results are
written into each game's analysis/ by the worker that analysed it.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "audit", help="analyse every game folder in FOLDER (local processes or a Dask cluster)",
        description="Runs `mafvar analyze` on every game workspace in FOLDER (FOLDER itself if it is a "
                    "game, else each sub-folder holding a protocol.json), one task per game, and writes "
                    "FOLDER/audit.json. Safe to re-run: games already analysed whose inputs did not "
                    "change are skipped; interrupted ones resume.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", metavar="FOLDER")
    p.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="a dask.distributed scheduler, e.g. tcp://127.0.0.1:8786 (default: local processes)")
    p.add_argument("--workers", type=int, default=2,
                   help="local processes, one game each (default 2; ignored with --cluster)")
    p.add_argument("--force", action="store_true", help="re-analyse games already analysed")
    p.add_argument("--json", action="store_true", help="print audit.json instead of the table")
    p.set_defaults(handler=_audit)


def _audit(args: argparse.Namespace) -> int:
    from review.audit import AuditError, audit, format_table

    root = Path(args.folder).expanduser().resolve()

    def progress(res, done, total):
        name = res.to_json(root)["game"]
        print(f"[{done}/{total}] {name}: {res.status.value}"
              + (f" ({res.message})" if res.message else ""), file=sys.stderr, flush=True)

    if args.workers < 1:
        raise UserError(f"--workers must be at least 1 (got {args.workers})")
    try:
        report = audit(args.folder, cluster=args.cluster, workers=args.workers, progress=progress,
                       force=args.force)
    except AuditError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot write the audit: {exc}") from None
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(format_table(report))
        print(f"written: {report.written}")
    return 0 if report.ok else 1

"""`mafvar report`: a self-contained HTML report (and its JSON twin) of a game's review."""
from __future__ import annotations

import argparse
import sys

from mafvar.errors import UserError
from review.workspace import WorkspaceError


def register(subparsers: argparse._SubParsersAction) -> None:
    report = subparsers.add_parser(
        "report", help="write a self-contained HTML report (and JSON twin) of a game's review",
        description="Write GAME_DIR/analysis/report.html and report.json: incidents, the vote "
                    "recount, decisions and appeals. Missing inputs are shown as such.")
    report.add_argument("game_dir", metavar="GAME_DIR", help="the game's folder")
    report.set_defaults(handler=_report)


def _report(args: argparse.Namespace) -> int:
    from review.report import write_report

    try:
        paths = write_report(args.game_dir)
    except WorkspaceError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot write the report: {exc}") from None
    print(paths.html)
    print(paths.json)
    for problem in paths.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return 0

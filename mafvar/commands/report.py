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
    report.add_argument("--as", dest="as_name", metavar="NAME",
                        help="who exports (needed when the folder has role passphrases; the "
                             "role's passphrase is then read from a prompt or stdin)")
    report.add_argument("--role", choices=("chief_judge", "side_judge", "organiser"),
                        help="the exporter's role: chief judge or organiser may export")
    report.set_defaults(handler=_report)


def _authorise_export(args: argparse.Namespace) -> None:
    """Exports are the chief judge's or the organiser's (review/roles.py); with role
    passphrases on, the exporter says who they are and proves it; the act is logged."""
    from pathlib import Path

    from review.rolebook import RoleBookError, find_rolebook
    from review.roles import Action, ReviewerRole, require_permission
    from review.store import ReviewStore, ReviewStoreError, check_identity

    game = Path(args.game_dir)
    try:
        book = find_rolebook(game) if game.is_dir() else None
    except RoleBookError as exc:
        raise UserError(str(exc)) from None
    protected = book is not None and book.protected
    if not args.as_name and not args.role:
        if book is not None and protected:
            raise UserError(f"{game} has role passphrases ({book.path}): exporting needs "
                            "--as NAME --role chief_judge|organiser (the passphrase is read from "
                            "a prompt or stdin)")
        return
    if not (args.as_name and args.role):
        raise UserError("--as and --role go together")
    passphrase = None
    if protected:
        from mafvar.commands.prompt import read_secret
        passphrase = read_secret(f"passphrase of the {args.role.replace('_', ' ')}")
    try:
        require_permission(ReviewerRole(args.role), Action.EXPORT, args.as_name)
        if (game / "review.db").is_file():
            with ReviewStore.open(game / "review.db") as store:
                store.record_export(args.as_name, args.role, "report", passphrase=passphrase)
        else:
            check_identity(game, args.as_name, args.role, passphrase)
    except (PermissionError, ValueError, ReviewStoreError) as exc:
        raise UserError(f"export refused: {exc}") from None


def _report(args: argparse.Namespace) -> int:
    from review.report import write_report

    _authorise_export(args)
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

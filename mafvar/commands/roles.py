"""`mafvar roles`: the organiser's passphrases per role and grants, for a folder of games."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from mafvar.commands.prompt import read_secret
from mafvar.errors import UserError

ROLES = ("chief_judge", "side_judge", "organiser")

EPILOG = """\
passphrases are read from a hidden prompt, or (when stdin is not a terminal)
one per line from stdin: first the organiser's current passphrase when one is
set, then the new one. They are stored salted and hashed (scrypt) in
FOLDER/mafvar-roles.json, never in clear. Without an organiser passphrase the
folder is in open practice mode: anyone may act in any role.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    roles = subparsers.add_parser(
        "roles", help="set role passphrases and grants for a folder of games",
        description="A folder of games (a tournament) or one game folder gets a passphrase per "
                    "role; the review app and review.db then require it to act in that role.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = roles.add_subparsers(dest="roles_command", metavar="SUBCOMMAND")
    set_ = sub.add_parser("set", help="set or change a role's passphrase (organiser's first)",
                          epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    set_.add_argument("folder", metavar="FOLDER")
    set_.add_argument("--role", required=True, choices=ROLES)
    set_.set_defaults(handler=_set)
    grant = sub.add_parser("grant", help="let one name hold several roles in this tournament")
    grant.add_argument("folder", metavar="FOLDER")
    grant.add_argument("--name", required=True)
    grant.add_argument("--role", action="append", required=True, choices=ROLES,
                       help="repeat for each role the name may hold")
    grant.set_defaults(handler=_grant)
    revoke = sub.add_parser("revoke", help="withdraw a name's grant")
    revoke.add_argument("folder", metavar="FOLDER")
    revoke.add_argument("--name", required=True)
    revoke.set_defaults(handler=_revoke)
    show = sub.add_parser("show", help="which roles have passphrases, and the grants")
    show.add_argument("folder", metavar="FOLDER")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_show)
    roles.set_defaults(handler=lambda args: (roles.print_help(), 1)[1])


def _folder(arg: str) -> Path:
    p = Path(arg).expanduser()
    if not p.is_dir():
        raise UserError(f"not a folder: {arg}")
    return p


def _organiser(folder: Path) -> str | None:
    from review.rolebook import RoleBookError, current
    try:
        book = current(folder)
    except RoleBookError as exc:
        raise UserError(str(exc)) from None
    return read_secret("organiser passphrase") if book.protected else None


def _set(args: argparse.Namespace) -> int:
    from review.rolebook import RoleBookError, set_passphrase
    folder = _folder(args.folder)
    organiser = _organiser(folder)
    new = read_secret(f"new passphrase for the {args.role.replace('_', ' ')}", confirm=True)
    try:
        book = set_passphrase(folder, args.role, new, organiser_passphrase=organiser)
    except (RoleBookError, ValueError) as exc:
        raise UserError(str(exc)) from None
    mode = ("passphrases on" if book.protected else
            "open practice mode until the organiser's passphrase is set")
    print(f"{book.path}: passphrase set for the {args.role.replace('_', ' ')} ({mode})")
    return 0


def _grant(args: argparse.Namespace) -> int:
    from review.rolebook import RoleBookError, grant
    folder = _folder(args.folder)
    organiser = _organiser(folder)
    try:
        book = grant(folder, args.name, args.role, organiser_passphrase=organiser)
    except (RoleBookError, ValueError) as exc:
        raise UserError(str(exc)) from None
    roles = " and ".join(r.replace("_", " ") for r in dict.fromkeys(args.role))
    print(f"{book.path}: {args.name} may act as {roles} in this tournament")
    return 0


def _revoke(args: argparse.Namespace) -> int:
    from review.rolebook import RoleBookError, revoke
    folder = _folder(args.folder)
    organiser = _organiser(folder)
    try:
        book = revoke(folder, args.name, organiser_passphrase=organiser)
    except (RoleBookError, ValueError) as exc:
        raise UserError(str(exc)) from None
    print(f"{book.path}: {args.name}'s grant withdrawn")
    return 0


def _show(args: argparse.Namespace) -> int:
    from review.rolebook import RoleBookError, find_rolebook
    folder = _folder(args.folder)
    try:
        book = find_rolebook(folder)
    except RoleBookError as exc:
        raise UserError(str(exc)) from None
    doc = {"format": "mafvar-roles-show", "version": 1, "folder": str(folder),
           "roles_file": str(book.path) if book else None,
           "mode": "passphrases" if book and book.protected else "open_practice",
           "passphrases": ({r.value: {"set_at": rec.get("set_at")}
                            for r, rec in book.passphrases.items()} if book else {}),
           "grants": ([{"name": g.name, "roles": sorted(r.value for r in g.roles),
                        "granted_at": g.granted_at} for g in book.grants.values()]
                      if book else [])}
    if args.json:
        print(json.dumps(doc, indent=1, ensure_ascii=False))
        return 0
    if doc["mode"] == "open_practice":
        print(f"{folder}: open practice mode (no organiser passphrase): anyone may act in any "
              f"role; enable passphrases with `mafvar roles set {folder} --role organiser`")
    else:
        print(f"{folder}: passphrases on ({doc['roles_file']})")
    set_at = {r.value: rec.get("set_at") for r, rec in book.passphrases.items()} if book else {}
    for role in ROLES:
        state = f"passphrase set {set_at[role]}" if role in set_at else "no passphrase"
        print(f"  {role.replace('_', ' '):<12} {state}")
    for g in (book.grants.values() if book else ()):
        roles = ", ".join(sorted(r.value for r in g.roles))
        print(f"  grant: {g.name} may act as {roles}")
    return 0

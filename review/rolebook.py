"""The organiser's roles file: a passphrase per role for a folder of games.

`FOLDER/mafvar-roles.json` (format `mafvar-roles`, version 1) holds, per
role, a salted scrypt hash of its passphrase (never the passphrase), and the
names the organiser allows to hold more than one role in this tournament:

    {"format": "mafvar-roles", "version": 1,
     "passphrases": {"organiser": {"kdf": "scrypt", "n": 16384, "r": 8, "p": 1,
                                   "salt": "<32 hex>", "hash": "<64 hex>",
                                   "set_at": "2026-11-01T18:00:00+00:00"}, ...},
     "grants": [{"name": "Anna Petrova", "roles": ["chief_judge", "organiser"],
                 "granted_at": "..."}]}

A game folder's roles file is the one in the game folder itself, else the
one in the folder that holds it (the tournament). Without one, or with no
organiser passphrase in it, the folder is in *open practice mode*: anyone
may act in any role (the committed sample game opens that way). The
organiser enables passphrases by setting the organiser's own first; from
then on every role needs its passphrase, and changing any passphrase or
grant needs the organiser's.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping

from review.roles import ReviewerRole
from review.user_text import clean_name, clean_passphrase, name_key

ROLES_FILE = "mafvar-roles.json"
FORMAT = "mafvar-roles"
VERSION = 1
MAX_BYTES = 256 * 1024

# scrypt at n=2**14, r=8: 16 MB and about 0.1-0.2 s per check on a laptop
# core; the parameters are stored per hash so they can be raised later.
KDF = {"kdf": "scrypt", "n": 2 ** 14, "r": 8, "p": 1}
_MAXMEM = 64 * 1024 * 1024


class RoleBookError(Exception):
    """The roles file cannot be read or changed; the message says why."""


@dataclass(frozen=True)
class Grant:
    name: str
    roles: frozenset[ReviewerRole]
    granted_at: str | None = None


@dataclass(frozen=True)
class RoleBook:
    path: Path
    passphrases: Mapping[ReviewerRole, Mapping[str, Any]] = field(default_factory=dict)
    grants: Mapping[str, Grant] = field(default_factory=dict)   # name_key -> grant

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def protected(self) -> bool:
        """Passphrases are on once the organiser's is set."""
        return ReviewerRole.ORGANISER in self.passphrases

    def has_passphrase(self, role: ReviewerRole) -> bool:
        return role in self.passphrases

    def check_passphrase(self, role: ReviewerRole, passphrase: str | None) -> bool:
        record = self.passphrases.get(role)
        if record is None or not isinstance(passphrase, str):
            return False
        try:
            text = clean_passphrase(passphrase)
        except ValueError:
            return False
        return hmac.compare_digest(_derive(text, record), bytes.fromhex(record["hash"]))

    def granted_roles(self, name: str) -> frozenset[ReviewerRole]:
        entry = self.grants.get(name_key(name))
        return entry.roles if entry else frozenset()

    def games(self) -> list[Path]:
        """The game folders of this tournament: the folder itself if it is a game,
        and every folder directly inside it that holds a protocol.json."""
        out = [self.folder] if (self.folder / "protocol.json").is_file() else []
        try:
            out += sorted(p for p in self.folder.iterdir()
                          if p.is_dir() and (p / "protocol.json").is_file())
        except OSError:
            pass
        return out

    def to_json(self, *, with_hashes: bool = True) -> dict[str, Any]:
        passphrases: dict[str, Any] = {}
        for role in ReviewerRole:
            if role in self.passphrases:
                rec = dict(self.passphrases[role])
                passphrases[role.value] = rec if with_hashes else {"set_at": rec.get("set_at")}
        return {"format": FORMAT, "version": VERSION, "passphrases": passphrases,
                "grants": [{"name": g.name, "roles": [r.value for r in ReviewerRole if r in g.roles],
                            "granted_at": g.granted_at} for g in self.grants.values()]}


def roles_path(folder: str | os.PathLike[str]) -> Path:
    return Path(folder) / ROLES_FILE


def find_rolebook(game_dir: str | os.PathLike[str]) -> RoleBook | None:
    """The roles file that governs `game_dir` (its own, else its parent's), or None."""
    game = Path(game_dir)
    for folder in (game, game.parent):
        path = folder / ROLES_FILE
        if path.exists():
            return load_rolebook(path)
    return None


def load_rolebook(path: str | os.PathLike[str]) -> RoleBook:
    from mafvar.limits import InputLimitError, read_json_file
    p = Path(path)
    try:
        doc = read_json_file(p, max_bytes=MAX_BYTES, what="roles file")
    except (json.JSONDecodeError, InputLimitError) as exc:
        raise RoleBookError(f"{p}: not a readable roles file ({exc})") from None
    except OSError as exc:
        raise RoleBookError(f"{p}: cannot read the roles file ({exc.strerror or exc})") from None
    return _parse(p, doc)


def _parse(path: Path, doc: Any) -> RoleBook:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise RoleBookError(f"{path}: not a {FORMAT} file")
    if doc.get("version") != VERSION:
        raise RoleBookError(f"{path}: version {doc.get('version')!r} is not supported "
                            f"(expected {VERSION})")
    raw = doc.get("passphrases") or {}
    if not isinstance(raw, dict):
        raise RoleBookError(f"{path}: 'passphrases' must be an object keyed by role")
    passphrases: dict[ReviewerRole, dict[str, Any]] = {}
    for key, rec in raw.items():
        try:
            role = ReviewerRole(key)
        except ValueError:
            raise RoleBookError(f"{path}: unknown role {key!r} in 'passphrases'") from None
        if not _valid_record(rec):
            raise RoleBookError(f"{path}: the {role.words}'s passphrase record is malformed")
        passphrases[role] = dict(rec)
    grants: dict[str, Grant] = {}
    items = doc.get("grants") or []
    if not isinstance(items, list):
        raise RoleBookError(f"{path}: 'grants' must be a list")
    for i, g in enumerate(items):
        try:
            name = clean_name(g["name"])
            roles = frozenset(ReviewerRole(r) for r in g["roles"])
            at = g.get("granted_at")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RoleBookError(f"{path}: grants[{i}] is malformed ({exc})") from None
        grants[name_key(name)] = Grant(name, roles, at if isinstance(at, str) else None)
    return RoleBook(path, passphrases, grants)


def _valid_record(rec: Any) -> bool:
    if not isinstance(rec, dict) or rec.get("kdf") != "scrypt":
        return False
    try:
        n, r, p = int(rec["n"]), int(rec["r"]), int(rec["p"])
        salt, digest = bytes.fromhex(rec["salt"]), bytes.fromhex(rec["hash"])
    except (KeyError, TypeError, ValueError):
        return False
    # bounds keep a hostile file from asking for gigabytes or hours per check
    return (2 ** 10 <= n <= 2 ** 17 and n & (n - 1) == 0 and 1 <= r <= 16 and 1 <= p <= 4
            and 8 <= len(salt) <= 64 and len(digest) == 32)


def _derive(passphrase: str, rec: Mapping[str, Any]) -> bytes:
    return hashlib.scrypt(passphrase.encode("utf-8"), salt=bytes.fromhex(rec["salt"]),
                          n=int(rec["n"]), r=int(rec["r"]), p=int(rec["p"]), dklen=32,
                          maxmem=_MAXMEM)


def hash_passphrase(passphrase: str) -> dict[str, Any]:
    """A new salted scrypt record for `passphrase` (checked for length first)."""
    text = clean_passphrase(passphrase)
    rec: dict[str, Any] = {**KDF, "salt": secrets.token_bytes(16).hex()}
    rec["hash"] = _derive(text, rec).hex()
    rec["set_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return rec


# -- changes (the `mafvar roles` command) --------------------------------------------------

def current(folder: str | os.PathLike[str]) -> RoleBook:
    """The folder's own roles file, or an empty one (not yet written)."""
    path = roles_path(folder)
    if path.exists():
        return load_rolebook(path)
    return RoleBook(path)


def set_passphrase(folder: str | os.PathLike[str], role: ReviewerRole | str, passphrase: str, *,
                   organiser_passphrase: str | None = None) -> RoleBook:
    """Set (or change) a role's passphrase. Once the organiser's is set, any change needs it;
    before that, the organiser's must be the first one set."""
    role = ReviewerRole(role)
    book = current(folder)
    _require_organiser(book, organiser_passphrase, f"set the {role.words}'s passphrase",
                       first_role=role)
    passphrases = dict(book.passphrases)
    passphrases[role] = hash_passphrase(passphrase)
    return _save(RoleBook(book.path, passphrases, dict(book.grants)))


def grant(folder: str | os.PathLike[str], name: str, roles: Iterable[ReviewerRole | str], *,
          organiser_passphrase: str | None = None) -> RoleBook:
    """Allow `name` to hold every role in `roles` in this tournament."""
    book = current(folder)
    _require_organiser(book, organiser_passphrase, "grant roles")
    clean = clean_name(name)
    wanted = frozenset(ReviewerRole(r) for r in roles)
    if len(wanted) < 2:
        raise RoleBookError("a grant names at least two roles (one role needs no grant)")
    grants = dict(book.grants)
    grants[name_key(clean)] = Grant(clean, wanted,
                                    datetime.now(timezone.utc).isoformat(timespec="seconds"))
    return _save(RoleBook(book.path, dict(book.passphrases), grants))


def revoke(folder: str | os.PathLike[str], name: str, *,
           organiser_passphrase: str | None = None) -> RoleBook:
    book = current(folder)
    _require_organiser(book, organiser_passphrase, "revoke a grant")
    grants = dict(book.grants)
    if grants.pop(name_key(name), None) is None:
        raise RoleBookError(f"{name} holds no grant in {book.path}")
    return _save(RoleBook(book.path, dict(book.passphrases), grants))


def _require_organiser(book: RoleBook, organiser_passphrase: str | None, doing: str,
                       first_role: ReviewerRole | None = None) -> None:
    if not book.protected:
        if first_role is not None and first_role is not ReviewerRole.ORGANISER:
            raise RoleBookError(
                f"set the organiser's passphrase first (`mafvar roles set {book.folder} --role "
                f"organiser`): it is the one that guards the others")
        return
    if not book.check_passphrase(ReviewerRole.ORGANISER, organiser_passphrase):
        raise RoleBookError(f"wrong organiser passphrase: only the organiser may {doing} "
                            f"in {book.folder}")


def _save(book: RoleBook) -> RoleBook:
    doc = book.to_json()
    book.folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=book.path.name + ".", suffix=".tmp", dir=book.folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)  # hashes only, but nobody else needs to read them
        os.replace(tmp, book.path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return load_rolebook(book.path)


# -- the check every write goes through ---------------------------------------------------

PRACTICE = "practice"      # no organiser passphrase: open practice mode
PASSPHRASE = "passphrase"  # the role's passphrase was given and matched


def authenticate(book: RoleBook | None, role: ReviewerRole, passphrase: str | None) -> str:
    """How this act is authorised (PRACTICE or PASSPHRASE); PermissionError if it is not."""
    if book is None or not book.protected:
        return PRACTICE
    if not book.has_passphrase(role):
        raise PermissionError(
            f"no passphrase is set for the {role.words} in {book.folder}: the organiser sets one "
            f"with `mafvar roles set {book.folder} --role {role.value}`")
    if not passphrase:
        raise PermissionError(f"acting as {role.words} in {book.folder} needs the "
                              f"{role.words}'s passphrase")
    if not book.check_passphrase(role, passphrase):
        raise PermissionError(f"wrong passphrase for the {role.words}")
    return PASSPHRASE

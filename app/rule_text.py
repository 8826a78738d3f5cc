"""The text of a rule clause in the game's profile, from the source rulebooks.

The engine cites clauses ("MC 2.4.7", "SM 6.5", "RU L17") but does not carry
their text; the rulebooks live beside the project (../shared/seeds, see
rules-spec §0). Which books a clause code stands for is each profile's own
declaration (engine/profiles/*.json `code` and `sources`). This reads the
numbered paragraph from there; when the books are absent the page says so
instead of guessing.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from engine.profiles import Profile, all_profiles

RULEBOOKS_ENV = "MAFVAR_RULEBOOKS"


def books_of_code() -> dict[str, tuple[str, ...]]:
    """Clause code -> the rulebooks it cites (e.g. MC -> 000, 001), from the profiles."""
    return {p.code: p.sources for p in all_profiles()}


def rulebook_dir() -> Path | None:
    env = os.environ.get(RULEBOOKS_ENV)
    candidates = [Path(env)] if env else []
    repo = Path(__file__).resolve().parent.parent
    candidates += [repo.parent / "shared" / "seeds", repo / "seeds"]
    return next((c for c in candidates if c.is_dir()), None)


@lru_cache(maxsize=8)
def _book_lines(prefix: str, folder: str) -> tuple[str, ...]:
    for path in sorted(Path(folder).glob(f"{prefix}_*.txt")):
        return tuple(path.read_text(encoding="utf-8", errors="replace").splitlines())
    return ()


def split_clause(clause: str, profile: Profile) -> tuple[str, str]:
    """("MC", "2.4.7") from "MC 2.4.7"; a bare number takes the profile's code."""
    clause = clause.strip()
    code, _, rest = clause.partition(" ")
    if rest and code in books_of_code():
        return code, rest.strip()
    return profile.code, clause


def clause_text(clause: str, profile: Profile) -> str | None:
    """The paragraph of `clause` in its rulebook, or None if not found."""
    if not clause:
        return None
    folder = rulebook_dir()
    if folder is None:
        return None
    code, number = split_clause(clause, profile)
    number = re.split(r"[\s,;]", number)[0].rstrip(".")
    for prefix in books_of_code().get(code, ()):
        lines = _book_lines(prefix, str(folder))
        if not lines:
            continue
        line_ref = re.fullmatch(r"L(\d+)", number)
        if line_ref:
            n = int(line_ref.group(1))
            return lines[n - 1].strip() if 0 < n <= len(lines) else None
        pattern = re.compile(r"^\s*(?:[-•*]\s*)?" + re.escape(number) + r"\.?(?:\s|$|[A-ZА-Я])")
        for line in lines:
            if pattern.match(line):
                return re.sub(r"^\s*[-•*]\s*", "", line).strip()
    return None
